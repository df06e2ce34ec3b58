/* train_internal.h - what the trainer's files share (not a public header): the buffers of one
 * forward/backward pass and the trainer's own kernels and layers. Their rounding is part of
 * the shipped models: `make models` must write the same bits (docs/training.md), so they stay
 * apart from the forward pass's kernels (tensor.c, tensor_matmul.c).
 *   train_kernels.c  the matrix products of the forward and backward passes
 *   train_layers.c   norms, attention and feed-forward, forward and backward
 *   train_pass.c     buffers, stacks, train_forward_backward
 *   train_tanh.c     tanh, scalar and AVX2 (the GELU)
 *   train_optim.c    AdamW, the schedule, masked-LM corruption
 *   train.c          the Trainer: batches, threads, steps, evaluation
 *   train_heads.c    what the heads do (statistics and summaries) */
#ifndef ATTEND_TRAIN_INTERNAL_H
#define ATTEND_TRAIN_INTERNAL_H

#include "train.h"

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
    float *abt;    /* train_mm_a_bt's transposed rows of w (TRAIN_ABT_FLOATS of the widest) */
    float *block;  /* everything above lives in one allocation */
};

/* ---- kernels (train_kernels.c) ---- */

/* out[n×m] (+)= a[n×k]·b[k×m]: each element a chain over p in order (product, then sum),
 * from 0, or from out's value when acc is 1. */
void train_mm(float *out, const float *a, const float *b, int n, int k, int m, int acc);
/* dw[k×m] += a[n×k]ᵀ·g[n×m]: each element a chain over i in order from dw's value, skipping
 * the terms whose a[i][p] is 0. */
void train_mm_at_b(float *dw, const float *a, const float *g, int n, int k, int m);
/* dx[n×k] += g[n×m]·w[k×m]ᵀ: each dot product summed in 8 lanes (j mod 8, in order), the lanes
 * ((0+1)+(2+3))+((4+5)+(6+7)), then the last m % 8 terms in order, then added to dx. */
void train_mm_a_bt(float *dx, const float *g, const float *w, int n, int m, int k, float *wt);
/* wt: room for 16 rows of w transposed, TRAIN_ABT_FLOATS(m) floats (TrainWork's abt), or NULL
 * (then the portable loop). A scratch the caller owns, not thread-local storage: 384 KB of
 * zeroed TLS cost every process ~100 page faults at start, the TUI and dump included. */
#define TRAIN_ABT_MAX_M 4096 /* wider w rows take the portable loop */
#define TRAIN_ABT_FLOATS(m) ((size_t)16 * (size_t)((m) < TRAIN_ABT_MAX_M ? (m) : TRAIN_ABT_MAX_M))
/* db[m] += the column sums of g[n×m], row by row. */
void train_col_sum(float *db, const float *g, int n, int m);

/* ---- tanh (train_tanh.c) ---- */

/* tanh(x) in float, within 2.5 ulp of the exact value; train_tanh1 and train_tanh give the same
 * bits for the same x on every CPU (the GELU's rounding is part of the shipped models). */
float train_tanh1(float x);
/* out[i] = train_tanh1(x[i]) for i < n (out may be x). */
void train_tanh(float *out, const float *x, size_t n);

/* Gradient slot of a weight pointer into m->data. */
static inline float *train_grad_of(const Model *m, float *grad, const float *w)
{
    return grad + (w - m->data);
}

/* ---- layers (train_layers.c) ---- */

/* Normalises x (n rows) into b (pre- or post-norm, LayerNorm or RMSNorm as configured). */
void train_norm_fwd(const Model *m, NormBuf *b, const NormWeights *nw, const float *x, int n);
/* dx += d norm(x) given dy = d out; accumulates gain/bias gradients. */
void train_norm_bwd(const Model *m, float *grad, const NormBuf *b, const NormWeights *nw,
                    const float *dy, float *dx, int n);
/* y = Attention(aq Wq, akv Wk, akv Wv) Wo over n queries and nk keys, into b. */
void train_attn_fwd(const Model *m, SubBuf *b, const AttnWeights *aw, const float *aq, int n,
                    const float *akv, int nk, int causal, int rope);
/* Given dy (n, D): adds to daq (n, D) and dakv (nk, D) (may be the same buffer) and to the
 * weight gradients. */
void train_attn_bwd(const Model *m, TrainWork *w, float *grad, const SubBuf *b,
                    const AttnWeights *aw, const float *aq, int n, const float *akv, int nk,
                    const float *dy, float *daq, float *dakv, int rope);
/* The feed-forward sublayer on a (n rows) into b. */
void train_ffn_fwd(const Model *m, SubBuf *b, const LayerWeights *lw, const float *a, int n);
/* Given dy: adds to da and to the weight gradients. */
void train_ffn_bwd(const Model *m, TrainWork *w, float *grad, const SubBuf *b,
                   const LayerWeights *lw, const float *a, int n, const float *dy, float *da);

#endif
