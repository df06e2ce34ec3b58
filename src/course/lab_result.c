/* lab_result.c - the harness's answer to attend, parsed strictly (format in docs/labs.md):
 * anything not of the expected shape is a message naming the line, never a crash. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errf.h"
#include "lab.h"

typedef struct {
    char *p, *end;  /* the rest of the text (NUL-terminated copy) */
    int line;       /* line number of the last line taken */
} Cur;

/* The next line, NUL-terminated in place (its '\n' replaced), or NULL at the end. */
static char *take_line(Cur *c)
{
    if (c->p >= c->end)
        return NULL;
    char *s = c->p, *nl = memchr(s, '\n', (size_t)(c->end - s));
    if (nl) {
        *nl = '\0';
        c->p = nl + 1;
    } else {
        c->p = c->end;
    }
    c->line++;
    return s;
}

/* A short printable excerpt of s for a message (at most n-1 bytes with its "..."). */
static const char *excerpt(const char *s, char *buf, size_t n)
{
    size_t k = 0, max = n - 4;
    for (; s[k] && k < max; k++)
        buf[k] = isprint((unsigned char)s[k]) ? s[k] : '?';
    if (s[k])
        memcpy(buf + k, "...", 4);
    else
        buf[k] = '\0';
    return buf;
}

/* "NAME NDIM D0 [D1 [D2]]" then a line of exactly len numbers. 0, or -1 with a message. */
static int parse_array(Cur *c, char *head, LabArray *a, char *err, size_t errlen)
{
    char name[32], tail;
    int nd = 0, d[LAB_MAX_DIMS] = {0, 0, 0}, line = c->line;
    int k = sscanf(head, "%31s %d %d %d %d %c", name, &nd, &d[0], &d[1], &d[2], &tail);
    if (k < 3 || nd < 1 || nd > LAB_MAX_DIMS || k != 2 + nd)
        return errf(err, errlen, "line %d: expected \"NAME NDIM DIMS...\" of an array (1 to %d "
                    "axes)", line, LAB_MAX_DIMS);
    for (int i = 0; i < nd; i++)
        if (d[i] < 0 || d[i] > LAB_MAX_DIM)
            return errf(err, errlen, "line %d: axis %d of %s has %d entries (0..%d allowed)",
                        line, i, name, d[i], LAB_MAX_DIM);
    size_t len = 1;
    for (int i = 0; i < nd; i++)
        len *= (size_t)d[i];
    if (len > LAB_MAX_VALUES)
        return errf(err, errlen, "line %d: %s has %zu numbers (at most %zu)", line, name, len,
                    LAB_MAX_VALUES);
    if (lab_array_alloc(a, name, nd, d[0], d[1], d[2]))
        return errf(err, errlen, "out of memory");
    char *vals = take_line(c);
    if (!vals)
        return errf(err, errlen, "line %d: the numbers of %s are missing", line + 1, name);
    char *p = vals;
    for (size_t i = 0; i < len; i++) {
        while (*p == ' ')
            p++;
        char *e;
        errno = 0;
        double x = strtod(p, &e);
        if (e == p || (*e && *e != ' '))
            return errf(err, errlen, "line %d: number %zu of %s is not a number", c->line,
                        i + 1, name);
        a->v[i] = x;
        p = e;
    }
    while (*p == ' ')
        p++;
    if (*p)
        return errf(err, errlen, "line %d: %s has more than the %zu numbers of its shape",
                    c->line, name, len);
    return 0;
}

