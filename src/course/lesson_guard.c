/* lesson_guard.c - check-lessons' guards for stale prose (lesson_guard.h): instructions of
 * state keys outside an {{if}} on that state, and sentences whose numbers follow a toggle
 * without naming it. Text only. */
#include "lesson_guard.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define SENT_MAX 1200    /* bytes of one sentence kept (longer ones are cut) */
#define SNAP_MAX 24      /* block states within one sentence */
#define COND_MAX 600     /* the open conditions, joined */

/* The state a key switches on a page of kind allowing the C_* bits, as the placeholder that
 * reads it; NULL when the key switches no state there. */
static const char *key_state(WidgetKind kind, unsigned allowed, char k)
{
    switch (kind) {
    case W_HEATMAP: case W_CHIPS: case W_PASSPORT: case W_MATRIX:
        if ((k == 'm' && (allowed & C_MASK)) || (k == 'd' && (allowed & C_PADDING)))
            return "mask";
        if (k == 's' && (allowed & C_SCALE))
            return "scale";
        if (k == 'p' && (allowed & C_PE))
            return "pe";
        return NULL;
    case W_WORKED:
        return k == 'm' && (allowed & C_MASK) ? "x causal"
             : k == 's' && (allowed & C_SCALE) ? "x scale" : NULL;
    case W_SCALING:
        return k == 's' && (allowed & C_SCALE) ? "x scale" : NULL;
    case W_PARAMS:
        return k == 't' && (allowed & C_TIE) ? "x tied"
             : k == 'g' && (allowed & C_GQA) ? "x n_kv_heads" : NULL;
    case W_GENERATE:
        return k == 't' && (allowed & C_SAMPLE) ? "x greedy" : NULL;
    case W_TRAIN:
        return k == 'm' && (allowed & C_MASK) ? "x causal" : NULL;
    default:
        return NULL;
    }
}

/* Words that make an instruction neutral: it holds in either state. */
static int neutral(const char *s)
{
    static const char *const W[] = {"toggle", "compare", "try ", "cycle", "each combination",
                                    "either way", "on and off", "pick", "change"};
    for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
        if (strstr(s, W[i]))
            return 1;
    return 0;
}

/* One sentence being read: its text without placeholders ('#' for each), where it starts in
 * the prose, and the open conditions at each of its characters (snap[at[i]]). */
typedef struct {
    char text[SENT_MAX];
    unsigned char at[SENT_MAX];
    int len;
    size_t off;
    char snap[SNAP_MAX][COND_MAX];
    int n_snap;
} Sentence;

typedef struct {
    WidgetKind kind;
    unsigned allowed;
    PlaceholderFail *f;
    int max, found;
} GuardWalk;

static int word_is(const char *s, int i, int len, const char *w)
{
    size_t n = strlen(w);
    return i + (int)n <= len && !strncmp(s + i, w, n) && (i == 0 || !isalpha((unsigned char)s[i - 1]));
}

/* A single-character key at s[i] (a letter or sign followed by a non-letter). */
static int key_at(const char *s, int i, int len)
{
    return i < len && s[i] != ' ' && s[i] != '#' && (i + 1 >= len || !isalnum((unsigned char)s[i + 1]))
           && (i == 0 || !isalnum((unsigned char)s[i - 1]));
}

static void check_key(GuardWalk *g, const Sentence *s, int i)
{
    const char *state = key_state(g->kind, g->allowed, s->text[i]);
    if (!state || strstr(s->snap[s->at[i]], state))
        return;
    if (g->found < g->max) {
        PlaceholderFail *f = &g->f[g->found];
        f->off = s->off;
        snprintf(f->msg, sizeof f->msg, "\"%.90s%s\" tells the learner to press %c, but is not "
                 "guarded by the state it assumes: put it in {{if %s ...}} (or say toggle)",
                 s->text, s->len > 90 ? "..." : "", s->text[i], state);
    }
    g->found++;
}

