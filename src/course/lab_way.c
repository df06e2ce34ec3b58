/* lab_way.c - each lab's functions computed a chosen way (LabWay): the right way, or with one
 * or more of the misconceptions of the catalogue (lab_catalogue.c) - the scale, the softmax's
 * axis and stability, the orientation of a product, the mask, the heads' layout, the norm, the
 * FFN, the residuals, the positions, the cache. In double precision; with every field 0 it
 * computes what the engine computes (tests/unit/test_lab.c holds it to the engine's values on
 * every case of every lab). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab_util.h"
#include "lab_way.h"

#define EPS 1e-5

/* out (n×m) = a (n×k) · b (k×m), or a · bᵀ when b is (m×k) and bt is 1. */
static void mm(double *out, const double *a, const double *b, int n, int k, int m, int bt)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            double s = 0;
            for (int c = 0; c < k; c++)
                s += a[(size_t)i * k + c] * (bt ? b[(size_t)j * k + c] : b[(size_t)c * m + j]);
            out[(size_t)i * m + j] = s;
        }
}

/* X (n×d) times W (d×d), or Wᵀ when the way has the weights the wrong way round. */
static void proj(const LabWay *w, double *out, const double *x, const double *W, int n, int d,
                 int f)
{
    if (w->orient == OR_WT && d == f)
        mm(out, x, W, n, d, f, 1);
    else
        mm(out, x, W, n, d, f, 0);
}

/* One row's softmax: stable with the engine's conventions (a row of −∞ gives 0), naive
 * (e^x / Σe^x, overflowing past 709; 0/0 for a row of −∞), or stable but NaN for such a row. */
static void softmax_row(int kind, const double *x, double *out, int m, int stride)
{
    double mx = -INFINITY, sum = 0;
    for (int j = 0; j < m; j++)
        mx = x[j * stride] > mx ? x[j * stride] : mx;
    if (kind == SM_NAIVE)
        mx = 0;
    else if (mx == -INFINITY && kind == SM_RIGHT) {
        for (int j = 0; j < m; j++)
            out[j * stride] = 0;
        return;
    }
    for (int j = 0; j < m; j++)
        sum += out[j * stride] = exp(x[j * stride] - mx);
    for (int j = 0; j < m; j++)
        out[j * stride] /= sum;
}

/* Softmax of s (n×m) in place, along the rows (or, the way, down the columns). */
static void softmax_mat(const LabWay *w, double *s, int n, int m)
{
    if (w->axis)
        for (int j = 0; j < m; j++)
            softmax_row(w->softmax, s + j, s + j, n, m);
    else
        for (int i = 0; i < n; i++)
            softmax_row(w->softmax, s + (size_t)i * m, s + (size_t)i * m, m, 1);
}

/* The scale the way uses: 1/√d_k, or none, 1/d_k, 1/√d_v, 1/√d_model, √d_k. */
static double scale_of(const LabWay *w, int dk, int dv, int dmodel)
{
    switch (w->scale) {
    case SC_NONE: return 1.0;
    case SC_DK: return 1.0 / dk;
    case SC_SQRT_DV: return 1.0 / sqrt((double)dv);
    case SC_SQRT_DMODEL: return 1.0 / sqrt((double)dmodel);
    case SC_TIMES: return sqrt((double)dk);
    default: return 1.0 / sqrt((double)dk);
    }
}

/* Scores (n×m) into weights in place: the mask the way (before or after the softmax, 0 or
 * −1e9 for −∞, or never), the softmax the way. mask (n×m) or NULL. */
static void weigh(const LabWay *w, double *s, const double *mask, int n, int m)
{
    size_t nm = (size_t)n * m;
    for (size_t i = 0; mask && i < nm; i++) {
        int hid = mask[i] == -INFINITY;
        if (w->mask == MK_RIGHT || w->mask == MK_LOWER || w->mask == MK_DIAG ||
            w->mask == MK_KEEP)
            s[i] += mask[i];
        else if (w->mask == MK_ZERO)
            s[i] = hid ? 0 : s[i] + mask[i];
        else if (w->mask == MK_FINITE)
            s[i] += hid ? -1e9 : mask[i];
    }
    softmax_mat(w, s, n, m);
    for (size_t i = 0; mask && i < nm; i++) {
        if (w->mask == MK_AFTER)
            s[i] += mask[i];
        else if (w->mask == MK_AFTER_ZERO && mask[i] == -INFINITY)
            s[i] = 0;
    }
}

