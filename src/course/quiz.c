/* quiz.c - the quiz engine: the question schema check, answers computed by the engine on a
 * question's own state, seeded drills, answer checking for every kind, and the Leitner
 * schedule and scores kept in the progress slot "quiz" (docs/quiz.md). No curses, no
 * printing, no exit(). */
#include "quiz.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json.h"
#include "tensor.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static void say(char *msg, size_t msglen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (msg && msglen)
        vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
}

/* ---- kinds and the schema ---- */

static const char *const KIND_NAMES[QK__COUNT] = {"choice", "number", "shape", "cell",
                                                  "multi", "text", "drill"};
static const QuizKind KIND_ORDER[QK__COUNT] = {QK_CHOICE, QK_NUMBER, QK_SHAPE, QK_CELL,
                                               QK_MULTI, QK_TEXT, QK_DRILL};

const char *quiz_kind_name(QuizKind k)
{
    for (int i = 0; i < QK__COUNT; i++)
        if (KIND_ORDER[i] == k)
            return KIND_NAMES[i];
    return "?";
}

int quiz_kind_parse(const char *s)
{
    for (int i = 0; i < QK__COUNT; i++)
        if (!strcmp(s, KIND_NAMES[i]))
            return (int)KIND_ORDER[i];
    return -1;
}

const char *const QUIZ_DRILLS[] = {"qk-entries", "d-k", "score-shape", "q-shape", "softmax",
                                   "causal-zero", "row-sum", "equivariance", NULL};
static const char *const DRILL_ABOUT[] = {
    "entries of QKᵀ for N tokens (d_k given as a distractor)",
    "d_k from d_model and the number of heads",
    "shape of one head's score matrix for a sequence length L",
    "shape of one head's Q from N, d_model and h",
    "one entry of a 3×3 softmax of small integer scores, by hand",
    "a weight above the diagonal under the causal mask, on a lesson sentence",
    "what a row of attention weights sums to (mask on or off), on a lesson sentence",
    "is max|Attn(PX) − P·Attn(X)| zero? for a random permutation and PE",
};

const char *quiz_drill_about(const char *name)
{
    for (int i = 0; QUIZ_DRILLS[i]; i++)
        if (!strcmp(QUIZ_DRILLS[i], name))
            return DRILL_ABOUT[i];
    return NULL;
}

static const char *type_name(const cJSON *it)
{
    if (cJSON_IsString(it)) return "a string";
    if (cJSON_IsNumber(it)) return "a number";
    if (cJSON_IsBool(it)) return "true/false";
    if (cJSON_IsNull(it)) return "null";
    if (cJSON_IsArray(it)) return "an array";
    if (cJSON_IsObject(it)) return "an object";
    return "invalid";
}

static int is_whole(const cJSON *it, double lo, double hi)
{
    return cJSON_IsNumber(it) && it->valuedouble == floor(it->valuedouble) &&
           it->valuedouble >= lo && it->valuedouble <= hi;
}

/* Keys every kind allows, then the kind's own. */
static const char *const COMMON_KEYS[] = {"id", "kind", "prompt", "explain", "state", "hints",
                                          NULL};
static const char *kind_keys(QuizKind k)
{
    switch (k) {
    case QK_CHOICE: return "choices answer";
    case QK_MULTI: return "choices answers";
    case QK_NUMBER: return "compute answer tolerance";
    case QK_SHAPE: return "compute answer";
    case QK_CELL: return "row compute answer";
    case QK_TEXT: return "answers";
    case QK_DRILL: return "drill";
    default: return "";
    }
}

static int key_allowed(QuizKind k, const char *key)
{
    for (int i = 0; COMMON_KEYS[i]; i++)
        if (!strcmp(COMMON_KEYS[i], key))
            return !(k == QK_DRILL && !strcmp(key, "state"));
    const char *list = kind_keys(k);
    size_t n = strlen(key);
    for (const char *p = list; *p;) {
        size_t w = strcspn(p, " ");
        if (w == n && !strncmp(p, key, n))
            return 1;
        p += w;
        while (*p == ' ')
            p++;
    }
    return 0;
}

static int check_choices(const cJSON *q, int *n, char *err, size_t errlen)
{
    const cJSON *ch = json_get(q, "choices");
    if (!ch)
        return fail(err, errlen, "missing key \"choices\" (2 to %d strings)", QUIZ_MAX_CHOICES);
    if (!cJSON_IsArray(ch))
        return fail(err, errlen, "choices: must be an array of strings, not %s", type_name(ch));
    *n = cJSON_GetArraySize(ch);
    if (*n < 2 || *n > QUIZ_MAX_CHOICES)
        return fail(err, errlen, "choices: %d given; give 2 to %d", *n, QUIZ_MAX_CHOICES);
    int i = 0;
    for (const cJSON *it = ch->child; it; it = it->next, i++) {
        if (!cJSON_IsString(it) || !it->valuestring[0])
            return fail(err, errlen, "choices[%d]: must be a non-empty string", i);
        if (strlen(it->valuestring) >= sizeof ((QuizItem *)0)->choices[0])
            return fail(err, errlen, "choices[%d]: too long (at most %zu bytes)", i,
                        sizeof ((QuizItem *)0)->choices[0] - 1);
    }
    return 0;
}

/* compute XOR answer, as the kind wants. */
static int check_compute_or_answer(const cJSON *q, QuizKind k, char *err, size_t errlen)
{
    const cJSON *c = json_get(q, "compute"), *a = json_get(q, "answer");
    if (c && a)
        return fail(err, errlen, "give either \"compute\" or \"answer\", not both");
    if (!c && !a)
        return fail(err, errlen, "missing key \"compute\" (a placeholder body such as "
                                 "\"weight 2 3\") or \"answer\"");
    if (c && (!cJSON_IsString(c) || !c->valuestring[0]))
        return fail(err, errlen, "compute: must be a placeholder body such as \"weight 2 3\", "
                                 "not %s", type_name(c));
    if (a) {
        if (k == QK_NUMBER && !(cJSON_IsNumber(a) && isfinite(a->valuedouble)))
            return fail(err, errlen, "answer: must be a number, not %s", type_name(a));
        if (k == QK_CELL && !is_whole(a, 0, 4096))
            return fail(err, errlen, "answer: must be a key column (0, 1, ...)");
        if (k == QK_SHAPE) {
            int r = cJSON_GetArraySize(a);
            if (!cJSON_IsArray(a) || r < 1 || r > QUIZ_MAX_RANK)
                return fail(err, errlen, "answer: must be an array of 1 to %d sizes, "
                                         "such as [6, 64]", QUIZ_MAX_RANK);
            for (const cJSON *it = a->child; it; it = it->next)
                if (!is_whole(it, 1, 1e9))
                    return fail(err, errlen, "answer: sizes are whole numbers >= 1");
        }
    }
    return 0;
}

