/* lab_cases.c - the seeded cases of the softmax, attention, masks and KV-cache labs and their
 * values from the engine (model_sdpa, tensor_softmax_rows_to). The misconceptions are the
 * catalogue's (lab_catalogue.c), computed by lab_way.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_util.h"
#include "model.h"
#include "tensor.h"

int lab_attend(const float *q, const float *k, const float *v, const float *mask, int n, int m,
               int dk, int dv, float scale, float *out, float *w)
{
    size_t nn = (size_t)n * m;
    float *s = malloc(sizeof *s * (nn * 4 + 1));
    if (!s)
        return -1;
    model_sdpa(s, s + nn, s + 2 * nn, s + 3 * nn, out, q, k, v, mask, n, m, dk, dv, scale);
    if (w)
        memcpy(w, s + 3 * nn, sizeof *w * nn);
    free(s);
    return 0;
}

/* ---- softmax ---- */

static int softmax_case(LabCases *lc, LabRng *r, const char *label, int n, int m, double scale,
                        int neg_row, int neg_every)
{
    LabCase *c = &lc->cases[lc->n_cases++];
    snprintf(c->func, sizeof c->func, "softmax");
    snprintf(c->label, sizeof c->label, "%s", label);
    c->large = scale > 100;
    LabArray *x = lab_arg(c, "X", 2, n, m, 0), *o = lab_out(c, "out", 2, n, m, 0);
    if (!x || !o)
        return -1;
    lab_fill(x, r, scale);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            if (i == neg_row || (neg_every && (i + j) % neg_every == 0))
                x->v[(size_t)i * m + j] = -INFINITY;
    float *f = lab_floats(x);
    if (!f)
        return -1;
    tensor_softmax_rows_to(f, f, n, m);
    lab_from_floats(o, f);
    free(f);
    return 0;
}

int lab_make_softmax(LabCases *lc)
{
    LabRng r = {101};
    return softmax_case(lc, &r, "one entry: its weight is 1", 1, 1, 2, -1, 0) ||
           softmax_case(lc, &r, "3 rows of 4 scores", 3, 4, 3, -1, 0) ||
           softmax_case(lc, &r, "4 rows of 2 (more rows than columns)", 4, 2, 3, -1, 0) ||
           softmax_case(lc, &r, "−∞ entries: their weight is exactly 0", 2, 5, 3, -1, 3) ||
           softmax_case(lc, &r, "row 1 is −∞ everywhere: its weights are all 0 (the engine's "
                        "convention, never NaN)", 3, 3, 2, 1, 0) ||
           softmax_case(lc, &r, "scores near +-1000: e^x overflows unless each row's max is "
                        "subtracted first", 2, 4, 1000, -1, 0)
               ? -1
               : 0;
}


/* ---- attention ---- */

/* A mask (n×m) of 0 and −∞: causal (key j > query i hidden), or by a pattern. */
static void fill_mask(LabArray *mk, int causal, int full_row, int every)
{
    int n = mk->dim[0], m = mk->dim[1];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            int hide = causal ? j > i : i == full_row || (every && (i + 2 * j) % every == 0);
            mk->v[(size_t)i * m + j] = hide ? -INFINITY : 0.0;
        }
}

/* The case's four arguments as floats, for the engine. */
typedef struct {
    float *q, *k, *v, *mask;
    int n, m, dk, dv;
} Qkv;

static int qkv_get(const LabCase *c, Qkv *a)
{
    const LabArray *Q = lab_case_arg(c, "Q"), *K = lab_case_arg(c, "K"),
                   *V = lab_case_arg(c, "V"), *M = lab_case_arg(c, "mask");
    a->n = Q->dim[0];
    a->m = K->dim[0];
    a->dk = Q->dim[1];
    a->dv = V->dim[1];
    a->q = lab_floats(Q);
    a->k = lab_floats(K);
    a->v = lab_floats(V);
    a->mask = M && M->kind == LAB_ARRAY ? lab_floats(M) : NULL;
    return a->q && a->k && a->v && (!M || M->kind != LAB_ARRAY || a->mask) ? 0 : -1;
}

static void qkv_free(Qkv *a)
{
    free(a->q);
    free(a->k);
    free(a->v);
    free(a->mask);
}

/* outs (out, weights) of the way on c's arguments: 0, 1 (does not apply), -1. */
static int attention_way(const LabCase *c, LabArray *outs)
{
    Qkv a;
    int rc = qkv_get(c, &a) || lab_outs_like(c, outs) ? -1 : 0;
    float *o = malloc(sizeof *o * ((size_t)a.n * a.dv + 1)),
          *w = malloc(sizeof *w * ((size_t)a.n * a.m + 1));
    if (!rc && o && w) {
        rc = lab_attend(a.q, a.k, a.v, a.mask, a.n, a.m, a.dk, a.dv,
                        model_sdpa_scale(1, a.dk), o, w);
        if (!rc) {
            lab_from_floats(&outs[0], o);
            lab_from_floats(&outs[1], w);
        }
    } else {
        rc = -1;
    }
    free(o);
    free(w);
    qkv_free(&a);
    return rc;
}

