/* quiz_answer.c - answer checking (quiz_answer.h): what a learner types read as a number, a
 * shape, choices or text, judged against a QuizItem, with hints and the expected number
 * written for display. No engine, no curses, no printing. */
#include "quiz_answer.h"
#include "errf.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- reading answers ---- */

/* Copies s trimmed of ASCII spaces into out. */
static void trim(const char *s, char *out, size_t outlen)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, s, n);
    out[n] = 0;
}

/* Replaces UTF-8 sequences a learner may type with ASCII: − (minus) -> '-', × -> 'x',
 * ∞ -> "inf", non-breaking space -> ' '. */
static void ascii_math(const char *s, char *out, size_t outlen)
{
    size_t o = 0;
    while (*s && o + 4 < outlen) {
        if (!strncmp(s, "\xe2\x88\x92", 3)) {
            out[o++] = '-';
            s += 3;
        } else if (!strncmp(s, "\xc3\x97", 2)) {
            out[o++] = 'x';
            s += 2;
        } else if (!strncmp(s, "\xe2\x88\x9e", 3)) {
            memcpy(out + o, "inf", 3);
            o += 3;
            s += 3;
        } else if (!strncmp(s, "\xc2\xa0", 2)) {
            out[o++] = ' ';
            s += 2;
        } else {
            out[o++] = *s++;
        }
    }
    out[o] = 0;
}

/* What a learner typed, in ASCII and trimmed, into t (200 bytes); -1 with a message when it
 * is too long to be WHAT or empty (then "type EXAMPLE"). */
static int read_typed(const char *s, char *t, const char *what, const char *example, char *msg,
                      size_t msglen)
{
    char a[200];
    if (strlen(s) > 120) {
        errf(msg, msglen, "That is too long to be %s.", what);
        return -1;
    }
    ascii_math(s, a, sizeof a);
    trim(a, t, 200);
    if (!t[0]) {
        errf(msg, msglen, "Empty answer: type %s.", example);
        return -1;
    }
    return 0;
}

const char *quiz_normalise(const char *in, char *out, size_t outlen)
{
    char a[400], t[400];
    ascii_math(in, a, sizeof a);
    trim(a, t, sizeof t);
    /* surrounding quotes and a final . ! ? */
    size_t n = strlen(t);
    char *p = t;
    while (n && (strchr(".!?", p[n - 1]) || p[n - 1] == '"' || p[n - 1] == '\'' ||
                 isspace((unsigned char)p[n - 1])))
        p[--n] = 0;
    while (*p == '"' || *p == '\'' || isspace((unsigned char)*p))
        p++;
    size_t o = 0;
    int space = 0;
    for (; *p && o + 1 < outlen; p++) {
        unsigned char c = (unsigned char)*p;
        if (isspace(c) || c == '-' || c == '_') {
            space = 1;
            continue;
        }
        if (space && o)
            out[o++] = ' ';
        space = 0;
        if (o + 1 < outlen)
            out[o++] = (char)tolower(c);
    }
    out[o] = 0;
    return out;
}