int quiz_check_question(const char *json, char *err, size_t errlen)
{
    cJSON *q = cJSON_Parse(json);
    if (!q || !cJSON_IsObject(q)) {
        cJSON_Delete(q);
        return fail(err, errlen, "a question must be a JSON object");
    }
    int rc = -1;
    const cJSON *kind = json_get(q, "kind");
    if (!cJSON_IsString(kind)) {
        fail(err, errlen, "missing or bad key \"kind\" (choice, multi, number, shape, cell, "
                          "text, drill)");
        goto out;
    }
    int k = quiz_kind_parse(kind->valuestring);
    if (k < 0) {
        fail(err, errlen, "unknown question kind \"%s\" (choice, multi, number, shape, cell, "
                          "text, drill)", kind->valuestring);
        goto out;
    }
    for (const cJSON *it = q->child; it; it = it->next)
        if (!key_allowed((QuizKind)k, it->string)) {
            fail(err, errlen, "unknown key \"%s\" for a %s question (allowed: id kind prompt "
                              "explain %shints %s)", it->string, kind->valuestring,
                 k == QK_DRILL ? "" : "state ", kind_keys((QuizKind)k));
            goto out;
        }
    const cJSON *ex = json_get(q, "explain");
    if (ex && !cJSON_IsString(ex)) {
        fail(err, errlen, "explain: must be a string, not %s", type_name(ex));
        goto out;
    }
    if (ex && strlen(ex->valuestring) >= sizeof ((QuizItem *)0)->explain) {
        fail(err, errlen, "explain: too long");
        goto out;
    }
    const cJSON *pr = json_get(q, "prompt");
    if (pr && cJSON_IsString(pr) && strlen(pr->valuestring) >= 900) {
        fail(err, errlen, "prompt: too long (at most 900 bytes)");
        goto out;
    }
    const cJSON *st = json_get(q, "state");
    if (st && !cJSON_IsObject(st)) {
        fail(err, errlen, "state: must be an object of start keys, not %s", type_name(st));
        goto out;
    }
    const cJSON *h = json_get(q, "hints");
    if (h) {
        int n = cJSON_GetArraySize(h);
        if (!cJSON_IsArray(h) || n < 1 || n > QUIZ_MAX_HINTS - 1) {
            fail(err, errlen, "hints: must be an array of 1 to %d strings", QUIZ_MAX_HINTS - 1);
            goto out;
        }
        for (const cJSON *it = h->child; it; it = it->next)
            if (!cJSON_IsString(it) || !it->valuestring[0] ||
                strlen(it->valuestring) >= sizeof ((QuizItem *)0)->hints[0]) {
                fail(err, errlen, "hints: each hint is a non-empty string of at most %zu bytes",
                     sizeof ((QuizItem *)0)->hints[0] - 1);
                goto out;
            }
    }
    int n = 0;
    switch ((QuizKind)k) {
    case QK_CHOICE: {
        if (check_choices(q, &n, err, errlen))
            goto out;
        const cJSON *a = json_get(q, "answer");
        if (!a) {
            fail(err, errlen, "missing key \"answer\" (the 0-based index of the right choice)");
            goto out;
        }
        if (!is_whole(a, 0, n - 1)) {
            fail(err, errlen, "answer: must be a choice index 0..%d", n - 1);
            goto out;
        }
        break;
    }
    case QK_MULTI: {
        if (check_choices(q, &n, err, errlen))
            goto out;
        const cJSON *a = json_get(q, "answers");
        if (!a) {
            fail(err, errlen, "missing key \"answers\" (0-based indices of the right choices)");
            goto out;
        }
        if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1) {
            fail(err, errlen, "answers: must be a non-empty array of choice indices");
            goto out;
        }
        unsigned seen = 0;
        for (const cJSON *it = a->child; it; it = it->next) {
            if (!is_whole(it, 0, n - 1)) {
                fail(err, errlen, "answers: each must be a choice index 0..%d", n - 1);
                goto out;
            }
            unsigned bit = 1u << (int)it->valuedouble;
            if (seen & bit) {
                fail(err, errlen, "answers: index %d is listed twice", (int)it->valuedouble);
                goto out;
            }
            seen |= bit;
        }
        break;
    }
    case QK_NUMBER: {
        if (check_compute_or_answer(q, QK_NUMBER, err, errlen))
            goto out;
        const cJSON *t = json_get(q, "tolerance");
        if (t && !(cJSON_IsNumber(t) && t->valuedouble >= 0 && t->valuedouble <= 1e6)) {
            fail(err, errlen, "tolerance: must be a number >= 0 (absolute)");
            goto out;
        }
        break;
    }
    case QK_SHAPE:
        if (check_compute_or_answer(q, QK_SHAPE, err, errlen))
            goto out;
        break;
    case QK_CELL: {
        const cJSON *r = json_get(q, "row");
        if (!r || !is_whole(r, 0, QUIZ_GRID_MAX - 1)) {
            fail(err, errlen, "%s \"row\": the query row (0..%d) whose key column is asked",
                 r ? "bad" : "missing key", QUIZ_GRID_MAX - 1);
            goto out;
        }
        if (check_compute_or_answer(q, QK_CELL, err, errlen))
            goto out;
        break;
    }
    case QK_TEXT: {
        const cJSON *a = json_get(q, "answers");
        int na = cJSON_GetArraySize(a);
        if (!a || !cJSON_IsArray(a) || na < 1 || na > QUIZ_MAX_TEXT) {
            fail(err, errlen, "answers: must be an array of 1 to %d accepted answers",
                 QUIZ_MAX_TEXT);
            goto out;
        }
        for (const cJSON *it = a->child; it; it = it->next) {
            char norm[200];
            if (!cJSON_IsString(it) || strlen(it->valuestring) >= 100 ||
                !quiz_normalise(it->valuestring, norm, sizeof norm)[0]) {
                fail(err, errlen, "answers: each must be a non-empty string under 100 bytes");
                goto out;
            }
        }
        break;
    }
    case QK_DRILL: {
        const cJSON *d = json_get(q, "drill");
        if (!cJSON_IsString(d)) {
            fail(err, errlen, "missing key \"drill\": one of qk-entries, d-k, score-shape, "
                              "q-shape, softmax, causal-zero, row-sum, equivariance");
            goto out;
        }
        if (!quiz_drill_about(d->valuestring)) {
            fail(err, errlen, "unknown drill \"%s\" (qk-entries, d-k, score-shape, q-shape, "
                              "softmax, causal-zero, row-sum, equivariance)", d->valuestring);
            goto out;
        }
        break;
    }
    default:
        break;
    }
    rc = 0;
out:
    cJSON_Delete(q);
    return rc;
}

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
    char a[200], t[200];
    if (strlen(s) > 120) {
        say(msg, msglen, "That is too long to be a number.");
        return -1;
    }
    ascii_math(s, a, sizeof a);
    trim(a, t, sizeof t);
    if (!t[0]) {
        say(msg, msglen, "Empty answer: type a number, such as 0.25.");
        return -1;
    }
    /* infinities, spelled out */
    const char *body = t[0] == '-' || t[0] == '+' ? t + 1 : t;
    if (!strcasecmp(body, "inf") || !strcasecmp(body, "infinity")) {
        if (!allow_inf) {
            say(msg, msglen, "\"%s\" is infinite; the answer here is a finite number.", t);
            return -1;
        }
        *out = t[0] == '-' ? -INFINITY : INFINITY;
        return 0;
    }
    if (!strcasecmp(body, "nan")) {
        say(msg, msglen, "NaN is not a number you can give as an answer.");
        return -1;
    }
    for (const char *p = t; *p; p++)
        if (!(isdigit((unsigned char)*p) || strchr("+-.eE/ ", *p))) {
            if (*p == ',' && strchr(t, ',') == strrchr(t, ','))
                say(msg, msglen, "\"%s\": write decimals with a point, such as 0.25.", t);
            else if (*p == '%')
                say(msg, msglen, "\"%s\": write the number without %%, such as 0.25.", t);
            else
                say(msg, msglen, "\"%s\" is not a number.", t);
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
            say(msg, msglen, "\"%s\" is not a fraction such as 1/3.", t);
            return -1;
        }
        double b1 = strtod(td, &end);
        if (!td[0] || *end || strchr(td, '/')) {
            say(msg, msglen, "\"%s\" is not a fraction such as 1/3.", t);
            return -1;
        }
        if (b1 == 0) {
            say(msg, msglen, "\"%s\" divides by zero.", t);
            return -1;
        }
        v = a1 / b1;
    } else {
        v = strtod(t, &end);
        if (end == t || *end) {
            say(msg, msglen, "\"%s\" is not a number.", t);
            return -1;
        }
    }
    if (isnan(v)) {
        say(msg, msglen, "NaN is not a number you can give as an answer.");
        return -1;
    }
    if (isinf(v) || fabs(v) > 1e15 || (errno == ERANGE && fabs(v) > 1)) {
        say(msg, msglen, "\"%s\" is far too large to be the answer here.", t);
        return -1;
    }
    *out = v;
    return 0;
}

