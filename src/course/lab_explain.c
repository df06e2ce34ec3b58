/* lab_explain.c - the failing case shown so that the learner can reproduce it by hand: its
 * inputs (small matrices printed), the engine's and the learner's values row by row with the
 * wrong cells marked, and every input, expected and got array in a JSON file Python loads. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "errf.h"
#include "fileio.h"
#include "lab.h"

#define SHOWN_ROWS 8 /* a matrix printed has at most this many rows ... */
#define SHOWN_COLS 6 /* ... and columns; larger ones are in the file */

typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} Buf;

static void put(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0 || b->oom)
        return;
    if (b->len + (size_t)k + 1 > b->cap) {
        size_t cap = (b->len + (size_t)k + 1) * 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)k + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)k;
}

static void num(Buf *b, double x, int mark)
{
    if (isnan(x))
        put(b, " %8s%c", "nan", mark ? '*' : ' ');
    else if (isinf(x))
        put(b, " %8s%c", x < 0 ? "-inf" : "inf", mark ? '*' : ' ');
    else
        put(b, " %8.4g%c", x, mark ? '*' : ' ');
}

/* The slice of a that holds its cell `at` as rows × cols (a 1-D array is one row; a 3-D one
 * its matrix at the first index of the cell); *first is that slice's offset. */
static void slice(const LabArray *a, size_t at, int *rows, int *cols, size_t *first)
{
    *cols = a->dim[a->ndim - 1];
    *rows = a->ndim == 1 ? 1 : a->dim[a->ndim - 2];
    size_t per = (size_t)*rows * (size_t)*cols;
    *first = a->ndim == 3 && per ? at / per * per : 0;
}

/* An input printed when it is small: a name line, then its rows. */
static void input(Buf *b, const LabArray *a)
{
    if (a->kind == LAB_INT) {
        put(b, "  %s = %ld\n", a->name, a->ival);
        return;
    }
    if (a->kind == LAB_NONE) {
        put(b, "  %s = None\n", a->name);
        return;
    }
    int rows, cols;
    size_t first;
    slice(a, 0, &rows, &cols, &first);
    char shape[48];
    int k = snprintf(shape, sizeof shape, "(");
    for (int i = 0; i < a->ndim; i++)
        k += snprintf(shape + k, sizeof shape - (size_t)k, i ? ", %d" : "%d", a->dim[i]);
    snprintf(shape + k, sizeof shape - (size_t)k, a->ndim == 1 ? ",)" : ")");
    if (a->ndim == 3 || rows > SHOWN_ROWS || cols > SHOWN_COLS) {
        put(b, "  %s %s: in the file\n", a->name, shape);
        return;
    }
    put(b, "  %s %s\n", a->name, shape);
    for (int i = 0; i < rows; i++) {
        put(b, "   ");
        for (int j = 0; j < cols; j++)
            num(b, a->v[(size_t)i * cols + j], 0);
        put(b, "\n");
    }
}

