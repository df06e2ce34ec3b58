/* model.c - the transformer forward pass, written to be read top to bottom: embeddings,
 * positional encodings, attention (masks, scaling, RoPE, heads, W_O), FFN, norms, stacks,
 * LM head. Every intermediate tensor goes into the Trace. The config, the weights' layout and
 * the parameter store are model_params.c. */
#include "model.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attend_assert.h"
#include "attend_limits.h"
#include "tensor.h"
#include "tensor_par.h"

/* The forward pass's state: where it writes, and whether it ran out of room. */
typedef struct {
    const Model *m;
    const Controls *c;
    Trace *t;
    int overflow;
    Stack stack;
    int layer;
    Sublayer sub;
    float *scratch;
    int oom; /* a product with half-precision weights ran out of memory (tensor.h) */
} Fw;

typedef struct {
    char *s;
    size_t len, cap;
} NameBuf;

static void name_put(NameBuf *b, const char *t)
{
    while (*t && b->len + 1 < b->cap)
        b->s[b->len++] = *t++;
    b->s[b->len] = 0;
}

static void name_int(NameBuf *b, int v)
{
    char d[12];
    int k = 0;
    do {
        d[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0 && k < 11);
    while (k > 0 && b->len + 1 < b->cap)
        b->s[b->len++] = d[--k];
    b->s[b->len] = 0;
}

/* New trace entry of rows×cols; returns its data (scratch on overflow, flagged). lazy: a
 * head's map, which takes no arena room (data NULL until trace_entry computes it). */
static float *rec_as(Fw *f, TensorKind kind, int head, int rows, int cols, int lazy)
{
    Trace *t = f->t;
    size_t len = lazy ? 0 : (size_t)rows * (size_t)cols;
    if (t->n_entries >= t->cap_entries || t->used + len > t->cap_main) {
        /* Never expected (trace_new sizes the arena); finish harmlessly in the spill area,
         * which holds any single tensor, and report the error at the end of the run. */
        f->overflow = 1;
        return t->arena + t->spill;
    }
    TraceEntry *e = &t->entries[t->n_entries++];
    e->kind = kind;
    e->stack = f->stack;
    e->layer = f->layer;
    e->sub = f->sub;
    e->head = head;
    e->rows = rows;
    e->cols = cols;
    e->lazy = 0;
    e->slot = -1;
    e->finite = 0;
    e->data = t->arena + t->used;
    t->used += len;
    /* Names: [enc.|dec.]L<l>.[cross.|ffn.]h<h>.<key>, built by hand (snprintf was a tenth
     * of a lesson-size forward). */
    const ModelConfig *c = &f->m->cfg;
    const char *sub = f->sub == SUB_CROSS ? "cross." : f->sub == SUB_FFN ? "ffn." : "";
    if (f->sub == SUB_FFN && (kind == T_FFN_HIDDEN || kind == T_FFN_OUT))
        sub = ""; /* "L0.ffn_hidden" reads better than "L0.ffn.ffn_hidden" */
    NameBuf nb = {e->name, 0, sizeof e->name};
    if (c->arch == ARCH_ENCDEC)
        name_put(&nb, f->stack == STACK_ENC ? "enc." : "dec.");
    if (f->layer >= 0) {
        name_put(&nb, "L");
        name_int(&nb, f->layer);
        name_put(&nb, ".");
    }
    name_put(&nb, sub);
    if (head >= 0) {
        name_put(&nb, "h");
        name_int(&nb, head);
        name_put(&nb, ".");
    }
    name_put(&nb, trace_kind_key(kind));
    if (lazy) {
        e->lazy = 1;
        e->data = NULL;
    }
    return e->data;
}

static float *rec(Fw *f, TensorKind kind, int head, int rows, int cols)
{
    return rec_as(f, kind, head, rows, cols, 0);
}

/* The entry rec() made last, or NULL when the arena overflowed (no entry made). */
static TraceEntry *last_entry(const Fw *f)
{
    return f->overflow || f->t->n_entries < 1 ? NULL : &f->t->entries[f->t->n_entries - 1];
}

/* --- positional encodings ------------------------------------------------ */

/* X (+ √d scaling) (+ additive PE). Returns the stack's input. */
static const float *embed(Fw *f, const int *ids, int n)
{
    const ModelConfig *c = &f->m->cfg;
    int d = c->d_model;
    f->layer = -1;
    f->sub = SUB_NONE;
    float *x = rec(f, T_EMBED, -1, n, d);
    for (int i = 0; i < n; i++) {
        float *xi = x + (size_t)i * d;
        if (f->m->wdtype) /* half-precision rows, widened (exact) */
            tensor_widen(xi, (const uint16_t *)(const void *)f->m->tok_embed + (size_t)ids[i] * d,
                         f->m->wdtype, (size_t)d);
        else
            memcpy(xi, f->m->tok_embed + (size_t)ids[i] * d, sizeof(float) * (size_t)d);
    }
    if (c->scale_embed) {
        float *xs = rec(f, T_EMBED_SCALED, -1, n, d);
        memcpy(xs, x, sizeof(float) * (size_t)n * d);
        tensor_scale(xs, sqrtf((float)d), (size_t)n * d);
        x = xs;
    }
    if (f->c->pe == PE_SINUSOIDAL || f->c->pe == PE_LEARNED) {
        float *pe = rec(f, T_PE, -1, n, d);
        const float *sin_pe = f->c->pe == PE_SINUSOIDAL ? trace_sinusoid(f->t) : NULL;
        for (int p = 0; p < n; p++)
            for (int i = 0; i < d; i++)
                pe[(size_t)p * d + i] = f->c->pe == PE_LEARNED ? f->m->pos_embed[(size_t)p * d + i]
                                                               : sin_pe[(size_t)p * d + i];
        float *xp = rec(f, T_X_PE, -1, n, d);
        tensor_add(xp, x, pe, (size_t)n * d);
        x = xp;
    }
    return x;
}

/* Row-wise steps of the forward over the cores (tensor_par.h): a part is a range of whole rows
 * in groups of 4 (the norms' statistics are taken 4 rows at a time) and each row's floats go
 * through the same code as one call over all rows (8-lane groups from a row's start: every
 * row length used here with the activations is a multiple of 8): the same bits. */
typedef enum { ROWS_NORM, ROWS_ADD, ROWS_ACT, ROWS_SWIGLU, ROWS_BIAS } RowsOp;
typedef struct {
    RowsOp op;
    const ModelConfig *c;
    float *o;
    const float *x, *y, *gain, *bias;
    int n, m;
    int check; /* 1: each part checks its rows of o after the op (rows_done reads bad) */
    int bad;   /* a part found a NaN or an infinity in its rows of o */
} RowsJob;

static void rows_part(void *ctx, int part, int parts)
{
    const RowsJob *J = ctx;
    const ModelConfig *c = J->c;
    int r0, r1, m = J->m;
    tensor_par_range(J->n, 4, part, parts, &r0, &r1);
    if (r0 >= r1)
        return;
    size_t at = (size_t)r0 * m, len = (size_t)(r1 - r0) * m;
    float *o = J->o + at;
    const float *x = J->x + at;
    switch (J->op) {
    case ROWS_NORM:
        if (c->norm == NORM_RMS)
            tensor_rmsnorm(o, x, J->gain, r1 - r0, m, c->norm_eps);
        else
            tensor_layernorm(o, x, J->gain, J->bias, r1 - r0, m, c->norm_eps);
        break;
    case ROWS_ADD:
        tensor_add(o, x, J->y + at, len);
        break;
    case ROWS_ACT: /* o is x: the bias, then the activation, a row at a time while it is in
                    * L1 (whole 8-lane groups: the grouping of one call over every row) */
        for (int r = 0; r < (m % 8 ? 1 : r1 - r0); r++) {
            float *orow = o + (size_t)r * m;
            int rows = m % 8 ? r1 - r0 : 1;
            if (J->bias)
                tensor_add_row(orow, J->bias, rows, m);
            if (c->ffn == FFN_RELU)
                tensor_relu(orow, (size_t)rows * m);
            else
                tensor_gelu(orow, (size_t)rows * m);
        }
        break;
    case ROWS_SWIGLU:
        for (size_t i = 0; i < len; i++)
            o[i] = tensor_silu1(o[i]) * J->y[at + i];
        break;
    case ROWS_BIAS: /* o is x: a product's bias, one add per element */
        tensor_add_row(o, J->bias, r1 - r0, m);
        break;
    }
    /* the trace's check of these rows, while they are in this core's cache (rows_done) */
    if (J->check && trace_non_finite(o, len))
        __atomic_store_n(&((RowsJob *)ctx)->bad, 1, __ATOMIC_RELAXED);
}

/* Entry e (NULL: none) is J's output, whole and final: marked finite when no part of J found a
 * NaN or an infinity in it, so the last scan (trace_check.c) skips it; else it stays for the
 * scan, which names the first offender in the trace's order. */
static void rows_done(const RowsJob *J, TraceEntry *e)
{
    ATTEND_ASSERT(J->check);
    if (e && !J->bad)
        e->finite = 1;
}

/* Runs J over the cores when it is large (a layer norm over 64 x 768 floats is ~40 µs, a gelu
 * over 64 x 3072 ~0.3 ms: the workers watch for their next job, so a hand-off costs a few µs)
 * and its rows are whole 8-lane groups, and only with workers awake (tensor_par_dyn_awake);
 * else on this thread, the same bits. */
static void rows_run(RowsJob *J)
{
    size_t floats = (size_t)J->n * (size_t)J->m;
    if (floats >= ((size_t)1 << 15) && J->m % 8 == 0 && J->n >= 8)
        tensor_par_dyn_awake(rows_part, J, tensor_par_chunks(1, 1, TENSOR_PAR_MIN_MACS));
    else
        rows_part(J, 0, 1);
}

/* o[n×m] += bias (one row, added to every row) over the cores when large (rows_run): the bias
 * adds after the QKV, W_O and W2 products, 3·n·d floats a layer, ran on one thread. */
static void add_bias(const ModelConfig *c, float *o, const float *bias, int n, int m)
{
    RowsJob J = {.op = ROWS_BIAS, .c = c, .o = o, .x = o, .bias = bias, .n = n, .m = m};
    rows_run(&J);
}

static const float *norm(Fw *f, TensorKind kind, const NormWeights *w, const float *x, int n)
{
    const ModelConfig *c = &f->m->cfg;
    float *o = rec(f, kind, -1, n, c->d_model);
    TraceEntry *e = last_entry(f);
    RowsJob J = {.op = ROWS_NORM, .c = c, .o = o, .x = x, .gain = w->gain, .bias = w->bias,
                 .n = n, .m = c->d_model, .check = 1};
    rows_run(&J);
    rows_done(&J, e); /* checked while in the cache, not by the last scan (trace_check.c) */
    return o;
}

/* The additive mask: 0 where query i may read key j, −∞ where it may not.
 * Causal: j > i is the future. Padding: key j is a <pad> token. */
static void build_mask(float *M, int nq, int nk, int causal, const int *key_ids, int padding,
                       int pad_id)
{
    for (int i = 0; i < nq; i++)
        for (int j = 0; j < nk; j++) {
            int hidden = (causal && j > i) || (padding && key_ids[j] == pad_id);
            M[(size_t)i * nk + j] = hidden ? -INFINITY : 0.0f;
        }
}

/* out[n×m] = x[n×k] · W, W stored (k, m), or (m, k) when cfg.w_out_in (torch's nn.Linear:
 * multiplied transposed, never copied); 16-bit values when the model's wdtype says so. */
static void proj(Fw *f, float *out, const float *x, const float *w, int n, int k, int m)
{
    const Model *md = f->m;
    if (md->wdtype) {
        const uint16_t *h = (const uint16_t *)(const void *)w;
        if (md->cfg.w_out_in ? tensor_matmul_bt_half(out, x, h, md->wdtype, n, k, m, 1.0f)
                             : tensor_matmul_half(out, x, h, md->wdtype, n, k, m))
            f->oom = 1;
    } else if (md->cfg.w_out_in) {
        tensor_matmul_bt(out, x, w, n, k, m);
    } else {
        tensor_matmul(out, x, w, n, k, m);
    }
}

/* 1 when head h of the current sublayer is knocked out (Controls.ablate): self-attention
 * of the main stack only. */
static int ablated(const Fw *f, int h)
{
    Stack main_stack = model_output_stack(f->m);
    return f->sub == SUB_SELF && f->stack == main_stack && f->layer >= 0 &&
           f->layer < ATTEND_MAX_LAYERS && h < 64 && ((f->c->ablate[f->layer] >> h) & 1u);
}

/* Activation patching: the output of head h (-1: the FFN) of the current layer of the main
 * stack's self-attention (or FFN) replaced by Controls.patch's rows, when it names them. */
static void patch(const Fw *f, int h, float *out, size_t len)
{
    const ModelPatch *p = f->c->patch;
    Stack main_stack = model_output_stack(f->m);
    if (p && f->stack == main_stack && p->layer == f->layer && p->head == h &&
        f->sub == (h < 0 ? SUB_FFN : SUB_SELF))
        memcpy(out, p->data, sizeof(float) * len);
}

/* The heads of one attention sublayer, their trace entries made (attention()). */
typedef struct {
    Fw *f;
    const AttnWeights *w;
    const ModelConfig *c;
    const float *qa, *ka, *va;
    int ldq, ldk, nq, nk, dh, group, rope;
    float scale;
    const float *M;
    const int *lim;
    float *band; /* nb bands of MODEL_SDPA_BAND(nk, dh) floats, one per thread */
    int nb;
    float *q[ATTEND_MAX_HEADS], *k[ATTEND_MAX_HEADS], *v[ATTEND_MAX_HEADS],
        *qr[ATTEND_MAX_HEADS], *kr[ATTEND_MAX_HEADS], *o[ATTEND_MAX_HEADS];
    float *maps[ATTEND_MAX_HEADS]; /* the head's four maps' slot (trace_want_maps), or NULL */
    TraceEntry *ent[ATTEND_MAX_HEADS][6]; /* its q, k, v, q_rot, k_rot, out entries (or NULL) */
} Heads;

/* Heads part·H/parts .. of one sublayer (tensor_par.h), in the running thread's band (parts
 * claimed by whichever thread is free, tensor_par_dyn): q, k, v sliced, normed, rotated, then
 * the head's output. */
static void heads_part(void *ctx, int part, int parts)
{
    const Heads *J = ctx;
    const ModelConfig *c = J->c;
    int H = c->n_heads, per = (H + parts - 1) / parts, nq = J->nq, nk = J->nk, dh = J->dh;
    int self = tensor_par_self();
    float *band = J->band + (size_t)(self < J->nb ? self : 0) * MODEL_SDPA_BAND(nk, dh);
    for (int h = part * per; h < H && h < (part + 1) * per; h++) {
        float *q = J->q[h], *k = J->k[h], *v = J->v[h];
        tensor_cols(q, J->qa, nq, J->ldq, h * dh, dh);
        tensor_cols(k, J->ka, nk, J->ldk, h / J->group * dh, dh);
        tensor_cols(v, J->va, nk, J->ldk, h / J->group * dh, dh);
        if (J->w->q_norm) /* Qwen3: each head's q and k RMS-normed before RoPE */
            tensor_rmsnorm(q, q, J->w->q_norm, nq, dh, c->norm_eps);
        if (J->w->k_norm)
            tensor_rmsnorm(k, k, J->w->k_norm, nk, dh, c->norm_eps);
        if (J->rope) {
            memcpy(J->qr[h], q, sizeof(float) * (size_t)nq * dh);
            model_rope_apply(J->qr[h], nq, dh, c);
            memcpy(J->kr[h], k, sizeof(float) * (size_t)nk * dh);
            model_rope_apply(J->kr[h], nk, dh, c);
            q = J->qr[h];
            k = J->kr[h];
        }
        for (int u = 0; u < 5; u++) /* checked while in the cache, not by the last scan */
            trace_mark_finite(J->ent[h][u]);
        if (J->maps[h]) { /* the maps wanted: written here, the output from their weights */
            float *S = J->maps[h];
            size_t nn = (size_t)nq * nk;
            model_sdpa_maps(S, S + nn, S + 2 * nn, S + 3 * nn, J->o[h],
                            band, q, k, v, J->M, J->lim, nq, nk,
                            dh, dh, J->scale);
        } else {
            model_sdpa_out(J->o[h], band, q, k, v, J->M, J->lim, nq, nk, dh, dh, J->scale);
        }
        if (ablated(J->f, h)) /* knocked out: the pattern stays, the output is zero */
            memset(J->o[h], 0, sizeof(float) * (size_t)nq * dh);
        patch(J->f, h, J->o[h], (size_t)nq * dh);
        trace_mark_finite(J->ent[h][5]); /* checked while in the cache, as q, k, v above */
    }
}

/* 1 when lim is model_sdpa_limits of the mask M (a debug build's check of attention()'s rule). */
static int limits_agree(const float *M, const int *lim, int nq, int nk)
{
    for (int i = 0; i < nq; i++) {
        int li;
        model_sdpa_limits(M + (size_t)i * nk, 1, nk, &li);
        if (li != lim[i])
            return 0;
    }
    return 1;
}

/* Multi-head attention: queries from xq (nq rows), keys and values from xkv (nk rows). */
static const float *attention(Fw *f, const AttnWeights *w, const float *xq, int nq,
                              const float *xkv, int nk, const int *key_ids, int causal,
                              int rope)
{
    const ModelConfig *c = &f->m->cfg;
    int d = c->d_model, H = c->n_heads, dh = c->d_head, hd = H * dh;
    float *M = rec(f, T_MASK, -1, nq, nk);
    build_mask(M, nq, nk, causal, key_ids, f->c->padding, f->m->vocab.pad_id);
    float *concat_tmp = NULL;
    float *heads_out[ATTEND_MAX_HEADS];
    assert(H >= 1 && H <= ATTEND_MAX_HEADS); /* model_config_check bounds n_heads */
    float scale = model_sdpa_scale(f->c->scale, dh);
    /* Grouped K/V heads: query head h reads K/V head h / group. */
    int Hkv = c->n_kv_heads > 0 ? c->n_kv_heads : H, kvd = Hkv * dh, group = H / Hkv;
    /* All heads' projections at once (the fused QKV of real code), then one slice per head:
     * q rows ldq floats apart in qa, k and v rows ldk apart in ka and va. */
    float *qa = f->scratch, *ka, *va, *band;
    int ldq = hd, ldk = kvd;
    if (w->wqkv) { /* one (d, hd + 2·kvd) matrix: self-attention only (xq is xkv) */
        ldq = ldk = hd + 2 * kvd;
        proj(f, qa, xq, w->wqkv, nq, d, ldq);
        if (w->bqkv)
            add_bias(c, qa, w->bqkv, nq, ldq);
        ka = qa + hd;
        va = ka + kvd;
        band = qa + (size_t)nq * ldq;
    } else {
        ka = qa + (size_t)nq * hd;
        va = ka + (size_t)nk * kvd;
        band = va + (size_t)nk * kvd;
        proj(f, qa, xq, w->wq, nq, d, hd);
        proj(f, ka, xkv, w->wk, nk, d, kvd);
        proj(f, va, xkv, w->wv, nk, d, kvd);
        if (w->bq) add_bias(c, qa, w->bq, nq, hd);
        if (w->bk) add_bias(c, ka, w->bk, nk, kvd);
        if (w->bv) add_bias(c, va, w->bv, nk, kvd);
    }
    /* bands: MODEL_SDPA_ROWS rows of a head's weights and its packed keys, one per thread;
     * then each query row's limit */
    _Static_assert(sizeof(int) == sizeof(float), "the rows' limits take a float's room");
    int nb = f->t->bands > 0 ? f->t->bands : 1;
    int *lim = (int *)(band + (size_t)nb * MODEL_SDPA_BAND(nk, dh));
    int pads = 0; /* keys the padding mask hides */
    for (int j = 0; f->c->padding && j < nk; j++)
        pads += key_ids[j] == f->m->vocab.pad_id;
    if (pads) /* once for all heads */
        model_sdpa_limits(M, nq, nk, lim);
    else /* build_mask's rows without padding: 0 up to the last key read, then −∞ */
        for (int i = 0; i < nq; i++)
            lim[i] = causal && i + 1 < nk ? i + 1 : nk;
    ATTEND_ASSERT(limits_agree(M, lim, nq, nk));
    Heads J = {.f = f, .w = w, .c = c, .qa = qa, .ka = ka, .va = va, .ldq = ldq, .ldk = ldk,
               .nq = nq, .nk = nk, .dh = dh, .group = group, .rope = rope, .scale = scale,
               .M = M, .lim = lim, .band = band, .nb = nb};
    for (int h = 0; h < H; h++) { /* the trace's entries, in order */
        J.q[h] = rec(f, T_Q, h, nq, dh);
        J.ent[h][0] = last_entry(f);
        J.k[h] = rec(f, T_K, h, nk, dh);
        J.ent[h][1] = last_entry(f);
        J.v[h] = rec(f, T_V, h, nk, dh);
        J.ent[h][2] = last_entry(f);
        if (rope) {
            J.qr[h] = rec(f, T_Q_ROT, h, nq, dh);
            J.ent[h][3] = last_entry(f);
            J.kr[h] = rec(f, T_K_ROT, h, nk, dh);
            J.ent[h][4] = last_entry(f);
        }
        /* the four n×n steps: computed when read (trace_entry, the map cache), or here when
         * every head's are wanted and the cache has a slot free (trace_want_maps) */
        int s0 = f->t->n_entries;
        rec_as(f, T_SCORES, h, nq, nk, 1);
        rec_as(f, T_SCALED, h, nq, nk, 1);
        rec_as(f, T_MASKED, h, nq, nk, 1);
        rec_as(f, T_WEIGHTS, h, nq, nk, 1);
        J.maps[h] = f->t->maps_eager && !f->overflow ? trace_map_claim(f->t, s0) : NULL;
        J.o[h] = rec(f, T_HEAD_OUT, h, nq, dh);
        J.ent[h][5] = last_entry(f);
        heads_out[h] = J.o[h];
    }
    /* the heads over the cores when their attention is large (each head one thread's, whole:
     * the same bits at any thread count) */
    size_t macs = (size_t)nq * nk * dh * H;
    if (macs >= MODEL_HEADS_PAR_MACS && !f->overflow && nb >= tensor_threads())
        tensor_par_dyn(heads_part, &J, H); /* a head at a time to whichever thread is free */
    else
        heads_part(&J, 0, 1);
    concat_tmp = rec(f, T_CONCAT, -1, nq, hd);
    for (int i = 0; i < nq; i++)
        for (int h = 0; h < H; h++)
            memcpy(concat_tmp + (size_t)i * hd + h * dh, heads_out[h] + (size_t)i * dh,
                   sizeof(float) * (size_t)dh);
    float *out = rec(f, T_ATTN_OUT, -1, nq, d);
    TraceEntry *e = last_entry(f);
    proj(f, out, concat_tmp, w->wo, nq, hd, d);
    if (w->bo)
        add_bias(c, out, w->bo, nq, d);
    trace_mark_finite(e);
    return out;
}

/* Position-wise feed-forward network. */
static const float *ffn(Fw *f, const LayerWeights *L, const float *x, int n)
{
    const ModelConfig *c = &f->m->cfg;
    int d = c->d_model, F = c->d_ff;
    float *hid = rec(f, T_FFN_HIDDEN, -1, n, F);
    TraceEntry *e_hid = last_entry(f);
    proj(f, hid, x, L->w1, n, d, F);
    RowsJob J = {.op = ROWS_ACT, .c = c, .o = hid, .x = hid, .bias = L->b1, .n = n, .m = F,
                 .check = 1};
    if (c->ffn == FFN_SWIGLU) {
        proj(f, f->scratch, x, L->w3, n, d, F);
        J.op = ROWS_SWIGLU;
        J.y = f->scratch;
    }
    rows_run(&J);
    rows_done(&J, e_hid);
    float *out = rec(f, T_FFN_OUT, -1, n, d);
    TraceEntry *e_out = last_entry(f);
    proj(f, out, hid, L->w2, n, F, d);
    if (L->b2)
        add_bias(c, out, L->b2, n, d);
    patch(f, -1, out, (size_t)n * d);
    trace_mark_finite(e_out);
    return out;
}

/* One residual sublayer, pre-norm (x + f(norm(x))) or post-norm (norm(x + f(x))). */
static const float *sublayer(Fw *f, Sublayer sub, const LayerWeights *L, const float *x, int n,
                             const float *mem, int n_mem, const int *key_ids, int causal)
{
    const ModelConfig *c = &f->m->cfg;
    const NormWeights *nw = sub == SUB_SELF ? &L->norm1 : sub == SUB_CROSS ? &L->normc : &L->norm2;
    f->sub = sub;
    const float *in = c->pre_norm ? norm(f, T_NORM_IN, nw, x, n) : x;
    const float *y;
    int rope = f->c->pe == PE_ROPE;
    if (sub == SUB_SELF)
        y = attention(f, &L->self, in, n, in, n, key_ids, causal, rope);
    else if (sub == SUB_CROSS)
        y = attention(f, &L->cross, in, n, mem, n_mem, key_ids, 0, 0);
    else
        y = ffn(f, L, in, n);
    float *r = rec(f, T_RESID, -1, n, c->d_model);
    TraceEntry *e = last_entry(f);
    RowsJob J = {.op = ROWS_ADD, .c = c, .o = r, .x = x, .y = y, .n = n, .m = c->d_model,
                 .check = 1};
    rows_run(&J);
    rows_done(&J, e);
    if (!c->pre_norm)
        return norm(f, T_NORM_OUT, nw, r, n);
    return r;
}

/* A stack of layers over ids; mem/mem_ids non-NULL for a decoder with cross-attention. */
static const float *run_stack(Fw *f, Stack stack, const LayerWeights *layers,
                              const NormWeights *fin, const int *ids, int n, int causal,
                              const float *mem, const int *mem_ids, int n_mem)
{
    const ModelConfig *c = &f->m->cfg;
    f->stack = stack;
    const ModelPatch *rp = f->c->patch; /* resume at a layer (ModelPatch.from) */
    int resume = rp && rp->from && stack == model_output_stack(f->m);
    const float *x = resume ? rp->from : embed(f, ids, n);
    for (int l = resume ? rp->from_layer : 0; l < c->n_layers; l++) {
        f->layer = l;
        x = sublayer(f, SUB_SELF, &layers[l], x, n, NULL, 0, ids, causal);
        if (mem)
            x = sublayer(f, SUB_CROSS, &layers[l], x, n, mem, n_mem, mem_ids, 0);
        if (c->ffn != FFN_NONE)
            x = sublayer(f, SUB_FFN, &layers[l], x, n, NULL, 0, NULL, 0);
    }
    f->layer = -1;
    f->sub = SUB_NONE;
    if (c->final_norm)
        x = norm(f, T_FINAL_NORM, fin, x, n);
    return x;
}

static void lm_head(Fw *f, const float *x, int n)
{
    const ModelConfig *c = &f->m->cfg;
    int d = c->d_model, V = c->vocab_size;
    float *lg = rec(f, T_LOGITS, -1, n, V);
    TraceEntry *e = last_entry(f);
    if (f->m->lm_head)
        proj(f, lg, x, f->m->lm_head, n, d, V);
    else if (f->m->wdtype) {
        if (tensor_matmul_bt_half(lg, x, (const uint16_t *)(const void *)f->m->tok_embed,
                                  f->m->wdtype, n, d, V, 1.0f))
            f->oom = 1;
    } else if (tensor_matmul_bt_finite(lg, x, f->m->tok_embed, n, d, V) && e && e->data == lg)
        e->finite = 1; /* checked by the head's kernel as it stored them: not scanned again */
}

static int check_ids(const Model *m, const int *ids, int n, const char *what, char *err,
                     size_t errlen)
{
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= m->cfg.vocab_size) {
            snprintf(err, errlen, "%s token %d has id %d, outside the vocabulary (0..%d)", what,
                     i, ids[i], m->cfg.vocab_size - 1);
            return -1;
        }
    return 0;
}