int quiz_parse_number(const char *s, int allow_inf, double *out, char *msg, size_t msglen)
{
    char t[200];
    if (read_typed(s, t, "a number", "a number, such as 0.25", msg, msglen))
        return -1;
    /* infinities, spelled out */
    const char *body = t[0] == '-' || t[0] == '+' ? t + 1 : t;
    if (!strcasecmp(body, "inf") || !strcasecmp(body, "infinity")) {
        if (!allow_inf) {
            errf(msg, msglen, "\"%s\" is infinite; the answer here is a finite number.", t);
            return -1;
        }
        *out = t[0] == '-' ? -INFINITY : INFINITY;
        return 0;
    }
    if (!strcasecmp(body, "nan")) {
        errf(msg, msglen, "NaN is not a number you can give as an answer.");
        return -1;
    }
    for (const char *p = t; *p; p++)
        if (!(isdigit((unsigned char)*p) || strchr("+-.eE/ ", *p))) {
            if (*p == ',' && strchr(t, ',') == strrchr(t, ','))
                errf(msg, msglen, "\"%s\": write decimals with a point, such as 0.25.", t);
            else if (*p == '%')
                errf(msg, msglen, "\"%s\": write the number without %%, such as 0.25.", t);
            else
                errf(msg, msglen, "\"%s\" is not a number.", t);
            return -1;
        }
    double v;
    const char *slash = strchr(t, '/');
    errno = 0;
    char *end;
    if (slash) {
        char num[200];
        size_t k = (size_t)(slash - t);
        memcpy(num, t, k);
        num[k] = 0;
        char tn[200], td[200];
        trim(num, tn, sizeof tn);
        trim(slash + 1, td, sizeof td);
        double a1 = strtod(tn, &end);
        if (!tn[0] || *end) {
            errf(msg, msglen, "\"%s\" is not a fraction such as 1/3.", t);
            return -1;
        }
        double b1 = strtod(td, &end);
        if (!td[0] || *end || strchr(td, '/')) {
            errf(msg, msglen, "\"%s\" is not a fraction such as 1/3.", t);
            return -1;
        }
        if (b1 == 0) {
            errf(msg, msglen, "\"%s\" divides by zero.", t);
            return -1;
        }
        v = a1 / b1;
    } else {
        v = strtod(t, &end);
        if (end == t || *end) {
            errf(msg, msglen, "\"%s\" is not a number.", t);
            return -1;
        }
    }
    if (isnan(v)) {
        errf(msg, msglen, "NaN is not a number you can give as an answer.");
        return -1;
    }
    if (isinf(v) || fabs(v) > 1e15 || (errno == ERANGE && fabs(v) > 1)) {
        errf(msg, msglen, "\"%s\" is far too large to be the answer here.", t);
        return -1;
    }
    *out = v;
    return 0;
}

int quiz_parse_shape(const char *s, int *dims, char *msg, size_t msglen)
{
    char t[200];
    if (read_typed(s, t, "a shape", "a shape such as 6x64", msg, msglen))
        return -1;
    char *p = t;
    size_t n = strlen(p);
    /* one pair of surrounding brackets */
    if ((p[0] == '[' && p[n - 1] == ']') || (p[0] == '(' && p[n - 1] == ')')) {
        p[n - 1] = 0;
        p++;
    }
    int rank = 0;
    int need = 1; /* expecting a number */
    while (*p) {
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (isdigit((unsigned char)*p)) {
            if (!need && rank > 0) {
                /* "6 64": spaces alone separate */
            }
            char *end;
            errno = 0;
            long v = strtol(p, &end, 10);
            if (*end == '.' || *end == 'e' || *end == 'E') {
                errf(msg, msglen, "\"%s\": sizes are whole numbers, such as 6x64.", t);
                return -1;
            }
            if (errno == ERANGE || v > 1000000000L) {
                errf(msg, msglen, "\"%s\": a size is far too large.", t);
                return -1;
            }
            if (v < 1) {
                errf(msg, msglen, "\"%s\": sizes are at least 1.", t);
                return -1;
            }
            if (rank >= QUIZ_MAX_RANK) {
                errf(msg, msglen, "\"%s\" has more than %d sizes.", t, QUIZ_MAX_RANK);
                return -1;
            }
            dims[rank++] = (int)v;
            need = 0;
            p = end;
            continue;
        }
        if (*p == 'x' || *p == 'X' || *p == '*' || *p == ',') {
            if (need) {
                errf(msg, msglen, "\"%s\" is not a shape such as 6x64 or [6, 64].", t);
                return -1;
            }
            need = 1;
            p++;
            continue;
        }
        if (*p == '-') {
            errf(msg, msglen, "\"%s\": sizes are at least 1.", t);
            return -1;
        }
        errf(msg, msglen, "\"%s\" is not a shape such as 6x64 or [6, 64].", t);
        return -1;
    }
    if (rank == 0 || need) {
        errf(msg, msglen, "\"%s\" is not a shape such as 6x64 or [6, 64].", t);
        return -1;
    }
    return rank;
}

/* A choice label: "2" (1-based) or "b". Returns the 0-based index or -1. */
static int parse_choice_token(const char *tok, int n)
{
    if (!tok[0])
        return -1;
    if (!tok[1] && isalpha((unsigned char)tok[0])) {
        int i = tolower((unsigned char)tok[0]) - 'a';
        return i < n ? i : -1;
    }
    char *end;
    long v = strtol(tok, &end, 10);
    if (*end || end == tok || v < 1 || v > n)
        return -1;
    return (int)v - 1;
}