static int attention_case(LabCases *lc, LabRng *r, const char *label, int n, int m, int dk,
                          int dv, int mask_kind, int large)
{
    LabCase *c = &lc->cases[lc->n_cases++];
    snprintf(c->func, sizeof c->func, "attention");
    snprintf(c->label, sizeof c->label, "%s", label);
    c->large = large;
    LabArray *q = lab_arg(c, "Q", 2, n, dk, 0), *k = lab_arg(c, "K", 2, m, dk, 0),
             *v = lab_arg(c, "V", 2, m, dv, 0);
    if (!q || !k || !v || !lab_out(c, "out", 2, n, dv, 0) || !lab_out(c, "weights", 2, n, m, 0))
        return -1;
    lab_fill(q, r, 1.5);
    lab_fill(k, r, 1.5);
    lab_fill(v, r, 1.0);
    if (large) /* positive and large: every score in the hundreds or thousands */
        for (size_t i = 0; i < q->len; i++) {
            q->v[i] = 20.0 + fabs(q->v[i]) * 10;
            k->v[i] = 20.0 + fabs(k->v[i]) * 10;
        }
    if (mask_kind) {
        LabArray *mk = lab_arg(c, "mask", 2, n, m, 0);
        if (!mk)
            return -1;
        fill_mask(mk, mask_kind == 1, mask_kind == 2 ? 1 : -1, mask_kind == 2 ? 3 : 0);
    } else {
        lab_arg_none(c, "mask");
    }
    LabArray tmp[LAB_MAX_OUTS];
    memset(tmp, 0, sizeof tmp);
    int rc = attention_way(c, tmp);
    for (int i = 0; i < c->n_outs; i++) {
        if (!rc)
            memcpy(c->want[i].v, tmp[i].v, sizeof *tmp[i].v * tmp[i].len);
        lab_array_free(&tmp[i]);
    }
    return rc;
}

int lab_make_attention(LabCases *lc)
{
    LabRng r = {202};
    return attention_case(lc, &r, "4 tokens, d_k = 8 (the lesson's exercise)", 4, 4, 8, 8, 0,
                          0) ||
           attention_case(lc, &r, "n = 3 queries, m = 5 keys, d_v = 2: n ≠ m", 3, 5, 4, 2, 0, 0) ||
           attention_case(lc, &r, "d_k = 1", 2, 3, 1, 3, 0, 0) ||
           attention_case(lc, &r, "a causal mask, n = m = d_k = 5", 5, 5, 5, 3, 1, 0) ||
           attention_case(lc, &r, "a mask that hides all of row 1: its weights and its output "
                          "are 0 (the engine's convention, never NaN)", 3, 4, 3, 2, 2, 0) ||
           attention_case(lc, &r, "scores in the thousands: a naive softmax overflows", 3, 3, 8,
                          2, 0, 1)
               ? -1
               : 0;
}


/* ---- masks ---- */

static int mask_case(LabCases *lc, LabRng *r, const char *func, const char *label, int n, int m,
                     int kind)
{
    LabCase *c = &lc->cases[lc->n_cases++];
    snprintf(c->func, sizeof c->func, "%s", func);
    snprintf(c->label, sizeof c->label, "%s", label);
    c->large = kind == 4;
    LabArray *o = lab_out(c, "out", 2, n, m, 0);
    if (!o)
        return -1;
    if (kind == 0) { /* causal_mask(n) */
        lab_arg_int(c, "n", n);
        fill_mask(o, 1, -1, 0);
        return 0;
    }
    if (kind == 1) { /* padding_mask(keep, n): keys from m-2 on are padding, and key 1 if m>4 */
        LabArray *keep = lab_arg(c, "keep", 1, m, 0, 0);
        if (!keep)
            return -1;
        for (int j = 0; j < m; j++)
            keep->v[j] = j < m - 2 && !(m == 4 && j == 1);
        lab_arg_int(c, "n", n);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++)
                o->v[(size_t)i * m + j] = keep->v[j] ? 0.0 : -INFINITY;
        return 0;
    }
    LabArray *s = lab_arg(c, "S", 2, n, m, 0), *mk = lab_arg(c, "M", 2, n, m, 0);
    if (!s || !mk)
        return -1;
    lab_fill(s, r, 3);
    for (size_t i = 0; kind == 4 && i < s->len; i++) /* every score past e^x's range */
        s->v[i] = 800.0 + fabs(s->v[i]) * 100.0;
    fill_mask(mk, kind >= 2 && kind != 3, kind == 3 ? 2 : -1, kind == 3 ? 4 : 0);
    float *f = lab_floats(s), *g = lab_floats(mk);
    if (f && g) {
        tensor_add(f, f, g, s->len); /* + M: where the mask is applied, then the softmax */
        tensor_softmax_rows_to(f, f, n, m);
        lab_from_floats(o, f);
    }
    free(g);
    free(f);
    return f && g ? 0 : -1;
}

