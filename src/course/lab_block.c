/* lab_block.c - the seeded cases of the multi-head, block and positions labs, their values
 * from the engine (model_sdpa per head, tensor_rmsnorm, SwiGLU with tensor_silu1,
 * model_sinusoid), and the engine run the wrong way for each misconception they recognise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_util.h"
#include "model.h"
#include "tensor.h"

/* Ways of running the heads and the block (bits). */
enum {
    HW_RESHAPE = 1,    /* split by X.reshape(h, n, d_h), merge by H.reshape(n, h·d_h) */
    HW_INTERLEAVE = 2, /* head i takes columns i, i+h, i+2h, …: merged back the same way */
    HW_SCALE_D = 4,    /* scaled by √d_model instead of √d_h */
    BW_LAYERNORM = 8,  /* LayerNorm (gain, no bias) where RMSNorm was asked */
    BW_NO_RES1 = 16,   /* no residual around attention */
    BW_NO_RES2 = 32,   /* no residual around the FFN */
    BW_POSTNORM = 64,  /* x = norm(x + f(x)) instead of x + f(norm(x)) */
};

/* X (n, d) split into H (h, n, d_h) the way. */
static void split(int way, float *H, const float *X, int n, int d, int h)
{
    int dh = d / h;
    for (int i = 0; i < h; i++)
        for (int t = 0; t < n; t++)
            for (int c = 0; c < dh; c++) {
                size_t at = ((size_t)i * n + t) * dh + c;
                if (way & HW_RESHAPE)
                    H[at] = X[at]; /* the memory of X read as (h, n, d_h) */
                else if (way & HW_INTERLEAVE)
                    H[at] = X[(size_t)t * d + (size_t)c * h + i];
                else
                    H[at] = X[(size_t)t * d + (size_t)i * dh + c];
            }
}

/* H (h, n, d_h) merged into X (n, h·d_h): the inverse of split the same way. */
static void merge(int way, float *X, const float *H, int n, int d, int h)
{
    int dh = d / h;
    for (int i = 0; i < h; i++)
        for (int t = 0; t < n; t++)
            for (int c = 0; c < dh; c++) {
                size_t at = ((size_t)i * n + t) * dh + c;
                if (way & HW_RESHAPE)
                    X[at] = H[at];
                else if (way & HW_INTERLEAVE)
                    X[(size_t)t * d + (size_t)c * h + i] = H[at];
                else
                    X[(size_t)t * d + (size_t)i * dh + c] = H[at];
            }
}

/* Multi-head self-attention, no mask: out (n, d) = merge(attn per head of split(X·W)) · W_o.
 * tmp holds 7·n·d + n·n floats. */
static void mha(int way, float *out, const float *X, const float *wq, const float *wk,
                const float *wv, const float *wo, int n, int d, int h, float *tmp)
{
    size_t nd = (size_t)n * d;
    float *q = tmp, *k = q + nd, *v = k + nd, *hq = v + nd, *hk = hq + nd, *hv = hk + nd,
          *ho = hv + nd, *w = ho + nd;
    int dh = d / h;
    tensor_matmul(q, X, wq, n, d, d);
    tensor_matmul(k, X, wk, n, d, d);
    tensor_matmul(v, X, wv, n, d, d);
    split(way, hq, q, n, d, h);
    split(way, hk, k, n, d, h);
    split(way, hv, v, n, d, h);
    float scale = model_sdpa_scale(1, (way & HW_SCALE_D) ? d : dh);
    for (int i = 0; i < h; i++) {
        size_t o = (size_t)i * n * dh;
        lab_attend(hq + o, hk + o, hv + o, NULL, n, n, dh, dh, scale, q + o, w);
    }
    merge(way, ho, q, n, d, h);
    tensor_matmul(out, ho, wo, n, d, d);
}

/* ---- multi-head ---- */