static int popcount(unsigned v)
{
    int c = 0;
    for (; v; v &= v - 1)
        c++;
    return c;
}

/* Splits on commas and spaces into tokens (at most max), returns the count or -1 when too
 * many. */
static int split_tokens(char *s, char **tok, int max)
{
    int n = 0;
    for (char *p = strtok(s, ", \t;"); p; p = strtok(NULL, ", \t;")) {
        if (n >= max)
            return -1;
        tok[n++] = p;
    }
    return n;
}

static QuizVerdict check_choice(const QuizItem *it, char *t, char *msg, size_t msglen)
{
    char *tok[QUIZ_MAX_CHOICES + 1];
    int k = split_tokens(t, tok, QUIZ_MAX_CHOICES);
    if (k != 1) {
        errf(msg, msglen, "Pick one choice: a number from 1 to %d.", it->n_choices);
        return QV_INVALID;
    }
    int i = parse_choice_token(tok[0], it->n_choices);
    if (i < 0) {
        errf(msg, msglen, "\"%s\" is not a choice: type a number from 1 to %d.", tok[0],
            it->n_choices);
        return QV_INVALID;
    }
    if (it->correct & (1u << i)) {
        errf(msg, msglen, "Right: choice %d.", i + 1);
        return QV_RIGHT;
    }
    /* the learner's own pick, with its reason when the question gives one */
    if (it->why[i][0])
        errf(msg, msglen, "Choice %d is not right: %s", i + 1, it->why[i]);
    else
        errf(msg, msglen, "Choice %d is not right.", i + 1);
    return QV_WRONG;
}

static QuizVerdict check_multi(const QuizItem *it, char *t, char *msg, size_t msglen)
{
    char *tok[QUIZ_MAX_CHOICES * 2 + 1];
    int k = split_tokens(t, tok, QUIZ_MAX_CHOICES * 2);
    if (k < 1) {
        errf(msg, msglen, "Type the numbers of every right choice, such as 1 3.");
        return QV_INVALID;
    }
    unsigned set = 0;
    for (int i = 0; i < k; i++) {
        int c = parse_choice_token(tok[i], it->n_choices);
        if (c < 0) {
            errf(msg, msglen, "\"%s\" is not a choice: use numbers from 1 to %d.", tok[i],
                it->n_choices);
            return QV_INVALID;
        }
        set |= 1u << c;
    }
    if (set == it->correct) {
        errf(msg, msglen, "Right: exactly the %d right choices.", popcount(set));
        return QV_RIGHT;
    }
    int good = popcount(set & it->correct), bad = popcount(set & ~it->correct),
        missing = popcount(it->correct & ~set);
    errf(msg, msglen, "Not quite: %d of your picks %s right, %d %s not, %d right choice%s "
                     "missing.", good, good == 1 ? "is" : "are", bad,
        bad == 1 ? "is" : "are", missing, missing == 1 ? " is" : "s are");
    return QV_WRONG;
}

static QuizVerdict check_number(const QuizItem *it, char *t, char *msg, size_t msglen)
{
    double v;
    if (quiz_parse_number(t, isinf(it->number), &v, msg, msglen))
        return QV_INVALID;
    int right;
    if (isinf(it->number))
        right = isinf(v) && (v < 0) == (it->number < 0);
    else
        right = !isinf(v) && fabs(v - it->number) <= it->tol + 1e-9 * fabs(it->number);
    if (right) {
        errf(msg, msglen, "Right.");
        return QV_RIGHT;
    }
    errf(msg, msglen, "%s is not right%s.", t,
        it->tol > 0 && !isinf(it->number) ? " (not within the tolerance)" : "");
    return QV_WRONG;
}

