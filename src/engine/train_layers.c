/* train_layers.c - the trainer's norms, attention and feed-forward, forward (keeping what the
 * backward pass needs) and backward. */
/* The kernels are written so the compiler can vectorise them (no reductions in inner loops
 * except through 8 independent lanes); GCC needs -O3 for that, whatever the build's -O. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#include <math.h>
#include <string.h>

#include "tensor.h"
#include "train_internal.h"

/* ---- norms ---- */

void train_norm_fwd(const Model *m, NormBuf *b, const NormWeights *nw, const float *x, int n)
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
void train_norm_bwd(const Model *m, float *grad, const NormBuf *b, const NormWeights *nw,
                     const float *dy, float *dx, int n)
{
    int D = m->cfg.d_model;
    float *dgain = train_grad_of(m, grad, nw->gain);
    float *dbias = nw->bias ? train_grad_of(m, grad, nw->bias) : NULL;
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
void train_attn_fwd(const Model *m, SubBuf *b, const AttnWeights *aw, const float *aq, int n,
                     const float *akv, int nk, int causal, int rope)
{
    int D = m->cfg.d_model, H = m->cfg.n_heads, dh = m->cfg.d_head, HD = H * dh;
    float scale = 1.0f / sqrtf((float)dh);
    train_mm(b->q, aq, aw->wq, n, D, HD, 0);
    train_mm(b->k, akv, aw->wk, nk, D, HD, 0);
    train_mm(b->v, akv, aw->wv, nk, D, HD, 0);
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
    train_mm(b->y, b->c, aw->wo, n, HD, D, 0);
}

/* Given dy (n, D): adds to daq (n, D) and dakv (nk, D) (may be the same buffer) and to the
 * weight gradients. */
void train_attn_bwd(const Model *m, TrainWork *w, float *grad, const SubBuf *b,
                     const AttnWeights *aw, const float *aq, int n, const float *akv, int nk,
                     const float *dy, float *daq, float *dakv, int rope)
{
    int D = m->cfg.d_model, H = m->cfg.n_heads, dh = m->cfg.d_head, HD = H * dh;
    float scale = 1.0f / sqrtf((float)dh);
    float *dc = w->dc, *dq = w->dq, *dk = w->dk, *dv = w->dv;
    train_mm_at_b(train_grad_of(m, grad, aw->wo), b->c, dy, n, HD, D);
    memset(dc, 0, sizeof(float) * (size_t)n * HD);
    train_mm_a_bt(dc, dy, aw->wo, n, D, HD, w->abt);
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
    train_mm_at_b(train_grad_of(m, grad, aw->wq), aq, dq, n, D, HD);
    train_mm_at_b(train_grad_of(m, grad, aw->wk), akv, dk, nk, D, HD);
    train_mm_at_b(train_grad_of(m, grad, aw->wv), akv, dv, nk, D, HD);
    train_mm_a_bt(daq, dq, aw->wq, n, HD, D, w->abt);
    train_mm_a_bt(dakv, dk, aw->wk, nk, HD, D, w->abt);
    train_mm_a_bt(dakv, dv, aw->wv, nk, HD, D, w->abt);
}

/* ---- feed-forward ---- */

static float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

/* d gelu(x)/dx given t = tanh(√(2/π)(x + 0.044715x³)) */
static float gelu_grad(float x, float t)
{
    const float c = 0.7978845608028654f;
    return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * c * (1.0f + 3.0f * 0.044715f * x * x);
}

void train_ffn_fwd(const Model *m, SubBuf *b, const LayerWeights *lw, const float *a, int n)
{
    int D = m->cfg.d_model, F = m->cfg.d_ff;
    size_t nf = (size_t)n * F;
    train_mm(b->u, a, lw->w1, n, D, F, 0);
    if (m->cfg.ffn == FFN_SWIGLU) {
        train_mm(b->g, a, lw->w3, n, D, F, 0);
        for (size_t i = 0; i < nf; i++)
            b->h[i] = tensor_silu1(b->u[i]) * b->g[i];
    } else {
        if (lw->b1)
            tensor_add_row(b->u, lw->b1, n, F);
        if (m->cfg.ffn == FFN_RELU) {
            for (size_t i = 0; i < nf; i++)
                b->h[i] = b->u[i] > 0.0f ? b->u[i] : 0.0f;
        } else {
            /* tensor_gelu1's formula, keeping tanh(.) in g for the backward pass (the
             * trainer's own tanh: vectorised, and the same bits on every CPU) */
            const float c = 0.7978845608028654f;
            for (size_t i = 0; i < nf; i++) {
                float x = b->u[i];
                b->g[i] = c * (x + 0.044715f * x * x * x);
            }
            train_tanh(b->g, b->g, nf);
            for (size_t i = 0; i < nf; i++)
                b->h[i] = 0.5f * b->u[i] * (1.0f + b->g[i]);
        }
    }
    train_mm(b->y, b->h, lw->w2, n, F, D, 0);
    if (lw->b2)
        tensor_add_row(b->y, lw->b2, n, D);
}

void train_ffn_bwd(const Model *m, TrainWork *w, float *grad, const SubBuf *b,
                    const LayerWeights *lw, const float *a, int n, const float *dy, float *da)
{
    int D = m->cfg.d_model, F = m->cfg.d_ff;
    size_t nf = (size_t)n * F;
    float *dh = w->dh, *du = w->du, *dg = w->dg;
    train_mm_at_b(train_grad_of(m, grad, lw->w2), b->h, dy, n, F, D);
    if (lw->b2)
        train_col_sum(train_grad_of(m, grad, lw->b2), dy, n, D);
    memset(dh, 0, sizeof(float) * nf);
    train_mm_a_bt(dh, dy, lw->w2, n, D, F, w->abt);
    if (m->cfg.ffn == FFN_SWIGLU) {
        for (size_t i = 0; i < nf; i++) {
            float s = sigmoidf(b->u[i]);
            du[i] = dh[i] * b->g[i] * s * (1.0f + b->u[i] * (1.0f - s));
            dg[i] = dh[i] * b->u[i] * s;
        }
        train_mm_at_b(train_grad_of(m, grad, lw->w3), a, dg, n, D, F);
        train_mm_a_bt(da, dg, lw->w3, n, F, D, w->abt);
    } else {
        for (size_t i = 0; i < nf; i++)
            du[i] = m->cfg.ffn == FFN_RELU ? (b->u[i] > 0.0f ? dh[i] : 0.0f)
                                           : dh[i] * gelu_grad(b->u[i], b->g[i]);
        if (lw->b1)
            train_col_sum(train_grad_of(m, grad, lw->b1), du, n, F);
    }
    train_mm_at_b(train_grad_of(m, grad, lw->w1), a, du, n, D, F);
    train_mm_a_bt(da, du, lw->w1, n, F, D, w->abt);
}

