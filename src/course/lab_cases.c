/* lab_cases.c - the seeded cases of the softmax, attention, masks and KV-cache labs, their
 * values from the engine (model_sdpa, tensor_softmax_rows_to), and the engine run the wrong
 * way for each misconception those labs recognise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_util.h"
#include "model.h"
#include "tensor.h"

/* (r×c) → (c×r) */
static void transpose(float *out, const float *x, int r, int c)
{
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++)
            out[(size_t)j * r + i] = x[(size_t)i * c + j];
}

/* The scores of the chosen way into s (n×m): Q·Kᵀ, K·Qᵀ, or Q·K. */
static void scores_of(int way, float *s, float *tmp, const float *q, const float *k, int n,
                      int m, int dk)
{
    if (way & LW_SWAP) {
        tensor_matmul_bt(tmp, k, q, m, dk, n); /* K·Qᵀ: (m×n), read as (n×m) since n = m */
        memcpy(s, tmp, sizeof *s * (size_t)n * m);
    } else if (way & LW_K_NOT_T) {
        tensor_matmul(s, q, k, n, dk, m); /* K's (m×d_k) memory read as (d_k×m): d_k = m */
    } else {
        tensor_matmul_bt(s, q, k, n, dk, m);
    }
}

int lab_attend(int way, const float *q, const float *k, const float *v, const float *mask,
               int n, int m, int dk, int dv, float scale, float *out, float *w)
{
    if (((way & LW_SWAP) && n != m) || ((way & LW_K_NOT_T) && dk != m))
        return 1;
    size_t nn = (size_t)n * m;
    float *s = malloc(sizeof *s * (nn * 5 + 1));
    if (!s)
        return -1;
    float *wts = s + 3 * nn, *tmp = s + 4 * nn;
    if (!way) { /* the engine's own function */
        model_sdpa(s, s + nn, s + 2 * nn, wts, out, q, k, v, mask, n, m, dk, dv, scale);
        if (w)
            memcpy(w, wts, sizeof *w * nn);
        free(s);
        return 0;
    }
    scores_of(way, s, tmp, q, k, n, m, dk);
    if (!(way & LW_NO_SCALE))
        tensor_scale(s, scale, nn);
    int before = mask && !(way & (LW_NO_MASK | LW_MASK_AFTER | LW_MASK_AFTER_ZERO));
    for (size_t i = 0; before && i < nn; i++)
        s[i] = (way & LW_MASK_ZERO) && mask[i] == -INFINITY ? 0.0f : s[i] + mask[i];
    if (way & LW_COLS) {
        transpose(tmp, s, n, m);
        tensor_softmax_rows(tmp, m, n);
        transpose(wts, tmp, m, n);
    } else {
        tensor_softmax_rows_to(wts, s, n, m);
    }
    for (size_t i = 0; mask && i < nn; i++) {
        if (way & LW_MASK_AFTER)
            wts[i] += mask[i];
        else if ((way & LW_MASK_AFTER_ZERO) && mask[i] == -INFINITY)
            wts[i] = 0.0f;
    }
    if (out)
        tensor_matmul(out, wts, v, n, m, dv);
    if (w)
        memcpy(w, wts, sizeof *w * nn);
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

static int softmax_cols(const LabCase *c, LabArray *outs)
{
    const LabArray *x = lab_case_arg(c, "X");
    float *f = lab_floats(x), *t = malloc(sizeof *t * (x->len + 1));
    int rc = f && t && !lab_outs_like(c, outs) ? 0 : -1;
    if (!rc) {
        transpose(t, f, x->dim[0], x->dim[1]);
        tensor_softmax_rows(t, x->dim[1], x->dim[0]);
        transpose(f, t, x->dim[1], x->dim[0]);
        lab_from_floats(&outs[0], f);
    }
    free(f);
    free(t);
    return rc;
}

/* e^x / Σe^x in double without subtracting the max, as numpy computes it. */
static int softmax_naive(const LabCase *c, LabArray *outs)
{
    const LabArray *x = lab_case_arg(c, "X");
    if (lab_outs_like(c, outs))
        return -1;
    int n = x->dim[0], m = x->dim[1];
    for (int i = 0; i < n; i++) {
        double sum = 0;
        for (int j = 0; j < m; j++)
            sum += exp(x->v[(size_t)i * m + j]);
        for (int j = 0; j < m; j++)
            outs[0].v[(size_t)i * m + j] = exp(x->v[(size_t)i * m + j]) / sum;
    }
    return 0;
}

const LabMistake LAB_MISTAKES_SOFTMAX[] = {
    {"softmax-axis", "The softmax ran down the columns instead of along each row: every query's "
     "row must be a budget that sums to 1 (use axis=-1).", "softmax-weighted-sum", softmax_cols},
    {"no-max-shift", "e^x overflowed: subtract each row's max before the exponential. "
     "softmax(x − c) = softmax(x), so the weights do not change, but e^1000 is infinite.",
     "scaling", softmax_naive},
    {NULL, NULL, NULL, NULL},
};

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
static int attention_way(int way, const LabCase *c, LabArray *outs)
{
    Qkv a;
    int rc = qkv_get(c, &a) || lab_outs_like(c, outs) ? -1 : 0;
    float *o = malloc(sizeof *o * ((size_t)a.n * a.dv + 1)),
          *w = malloc(sizeof *w * ((size_t)a.n * a.m + 1));
    if (!rc && o && w) {
        rc = lab_attend(way, a.q, a.k, a.v, a.mask, a.n, a.m, a.dk, a.dv,
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
    int rc = attention_way(0, c, tmp);
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

#define WAY(fn, way)                                                                         \
    static int fn(const LabCase *c, LabArray *outs) { return attention_way(way, c, outs); }
WAY(att_no_scale, LW_NO_SCALE)
WAY(att_cols, LW_COLS)
WAY(att_after, LW_MASK_AFTER)
WAY(att_after_zero, LW_MASK_AFTER_ZERO)
WAY(att_zero, LW_MASK_ZERO)
WAY(att_swap, LW_SWAP)
WAY(att_k_not_t, LW_K_NOT_T)
WAY(att_no_mask, LW_NO_MASK)

#define W_AFTER "The mask was applied after the softmax: it must be added to the scaled "    \
    "scores before it, so that −∞ becomes a weight of exactly 0 and the row still sums to 1."
#define W_SWAP "Q and K traded places (or K was not transposed): the scores are Q·Kᵀ, row i " \
    "of Q against every row of K, an n×m matrix. K·Qᵀ is its transpose, and Q·K a different " \
    "product altogether."
const LabMistake LAB_MISTAKES_ATTENTION[] = {
    {"no-scale", "The scores were not divided by √d_k: with d_k = 8 they are √8 ≈ 2.8 times "
     "too large and the softmax comes out too peaked.", "scaling", att_no_scale},
    {"softmax-axis", "The softmax ran over the wrong axis (down the columns): each query's row "
     "of weights must sum to 1 (axis=-1).", "softmax-weighted-sum", att_cols},
    {"mask-after", W_AFTER, "causal-mask", att_after},
    {"mask-after", W_AFTER, "causal-mask", att_after_zero},
    {"mask-zero", "Hidden keys got a score of 0 instead of −∞: e^0 = 1, so they still take "
     "weight. The mask is −∞ where a query may not look.", "causal-mask", att_zero},
    {"q-k-swapped", W_SWAP, "dot-product-scores", att_swap},
    {"q-k-swapped", W_SWAP, "dot-product-scores", att_k_not_t},
    {"mask-ignored", "The mask was never added: the hidden keys still take weight.",
     "causal-mask", att_no_mask},
    {NULL, NULL, NULL, NULL},
};

/* ---- masks ---- */

static int mask_case(LabCases *lc, LabRng *r, const char *func, const char *label, int n, int m,
                     int kind)
{
    LabCase *c = &lc->cases[lc->n_cases++];
    snprintf(c->func, sizeof c->func, "%s", func);
    snprintf(c->label, sizeof c->label, "%s", label);
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
    fill_mask(mk, kind == 2, kind == 3 ? 2 : -1, kind == 3 ? 4 : 0);
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
                     "everywhere: its weights are 0", 3, 5, 3)
               ? -1
               : 0;
}

/* The masks the wrong way: which = 0 past hidden (lower triangle), 1 the diagonal hidden too,
 * 2 a keep-mask (1 where allowed, 0 where hidden), 3 all zeros (0 instead of −∞); and
 * masked_softmax with the hidden scores set to 0 (3) or the mask after the softmax (4). */
static int mask_way(int which, const LabCase *c, LabArray *outs)
{
    const LabArray *w = &c->want[0];
    int n = w->dim[0], m = w->dim[1];
    int builder = strcmp(c->func, "masked_softmax") != 0;
    if (builder ? which == 4 : which < 3)
        return 1;
    if (!strcmp(c->func, "padding_mask") && which < 2)
        return 1;
    if (lab_outs_like(c, outs))
        return -1;
    double *o = outs[0].v;
    if (builder) {
        for (size_t i = 0; i < w->len; i++) {
            int r = (int)(i / (size_t)m), col = (int)(i % (size_t)m), hidden = w->v[i] != 0.0;
            if (which == 0)
                o[i] = col < r ? -INFINITY : 0.0;
            else if (which == 1)
                o[i] = col >= r ? -INFINITY : 0.0;
            else
                o[i] = which == 2 ? !hidden : 0.0;
        }
        return 0;
    }
    LabArray *s = (LabArray *)lab_case_arg(c, "S"), *mk = (LabArray *)lab_case_arg(c, "M");
    float *f = lab_floats(s), *g = lab_floats(mk);
    if (f && g) {
        if (which == 3)
            for (size_t i = 0; i < s->len; i++)
                f[i] = g[i] == -INFINITY ? 0.0f : f[i] + g[i];
        tensor_softmax_rows_to(f, f, n, m);
        if (which == 4)
            tensor_add(f, f, g, s->len);
        lab_from_floats(&outs[0], f);
    }
    free(f);
    free(g);
    return f && g ? 0 : -1;
}

static int mask_lower(const LabCase *c, LabArray *o) { return mask_way(0, c, o); }
static int mask_diag(const LabCase *c, LabArray *o) { return mask_way(1, c, o); }
static int mask_keep(const LabCase *c, LabArray *o) { return mask_way(2, c, o); }
static int mask_zero(const LabCase *c, LabArray *o) { return mask_way(3, c, o); }
static int mask_after(const LabCase *c, LabArray *o) { return mask_way(4, c, o); }

#define W_ZERO "The mask held 0 where the lesson's holds −∞: a hidden key's score must be " \
    "−∞ so that e^(−∞) = 0 gives it no weight; 0 leaves it readable."
const LabMistake LAB_MISTAKES_MASKS[] = {
    {"causal-lower", "The mask hides the past instead of the future: key j is hidden from "
     "query i when j > i (above the diagonal), so a token reads itself and what came before.",
     "causal-mask", mask_lower},
    {"causal-diagonal", "The diagonal is hidden too: a token may read itself (j = i); only "
     "keys after it (j > i) are −∞.", "causal-mask", mask_diag},
    {"keep-mask", "This is a keep-mask (1 = read, 0 = hidden), which is multiplied; attend's "
     "mask is added to the scores: 0 where a key may be read, −∞ where it may not.",
     "padding-mask", mask_keep},
    {"mask-zero", W_ZERO, "causal-mask", mask_zero},
    {"mask-after", W_AFTER, "causal-mask", mask_after},
    {NULL, NULL, NULL, NULL},
};

/* ---- KV cache ---- */

/* outs[0] of decoding c the way: 0 the engine's causal attention, 1 no √d_k, 2 each query
 * before its own key was appended (it reads the keys before it), 3 no cache (itself only). */
static int kv_way(int which, const LabCase *c, LabArray *outs)
{
    Qkv a;
    a.mask = NULL;
    int rc = qkv_get(c, &a) || lab_outs_like(c, outs) ? -1 : 0;
    size_t nn = (size_t)a.n * a.n;
    float *mask = malloc(sizeof *mask * (nn + 1)), *o = malloc(sizeof *o * ((size_t)a.n * a.dv + 1));
    if (!rc && mask && o) {
        for (int i = 0; i < a.n; i++)
            for (int j = 0; j < a.n; j++)
                mask[(size_t)i * a.n + j] =
                    (which == 2 ? j >= i : which == 3 ? j != i : j > i) ? -INFINITY : 0.0f;
        rc = lab_attend(which == 1 ? LW_NO_SCALE : 0, a.q, a.k, a.v, mask, a.n, a.n, a.dk, a.dv,
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
    lab_fill(q, r, large ? 30 : 1.5);
    lab_fill(k, r, large ? 30 : 1.5);
    lab_fill(v, r, 1.0);
    LabArray tmp[LAB_MAX_OUTS];
    memset(tmp, 0, sizeof tmp);
    int rc = kv_way(0, c, tmp);
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

static int kv_no_scale(const LabCase *c, LabArray *o) { return kv_way(1, c, o); }
static int kv_before(const LabCase *c, LabArray *o) { return kv_way(2, c, o); }
static int kv_self(const LabCase *c, LabArray *o) { return kv_way(3, c, o); }

const LabMistake LAB_MISTAKES_KVCACHE[] = {
    {"no-scale", "The scores were not divided by √d_k, as the full recompute divides them.",
     "scaling", kv_no_scale},
    {"append-after", "Each query attended before its own key and value were appended: with "
     "the cache, token t reads keys 0..t, itself included, exactly as the causal mask allows.",
     "kv-cache", kv_before},
    {"no-cache", "Nothing was kept between steps: each token read only itself. The cache holds "
     "every earlier key and value so that they are not recomputed.", "kv-cache", kv_self},
    {NULL, NULL, NULL, NULL},
};
