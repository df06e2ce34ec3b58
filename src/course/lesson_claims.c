/* lesson_claims.c - what a sentence claims about the widget (lesson_claims.h): state words
 * against the state shown, start sentences against the start, tokens cited by an ambiguous
 * word, and the guard lint with its allow-list. Text only. */
#include "lesson_claims.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENT_MAX 1200

/* The next sentence of s from *pos: its bounds [*b, *e) (a '.', '!' or '?' followed by a
 * space or the end, a blank line; placeholders are skipped whole, their ".2" ends nothing).
 * 0 at the end. */
static int next_sentence(const char *s, size_t *pos, size_t *b, size_t *e)
{
    size_t i = *pos;
    while (s[i] == ' ' || s[i] == '\n')
        i++;
    if (!s[i])
        return 0;
    *b = i;
    while (s[i]) {
        if (s[i] == '{' && s[i + 1] == '{') {
            const char *c = strstr(s + i, "}}");
            i = c ? (size_t)(c - s) + 2 : strlen(s);
            continue;
        }
        if (s[i] == '\n' && s[i + 1] == '\n')
            break;
        if ((s[i] == '.' || s[i] == '!' || s[i] == '?') &&
            (!s[i + 1] || s[i + 1] == ' ' || s[i + 1] == '\n')) {
            i++;
            break;
        }
        i++;
    }
    *e = i;
    *pos = i;
    return 1;
}

/* The sentence [b, e) of s, lowercased, into out. */
static void lower_copy(const char *s, size_t b, size_t e, char *out, size_t n)
{
    size_t k = 0;
    for (size_t i = b; i < e && k + 1 < n; i++)
        out[k++] = (char)tolower((unsigned char)s[i]);
    out[k] = 0;
}

/* w as a whole word (or phrase) in s (lowercase); a word right after '-' does not count
 * ("decoder-only"). Returns its position or NULL. */
static const char *find_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = strstr(s, w); p; p = strstr(p + 1, w)) {
        int before = p == s || (!isalnum((unsigned char)p[-1]) && p[-1] != '-' && p[-1] != '_');
        int after = !isalnum((unsigned char)p[n]) && p[n] != '_';
        if (before && after)
            return p;
    }
    return NULL;
}

/* Case-insensitive search of needle in hay. */
static const char *find_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++)
        if (!strncasecmp(p, needle, n))
            return p;
    return NULL;
}

static void add_fail(PlaceholderFail *f, int max, int *found, size_t off, const char *msg)
{
    if (*found < max) {
        f[*found].off = off;
        snprintf(f[*found].msg, sizeof f[*found].msg, "%s", msg);
    }
    (*found)++;
}

/* The words that name a state, and the values the state must have for them to hold. */
static const struct {
    const char *words;
    int what;            /* 0 mask, 1 pe, 2 scale */
    const char *ok[3];
} PHRASES[] = {
    {"without a mask", 0, {"none"}},
    {"with no mask", 0, {"none"}},
    {"causal mask on", 0, {"causal", "both"}},
    {"with the causal mask", 0, {"causal", "both"}},
    {"under the causal mask", 0, {"causal", "both"}},
    {"causal mask off", 0, {"none", "padding"}},
    {"padding mask on", 0, {"padding", "both"}},
    {"with the padding mask", 0, {"padding", "both"}},
    {"padding mask off", 0, {"none", "causal"}},
    {"with both masks", 0, {"both"}},
    {"encoding on", 1, {"sinusoidal", "learned", "rope"}},
    {"with an encoding", 1, {"sinusoidal", "learned", "rope"}},
    {"with positions added", 1, {"sinusoidal", "learned", "rope"}},
    {"without positions", 1, {"none"}},
    {"encoding off", 1, {"none"}},
    {"scaling on", 2, {"on"}},
    {"scaling off", 2, {"off"}},
};

static const char *const STATE_NAME[3] = {"mask", "pe", "scale"};

/* A sentence about the page's start: "opens on", "starts with", "starting with"... */
static int about_start(const char *low)
{
    static const char *const W[] = {"opens", "opened", "starts", "start with", "starting with",
                                    "begins", "started"};
    for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
        if (find_word(low, W[i]))
            return 1;
    return 0;
}

