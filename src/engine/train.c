/* train.c - forward pass with saved activations, backward pass, AdamW, the Trainer
 * (see train.h). The forward pass here computes exactly what model_forward computes (a unit
 * test compares the logits) but keeps only what the backward pass needs and runs without
 * naming anything, so training is fast. */
#include "train.h"

/* The kernels below are written so the compiler can vectorise them (no reductions in inner
 * loops except through 8 independent lanes); GCC needs -O3 for that, whatever the build's -O. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tensor.h"

/* ======================= buffers ======================= */

typedef struct {
    float *xhat;   /* (T, D) normalised input, before gain and bias */
    float *rstd;   /* (T) 1 / sqrt(var + eps) (LayerNorm) or 1 / rms (RMSNorm) */
    float *out;    /* (T, D) */
} NormBuf;

typedef struct {
    NormBuf nrm;   /* pre-norm: norm(x_in); post-norm: norm(x_in + y) */
    float *q, *k, *v;  /* (T, HD): keys and values of cross-attention have n_src rows */
    float *p;      /* (H, T, T) attention weights */
    float *c;      /* (T, HD) heads concatenated */
    float *u, *g, *h;  /* FFN (T, F): W1 pre-activation, SwiGLU gate (W3), hidden */
    float *y;      /* (T, D) sublayer output before the residual */
    float *x_out;  /* (T, D) the stream after the sublayer */
} SubBuf;

typedef struct {
    const float *x_in; /* (T, D) points at the previous sublayer's x_out (or x0) */
    SubBuf sa, ca, ff;
} LayerBuf;

typedef struct {
    int n;         /* tokens of the last run */
    const int *ids;
    float *x0;     /* (T, D) embeddings (scaled) + PE */
    LayerBuf *L;   /* (n_layers) */
    NormBuf fin;
    const float *out; /* (T, D) the stack's output */
} StackBuf;

struct TrainWork {
    const Model *m;
    int T;         /* rows of every buffer: max(max_n, max_m) */
    StackBuf enc, dec;
    float *logits; /* (T, V) */
    int logit_rows;
    /* backward scratch */
    float *dx, *dr, *da, *dq, *dk, *dv, *dc, *dP, *dh, *du, *dg, *denc, *dlog;
    float *block;  /* everything above lives in one allocation */
};

static size_t stack_floats(const ModelConfig *c, int T, int cross)
{
    size_t D = (size_t)c->d_model, HD = (size_t)c->n_heads * c->d_head, F = (size_t)c->d_ff;
    size_t norm = T * D * 2 + T;
    size_t att = norm + 3 * T * HD + (size_t)c->n_heads * T * T + T * HD + 2 * T * D;
    size_t ffn = norm + 3 * T * F + 2 * T * D;
    return T * D + (size_t)c->n_layers * (att * (cross ? 2 : 1) + ffn) + norm;
}

static float *take(float **cur, size_t n)
{
    float *p = *cur;
    *cur += n;
    return p;
}

static void norm_carve(NormBuf *b, float **cur, int T, int D)
{
    b->xhat = take(cur, (size_t)T * D);
    b->rstd = take(cur, (size_t)T);
    b->out = take(cur, (size_t)T * D);
}

static int stack_carve(StackBuf *s, const ModelConfig *c, int T, int cross, float **cur)
{
    int D = c->d_model, HD = c->n_heads * c->d_head, F = c->d_ff, H = c->n_heads;
    s->L = calloc((size_t)c->n_layers, sizeof *s->L);
    if (!s->L)
        return -1;
    s->x0 = take(cur, (size_t)T * D);
    for (int l = 0; l < c->n_layers; l++) {
        for (int which = 0; which < (cross ? 2 : 1); which++) {
            SubBuf *b = which ? &s->L[l].ca : &s->L[l].sa;
            norm_carve(&b->nrm, cur, T, D);
            b->q = take(cur, (size_t)T * HD);
            b->k = take(cur, (size_t)T * HD);
            b->v = take(cur, (size_t)T * HD);
            b->p = take(cur, (size_t)H * T * T);
            b->c = take(cur, (size_t)T * HD);
            b->y = take(cur, (size_t)T * D);
            b->x_out = take(cur, (size_t)T * D);
        }
        SubBuf *f = &s->L[l].ff;
        norm_carve(&f->nrm, cur, T, D);
        f->u = take(cur, (size_t)T * F);
        f->g = take(cur, (size_t)T * F);
        f->h = take(cur, (size_t)T * F);
        f->y = take(cur, (size_t)T * D);
        f->x_out = take(cur, (size_t)T * D);
    }
    norm_carve(&s->fin, cur, T, D);
    return 0;
}

TrainWork *train_work_new(const Model *m, int max_n, int max_m)
{
    const ModelConfig *c = &m->cfg;
    TrainWork *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->m = m;
    int T = max_n > max_m ? max_n : max_m;
    if (T < 1)
        T = 1;
    w->T = T;
    size_t D = (size_t)c->d_model, HD = (size_t)c->n_heads * c->d_head, F = (size_t)c->d_ff;
    size_t V = (size_t)c->vocab_size, H = (size_t)c->n_heads;
    int has_enc = c->arch != ARCH_DECODER, has_dec = c->arch != ARCH_ENCODER;
    int cross = c->arch == ARCH_ENCDEC;
    size_t total = (has_enc ? stack_floats(c, T, 0) : 0) + (has_dec ? stack_floats(c, T, cross) : 0);
    size_t Tz = (size_t)T;
    total += 2 * Tz * V;                              /* logits, dlog */
    total += 4 * Tz * D + 4 * Tz * HD + H * Tz * Tz + 3 * Tz * F; /* scratch */
    w->block = calloc(total, sizeof(float));
    if (!w->block) {
        free(w);
        return NULL;
    }
    float *cur = w->block;
    if ((has_enc && stack_carve(&w->enc, c, T, 0, &cur) < 0) ||
        (has_dec && stack_carve(&w->dec, c, T, cross, &cur) < 0)) {
        train_work_free(w);
        return NULL;
    }
    w->logits = take(&cur, Tz * V);
    w->dlog = take(&cur, Tz * V);
    w->dx = take(&cur, Tz * D);
    w->dr = take(&cur, Tz * D);
    w->da = take(&cur, Tz * D);
    w->denc = take(&cur, Tz * D);
    w->dq = take(&cur, Tz * HD);
    w->dk = take(&cur, Tz * HD);
    w->dv = take(&cur, Tz * HD);
    w->dc = take(&cur, Tz * HD);
    w->dP = take(&cur, H * Tz * Tz);
    w->dh = take(&cur, Tz * F);
    w->du = take(&cur, Tz * F);
    w->dg = take(&cur, Tz * F);
    return w;
}

void train_work_free(TrainWork *w)
{
    if (!w)
        return;
    free(w->enc.L);
    free(w->dec.L);
    free(w->block);
    free(w);
}

const float *train_work_logits(const TrainWork *w, int *rows)
{
    if (rows)
        *rows = w->logit_rows;
    return w->logits;
}

/* ======================= small kernels ======================= */

/* out[n×m] (+)= a[n×k]·b[k×m] */
static void mm(float *out, const float *a, const float *b, int n, int k, int m, int acc)
{
    for (int i = 0; i < n; i++) {
        float *o = out + (size_t)i * m;
        if (!acc)
            memset(o, 0, sizeof(float) * (size_t)m);
        const float *ar = a + (size_t)i * k;
        for (int p = 0; p < k; p++) {
            float av = ar[p];
            const float *br = b + (size_t)p * m;
            for (int j = 0; j < m; j++)
                o[j] += av * br[j];
        }
    }
}