int quiz_parse_shape(const char *s, int *dims, char *msg, size_t msglen)
{
    char a[200], t[200];
    if (strlen(s) > 120) {
        say(msg, msglen, "That is too long to be a shape.");
        return -1;
    }
    ascii_math(s, a, sizeof a);
    trim(a, t, sizeof t);
    if (!t[0]) {
        say(msg, msglen, "Empty answer: type a shape such as 6x64.");
        return -1;
    }
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
                say(msg, msglen, "\"%s\": sizes are whole numbers, such as 6x64.", t);
                return -1;
            }
            if (errno == ERANGE || v > 1000000000L) {
                say(msg, msglen, "\"%s\": a size is far too large.", t);
                return -1;
            }
            if (v < 1) {
                say(msg, msglen, "\"%s\": sizes are at least 1.", t);
                return -1;
            }
            if (rank >= QUIZ_MAX_RANK) {
                say(msg, msglen, "\"%s\" has more than %d sizes.", t, QUIZ_MAX_RANK);
                return -1;
            }
            dims[rank++] = (int)v;
            need = 0;
            p = end;
            continue;
        }
        if (*p == 'x' || *p == 'X' || *p == '*' || *p == ',') {
            if (need) {
                say(msg, msglen, "\"%s\" is not a shape such as 6x64 or [6, 64].", t);
                return -1;
            }
            need = 1;
            p++;
            continue;
        }
        if (*p == '-') {
            say(msg, msglen, "\"%s\": sizes are at least 1.", t);
            return -1;
        }
        say(msg, msglen, "\"%s\" is not a shape such as 6x64 or [6, 64].", t);
        return -1;
    }
    if (rank == 0 || need) {
        say(msg, msglen, "\"%s\" is not a shape such as 6x64 or [6, 64].", t);
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

QuizVerdict quiz_check(const QuizItem *it, const char *answer, char *msg, size_t msglen)
{
    char t[300];
    if (!answer)
        answer = "";
    if (strlen(answer) > 200) {
        say(msg, msglen, "That answer is too long; keep it under 200 characters.");
        return QV_INVALID;
    }
    trim(answer, t, sizeof t);
    if (!t[0]) {
        say(msg, msglen, "Empty answer: type one first (or skip the question).");
        return QV_INVALID;
    }
    switch (it->kind) {
    case QK_CHOICE: {
        char *tok[QUIZ_MAX_CHOICES + 1];
        int k = split_tokens(t, tok, QUIZ_MAX_CHOICES);
        if (k != 1) {
            say(msg, msglen, "Pick one choice: a number from 1 to %d.", it->n_choices);
            return QV_INVALID;
        }
        int i = parse_choice_token(tok[0], it->n_choices);
        if (i < 0) {
            say(msg, msglen, "\"%s\" is not a choice: type a number from 1 to %d.", tok[0],
                it->n_choices);
            return QV_INVALID;
        }
        if (it->correct & (1u << i)) {
            say(msg, msglen, "Right: choice %d.", i + 1);
            return QV_RIGHT;
        }
        say(msg, msglen, "Choice %d is not right.", i + 1);
        return QV_WRONG;
    }
    case QK_MULTI: {
        char *tok[QUIZ_MAX_CHOICES * 2 + 1];
        int k = split_tokens(t, tok, QUIZ_MAX_CHOICES * 2);
        if (k < 1) {
            say(msg, msglen, "Type the numbers of every right choice, such as 1 3.");
            return QV_INVALID;
        }
        unsigned set = 0;
        for (int i = 0; i < k; i++) {
            int c = parse_choice_token(tok[i], it->n_choices);
            if (c < 0) {
                say(msg, msglen, "\"%s\" is not a choice: use numbers from 1 to %d.", tok[i],
                    it->n_choices);
                return QV_INVALID;
            }
            set |= 1u << c;
        }
        if (set == it->correct) {
            say(msg, msglen, "Right: exactly the %d right choices.", popcount(set));
            return QV_RIGHT;
        }
        int good = popcount(set & it->correct), bad = popcount(set & ~it->correct),
            missing = popcount(it->correct & ~set);
        say(msg, msglen, "Not quite: %d of your picks %s right, %d %s not, %d right choice%s "
                         "missing.", good, good == 1 ? "is" : "are", bad,
            bad == 1 ? "is" : "are", missing, missing == 1 ? " is" : "s are");
        return QV_WRONG;
    }
    case QK_NUMBER: {
        double v;
        if (quiz_parse_number(t, isinf(it->number), &v, msg, msglen))
            return QV_INVALID;
        int right;
        if (isinf(it->number))
            right = isinf(v) && (v < 0) == (it->number < 0);
        else
            right = !isinf(v) && fabs(v - it->number) <= it->tol + 1e-9 * fabs(it->number);
        if (right) {
            say(msg, msglen, "Right.");
            return QV_RIGHT;
        }
        say(msg, msglen, "%s is not right%s.", t,
            it->tol > 0 && !isinf(it->number) ? " (not within the tolerance)" : "");
        return QV_WRONG;
    }
    case QK_SHAPE: {
        int d[QUIZ_MAX_RANK];
        int r = quiz_parse_shape(t, d, msg, msglen);
        if (r < 0)
            return QV_INVALID;
        if (r != it->rank) {
            say(msg, msglen, "That shape has %d size%s; this one has %d (%s).", r,
                r == 1 ? "" : "s", it->rank, it->rank == 2 ? "rows x columns" : "one per axis");
            return QV_INVALID;
        }
        int same = 1, swapped = it->rank == 2;
        for (int i = 0; i < r; i++)
            if (d[i] != it->dims[i])
                same = 0;
        if (same) {
            say(msg, msglen, "Right.");
            return QV_RIGHT;
        }
        if (swapped && d[0] == it->dims[1] && d[1] == it->dims[0])
            say(msg, msglen, "The right sizes in the wrong order: rows come first.");
        else
            say(msg, msglen, "%s is not the shape.", t);
        return QV_WRONG;
    }
    case QK_CELL: {
        char *tok[4];
        char tmp[300];
        snprintf(tmp, sizeof tmp, "%s", t);
        for (char *p = tmp; *p; p++)
            if (*p == '(' || *p == ')' || *p == '[' || *p == ']')
                *p = ' ';
        int k = split_tokens(tmp, tok, 3);
        int v[2];
        if (k < 1 || k > 2) {
            say(msg, msglen, "Give a key column, a number from 0 to %d.", it->n_cols - 1);
            return QV_INVALID;
        }
        for (int i = 0; i < k; i++) {
            char *end;
            long x = strtol(tok[i], &end, 10);
            if (*end || end == tok[i] || x < 0 || x > 100000) {
                say(msg, msglen, "\"%s\" is not a column number (0 to %d).", tok[i],
                    it->n_cols - 1);
                return QV_INVALID;
            }
            v[i] = (int)x;
        }
        int col = v[k - 1];
        if (k == 2 && v[0] != it->row) {
            say(msg, msglen, "This question is about row %d; give its key column.", it->row);
            return QV_INVALID;
        }
        if (col >= it->n_cols) {
            say(msg, msglen, "Column %d does not exist: the columns are 0 to %d.", col,
                it->n_cols - 1);
            return QV_INVALID;
        }
        if (col == it->col) {
            say(msg, msglen, "Right: column %d.", col);
            return QV_RIGHT;
        }
        say(msg, msglen, "Column %d is not right.", col);
        return QV_WRONG;
    }
    case QK_TEXT: {
        char norm[300];
        quiz_normalise(t, norm, sizeof norm);
        if (!norm[0]) {
            say(msg, msglen, "Type a word or a few words.");
            return QV_INVALID;
        }
        for (int i = 0; i < it->n_text; i++)
            if (!strcmp(norm, it->text[i])) {
                say(msg, msglen, "Right.");
                return QV_RIGHT;
            }
        say(msg, msglen, "\"%s\" is not right.", t);
        return QV_WRONG;
    }
    default:
        say(msg, msglen, "This question cannot be answered (unknown kind).");
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

/* ---- random numbers ---- */

void quiz_rng_seed(QuizRng *r, uint64_t seed)
{
    /* splitmix64 so that nearby seeds give unrelated streams; never 0 */
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    r->s = z ? z : 0x2545F4914F6CDD1Dull;
}

uint64_t quiz_rng_next(QuizRng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

int quiz_rng_range(QuizRng *r, int lo, int hi)
{
    if (hi <= lo)
        return lo;
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int)(quiz_rng_next(r) % span);
}

uint64_t quiz_hash(const char *s, uint64_t mix)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    QuizRng r;
    quiz_rng_seed(&r, h ^ (mix * 0x9E3779B97F4A7C15ull));
    return quiz_rng_next(&r);
}

/* ---- running the engine on a question's state ---- */

/* One run of a page's widget on a question's state: lesson_run (the same run check-lessons
 * and the prose use), plus the widget copy it ran and the context reading it. */
typedef struct {
    LessonRun run;
    const Widget *w;      /* the widget run (the question's copy) */
    PlaceholderCtx ctx;
} Run;

static void run_free(Run *r)
{
    lesson_run_free(&r->run);
    memset(r, 0, sizeof *r);
}

/* Runs widget w (its start) on m and fills r->ctx. w must outlive r. 0, or -1 with a
 * message. */
static int run_widget(Run *r, const Widget *w, const Model *m, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->w = w;
    return lesson_run(&r->run, w, m, &r->ctx, err, errlen);
}

/* The value of a placeholder body on r as a number (6 decimals when the body gives no
 * precision; the author's precision when it does). */
static int eval_number(const Run *r, const char *body, double *v, char *err, size_t errlen)
{
    char b6[300], out[256];
    PlaceholderCtx ctx = r->ctx;
    ctx.ascii = 1;
    snprintf(b6, sizeof b6, "%s .6", body);
    int has_prec = 0;
    const char *last = strrchr(body, ' ');
    if (last && last[1] == '.')
        has_prec = 1;
    if (has_prec || placeholder_value(b6, &ctx, out, sizeof out, NULL, 0))
        if (placeholder_value(body, &ctx, out, sizeof out, err, errlen))
            return -1;
    if (!strcmp(out, "-inf")) {
        *v = -INFINITY;
        return 0;
    }
    if (!strcmp(out, "inf")) {
        *v = INFINITY;
        return 0;
    }
    char *end;
    *v = strtod(out, &end);
    if (end == out || *end || isnan(*v))
        return fail(err, errlen, "{{%s}} is \"%s\", not a number", body, out);
    return 0;
}

/* The precision a placeholder body asks for (its last word ".N"), or -1. */
static int body_prec(const char *body)
{
    size_t n = strlen(body);
    while (n && isspace((unsigned char)body[n - 1]))
        n--;
    size_t k = n;
    while (k && !isspace((unsigned char)body[k - 1]))
        k--;
    if (k == 0 || n - k != 2 || body[k] != '.' || !isdigit((unsigned char)body[k + 1]))
        return -1;
    return body[k + 1] - '0';
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
static void fmt_number(double v, double tol, int prec, char *out, size_t outlen)
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

static void copy_str(char *dst, size_t cap, const cJSON *it)
{
    snprintf(dst, cap, "%s", cJSON_IsString(it) ? it->valuestring : "");
}

/* Stack and sublayer a question's weights are read from (as the placeholders do: a trace
 * without a model, a worked example, is one decoder head). */
static void shown_where(const Run *r, Stack *st, Sublayer *sub)
{
    const Trace *t = r->ctx.trace;
    const Model *m = t && t->model ? t->model : r->ctx.model;
    Arch a = m ? m->cfg.arch : ARCH_DECODER;
    *st = a == ARCH_ENCODER ? STACK_ENC : a == ARCH_DECODER ? STACK_DEC
        : r->ctx.cross ? STACK_DEC : STACK_ENC;
    *sub = r->ctx.cross ? SUB_CROSS : SUB_SELF;
}

static const TraceEntry *weights_of(const Run *r)
{
    const Trace *t = r->ctx.trace;
    if (!t)
        return NULL;
    Stack st;
    Sublayer sub;
    shown_where(r, &st, &sub);
    return trace_find(t, st, r->ctx.layer, sub, r->ctx.head, T_WEIGHTS);
}

/* The name of position i of the run's query side (rows) or key side (cols). */
static const char *pos_name(const Run *r, int i, int query)
{
    const Trace *t = r->ctx.trace;
    if (!t->model) /* a worked example: its labels */
        return r->ctx.labels && i < r->ctx.n_labels ? r->ctx.labels[i] : "?";
    int tgt = query && r->ctx.cross;
    return vocab_word(&t->model->vocab, tgt ? t->tgt[i] : t->src[i]);
}

static void fill_grid(QuizItem *it, const Run *r)
{
    const TraceEntry *e = weights_of(r);
    it->grid_n = it->grid_m = 0;
    if (!e || e->rows > QUIZ_GRID_MAX || e->cols > QUIZ_GRID_MAX)
        return;
    it->grid_n = e->rows;
    it->grid_m = e->cols;
    memcpy(it->grid, e->data, sizeof(float) * (size_t)(e->rows * e->cols));
    for (int i = 0; i < e->rows; i++)
        snprintf(it->grid_rows[i], sizeof it->grid_rows[i], "%s", pos_name(r, i, 1));
    for (int j = 0; j < e->cols; j++)
        snprintf(it->grid_cols[j], sizeof it->grid_cols[j], "%s", pos_name(r, j, 0));
}

/* Appends to a fixed buffer (cut when full). */
static void cat(char *dst, size_t cap, const char *fmt, ...)
{
    size_t o = strlen(dst);
    if (o + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst + o, cap - o, fmt, ap);
    va_end(ap);
}

/* The words of a run's sequence (as run, after any reordering). */
static void run_words(const Trace *t, const int *ids, int n, char *out, size_t cap)
{
    out[0] = 0;
    for (int i = 0; i < n; i++)
        cat(out, cap, "%s%s", i ? " " : "", vocab_word(&t->model->vocab, ids[i]));
}

/* "layer 0 of 2, head 1 of 4" (both counted from 0, as the player shows them). */
static void layer_head(char *dst, size_t cap, const Model *m, int layer, int head)
{
    cat(dst, cap, "; layer %d of %d, head %d of %d", layer, m->cfg.n_layers, head,
        m->cfg.n_heads);
}

/* The question's setup in one line, for answers the engine computes: what "this sentence"
 * and "this head" mean without the page in view. */
static void make_context(QuizItem *it, const Run *r, const Model *m)
{
    const Widget *w = r->w;
    const WidgetStart *s = &w->start;
    const LiveState *ls = &r->run.live.s;
    char *c = it->context;
    size_t cap = sizeof it->context;
    c[0] = 0;
    switch (w->kind) {
    case W_WORKED: {
        const WorkedSpec *ws = &w->worked;
        /* the matrices themselves when they fit on the line, else their shapes */
        const float *mat[3] = {ws->q, ws->k, ws->v};
        const int rows[3] = {ws->nq, ws->nk, ws->nk}, cols[3] = {ws->dk, ws->dk, ws->dv};
        const char *nm[3] = {"Q", "K", "V"};
        snprintf(c, cap, "The worked example:");
        for (int k = 0; k < 3; k++) {
            cat(c, cap, "%s %s = [", k ? "," : "", nm[k]);
            for (int i = 0; i < rows[k]; i++) {
                cat(c, cap, "%s[", i ? ", " : "");
                for (int j = 0; j < cols[k]; j++)
                    cat(c, cap, "%s%g", j ? ", " : "", (double)mat[k][i * cols[k] + j]);
                cat(c, cap, "]");
            }
            cat(c, cap, "]");
        }
        if (strlen(c) > 200)
            snprintf(c, cap, "The worked example: Q %d×%d, K %d×%d, V %d×%d", ws->nq, ws->dk,
                     ws->nk, ws->dk, ws->nk, ws->dv);
        int np = ws->nq > ws->nk ? ws->nq : ws->nk, named = 0;
        for (int i = 0; i < np; i++) {
            char dflt[16];
            snprintf(dflt, sizeof dflt, "t%d", i);
            named |= strcmp(ws->labels[i], dflt) != 0;
        }
        if (named) {
            cat(c, cap, " (positions");
            for (int i = 0; i < np; i++)
                cat(c, cap, " %s", ws->labels[i]);
            cat(c, cap, ")");
        }
        cat(c, cap, "; mask %s; scaling by 1/√d_k %s", ls->causal ? "causal" : "none",
            ls->scale ? "on" : "off");
        return;
    }
    case W_SCALING:
        snprintf(c, cap, "The scaling experiment: d_k = %d; scaling by 1/√d_k %s", ls->d_k,
                 ls->scale ? "on" : "off");
        return;
    case W_COST:
        snprintf(c, cap, "N = %lld tokens on %s (%d layer%s, %d heads, d_k = %d)", ls->n,
                 m->cfg.name[0] ? m->cfg.name : "the page's model", m->cfg.n_layers,
                 m->cfg.n_layers == 1 ? "" : "s", m->cfg.n_heads, m->cfg.d_head);
        return;
    case W_PARAMS: {
        const ParamConfig *pc = &r->run.live.pc;
        /* the name quoted, so that any name reads well: Configuration: "the exercise"
         * (d_model 2560, ...) */
        snprintf(c, cap, "Configuration: ");
        if (w->params_name[0])
            cat(c, cap, "\"%s\" (", w->params_name);
        cat(c, cap, "d_model %lld, %lld layer%s, %lld heads", pc->d_model, pc->n_layers,
            pc->n_layers == 1 ? "" : "s", pc->n_heads);
        if (pc->n_kv_heads < pc->n_heads)
            cat(c, cap, ", grouped-query attention with %lld KV heads", pc->n_kv_heads);
        if (w->params_name[0])
            cat(c, cap, ")");
        cat(c, cap, "; embeddings %s", pc->tied ? "tied" : "not tied");
        return;
    }
    default:
        break;
    }
    const Trace *t = r->run.t;
    if (!t || !t->model)
        return;
    char words[300];
    if (w->kind == W_KVCACHE) {
        run_words(t, r->run.src, r->run.live.n_tokens, words, sizeof words);
        snprintf(c, cap, "Sentence \"%s\"; step %d of %d (the first %d tokens run, their keys "
                 "and values cached)", words, ls->step, r->run.live.n_tokens, ls->step);
        layer_head(c, cap, m, s->layer, s->head);
        return;
    }
    int moved = 0;
    for (int i = 0; i < t->n; i++)
        moved |= t->order[i] != i;
    if (moved) { /* t->src holds the words as run: undo the order for the sentence */
        words[0] = 0;
        for (int i = 0; i < t->n; i++)
            for (int k = 0; k < t->n; k++)
                if (t->order[k] == i)
                    cat(words, sizeof words, "%s%s", i ? " " : "",
                        vocab_word(&m->vocab, t->src[k]));
        snprintf(c, cap, "Sentence \"%s\" run in the order", words);
        for (int i = 0; i < t->n; i++)
            cat(c, cap, " %d", t->order[i]);
        run_words(t, t->src, t->n, words, sizeof words);
        cat(c, cap, " (\"%s\")", words);
    } else {
        run_words(t, t->src, t->n, words, sizeof words);
        snprintf(c, cap, "Sentence \"%s\"", words);
    }
    if (m->cfg.arch == ARCH_ENCDEC && t->m > 0) {
        run_words(t, t->tgt, t->m, words, sizeof words);
        cat(c, cap, ", target \"%s\"", words);
    }
    /* the padding mask only matters when the sentence has <pad> tokens */
    int pads = 0;
    for (int i = 0; i < t->n; i++)
        pads |= t->src[i] == m->vocab.pad_id;
    for (int i = 0; i < t->m; i++)
        pads |= t->tgt[i] == m->vocab.pad_id;
    /* the mask applied where the question reads: no causal mask on an encoder-decoder's
     * encoder or cross-attention (the player's status line says the same) */
    Stack st;
    Sublayer sub;
    shown_where(r, &st, &sub);
    cat(c, cap, "; mask %s; PE %s",
        lesson_sublayer_mask_name(m, st, sub, t->ctl.causal, t->ctl.padding && pads),
        model_pe_name(t->ctl.pe));
    if (!t->ctl.scale)
        cat(c, cap, "; scaling off");
    if (s->cross)
        cat(c, cap, "; cross-attention");
    layer_head(c, cap, m, s->layer, s->head);
}

/* A drill that opens with "By hand: the ..." after a lead-in that already says "by hand"
 * reads "The ..." instead. */
static void drop_repeat(QuizItem *it)
{
    static const char OPEN[] = "By hand: ";
    size_t n = strlen(OPEN);
    int said = 0;
    for (const char *p = it->lead; *p && !said; p++)
        said = !strncasecmp(p, "by hand", 7);
    if (!said || strncmp(it->prompt, OPEN, n) || !it->prompt[n])
        return;
    memmove(it->prompt, it->prompt + n, strlen(it->prompt + n) + 1);
    it->prompt[0] = (char)toupper((unsigned char)it->prompt[0]);
}

static int item_from_json(QuizItem *it, const cJSON *q, const Course *c, const Lesson *L,
                          int li, const Page *P, uint64_t seed, char *err, size_t errlen)
{
    memset(it, 0, sizeof *it);
    it->lesson_index = li;
    it->row = -1;
    const cJSON *id = json_get(q, "id"), *kind = json_get(q, "kind");
    snprintf(it->lesson, sizeof it->lesson, "%s", L->id);
    snprintf(it->key, sizeof it->key, "%s/%s", L->id, cJSON_IsString(id) ? id->valuestring
                                                                          : "?");
    int k = cJSON_IsString(kind) ? quiz_kind_parse(kind->valuestring) : -1;
    if (k < 0)
        return fail(err, errlen, "%s: unknown kind", it->key);
    it->kind = (QuizKind)k;
    copy_str(it->explain, sizeof it->explain, json_get(q, "explain"));
    const cJSON *h = json_get(q, "hints");
    if (cJSON_IsArray(h))
        for (const cJSON *x = h->child; x && it->n_hints < QUIZ_MAX_HINTS - 1; x = x->next)
            copy_str(it->hints[it->n_hints++], sizeof it->hints[0], x);

    const Model *m = lesson_model(c, P);
    if (!m)
        return fail(err, errlen, "%s: the page's model did not load", it->key);
    Widget w = P->widget;
    const cJSON *state = json_get(q, "state");
    if (state) {
        char *txt = cJSON_PrintUnformatted(state);
        if (!txt)
            return fail(err, errlen, "out of memory");
        int bad = lesson_apply_state(txt, m, &w.start, err, errlen);
        cJSON_free(txt);
        if (bad)
            return -1;
    }
    Run r;
    if (run_widget(&r, &w, m, err, errlen)) {
        run_free(&r);
        return -1;
    }
    int rc = -1;
    const cJSON *prompt = json_get(q, "prompt");
    char perr[300];
    if (placeholder_expand(cJSON_IsString(prompt) ? prompt->valuestring : "", &r.ctx,
                           it->prompt, sizeof it->prompt, perr, sizeof perr)) {
        fail(err, errlen, "%s: prompt: %s", it->key, perr);
        goto out;
    }
    if (it->kind == QK_DRILL) {
        const cJSON *d = json_get(q, "drill");
        QuizItem keep = *it;
        if (!cJSON_IsString(d) ||
            quiz_drill(it, d->valuestring, c, quiz_hash(keep.key, seed), err, errlen))
            goto out;
        /* the drill's own text, with the lesson's identity and lead-in */
        snprintf(it->key, sizeof it->key, "%s", keep.key);
        snprintf(it->lesson, sizeof it->lesson, "%s", keep.lesson);
        it->lesson_index = keep.lesson_index;
        snprintf(it->lead, sizeof it->lead, "%s", keep.prompt);
        drop_repeat(it);
        for (int i = 0; i < keep.n_hints && it->n_hints < QUIZ_MAX_HINTS; i++)
            snprintf(it->hints[it->n_hints++], sizeof it->hints[0], "%s", keep.hints[i]);
        if (keep.explain[0])
            snprintf(it->explain + strlen(it->explain), sizeof it->explain - strlen(it->explain),
                     "%s%s", it->explain[0] ? " " : "", keep.explain);
        rc = 0;
        goto out;
    }
    const cJSON *compute = json_get(q, "compute"), *ans = json_get(q, "answer");
    const char *body = cJSON_IsString(compute) ? compute->valuestring : NULL;
    switch (it->kind) {
    case QK_CHOICE:
    case QK_MULTI: {
        const cJSON *ch = json_get(q, "choices");
        for (const cJSON *x = ch ? ch->child : NULL; x && it->n_choices < QUIZ_MAX_CHOICES;
             x = x->next)
            copy_str(it->choices[it->n_choices++], sizeof it->choices[0], x);
        if (it->kind == QK_CHOICE) {
            if (!cJSON_IsNumber(ans))
                goto bad;
            it->correct = 1u << (int)ans->valuedouble;
            snprintf(it->answer, sizeof it->answer, "%d (%s)", (int)ans->valuedouble + 1,
                     it->choices[(int)ans->valuedouble]);
        } else {
            const cJSON *as = json_get(q, "answers");
            for (const cJSON *x = as ? as->child : NULL; x; x = x->next)
                it->correct |= 1u << (int)x->valuedouble;
            size_t o = 0;
            for (int i = 0; i < it->n_choices; i++)
                if (it->correct & (1u << i))
                    o += (size_t)snprintf(it->answer + o, o < sizeof it->answer
                                                          ? sizeof it->answer - o : 0,
                                          "%s%d", o ? " " : "", i + 1);
        }
        break;
    }
    case QK_NUMBER: {
        const cJSON *tol = json_get(q, "tolerance");
        it->tol = cJSON_IsNumber(tol) ? tol->valuedouble : 0.005;
        if (body) {
            if (eval_number(&r, body, &it->number, err, errlen))
                goto out;
            /* a whole-number placeholder ({{entries}}, {{n}}, {{argmax}}) is exact */
            char out[128];
            PlaceholderCtx ctx = r.ctx;
            ctx.ascii = 1;
            if (!tol && !placeholder_value(body, &ctx, out, sizeof out, NULL, 0) &&
                !strpbrk(out, ".ei"))
                it->tol = 0;
        } else if (cJSON_IsNumber(ans)) {
            it->number = ans->valuedouble;
        } else {
            goto bad;
        }
        fmt_number(it->number, it->tol, body ? body_prec(body) : -1, it->answer,
                   sizeof it->answer);
        break;
    }
    case QK_SHAPE: {
        if (body) {
            char out[128];
            PlaceholderCtx ctx = r.ctx;
            ctx.ascii = 1;
            if (placeholder_value(body, &ctx, out, sizeof out, err, errlen))
                goto out;
            int rank = quiz_parse_shape(out, it->dims, perr, sizeof perr);
            if (rank < 0) {
                fail(err, errlen, "%s: compute {{%s}} gives \"%s\", not a shape", it->key,
                     body, out);
                goto out;
            }
            it->rank = rank;
        } else if (cJSON_IsArray(ans)) {
            for (const cJSON *x = ans->child; x && it->rank < QUIZ_MAX_RANK; x = x->next)
                it->dims[it->rank++] = (int)x->valuedouble;
        } else {
            goto bad;
        }
        size_t o = 0;
        for (int i = 0; i < it->rank; i++)
            o += (size_t)snprintf(it->answer + o, o < sizeof it->answer ? sizeof it->answer - o
                                                                        : 0,
                                  "%s%d", i ? "×" : "", it->dims[i]);
        break;
    }
    case QK_CELL: {
        const cJSON *row = json_get(q, "row");
        it->row = cJSON_IsNumber(row) ? (int)row->valuedouble : 0;
        fill_grid(it, &r);
        const TraceEntry *e = weights_of(&r);
        if (!e) {
            fail(err, errlen, "%s: a cell question needs a page that runs a sentence", it->key);
            goto out;
        }
        it->n_cols = e->cols;
        if (it->row >= e->rows) {
            fail(err, errlen, "%s: row %d out of range 0..%d", it->key, it->row, e->rows - 1);
            goto out;
        }
        double v;
        if (body) {
            if (eval_number(&r, body, &v, err, errlen))
                goto out;
        } else if (cJSON_IsNumber(ans)) {
            v = ans->valuedouble;
        } else {
            goto bad;
        }
        if (v != floor(v) || v < 0 || v >= e->cols) {
            fail(err, errlen, "%s: the answer %g is not a key column 0..%d", it->key, v,
                 e->cols - 1);
            goto out;
        }
        it->col = (int)v;
        snprintf(it->answer, sizeof it->answer, "column %d (\"%s\")", it->col,
                 it->grid_m ? it->grid_cols[it->col] : "?");
        break;
    }
    case QK_TEXT: {
        const cJSON *as = json_get(q, "answers");
        for (const cJSON *x = as ? as->child : NULL; x && it->n_text < QUIZ_MAX_TEXT;
             x = x->next)
            quiz_normalise(cJSON_IsString(x) ? x->valuestring : "", it->text[it->n_text++],
                           sizeof it->text[0]);
        copy_str(it->answer, sizeof it->answer, as ? as->child : NULL);
        if (!it->n_text)
            goto bad;
        break;
    }
    default:
        goto bad;
    }
    /* the setup line, for answers the engine computes on the page's sentence or numbers */
    if (body || it->kind == QK_CELL || (cJSON_IsString(prompt) &&
                                         strstr(prompt->valuestring, "{{")))
        make_context(it, &r, m);
    rc = 0;
    goto out;
bad:
    fail(err, errlen, "%s: the question is incomplete (check-lessons says why)", it->key);
out:
    run_free(&r);
    return rc;
}

int quiz_item_from_question(QuizItem *it, const Course *c, int li, int pi, int qi,
                            uint64_t seed, char *err, size_t errlen)
{
    if (li < 0 || li >= c->n_lessons || c->lessons[li].broken)
        return fail(err, errlen, "no such lesson");
    const Lesson *L = &c->lessons[li];
    if (pi < 0 || pi >= L->n_pages || qi < 0 || qi >= L->pages[pi].n_questions)
        return fail(err, errlen, "no such question");
    const Page *P = &L->pages[pi];
    char cerr[400];
    if (quiz_check_question(P->questions[qi].json, cerr, sizeof cerr))
        return fail(err, errlen, "%s/%s: %s", L->id, P->questions[qi].id, cerr);
    cJSON *q = cJSON_Parse(P->questions[qi].json);
    if (!q)
        return fail(err, errlen, "out of memory");
    int rc = item_from_json(it, q, c, L, li, P, seed, err, errlen);
    cJSON_Delete(q);
    return rc;
}

/* ---- drills ---- */

/* The model and the sentences the engine drills run on: the first page with a sentence and
 * a self-attention model, and every sentence of the course's pages on that model. */
typedef struct {
    const Model *m;
    const char *sent[64];
    int n;
} DrillEnv;

static int drill_env(DrillEnv *e, const Course *c)
{
    memset(e, 0, sizeof *e);
    for (int li = 0; c && li < c->n_lessons; li++) {
        const Lesson *L = &c->lessons[li];
        if (L->broken)
            continue;
        for (int pi = 0; pi < L->n_pages; pi++) {
            const Page *P = &L->pages[pi];
            const Model *m = lesson_model(c, P);
            if (!m || !P->widget.start.sentence[0] || m->cfg.arch == ARCH_ENCDEC)
                continue;
            if (!e->m)
                e->m = m;
            if (m != e->m || e->n >= 64)
                continue;
            int dup = 0;
            for (int i = 0; i < e->n; i++)
                if (!strcmp(e->sent[i], P->widget.start.sentence))
                    dup = 1;
            if (!dup)
                e->sent[e->n++] = P->widget.start.sentence;
        }
    }
    return e->m && e->n ? 0 : -1;
}

static const int DK_CHOICES[] = {8, 16, 32, 64, 128};

static void drill_qk_entries(QuizItem *it, QuizRng *r)
{
    int n = quiz_rng_range(r, 3, 12), dk = DK_CHOICES[quiz_rng_range(r, 0, 3)];
    it->kind = QK_NUMBER;
    snprintf(it->prompt, sizeof it->prompt,
             "A sentence has N = %d tokens and each head has d_k = %d. How many entries does "
             "one head's score matrix QKᵀ have?", n, dk);
    it->number = (double)n * n;
    it->tol = 0;
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "QKᵀ has one row per query and one column per key.");
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "d_k disappears inside each dot product q_i·k_j.");
    snprintf(it->explain, sizeof it->explain,
             "Q is %d×%d and Kᵀ is %d×%d, so QKᵀ is %d×%d: %d entries. d_k only sets how long "
             "each dot product is.", n, dk, dk, n, n, n, n * n);
}

static void drill_dk(QuizItem *it, QuizRng *r)
{
    static const int H[] = {2, 4, 8, 12, 16, 32};
    static const int DK[] = {32, 48, 64, 80, 128};
    int h = H[quiz_rng_range(r, 0, 5)], dk = DK[quiz_rng_range(r, 0, 4)];
    it->kind = QK_NUMBER;
    snprintf(it->prompt, sizeof it->prompt,
             "A model with d_model = %d splits its width evenly over h = %d heads. What is "
             "d_k, the width of one head?", h * dk, h);
    it->number = dk;
    it->tol = 0;
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "The heads side by side give back d_model: h · d_k = d_model.");
    snprintf(it->explain, sizeof it->explain, "d_k = d_model / h = %d / %d = %d.", h * dk, h,
             dk);
}