/* One head: q (n×dk), k (m×dk), v (m×dv), mask (n×m) or NULL; out (n×dv), wts (n×m) (either
 * may be NULL). 0, or 1 when the way needs shapes these are not (K·Qᵀ read as n×m needs
 * n = m; Q·K with K untransposed needs d_k = m). */
static int attend(const LabWay *w, const double *q, const double *k, const double *v,
                  const double *mask, int n, int m, int dk, int dv, int dmodel, double *out,
                  double *wts)
{
    if ((w->orient == OR_KQ && n != m) || (w->orient == OR_QK && dk != m))
        return 1;
    double *s = malloc(sizeof *s * ((size_t)n * m + 1));
    if (!s)
        return -1;
    if (w->orient == OR_KQ)
        mm(s, k, q, m, dk, n, 1);
    else if (w->orient == OR_QK)
        mm(s, q, k, n, dk, m, 0);
    else
        mm(s, q, k, n, dk, m, 1);
    double sc = scale_of(w, dk, dv, dmodel);
    for (size_t i = 0; i < (size_t)n * m; i++)
        s[i] *= sc;
    weigh(w, s, mask, n, m);
    if (out)
        mm(out, s, v, n, m, dv, 0);
    if (wts)
        memcpy(wts, s, sizeof *s * (size_t)n * m);
    free(s);
    return 0;
}

/* ---- the softmax, attention and masks labs ---- */

static int run_softmax(const LabWay *w, const LabCase *c, LabArray *outs)
{
    const LabArray *x = lab_case_arg(c, "X");
    memcpy(outs[0].v, x->v, sizeof *x->v * x->len);
    softmax_mat(w, outs[0].v, x->dim[0], x->dim[1]);
    return 0;
}

static int run_attention(const LabWay *w, const LabCase *c, LabArray *outs)
{
    const LabArray *Q = lab_case_arg(c, "Q"), *K = lab_case_arg(c, "K"),
                   *V = lab_case_arg(c, "V"), *M = lab_case_arg(c, "mask");
    return attend(w, Q->v, K->v, V->v, M && M->kind == LAB_ARRAY ? M->v : NULL, Q->dim[0],
                  K->dim[0], Q->dim[1], V->dim[1], Q->dim[1], outs[0].v, outs[1].v);
}

static int run_masks(const LabWay *w, const LabCase *c, LabArray *outs)
{
    double *o = outs[0].v;
    const LabArray *want = &c->want[0];
    int n = want->dim[0], m = want->dim[1];
    if (!strcmp(c->func, "masked_softmax")) {
        const LabArray *S = lab_case_arg(c, "S"), *M = lab_case_arg(c, "M");
        memcpy(o, S->v, sizeof *o * S->len);
        weigh(w, o, M->v, n, m);
        return 0;
    }
    const LabArray *keep = lab_case_arg(c, "keep");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            int hid = keep ? keep->v[j] == 0 : j > i;
            if (!keep && w->mask == MK_LOWER)
                hid = j < i;
            else if (!keep && w->mask == MK_DIAG)
                hid = j >= i;
            double v = hid ? -INFINITY : 0.0;
            if (w->mask == MK_KEEP)
                v = !hid;
            else if (w->mask == MK_ZERO)
                v = 0;
            else if (w->mask == MK_FINITE && hid)
                v = -1e9;
            o[(size_t)i * m + j] = v;
        }
    return 0;
}

/* ---- heads ---- */

/* Head i's column c of token t in X (n×d): where the way puts it (merge: 1 when merging; the
 * heads come back in reverse order only then). */
static size_t head_at(const LabWay *w, int i, int t, int c, int n, int d, int h, int merge)
{
    int dh = d / h;
    if (w->heads == HD_RESHAPE)
        return ((size_t)i * n + t) * dh + c; /* X's memory read as (h, n, d_h) */
    if (w->heads == HD_INTERLEAVE)
        return (size_t)t * d + (size_t)c * h + i;
    if (w->heads == HD_REVERSE && merge)
        return (size_t)t * d + (size_t)(h - 1 - i) * dh + c;
    return (size_t)t * d + (size_t)i * dh + c;
}

