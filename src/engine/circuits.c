/* circuits.c - a head's QK and OV circuits read from its weights (circuits.h). */
#include "circuits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eigen.h"
#include "lens.h"
#include "repeat.h"
#include "tensor.h"

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

static double trace_ab(const double *a, const double *b, int n) /* trace(a·b), n × n */
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            s += a[(size_t)i * n + j] * b[(size_t)j * n + i];
    return s;
}

/* x (rows × d floats) := norm(x) row by row, in doubles, as norm_d. */
static void norm_rows(const Model *m, const NormWeights *nw, float *x, int rows, double *tmp)
{
    int d = m->cfg.d_model;
    for (int r = 0; r < rows; r++) {
        float *row = x + (size_t)r * d;
        for (int j = 0; j < d; j++)
            tmp[j] = row[j];
        norm_d(m, nw, tmp, tmp + d);
        for (int j = 0; j < d; j++)
            row[j] = (float)tmp[d + j];
    }
}

/* One head's matrices as floats, transposed where the products want rows of d: qt, kt, vt
 * (dh × d: column x of W_Q, W_K, W_V is row x) and o (dh × d, W_O). */
typedef struct {
    float *qt, *kt, *vt, *o;
} HeadF;

static void head_floats(const HeadW *w, int d, int dh, HeadF *f)
{
    for (int i = 0; i < d; i++)
        for (int x = 0; x < dh; x++) {
            f->qt[(size_t)x * d + i] = (float)w->q[(size_t)i * dh + x];
            f->kt[(size_t)x * d + i] = (float)w->k[(size_t)i * dh + x];
            f->vt[(size_t)x * d + i] = (float)w->v[(size_t)i * dh + x];
            f->o[(size_t)x * d + i] = (float)w->o[(size_t)x * d + i];
        }
}

/* Scratch of one circuits_heads run (sizes in its comments). */
typedef struct {
    int nt, P;
    float *E, *U;       /* nt × d: the scored tokens' embeddings and unembedding rows */
    float *NX, *NP;     /* nt × d, P × d: norm1 of this layer on them, and on the positions */
    float *Vo, *O, *S;  /* nt × dh, nt × d, nt × nt */
    float *AT, *B;      /* dh × d each: (P Γ1 W_V)ᵀ and W_O P Γf */
    float *XE, *YU;     /* nt × dh, dh × nt */
    float *Qp, *Kp;     /* P × dh each */
    float *Oall, *Call; /* (H·dh) × d: the layer below's W_O; dh × (H·dh) */
    float *G;           /* dh × dh */
    double *M, *re, *im, *tmp; /* dh × dh, dh, dh, 2d */
    float *fb;          /* the block the floats are in (M is the doubles') */
} Scratch;

/* Allocates s's blocks for a model of widths d, dh, H heads and P positions (s->fb and s->M
 * own them). 0, or -1 (nothing left allocated) when out of memory. */
static int scratch_new(Scratch *s, int d, int dh, int H, int P)
{
    memset(s, 0, sizeof *s);
    size_t nf = 0, T = CIRCUITS_MAX_TOKENS, PP = (size_t)P;
    size_t fsz[] = {T * d, T * d, T * d, PP * d, T * dh, T * d, T * T, (size_t)dh * d,
                    (size_t)dh * d, T * dh, dh * T, PP * dh, PP * dh, (size_t)H * dh * d,
                    (size_t)dh * H * dh, (size_t)dh * dh};
    for (size_t i = 0; i < sizeof fsz / sizeof *fsz; i++)
        nf += fsz[i];
    s->fb = malloc(sizeof(float) * nf);
    s->M = malloc(sizeof(double) * ((size_t)dh * dh + 2 * (size_t)dh + 2 * (size_t)d));
    if (!s->fb || !s->M) {
        free(s->fb);
        free(s->M);
        return -1;
    }
    float **fp[] = {&s->E, &s->U, &s->NX, &s->NP, &s->Vo, &s->O, &s->S, &s->AT, &s->B, &s->XE,
                    &s->YU, &s->Qp, &s->Kp, &s->Oall, &s->Call, &s->G};
    float *at = s->fb;
    for (size_t i = 0; i < sizeof fsz / sizeof *fsz; i++) {
        *fp[i] = at;
        at += fsz[i];
    }
    s->re = s->M + (size_t)dh * dh;
    s->im = s->re + dh;
    s->tmp = s->im + dh;
    s->P = P;
    return 0;
}

/* The copying share of head (l, hf): see circuits.h. */
static double copy_share(const Model *m, const HeadF *hf, Scratch *s)
{
    int d = m->cfg.d_model, dh = m->cfg.d_head, nt = s->nt;
    const NormWeights *fin = m->cfg.arch == ARCH_ENCODER ? &m->enc_final : &m->dec_final;
    if (!nt)
        return NAN;
    tensor_matmul_bt(s->Vo, s->NX, hf->vt, nt, d, dh);
    tensor_matmul(s->O, s->Vo, hf->o, nt, dh, d);
    if (m->cfg.final_norm)
        norm_rows(m, fin, s->O, nt, s->tmp);
    tensor_matmul_bt(s->S, s->O, s->U, nt, d, nt);
    int hits = 0;
    for (int a = 0; a < nt; a++) {
        const float *row = s->S + (size_t)a * nt;
        int arg = 0;
        for (int b = 1; b < nt; b++)
            if (row[b] > row[arg])
                arg = b;
        hits += arg == a;
    }
    return (double)hits / nt;
}