/* The instructions of one sentence: "press K [and|or|, K]..." and "K takes/turns/...". */
static void check_sentence(GuardWalk *g, Sentence *s)
{
    const char *t = s->text;
    int len = s->len;
    s->text[len] = '\0';
    if (neutral(t))
        return;
    for (int i = 0; i < len; i++) {
        if (word_is(t, i, len, "Press ") || word_is(t, i, len, "press ")) {
            int j = i + 6;
            while (key_at(t, j, len)) {
                check_key(g, s, j);
                j += 1;
                if (!strncmp(t + j, " and ", 5) || !strncmp(t + j, " or ", 4) ||
                    !strncmp(t + j, ", ", 2))
                    j += t[j + 1] == 'a' ? 5 : t[j + 1] == 'o' ? 4 : 2;
                else
                    break;
            }
        }
        int starts = i == 0 || (i >= 2 && (t[i - 2] == ',' || t[i - 2] == ';') && t[i - 1] == ' ');
        if (starts && key_at(t, i, len) && i + 2 < len && t[i + 1] == ' ') {
            static const char *const V[] = {"takes ", "turns ", "unties ", "ties ", "puts ",
                                            "switches ", "adds ", "drops ", "removes "};
            for (size_t v = 0; v < sizeof V / sizeof V[0]; v++)
                if (!strncmp(t + i + 2, V[v], strlen(V[v])))
                    check_key(g, s, i);
        }
    }
}

/* The open conditions, joined: what guards the text read now. */
static void snap_now(Sentence *s, char conds[][200], int depth)
{
    char cur[COND_MAX] = "";
    for (int d = 0; d < depth; d++) {
        size_t l = strlen(cur);
        snprintf(cur + l, sizeof cur - l, "%s%s", d ? " | " : "", conds[d]);
    }
    if (s->n_snap > 0 && !strcmp(s->snap[s->n_snap - 1], cur))
        return;
    if (s->n_snap < SNAP_MAX)
        snprintf(s->snap[s->n_snap++], COND_MAX, "%s", cur);
}

static void put_char(Sentence *s, char c, size_t off)
{
    if (!s->len)
        s->off = off;
    if (s->len < SENT_MAX - 1) {
        s->text[s->len] = c;
        s->at[s->len++] = (unsigned char)(s->n_snap ? s->n_snap - 1 : 0);
    }
}

static void end_sentence(GuardWalk *g, Sentence *s)
{
    if (s->len)
        check_sentence(g, s);
    s->len = 0;
    if (s->n_snap > 1) /* the next sentence starts under the conditions open now */
        memmove(s->snap[0], s->snap[s->n_snap - 1], COND_MAX);
    s->n_snap = s->n_snap ? 1 : 0;
}

int lesson_guard_keys(const char *prose, WidgetKind kind, unsigned allowed, PlaceholderFail *f,
                      int max)
{
    GuardWalk g = {kind, allowed, f, max, 0};
    static Sentence s;
    char conds[8][200];
    int depth = 0;
    memset(&s, 0, sizeof s);
    snap_now(&s, conds, depth);
    for (const char *p = prose; p && *p;) {
        if (p[0] == '{' && p[1] == '{') {
            const char *e = strstr(p + 2, "}}");
            if (!e)
                break;
            int n = (int)(e - p - 2);
            const char *b = p + 2;
            if (n > 3 && !strncmp(b, "if ", 3) && depth < 8)
                snprintf(conds[depth++], sizeof conds[0], "%.*s", n - 3, b + 3);
            else if (n > 5 && !strncmp(b, "elif ", 5) && depth > 0) {
                size_t l = strlen(conds[depth - 1]);
                snprintf(conds[depth - 1] + l, sizeof conds[0] - l, " / %.*s", n - 5, b + 5);
            } else if (n == 3 && !strncmp(b, "end", 3) && depth > 0)
                depth--;
            else if (strncmp(b, "else", 4) && strncmp(b, "assert", 6))
                put_char(&s, '#', (size_t)(p - prose)); /* a value */
            snap_now(&s, conds, depth);
            p = e + 2;
            continue;
        }
        int stop = *p == '\n' || ((*p == '.' || *p == '!' || *p == '?') &&
                                  (p[1] == ' ' || p[1] == '\n' || !p[1]));
        if (!stop)
            put_char(&s, *p, (size_t)(p - prose));
        if (stop)
            end_sentence(&g, &s);
        p++;
    }
    end_sentence(&g, &s);
    return g.found;
}