static void split(const LabWay *w, double *H, const double *X, int n, int d, int h, int merge)
{
    int dh = d / h;
    for (int i = 0; i < h; i++)
        for (int t = 0; t < n; t++)
            for (int c = 0; c < dh; c++) {
                size_t at = ((size_t)i * n + t) * dh + c, x = head_at(w, i, t, c, n, d, h, merge);
                if (merge)
                    H[x] = X[at];
                else
                    H[at] = X[x];
            }
}

/* Multi-head self-attention of x (n×d), no mask: merge(attention per head of split(x·W))·W_o,
 * the way. 0 or -1. */
static int mha(const LabWay *w, double *out, const double *x, const double *const *W, int n,
               int d, int h)
{
    size_t nd = (size_t)n * d;
    int dh = d / h;
    double *b = malloc(sizeof *b * (7 * nd + 1));
    if (!b)
        return -1;
    double *q = b, *k = q + nd, *v = k + nd, *hq = v + nd, *hk = hq + nd, *hv = hk + nd,
           *ho = hv + nd;
    proj(w, q, x, W[0], n, d, d);
    proj(w, k, x, W[1], n, d, d);
    proj(w, v, x, W[2], n, d, d);
    split(w, hq, q, n, d, h, 0);
    split(w, hk, k, n, d, h, 0);
    split(w, hv, v, n, d, h, 0);
    int rc = 0;
    for (int i = 0; !rc && i < h; i++) {
        size_t o = (size_t)i * n * dh;
        rc = attend(w, hq + o, hk + o, hv + o, NULL, n, n, dh, dh, d, ho + o, NULL);
    }
    split(w, q, ho, n, d, h, 1);
    if (w->heads == HD_NO_WO)
        memcpy(out, q, sizeof *out * nd);
    else
        proj(w, out, q, W[3], n, d, d);
    free(b);
    return rc;
}

static int run_multihead(const LabWay *w, const LabCase *c, LabArray *outs)
{
    double *o = outs[0].v;
    int h = lab_case_arg(c, "h") ? (int)lab_case_arg(c, "h")->ival : 0;
    if (!strcmp(c->func, "split_heads")) {
        const LabArray *X = lab_case_arg(c, "X");
        split(w, o, X->v, X->dim[0], X->dim[1], h, 0);
        return 0;
    }
    if (!strcmp(c->func, "merge_heads")) {
        const LabArray *H = lab_case_arg(c, "H");
        split(w, o, H->v, H->dim[1], H->dim[0] * H->dim[2], H->dim[0], 1);
        return 0;
    }
    const LabArray *X = lab_case_arg(c, "X");
    const double *W[4] = {lab_case_arg(c, "Wq")->v, lab_case_arg(c, "Wk")->v,
                          lab_case_arg(c, "Wv")->v, lab_case_arg(c, "Wo")->v};
    return mha(w, o, X->v, W, X->dim[0], X->dim[1], h);
}

/* ---- the block ---- */

static void norm(const LabWay *w, double *out, const double *x, const double *g, int n, int d)
{
    for (int t = 0; t < n; t++) {
        const double *r = x + (size_t)t * d;
        double mean = 0, ss = 0;
        for (int i = 0; i < d; i++)
            mean += r[i] / d;
        for (int i = 0; i < d; i++) {
            double y = w->norm == NM_LAYER ? r[i] - mean : r[i];
            ss += y * y / d;
        }
        double eps = w->norm == NM_NO_EPS ? 0 : w->norm == NM_EPS6 ? 1e-6 : EPS;
        double den = w->norm == NM_EPS_OUT ? sqrt(ss) + EPS : sqrt(ss + eps);
        for (int i = 0; i < d; i++)
            out[(size_t)t * d + i] = (w->norm == NM_LAYER ? r[i] - mean : r[i]) / den *
                                     (w->norm == NM_NO_GAIN ? 1.0 : g[i]);
    }
}

static double act(int ffn, double z)
{
    switch (ffn) {
    case FF_RELU: return z > 0 ? z : 0;
    case FF_GELU: return 0.5 * z * (1 + tanh(0.7978845608028654 * (z + 0.044715 * z * z * z)));
    case FF_GELU_ERF: return 0.5 * z * (1 + erf(z / sqrt(2.0)));
    case FF_SIGMOID: return 1 / (1 + exp(-z));
    default: return z / (1 + exp(-z));
    }
}

