/* ui_text.c - the player's text without curses: the UI mode, ASCII transliteration, UTF-8
 * widths, word wrapping, the monotonic clock (ui_text.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "safetext.h"
#include "ui_text.h"
#include "utf8.h"

Ui ui;

/* UTF-8 sequences the engine and lessons use, with ASCII spellings. */
static const struct { const char *u, *a; } TRANSLIT[] = {
    {"ᵀ", "^T"}, {"÷", "/"}, {"√d_k", "sqrt(d_k)"}, {"√", "sqrt"}, {"\u2009", " "},
    {"−", "-"}, {"∞", "inf"}, {"·", "*"},
    {"×", "x"}, {"→", "->"}, {"←", "<-"}, {"⊙", "(.)"}, {"²", "^2"}, {"…", "..."},
    {"—", "--"}, {"–", "-"}, {"“", "\""}, {"”", "\""}, {"‘", "'"}, {"’", "'"},
    {"≈", "~="}, {"≤", "<="}, {"≥", ">="}, {"≠", "!="}, {"∑", "sum"}, {"Σ", "sum"},
    {"α", "alpha"}, {"θ", "theta"}, {"ε", "eps"}, {"λ", "lambda"}, {"π", "pi"},
    {"•", "*"}, {"✓", "*"},
    {"↑", "^"}, {"↓", "v"}, {"─", "-"}, {"│", "|"}, {"ᵢ", "_i"}, {"ⱼ", "_j"},
    {"₀", "0"}, {"₁", "1"}, {"₂", "2"}, {"₃", "3"}, {"ₖ", "_k"}, {"₍", "("}, {"₎", ")"},
    {"⁰", "^0"}, {"¹", "^1"}, {"³", "^3"}, {"ⁿ", "^n"}, {"↔", "<->"}, {"∝", "~"},
    {"▶", ">"}, {"▸", ">"}, {"▼", "v"}, {"◀", "<"}, {"◂", "<"}, {"✗", "x"},
};

const char *ui_text(const char *s, char *out, size_t outlen)
{
    size_t o = 0;
    if (!outlen)
        return out;
    if (ui.utf8) {
        snprintf(out, outlen, "%s", s);
        return out;
    }
    while (*s && o + 1 < outlen) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x80) {
            out[o++] = *s++;
            continue;
        }
        int block = safetext_block_ascii(s); /* blocks and shades: one rule (safetext.h) */
        if (block) {
            out[o++] = (char)block;
            s += 3;
            continue;
        }
        size_t i, n = sizeof TRANSLIT / sizeof TRANSLIT[0];
        for (i = 0; i < n; i++) {
            size_t ul = strlen(TRANSLIT[i].u);
            if (!strncmp(s, TRANSLIT[i].u, ul)) {
                size_t al = strlen(TRANSLIT[i].a);
                if (o + al >= outlen)
                    goto done;
                memcpy(out + o, TRANSLIT[i].a, al);
                o += al;
                s += ul;
                break;
            }
        }
        if (i == n) { /* unknown sequence: one '?' for the whole character */
            out[o++] = '?';
            s++;
            while (utf8_is_cont((unsigned char)*s))
                s++;
        }
    }
done:
    out[o] = '\0';
    return out;
}

int ui_char(const char *s, int *width)
{
    unsigned cp;
    int len = utf8_decode(s, strnlen(s, 4), &cp);
    *width = 1;
    if (len < 1)
        return 1; /* an invalid byte: one column */
    if (len > 1 && ui.utf8) {
        int w = wcwidth((wchar_t)cp);
        *width = w < 0 ? 1 : w;
    }
    return len;
}

int ui_width(const char *s)
{
    int w = 0, cw;
    while (*s) {
        s += ui_char(s, &cw);
        w += cw;
    }
    return w;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* 1 if the space at q (in [from, end)) groups a number's digits, as in "1 235 814" (the ASCII
 * form of the thin space): a digit before, exactly three after. Not a place to break. */
static int digit_group_space(const char *q, const char *from, const char *end)
{
    return q > from && is_digit(q[-1]) && end - q >= 4 && is_digit(q[1]) && is_digit(q[2]) &&
           is_digit(q[3]) && (end - q == 4 || !is_digit(q[4]));
}

int ui_wrap(const char *text, int w, void (*line)(const char *s, int len, void *ctx), void *ctx)
{
    int lines = 0;
    if (w < 1)
        w = 1;
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, '\n');
        if (!end)
            end = p + strlen(p);
        if (end == p) { /* blank line */
            line(p, 0, ctx);
            lines++;
        }
        const char *s = p;
        while (s < end) {
            /* Greedy: take words while they fit. */
            const char *q = s, *brk = NULL;
            int cols = 0, cw;
            while (q < end) {
                if (*q == ' ' && !digit_group_space(q, p, end))
                    brk = q;
                int len = ui_char(q, &cw);
                if (cols + cw > w)
                    break;
                cols += cw;
                q += len;
            }
            const char *stop = q;
            if (q < end && brk && brk > s)
                stop = brk; /* break at the last space that fit */
            line(s, (int)(stop - s), ctx);
            lines++;
            s = stop;
            while (s < end && *s == ' ')
                s++;
        }
        p = *end ? end + 1 : end;
    }
    return lines;
}

long long ui_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