/* dw[k×m] += a[n×k]ᵀ·g[n×m] */
static void mm_at_b(float *dw, const float *a, const float *g, int n, int k, int m)
{
    for (int i = 0; i < n; i++) {
        const float *ar = a + (size_t)i * k, *gr = g + (size_t)i * m;
        for (int p = 0; p < k; p++) {
            float av = ar[p];
            if (av == 0.0f)
                continue;
            float *d = dw + (size_t)p * m;
            for (int j = 0; j < m; j++)
                d[j] += av * gr[j];
        }
    }
}

/* dx[n×k] += g[n×m]·w[k×m]ᵀ (dot products summed in 8 lanes, then the lanes in order) */
static void mm_a_bt(float *dx, const float *g, const float *w, int n, int m, int k)
{
    int m8 = m & ~7;
    for (int i = 0; i < n; i++) {
        const float *gr = g + (size_t)i * m;
        float *d = dx + (size_t)i * k;
        for (int p = 0; p < k; p++) {
            const float *wr = w + (size_t)p * m;
            float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (int j = 0; j < m8; j += 8)
                for (int l = 0; l < 8; l++)
                    acc[l] += gr[j + l] * wr[j + l];
            float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
            for (int j = m8; j < m; j++)
                s += gr[j] * wr[j];
            d[p] += s;
        }
    }
}

static void col_sum(float *db, const float *g, int n, int m)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            db[j] += g[(size_t)i * m + j];
}

/* Gradient slot of a weight pointer into m->data. */
static float *G(const Model *m, float *grad, const float *w)
{
    return grad + (w - m->data);
}

/* ---- norms ---- */

static void norm_fwd(const Model *m, NormBuf *b, const NormWeights *nw, const float *x, int n)
{
    int D = m->cfg.d_model;
    float eps = m->cfg.norm_eps;
    for (int i = 0; i < n; i++) {
        const float *r = x + (size_t)i * D;
        float *xh = b->xhat + (size_t)i * D, *o = b->out + (size_t)i * D;
        double mean = 0.0, var = 0.0;
        if (m->cfg.norm == NORM_LAYER) {
            for (int j = 0; j < D; j++)
                mean += r[j];
            mean /= D;
            for (int j = 0; j < D; j++)
                var += (r[j] - mean) * (r[j] - mean);
            var /= D;
        } else {
            for (int j = 0; j < D; j++)
                var += (double)r[j] * r[j];
            var /= D;
        }
        float inv = (float)(1.0 / sqrt(var + eps));
        b->rstd[i] = inv;
        for (int j = 0; j < D; j++) {
            xh[j] = (r[j] - (float)mean) * inv;
            o[j] = nw->gain[j] * xh[j] + (nw->bias ? nw->bias[j] : 0.0f);
        }
    }
}

/* dx += d norm(x) given dy = d out; accumulates gain/bias gradients. */
static void norm_bwd(const Model *m, float *grad, const NormBuf *b, const NormWeights *nw,
                     const float *dy, float *dx, int n)
{
    int D = m->cfg.d_model;
    float *dgain = G(m, grad, nw->gain);
    float *dbias = nw->bias ? G(m, grad, nw->bias) : NULL;
    int layer = m->cfg.norm == NORM_LAYER;
    for (int i = 0; i < n; i++) {
        const float *xh = b->xhat + (size_t)i * D, *d = dy + (size_t)i * D;
        float *o = dx + (size_t)i * D;
        float mean_d = 0.0f, mean_dx = 0.0f;
        for (int j = 0; j < D; j++) {
            float dxh = d[j] * nw->gain[j];
            mean_d += dxh;
            mean_dx += dxh * xh[j];
            dgain[j] += d[j] * xh[j];
            if (dbias)
                dbias[j] += d[j];
        }
        mean_d /= D;
        mean_dx /= D;
        if (!layer)
            mean_d = 0.0f;
        float r = b->rstd[i];
        for (int j = 0; j < D; j++)
            o[j] += r * (d[j] * nw->gain[j] - mean_d - xh[j] * mean_dx);
    }
}

/* ---- attention ---- */

/* Rotary position embedding of every head of x (rows, HD) in place, as the engine's
 * apply_rope: pair (2i, 2i+1) of row pos turns by pos·base^(-2i/dh); sign -1 turns back
 * (the transpose of the rotation, used by the backward pass). */
static void rope_rotate(float *x, int rows, int H, int dh, float base, int sign)
{
    int HD = H * dh;
    for (int pos = 0; pos < rows; pos++)
        for (int i = 0; i < dh / 2; i++) {
            double theta = pow((double)base, -2.0 * i / dh);
            double a = pos * theta, cs = cos(a), sn = sign * sin(a);
            for (int h = 0; h < H; h++) {
                float *r = x + (size_t)pos * HD + h * dh;
                float x0 = r[2 * i], x1 = r[2 * i + 1];
                r[2 * i] = (float)(x0 * cs - x1 * sn);
                r[2 * i + 1] = (float)(x0 * sn + x1 * cs);
            }
        }
}

/* y = Attention(aq Wq, akv Wk, akv Wv) Wo over n queries and nk keys. */
static void attn_fwd(const Model *m, SubBuf *b, const AttnWeights *aw, const float *aq, int n,
                     const float *akv, int nk, int causal, int rope)
{
    int D = m->cfg.d_model, H = m->cfg.n_heads, dh = m->cfg.d_head, HD = H * dh;
    float scale = 1.0f / sqrtf((float)dh);
    mm(b->q, aq, aw->wq, n, D, HD, 0);
    mm(b->k, akv, aw->wk, nk, D, HD, 0);
    mm(b->v, akv, aw->wv, nk, D, HD, 0);
    if (rope) { /* q and k are kept rotated: the scores use them */
        rope_rotate(b->q, n, H, dh, m->cfg.rope_base, 1);
        rope_rotate(b->k, nk, H, dh, m->cfg.rope_base, 1);
    }
    for (int h = 0; h < H; h++) {
        float *P = b->p + (size_t)h * n * nk;
        for (int i = 0; i < n; i++) {
            const float *q = b->q + (size_t)i * HD + h * dh;
            float *row = P + (size_t)i * nk;
            int last = causal ? (i < nk - 1 ? i : nk - 1) : nk - 1;
            float mx = -INFINITY;
            for (int j = 0; j <= last; j++) {
                const float *k = b->k + (size_t)j * HD + h * dh;
                float s = 0.0f;
                for (int d = 0; d < dh; d++)
                    s += q[d] * k[d];
                row[j] = s * scale;
                if (row[j] > mx)
                    mx = row[j];
            }
            float sum = 0.0f;
            for (int j = 0; j <= last; j++) {
                row[j] = expf(row[j] - mx);
                sum += row[j];
            }
            float inv = 1.0f / sum;
            for (int j = 0; j <= last; j++)
                row[j] *= inv;
            for (int j = last + 1; j < nk; j++)
                row[j] = 0.0f;
            float *c = b->c + (size_t)i * HD + h * dh;
            for (int d = 0; d < dh; d++)
                c[d] = 0.0f;
            for (int j = 0; j <= last; j++) {
                const float *v = b->v + (size_t)j * HD + h * dh;
                float pj = row[j];
                for (int d = 0; d < dh; d++)
                    c[d] += pj * v[d];
            }
        }
    }
    mm(b->y, b->c, aw->wo, n, HD, D, 0);
}

/* Given dy (n, D): adds to daq (n, D) and dakv (nk, D) (may be the same buffer) and to the
 * weight gradients. */