/* The FFN of u (n×d) into out (n×d): (act(u·W1) ⊙ (u·W3))·W2 the way. b: 2·n·f doubles. */
static void ffn(const LabWay *w, double *out, const double *u, const double *const *W, int n,
                int d, int f, double *b)
{
    double *a = b, *g = b + (size_t)n * f;
    mm(a, u, W[w->ffn == FF_GATE_SWAP ? 1 : 0], n, d, f, 0);
    mm(g, u, W[w->ffn == FF_GATE_SWAP ? 0 : 1], n, d, f, 0);
    for (size_t i = 0; i < (size_t)n * f; i++)
        a[i] = act(w->ffn, a[i]) * (w->ffn == FF_NO_GATE ? 1.0 : g[i]);
    mm(out, a, W[2], n, f, d, 0);
}

/* One sequence x (n×d) through the block the way, in place. W: g1 Wq Wk Wv Wo g2 W1 W3 W2. */
static int block_one(const LabWay *w, double *x, const double *const *W, int n, int d, int h,
                     int f)
{
    size_t nd = (size_t)n * d;
    double *b = malloc(sizeof *b * (2 * nd + 2 * (size_t)n * f + 1));
    if (!b)
        return -1;
    double *a = b, *y = a + nd, *fb = y + nd;
    int rc = 0;
    for (int layer = 0; !rc && layer < 2; layer++) {
        const double *g = W[layer ? 5 : 0];
        norm(w, a, x, g, n, d);
        const double *in = w->resid == RS_POST ? x : a;
        if (layer == 0)
            rc = mha(w, y, in, W + 1, n, d, h);
        else
            ffn(w, y, in, W + 6, n, d, f, fb);
        int skip = w->resid == RS_NONE || (w->resid == RS_NO1 && !layer) ||
                   (w->resid == RS_NO2 && layer);
        for (size_t i = 0; i < nd; i++)
            y[i] += skip ? 0 : w->resid == RS_NORMED ? a[i] : x[i];
        if (w->resid == RS_POST)
            norm(w, x, y, g, n, d);
        else
            memcpy(x, y, sizeof *x * nd);
    }
    free(b);
    return rc;
}

static int run_block(const LabWay *w, const LabCase *c, LabArray *outs)
{
    static const char *const names[9] = {"g1", "Wq", "Wk", "Wv", "Wo", "g2", "W1", "W3", "W2"};
    const LabArray *X = lab_case_arg(c, "X");
    int B = X->dim[0], n = X->dim[1], d = X->dim[2], h = (int)lab_case_arg(c, "h")->ival;
    int f = lab_case_arg(c, "W1")->dim[1];
    const double *W[9];
    for (int i = 0; i < 9; i++)
        W[i] = lab_case_arg(c, names[i])->v;
    memcpy(outs[0].v, X->v, sizeof *X->v * X->len);
    int rc = 0;
    for (int b = 0; !rc && b < B; b++)
        rc = block_one(w, outs[0].v + (size_t)b * n * d, W, n, d, h, f);
    return rc;
}

/* ---- positions ---- */

/* The positional encoding (n×d) the way. */
static void sinusoid(const LabWay *w, double *pe, int n, int d)
{
    for (int p = 0; p < n; p++)
        for (int i = 0; i < d; i++) {
            double pos = p + (w->pos == PS_FROM1);
            int pair = i / 2, odd = i % 2;
            double ex = 2.0 * pair / d;
            if (w->pos == PS_EXP_HALF)
                ex = (double)pair / d;
            else if (w->pos == PS_EXP_ODD)
                ex = (double)i / d;
            if (w->pos == PS_CONCAT) { /* sin in the first half, cos in the second */
                pair = i < d / 2 ? i : i - d / 2;
                odd = i >= d / 2;
                ex = 2.0 * pair / d;
            }
            double a = pos / pow(10000.0, ex);
            if (w->pos == PS_SWAP)
                odd = !odd;
            pe[(size_t)p * d + i] = odd ? cos(a) : sin(a);
        }
}