static QuizVerdict check_shape(const QuizItem *it, char *t, char *msg, size_t msglen)
{
    int d[QUIZ_MAX_RANK];
    int r = quiz_parse_shape(t, d, msg, msglen);
    if (r < 0)
        return QV_INVALID;
    if (r != it->rank) {
        errf(msg, msglen, "That shape has %d size%s; this one has %d (%s).", r,
            r == 1 ? "" : "s", it->rank, it->rank == 2 ? "rows x columns" : "one per axis");
        return QV_INVALID;
    }
    int same = 1, swapped = it->rank == 2;
    for (int i = 0; i < r; i++)
        if (d[i] != it->dims[i])
            same = 0;
    if (same) {
        errf(msg, msglen, "Right.");
        return QV_RIGHT;
    }
    if (swapped && d[0] == it->dims[1] && d[1] == it->dims[0])
        errf(msg, msglen, "The right sizes in the wrong order: rows come first.");
    else
        errf(msg, msglen, "%s is not the shape.", t);
    return QV_WRONG;
}

static QuizVerdict check_cell(const QuizItem *it, char *t, char *msg, size_t msglen)
{
    char *tok[4];
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s", t);
    for (char *p = tmp; *p; p++)
        if (*p == '(' || *p == ')' || *p == '[' || *p == ']')
            *p = ' ';
    int k = split_tokens(tmp, tok, 3);
    int v[2];
    if (k < 1 || k > 2) {
        errf(msg, msglen, "Give a key column, a number from 0 to %d.", it->n_cols - 1);
        return QV_INVALID;
    }
    for (int i = 0; i < k; i++) {
        char *end;
        long x = strtol(tok[i], &end, 10);
        if (*end || end == tok[i] || x < 0 || x > 100000) {
            errf(msg, msglen, "\"%s\" is not a column number (0 to %d).", tok[i],
                it->n_cols - 1);
            return QV_INVALID;
        }
        v[i] = (int)x;
    }
    int col = v[k - 1];
    if (k == 2 && v[0] != it->row) {
        errf(msg, msglen, "This question is about row %d; give its key column.", it->row);
        return QV_INVALID;
    }
    if (col >= it->n_cols) {
        errf(msg, msglen, "Column %d does not exist: the columns are 0 to %d.", col,
            it->n_cols - 1);
        return QV_INVALID;
    }
    if (col == it->col) {
        errf(msg, msglen, "Right: column %d.", col);
        return QV_RIGHT;
    }
    errf(msg, msglen, "Column %d is not right.", col);
    return QV_WRONG;
}

/* Each word of a normalised answer in its singular (a crude English rule, enough for the
 * nouns of the course: "queries" -> "query", "values" -> "value", never "bias" -> "bia"). */
static void singular_words(const char *in, char *out, size_t outlen)
{
    size_t o = 0;
    while (*in && o + 1 < outlen) {
        size_t n = strcspn(in, " ");
        char w[100];
        snprintf(w, sizeof w, "%.*s", (int)(n < sizeof w - 1 ? n : sizeof w - 1), in);
        size_t l = strlen(w);
        if (l > 4 && !strcmp(w + l - 3, "ies"))
            strcpy(w + l - 3, "y");
        else if (l > 3 && w[l - 1] == 's' && !strchr("aisu", w[l - 2]))
            w[l - 1] = 0;
        o += (size_t)snprintf(out + o, outlen - o, "%s%s", o ? " " : "", w);
        if (o >= outlen)
            o = outlen - 1;
        in += n;
        while (*in == ' ')
            in++;
    }
    out[o < outlen ? o : outlen - 1] = 0;
}

static QuizVerdict check_text(const QuizItem *it, char *t, char *msg, size_t msglen)
{
    char norm[300];
    quiz_normalise(t, norm, sizeof norm);
    if (!norm[0]) {
        errf(msg, msglen, "Type a word or a few words.");
        return QV_INVALID;
    }
    char sing[300], want[300];
    singular_words(norm, sing, sizeof sing);
    for (int i = 0; i < it->n_text; i++) {
        singular_words(it->text[i], want, sizeof want);
        if (!strcmp(norm, it->text[i]) || !strcmp(sing, want)) { /* "values" for "value" */
            errf(msg, msglen, "Right.");
            return QV_RIGHT;
        }
    }
    errf(msg, msglen, "\"%s\" is not right.", t);
    return QV_WRONG;
}