static void attn_bwd(const Model *m, TrainWork *w, float *grad, const SubBuf *b,
                     const AttnWeights *aw, const float *aq, int n, const float *akv, int nk,
                     const float *dy, float *daq, float *dakv, int rope)
{
    int D = m->cfg.d_model, H = m->cfg.n_heads, dh = m->cfg.d_head, HD = H * dh;
    float scale = 1.0f / sqrtf((float)dh);
    float *dc = w->dc, *dq = w->dq, *dk = w->dk, *dv = w->dv;
    mm_at_b(G(m, grad, aw->wo), b->c, dy, n, HD, D);
    memset(dc, 0, sizeof(float) * (size_t)n * HD);
    mm_a_bt(dc, dy, aw->wo, n, D, HD);
    memset(dq, 0, sizeof(float) * (size_t)n * HD);
    memset(dk, 0, sizeof(float) * (size_t)nk * HD);
    memset(dv, 0, sizeof(float) * (size_t)nk * HD);
    for (int h = 0; h < H; h++) {
        const float *P = b->p + (size_t)h * n * nk;
        for (int i = 0; i < n; i++) {
            const float *prow = P + (size_t)i * nk;
            const float *dci = dc + (size_t)i * HD + h * dh;
            float *ds = w->dP; /* (nk) scratch for this row */
            float dot = 0.0f;
            for (int j = 0; j < nk; j++) {
                if (prow[j] == 0.0f) {
                    ds[j] = 0.0f;
                    continue;
                }
                const float *v = b->v + (size_t)j * HD + h * dh;
                float *dvj = dv + (size_t)j * HD + h * dh;
                float s = 0.0f;
                for (int d = 0; d < dh; d++) {
                    s += dci[d] * v[d];
                    dvj[d] += prow[j] * dci[d];
                }
                ds[j] = s;
                dot += s * prow[j];
            }
            const float *q = b->q + (size_t)i * HD + h * dh;
            float *dqi = dq + (size_t)i * HD + h * dh;
            for (int j = 0; j < nk; j++) {
                if (prow[j] == 0.0f)
                    continue;
                float g = prow[j] * (ds[j] - dot) * scale;
                const float *k = b->k + (size_t)j * HD + h * dh;
                float *dkj = dk + (size_t)j * HD + h * dh;
                for (int d = 0; d < dh; d++) {
                    dqi[d] += g * k[d];
                    dkj[d] += g * q[d];
                }
            }
        }
    }
    if (rope) {
        rope_rotate(dq, n, H, dh, m->cfg.rope_base, -1);
        rope_rotate(dk, nk, H, dh, m->cfg.rope_base, -1);
    }
    mm_at_b(G(m, grad, aw->wq), aq, dq, n, D, HD);
    mm_at_b(G(m, grad, aw->wk), akv, dk, nk, D, HD);
    mm_at_b(G(m, grad, aw->wv), akv, dv, nk, D, HD);
    mm_a_bt(daq, dq, aw->wq, n, HD, D);
    mm_a_bt(dakv, dk, aw->wk, nk, HD, D);
    mm_a_bt(dakv, dv, aw->wv, nk, HD, D);
}

/* ---- feed-forward ---- */

static float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

/* d gelu(x)/dx given t = tanh(√(2/π)(x + 0.044715x³)) */
static float gelu_grad(float x, float t)
{
    const float c = 0.7978845608028654f;
    return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * c * (1.0f + 3.0f * 0.044715f * x * x);
}

static void ffn_fwd(const Model *m, SubBuf *b, const LayerWeights *lw, const float *a, int n)
{
    int D = m->cfg.d_model, F = m->cfg.d_ff;
    size_t nf = (size_t)n * F;
    mm(b->u, a, lw->w1, n, D, F, 0);
    if (m->cfg.ffn == FFN_SWIGLU) {
        mm(b->g, a, lw->w3, n, D, F, 0);
        for (size_t i = 0; i < nf; i++)
            b->h[i] = tensor_silu1(b->u[i]) * b->g[i];
    } else {
        if (lw->b1)
            tensor_add_row(b->u, lw->b1, n, F);
        if (m->cfg.ffn == FFN_RELU) {
            for (size_t i = 0; i < nf; i++)
                b->h[i] = b->u[i] > 0.0f ? b->u[i] : 0.0f;
        } else {
            /* tensor_gelu1's formula, keeping tanh(.) in g for the backward pass */
            const float c = 0.7978845608028654f;
            for (size_t i = 0; i < nf; i++) {
                float x = b->u[i];
                b->g[i] = tanhf(c * (x + 0.044715f * x * x * x));
                b->h[i] = 0.5f * x * (1.0f + b->g[i]);
            }
        }
    }
    mm(b->y, b->h, lw->w2, n, F, D, 0);
    if (lw->b2)
        tensor_add_row(b->y, lw->b2, n, D);
}

static void ffn_bwd(const Model *m, TrainWork *w, float *grad, const SubBuf *b,
                    const LayerWeights *lw, const float *a, int n, const float *dy, float *da)
{
    int D = m->cfg.d_model, F = m->cfg.d_ff;
    size_t nf = (size_t)n * F;
    float *dh = w->dh, *du = w->du, *dg = w->dg;
    mm_at_b(G(m, grad, lw->w2), b->h, dy, n, F, D);
    if (lw->b2)
        col_sum(G(m, grad, lw->b2), dy, n, D);
    memset(dh, 0, sizeof(float) * nf);
    mm_a_bt(dh, dy, lw->w2, n, D, F);
    if (m->cfg.ffn == FFN_SWIGLU) {
        for (size_t i = 0; i < nf; i++) {
            float s = sigmoidf(b->u[i]);
            du[i] = dh[i] * b->g[i] * s * (1.0f + b->u[i] * (1.0f - s));
            dg[i] = dh[i] * b->u[i] * s;
        }
        mm_at_b(G(m, grad, lw->w3), a, dg, n, D, F);
        mm_a_bt(da, dg, lw->w3, n, F, D);
    } else {
        for (size_t i = 0; i < nf; i++)
            du[i] = m->cfg.ffn == FFN_RELU ? (b->u[i] > 0.0f ? dh[i] : 0.0f)
                                           : dh[i] * gelu_grad(b->u[i], b->g[i]);
        if (lw->b1)
            col_sum(G(m, grad, lw->b1), du, n, F);
    }
    mm_at_b(G(m, grad, lw->w1), a, du, n, D, F);
    mm_a_bt(da, du, lw->w1, n, F, D);
}

/* ======================= stacks ======================= */

/* Sublayer kinds for the shared residual / norm wrapper. */
enum { SL_SELF, SL_CROSS, SL_FFN };

static void sub_fwd(const Model *m, SubBuf *b, const LayerWeights *lw, int kind,
                    const float *x_in, int n, const float *enc, int n_enc, int causal)
{
    int D = m->cfg.d_model;
    size_t nd = (size_t)n * D;
    const NormWeights *nw = kind == SL_SELF ? &lw->norm1 : kind == SL_CROSS ? &lw->normc
                                                                           : &lw->norm2;
    const float *a = x_in;
    if (m->cfg.pre_norm) {
        norm_fwd(m, &b->nrm, nw, x_in, n);
        a = b->nrm.out;
    }
    if (kind == SL_SELF)
        attn_fwd(m, b, &lw->self, a, n, a, n, causal, m->cfg.pe == PE_ROPE);
    else if (kind == SL_CROSS)
        attn_fwd(m, b, &lw->cross, a, n, enc, n_enc, 0, 0);
    else
        ffn_fwd(m, b, lw, a, n);
    if (m->cfg.pre_norm) {
        tensor_add(b->x_out, x_in, b->y, nd);
    } else {
        float *r = b->x_out; /* the sum, then normalised from nrm.xhat into nrm.out */
        tensor_add(r, x_in, b->y, nd);
        norm_fwd(m, &b->nrm, nw, r, n);
        memcpy(b->x_out, b->nrm.out, sizeof(float) * nd);
    }
}

/* dx: (n, D) gradient of x_out on entry, of x_in on return. denc: gradient of the encoder
 * output (cross-attention). */