int model_forward(const Model *m, const int *src, int n, const int *tgt, int m_tgt,
                  const Controls *c, Trace *t, char *err, size_t errlen)
{
    const ModelConfig *cfg = &m->cfg;
    int encdec = cfg->arch == ARCH_ENCDEC;
    trace_maps_drop(t, 1); /* the last run's maps: every pointer into them ends here */
    t->n_entries = 0;
    t->used = 0;
    t->n = 0;
    t->m = 0;
    if (n < 1) {
        snprintf(err, errlen, "the sentence has no tokens");
        return -1;
    }
    if (n > cfg->max_len || (encdec && m_tgt > cfg->max_len)) {
        snprintf(err, errlen, "the sentence has %d tokens; this model reads at most %d",
                 encdec && m_tgt > n ? m_tgt : n, cfg->max_len);
        return -1;
    }
    if (n > t->max_n || (encdec && m_tgt > t->max_m)) {
        snprintf(err, errlen, "the sentence has %d tokens; the trace holds at most %d", n, t->max_n);
        return -1;
    }
    if (encdec && m_tgt < 1) {
        snprintf(err, errlen, "an encoder-decoder model needs a target sentence");
        return -1;
    }
    if ((unsigned)c->pe >= PE__COUNT) {
        snprintf(err, errlen, "unknown positional encoding %d", (int)c->pe);
        return -1;
    }
    if (c->pe == PE_ROPE && cfg->d_head % 2) {
        snprintf(err, errlen, "rope needs an even d_head (this model has %d)", cfg->d_head);
        return -1;
    }
    if (c->pe == PE_SINUSOIDAL && cfg->d_model % 2) {
        snprintf(err, errlen, "sinusoidal PE needs an even d_model (this model has %d)", cfg->d_model);
        return -1;
    }
    if (check_ids(m, src, n, "input", err, errlen) ||
        (encdec && check_ids(m, tgt, m_tgt, "target", err, errlen)))
        return -1;
    /* The order control: position i runs token order[i]. */
    if (c->order) {
        unsigned char seen[ATTEND_MAX_LEN] = {0};
        assert(n <= ATTEND_MAX_LEN); /* n <= max_len <= ATTEND_MAX_LEN */
        for (int i = 0; i < n; i++) {
            int o = c->order[i];
            if (o < 0 || o >= n || seen[o]) {
                snprintf(err, errlen, "order is not a permutation of 0..%d (entry %d is %d)",
                         n - 1, i, o);
                return -1;
            }
            seen[o] = 1;
        }
    }
    for (int i = 0; i < n; i++) {
        t->order[i] = c->order ? c->order[i] : i;
        t->src[i] = src[t->order[i]];
    }
    if (encdec) {
        memcpy(t->tgt, tgt, sizeof(int) * (size_t)m_tgt);
        /* Teacher forcing: the decoder reads the target shifted right behind <bos>, so row j
         * is the step that produces target word j (as in training). Without <bos> in the
         * vocabulary the target is read as given. */
        int bos = vocab_id(&m->vocab, "<bos>");
        for (int j = 0; j < m_tgt; j++)
            t->tgt_in[j] = bos < 0 ? tgt[j] : j == 0 ? bos : tgt[j - 1];
    }
    t->ctl = *c;
    t->ctl.order = NULL;
    t->ctl.patch = NULL;
    t->n = n;
    t->m = encdec ? m_tgt : 0;

    Fw f = {m, c, t, 0, STACK_ENC, -1, SUB_NONE, t->arena + t->cap_main, 0};

    if (cfg->arch == ARCH_ENCODER) {
        const float *h = run_stack(&f, STACK_ENC, m->enc, &m->enc_final, t->src, n, c->causal,
                                   NULL, NULL, 0);
        lm_head(&f, h, n);
    } else if (cfg->arch == ARCH_DECODER) {
        const float *h = run_stack(&f, STACK_DEC, m->dec, &m->dec_final, t->src, n, c->causal,
                                   NULL, NULL, 0);
        lm_head(&f, h, n);
    } else {
        /* The encoder reads the source without a causal mask; the decoder is causal when
         * c->causal, and its cross-attention reads the encoder's output (the memory). */
        const float *mem = run_stack(&f, STACK_ENC, m->enc, &m->enc_final, t->src, n, 0, NULL,
                                     NULL, 0);
        const float *h = run_stack(&f, STACK_DEC, m->dec, &m->dec_final, t->tgt_in, m_tgt,
                                   c->causal, mem, t->src, n);
        lm_head(&f, h, m_tgt);
    }
    if (f.oom) {
        snprintf(err, errlen, "out of memory widening the half-precision weights");
        return -1;
    }
    if (f.overflow) {
        snprintf(err, errlen, "internal error: trace arena too small (%zu floats)", t->cap);
        t->n_entries = 0;
        return -1;
    }
    if (model_store_check(m, err, errlen)) {
        t->n_entries = 0;
        return -1;
    }
    if (trace_check_finite(t, err, errlen)) {
        /* a weight of the file that is not finite is the likely cause: name it */
        char *guess = strstr(err, " (the model's numbers");
        size_t k = guess ? (size_t)(guess - err) : strlen(err);
        if (m->store_check && k + 3 < errlen) {
            char e2[300];
            if (m->store_check(m->store, 1, e2, sizeof e2))
                snprintf(err + k, errlen - k, ": %s", e2);
        }
        return -1;
    }
    return 0;
}