QuizVerdict quiz_check(const QuizItem *it, const char *answer, char *msg, size_t msglen)
{
    char t[300];
    if (!answer)
        answer = "";
    if (strlen(answer) > 200) {
        errf(msg, msglen, "That answer is too long; keep it under 200 characters.");
        return QV_INVALID;
    }
    trim(answer, t, sizeof t);
    if (!t[0]) {
        errf(msg, msglen, "Empty answer: type one first (or skip the question).");
        return QV_INVALID;
    }
    switch (it->kind) {
    case QK_CHOICE:
        return check_choice(it, t, msg, msglen);
    case QK_MULTI:
        return check_multi(it, t, msg, msglen);
    case QK_NUMBER:
        return check_number(it, t, msg, msglen);
    case QK_SHAPE:
        return check_shape(it, t, msg, msglen);
    case QK_CELL:
        return check_cell(it, t, msg, msglen);
    case QK_TEXT:
        return check_text(it, t, msg, msglen);
    default:
        errf(msg, msglen, "This question cannot be answered (unknown kind).");
        return QV_INVALID;
    }
}

static int auto_hints(const QuizItem *it)
{
    switch (it->kind) {
    case QK_CHOICE: return it->n_choices - 2 > 0 ? it->n_choices - 2 : 0;
    default: return 1;
    }
}

int quiz_hint_count(const QuizItem *it)
{
    return it->n_hints + auto_hints(it);
}

const char *quiz_hint(const QuizItem *it, int h, char *out, size_t outlen)
{
    if (h < 0 || h >= quiz_hint_count(it))
        return NULL;
    if (h < it->n_hints) {
        snprintf(out, outlen, "%s", it->hints[h]);
        return out;
    }
    int a = h - it->n_hints;
    switch (it->kind) {
    case QK_CHOICE: {
        int k = 0;
        for (int i = it->n_choices - 1; i >= 0; i--)
            if (!(it->correct & (1u << i)) && k++ == a) {
                if (it->why[i][0])
                    snprintf(out, outlen, "It is not choice %d (%s): %s", i + 1,
                             it->choices[i], it->why[i]);
                else
                    snprintf(out, outlen, "It is not choice %d (%s).", i + 1, it->choices[i]);
                return out;
            }
        return NULL;
    }
    case QK_MULTI:
        snprintf(out, outlen, "%d of the %d choices are right.", popcount(it->correct),
                 it->n_choices);
        return out;
    case QK_NUMBER:
        if (isinf(it->number))
            snprintf(out, outlen, "Think about what the mask puts into a score.");
        else if (it->tol > 0)
            snprintf(out, outlen, "Answers within %g of the exact value count as right.",
                     it->tol);
        else
            snprintf(out, outlen, "The answer is a whole number.");
        return out;
    case QK_SHAPE:
        snprintf(out, outlen, "Give %d size%s, %s.", it->rank, it->rank == 1 ? "" : "s",
                 it->rank == 2 ? "rows first, then columns (like 6x64)" : "one per axis");
        return out;
    case QK_CELL:
        snprintf(out, outlen, "Find the largest weight in row %d; give its key column (0 to "
                              "%d).", it->row, it->n_cols - 1);
        return out;
    case QK_TEXT:
        snprintf(out, outlen, "It starts with \"%c\" and has %zu characters.", it->text[0][0],
                 strlen(it->text[0]));
        return out;
    default:
        return NULL;
    }
}

int quiz_choice_picked(const QuizItem *it, const char *answer)
{
    char t[256], *tok[QUIZ_MAX_CHOICES + 1];
    if (it->kind != QK_CHOICE || !answer)
        return -1;
    snprintf(t, sizeof t, "%s", answer);
    if (split_tokens(t, tok, QUIZ_MAX_CHOICES) != 1)
        return -1;
    return parse_choice_token(tok[0], it->n_choices);
}