int lab_make_masks(LabCases *lc)
{
    LabRng r = {303};
    return mask_case(lc, &r, "causal_mask", "causal_mask(1): one token reads itself", 1, 1, 0) ||
           mask_case(lc, &r, "causal_mask", "causal_mask(5)", 5, 5, 0) ||
           mask_case(lc, &r, "padding_mask", "padding_mask: 5 keys, the last 2 padding, 3 "
                     "queries", 3, 5, 1) ||
           mask_case(lc, &r, "padding_mask", "padding_mask: keys 1 and 2, 3 of 4 hidden, 2 "
                     "queries", 2, 4, 1) ||
           mask_case(lc, &r, "masked_softmax", "masked_softmax with a causal mask, 4 tokens", 4,
                     4, 2) ||
           mask_case(lc, &r, "masked_softmax", "masked_softmax where row 2 is hidden "
                     "everywhere: its weights are 0", 3, 5, 3) ||
           mask_case(lc, &r, "masked_softmax", "masked_softmax, causal, scores near +-1000: "
                     "e^x overflows unless each row's max is subtracted", 3, 3, 4)
               ? -1
               : 0;
}


/* ---- KV cache ---- */

/* outs[0] of decoding c: the engine's causal attention over the whole sequence. */
static int kv_way(const LabCase *c, LabArray *outs)
{
    Qkv a;
    a.mask = NULL;
    int rc = qkv_get(c, &a) || lab_outs_like(c, outs) ? -1 : 0;
    size_t nn = (size_t)a.n * a.n;
    float *mask = malloc(sizeof *mask * (nn + 1)), *o = malloc(sizeof *o * ((size_t)a.n * a.dv + 1));
    if (!rc && mask && o) {
        for (int i = 0; i < a.n; i++)
            for (int j = 0; j < a.n; j++)
                mask[(size_t)i * a.n + j] = j > i ? -INFINITY : 0.0f;
        rc = lab_attend(a.q, a.k, a.v, mask, a.n, a.n, a.dk, a.dv,
                        model_sdpa_scale(1, a.dk), o, NULL);
        if (!rc)
            lab_from_floats(&outs[0], o);
    } else {
        rc = -1;
    }
    free(mask);
    free(o);
    qkv_free(&a);
    return rc;
}

static int kv_case(LabCases *lc, LabRng *r, const char *label, int n, int dk, int dv, int large)
{
    LabCase *c = &lc->cases[lc->n_cases++];
    snprintf(c->func, sizeof c->func, "decode_step");
    snprintf(c->label, sizeof c->label, "%s", label);
    c->step = 1;
    c->large = large;
    LabArray *q = lab_arg(c, "Q", 2, n, dk, 0), *k = lab_arg(c, "K", 2, n, dk, 0),
             *v = lab_arg(c, "V", 2, n, dv, 0);
    if (!q || !k || !v || !lab_out(c, "out", 2, n, dv, 0))
        return -1;
    lab_fill(q, r, 1.5);
    lab_fill(k, r, 1.5);
    lab_fill(v, r, 1.0);
    for (size_t i = 0; large && i < q->len; i++) { /* every score in the thousands */
        q->v[i] = 20.0 + fabs(q->v[i]) * 10;
        k->v[i] = 20.0 + fabs(k->v[i]) * 10;
    }
    LabArray tmp[LAB_MAX_OUTS];
    memset(tmp, 0, sizeof tmp);
    int rc = kv_way(c, tmp);
    if (!rc)
        memcpy(c->want[0].v, tmp[0].v, sizeof *tmp[0].v * tmp[0].len);
    lab_array_free(&tmp[0]);
    return rc;
}

int lab_make_kvcache(LabCases *lc)
{
    LabRng r = {707};
    return kv_case(lc, &r, "one token", 1, 4, 3, 0) ||
           kv_case(lc, &r, "5 tokens, d_k = 8, d_v = 3", 5, 8, 3, 0) ||
           kv_case(lc, &r, "4 tokens, d_k = 1", 4, 1, 2, 0) ||
           kv_case(lc, &r, "6 tokens with large scores: a naive softmax overflows", 6, 8, 4, 1)
               ? -1
               : 0;
}