static void set_shape2(QuizItem *it, int a, int b)
{
    it->kind = QK_SHAPE;
    it->rank = 2;
    it->dims[0] = a;
    it->dims[1] = b;
    snprintf(it->answer, sizeof it->answer, "%d×%d", a, b);
}

static void drill_score_shape(QuizItem *it, QuizRng *r)
{
    static const int L[] = {16, 32, 50, 64, 100, 128, 256, 500, 512, 1024, 2048};
    int l = L[quiz_rng_range(r, 0, 10)], dk = DK_CHOICES[quiz_rng_range(r, 1, 4)];
    set_shape2(it, l, l);
    snprintf(it->prompt, sizeof it->prompt,
             "One head reads a sequence of L = %d tokens with d_k = %d. What is the shape of "
             "its score matrix QKᵀ?", l, dk);
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "Q and K are both L×d_k; transposing K gives d_k×L.");
    snprintf(it->explain, sizeof it->explain,
             "(L×d_k)·(d_k×L) = L×L = %d×%d: every query against every key, whatever d_k is.",
             l, l);
}

static void drill_q_shape(QuizItem *it, QuizRng *r)
{
    static const int H[] = {2, 4, 8, 16};
    int n = quiz_rng_range(r, 3, 40), h = H[quiz_rng_range(r, 0, 3)];
    int dk = DK_CHOICES[quiz_rng_range(r, 0, 4)];
    set_shape2(it, n, dk);
    snprintf(it->prompt, sizeof it->prompt,
             "N = %d tokens enter a layer with d_model = %d and h = %d heads. What is the "
             "shape of one head's query matrix Q?", n, h * dk, h);
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "One row per token; each head has d_k = d_model / h columns.");
    snprintf(it->explain, sizeof it->explain,
             "Q = X·W_Q[:, head]: (%d×%d)·(%d×%d) = %d×%d.", n, h * dk, h * dk, dk, n, dk);
}