static int mh_way(int way, const LabCase *c, LabArray *outs)
{
    const LabArray *w = &c->want[0];
    if (lab_outs_like(c, outs))
        return -1;
    const LabArray *X = lab_case_arg(c, !strcmp(c->func, "merge_heads") ? "H" : "X");
    const LabArray *hh = lab_case_arg(c, "h");
    float *x = lab_floats(X), *o = malloc(sizeof *o * (w->len + 1)), *tmp = NULL;
    int rc = x && o ? 0 : -1;
    if (!rc && !strcmp(c->func, "split_heads")) {
        split(way, o, x, X->dim[0], X->dim[1], (int)hh->ival);
    } else if (!rc && !strcmp(c->func, "merge_heads")) {
        merge(way, o, x, X->dim[1], X->dim[0] * X->dim[2], X->dim[0]);
    } else if (!rc) {
        int n = X->dim[0], d = X->dim[1];
        float *W[4] = {lab_floats(lab_case_arg(c, "Wq")), lab_floats(lab_case_arg(c, "Wk")),
                       lab_floats(lab_case_arg(c, "Wv")), lab_floats(lab_case_arg(c, "Wo"))};
        tmp = malloc(sizeof *tmp * (7 * (size_t)n * d + (size_t)n * n));
        rc = W[0] && W[1] && W[2] && W[3] && tmp ? 0 : -1;
        if (!rc)
            mha(way, o, x, W[0], W[1], W[2], W[3], n, d, (int)hh->ival, tmp);
        for (int i = 0; i < 4; i++)
            free(W[i]);
    }
    if (!rc)
        lab_from_floats(&outs[0], o);
    free(x);
    free(o);
    free(tmp);
    return rc;
}

static int mh_case(LabCases *lc, LabRng *r, const char *func, const char *label, int n, int d,
                   int h)
{
    LabCase *c = &lc->cases[lc->n_cases++];
    snprintf(c->func, sizeof c->func, "%s", func);
    snprintf(c->label, sizeof c->label, "%s", label);
    int dh = d / h;
    if (!strcmp(func, "split_heads")) {
        LabArray *x = lab_arg(c, "X", 2, n, d, 0);
        if (!x || !lab_out(c, "out", 3, h, n, dh))
            return -1;
        lab_fill(x, r, 1);
        lab_arg_int(c, "h", h);
    } else if (!strcmp(func, "merge_heads")) {
        LabArray *x = lab_arg(c, "H", 3, h, n, dh);
        if (!x || !lab_out(c, "out", 2, n, d, 0))
            return -1;
        lab_fill(x, r, 1); /* merge_heads(H) reads h from H's shape */
    } else {
        LabArray *x = lab_arg(c, "X", 2, n, d, 0);
        if (!x || !lab_out(c, "out", 2, n, d, 0))
            return -1;
        lab_fill(x, r, 1);
        const char *names[4] = {"Wq", "Wk", "Wv", "Wo"};
        for (int i = 0; i < 4; i++) {
            LabArray *w = lab_arg(c, names[i], 2, d, d, 0);
            if (!w)
                return -1;
            lab_fill(w, r, 1.0 / sqrt((double)d) * 1.7);
        }
        lab_arg_int(c, "h", h);
    }
    LabArray tmp[LAB_MAX_OUTS];
    memset(tmp, 0, sizeof tmp);
    int rc = mh_way(0, c, tmp);
    if (!rc)
        memcpy(c->want[0].v, tmp[0].v, sizeof *tmp[0].v * tmp[0].len);
    lab_array_free(&tmp[0]);
    return rc;
}

int lab_make_multihead(LabCases *lc)
{
    LabRng r = {404};
    return mh_case(lc, &r, "split_heads", "split_heads: 3 tokens, d_model = 8, 2 heads", 3, 8,
                   2) ||
           mh_case(lc, &r, "split_heads", "split_heads: 4 tokens, d_model = 12, 3 heads", 4, 12,
                   3) ||
           mh_case(lc, &r, "merge_heads", "merge_heads: 2 heads of 3 tokens, d_h = 4", 3, 8, 2) ||
           mh_case(lc, &r, "merge_heads", "merge_heads: 4 heads of 2 tokens, d_h = 3", 2, 12, 4) ||
           mh_case(lc, &r, "multi_head", "multi_head: 4 tokens, d_model = 8, 2 heads", 4, 8, 2) ||
           mh_case(lc, &r, "multi_head", "multi_head: 5 tokens, d_model = 12, 3 heads", 5, 12,
                   3) ||
           mh_case(lc, &r, "multi_head", "multi_head: 3 tokens, 6 heads of width 1", 3, 6, 6)
               ? -1
               : 0;
}