static void sub_bwd(const Model *m, TrainWork *w, float *grad, const SubBuf *b,
                    const LayerWeights *lw, int kind, const float *x_in, int n,
                    const float *enc, int n_enc, float *dx)
{
    int D = m->cfg.d_model;
    size_t nd = (size_t)n * D;
    const NormWeights *nw = kind == SL_SELF ? &lw->norm1 : kind == SL_CROSS ? &lw->normc
                                                                           : &lw->norm2;
    float *da = w->da, *dr = w->dr;
    if (m->cfg.pre_norm) {
        /* x_out = x_in + f(norm(x_in)) */
        const float *a = b->nrm.out;
        memset(da, 0, sizeof(float) * nd);
        if (kind == SL_SELF)
            attn_bwd(m, w, grad, b, &lw->self, a, n, a, n, dx, da, da, m->cfg.pe == PE_ROPE);
        else if (kind == SL_CROSS)
            attn_bwd(m, w, grad, b, &lw->cross, a, n, enc, n_enc, dx, da, w->denc, 0);
        else
            ffn_bwd(m, w, grad, b, lw, a, n, dx, da);
        norm_bwd(m, grad, &b->nrm, nw, da, dx, n);
    } else {
        /* x_out = norm(x_in + f(x_in)) */
        memset(dr, 0, sizeof(float) * nd);
        norm_bwd(m, grad, &b->nrm, nw, dx, dr, n);
        memcpy(dx, dr, sizeof(float) * nd);
        if (kind == SL_SELF)
            attn_bwd(m, w, grad, b, &lw->self, x_in, n, x_in, n, dr, dx, dx, m->cfg.pe == PE_ROPE);
        else if (kind == SL_CROSS)
            attn_bwd(m, w, grad, b, &lw->cross, x_in, n, enc, n_enc, dr, dx, w->denc, 0);
        else
            ffn_bwd(m, w, grad, b, lw, x_in, n, dr, dx);
    }
}

static void embed_fwd(const Model *m, StackBuf *s, const int *ids, int n)
{
    int D = m->cfg.d_model;
    float es = m->cfg.scale_embed ? sqrtf((float)D) : 1.0f;
    for (int i = 0; i < n; i++) {
        float *x = s->x0 + (size_t)i * D;
        const float *e = m->tok_embed + (size_t)ids[i] * D;
        for (int j = 0; j < D; j++) {
            float pe = 0.0f;
            if (m->cfg.pe == PE_LEARNED)
                pe = m->pos_embed[(size_t)i * D + j];
            else if (m->cfg.pe == PE_SINUSOIDAL)
                pe = model_sinusoid(i, j, D);
            x[j] = e[j] * es + pe;
        }
    }
}

static void embed_bwd(const Model *m, float *grad, const int *ids, int n, const float *dx)
{
    int D = m->cfg.d_model;
    float es = m->cfg.scale_embed ? sqrtf((float)D) : 1.0f;
    float *dE = G(m, grad, m->tok_embed);
    float *dP = m->cfg.pe == PE_LEARNED ? G(m, grad, m->pos_embed) : NULL;
    for (int i = 0; i < n; i++) {
        float *de = dE + (size_t)ids[i] * D;
        const float *d = dx + (size_t)i * D;
        for (int j = 0; j < D; j++) {
            de[j] += d[j] * es;
            if (dP)
                dP[(size_t)i * D + j] += d[j];
        }
    }
}

static void stack_fwd(const Model *m, StackBuf *s, const LayerWeights *lws,
                      const NormWeights *fin, const int *ids, int n, const float *enc,
                      int n_enc, int causal)
{
    s->n = n;
    s->ids = ids;
    embed_fwd(m, s, ids, n);
    const float *x = s->x0;
    for (int l = 0; l < m->cfg.n_layers; l++) {
        LayerBuf *L = &s->L[l];
        L->x_in = x;
        sub_fwd(m, &L->sa, &lws[l], SL_SELF, x, n, NULL, 0, causal);
        x = L->sa.x_out;
        if (enc) {
            sub_fwd(m, &L->ca, &lws[l], SL_CROSS, x, n, enc, n_enc, 0);
            x = L->ca.x_out;
        }
        sub_fwd(m, &L->ff, &lws[l], SL_FFN, x, n, NULL, 0, 0);
        x = L->ff.x_out;
    }
    if (m->cfg.final_norm) {
        norm_fwd(m, &s->fin, fin, x, n);
        x = s->fin.out;
    }
    s->out = x;
}

/* dx: gradient of the stack output (n, D); destroyed. */
static void stack_bwd(const Model *m, TrainWork *w, float *grad, const StackBuf *s,
                      const LayerWeights *lws, const NormWeights *fin, float *dx,
                      const float *enc, int n_enc)
{
    int n = s->n, D = m->cfg.d_model;
    if (m->cfg.final_norm) {
        memset(w->dr, 0, sizeof(float) * (size_t)n * D);
        norm_bwd(m, grad, &s->fin, fin, dx, w->dr, n);
        memcpy(dx, w->dr, sizeof(float) * (size_t)n * D);
    }
    for (int l = m->cfg.n_layers - 1; l >= 0; l--) {
        const LayerBuf *L = &s->L[l];
        const float *x_ff = enc ? L->ca.x_out : L->sa.x_out;
        sub_bwd(m, w, grad, &L->ff, &lws[l], SL_FFN, x_ff, n, NULL, 0, dx);
        if (enc)
            sub_bwd(m, w, grad, &L->ca, &lws[l], SL_CROSS, L->sa.x_out, n, enc, n_enc, dx);
        sub_bwd(m, w, grad, &L->sa, &lws[l], SL_SELF, L->x_in, n, NULL, 0, dx);
    }
    embed_bwd(m, grad, s->ids, n, dx);
}

double train_forward_backward(const Model *m, TrainWork *w, const TrainExample *ex, int causal,
                              float *grad, int *count)
{
    const ModelConfig *c = &m->cfg;
    int D = c->d_model, V = c->vocab_size;
    int encdec = c->arch == ARCH_ENCDEC;
    *count = 0;
    int rows = encdec ? ex->m : ex->n;
    if (ex->n < 1 || ex->n > w->T || ex->n > c->max_len || (encdec && (ex->m < 1 ||
        ex->m > w->T || ex->m > c->max_len)))
        return -1.0;
    for (int i = 0; i < ex->n; i++)
        if (ex->src[i] < 0 || ex->src[i] >= V)
            return -1.0;
    for (int i = 0; encdec && i < ex->m; i++)
        if (ex->dec[i] < 0 || ex->dec[i] >= V)
            return -1.0;
    for (int i = 0; i < rows; i++)
        if (ex->targets[i] >= V)
            return -1.0;

    const StackBuf *top;
    if (c->arch == ARCH_ENCODER) {
        stack_fwd(m, &w->enc, m->enc, &m->enc_final, ex->src, ex->n, NULL, 0, 0);
        top = &w->enc;
    } else if (c->arch == ARCH_DECODER) {
        stack_fwd(m, &w->dec, m->dec, &m->dec_final, ex->src, ex->n, NULL, 0, causal);
        top = &w->dec;
    } else {
        stack_fwd(m, &w->enc, m->enc, &m->enc_final, ex->src, ex->n, NULL, 0, 0);
        stack_fwd(m, &w->dec, m->dec, &m->dec_final, ex->dec, ex->m, w->enc.out, ex->n,
                  causal);
        top = &w->dec;
    }
    /* LM head and cross-entropy */
    w->logit_rows = rows;
    if (m->lm_head)
        mm(w->logits, top->out, m->lm_head, rows, D, V, 0);
    else
        tensor_matmul_bt(w->logits, top->out, m->tok_embed, rows, D, V);
    double loss = 0.0;
    int cnt = 0;
    for (int i = 0; i < rows; i++) {
        const float *lg = w->logits + (size_t)i * V;
        float *dl = w->dlog + (size_t)i * V;
        int t = ex->targets[i];
        if (t < 0) {
            memset(dl, 0, sizeof(float) * (size_t)V);
            continue;
        }
        float mx = lg[0];
        for (int j = 1; j < V; j++)
            if (lg[j] > mx)
                mx = lg[j];
        double sum = 0.0;
        for (int j = 0; j < V; j++) {
            dl[j] = expf(lg[j] - mx);
            sum += dl[j];
        }
        loss += log(sum) - (double)(lg[t] - mx);
        float inv = (float)(1.0 / sum);
        for (int j = 0; j < V; j++)
            dl[j] *= inv;
        dl[t] -= 1.0f;
        cnt++;
    }
    *count = cnt;
    if (!grad)
        return loss;

    /* backward */
    float *dx = w->dx;
    memset(dx, 0, sizeof(float) * (size_t)rows * D);
    if (m->lm_head) {
        mm_at_b(G(m, grad, m->lm_head), top->out, w->dlog, rows, D, V);
        mm_a_bt(dx, w->dlog, m->lm_head, rows, V, D);
    } else {
        mm_at_b(G(m, grad, m->tok_embed), w->dlog, top->out, rows, V, D);
        mm(dx, w->dlog, m->tok_embed, rows, V, D, 1);
    }
    if (c->arch == ARCH_ENCODER) {
        stack_bwd(m, w, grad, &w->enc, m->enc, &m->enc_final, dx, NULL, 0);
    } else if (c->arch == ARCH_DECODER) {
        stack_bwd(m, w, grad, &w->dec, m->dec, &m->dec_final, dx, NULL, 0);
    } else {
        memset(w->denc, 0, sizeof(float) * (size_t)ex->n * D);
        stack_bwd(m, w, grad, &w->dec, m->dec, &m->dec_final, dx, w->enc.out, ex->n);
        memcpy(dx, w->denc, sizeof(float) * (size_t)ex->n * D);
        stack_bwd(m, w, grad, &w->enc, m->enc, &m->enc_final, dx, NULL, 0);
    }
    return loss;
}