/* ---- numbers that follow a toggle ---- */

/* The length of the number at s (digits with inner '.' or ',', groups of three after a
 * space or a thin space, a leading minus), 0 when s does not start one. */
static size_t number_len(const char *s)
{
    size_t i = 0;
    if (!strncmp(s, "\xe2\x88\x92", 3) && isdigit((unsigned char)s[3]))
        i = 3;
    else if (*s == '-' && isdigit((unsigned char)s[1]))
        i = 1;
    if (!isdigit((unsigned char)s[i]))
        return 0;
    for (;;) {
        while (isdigit((unsigned char)s[i]))
            i++;
        if ((s[i] == '.' || s[i] == ',') && isdigit((unsigned char)s[i + 1]))
            i++;
        else if (s[i] == ' ' && isdigit((unsigned char)s[i + 1]) && isdigit((unsigned char)s[i + 2]) &&
                 isdigit((unsigned char)s[i + 3]) && !isdigit((unsigned char)s[i + 4]))
            i++;
        else if (!strncmp(s + i, "\xe2\x80\x89", 3) && isdigit((unsigned char)s[i + 3]))
            i += 3;
        else
            return i;
    }
}

/* Sentence k of text (0-based) into out with its skeleton (numbers as '#') in sk; 0 when
 * there is none. has: 1 when it holds a number. */
static int sentence(const char *text, int k, char *out, size_t n, char *sk, size_t skn, int *has)
{
    const char *p = text;
    for (int i = 0; i < k && *p; i++) {
        while (*p && *p != '\n' && !((*p == '.' || *p == '!' || *p == '?') && (p[1] == ' ' || p[1] == '\n' || !p[1])))
            p += number_len(p) ? number_len(p) : 1;
        if (*p)
            p++;
        while (*p == ' ' || *p == '\n')
            p++;
    }
    if (!*p)
        return 0;
    size_t o = 0, q = 0;
    *has = 0;
    while (*p && *p != '\n' && !((*p == '.' || *p == '!' || *p == '?') && (p[1] == ' ' || p[1] == '\n' || !p[1]))) {
        size_t l = number_len(p);
        if (l) {
            *has = 1;
            if (q + 1 < skn)
                sk[q++] = '#';
        } else {
            l = 1;
            if (q + 1 < skn)
                sk[q++] = *p;
        }
        for (size_t i = 0; i < l && o + 1 < n; i++)
            out[o++] = p[i];
        p += l;
    }
    out[o] = sk[q] = '\0';
    return 1;
}

int lesson_guard_numbers(const char *before, const char *after, char *out, size_t n, char *was,
                         size_t wn)
{
    static char a[SENT_MAX], ask[SENT_MAX], b[SENT_MAX], bsk[SENT_MAX];
    int ha, hb;
    for (int i = 0; sentence(after, i, a, sizeof a, ask, sizeof ask, &ha); i++) {
        int letters = 0;
        for (const char *c = ask; *c; c++)
            letters += isalpha((unsigned char)*c) != 0;
        if (!ha || letters < 3) /* a list's "1." is no sentence */
            continue;
        for (int j = 0; sentence(before, j, b, sizeof b, bsk, sizeof bsk, &hb); j++)
            if (hb && !strcmp(ask, bsk) && strcmp(a, b)) {
                snprintf(out, n, "%s", a);
                snprintf(was, wn, "%s", b);
                return 1;
            }
    }
    return 0;
}