static void drill_softmax(QuizItem *it, QuizRng *r)
{
    int s[9];
    float a[9];
    for (int i = 0; i < 9; i++) {
        s[i] = quiz_rng_range(r, -3, 3);
        a[i] = (float)s[i];
    }
    tensor_softmax_rows(a, 3, 3); /* the engine's own softmax */
    int i = quiz_rng_range(r, 0, 2), j = quiz_rng_range(r, 0, 2);
    it->kind = QK_NUMBER;
    snprintf(it->prompt, sizeof it->prompt,
             "By hand: the scores (already scaled) are S = [[%d, %d, %d], [%d, %d, %d], "
             "[%d, %d, %d]]. With A = softmax(S) taken row by row, what is A[%d][%d]? (rows "
             "and columns count from 0; two decimals are enough)",
             s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], i, j);
    it->number = a[i * 3 + j];
    it->tol = 0.0051;
    fmt_number(it->number, 0.005, -1, it->answer, sizeof it->answer);
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "Only row %d matters: softmax([%d, %d, %d]).", i, s[i * 3], s[i * 3 + 1],
             s[i * 3 + 2]);
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "softmax(x)_j = e^x_j / (e^x_0 + e^x_1 + e^x_2); adding one number to the whole "
             "row changes nothing.");
    double e0 = exp(s[i * 3]), e1 = exp(s[i * 3 + 1]), e2 = exp(s[i * 3 + 2]);
    snprintf(it->explain, sizeof it->explain,
             "A[%d][%d] = e^%d / (e^%d + e^%d + e^%d) = %.4f / %.4f = %.4f.", i, j, s[i * 3 + j],
             s[i * 3], s[i * 3 + 1], s[i * 3 + 2], exp(s[i * 3 + j]), e0 + e1 + e2,
             (double)a[i * 3 + j]);
}