/* ======================= optimiser ======================= */

void train_opts_defaults(TrainOpts *o)
{
    memset(o, 0, sizeof *o);
    o->steps = 1000;
    o->batch = 16;
    o->seq_len = 32;
    o->lr = 3e-3f;
    o->min_lr_ratio = 0.1f;
    o->warmup = 50;
    o->weight_decay = 0.01f;
    o->beta1 = 0.9f;
    o->beta2 = 0.99f;
    o->eps = 1e-8f;
    o->clip = 1.0f;
    o->causal = 1;
    o->mask_rate = 0.15f;
    o->threads = 2;
    o->seed = 1;
}

float train_lr_at(const TrainOpts *o, int step)
{
    if (o->warmup > 0 && step < o->warmup)
        return o->lr * (float)(step + 1) / (float)o->warmup;
    int rest = o->steps - o->warmup;
    if (rest <= 1)
        return o->lr;
    float prog = (float)(step - o->warmup) / (float)(rest - 1);
    if (prog > 1.0f)
        prog = 1.0f;
    float cosv = 0.5f * (1.0f + cosf(3.14159265358979f * prog));
    return o->lr * (o->min_lr_ratio + (1.0f - o->min_lr_ratio) * cosv);
}

void train_adamw(float *w, const float *g, float *mom, float *vel, const unsigned char *decay,
                 size_t n, int t, float lr, const TrainOpts *o)
{
    float b1 = o->beta1, b2 = o->beta2;
    float bc1 = 1.0f - powf(b1, (float)t), bc2 = 1.0f - powf(b2, (float)t);
    for (size_t i = 0; i < n; i++) {
        if (decay[i])
            w[i] -= lr * o->weight_decay * w[i];
        mom[i] = b1 * mom[i] + (1.0f - b1) * g[i];
        vel[i] = b2 * vel[i] + (1.0f - b2) * g[i] * g[i];
        float mh = mom[i] / bc1, vh = vel[i] / bc2;
        w[i] -= lr * mh / (sqrtf(vh) + o->eps);
    }
}

/* ======================= masked language modelling ======================= */

int train_mask_id(const Model *m)
{
    int id = vocab_id(&m->vocab, "<mask>");
    return id >= 0 ? id : m->vocab.unk_id;
}

int train_mlm_mask(CorpusRng *rng, const int *ids, int n, float rate, int mask_id,
                   const int *pool, int n_pool, int *src, int *tgt)
{
    double cut = (double)rate * 4294967296.0;
    int chosen = 0;
    for (int i = 0; i < n; i++) {
        src[i] = ids[i];
        tgt[i] = -1;
        if ((double)corpus_rng_next(rng) < cut) {
            tgt[i] = ids[i];
            chosen++;
        }
    }
    if (!chosen && n > 0) {
        int i = (int)(corpus_rng_next(rng) % (uint32_t)n);
        tgt[i] = ids[i];
        chosen = 1;
    }
    for (int i = 0; i < n; i++) {
        if (tgt[i] < 0)
            continue;
        uint32_t r = corpus_rng_next(rng) % 10u;
        if (r == 8 && pool && n_pool > 0)
            src[i] = pool[corpus_rng_next(rng) % (uint32_t)n_pool];
        else if (r < 9)
            src[i] = mask_id;
        /* r == 9: the word stays, so the model must also check words it can see */
    }
    return chosen;
}

/* ======================= the Trainer ======================= */

#define N_HALVES 2 /* the batch is always split in two halves: same sums for 1 or 2 threads */

typedef struct {
    Trainer *t;
    int half;
    TrainWork *w;
    float *grad;
    double loss;
    int count;
    int bad;
} Half;

struct Trainer {
    Model *m;
    const Corpus *c;
    TrainOpts o;
    CorpusRng rng;
    int step;
    float loss, lr, gnorm;
    long tokens;
    float *grad;          /* (n_floats) summed gradient */
    float *mom, *vel;     /* AdamW state */
    unsigned char *decay; /* (n_floats) */
    int *ex_src, *ex_dec, *ex_tgt;  /* (batch, max_len) example buffers */
    int *ex_n, *ex_m;
    int cur_batch;        /* examples in the current step */
    int bos, eos;
    int mlm, mask_id;     /* encoder: masked-LM training with this mask token */
    Half halves[N_HALVES];
    char err[256];
};

static void sample_batch(Trainer *t)
{
    const Corpus *c = t->c;
    int L = t->m->cfg.max_len;
    for (int b = 0; b < t->o.batch; b++) {
        int *src = t->ex_src + (size_t)b * L, *dec = t->ex_dec + (size_t)b * L;
        int *tgt = t->ex_tgt + (size_t)b * L;
        if (t->mlm) {
            /* one sentence, BERT-masked */
            int line = (int)(corpus_rng_next(&t->rng) % (uint32_t)c->n_lines);
            int start = c->starts[line];
            int end = line + 1 < c->n_lines ? c->starts[line + 1] : c->n_ids;
            int len = end - start < L ? end - start : L;
            train_mlm_mask(&t->rng, c->ids + start, len, t->o.mask_rate, t->mask_id, c->ids,
                           c->n_ids, src, tgt);
            t->ex_n[b] = len;
            t->ex_m[b] = 0;
        } else if (c->kind == CORPUS_LM) {
            int len = t->o.seq_len;
            int line = (int)(corpus_rng_next(&t->rng) % (uint32_t)c->n_lines);
            int start = c->starts[line];
            if (start + len + 1 > c->n_ids)
                start = c->n_ids - len - 1;
            if (start < 0) {
                start = 0;
                len = c->n_ids - 1;
            }
            for (int i = 0; i < len; i++) {
                src[i] = c->ids[start + i];
                tgt[i] = c->ids[start + i + 1];
            }
            t->ex_n[b] = len;
            t->ex_m[b] = 0;
        } else {
            int p = (int)(corpus_rng_next(&t->rng) % (uint32_t)c->n_pairs);
            const CorpusPair *cp = &c->pairs[p];
            int n = cp->src_len < L ? cp->src_len : L;
            int mm_ = cp->tgt_len + 1 < L ? cp->tgt_len + 1 : L;
            memcpy(src, c->ids + cp->src_off, sizeof(int) * (size_t)n);
            dec[0] = t->bos;
            for (int i = 1; i < mm_; i++)
                dec[i] = c->ids[cp->tgt_off + i - 1];
            for (int i = 0; i < mm_; i++)
                tgt[i] = i < cp->tgt_len ? c->ids[cp->tgt_off + i] : t->eos;
            t->ex_n[b] = n;
            t->ex_m[b] = mm_;
        }
    }
}