/* Elhage et al.'s copying score of head hf in layer lw (circuits.h), from the eigenvalues of
 * W_O P Γf (U_sᵀ E_s) P Γ1 W_V (dh × dh). NAN when they cannot be found. */
static double copy_eigen(const Model *m, const LayerWeights *lw, const HeadF *hf, Scratch *s)
{
    int d = m->cfg.d_model, dh = m->cfg.d_head, nt = s->nt, ln = m->cfg.norm == NORM_LAYER;
    const NormWeights *fin = m->cfg.arch == ARCH_ENCODER ? &m->enc_final : &m->dec_final;
    if (!nt)
        return NAN;
    for (int x = 0; x < dh; x++) { /* AT = (P Γ1 W_V)ᵀ, B = W_O P Γf */
        float *at = s->AT + (size_t)x * d, *b = s->B + (size_t)x * d;
        double ma = 0.0, mb = 0.0;
        for (int j = 0; j < d; j++) {
            at[j] = hf->vt[(size_t)x * d + j] * (lw->norm1.gain ? lw->norm1.gain[j] : 1.0f);
            ma += at[j];
            mb += hf->o[(size_t)x * d + j];
        }
        for (int j = 0; j < d; j++) {
            if (ln)
                at[j] -= (float)(ma / d);
            double v = hf->o[(size_t)x * d + j] - (ln && m->cfg.final_norm ? mb / d : 0.0);
            b[j] = (float)(m->cfg.final_norm && fin->gain ? v * fin->gain[j] : v);
        }
    }
    tensor_matmul_bt(s->XE, s->E, s->AT, nt, d, dh); /* E_s P Γ1 W_V */
    tensor_matmul_bt(s->YU, s->B, s->U, dh, d, nt);  /* W_O P Γf U_sᵀ */
    for (int x = 0; x < dh; x++)
        for (int y = 0; y < dh; y++) {
            double v = 0.0;
            for (int t = 0; t < nt; t++)
                v += (double)s->YU[(size_t)x * nt + t] * s->XE[(size_t)t * dh + y];
            s->M[(size_t)x * dh + y] = v;
        }
    if (eigen_values(s->M, dh, s->re, s->im))
        return NAN;
    double sum = 0.0, mod = 0.0;
    for (int i = 0; i < dh; i++) {
        sum += s->re[i];
        mod += hypot(s->re[i], s->im[i]);
    }
    return mod > 0 ? sum / mod : NAN;
}

/* The previous-position score of head hf from the learned positions alone (circuits.h). */
static double prev_score(const Model *m, const HeadF *hf, Scratch *s)
{
    int d = m->cfg.d_model, dh = m->cfg.d_head, P = s->P;
    if (m->cfg.pe != PE_LEARNED || !m->pos_embed || P < 2)
        return NAN;
    tensor_matmul_bt(s->Qp, s->NP, hf->qt, P, d, dh);
    tensor_matmul_bt(s->Kp, s->NP, hf->kt, P, d, dh);
    int hits = 0;
    for (int i = 1; i < P; i++) {
        double best = -INFINITY;
        int arg = -1;
        for (int j = 0; j <= i; j++) {
            double v = 0.0;
            for (int t = 0; t < dh; t++)
                v += (double)s->Qp[(size_t)i * dh + t] * s->Kp[(size_t)j * dh + t];
            if (v > best) {
                best = v;
                arg = j;
            }
        }
        hits += arg == i - 1;
    }
    return (double)hits / (P - 1);
}