static int run_positions(const LabWay *w, const LabCase *c, LabArray *outs)
{
    double *o = outs[0].v;
    const LabArray *want = &c->want[0];
    int n = want->dim[0], d = want->dim[1];
    size_t nd = (size_t)n * d;
    double *b = malloc(sizeof *b * (5 * nd + 1));
    if (!b)
        return -1;
    double *pe = b, *xp = pe + nd, *q = xp + nd, *k = q + nd, *v = k + nd;
    sinusoid(w, pe, n, d);
    int rc = 0;
    if (!strcmp(c->func, "sinusoidal")) {
        memcpy(o, pe, sizeof *o * nd);
    } else {
        const LabArray *X = lab_case_arg(c, "X");
        const double *Wq = lab_case_arg(c, "Wq")->v, *Wk = lab_case_arg(c, "Wk")->v,
                     *Wv = lab_case_arg(c, "Wv")->v;
        int enc = !strcmp(c->func, "encoded_attention");
        for (size_t i = 0; i < nd; i++)
            xp[i] = X->v[i] + (enc ? pe[i] : 0);
        int plain = !enc || w->pos == PS_AFTER || w->pos == PS_NONE;
        const double *xq = plain || w->pos == PS_V_ONLY ? X->v : xp;
        const double *xv = plain || w->pos == PS_QK_ONLY ? X->v : xp;
        proj(w, q, xq, Wq, n, d, d);
        proj(w, k, xq, Wk, n, d, d);
        proj(w, v, xv, Wv, n, d, d);
        rc = attend(w, q, k, v, NULL, n, n, d, d, d, o, NULL);
        for (size_t i = 0; enc && w->pos == PS_AFTER && i < nd; i++)
            o[i] += pe[i];
    }
    free(b);
    return rc;
}

/* ---- the KV cache ---- */

static int run_kvcache(const LabWay *w, const LabCase *c, LabArray *outs)
{
    const LabArray *Q = lab_case_arg(c, "Q"), *K = lab_case_arg(c, "K"), *V = lab_case_arg(c, "V");
    int n = Q->dim[0], dk = Q->dim[1], dv = V->dim[1];
    double *s = malloc(sizeof *s * ((size_t)n + 1));
    if (!s)
        return -1;
    double sc = scale_of(w, dk, dv, dk);
    for (int t = 0; t < n; t++) {
        int lo = 0, hi = t; /* the keys read: lo..hi */
        if (w->cache == KV_BEFORE)
            hi = t - 1;
        else if (w->cache == KV_DROP_FIRST)
            lo = t > 0;
        else if (w->cache == KV_NONE)
            lo = t;
        const double *keys = w->cache == KV_Q ? Q->v : K->v;
        int m = hi - lo + 1;
        for (int j = 0; j < m; j++) {
            double dot = 0;
            for (int i = 0; i < dk; i++)
                dot += Q->v[(size_t)t * dk + i] * keys[(size_t)(lo + j) * dk + i];
            s[j] = dot * sc;
        }
        if (w->axis) /* the softmax over an axis of length 1: every weight 1 */
            for (int j = 0; j < m; j++)
                s[j] = 1;
        else if (m > 0)
            softmax_row(w->softmax, s, s, m, 1);
        for (int i = 0; i < dv; i++) {
            double acc = 0;
            for (int j = 0; j < m; j++)
                acc += s[j] * V->v[(size_t)(lo + j) * dv + i];
            outs[0].v[(size_t)t * dv + i] = acc;
        }
    }
    free(s);
    return 0;
}

int lab_way_run(const char *lab, const LabWay *w, const LabCase *c, LabArray *outs)
{
    static const struct {
        const char *lab;
        int (*run)(const LabWay *, const LabCase *, LabArray *);
    } RUN[] = {{"softmax", run_softmax},     {"attention", run_attention},
               {"masks", run_masks},         {"multihead", run_multihead},
               {"block", run_block},         {"positions", run_positions},
               {"kvcache", run_kvcache}};
    for (size_t i = 0; i < sizeof RUN / sizeof RUN[0]; i++)
        if (!strcmp(RUN[i].lab, lab)) {
            if (lab_outs_like(c, outs))
                return -1;
            return RUN[i].run(w, c, outs);
        }
    return 1;
}