static void *half_run(void *arg)
{
    Half *h = arg;
    Trainer *t = h->t;
    int L = t->m->cfg.max_len;
    int per = (t->cur_batch + N_HALVES - 1) / N_HALVES;
    int b0 = h->half * per, b1 = b0 + per < t->cur_batch ? b0 + per : t->cur_batch;
    memset(h->grad, 0, sizeof(float) * t->m->n_floats);
    h->loss = 0.0;
    h->count = 0;
    h->bad = 0;
    for (int b = b0; b < b1; b++) {
        TrainExample ex = {t->ex_src + (size_t)b * L, t->ex_n[b], t->ex_dec + (size_t)b * L,
                           t->ex_m[b], t->ex_tgt + (size_t)b * L};
        int cnt;
        double l = train_forward_backward(t->m, h->w, &ex, t->o.causal, h->grad, &cnt);
        if (l < 0.0) {
            h->bad = 1;
            return NULL;
        }
        h->loss += l;
        h->count += cnt;
    }
    return NULL;
}

Trainer *train_new(Model *m, const Corpus *c, const TrainOpts *o, int init, char *err,
                   size_t errlen)
{
    const ModelConfig *mc = &m->cfg;
    if ((mc->arch == ARCH_ENCDEC) != (c->kind == CORPUS_PAIRS)) {
        snprintf(err, errlen, "a%s model needs a %s corpus",
                 mc->arch == ARCH_ENCDEC ? "n encoder-decoder" : " decoder or encoder",
                 mc->arch == ARCH_ENCDEC ? "sentence-pair" : "text");
        return NULL;
    }
    if (mc->arch == ARCH_ENCODER && !(o->mask_rate > 0.0f && o->mask_rate <= 1.0f)) {
        snprintf(err, errlen, "bad training options: mask_rate %g (an encoder needs 0 < "
                 "mask_rate <= 1)", (double)o->mask_rate);
        return NULL;
    }
    if (o->steps < 1 || o->batch < 1 || o->lr <= 0.0f || o->seq_len < 1 ||
        o->seq_len > mc->max_len) {
        snprintf(err, errlen, "bad training options: steps %d, batch %d, lr %g, seq_len %d "
                 "(max_len %d)", o->steps, o->batch, (double)o->lr, o->seq_len, mc->max_len);
        return NULL;
    }
    if (c->kind == CORPUS_LM && c->n_ids < 2) {
        snprintf(err, errlen, "the corpus is too short");
        return NULL;
    }
    Trainer *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->m = m;
    t->c = c;
    t->o = *o;
    if (t->o.threads < 1)
        t->o.threads = 1;
    if (t->o.threads > N_HALVES)
        t->o.threads = N_HALVES;
    corpus_rng_seed(&t->rng, o->seed);
    t->bos = vocab_id(&m->vocab, "<bos>");
    t->eos = vocab_id(&m->vocab, "<eos>");
    t->mlm = mc->arch == ARCH_ENCODER;
    t->mask_id = train_mask_id(m);
    if (c->kind == CORPUS_PAIRS && (t->bos < 0 || t->eos < 0)) {
        snprintf(err, errlen, "the vocabulary needs <bos> and <eos> for translation");
        free(t);
        return NULL;
    }
    size_t nf = m->n_floats, L = (size_t)mc->max_len, B = (size_t)o->batch;
    t->grad = calloc(nf, sizeof(float));
    t->mom = calloc(nf, sizeof(float));
    t->vel = calloc(nf, sizeof(float));
    t->decay = calloc(nf, 1);
    t->ex_src = calloc(B * L, sizeof(int));
    t->ex_dec = calloc(B * L, sizeof(int));
    t->ex_tgt = calloc(B * L, sizeof(int));
    t->ex_n = calloc(B, sizeof(int));
    t->ex_m = calloc(B, sizeof(int));
    int ok = t->grad && t->mom && t->vel && t->decay && t->ex_src && t->ex_dec && t->ex_tgt &&
             t->ex_n && t->ex_m;
    for (int h = 0; ok && h < N_HALVES; h++) {
        t->halves[h].t = t;
        t->halves[h].half = h;
        t->halves[h].w = train_work_new(m, mc->max_len, mc->max_len);
        t->halves[h].grad = calloc(nf, sizeof(float));
        ok = t->halves[h].w && t->halves[h].grad;
    }
    if (!ok) {
        snprintf(err, errlen, "out of memory");
        train_free(t);
        return NULL;
    }
    /* matrices decay; gains, biases and an unused pos_embed do not */
    for (int i = 0; i < m->n_params; i++)
        if (m->params[i].rows > 1 &&
            (mc->pe == PE_LEARNED || strcmp(m->params[i].name, "pos_embed") != 0))
            memset(t->decay + m->params[i].offset, 1,
                   (size_t)m->params[i].rows * (size_t)m->params[i].cols);
    if (init)
        model_init_random(m, o->seed);
    return t;
}

static int run_step(Trainer *t);

int train_step(Trainer *t)
{
    if (t->step >= t->o.steps)
        return 1;
    sample_batch(t);
    t->cur_batch = t->o.batch;
    return run_step(t);
}

int train_step_on(Trainer *t, const TrainExample *ex, int n_ex)
{
    int L = t->m->cfg.max_len;
    if (n_ex < 1 || n_ex > t->o.batch) {
        snprintf(t->err, sizeof t->err, "%d examples for a batch of at most %d", n_ex,
                 t->o.batch);
        return -1;
    }
    int encdec = t->m->cfg.arch == ARCH_ENCDEC;
    for (int b = 0; b < n_ex; b++) {
        int rows = encdec ? ex[b].m : ex[b].n;
        if (ex[b].n < 1 || ex[b].n > L || rows < 1 || rows > L) {
            snprintf(t->err, sizeof t->err, "example %d is longer than max_len %d or empty", b, L);
            return -1;
        }
        memcpy(t->ex_src + (size_t)b * L, ex[b].src, sizeof(int) * (size_t)ex[b].n);
        if (encdec)
            memcpy(t->ex_dec + (size_t)b * L, ex[b].dec, sizeof(int) * (size_t)ex[b].m);
        memcpy(t->ex_tgt + (size_t)b * L, ex[b].targets, sizeof(int) * (size_t)rows);
        t->ex_n[b] = ex[b].n;
        t->ex_m[b] = encdec ? ex[b].m : 0;
    }
    t->cur_batch = n_ex;
    return run_step(t);
}

const float *train_last_grad(const Trainer *t) { return t->grad; }

