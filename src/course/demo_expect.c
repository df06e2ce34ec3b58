/* demo_expect.c - a plan step's "expect" (demo.h): the state the step declares it leaves,
 * loaded with every field's line:col, every problem of the object at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "json.h"
#include "model.h"
#include "names.h"

static const struct {
    const char *name;
    int kind; /* 0 a bool, 1 a whole number, 2 a number */
} SCALARS[DX__COUNT] = {
#define DEMO_X_ROW(id, nm, k) [id] = {nm, k},
    DEMO_EXPECT_SCALARS(DEMO_X_ROW)
#undef DEMO_X_ROW
};

#define FIELDS "page, mask, pe, layer, head, sentence, order, knocked_out, scores, all_heads, " \
               "scale, step, d_k, n, tied, gqa, sample, temp, seed, focus"

const char *demo_expect_name(int i, int *kind)
{
    if (kind)
        *kind = SCALARS[i].kind;
    return SCALARS[i].name;
}

/* Where key's value stands inside the step's "expect" object (text from the step's offset
 * off; the step's own line:col when it cannot be found). */
static void expect_pos(const char *text, size_t off, const char *key, DemoField *f, int line,
                       int col)
{
    char pat[40];
    f->line = line, f->col = col;
    if (!text)
        return;
    const char *e = strstr(text + off, "\"expect\"");
    const char *end = e ? strchr(e, '}') : NULL;
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *k = e ? strstr(e, pat) : NULL;
    if (e && (!key[0] || (k && k < end)))
        json_line_col(text, (size_t)((key[0] ? k : e) - text), &f->line, &f->col);
}

/* The messages of one "expect" object: each at its field's place. */
typedef struct {
    const char *path;
    int step_no;
    char *err;
    size_t n;
    int bad;
} Msgs;

static void problem(Msgs *m, const DemoField *f, const char *field, const char *fmt,
                    const char *a)
{
    size_t l = strlen(m->err);
    m->bad++;
    if (l + 2 >= m->n)
        return;
    l += (size_t)snprintf(m->err + l, m->n - l, "%s%s:%d:%d: step %d: expect.%s: ", l ? "\n" : "",
                          m->path, f->line, f->col, m->step_no, field);
    if (l < m->n)
        snprintf(m->err + l, m->n - l, fmt, a);
}

/* The field's field of e as a string in out; 0, or -1 (said) when it is not one. */
static int get_str(Msgs *m, const cJSON *e, const DemoField *f, const char *key, char *out,
                   size_t n)
{
    const cJSON *v = json_get(e, key);
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= n) {
        char what[60];
        snprintf(what, sizeof what, "must be a string of at most %zu bytes%%s", n - 1);
        problem(m, f, key, what, "");
        return -1;
    }
    snprintf(out, n, "%s", v->valuestring);
    return 0;
}

static void load_page(Msgs *m, DemoExpect *x, const cJSON *e)
{
    char str[256];
    if (!x->page.set || get_str(m, e, &x->page, "page", str, sizeof str))
        return;
    char *colon = strrchr(str, ':'), *endp = NULL;
    long pg = colon ? strtol(colon + 1, &endp, 10) : 0;
    if (!colon || colon == str || !endp || *endp || pg < 1 || pg > 10000 ||
        (size_t)(colon - str) >= sizeof x->lesson) {
        problem(m, &x->page, "page", "\"%s\" is not LESSON-ID:PAGE (causal-mask:2)", str);
        return;
    }
    snprintf(x->lesson, sizeof x->lesson, "%.*s", (int)(colon - str), str);
    x->page_no = (int)pg;
}

static void load_mask_pe(Msgs *m, DemoExpect *x, const cJSON *e)
{
    char str[256], names[200];
    if (x->mask.set && !get_str(m, e, &x->mask, "mask", str, sizeof str) &&
        names_mask_parse(str, &x->causal, &x->padding)) {
        snprintf(names, sizeof names, "\"%%s\" is not a mask (%s, %s, %s, %s)", names_mask(0, 0),
                 names_mask(1, 0), names_mask(0, 1), names_mask(1, 1));
        problem(m, &x->mask, "mask", names, str);
    }
    if (x->pe.set && !get_str(m, e, &x->pe, "pe", str, sizeof str) &&
        (x->pe_kind = model_pe_parse(str)) < 0)
        problem(m, &x->pe, "pe", "\"%s\" is not a positional encoding (none, sinusoidal, "
                "learned, rope)", str);
}

/* A whole number in lo..hi; 0, or -1 (said). */
static int get_int(Msgs *m, const cJSON *v, const DemoField *f, const char *field, long lo,
                   long hi, long *out)
{
    char range[80];
    if (!cJSON_IsNumber(v) || v->valuedouble != (double)(long)v->valuedouble ||
        v->valuedouble < (double)lo || v->valuedouble > (double)hi) {
        snprintf(range, sizeof range, "%ld..%ld", lo, hi);
        problem(m, f, field, "must be a whole number %s", range);
        return -1;
    }
    *out = (long)v->valuedouble;
    return 0;
}

