/* circuits.c - a head's QK and OV circuits read from its weights (circuits.h). */
#include "circuits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lens.h"
#include "repeat.h"

/* One head's four matrices as doubles, in the (in, out) orientation whatever the storage:
 * q, k, v (d × dh: the K/V head it reads), o (dh × d). */
typedef struct {
    double *q, *k, *v, *o;
} HeadW;

static void head_weights(const Model *m, const LayerWeights *lw, int h, HeadW *w)
{
    const ModelConfig *c = &m->cfg;
    int d = c->d_model, H = c->n_heads, dh = c->d_head, hd = H * dh;
    int Hkv = c->n_kv_heads > 0 ? c->n_kv_heads : H, kvd = Hkv * dh, kvh = h / (H / Hkv);
    const AttnWeights *a = &lw->self;
    int wide = a->wqkv ? hd + 2 * kvd : 0;
    for (int i = 0; i < d; i++)
        for (int x = 0; x < dh; x++) {
            int qc = h * dh + x, kc = kvh * dh + x;
            for (int s = 0; s < 3; s++) { /* Q, K, V */
                const float *W = a->wqkv ? a->wqkv : s == 0 ? a->wq : s == 1 ? a->wk : a->wv;
                int cols = a->wqkv ? wide : s == 0 ? hd : kvd;
                int col = s == 0 ? qc : kc;
                if (a->wqkv)
                    col += s == 0 ? 0 : s == 1 ? hd : hd + kvd;
                double val = lens_weight(m, W, c->w_out_in ? (size_t)col * d + i
                                                           : (size_t)i * cols + col);
                (s == 0 ? w->q : s == 1 ? w->k : w->v)[(size_t)i * dh + x] = val;
            }
            w->o[(size_t)x * d + i] = lens_weight(m, a->wo, c->w_out_in
                                                                ? (size_t)i * hd + h * dh + x
                                                                : (size_t)(h * dh + x) * d + i);
        }
}

/* out = norm(x) in doubles with nw's gain (and bias), as the forward's norm. */
static void norm_d(const Model *m, const NormWeights *nw, const double *x, double *out)
{
    int d = m->cfg.d_model;
    double mean = 0.0, ss = 0.0;
    int ln = m->cfg.norm == NORM_LAYER;
    for (int j = 0; j < d && ln; j++)
        mean += x[j];
    mean /= d;
    for (int j = 0; j < d; j++)
        ss += (x[j] - mean) * (x[j] - mean);
    double s = sqrt(ss / d + (double)m->cfg.norm_eps);
    for (int j = 0; j < d; j++)
        out[j] = nw->gain[j] * (x[j] - mean) / s + (nw->bias ? nw->bias[j] : 0.0);
}

/* a (r × k) times b (k × c) into out (r × c); doubles. */
static void mul(const double *a, const double *b, double *out, int r, int k, int c)
{
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++) {
            double s = 0.0;
            for (int t = 0; t < k; t++)
                s += a[(size_t)i * k + t] * b[(size_t)t * c + j];
            out[(size_t)i * c + j] = s;
        }
}

/* aᵀa for a (rows × cols): cols × cols. */
static void gram(const double *a, int rows, int cols, double *out)
{
    for (int i = 0; i < cols; i++)
        for (int j = 0; j < cols; j++) {
            double s = 0.0;
            for (int r = 0; r < rows; r++)
                s += a[(size_t)r * cols + i] * a[(size_t)r * cols + j];
            out[(size_t)i * cols + j] = s;
        }
}

static double trace_ab(const double *a, const double *b, int n) /* trace(a·b), n × n */
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            s += a[(size_t)i * n + j] * b[(size_t)j * n + i];
    return s;
}

/* The copying score of head w (layer weights lw): see circuits.h. */
static double copy_score(const Model *m, const LayerWeights *lw, const HeadW *w, const int *tok,
                         int nt, double *buf)
{
    int d = m->cfg.d_model, dh = m->cfg.d_head;
    double *x = buf, *nx = x + d, *v = nx + d, *o = v + dh, *f = o + d, *wu = f + d;
    const NormWeights *fin = m->cfg.arch == ARCH_ENCODER ? &m->enc_final : &m->dec_final;
    int hits = 0;
    for (int a = 0; a < nt; a++) {
        for (int j = 0; j < d; j++)
            x[j] = lens_weight(m, m->tok_embed, (size_t)tok[a] * d + j);
        norm_d(m, &lw->norm1, x, nx);
        mul(nx, w->v, v, 1, d, dh);
        mul(v, w->o, o, 1, dh, d);
        if (m->cfg.final_norm)
            norm_d(m, fin, o, f);
        else
            memcpy(f, o, sizeof(double) * d);
        double best = -INFINITY;
        int arg = -1;
        for (int b = 0; b < nt; b++) {
            lens_unembed_row(m, tok[b], wu);
            double s = 0.0;
            for (int j = 0; j < d; j++)
                s += f[j] * wu[j];
            if (s > best) {
                best = s;
                arg = b;
            }
        }
        hits += arg == a;
    }
    return nt ? (double)hits / nt : NAN;
}

