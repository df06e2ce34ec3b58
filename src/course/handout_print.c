/* handout_print.c - prose for print (handout_print.h): the player's key instructions
 * ("Press m for the causal mask...", "(g: lessons)", "(press Q)") taken out of a page's text,
 * since a printed page cannot be pressed. No curses, no printing. */
#include "handout_print.h"

#include <ctype.h>
#include <string.h>

/* 1 when s[i] starts the word "press"/"Press" followed by a space. */
static int press_at(const char *s, size_t i)
{
    return (i == 0 || !isalpha((unsigned char)s[i - 1])) &&
           (!strncmp(s + i, "press ", 6) || !strncmp(s + i, "Press ", 6));
}

/* 1 when s starts "k verbs" (a one-character key and a verb: "p cycles", "t toggles it",
 * "a shows one head large"); articles are let through where told. */
static int key_verb(const char *s, int articles_too)
{
    if (!s[0] || s[0] == ' ' || s[0] == '(' || s[1] != ' ' || !isalpha((unsigned char)s[2]) ||
        (!articles_too && strchr("aAI", s[0])))
        return 0;
    static const char *const VERBS[] = {"cycles", "toggles", "flips", "shows", "steps",
                                        "switches", "turns", "opens", "picks", "moves", NULL};
    for (int i = 0; VERBS[i]; i++) {
        size_t w = strlen(VERBS[i]);
        if (!strncmp(s + 2, VERBS[i], w) && (s[2 + w] == ' ' || s[2 + w] == ':'))
            return 1;
    }
    return 0;
}

/* Length of a key hint in parentheses at s: "(g: lessons)", "(press Q)", "(Q)"-less forms
 * are left alone. 0 when s does not start one. */
static size_t hint_len(const char *s)
{
    if (s[0] != '(')
        return 0;
    const char *close = strchr(s, ')');
    if (!close || close - s > 60 || memchr(s, '\n', (size_t)(close - s)))
        return 0;
    /* (g: lessons), (v flips to weights), (a shows one head large) */
    int one_key = (s[1] && s[1] != ' ' && s[2] == ':' && s[3] == ' ') || key_verb(s + 1, 1);
    if (one_key || press_at(s, 1))
        return (size_t)(close - s) + 1;
    return 0;
}

/* 1 when [s, e) holds a digit. */
static int has_digit(const char *s, const char *e)
{
    for (; s < e; s++)
        if (isdigit((unsigned char)*s))
            return 1;
    return 0;
}

/* Appends n bytes of s to out (cut when full). */
static void put(char *out, size_t cap, size_t *o, const char *s, size_t n)
{
    while (n-- && *o + 1 < cap)
        out[(*o)++] = *s++;
    out[*o < cap ? *o : cap - 1] = '\0';
}

/* The end of the sentence starting at s: just past its '.', '!' or '?' (followed by a space,
 * a line break or the end; a decimal point is not an end), or at a line break. */
static const char *sentence_end(const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p == '\n')
            return p;
        if ((*p == '.' || *p == '!' || *p == '?') && (p[1] == ' ' || p[1] == '\n' || !p[1]))
            return p + 1;
    }
    return s + strlen(s);
}

/* One sentence [s, e) for print: hints in parentheses dropped; a sentence that opens with
 * "Press" (or whose main clause is a key instruction) dropped whole, a clause "...; press v
 * to see..." cut at the semicolon. Returns 2 when the sentence went whole, 1 when an
 * instruction was taken out of it, 0 when it is unchanged. */
static int sentence(const char *s, const char *e, char *out, size_t cap, size_t *o)
{
    char buf[2048];
    size_t n = 0;
    int took = 0;
    for (const char *p = s; p < e && n + 1 < sizeof buf;) {
        size_t h = hint_len(p);
        if (h && p + h <= e) {
            while (n && buf[n - 1] == ' ') /* "story (g: lessons)." -> "story." */
                n--;
            p += h;
            took = 1;
            continue;
        }
        buf[n++] = *p++;
    }
    buf[n] = '\0';
    size_t lead = strspn(buf, " ");
    for (size_t i = lead; i < n; i++) {
        if (!press_at(buf, i) && !(i == lead && key_verb(buf + i, 0)))
            continue;
        took = 1;
        size_t k = i;
        while (k > lead && buf[k - 1] == ' ')
            k--;
        if (k > lead && buf[k - 1] == ';') { /* keep the statement before "; press" */
            put(out, cap, o, buf, k - 1);
            put(out, cap, o, ".", 1);
            return 1;
        }
        if (*o && out[*o - 1] == ' ') {
            (*o)--; /* the sentence goes: so does the space before it */
            out[*o] = '\0';
        }
        return 2;
    }
    put(out, cap, o, buf, n);
    return took;
}

int handout_print_prose(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    int took = 0, gone = 0;
    if (cap)
        out[0] = '\0';
    while (*in) {
        if (*in == '\n') {
            put(out, cap, &o, in, 1);
            in++;
            gone = 0;
            continue;
        }
        const char *e = sentence_end(in);
        if (gone && e - in < 45 && !memchr(in, '(', (size_t)(e - in)) &&
            !has_digit(in, e)) {
            /* a short sentence without numbers right after a dropped instruction tells its
             * outcome ("The shortcut is gone."), untrue of the printed start state: it goes */
            if (o && out[o - 1] == ' ')
                out[--o] = '\0';
            gone = 0;
        } else {
            int r = sentence(in, e, out, cap, &o);
            took |= r != 0;
            gone = r == 2;
            if (gone && (o == 0 || out[o - 1] == '\n') && *e == '\n' && e[1] != '\n')
                e++; /* a line that went whole takes its line break along */
        }
        in = e;
        size_t sp = strspn(in, " ");
        if (sp && o && out[o - 1] != '\n' && out[o - 1] != ' ' && *(in + sp) != '\n' &&
            *(in + sp))
            put(out, cap, &o, " ", 1);
        in += sp;
    }
    /* a paragraph emptied by the cuts: no blank run of more than one empty line */
    size_t w = 0;
    for (size_t r = 0; r < o; r++) {
        if (out[r] == '\n' && (w == 0 || (w >= 2 && out[w - 1] == '\n' && out[w - 2] == '\n')))
            continue;
        out[w++] = out[r];
    }
    while (w && (out[w - 1] == '\n' || out[w - 1] == ' '))
        w--;
    if (cap)
        out[w < cap ? w : cap - 1] = '\0';
    return took;
}