int model_store_check(const Model *m, char *err, size_t errlen)
{
    return m->store_check ? m->store_check(m->store, 0, err, errlen) : 0;
}

Trace *model_worked(const float *q, const float *k, const float *v, int nq, int nk, int dk,
                    int dv, int causal, int scale)
{
    if (nq < 1 || nk < 1 || dk < 1 || dv < 1 || nq > 64 || nk > 64 || dk > 4096 || dv > 4096)
        return NULL;
    Trace *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->max_n = nq > nk ? nq : nk;
    t->max_m = 1;
    t->cap_entries = 12;
    t->cap = (size_t)nq * dk + (size_t)nk * (dk + dv) + 5 * (size_t)nq * nk + (size_t)nq * dv;
    t->cap_main = t->cap;
    t->entries = calloc((size_t)t->cap_entries, sizeof *t->entries);
    t->arena = malloc(sizeof(float) * t->cap);
    t->src = calloc((size_t)t->max_n, sizeof(int));
    t->tgt = calloc(1, sizeof(int));
    t->tgt_in = calloc(1, sizeof(int));
    t->order = calloc((size_t)t->max_n, sizeof(int));
    if (!t->entries || !t->arena || !t->src || !t->tgt || !t->tgt_in || !t->order) {
        trace_free(t);
        return NULL;
    }
    for (int i = 0; i < t->max_n; i++)
        t->order[i] = t->src[i] = i;
    t->n = nq;
    t->ctl.causal = causal;
    t->ctl.scale = scale;
    t->ctl.pe = PE_NONE;
    /* A minimal model stands in for naming: decoder layout, no weights. */
    static const Model named = {.cfg = {.arch = ARCH_DECODER}};
    Fw f = {&named, &t->ctl, t, 0, STACK_DEC, 0, SUB_SELF, NULL, 0};
    float *Q = rec(&f, T_Q, 0, nq, dk), *K = rec(&f, T_K, 0, nk, dk), *V = rec(&f, T_V, 0, nk, dv);
    memcpy(Q, q, sizeof(float) * (size_t)nq * dk);
    memcpy(K, k, sizeof(float) * (size_t)nk * dk);
    memcpy(V, v, sizeof(float) * (size_t)nk * dv);
    float *M = rec(&f, T_MASK, -1, nq, nk);
    build_mask(M, nq, nk, causal != 0, t->src, 0, -1);
    float *S = rec(&f, T_SCORES, 0, nq, nk), *Ss = rec(&f, T_SCALED, 0, nq, nk);
    float *Sm = rec(&f, T_MASKED, 0, nq, nk), *A = rec(&f, T_WEIGHTS, 0, nq, nk);
    float *O = rec(&f, T_HEAD_OUT, 0, nq, dv);
    /* causal 2, the common mistake: softmax over every key first, then the future's weights
     * zeroed. Nothing is added before softmax (masked = scaled); rows no longer sum to one, and
     * every weight of row i was divided by a sum that counted the future keys. */
    model_sdpa(S, Ss, Sm, A, O, Q, K, V, causal == 2 ? NULL : M, nq, nk, dk, dv,
               model_sdpa_scale(scale, dk));
    if (causal == 2) {
        for (int i = 0; i < nq; i++) {
            for (int j = 0; j < nk; j++)
                if (isinf(M[(size_t)i * nk + j]))
                    A[(size_t)i * nk + j] = 0.0f;
            for (int c = 0; c < dv; c++) { /* out = A·V again, with the zeroed weights */
                float acc = 0.0f;
                for (int j = 0; j < nk; j++)
                    acc += A[(size_t)i * nk + j] * V[(size_t)j * dv + c];
                O[(size_t)i * dv + c] = acc;
            }
        }
    }
    if (f.overflow) {
        trace_free(t);
        return NULL;
    }
    return t;
}