int claims_shown(const char *prose, const char *shown, const ClaimState *cs, PlaceholderFail *f,
                 int max)
{
    int found = 0;
    size_t pos = 0, b, e;
    const char *now[3] = {cs->mask, cs->pe, cs->scale};
    const char *start[3] = {cs->start_mask, cs->start_pe, cs->start_scale};
    char low[SENT_MAX], msg[320];
    while (next_sentence(shown, &pos, &b, &e)) {
        lower_copy(shown, b, e, low, sizeof low);
        int st = about_start(low);
        /* "Press p to switch an encoding on" tells what a key does, in any state */
        int instruction = find_word(low, "press") != NULL;
        /* a sentence about the start is read against the start, any other against now */
        const char *const *state = st ? start : now;
        for (size_t k = 0; k < sizeof PHRASES / sizeof PHRASES[0]; k++) {
            const char *v = state[PHRASES[k].what];
            const char *at_w = v && !instruction ? find_word(low, PHRASES[k].words) : NULL;
            if (!at_w)
                continue;
            /* "with the padding mask off" is the longer phrase's to judge */
            const char *rest = at_w + strlen(PHRASES[k].words);
            if (!strncmp(rest, " off", 4) || !strncmp(rest, " on", 3))
                continue;
            int ok = 0;
            for (int j = 0; j < 3 && PHRASES[k].ok[j]; j++)
                ok |= !strcmp(v, PHRASES[k].ok[j]);
            if (ok)
                continue;
            const char *at = find_ci(prose, PHRASES[k].words);
            snprintf(msg, sizeof msg, "\"%.100s%s\" says \"%s\", but %s is %s%s: put the "
                     "sentence in {{if %s ...}}", low, strlen(low) > 100 ? "..." : "",
                     PHRASES[k].words, STATE_NAME[PHRASES[k].what], v,
                     st ? " at the start" : " here", STATE_NAME[PHRASES[k].what]);
            add_fail(f, max, &found, at ? (size_t)(at - prose) : 0, msg);
        }
        if (!st)
            continue;
        /* "opens on ... (pe: sinusoidal)": the named state must be the start's */
        for (int k = 0; k < 3; k++) {
            char pat[16];
            snprintf(pat, sizeof pat, "%s: ", STATE_NAME[k]);
            const char *p = strstr(low, pat);
            if (!p || !start[k] || (p > low && isalnum((unsigned char)p[-1])))
                continue;
            p += strlen(pat);
            size_t n = strlen(start[k]);
            if (!strncmp(p, start[k], n) && !isalnum((unsigned char)p[n]))
                continue;
            char val[24];
            size_t l = 0;
            while (l + 1 < sizeof val && isalnum((unsigned char)p[l]))
                l++;
            memcpy(val, p, l);
            val[l] = 0;
            snprintf(pat, sizeof pat, "%s: {{", STATE_NAME[k]);
            const char *at = strstr(prose, pat);
            snprintf(msg, sizeof msg, "\"%.100s%s\" speaks of the page's start, where %s is %s, "
                     "but names %s %s (the state now): say the start's in words, or put the "
                     "state now in another sentence", low, strlen(low) > 100 ? "..." : "",
                     STATE_NAME[k], start[k], STATE_NAME[k], val);
            add_fail(f, max, &found, at ? (size_t)(at - prose) : 0, msg);
        }
    }
    return found;
}

/* Words that say which of two equal tokens a sentence means. */
static int says_which(const char *low)
{
    static const char *const W[] = {"row", "rows", "position", "positions", "query", "first",
                                    "second", "third", "last", "earlier", "later", "both",
                                    "each", "every", "column"};
    for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
        if (find_word(low, W[i]))
            return 1;
    return 0;
}

int claims_tokens(const char *prose, const PlaceholderCtx *ctx, PlaceholderFail *f, int max)
{
    int found = 0;
    size_t pos = 0, b, e;
    char low[SENT_MAX], msg[320], err[200];
    if (!ctx->trace)
        return 0;
    int n = ctx->trace->n;
    while (next_sentence(prose, &pos, &b, &e)) {
        lower_copy(prose, b, e, low, sizeof low);
        /* "column" may name the number read, not the token: only row-like words count */
        char *col = strstr(low, "column");
        int which = says_which(low) && !(col && !find_word(low, "row") && !find_word(low, "rows")
                                         && !find_word(low, "position") && !find_word(low, "query")
                                         && !find_word(low, "first") && !find_word(low, "second")
                                         && !find_word(low, "last"));
        if (which)
            continue;
        for (const char *p = strstr(low, "{{token "); p; p = strstr(p + 2, "{{token ")) {
            int i;
            if (sscanf(p, "{{token %d}}", &i) != 1 || i < 0 || i >= n)
                continue;
            char body[32], word[64], other[64];
            snprintf(body, sizeof body, "token %d", i);
            if (placeholder_value(body, ctx, word, sizeof word, err, sizeof err))
                continue;
            int same = 0;
            for (int j = 0; j < n; j++) {
                snprintf(body, sizeof body, "token %d", j);
                if (j != i && !placeholder_value(body, ctx, other, sizeof other, err, sizeof err))
                    same += !strcmp(word, other);
            }
            if (!same)
                continue;
            snprintf(msg, sizeof msg, "\"%.100s%s\" cites \"%.20s\" (position %d) by its word, but "
                     "the sentence has %d \"%.20s\": say which (row %d, the second...)", low,
                     strlen(low) > 100 ? "..." : "", word, i, same + 1, word, i);
            add_fail(f, max, &found, b + (size_t)(p - low), msg);
            break;
        }
    }
    return found;
}