static void load_ints(Msgs *m, DemoExpect *x, const cJSON *e)
{
    long v;
    if (x->layer.set && !get_int(m, json_get(e, "layer"), &x->layer, "layer", 0, 1000, &v))
        x->layer_no = (int)v;
    if (x->head.set && !get_int(m, json_get(e, "head"), &x->head, "head", 0, 1000, &v))
        x->head_no = (int)v;
    if (x->order.set) {
        const cJSON *a = json_get(e, "order");
        int n = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : -1;
        if (n < 1 || n > DEMO_MAX_ORDER) {
            problem(m, &x->order, "order", "must be a list of the tokens' positions, as r and "
                    "swaps leave them ([1, 0, 2]: the first two swapped)%s", "");
            return;
        }
        int seen[DEMO_MAX_ORDER] = {0};
        x->n_order = 0;
        for (const cJSON *c = a->child; c; c = c->next) {
            if (get_int(m, c, &x->order, "order", 0, n - 1, &v))
                return;
            if (seen[v]++) {
                problem(m, &x->order, "order", "names a position twice: each of 0..n-1 once%s",
                        "");
                return;
            }
            x->order_v[x->n_order++] = (int)v;
        }
    }
    if (x->knocked.set) {
        const cJSON *a = json_get(e, "knocked_out");
        if (!cJSON_IsArray(a)) {
            problem(m, &x->knocked, "knocked_out", "must be a list of [layer, head] pairs "
                    "([[0, 1]]; [] none)%s", "");
            return;
        }
        for (const cJSON *c = a->child; c; c = c->next) {
            long l, h;
            if (!cJSON_IsArray(c) || cJSON_GetArraySize(c) != 2) {
                problem(m, &x->knocked, "knocked_out", "each is a [layer, head] pair%s", "");
                return;
            }
            if (get_int(m, c->child, &x->knocked, "knocked_out", 0, ATTEND_MAX_LAYERS - 1, &l) ||
                get_int(m, c->child->next, &x->knocked, "knocked_out", 0, 63, &h))
                return;
            x->knocked_v[l] |= 1ull << h;
        }
    }
}

static void load_scalars(Msgs *m, DemoExpect *x, const cJSON *e)
{
    for (int i = 0; i < DX__COUNT; i++) {
        if (!x->sc[i].set)
            continue;
        const cJSON *v = json_get(e, SCALARS[i].name);
        long iv;
        if (SCALARS[i].kind == 0) {
            if (!cJSON_IsBool(v))
                problem(m, &x->sc[i], SCALARS[i].name, "must be true or false%s", "");
            else
                x->sc_v[i] = cJSON_IsTrue(v);
        } else if (SCALARS[i].kind == 1) {
            if (!get_int(m, v, &x->sc[i], SCALARS[i].name, 0, 2147483647L, &iv))
                x->sc_v[i] = (double)iv;
        } else if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 1e6)) {
            problem(m, &x->sc[i], SCALARS[i].name, "must be a number from 0%s", "");
        } else {
            x->sc_v[i] = v->valuedouble;
        }
    }
}

int demo_expect_load(DemoStep *s, const void *obj, const char *text, size_t off,
                     const char *path, int step_no, char *err, size_t errlen)
{
    const cJSON *e = json_get(obj, "expect");
    DemoExpect *x = &s->expect;
    Msgs m = {path, step_no, err, errlen, 0};
    if (!e)
        return 0;
    err[0] = '\0';
    DemoField at;
    expect_pos(text, off, "", &at, s->line, s->col);
    if (!cJSON_IsObject(e) || !e->child) {
        snprintf(err, errlen, "%s:%d:%d: step %d: \"expect\" is an object of " FIELDS, path,
                 at.line, at.col, step_no);
        return -1;
    }
    x->on = 1;
    for (const cJSON *c = e->child; c; c = c->next) {
        DemoField *f = !strcmp(c->string, "page") ? &x->page : !strcmp(c->string, "mask") ? &x->mask
                     : !strcmp(c->string, "pe") ? &x->pe : !strcmp(c->string, "layer") ? &x->layer
                     : !strcmp(c->string, "head") ? &x->head
                     : !strcmp(c->string, "sentence") ? &x->sentence
                     : !strcmp(c->string, "order") ? &x->order
                     : !strcmp(c->string, "knocked_out") ? &x->knocked : NULL;
        for (int i = 0; !f && i < DX__COUNT; i++)
            if (!strcmp(c->string, SCALARS[i].name))
                f = &x->sc[i];
        if (!f) {
            DemoField here;
            expect_pos(text, off, c->string, &here, at.line, at.col);
            problem(&m, &here, c->string, "unknown field (" FIELDS ")%s", "");
            continue;
        }
        f->set = 1;
        expect_pos(text, off, c->string, f, s->line, s->col);
    }
    load_page(&m, x, e);
    load_mask_pe(&m, x, e);
    load_ints(&m, x, e);
    load_scalars(&m, x, e);
    if (x->sentence.set)
        get_str(&m, e, &x->sentence, "sentence", x->sentence_text, sizeof x->sentence_text);
    return m.bad ? -1 : 0;
}