/* Runs the drill model on a sentence with the given controls; fills the Run. */
static int drill_run(Run *r, const DrillEnv *e, const char *sentence, int causal, int pe,
                     int layer, int head, const int *order, int n_order, char *err,
                     size_t errlen)
{
    Widget w;
    memset(&w, 0, sizeof w);
    w.kind = W_HEATMAP;
    snprintf(w.start.sentence, sizeof w.start.sentence, "%s", sentence);
    w.start.causal = causal;
    w.start.padding = -1;
    w.start.pe = pe;
    w.start.scale = 1;
    w.start.layer = layer;
    w.start.head = head;
    for (int i = 0; i < n_order && i < 64; i++)
        w.start.order[i] = order[i];
    w.start.n_order = n_order;
    return run_widget(r, &w, e->m, err, errlen);
}

static int n_tokens(const DrillEnv *e, const char *s)
{
    TokenizeInfo info;
    int ids[128];
    vocab_tokenize(&e->m->vocab, s, ids, 128, &info);
    return info.n_tokens;
}

static int drill_causal(QuizItem *it, QuizRng *r, const DrillEnv *e, int rowsum, char *err,
                        size_t errlen)
{
    const char *s = e->sent[quiz_rng_range(r, 0, e->n - 1)];
    int n = n_tokens(e, s);
    if (n < 2)
        return fail(err, errlen, "the lesson sentence \"%s\" is too short for this drill", s);
    int layer = quiz_rng_range(r, 0, e->m->cfg.n_layers - 1);
    int head = quiz_rng_range(r, 0, e->m->cfg.n_heads - 1);
    int causal = rowsum ? quiz_rng_range(r, 0, 1) : 1;
    Run run;
    if (drill_run(&run, e, s, causal, -1, layer, head, NULL, 0, err, errlen)) {
        run_free(&run);
        return -1;
    }
    int i, j;
    char body[64];
    if (rowsum) {
        i = quiz_rng_range(r, 0, n - 1);
        j = -1;
        snprintf(body, sizeof body, "rowsum %d", i);
    } else {
        i = quiz_rng_range(r, 0, n - 2);
        j = quiz_rng_range(r, i + 1, n - 1);
        snprintf(body, sizeof body, "weight %d %d", i, j);
    }
    it->kind = QK_NUMBER;
    it->tol = 0.005;
    int rc = eval_number(&run, body, &it->number, err, errlen);
    const Vocab *v = &e->m->vocab;
    if (!rc && rowsum) {
        snprintf(it->prompt, sizeof it->prompt,
                 "Sentence \"%s\", layer %d of %d, head %d of %d (counted from 0), causal "
                 "mask %s. What does row %d of the attention weights (the query \"%s\") add "
                 "up to?", s, layer, e->m->cfg.n_layers, head, e->m->cfg.n_heads,
                 causal ? "on" : "off", i, vocab_word(v, run.run.t->src[i]));
        snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
                 "Each row is one softmax over the keys the query may read.");
        snprintf(it->explain, sizeof it->explain,
                 "Softmax turns every row into a probability distribution; masked keys get "
                 "exactly 0 and the others share the whole budget, so the row sums to 1 "
                 "(up to float rounding) with the mask on or off.");
    } else if (!rc) {
        snprintf(it->prompt, sizeof it->prompt,
                 "Sentence \"%s\", layer %d of %d, head %d of %d (counted from 0), causal mask "
                 "on. What is the attention weight A[%d][%d] of query %d (\"%s\") on key %d "
                 "(\"%s\")?", s, layer, e->m->cfg.n_layers, head, e->m->cfg.n_heads, i, j, i,
                 vocab_word(v, run.run.t->src[i]), j, vocab_word(v, run.run.t->src[j]));
        snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
                 "Is key %d before or after query %d?", j, i);
        snprintf(it->explain, sizeof it->explain,
                 "Key %d comes after query %d, so the mask adds −∞ to its score and softmax "
                 "gives it exactly 0.", j, i);
    }
    if (!rc)
        fmt_number(it->number, it->tol, -1, it->answer, sizeof it->answer);
    run_free(&run);
    return rc;
}

