/* lab.c - arrays, the cases' life cycle, and the input text the harness reads (format in
 * docs/labs.md). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errf.h"
#include "lab.h"

int lab_array_alloc(LabArray *a, const char *name, int ndim, int d0, int d1, int d2)
{
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->kind = LAB_ARRAY;
    a->ndim = ndim;
    int d[LAB_MAX_DIMS] = {d0, d1, d2};
    a->len = 1;
    for (int i = 0; i < ndim; i++) {
        a->dim[i] = d[i];
        a->len *= (size_t)d[i];
    }
    a->v = calloc(a->len ? a->len : 1, sizeof *a->v);
    return a->v ? 0 : -1;
}

void lab_array_free(LabArray *a)
{
    free(a->v);
    a->v = NULL;
    a->len = 0;
}

int lab_cases_make(const LabDef *d, LabCases *lc, char *err, size_t errlen)
{
    memset(lc, 0, sizeof *lc);
    lc->cases = calloc(LAB_MAX_CASES, sizeof *lc->cases);
    if (!lc->cases || d->make(lc)) {
        lab_cases_free(lc);
        return errf(err, errlen, "out of memory building the cases of lab %s", d->name);
    }
    return 0;
}

void lab_cases_free(LabCases *lc)
{
    for (int i = 0; lc->cases && i < LAB_MAX_CASES; i++) {
        for (int k = 0; k < LAB_MAX_ARGS; k++)
            lab_array_free(&lc->cases[i].args[k]);
        for (int k = 0; k < LAB_MAX_OUTS; k++)
            lab_array_free(&lc->cases[i].want[k]);
    }
    free(lc->cases);
    memset(lc, 0, sizeof *lc);
}

/* ---- the harness's input ---- */

typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} Buf;

static void put(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int k = b->oom ? 0 : vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (b->oom || k < 0)
            return;
        if ((size_t)k < room) {
            b->len += (size_t)k;
            return;
        }
        size_t cap = (b->cap + (size_t)k + 1) * 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
}

/* One number as the harness reads it: a float's value exactly, or inf, -inf, nan. */
static void put_num(Buf *b, double x)
{
    if (isnan(x))
        put(b, "nan");
    else if (isinf(x))
        put(b, x > 0 ? "inf" : "-inf");
    else
        put(b, "%.9g", x);
}

char *lab_input_text(const LabDef *d, const LabCases *lc, int torch, size_t *len)
{
    Buf b = {NULL, 0, 0, 0};
    put(&b, "attend-lab 1\nlab %s\ntorch %d\ncases %d\n", d->name, torch ? 1 : 0, lc->n_cases);
    for (int i = 0; i < lc->n_cases; i++) {
        const LabCase *c = &lc->cases[i];
        put(&b, "case %d %s %s %d %d\n", i, c->func, c->step ? "step" : "call", c->n_args,
            c->n_outs);
        for (int k = 0; k < c->n_args; k++) {
            const LabArray *a = &c->args[k];
            if (a->kind == LAB_INT) {
                put(&b, "arg %s int %ld\n", a->name, a->ival);
                continue;
            }
            if (a->kind == LAB_NONE) {
                put(&b, "arg %s none\n", a->name);
                continue;
            }
            put(&b, "arg %s array %d", a->name, a->ndim);
            for (int j = 0; j < a->ndim; j++)
                put(&b, " %d", a->dim[j]);
            put(&b, "\n");
            for (size_t j = 0; j < a->len; j++) {
                if (j)
                    put(&b, " ");
                put_num(&b, a->v[j]);
            }
            put(&b, "\n");
        }
    }
    put(&b, "end\n");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    *len = b.len;
    return b.s;
}
