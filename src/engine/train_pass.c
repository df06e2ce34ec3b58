/* train_pass.c - one example's forward pass with saved activations and its backward pass:
 * the buffers, the residual stacks, the LM head and cross-entropy (train_forward_backward).
 * It computes exactly what model_forward computes (a unit test compares the logits) but
 * keeps only what the backward pass needs and names nothing, so training is fast. */
/* The kernels are written so the compiler can vectorise them (no reductions in inner loops
 * except through 8 independent lanes); GCC needs -O3 for that, whatever the build's -O. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tensor.h"
#include "train_internal.h"

/* ======================= buffers ======================= */

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
    size_t wide = D > HD ? D : HD; /* the widest w row train_mm_a_bt reads: D, HD, F or V */
    wide = wide > F ? wide : F;
    wide = wide > V ? wide : V;
    total += TRAIN_ABT_FLOATS(wide);
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
    w->abt = take(&cur, TRAIN_ABT_FLOATS(wide));
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
        train_norm_fwd(m, &b->nrm, nw, x_in, n);
        a = b->nrm.out;
    }
    if (kind == SL_SELF)
        train_attn_fwd(m, b, &lw->self, a, n, a, n, causal, m->cfg.pe == PE_ROPE);
    else if (kind == SL_CROSS)
        train_attn_fwd(m, b, &lw->cross, a, n, enc, n_enc, 0, 0);
    else
        train_ffn_fwd(m, b, lw, a, n);
    if (m->cfg.pre_norm) {
        tensor_add(b->x_out, x_in, b->y, nd);
    } else {
        float *r = b->x_out; /* the sum, then normalised from nrm.xhat into nrm.out */
        tensor_add(r, x_in, b->y, nd);
        train_norm_fwd(m, &b->nrm, nw, r, n);
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
            train_attn_bwd(m, w, grad, b, &lw->self, a, n, a, n, dx, da, da, m->cfg.pe == PE_ROPE);
        else if (kind == SL_CROSS)
            train_attn_bwd(m, w, grad, b, &lw->cross, a, n, enc, n_enc, dx, da, w->denc, 0);
        else
            train_ffn_bwd(m, w, grad, b, lw, a, n, dx, da);
        train_norm_bwd(m, grad, &b->nrm, nw, da, dx, n);
    } else {
        /* x_out = norm(x_in + f(x_in)) */
        memset(dr, 0, sizeof(float) * nd);
        train_norm_bwd(m, grad, &b->nrm, nw, dx, dr, n);
        memcpy(dx, dr, sizeof(float) * nd);
        if (kind == SL_SELF)
            train_attn_bwd(m, w, grad, b, &lw->self, x_in, n, x_in, n, dr, dx, dx, m->cfg.pe == PE_ROPE);
        else if (kind == SL_CROSS)
            train_attn_bwd(m, w, grad, b, &lw->cross, x_in, n, enc, n_enc, dr, dx, w->denc, 0);
        else
            train_ffn_bwd(m, w, grad, b, lw, x_in, n, dr, dx);
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
    float *dE = train_grad_of(m, grad, m->tok_embed);
    float *dP = m->cfg.pe == PE_LEARNED ? train_grad_of(m, grad, m->pos_embed) : NULL;
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
        if (m->cfg.ffn != FFN_NONE) {
            sub_fwd(m, &L->ff, &lws[l], SL_FFN, x, n, NULL, 0, 0);
            x = L->ff.x_out;
        }
    }
    if (m->cfg.final_norm) {
        train_norm_fwd(m, &s->fin, fin, x, n);
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
        train_norm_bwd(m, grad, &s->fin, fin, dx, w->dr, n);
        memcpy(dx, w->dr, sizeof(float) * (size_t)n * D);
    }
    for (int l = m->cfg.n_layers - 1; l >= 0; l--) {
        const LayerBuf *L = &s->L[l];
        const float *x_ff = enc ? L->ca.x_out : L->sa.x_out;
        if (m->cfg.ffn != FFN_NONE)
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
        train_mm(w->logits, top->out, m->lm_head, rows, D, V, 0);
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
        train_mm_at_b(train_grad_of(m, grad, m->lm_head), top->out, w->dlog, rows, D, V);
        train_mm_a_bt(dx, w->dlog, m->lm_head, rows, V, D, w->abt);
    } else {
        train_mm_at_b(train_grad_of(m, grad, m->tok_embed), w->dlog, top->out, rows, V, D);
        train_mm(dx, w->dlog, m->tok_embed, rows, V, D, 1);
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