static int drill_equivariance(QuizItem *it, QuizRng *r, const DrillEnv *e, char *err,
                              size_t errlen)
{
    const char *s = e->sent[quiz_rng_range(r, 0, e->n - 1)];
    int n = n_tokens(e, s);
    if (n < 2 || n > 64)
        return fail(err, errlen, "the lesson sentence \"%s\" does not fit this drill", s);
    int order[64];
    for (int i = 0; i < n; i++)
        order[i] = i;
    /* a random permutation that is not the identity: shuffle, then swap if it is */
    for (int i = n - 1; i > 0; i--) {
        int k = quiz_rng_range(r, 0, i), t = order[i];
        order[i] = order[k];
        order[k] = t;
    }
    int ident = 1;
    for (int i = 0; i < n; i++)
        if (order[i] != i)
            ident = 0;
    if (ident) {
        order[0] = 1;
        order[1] = 0;
    }
    /* PE off half of the time, else one of the encodings */
    int pe = quiz_rng_range(r, 0, 1) ? PE_NONE : quiz_rng_range(r, PE_SINUSOIDAL, PE_ROPE);
    Run run;
    if (drill_run(&run, e, s, 0, pe, 0, 0, order, n, err, errlen)) {
        run_free(&run);
        return -1;
    }
    double v;
    int rc = eval_number(&run, "equivariance", &v, err, errlen);
    if (!rc) {
        char words[400] = "";
        size_t o = 0;
        for (int i = 0; i < n && o < sizeof words; i++)
            o += (size_t)snprintf(words + o, sizeof words - o, "%s%s", i ? " " : "",
                                  vocab_word(&e->m->vocab, run.run.t->src[i]));
        it->kind = QK_CHOICE;
        snprintf(it->prompt, sizeof it->prompt,
                 "\"%s\" is reordered to \"%s\" and run with no mask and positional encoding "
                 "%s. Is max|Attn(PX) − P·Attn(X)| zero?", s, words, model_pe_name((PeKind)pe));
        it->n_choices = 2;
        snprintf(it->choices[0], sizeof it->choices[0],
                 "Yes: zero up to float rounding (below 0.0001)");
        snprintf(it->choices[1], sizeof it->choices[1], "No: clearly above zero");
        int zero = v < 1e-4;
        it->correct = zero ? 1u : 2u;
        snprintf(it->answer, sizeof it->answer, "%d (%s)", zero ? 1 : 2,
                 it->choices[zero ? 0 : 1]);
        snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
                 "Does anything in this run depend on a token's position?");
        snprintf(it->explain, sizeof it->explain,
                 "The engine measures %.3g. %s", v,
                 zero ? "Without positional information, attention treats the sentence as a "
                        "set: permuting the input permutes the output the same way."
                      : "The positional encoding ties each vector to its position, so "
                        "reordering the words changes what each one attends to.");
    }
    run_free(&run);
    return rc;
}

int quiz_drill(QuizItem *it, const char *name, const Course *c, uint64_t seed, char *err,
               size_t errlen)
{
    memset(it, 0, sizeof *it);
    it->lesson_index = -1;
    it->row = -1;
    if (!quiz_drill_about(name))
        return fail(err, errlen, "unknown drill \"%s\"", name);
    snprintf(it->drill, sizeof it->drill, "%s", name);
    snprintf(it->key, sizeof it->key, "drill/%s", name);
    QuizRng r;
    quiz_rng_seed(&r, seed);
    if (!strcmp(name, "qk-entries"))
        drill_qk_entries(it, &r);
    else if (!strcmp(name, "d-k"))
        drill_dk(it, &r);
    else if (!strcmp(name, "score-shape"))
        drill_score_shape(it, &r);
    else if (!strcmp(name, "q-shape"))
        drill_q_shape(it, &r);
    else if (!strcmp(name, "softmax"))
        drill_softmax(it, &r);
    else {
        DrillEnv e;
        if (drill_env(&e, c))
            return fail(err, errlen, "drill %s needs a course page with a sentence and a "
                                     "self-attention model", name);
        if (!strcmp(name, "causal-zero"))
            return drill_causal(it, &r, &e, 0, err, errlen);
        if (!strcmp(name, "row-sum"))
            return drill_causal(it, &r, &e, 1, err, errlen);
        return drill_equivariance(it, &r, &e, err, errlen);
    }
    if (!it->answer[0])
        fmt_number(it->number, it->tol, -1, it->answer, sizeof it->answer);
    return 0;
}

/* ---- sets ---- */

static QuizItem *set_push(QuizSet *s)
{
    if (s->n == s->cap) {
        int nc = s->cap ? s->cap * 2 : 16;
        QuizItem *ni = realloc(s->items, sizeof *ni * (size_t)nc);
        if (!ni)
            return NULL;
        s->items = ni;
        s->cap = nc;
    }
    return &s->items[s->n];
}

void quiz_set_free(QuizSet *s)
{
    free(s->items);
    memset(s, 0, sizeof *s);
}

typedef struct {
    int li, pi, qi;
    int drill;
} QRef;

static int add_item(QuizSet *s, const Course *c, QRef q, uint64_t seed)
{
    QuizItem *it = set_push(s);
    if (!it)
        return -1;
    char err[600];
    if (quiz_item_from_question(it, c, q.li, q.pi, q.qi, seed, err, sizeof err)) {
        if (!s->n_skipped++)
            snprintf(s->skipped, sizeof s->skipped, "%s", err);
        return 0;
    }
    s->n++;
    return 0;
}

int quiz_build(QuizSet *s, const Course *c, const char *lesson, int count, uint64_t seed,
               char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->seed = seed;
    int only = -1;
    if (lesson && *lesson) {
        only = lesson_find(c, lesson);
        if (only < 0)
            return fail(err, errlen, "no lesson with id \"%s\"", lesson);
        if (c->lessons[only].broken)
            return fail(err, errlen, "lesson \"%s\" is broken: %s", lesson,
                        c->lessons[only].error);
        snprintf(s->title, sizeof s->title, "%s", c->lessons[only].title);
    } else {
        snprintf(s->title, sizeof s->title, "all lessons");
    }
    int nq = 0, nd = 0;
    for (int pass = 0; pass < 2; pass++) {
        QRef *refs = NULL;
        if (pass == 1) {
            refs = calloc((size_t)(nq ? nq : 1), sizeof *refs);
            if (!refs)
                return fail(err, errlen, "out of memory");
        }
        int k = 0;
        nd = 0;
        for (int li = 0; li < c->n_lessons; li++) {
            const Lesson *L = &c->lessons[li];
            if (L->broken || (only >= 0 && li != only))
                continue;
            for (int pi = 0; pi < L->n_pages; pi++)
                for (int qi = 0; qi < L->pages[pi].n_questions; qi++) {
                    int drill = !strcmp(L->pages[pi].questions[qi].kind, "drill");
                    nd += drill;
                    if (refs)
                        refs[k] = (QRef){li, pi, qi, drill};
                    k++;
                }
        }
        if (pass == 0) {
            nq = k;
            /* a course whose questions all come from one lesson: use its title */
            int from = -1, one = 1;
            for (int li = 0; li < c->n_lessons && only < 0; li++) {
                const Lesson *L = &c->lessons[li];
                int has = 0;
                for (int pi = 0; !L->broken && pi < L->n_pages; pi++)
                    has |= L->pages[pi].n_questions > 0;
                if (has && from >= 0)
                    one = 0;
                if (has && from < 0)
                    from = li;
            }
            if (only < 0 && from >= 0 && one)
                snprintf(s->title, sizeof s->title, "%s", c->lessons[from].title);
            if (nq == 0)
                return fail(err, errlen, "%s has no questions", only >= 0 ? lesson
                                                                         : "the course");
            continue;
        }
        if (count <= 0) {
            for (int i = 0; i < nq; i++)
                if (add_item(s, c, refs[i], seed)) {
                    free(refs);
                    return fail(err, errlen, "out of memory");
                }
        } else {
            QuizRng r;
            quiz_rng_seed(&r, seed ^ 0x51u);
            for (int i = nq - 1; i > 0; i--) { /* Fisher-Yates with the quiz's seed */
                int j = quiz_rng_range(&r, 0, i);
                QRef t = refs[i];
                refs[i] = refs[j];
                refs[j] = t;
            }
            for (int i = 0; i < count && i < nq; i++)
                if (add_item(s, c, refs[i], seed)) {
                    free(refs);
                    return fail(err, errlen, "out of memory");
                }
            /* more than the questions: drills again, with fresh numbers */
            for (int extra = 0, round = 1; nd > 0 && nq + extra < count; round++)
                for (int i = 0; i < nq && nq + extra < count; i++) {
                    if (!refs[i].drill)
                        continue;
                    if (add_item(s, c, refs[i], quiz_hash("again", seed + (uint64_t)round))) {
                        free(refs);
                        return fail(err, errlen, "out of memory");
                    }
                    extra++;
                }
        }
        free(refs);
    }
    if (s->n == 0) {
        fail(err, errlen, "no question could be built: %s", s->skipped);
        quiz_set_free(s);
        return -1;
    }
    return 0;
}