static int run_step(Trainer *t)
{
    if (t->o.threads > 1) {
        pthread_t th[N_HALVES];
        int started[N_HALVES] = {0};
        for (int h = 1; h < N_HALVES; h++)
            started[h] = pthread_create(&th[h], NULL, half_run, &t->halves[h]) == 0;
        half_run(&t->halves[0]);
        for (int h = 1; h < N_HALVES; h++) {
            if (started[h])
                pthread_join(th[h], NULL);
            else
                half_run(&t->halves[h]);
        }
    } else {
        for (int h = 0; h < N_HALVES; h++)
            half_run(&t->halves[h]);
    }
    double loss = 0.0;
    int count = 0;
    for (int h = 0; h < N_HALVES; h++) {
        if (t->halves[h].bad) {
            snprintf(t->err, sizeof t->err, "an example is longer than max_len or has a bad id");
            return -1;
        }
        loss += t->halves[h].loss;
        count += t->halves[h].count;
    }
    if (count == 0) {
        snprintf(t->err, sizeof t->err, "a batch without any target token");
        return -1;
    }
    size_t nf = t->m->n_floats;
    float inv = 1.0f / (float)count;
    double ss = 0.0;
    for (size_t i = 0; i < nf; i++) {
        float g = t->halves[0].grad[i];
        for (int h = 1; h < N_HALVES; h++)
            g += t->halves[h].grad[i];
        g *= inv;
        t->grad[i] = g;
        ss += (double)g * g;
    }
    float norm = (float)sqrt(ss);
    if (!isfinite(norm)) {
        snprintf(t->err, sizeof t->err, "the gradient is not finite at step %d", t->step + 1);
        return -1;
    }
    if (t->o.clip > 0.0f && norm > t->o.clip) {
        float s = t->o.clip / norm;
        for (size_t i = 0; i < nf; i++)
            t->grad[i] *= s;
    }
    float lr = train_lr_at(&t->o, t->step);
    train_adamw(t->m->data, t->grad, t->mom, t->vel, t->decay, nf, t->step + 1, lr, &t->o);
    t->step++;
    t->loss = (float)(loss / count);
    t->lr = lr;
    t->gnorm = norm;
    t->tokens += count;
    return 0;
}

int train_step_count(const Trainer *t) { return t->step; }
float train_last_loss(const Trainer *t) { return t->loss; }
float train_last_lr(const Trainer *t) { return t->lr; }
float train_last_grad_norm(const Trainer *t) { return t->gnorm; }
long train_tokens_done(const Trainer *t) { return t->tokens; }
const Model *train_model(const Trainer *t) { return t->m; }
const char *train_error(const Trainer *t) { return t->err; }

void train_free(Trainer *t)
{
    if (!t)
        return;
    for (int h = 0; h < N_HALVES; h++) {
        train_work_free(t->halves[h].w);
        free(t->halves[h].grad);
    }
    free(t->grad);
    free(t->mom);
    free(t->vel);
    free(t->decay);
    free(t->ex_src);
    free(t->ex_dec);
    free(t->ex_tgt);
    free(t->ex_n);
    free(t->ex_m);
    free(t);
}

double train_eval_loss(const Model *m, const Corpus *c, const TrainOpts *o, int causal,
                       int max_examples)
{
    int L = m->cfg.max_len;
    TrainWork *w = train_work_new(m, L, L);
    int *src = malloc(sizeof(int) * (size_t)L), *dec = malloc(sizeof(int) * (size_t)L);
    int *tgt = malloc(sizeof(int) * (size_t)L);
    int bos = vocab_id(&m->vocab, "<bos>"), eos = vocab_id(&m->vocab, "<eos>");
    int mlm = m->cfg.arch == ARCH_ENCODER, mask_id = train_mask_id(m);
    CorpusRng rng;
    corpus_rng_seed(&rng, 0x6d61736bu); /* "mask": the same masks whatever the model */
    double loss = 0.0;
    long count = 0;
    if (!w || !src || !dec || !tgt)
        goto done;
    for (int e = 0; e < max_examples; e++) {
        TrainExample ex = {src, 0, dec, 0, tgt};
        if (mlm) {
            if (c->kind != CORPUS_LM || e >= c->n_lines)
                break;
            int start = c->starts[e], end = e + 1 < c->n_lines ? c->starts[e + 1] : c->n_ids;
            int len = end - start < L ? end - start : L;
            if (len < 1)
                continue;
            train_mlm_mask(&rng, c->ids + start, len, o->mask_rate, mask_id, NULL, 0, src, tgt);
            for (int i = 0; i < len; i++) /* the plain task: every chosen word hidden */
                if (tgt[i] >= 0)
                    src[i] = mask_id;
            ex.n = len;
        } else if (c->kind == CORPUS_LM) {
            int len = o->seq_len, start = e * len;
            if (start + len + 1 > c->n_ids)
                break;
            for (int i = 0; i < len; i++) {
                src[i] = c->ids[start + i];
                tgt[i] = c->ids[start + i + 1];
            }
            ex.n = len;
        } else {
            if (e >= c->n_pairs)
                break;
            const CorpusPair *cp = &c->pairs[e];
            if (cp->src_len > L || cp->tgt_len + 1 > L)
                continue;
            memcpy(src, c->ids + cp->src_off, sizeof(int) * (size_t)cp->src_len);
            dec[0] = bos;
            for (int i = 0; i < cp->tgt_len; i++) {
                dec[i + 1] = c->ids[cp->tgt_off + i];
                tgt[i] = dec[i + 1];
            }
            tgt[cp->tgt_len] = eos;
            ex.n = cp->src_len;
            ex.m = cp->tgt_len + 1;
        }
        int cnt;
        double l = train_forward_backward(m, w, &ex, causal, NULL, &cnt);
        if (l < 0.0) {
            loss = NAN;
            goto done;
        }
        loss += l;
        count += cnt;
    }
done:
    train_work_free(w);
    free(src);
    free(dec);
    free(tgt);
    return count ? loss / (double)count : NAN;
}

/* ======================= what the heads do ======================= */

/* Runs one sentence through model_forward; NULL on error. */
static int run_pair(const Model *m, Trace *t, const int *src, int n, const int *dec, int mm_)
{
    Controls c;
    char err[256];
    model_default_controls(m, &c);
    /* model_forward takes the target words and reads them shifted right behind <bos>;
     * dec is that input (<bos> first), so the targets are dec[1..]: mm_ - 1 rows, each the
     * step that produces one French word. */
    if (m->cfg.arch == ARCH_ENCDEC)
        return model_forward(m, src, n, dec + 1, mm_ - 1, &c, t, err, sizeof err);
    return model_forward(m, src, n, dec, mm_, &c, t, err, sizeof err);
}

/* The example of line/pair e of c: src (and dec with <bos>); returns 0 or -1 if too long. */
static int corpus_example(const Model *m, const Corpus *c, int e, int *src, int *n, int *dec,
                          int *mm_)
{
    int L = m->cfg.max_len;
    if (c->kind == CORPUS_LM) {
        int start = c->starts[e], end = e + 1 < c->n_lines ? c->starts[e + 1] : c->n_ids;
        if (end - start > L || end == start)
            return -1;
        memcpy(src, c->ids + start, sizeof(int) * (size_t)(end - start));
        *n = end - start;
        *mm_ = 0;
        return 0;
    }
    const CorpusPair *p = &c->pairs[e];
    if (p->src_len > L || p->tgt_len + 1 > L)
        return -1;
    memcpy(src, c->ids + p->src_off, sizeof(int) * (size_t)p->src_len);
    dec[0] = vocab_id(&m->vocab, "<bos>");
    memcpy(dec + 1, c->ids + p->tgt_off, sizeof(int) * (size_t)p->tgt_len);
    *n = p->src_len;
    *mm_ = p->tgt_len + 1;
    return 0;
}