char *lab_case_text(const LabCheck *c, const char *json_path)
{
    const LabVerdict *v = &c->verdict;
    if (!c->ran || v->pass || v->wrong_case < 0 || v->wrong_case >= c->cases.n_cases)
        return NULL;
    const LabCase *cs = &c->cases.cases[v->wrong_case];
    const LabGot *g = v->wrong_case < c->result.n_cases ? &c->result.got[v->wrong_case] : NULL;
    Buf b = {NULL, 0, 0, 0};
    put(&b, "The failing case, case %d: %s(", v->wrong_case + 1, cs->func);
    for (int i = 0; i < cs->n_args; i++)
        put(&b, "%s%s", i ? ", " : "", cs->args[i].name);
    put(&b, ")%s\n", cs->step ? ", one row of each per call" : "");
    for (int i = 0; i < cs->n_args; i++)
        input(&b, &cs->args[i]);
    int k = v->wrong_out;
    if (g && g->ok && k >= 0 && k < g->n_outs && k < cs->n_outs &&
        g->outs[k].len == cs->want[k].len && g->outs[k].ndim == cs->want[k].ndim) {
        const LabArray *w = &cs->want[k], *o = &g->outs[k];
        size_t at = 0;
        for (size_t i = 0; i < w->len; i++)
            if (!lab_close(w->v[i], o->v[i])) {
                at = i;
                break;
            }
        int rows, cols;
        size_t first;
        slice(w, at, &rows, &cols, &first);
        int r0 = 0, shown = rows < SHOWN_ROWS ? rows : SHOWN_ROWS;
        int wrong_row = (int)((at - first) / (size_t)(cols ? cols : 1));
        if (wrong_row >= shown) /* keep the first wrong row in sight */
            r0 = wrong_row - shown + 1;
        int nc = cols < SHOWN_COLS ? cols : SHOWN_COLS;
        put(&b, "%s", w->name);
        if (w->ndim == 3)
            put(&b, "[%zu]", first / ((size_t)rows * cols));
        put(&b, ", the engine's against yours (* a wrong cell)%s:\n",
            rows > shown || cols > nc ? ", the part that holds the first wrong cell" : "");
        for (int i = r0; i < r0 + shown; i++) {
            put(&b, "  row %-2d engine", i);
            for (int j = 0; j < nc; j++)
                num(&b, w->v[first + (size_t)i * cols + j], 0);
            put(&b, "\n         yours ");
            for (int j = 0; j < nc; j++) {
                size_t x = first + (size_t)i * cols + j;
                num(&b, o->v[x], !lab_close(w->v[x], o->v[x]));
            }
            put(&b, "\n");
        }
    }
    if (json_path)
        put(&b, "Every input, expected and got array of case %d: %s\n  in Python: import json, "
                "numpy as np; case = {k: np.array(v) for k, v in json.load(open(\"%s\"))"
                ".items()}\n", v->wrong_case + 1, json_path, json_path);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

static void json_array(Buf *b, const char *key, const LabArray *a)
{
    put(b, "  \"%s\": ", key);
    if (a->kind == LAB_INT) {
        put(b, "%ld", a->ival);
        return;
    }
    if (a->kind == LAB_NONE) {
        put(b, "null");
        return;
    }
    /* nested lists, row-major: [[..], ..]; -Infinity, Infinity and NaN as Python reads them */
    size_t idx = 0;
    int depth = a->ndim;
    int cnt[LAB_MAX_DIMS] = {0, 0, 0};
    for (int i = 0; i < depth; i++)
        put(b, "[");
    while (idx < a->len) {
        double x = a->v[idx++];
        if (isnan(x))
            put(b, "NaN");
        else if (isinf(x))
            put(b, x < 0 ? "-Infinity" : "Infinity");
        else
            put(b, "%.9g", x);
        int lvl = depth - 1;
        cnt[lvl]++;
        while (lvl >= 0 && cnt[lvl] == a->dim[lvl]) {
            put(b, "]");
            cnt[lvl] = 0;
            if (--lvl >= 0)
                cnt[lvl]++;
        }
        if (idx < a->len) {
            put(b, ", ");
            for (int l = lvl + 1; l < depth; l++)
                put(b, "[");
        }
    }
    if (!a->len)
        for (int i = 0; i < depth; i++)
            put(b, "]");
}

int lab_case_write(const char *path, const LabCheck *c, char *err, size_t errlen)
{
    const LabVerdict *v = &c->verdict;
    if (!c->ran || v->pass || v->wrong_case < 0 || v->wrong_case >= c->cases.n_cases)
        return errf(err, errlen, "no failing case");
    const LabCase *cs = &c->cases.cases[v->wrong_case];
    const LabGot *g = v->wrong_case < c->result.n_cases ? &c->result.got[v->wrong_case] : NULL;
    Buf b = {NULL, 0, 0, 0};
    char key[48];
    put(&b, "{\n");
    for (int i = 0; i < cs->n_args; i++) {
        json_array(&b, cs->args[i].name, &cs->args[i]);
        put(&b, ",\n");
    }
    for (int k = 0; k < cs->n_outs; k++) {
        snprintf(key, sizeof key, "expected_%s", cs->want[k].name);
        json_array(&b, key, &cs->want[k]);
        put(&b, k + 1 < cs->n_outs || (g && g->ok) ? ",\n" : "\n");
    }
    for (int k = 0; g && g->ok && k < g->n_outs; k++) {
        snprintf(key, sizeof key, "got_%s", g->outs[k].name);
        json_array(&b, key, &g->outs[k]);
        put(&b, k + 1 < g->n_outs ? ",\n" : "\n");
    }
    put(&b, "}\n");
    if (b.oom) {
        free(b.s);
        return errf(err, errlen, "out of memory");
    }
    int rc = fileio_write_file(path, 0600, b.s, b.len, err, errlen);
    free(b.s);
    return rc;
}