/* The previous-position score of head w from the learned positions alone (circuits.h). */
static double prev_score(const Model *m, const LayerWeights *lw, const HeadW *w, double *buf)
{
    int d = m->cfg.d_model, dh = m->cfg.d_head, P = m->cfg.max_len < 64 ? m->cfg.max_len : 64;
    if (m->cfg.pe != PE_LEARNED || !m->pos_embed || P < 2)
        return NAN;
    double *x = buf, *nx = x + d, *q = nx + d, *k = q + (size_t)P * dh;
    for (int p = 0; p < P; p++) {
        for (int j = 0; j < d; j++)
            x[j] = m->pos_embed[(size_t)p * d + j];
        norm_d(m, &lw->norm1, x, nx);
        mul(nx, w->q, q + (size_t)p * dh, 1, d, dh);
        mul(nx, w->k, k + (size_t)p * dh, 1, d, dh);
    }
    int hits = 0;
    for (int i = 1; i < P; i++) {
        double best = -INFINITY;
        int arg = -1;
        for (int j = 0; j <= i; j++) {
            double s = 0.0;
            for (int t = 0; t < dh; t++)
                s += q[(size_t)i * dh + t] * k[(size_t)j * dh + t];
            if (s > best) {
                best = s;
                arg = j;
            }
        }
        hits += arg == i - 1;
    }
    return (double)hits / (P - 1);
}

int circuits_heads(const Model *m, HeadCircuit *out, char *err, size_t errlen)
{
    const ModelConfig *c = &m->cfg;
    int d = c->d_model, dh = c->d_head, H = c->n_heads, L = c->n_layers;
    if (lens_check_model(m, err, errlen))
        return -1;
    const LayerWeights *lw = c->arch == ARCH_ENCODER ? m->enc : m->dec;
    int n_pool = repeat_pool(&m->vocab, NULL, 0);
    int *pool = malloc(sizeof(int) * (size_t)(n_pool > 0 ? n_pool : 1));
    int tok[CIRCUITS_MAX_TOKENS], nt = 0;
    size_t per = (size_t)4 * d * dh; /* q, k, v, o */
    size_t nbuf = (size_t)5 * d + dh + (size_t)2 * 64 * dh + (size_t)4 * dh * dh;
    double *hw = malloc(sizeof(double) * per * 2 * H), *buf = malloc(sizeof(double) * nbuf);
    if (!pool || !hw || !buf) {
        free(pool);
        free(hw);
        free(buf);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    repeat_pool(&m->vocab, pool, n_pool);
    for (int i = 0; i < n_pool && nt < CIRCUITS_MAX_TOKENS; i++) /* evenly spaced */
        if (n_pool <= CIRCUITS_MAX_TOKENS || (long)i * CIRCUITS_MAX_TOKENS / n_pool !=
                                                     (long)(i - 1) * CIRCUITS_MAX_TOKENS / n_pool)
            tok[nt++] = pool[i];
    HeadW W[2 * ATTEND_MAX_HEADS]; /* this layer's heads, then the layer below's */
    for (int h = 0; h < 2 * H; h++) {
        double *p = hw + per * h;
        W[h] = (HeadW){p, p + (size_t)d * dh, p + (size_t)2 * d * dh, p + (size_t)3 * d * dh};
    }
    for (int l = 0; l < L; l++) {
        for (int h = 0; h < H; h++) { /* the layer below's matrices move to W[H..] */
            if (l > 0)
                memcpy(W[H + h].q, W[h].q, sizeof(double) * per);
            head_weights(m, &lw[l], h, &W[h]);
        }
        for (int h = 0; h < H; h++) {
            HeadCircuit *hc = &out[l * H + h];
            memset(hc, 0, sizeof *hc);
            hc->copy = copy_score(m, &lw[l], &W[h], tok, nt, buf);
            hc->prev = prev_score(m, &lw[l], &W[h], buf);
            if (l == 0)
                continue;
            double *A = buf, *Kt = A + dh * dh, *C = Kt + dh * dh, *B = C + dh * dh;
            gram(W[h].q, d, dh, A);  /* QᵀQ */
            gram(W[h].k, d, dh, Kt); /* KᵀK */
            double qk = trace_ab(A, Kt, dh);
            for (int g = 0; g < H; g++) {
                const HeadW *G = &W[H + g];
                gram(G->v, d, dh, B); /* VᵀV */
                for (int a = 0; a < dh; a++) /* C = Kᵀ O_gᵀ: C[a][b] = Σ_i K[i][a] O_g[b][i] */
                    for (int b = 0; b < dh; b++) {
                        double s = 0.0;
                        for (int i = 0; i < d; i++)
                            s += W[h].k[(size_t)i * dh + a] * G->o[(size_t)b * d + i];
                        C[(size_t)a * dh + b] = s;
                    }
                double *OOt = Kt; /* reuse: O_g O_gᵀ */
                for (int a = 0; a < dh; a++)
                    for (int b = 0; b < dh; b++) {
                        double s = 0.0;
                        for (int i = 0; i < d; i++)
                            s += G->o[(size_t)a * d + i] * G->o[(size_t)b * d + i];
                        OOt[(size_t)a * dh + b] = s;
                    }
                double ov = trace_ab(B, OOt, dh);
                double *AC = OOt, *CB = malloc(sizeof(double) * dh * dh);
                if (!CB) {
                    free(pool);
                    free(hw);
                    free(buf);
                    snprintf(err, errlen, "out of memory");
                    return -1;
                }
                mul(A, C, AC, dh, dh, dh);   /* A C */
                mul(C, B, CB, dh, dh, dh);   /* C B */
                /* ‖M‖² = trace(Cᵀ A C B) = Σ (A C)[i][j] · (C B)[i][j] */
                double mm = 0.0;
                for (int i = 0; i < dh * dh; i++)
                    mm += AC[i] * CB[i];
                free(CB);
                hc->kcomp[g] = qk > 0 && ov > 0 ? sqrt(mm > 0 ? mm : 0) / sqrt(qk * ov) : 0.0;
                gram(W[h].k, d, dh, Kt); /* Kt again for the next g */
            }
        }
    }
    free(pool);
    free(hw);
    free(buf);
    return model_store_check(m, err, errlen); /* every number came from the weights */
}