/* ---- the progress slot ---- */

const int QUIZ_BOX_DAYS[QUIZ_BOXES + 1] = {0, 0, 1, 3, 7, 21};

/* The slot parsed, or a fresh {"version":1,"scores":{},"schedule":{}}; never NULL unless
 * out of memory. Wrong shapes inside are replaced. */
static cJSON *slot_load(const Progress *p)
{
    const char *txt = p ? progress_slot_get(p, QUIZ_SLOT) : NULL;
    cJSON *o = txt ? cJSON_Parse(txt) : NULL;
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        o = cJSON_CreateObject();
        if (!o)
            return NULL;
    }
    if (!cJSON_IsNumber(json_get(o, "version"))) {
        cJSON_DeleteItemFromObjectCaseSensitive(o, "version");
        cJSON_AddNumberToObject(o, "version", 1);
    }
    const char *subs[] = {"scores", "schedule"};
    for (int i = 0; i < 2; i++)
        if (!cJSON_IsObject(json_get(o, subs[i]))) {
            cJSON_DeleteItemFromObjectCaseSensitive(o, subs[i]);
            cJSON_AddObjectToObject(o, subs[i]);
        }
    return o;
}

static int slot_save(Progress *p, cJSON *o, char *err, size_t errlen)
{
    char *txt = cJSON_PrintUnformatted(o);
    if (!txt)
        return fail(err, errlen, "out of memory");
    int rc = progress_slot_set(p, QUIZ_SLOT, txt, err, errlen);
    cJSON_free(txt);
    return rc;
}

static double num_or(const cJSON *o, const char *k, double dflt)
{
    const cJSON *it = json_get(o, k);
    return cJSON_IsNumber(it) && isfinite(it->valuedouble) ? it->valuedouble : dflt;
}

static void set_num(cJSON *o, const char *k, double v)
{
    cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (cJSON_IsNumber(it))
        cJSON_SetNumberValue(it, v);
    else {
        cJSON_DeleteItemFromObjectCaseSensitive(o, k);
        cJSON_AddNumberToObject(o, k, v);
    }
}

/* The member k of obj as an object, created (or replaced when not an object). */
static cJSON *obj_member(cJSON *obj, const char *k)
{
    cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, k);
    if (cJSON_IsObject(it))
        return it;
    cJSON_DeleteItemFromObjectCaseSensitive(obj, k);
    return cJSON_AddObjectToObject(obj, k);
}

int quiz_record(Progress *p, const char *key, QuizResult res, long now, char *err,
                size_t errlen)
{
    cJSON *o = slot_load(p);
    if (!o)
        return fail(err, errlen, "out of memory");
    cJSON *e = obj_member(cJSON_GetObjectItemCaseSensitive(o, "schedule"), key);
    if (!e) {
        cJSON_Delete(o);
        return fail(err, errlen, "out of memory");
    }
    int box = (int)num_or(e, "box", 0);
    if (box < 1 || box > QUIZ_BOXES)
        box = 0; /* new */
    switch (res) {
    case QR_RIGHT:
        box = box < 1 ? 2 : box < QUIZ_BOXES ? box + 1 : QUIZ_BOXES;
        set_num(e, "right", num_or(e, "right", 0) + 1);
        break;
    case QR_RIGHT_HINTED:
        box = box < 1 ? 1 : box;
        set_num(e, "right", num_or(e, "right", 0) + 1);
        break;
    case QR_WRONG:
    case QR_SKIPPED:
        box = 1;
        set_num(e, res == QR_WRONG ? "wrong" : "skipped",
                num_or(e, res == QR_WRONG ? "wrong" : "skipped", 0) + 1);
        break;
    }
    set_num(e, "box", box);
    set_num(e, "due", (double)now + 86400.0 * QUIZ_BOX_DAYS[box]);
    set_num(e, "last", (double)now);
    int rc = slot_save(p, o, err, errlen);
    cJSON_Delete(o);
    return rc;
}

int quiz_record_score(Progress *p, const char *lesson, int right, int asked, int hints,
                      long now, char *err, size_t errlen)
{
    cJSON *o = slot_load(p);
    if (!o)
        return fail(err, errlen, "out of memory");
    cJSON *e = obj_member(cJSON_GetObjectItemCaseSensitive(o, "scores"), lesson);
    if (!e) {
        cJSON_Delete(o);
        return fail(err, errlen, "out of memory");
    }
    double best = num_or(e, "best", -1);
    double frac = asked > 0 ? (double)right / asked : 0;
    set_num(e, "right", right);
    set_num(e, "asked", asked);
    set_num(e, "hints", hints);
    set_num(e, "when", (double)now);
    set_num(e, "sessions", num_or(e, "sessions", 0) + 1);
    set_num(e, "best", frac > best ? frac : best);
    int rc = slot_save(p, o, err, errlen);
    cJSON_Delete(o);
    return rc;
}

int quiz_score(const Progress *p, const char *lesson, int *right, int *asked)
{
    const char *txt = p ? progress_slot_get(p, QUIZ_SLOT) : NULL;
    cJSON *o = txt ? cJSON_Parse(txt) : NULL;
    const cJSON *e = json_get(json_get(o, "scores"), lesson);
    int rc = -1;
    if (cJSON_IsObject(e) && cJSON_IsNumber(json_get(e, "asked"))) {
        *right = (int)num_or(e, "right", 0);
        *asked = (int)num_or(e, "asked", 0);
        rc = *asked > 0 && *right >= 0 && *right <= *asked ? 0 : -1;
    }
    cJSON_Delete(o);
    return rc;
}

int quiz_schedule(const Progress *p, const char *key, int *box, long *due)
{
    const char *txt = p ? progress_slot_get(p, QUIZ_SLOT) : NULL;
    cJSON *o = txt ? cJSON_Parse(txt) : NULL;
    const cJSON *e = json_get(json_get(o, "schedule"), key);
    int rc = -1;
    if (cJSON_IsObject(e)) {
        int b = (int)num_or(e, "box", 0);
        if (b >= 1 && b <= QUIZ_BOXES) {
            *box = b;
            *due = (long)num_or(e, "due", 0);
            rc = 0;
        }
    }
    cJSON_Delete(o);
    return rc;
}

typedef struct {
    char key[100];
    long due;
} Due;

static int due_cmp(const void *a, const void *b)
{
    const Due *x = a, *y = b;
    if (x->due != y->due)
        return x->due < y->due ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* Every scheduled key due at now, most overdue first. *n set; caller frees. */
static Due *due_list(const Progress *p, long now, int *n)
{
    *n = 0;
    const char *txt = p ? progress_slot_get(p, QUIZ_SLOT) : NULL;
    cJSON *o = txt ? cJSON_Parse(txt) : NULL;
    const cJSON *sch = json_get(o, "schedule");
    int cap = cJSON_IsObject(sch) ? cJSON_GetArraySize(sch) : 0;
    Due *d = calloc((size_t)(cap ? cap : 1), sizeof *d);
    if (!d) {
        cJSON_Delete(o);
        return NULL;
    }
    for (const cJSON *e = cap ? sch->child : NULL; e; e = e->next) {
        int b = (int)num_or(e, "box", 0);
        long due = (long)num_or(e, "due", 0);
        if (!cJSON_IsObject(e) || b < 1 || b > QUIZ_BOXES || due > now ||
            strlen(e->string) >= sizeof d->key)
            continue;
        snprintf(d[*n].key, sizeof d->key, "%s", e->string);
        d[*n].due = due;
        (*n)++;
    }
    cJSON_Delete(o);
    qsort(d, (size_t)*n, sizeof *d, due_cmp);
    return d;
}

int quiz_due_count(const Progress *p, long now)
{
    int n;
    Due *d = due_list(p, now, &n);
    free(d);
    return d ? n : 0;
}

int quiz_build_review(QuizSet *s, const Course *c, const Progress *p, long now, int count,
                      uint64_t seed, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->seed = seed;
    snprintf(s->title, sizeof s->title, "review");
    int n;
    Due *d = due_list(p, now, &n);
    if (!d)
        return fail(err, errlen, "out of memory");
    for (int i = 0; i < n && (count <= 0 || s->n < count); i++) {
        char lesson[100];
        snprintf(lesson, sizeof lesson, "%s", d[i].key);
        char *slash = strchr(lesson, '/');
        if (!slash)
            continue;
        *slash = 0;
        const char *qid = slash + 1;
        int li = lesson_find(c, lesson);
        if (li < 0 || c->lessons[li].broken)
            continue; /* a question of a lesson that is gone or broken waits */
        const Lesson *L = &c->lessons[li];
        int found = 0;
        for (int pi = 0; pi < L->n_pages && !found; pi++)
            for (int qi = 0; qi < L->pages[pi].n_questions && !found; qi++)
                if (!strcmp(L->pages[pi].questions[qi].id, qid)) {
                    found = 1;
                    if (add_item(s, c, (QRef){li, pi, qi, 0}, seed)) {
                        free(d);
                        quiz_set_free(s);
                        return fail(err, errlen, "out of memory");
                    }
                }
    }
    free(d);
    return 0;
}