int train_head_stats(const Model *m, const Corpus *c, int max_lines, int enc, HeadStat *out)
{
    const ModelConfig *cfg = &m->cfg;
    int L = cfg->max_len, H = cfg->n_heads;
    int encdec = cfg->arch == ARCH_ENCDEC;
    if ((c->kind == CORPUS_PAIRS) != encdec)
        return -1;
    Stack st = (cfg->arch == ARCH_ENCODER || (encdec && enc)) ? STACK_ENC : STACK_DEC;
    Trace *t = trace_new(m, L, L);
    int *src = malloc(sizeof(int) * (size_t)L), *dec = malloc(sizeof(int) * (size_t)L);
    int rc = -1;
    if (!t || !src || !dec)
        goto out;
    memset(out, 0, sizeof *out * (size_t)cfg->n_layers * H);
    int lines = c->kind == CORPUS_LM ? c->n_lines : c->n_pairs;
    for (int e = 0; e < lines && e < max_lines; e++) {
        int n, mm_;
        if (corpus_example(m, c, e, src, &n, dec, &mm_) || run_pair(m, t, src, n, dec, mm_))
            continue;
        for (int l = 0; l < cfg->n_layers; l++)
            for (int h = 0; h < H; h++) {
                const TraceEntry *w = trace_find(t, st, l, SUB_SELF, h, T_WEIGHTS);
                if (!w)
                    goto out;
                HeadStat *hs = &out[l * H + h];
                for (int i = 0; i < w->rows; i++) {
                    const float *r = w->data + (size_t)i * w->cols;
                    if (i + 1 < w->cols) {
                        hs->next += r[i + 1];
                        hs->next_rows++;
                    }
                    if (i == 0)
                        continue;
                    hs->prev += r[i - 1];
                    hs->self += r[i];
                    hs->first += r[0];
                    hs->rows++;
                }
            }
    }
    for (int k = 0; k < cfg->n_layers * H; k++) {
        if (out[k].rows) {
            out[k].prev /= out[k].rows;
            out[k].self /= out[k].rows;
            out[k].first /= out[k].rows;
        }
        if (out[k].next_rows)
            out[k].next /= out[k].next_rows;
    }
    rc = 0;
out:
    trace_free(t);
    free(src);
    free(dec);
    return rc;
}

int train_cross_alignment(const Model *m, const Corpus *c, int layer, int head,
                          double *word_acc, double *pair_acc)
{
    const ModelConfig *cfg = &m->cfg;
    int L = cfg->max_len;
    *word_acc = *pair_acc = 0.0;
    if (cfg->arch != ARCH_ENCDEC || c->kind != CORPUS_PAIRS || layer < 0 ||
        layer >= cfg->n_layers || head < -1 || head >= cfg->n_heads)
        return -1;
    Trace *t = trace_new(m, L, L);
    int *src = malloc(sizeof(int) * (size_t)L), *dec = malloc(sizeof(int) * (size_t)L);
    float *avg = malloc(sizeof(float) * (size_t)L * L);
    long words = 0, good_words = 0, pairs = 0, good_pairs = 0;
    int rc = -1;
    if (!t || !src || !dec || !avg)
        goto out;
    for (int e = 0; e < c->n_pairs; e++) {
        int n, mm_;
        if (!c->pairs[e].n_links || corpus_example(m, c, e, src, &n, dec, &mm_))
            continue;
        if (run_pair(m, t, src, n, dec, mm_))
            goto out;
        memset(avg, 0, sizeof(float) * (size_t)mm_ * n);
        for (int h = 0; h < cfg->n_heads; h++) {
            if (head >= 0 && h != head)
                continue;
            const TraceEntry *w = trace_find(t, STACK_DEC, layer, SUB_CROSS, h, T_WEIGHTS);
            if (!w)
                goto out;
            for (int k = 0; k < mm_ * n; k++)
                avg[k] += w->data[k];
        }
        int all = 1;
        for (int j = 0; j < mm_ - 1; j++) { /* row j produces French word j */
            const float *r = avg + (size_t)j * n;
            int best = 0;
            for (int i = 1; i < n; i++)
                if (r[i] > r[best])
                    best = i;
            int ok = corpus_linked(c, e, best, j);
            good_words += ok;
            all &= ok;
            words++;
        }
        good_pairs += all;
        pairs++;
    }
    if (!pairs)
        goto out;
    *word_acc = (double)good_words / words;
    *pair_acc = (double)good_pairs / pairs;
    rc = 0;
out:
    trace_free(t);
    free(src);
    free(dec);
    free(avg);
    return rc;
}

static const char *const SUMMARY_SENTENCES[] = {
    "the cat sat on the mat .", "she sat by the river bank .", "i deposited money at the bank .",
    "the lawyer who the witness saw left .", "the dog chased the cat .", "the cat sat down .",
    "i am happy .", "the animal didn't cross the street because it was too tired .",
};

/* bidir: the stack reads both ways (an encoder), so the next token is a candidate too. */
static void verdict(FILE *out, const char *name, const HeadStat *hs, int bidir)
{
    const char *what = "a content pattern (by meaning, not position)";
    double best = 0.4;
    if (hs->prev >= best) { what = "the previous token"; best = hs->prev; }
    if (bidir && hs->next >= best) { what = "the next token"; best = hs->next; }
    if (hs->self >= best) { what = "itself"; best = hs->self; }
    if (hs->first >= best) { what = "the first token"; best = hs->first; }
    if (bidir)
        fprintf(out, "%-14s prev %.2f  next %.2f  self %.2f  first %.2f  -> mostly %s\n", name,
                hs->prev, hs->next, hs->self, hs->first, what);
    else
        fprintf(out, "%-14s prev %.2f  self %.2f  first %.2f  -> mostly %s\n", name, hs->prev,
                hs->self, hs->first, what);
}

int train_head_summary(const Model *m, const Corpus *c, FILE *out)
{
    const ModelConfig *cfg = &m->cfg;
    int H = cfg->n_heads, encdec = cfg->arch == ARCH_ENCDEC;
    Corpus own;
    memset(&own, 0, sizeof own);
    if (!c) {
        /* the built-in sentences as a small LM corpus (decoder and encoder models) */
        if (encdec)
            return -1;
        own.kind = CORPUS_LM;
        int nsent = (int)(sizeof SUMMARY_SENTENCES / sizeof SUMMARY_SENTENCES[0]);
        own.ids = malloc(sizeof(int) * 64 * (size_t)nsent);
        own.starts = malloc(sizeof(int) * (size_t)nsent);
        if (!own.ids || !own.starts) {
            corpus_free(&own);
            return -1;
        }
        for (int s = 0; s < nsent; s++) {
            own.starts[own.n_lines++] = own.n_ids;
            own.n_ids += vocab_tokenize(&m->vocab, SUMMARY_SENTENCES[s], own.ids + own.n_ids, 64,
                                        NULL);
        }
        c = &own;
    }
    HeadStat *hs = calloc((size_t)cfg->n_layers * H, sizeof *hs);
    int rc = -1;
    if (!hs)
        goto out;
    for (int pass = 0; pass < (encdec ? 2 : 1); pass++) {
        int enc = encdec ? pass == 0 : cfg->arch == ARCH_ENCODER;
        if (train_head_stats(m, c, 500, enc, hs))
            goto out;
        for (int l = 0; l < cfg->n_layers; l++)
            for (int h = 0; h < H; h++) {
                char name[48];
                snprintf(name, sizeof name, "%sL%d.h%d", encdec ? (enc ? "enc." : "dec.") : "",
                         l, h);
                verdict(out, name, &hs[l * H + h], enc);
            }
    }
    if (encdec)
        for (int l = 0; l < cfg->n_layers; l++)
            for (int h = 0; h < H; h++) {
                double wa, pa;
                if (train_cross_alignment(m, c, l, h, &wa, &pa))
                    continue;
                fprintf(out, "dec.L%d.cross.h%d argmax on the aligned English word for %.0f%% "
                        "of French words (%.0f%% of sentences)\n", l, h, 100 * wa, 100 * pa);
            }
    rc = 0;
out:
    free(hs);
    corpus_free(&own);
    return rc;
}