/* ---- the guard lint ---- */

/* A quantifier or a comparative: a claim a state can make false. */
static const char *const QUANT[] = {
    "no", "nothing", "only", "always", "never", "most", "more", "less", "fewer", "larger",
    "largest", "smaller", "smallest", "higher", "highest", "lower", "lowest", "sharper",
    "sharpen", "sharpens", "flatter", "flattens", "equal", "same", "identical", "unchanged",
    "biggest", "strongest", "weakest", "harmless",
};
/* Words that point at the widget. */
static const char *const DEIXIS[] = {
    "here", "now", "press", "on screen",
    "the status line", "this head", "this row", "reads", "gives",
};

/* row 2, key 3, head 1...: a numbered thing on screen. */
static int numbered(const char *low)
{
    static const char *const W[] = {"row ", "key ", "column ", "query ", "head ", "layer "};
    for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
        for (const char *p = strstr(low, W[i]); p; p = strstr(p + 1, W[i]))
            if ((p == low || !isalpha((unsigned char)p[-1])) &&
                isdigit((unsigned char)p[strlen(W[i])]) &&
                !isalpha((unsigned char)p[strlen(W[i]) + 1]))
                return 1;
    return 0;
}

/* A quoted lowercase word: "dog". */
static int quoted_word(const char *low)
{
    for (const char *p = strchr(low, '"'); p; p = strchr(p + 1, '"')) {
        const char *q = p + 1;
        while (*q >= 'a' && *q <= 'z')
            q++;
        if (q > p + 1 && *q == '"')
            return 1;
    }
    return 0;
}

/* The sentences the lint lets through, each with its reason. A sentence is matched by its
 * start (in its lesson). Keep it short: a claim about the widget is better computed. */
static const struct {
    const char *lesson, *start, *why;
} ALLOW[] = {
    {"why-attention", "Press e, type a rare word: it splits, never unknown;",
     "tokenizing is a function of the text alone (vocab_tokenize): no state changes a split"},
    {"induction-heads", "Layer 0 has no layer below",
     "architecture: layer 0 reads the embeddings alone; the head that does it is computed in "
     "the next paragraph"},
    {"padding-mask", "Press m and d to try each combination, and h to check that every head",
     "every head of a layer gets the one mask M (build_mask): no state makes it false"},
    {"permutation-equivariance", "So without position information,",
     "a fact of the model without PE (an embedding row per word), not of the widget's state"},
};

static int allowed(const char *lesson, const char *s)
{
    for (size_t i = 0; i < sizeof ALLOW / sizeof ALLOW[0]; i++)
        if (ALLOW[i].start && !strcmp(ALLOW[i].lesson, lesson) &&
            !strncmp(s, ALLOW[i].start, strlen(ALLOW[i].start)))
            return 1;
    return 0;
}

int claims_lint(const char *lesson_id, const char *prose, WidgetKind kind, PlaceholderFail *f,
                int max)
{
    int found = 0, depth = 0;
    size_t pos = 0, b, e, scanned = 0;
    char low[SENT_MAX], msg[320];
    if (kind == W_NONE || kind == W_LAB)
        return 0;
    while (next_sentence(prose, &pos, &b, &e)) {
        /* the {{if}} depth where the sentence starts */
        for (size_t i = scanned; i < b; i++)
            if (prose[i] == '{' && prose[i + 1] == '{') {
                if (!strncmp(prose + i, "{{if ", 5))
                    depth++;
                else if (!strncmp(prose + i, "{{end}}", 7) && depth > 0)
                    depth--;
            }
        scanned = b;
        lower_copy(prose, b, e, low, sizeof low);
        if (depth > 0 || strstr(low, "{{"))
            continue; /* conditioned, or computed/asserted */
        const char *q = NULL;
        for (size_t i = 0; i < sizeof QUANT / sizeof QUANT[0] && !q; i++)
            if (find_word(low, QUANT[i]))
                q = QUANT[i];
        if (!q)
            continue;
        int about = numbered(low) || quoted_word(low);
        for (size_t i = 0; i < sizeof DEIXIS / sizeof DEIXIS[0] && !about; i++)
            about = find_word(low, DEIXIS[i]) != NULL;
        if (!about || allowed(lesson_id, prose + b))
            continue;
        snprintf(msg, sizeof msg, "\"%.110s%s\" claims \"%s\" about the widget with nothing "
                 "behind it: compute it (a placeholder), condition it ({{if}}) or assert it "
                 "({{assert}}), or allow it in lesson_claims.c with a reason", low,
                 strlen(low) > 110 ? "..." : "", q);
        add_fail(f, max, &found, b, msg);
    }
    return found;
}