/* ---- the block ---- */

#define BLOCK_EPS 1e-5f

static void norm(int way, float *out, const float *x, const float *g, int n, int d)
{
    if (way & BW_LAYERNORM)
        tensor_layernorm(out, x, g, NULL, n, d, BLOCK_EPS);
    else
        tensor_rmsnorm(out, x, g, n, d, BLOCK_EPS);
}

/* One sequence x (n, d) through the block the way, in place. tmp: 9·n·d + n·n + 2·n·f. */
static void block_one(int way, float *x, float *const *W, int n, int d, int h, int f, float *tmp)
{
    size_t nd = (size_t)n * d;
    float *a = tmp, *b = a + nd, *u = b + nd, *g = u + (size_t)n * f, *rest = g + (size_t)n * f;
    /* W: g1, Wq, Wk, Wv, Wo, g2, W1, W3, W2 */
    norm(way, a, x, W[0], n, d);
    mha(way & (HW_RESHAPE | HW_INTERLEAVE), b, (way & BW_POSTNORM) ? x : a, W[1], W[2], W[3],
        W[4], n, d, h, rest);
    if (way & BW_POSTNORM) {
        tensor_add(b, b, x, nd);
        norm(way, x, b, W[0], n, d);
    } else if (way & BW_NO_RES1) {
        memcpy(x, b, sizeof *x * nd);
    } else {
        tensor_add(x, x, b, nd);
    }
    norm(way, a, x, W[5], n, d);
    const float *in = (way & BW_POSTNORM) ? x : a;
    tensor_matmul(u, in, W[6], n, d, f);
    tensor_matmul(g, in, W[7], n, d, f);
    for (size_t i = 0; i < (size_t)n * f; i++)
        u[i] = tensor_silu1(u[i]) * g[i]; /* SwiGLU: silu(x·W1) ⊙ (x·W3) */
    tensor_matmul(b, u, W[8], n, f, d);
    if (way & BW_POSTNORM) {
        tensor_add(b, b, x, nd);
        norm(way, x, b, W[5], n, d);
    } else if (way & BW_NO_RES2) {
        memcpy(x, b, sizeof *x * nd);
    } else {
        tensor_add(x, x, b, nd);
    }
}

static const char *const BLOCK_W[9] = {"g1", "Wq", "Wk", "Wv", "Wo", "g2", "W1", "W3", "W2"};

static int block_way(int way, const LabCase *c, LabArray *outs)
{
    const LabArray *X = lab_case_arg(c, "X");
    int B = X->dim[0], n = X->dim[1], d = X->dim[2], h = (int)lab_case_arg(c, "h")->ival;
    int f = lab_case_arg(c, "W1")->dim[1];
    float *W[9], *x = lab_floats(X);
    size_t nd = (size_t)n * d;
    float *tmp = malloc(sizeof *tmp * (16 * nd + (size_t)n * n + 2 * (size_t)n * f));
    int rc = x && tmp && !lab_outs_like(c, outs) ? 0 : -1;
    for (int i = 0; i < 9; i++) {
        W[i] = lab_floats(lab_case_arg(c, BLOCK_W[i]));
        rc = W[i] ? rc : -1;
    }
    for (int b = 0; !rc && b < B; b++)
        block_one(way, x + (size_t)b * nd, W, n, d, h, f, tmp);
    if (!rc)
        lab_from_floats(&outs[0], x);
    for (int i = 0; i < 9; i++)
        free(W[i]);
    free(x);
    free(tmp);
    return rc;
}