const char *quiz_hint_after(const QuizItem *it, int h, const char *given, char *out,
                            size_t outlen)
{
    int wrong = quiz_choice_picked(it, given);
    if (wrong < 0 || (it->correct >> wrong & 1u) || it->n_choices < 3)
        return quiz_hint(it, h, out, outlen);
    if (h < 0 || h >= quiz_hint_count(it))
        return NULL;
    if (h == 0) { /* first: the learner's own pick ruled out, with its reason */
        if (it->why[wrong][0])
            snprintf(out, outlen, "It is not choice %d (%s): %s", wrong + 1, it->choices[wrong],
                     it->why[wrong]);
        else
            snprintf(out, outlen, "It is not choice %d (%s).", wrong + 1, it->choices[wrong]);
        return out;
    }
    if (h - 1 < it->n_hints) {
        snprintf(out, outlen, "%s", it->hints[h - 1]);
        return out;
    }
    /* then the other wrong choices, as quiz_hint rules them out, the pick left out */
    int a = h - 1 - it->n_hints, k = 0;
    for (int i = it->n_choices - 1; i >= 0; i--)
        if (!(it->correct & (1u << i)) && i != wrong && k++ == a) {
            if (it->why[i][0])
                snprintf(out, outlen, "It is not choice %d (%s): %s", i + 1, it->choices[i],
                         it->why[i]);
            else
                snprintf(out, outlen, "It is not choice %d (%s).", i + 1, it->choices[i]);
            return out;
        }
    return NULL;
}

int quiz_verdict_text(const QuizItem *it, const char *given, char *out, size_t outlen)
{
    size_t k = 0;
#define PUT(...) do { int w_ = snprintf(out + k, outlen - k, __VA_ARGS__); \
                      if (w_ > 0) k = (size_t)w_ < outlen - k ? k + (size_t)w_ : outlen - 1; } \
                 while (0)
    out[0] = 0;
    PUT("Expected: %s    Yours: %s", it->answer, given && given[0] ? given : "(none)");
    int pick = quiz_choice_picked(it, given);
    if (pick >= 0 && !(it->correct >> pick & 1u) && it->why[pick][0])
        PUT("\nWhy not %d: %s", pick + 1, it->why[pick]);
    if (it->explain[0])
        PUT("\n%s", it->explain);
#undef PUT
    return (int)k;
}

/* "-0.00" (a small negative value rounded) is "0.00". */
static void unminus_zero(char *s)
{
    if (s[0] == '-' && strspn(s + 1, "0.") == strlen(s + 1))
        memmove(s, s + 1, strlen(s));
}

/* Formats an expected number for display (the quiz screen and --answers) with the precision
 * the question implies: the placeholder's .N when it gives one (prec >= 0), else as many
 * decimals as the tolerance resolves (0.005 -> 2, 0.05 -> 1, 0.0011 -> 3), else (an exact
 * answer) the value itself without trailing zeros. A value too small for those decimals
 * prints in plain decimals and says it is essentially 0 when the tolerance covers it. */
void quiz_format_number(double v, double tol, int prec, char *out, size_t outlen)
{
    if (isinf(v)) {
        snprintf(out, outlen, "%s", v < 0 ? "−∞" : "∞");
        return;
    }
    if (v == 0)
        v = 0; /* no "-0" */
    if (prec >= 0) {
        snprintf(out, outlen, "%.*f", prec, v);
        unminus_zero(out);
        return;
    }
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(out, outlen, "%.0f", v);
        return;
    }
    if (tol <= 0) { /* exact: the value, without trailing zeros */
        if (fabs(v) < 5e-7) {
            snprintf(out, outlen, "%.1e", v);
            return;
        }
        snprintf(out, outlen, "%.6f", v);
        size_t n = strlen(out);
        while (n > 1 && out[n - 1] == '0')
            out[--n] = 0;
        if (n && out[n - 1] == '.')
            out[--n] = 0;
        return;
    }
    /* the fewest decimals whose rounding (half a unit of the last one) is within tol */
    int dec = (int)ceil(-log10(2 * tol) - 1e-9);
    if (dec < 0)
        dec = 0;
    if (dec > 6)
        dec = 6;
    snprintf(out, outlen, "%.*f", dec, v);
    if (v != 0 && fabs(v) < 1e-4 && fabs(v) < 0.5 * pow(10, -dec)) {
        /* float noise (an equivariance gap, a rounding) that the decimals would show as 0:
         * plain decimals, and say that it counts as 0 when the tolerance covers it */
        if (fabs(v) >= 5e-7)
            snprintf(out, outlen, "%.6f", v);
        else
            snprintf(out, outlen, "%.1e", v);
        if (fabs(v) <= tol)
            snprintf(out + strlen(out), outlen - strlen(out), " (essentially 0)");
        return;
    }
    unminus_zero(out);
}