/* "case I ok N" + N arrays, or "case I error TEXT". */
static int parse_case(Cur *c, char *head, LabResult *r, char *err, size_t errlen)
{
    int idx, n, used = 0, line = c->line;
    char word[8];
    if (sscanf(head, "case %d %7s %n", &idx, word, &used) != 2 || used == 0)
        return errf(err, errlen, "line %d: expected \"case I ok N\" or \"case I error TEXT\"",
                    line);
    if (idx != r->n_cases || idx >= LAB_MAX_CASES)
        return errf(err, errlen, "line %d: case %d out of order (expected case %d)", line, idx,
                    r->n_cases);
    LabGot *g = &r->got[r->n_cases++];
    if (!strcmp(word, "error")) {
        char buf[sizeof g->error];
        snprintf(buf, sizeof buf, "%s", head + used);
        for (char *q = buf; *q; q++)
            if (!isprint((unsigned char)*q) && !((unsigned char)*q & 0x80))
                *q = '?';
        snprintf(g->error, sizeof g->error, "%s", buf[0] ? buf : "(no message)");
        return 0;
    }
    char tail;
    if (strcmp(word, "ok") || sscanf(head + used, "%d %c", &n, &tail) != 1 || n < 1 ||
        n > LAB_MAX_OUTS)
        return errf(err, errlen, "line %d: expected \"case %d ok N\" with N from 1 to %d", line,
                    idx, LAB_MAX_OUTS);
    for (int i = 0; i < n; i++) {
        char *h = take_line(c);
        if (!h)
            return errf(err, errlen, "line %d: case %d ends before its array %d", c->line + 1,
                        idx, i + 1);
        g->n_outs = i + 1;
        if (parse_array(c, h, &g->outs[i], err, errlen))
            return -1;
    }
    g->ok = 1;
    return 0;
}

int lab_result_parse(const char *text, size_t len, LabResult *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    char *copy = malloc(len + 1), *h, buf[48];
    if (!copy)
        return errf(err, errlen, "out of memory");
    memcpy(copy, text, len);
    copy[len] = '\0';
    Cur c = {copy, copy + len, 0};
    int rc = -1, ended = 0;
    if (memchr(copy, '\0', len)) {
        errf(err, errlen, "the answer holds a NUL byte");
        goto done;
    }
    h = take_line(&c);
    if (!h || strcmp(h, "attend-lab-result 1")) {
        errf(err, errlen, "line 1: expected \"attend-lab-result 1\"%s%s%s", h ? ", not \"" : "",
             h ? excerpt(h, buf, sizeof buf) : "", h ? "\"" : " (no answer)");
        goto done;
    }
    while ((h = take_line(&c))) {
        if (ended) {
            errf(err, errlen, "line %d: text after \"end\"", c.line);
            goto done;
        }
        if (!strncmp(h, "case ", 5)) {
            if (parse_case(&c, h, r, err, errlen))
                goto done;
        } else if (!strncmp(h, "fatal ", 6)) {
            int used = 0;
            if (sscanf(h, "fatal %15s %n", r->fatal, &used) != 1 || !used) {
                errf(err, errlen, "line %d: expected \"fatal KIND TEXT\"", c.line);
                goto done;
            }
            snprintf(r->fatal_msg, sizeof r->fatal_msg, "%s", h + used);
        } else if (!strncmp(h, "mutated ", 8)) {
            LabGot *g = r->n_cases ? &r->got[r->n_cases - 1] : NULL;
            size_t k = 0;
            if (!g || !g->ok) {
                errf(err, errlen, "line %d: \"mutated\" without a case before it", c.line);
                goto done;
            }
            for (const char *q = h + 8; *q && k + 1 < sizeof g->mutated; q++)
                if (isalnum((unsigned char)*q) || *q == '_' || *q == ' ')
                    g->mutated[k++] = *q;
            g->mutated[k] = '\0';
        } else if (!strncmp(h, "torch ", 6)) {
            snprintf(r->torch, sizeof r->torch, "%s", h + 6);
        } else if (!strcmp(h, "end")) {
            ended = 1;
        } else {
            errf(err, errlen, "line %d: unexpected \"%s\"", c.line, excerpt(h, buf, sizeof buf));
            goto done;
        }
    }
    if (!ended && !r->fatal[0]) {
        errf(err, errlen, "the answer stops at line %d without \"end\"", c.line);
        goto done;
    }
    rc = 0;
done:
    free(copy);
    return rc;
}

void lab_result_free(LabResult *r)
{
    for (int i = 0; i < r->n_cases && i < LAB_MAX_CASES; i++)
        for (int k = 0; k < LAB_MAX_OUTS; k++)
            lab_array_free(&r->got[i].outs[k]);
    memset(r, 0, sizeof *r);
}