static int block_case(LabCases *lc, LabRng *r, const char *label, int B, int n, int d, int h,
                      int f, int tiny)
{
    LabCase *c = &lc->cases[lc->n_cases++];
    snprintf(c->func, sizeof c->func, "block");
    snprintf(c->label, sizeof c->label, "%s", label);
    LabArray *x = lab_arg(c, "X", 3, B, n, d);
    if (!x || !lab_out(c, "out", 3, B, n, d))
        return -1;
    lab_fill(x, r, 1);
    for (int i = 0; tiny >= 0 && i < d; i++) /* a token near 0: RMSNorm's eps matters */
        x->v[(size_t)tiny * d + i] *= 1e-3;
    for (int i = 0; i < 9; i++) {
        int rows = i == 0 || i == 5 ? d : i == 8 ? f : d;
        int cols = i == 0 || i == 5 ? 0 : i == 6 || i == 7 ? f : d;
        LabArray *w = lab_arg(c, BLOCK_W[i], cols ? 2 : 1, rows, cols, 0);
        if (!w)
            return -1;
        if (!cols)
            for (int j = 0; j < rows; j++)
                w->v[j] = 1.0 + lab_rand(r, 0.25);
        else
            lab_fill(w, r, 1.7 / sqrt((double)rows));
    }
    lab_arg_int(c, "h", h);
    LabArray tmp[LAB_MAX_OUTS];
    memset(tmp, 0, sizeof tmp);
    int rc = block_way(0, c, tmp);
    if (!rc)
        memcpy(c->want[0].v, tmp[0].v, sizeof *tmp[0].v * tmp[0].len);
    lab_array_free(&tmp[0]);
    return rc;
}

int lab_make_block(LabCases *lc)
{
    LabRng r = {505};
    return block_case(lc, &r, "[1, 3, 8]: 3 tokens, d_model = 8, 2 heads, d_ff = 12", 1, 3, 8, 2,
                      12, -1) ||
           block_case(lc, &r, "[2, 4, 8]: a batch of 2, 4 heads, d_ff = 6", 2, 4, 8, 4, 6, -1) ||
           block_case(lc, &r, "[1, 4, 8]: token 2 is near 0 (1e-3), where eps matters", 1, 4, 8,
                      2, 12, 2) ||
           block_case(lc, &r, "[1, 16, 256]: 8 heads, d_ff = 512; the shape is kept", 1, 16, 256,
                      8, 512, -1)
               ? -1
               : 0;
}


/* ---- positions ---- */

/* out (n, d) the way: 0 self-attention of X, 1 of X + PE, 2 of X then + PE (positions after
 * attention), 3 PE itself, 4 PE with sin and cos swapped. */
static void pos_run(int way, float *out, const float *x, const float *const *W, int n, int d,
                    float *tmp)
{
    size_t nd = (size_t)n * d;
    float *xp = tmp, *q = xp + nd, *k = q + nd, *v = k + nd, *w = v + nd;
    for (int t = 0; t < n; t++)
        for (int i = 0; i < d; i++) {
            float pe = model_sinusoid(t, i, d);
            if (way == 4)
                pe = model_sinusoid(t, i ^ 1, d);
            xp[(size_t)t * d + i] = way == 1 ? x[(size_t)t * d + i] + pe : pe;
        }
    if (way >= 3) {
        memcpy(out, xp, sizeof *out * nd);
        return;
    }
    const float *in = way == 1 ? xp : x;
    tensor_matmul(q, in, W[0], n, d, d);
    tensor_matmul(k, in, W[1], n, d, d);
    tensor_matmul(v, in, W[2], n, d, d);
    lab_attend(q, k, v, NULL, n, n, d, d, model_sdpa_scale(1, d), out, w);
    if (way == 2)
        tensor_add(out, out, xp, nd); /* xp holds PE for way 2 */
}

static int pos_way(int way, const LabCase *c, LabArray *outs)
{
    const LabArray *w = &c->want[0];
    int n = w->dim[0], d = w->dim[1];
    int pe = !strcmp(c->func, "sinusoidal");
    float *W[3] = {NULL, NULL, NULL}, *x = NULL;
    float *tmp = malloc(sizeof *tmp * (5 * (size_t)n * d + (size_t)n * n)),
          *o = malloc(sizeof *o * (w->len + 1));
    int rc = tmp && o && !lab_outs_like(c, outs) ? 0 : -1;
    if (!pe) {
        const char *names[3] = {"Wq", "Wk", "Wv"};
        for (int i = 0; i < 3; i++)
            rc = (W[i] = lab_floats(lab_case_arg(c, names[i]))) ? rc : -1;
        rc = (x = lab_floats(lab_case_arg(c, "X"))) ? rc : -1;
    }
    if (!rc) {
        pos_run(way, o, x, (const float *const *)W, n, d, tmp);
        lab_from_floats(&outs[0], o);
    }
    for (int i = 0; i < 3; i++)
        free(W[i]);
    free(x);
    free(tmp);
    free(o);
    return rc;
}