/* dh × dh Gram matrix aᵀa of a head's (d × dh) matrix given transposed (at: dh × d). */
static void gram_t(const float *at, int d, int dh, float *g, double *out)
{
    tensor_matmul_bt(g, at, at, dh, d, dh);
    for (int i = 0; i < dh * dh; i++)
        out[i] = g[i];
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
    int P = c->pe == PE_LEARNED && m->pos_embed ? (c->max_len < 64 ? c->max_len : 64) : 0;
    size_t per = (size_t)4 * d * dh; /* q, k, v, o */
    size_t nbuf = (size_t)4 * dh * dh + (size_t)H * 2 * dh * dh + H;
    double *hw = malloc(sizeof(double) * per * H), *buf = malloc(sizeof(double) * nbuf);
    float *hfw = malloc(sizeof(float) * per * 2 * H);
    Scratch s;
    if (!pool || !hw || !buf || !hfw || scratch_new(&s, d, dh, H, P)) {
        free(pool);
        free(hw);
        free(buf);
        free(hfw);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    repeat_pool(&m->vocab, pool, n_pool);
    for (int i = 0; i < n_pool && nt < CIRCUITS_MAX_TOKENS; i++) /* evenly spaced */
        if (n_pool <= CIRCUITS_MAX_TOKENS || (long)i * CIRCUITS_MAX_TOKENS / n_pool !=
                                                     (long)(i - 1) * CIRCUITS_MAX_TOKENS / n_pool)
            tok[nt++] = pool[i];
    s.nt = nt;
    double *wu = s.tmp;
    for (int a = 0; a < nt; a++) {
        lens_unembed_row(m, tok[a], wu);
        for (int j = 0; j < d; j++) {
            s.E[(size_t)a * d + j] = lens_weight(m, m->tok_embed, (size_t)tok[a] * d + j);
            s.U[(size_t)a * d + j] = (float)wu[j];
        }
    }
    HeadF F[2 * ATTEND_MAX_HEADS]; /* this layer's heads, then the layer below's */
    for (int h = 0; h < 2 * H; h++) {
        float *p = hfw + per * h;
        F[h] = (HeadF){p, p + (size_t)d * dh, p + (size_t)2 * d * dh, p + (size_t)3 * d * dh};
    }
    double *Bg = buf + (size_t)4 * dh * dh, *ovg = Bg + (size_t)H * 2 * dh * dh;
    for (int l = 0; l < L; l++) {
        for (int h = 0; h < H; h++) { /* the layer below's matrices move to F[H..] */
            if (l > 0)
                memcpy(F[H + h].qt, F[h].qt, sizeof(float) * per);
            HeadW w = {hw, hw + (size_t)d * dh, hw + (size_t)2 * d * dh, hw + (size_t)3 * d * dh};
            head_weights(m, &lw[l], h, &w);
            head_floats(&w, d, dh, &F[h]);
        }
        memcpy(s.NX, s.E, sizeof(float) * (size_t)nt * d);
        norm_rows(m, &lw[l].norm1, s.NX, nt, s.tmp);
        for (int p = 0; p < P; p++)
            for (int j = 0; j < d; j++)
                s.NP[(size_t)p * d + j] = m->pos_embed[(size_t)p * d + j];
        norm_rows(m, &lw[l].norm1, s.NP, P, s.tmp);
        if (l > 0) /* the layer below: each head's VᵀV, O Oᵀ, trace(VᵀV O Oᵀ), and all W_O */
            for (int g = 0; g < H; g++) {
                double *B = Bg + (size_t)g * 2 * dh * dh, *OOt = B + (size_t)dh * dh;
                gram_t(F[H + g].vt, d, dh, s.G, B);
                tensor_matmul_bt(s.G, F[H + g].o, F[H + g].o, dh, d, dh);
                for (int i = 0; i < dh * dh; i++)
                    OOt[i] = s.G[i];
                ovg[g] = trace_ab(B, OOt, dh);
                memcpy(s.Oall + (size_t)g * dh * d, F[H + g].o, sizeof(float) * (size_t)dh * d);
            }
        for (int h = 0; h < H; h++) {
            HeadCircuit *hc = &out[l * H + h];
            memset(hc, 0, sizeof *hc);
            hc->copy = copy_share(m, &F[h], &s);
            hc->copying = copy_eigen(m, &lw[l], &F[h], &s);
            hc->prev = prev_score(m, &F[h], &s);
            if (l == 0)
                continue;
            double *A = buf, *Kt = A + dh * dh, *AC = Kt + dh * dh, *CB = AC + dh * dh;
            gram_t(F[h].qt, d, dh, s.G, A);  /* QᵀQ */
            gram_t(F[h].kt, d, dh, s.G, Kt); /* KᵀK */
            double qk = trace_ab(A, Kt, dh);
            /* C_g = Kᵀ O_gᵀ for every head g below at once: dh × (H·dh) */
            tensor_matmul_bt(s.Call, F[h].kt, s.Oall, dh, d, H * dh);
            for (int g = 0; g < H; g++) {
                const double *B = Bg + (size_t)g * 2 * dh * dh;
                double *C = s.M; /* C[a][b] = Σ_i K[i][a] O_g[b][i] */
                for (int a = 0; a < dh; a++)
                    for (int b = 0; b < dh; b++)
                        C[(size_t)a * dh + b] = s.Call[(size_t)a * H * dh + (size_t)g * dh + b];
                mul(A, C, AC, dh, dh, dh); /* A C */
                mul(C, B, CB, dh, dh, dh); /* C B */
                /* ‖M‖² = trace(Cᵀ A C B) = Σ (A C)[i][j] · (C B)[i][j] */
                double mm = 0.0;
                for (int i = 0; i < dh * dh; i++)
                    mm += AC[i] * CB[i];
                hc->kcomp[g] = qk > 0 && ovg[g] > 0 ? sqrt(mm > 0 ? mm : 0) / sqrt(qk * ovg[g])
                                                     : 0.0;
            }
        }
    }
    free(hfw);
    free(s.fb);
    free(s.M);
    free(pool);
    free(hw);
    free(buf);
    return model_store_check(m, err, errlen); /* every number came from the weights */
}