/* A case of func; perm: the rows of the previous case's X in this order (NULL: fresh X). */
static int pos_case(LabCases *lc, LabRng *r, const char *func, const char *label, int n, int d,
                    const int *perm)
{
    LabCase *c = &lc->cases[lc->n_cases++];
    snprintf(c->func, sizeof c->func, "%s", func);
    snprintf(c->label, sizeof c->label, "%s", label);
    if (!lab_out(c, "out", 2, n, d, 0))
        return -1;
    int way = !strcmp(func, "sinusoidal") ? 3 : !strcmp(func, "self_attention") ? 0 : 1;
    if (way == 3) {
        lab_arg_int(c, "n", n);
        lab_arg_int(c, "d", d);
    } else {
        LabArray *x = lab_arg(c, "X", 2, n, d, 0);
        if (!x)
            return -1;
        const LabCase *prev = perm ? &lc->cases[lc->n_cases - 2] : NULL;
        for (int t = 0; t < n; t++)
            for (int i = 0; i < d; i++)
                x->v[(size_t)t * d + i] =
                    prev ? prev->args[0].v[(size_t)perm[t] * d + i] : lab_rand(r, 1);
        const char *names[3] = {"Wq", "Wk", "Wv"};
        for (int i = 0; i < 3; i++) {
            LabArray *w = lab_arg(c, names[i], 2, d, d, 0);
            if (!w)
                return -1;
            if (prev)
                memcpy(w->v, prev->args[1 + i].v, sizeof *w->v * w->len);
            else
                lab_fill(w, r, 1.7 / sqrt((double)d));
        }
    }
    LabArray tmp[LAB_MAX_OUTS];
    memset(tmp, 0, sizeof tmp);
    int rc = pos_way(way, c, tmp);
    if (!rc)
        memcpy(c->want[0].v, tmp[0].v, sizeof *tmp[0].v * tmp[0].len);
    lab_array_free(&tmp[0]);
    return rc;
}

static const int POS_PERM[4] = {2, 0, 3, 1};

int lab_make_positions(LabCases *lc)
{
    LabRng r = {606};
    return pos_case(lc, &r, "self_attention", "self_attention: 4 tokens, d = 6", 4, 6, NULL) ||
           pos_case(lc, &r, "self_attention", "self_attention of the same tokens in the order "
                    "2 0 3 1", 4, 6, POS_PERM) ||
           pos_case(lc, &r, "sinusoidal", "sinusoidal(5, 6)", 5, 6, NULL) ||
           pos_case(lc, &r, "sinusoidal", "sinusoidal(3, 4)", 3, 4, NULL) ||
           pos_case(lc, &r, "encoded_attention", "encoded_attention: 4 tokens, d = 6", 4, 6,
                    NULL) ||
           pos_case(lc, &r, "encoded_attention", "encoded_attention of the same tokens in the "
                    "order 2 0 3 1", 4, 6, POS_PERM)
               ? -1
               : 0;
}


/* max |B − P·A| over the rows of two outputs, P the case's permutation. */
static double perm_gap(const LabGot *a, const LabGot *b, int n, int d)
{
    double gap = 0;
    for (int t = 0; t < n; t++)
        for (int i = 0; i < d; i++) {
            double g = fabs(b->outs[0].v[(size_t)t * d + i] -
                            a->outs[0].v[(size_t)POS_PERM[t] * d + i]);
            gap = g > gap || isnan(g) ? g : gap;
        }
    return gap;
}

void lab_note_positions(const LabCases *lc, const LabResult *r, char *out, size_t outlen)
{
    out[0] = '\0';
    if (r->n_cases < 6 || lc->n_cases < 6)
        return;
    int n = lc->cases[0].want[0].dim[0], d = lc->cases[0].want[0].dim[1];
    snprintf(out, outlen,
             "Permuting the tokens: without positions your outputs' rows permute with them "
             "(max |Attn(PX) − P·Attn(X)| = %.2g); with sinusoidal positions the values "
             "themselves change (%.2g).",
             perm_gap(&r->got[0], &r->got[1], n, d), perm_gap(&r->got[4], &r->got[5], n, d));
}
