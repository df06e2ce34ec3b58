/* lens.c - the logit lens, direct logit attribution, activation patching and attention rollout,
 * each read from the parts of the residual stream a forward pass left in its Trace (lens.h). */
#include "lens.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor.h"

static Stack main_stack(const Model *m)
{
    return model_output_stack(m); /* decoder-only or encoder: the main stack */
}

int lens_check_model(const Model *m, char *err, size_t errlen)
{
    if (m->cfg.arch == ARCH_ENCDEC) {
        snprintf(err, errlen, "this is an encoder-decoder model: its decoder also reads the "
                 "encoder through cross-attention, which the lens, attribution, patching and "
                 "rollout do not split; give a decoder-only or encoder model");
        return -1;
    }
    return 0;
}

const float *lens_resid(const Trace *t, int l)
{
    const Model *m = t->model;
    Stack st = main_stack(m);
    const TraceEntry *e;
    if (l == 0) { /* the stack's input: x + PE, or the (scaled) embeddings */
        e = trace_find(t, st, -1, SUB_NONE, -1, T_X_PE);
        if (!e)
            e = trace_find(t, st, -1, SUB_NONE, -1, T_EMBED_SCALED);
        if (!e)
            e = trace_find(t, st, -1, SUB_NONE, -1, T_EMBED);
        return e ? e->data : NULL;
    }
    Sublayer last = m->cfg.ffn == FFN_NONE ? SUB_SELF : SUB_FFN;
    e = trace_find(t, st, l - 1, last, -1, m->cfg.pre_norm ? T_RESID : T_NORM_OUT);
    return e ? e->data : NULL;
}

int lens_token_parse(const Model *m, const char *s, const char *what, int *id, char *err,
                     size_t errlen)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s && end != s && !*end) {
        if (v < 0 || v >= m->cfg.vocab_size) {
            snprintf(err, errlen, "%s %s: token ids run 0..%d", what, s, m->cfg.vocab_size - 1);
            return -1;
        }
        *id = (int)v;
        return 0;
    }
    int ids[8], none[8];
    TokenizeInfo info, i0;
    int n = vocab_tokenize(&m->vocab, s, ids, 8, &info);
    int n0 = vocab_tokenize(&m->vocab, "", none, 8, &i0); /* what the tokenizer adds (a BOS) */
    if (n0 < 0 || n0 > n || memcmp(ids, none, sizeof(int) * (size_t)(n0 > 0 ? n0 : 0)))
        n0 = 0;
    if (n - n0 != 1 || info.truncated || info.n_unknown) {
        snprintf(err, errlen, "%s \"%s\" is %s; give one token (a word of the vocabulary, or a "
                 "token id 0..%d)", what, s,
                 info.n_unknown ? "not in the vocabulary"
                 : n - n0 < 1   ? "no token"
                                : "more than one token",
                 m->cfg.vocab_size - 1);
        return -1;
    }
    *id = ids[n0];
    return 0;
}

float lens_weight(const Model *m, const float *w, size_t i)
{
    if (!m->wdtype)
        return w[i];
    float x;
    tensor_widen(&x, (const uint16_t *)(const void *)w + i, m->wdtype, 1);
    return x;
}

void lens_unembed_row(const Model *m, int tok, double *w)
{
    int d = m->cfg.d_model, V = m->cfg.vocab_size;
    for (int j = 0; j < d; j++) {
        if (!m->lm_head)
            w[j] = lens_weight(m, m->tok_embed, (size_t)tok * d + j);
        else if (m->cfg.w_out_in)
            w[j] = lens_weight(m, m->lm_head, (size_t)tok * d + j);
        else
            w[j] = lens_weight(m, m->lm_head, (size_t)j * V + tok);
    }
}

static const NormWeights *final_norm(const Model *m)
{
    return main_stack(m) == STACK_ENC ? &m->enc_final : &m->dec_final;
}

void lens_top(const float *r, int V, int k, LensTop *top)
{
    /* one pass for the k best (the first is the max), one for the softmax's sum: the separate
     * max pass is gone */
    int n = 0;
    float thr = 0.0f; /* the k-th best so far, once there are k */
    for (int j = 0; j < V; j++) {
        float v = r[j];
        if (n == k && v <= thr)
            continue;
        int at = n < k ? n++ : k - 1;
        while (at > 0 && r[top[at - 1].id] < v) {
            top[at] = top[at - 1];
            at--;
        }
        top[at].id = j;
        thr = r[top[n - 1].id];
    }
    float mx = r[top[0].id];
    double sum = 0.0;
    for (int j = 0; j < V; j++) /* expf: a third of exp's time on a 50k vocabulary */
        sum += expf(r[j] - mx);
    for (int i = 0; i < n; i++)
        top[i].p = expf(r[top[i].id] - mx) / sum;
}

/* lens_logit's rows: every position (pos < 0: out[(l·n + i)·k]) or position pos alone
 * (out[l·k]). */
static int logit_rows(const Model *m, const Trace *t, int k, int pos, LensTop *out, char *err,
                      size_t errlen)
{
    const ModelConfig *c = &m->cfg;
    int L = c->n_layers, n = t->n, d = c->d_model, V = c->vocab_size;
    int per = pos < 0 ? n : 1; /* positions a block's rows hold */
    if (lens_check_model(m, err, errlen))
        return -1;
    if (k < 1 || k > V) {
        snprintf(err, errlen, "--top %d: this model has %d tokens", k, V);
        return -1;
    }
    const TraceEntry *lg = trace_find(t, main_stack(m), -1, SUB_NONE, -1, T_LOGITS);
    if (!lg) {
        snprintf(err, errlen, "the run has no logits");
        return -1;
    }
    /* Blocks of at most 256 rows (64 MiB of logits): the streamed product (tensor_stream.c)
     * reads a large W_U once per block, where a row at a time would read it once per row; on
     * GPT-2-small 12 tokens' 156 rows are one block, W_U read once. */
    size_t rows = (size_t)L * per, block = ((size_t)64 << 20) / (sizeof(float) * (size_t)V);
    if (block > 256)
        block = 256;
    if (block < 1)
        block = 1;
    if (block > rows)
        block = rows;
    float *x = malloc(sizeof(float) * (block ? block : 1) * d);
    float *logits = malloc(sizeof(float) * (block ? block : 1) * V);
    if (!x || !logits) {
        free(x);
        free(logits);
        snprintf(err, errlen, "out of memory for the lens's logits");
        return -1;
    }
    const NormWeights *fn = final_norm(m);
    for (size_t r0 = 0; r0 < rows; r0 += block) { /* rows l·n + i, l < L */
        int nb = (int)(rows - r0 < block ? rows - r0 : block);
        for (int b = 0; b < nb; b++) {
            size_t r = r0 + b;
            const float *res = lens_resid(t, (int)(r / per));
            if (!res) {
                free(x);
                free(logits);
                snprintf(err, errlen, "the run has no residual stream at block %zu", r / per);
                return -1;
            }
            size_t i = pos < 0 ? r % n : (size_t)pos;
            memcpy(x + (size_t)b * d, res + i * d, sizeof(float) * d);
        }
        if (c->final_norm && c->norm == NORM_RMS)
            tensor_rmsnorm(x, x, fn->gain, nb, d, c->norm_eps);
        else if (c->final_norm)
            tensor_layernorm(x, x, fn->gain, fn->bias, nb, d, c->norm_eps);
        /* as the forward's lm_head: tied, (out, in) or (in, out); 16-bit when the model's are */
        const float *wu = m->lm_head ? m->lm_head : m->tok_embed;
        int bt = !m->lm_head || c->w_out_in;
        if (m->wdtype) {
            const uint16_t *h = (const uint16_t *)(const void *)wu;
            if (bt ? tensor_matmul_bt_half(logits, x, h, m->wdtype, nb, d, V, 1.0f)
                   : tensor_matmul_half(logits, x, h, m->wdtype, nb, d, V)) {
                free(x);
                free(logits);
                snprintf(err, errlen, "out of memory widening the unembedding");
                return -1;
            }
        } else if (bt)
            tensor_matmul_bt(logits, x, wu, nb, d, V);
        else
            tensor_matmul(logits, x, wu, nb, d, V);
        for (int b = 0; b < nb; b++)
            lens_top(logits + (size_t)b * V, V, k, out + (r0 + b) * k);
    }
    for (int i = 0; i < per; i++) /* row L: the model's own output */
        lens_top(lg->data + (size_t)(pos < 0 ? i : pos) * V, V, k, out + ((size_t)L * per + i) * k);
    free(x);
    free(logits);
    return model_store_check(m, err, errlen); /* W_U and the norm were read from the file */
}

int lens_logit(const Model *m, const Trace *t, int k, LensTop *out, char *err, size_t errlen)
{
    return logit_rows(m, t, k, -1, out, err, errlen);
}

int lens_logit_at(const Model *m, const Trace *t, int pos, int k, LensTop *out, char *err,
                  size_t errlen)
{
    if (pos < 0 || pos >= t->n) {
        snprintf(err, errlen, "position %d: the sentence has positions 0..%d", pos, t->n - 1);
        return -1;
    }
    return logit_rows(m, t, k, pos, out, err, errlen);
}

int lens_forward_from(const Model *m, const Trace *t, int layer, const Controls *c, Trace *out,
                      char *err, size_t errlen)
{
    if (layer < 0 || layer >= m->cfg.n_layers || t->model != m) {
        snprintf(err, errlen, "layer %d: the model has layers 0..%d", layer, m->cfg.n_layers - 1);
        return -1;
    }
    ModelPatch mp = {-2, -2, NULL, lens_resid(t, layer), layer}; /* patches nothing */
    if (!mp.from) {
        snprintf(err, errlen, "the run has no stream before layer %d", layer);
        return -1;
    }
    Controls k = *c;
    k.patch = &mp;
    k.order = NULL; /* t->src is in the run's order already */
    return model_forward(m, t->src, t->n, NULL, 0, &k, out, err, errlen) ? -1 : 0;
}

/* ------------------------------------------------------------ attribution */

typedef struct {
    const double *gw;    /* (d) γ ⊙ W_U[token] */
    double scale;
    int centre;
    int d;
} Dla;

static double dla_value(const Dla *z, const double *c)
{
    double mean = 0.0, s = 0.0;
    if (z->centre) {
        for (int j = 0; j < z->d; j++)
            mean += c[j];
        mean /= z->d;
    }
    for (int j = 0; j < z->d; j++)
        s += z->gw[j] * (c[j] - mean);
    return s / z->scale;
}

static LensPart *add_part(LensAttribution *a, const char *name, double v)
{
    LensPart *p = &a->parts[a->n_parts++];
    snprintf(p->name, LENS_NAME, "%s", name);
    p->value = v;
    p->layer = p->head = p->key = -1;
    p->peak = NAN;
    return p;
}

/* c = the row of a float tensor, as doubles. */
static const double *row_d(double *c, const float *x, int d)
{
    for (int j = 0; j < d; j++)
        c[j] = x[j];
    return c;
}

int lens_attribute(const Model *m, const Trace *t, int token, int pos, LensAttribution *a,
                   char *err, size_t errlen)
{
    const ModelConfig *cf = &m->cfg;
    int d = cf->d_model, H = cf->n_heads, dh = cf->d_head, hd = H * dh, L = cf->n_layers;
    memset(a, 0, sizeof *a);
    if (lens_check_model(m, err, errlen))
        return -1;
    if (!cf->pre_norm) {
        snprintf(err, errlen, "direct logit attribution needs a pre-norm model: this one "
                 "normalises after each sublayer (post-norm), so every block rescales the whole "
                 "stream and the logit is not a sum of the parts' contributions");
        return -1;
    }
    if (pos < 0 || pos >= t->n) {
        snprintf(err, errlen, "--position %d: the sentence has positions 0..%d", pos, t->n - 1);
        return -1;
    }
    if (token < 0 || token >= cf->vocab_size) {
        snprintf(err, errlen, "token %d: token ids run 0..%d", token, cf->vocab_size - 1);
        return -1;
    }
    Stack st = main_stack(m);
    const TraceEntry *lg = trace_find(t, st, -1, SUB_NONE, -1, T_LOGITS);
    const float *rL = lens_resid(t, L);
    double *gw = malloc(sizeof(double) * 2 * d);
    a->parts = calloc((size_t)(3 + L * (H + 2)), sizeof *a->parts);
    if (!lg || !rL || !gw || !a->parts) {
        free(gw);
        lens_attribution_free(a);
        snprintf(err, errlen, lg && rL ? "out of memory" : "the run has no logits");
        return -1;
    }
    double *c = gw + d;
    lens_unembed_row(m, token, gw);
    const NormWeights *fn = final_norm(m);
    Dla z = {gw, 1.0, 0, d};
    double fb = 0.0; /* β · W_U[t] (+ b_U[t]: the engine's unembeddings have no bias) */
    if (cf->final_norm) {
        const float *x = rL + (size_t)pos * d;
        double mean = 0.0, ss = 0.0;
        z.centre = cf->norm == NORM_LAYER;
        for (int j = 0; j < d; j++)
            mean += x[j];
        mean = z.centre ? mean / d : 0.0;
        for (int j = 0; j < d; j++)
            ss += (x[j] - mean) * (x[j] - mean);
        z.scale = sqrt(ss / d + (double)cf->norm_eps);
        for (int j = 0; j < d; j++) {
            if (fn->bias)
                fb += (double)fn->bias[j] * gw[j];
            gw[j] *= fn->gain[j];
        }
    }
    const TraceEntry *e = trace_find(t, st, -1, SUB_NONE, -1,
                                     cf->scale_embed ? T_EMBED_SCALED : T_EMBED);
    add_part(a, "embed", e ? dla_value(&z, row_d(c, e->data + (size_t)pos * d, d)) : 0.0);
    if ((e = trace_find(t, st, -1, SUB_NONE, -1, T_PE)))
        add_part(a, "pos", dla_value(&z, row_d(c, e->data + (size_t)pos * d, d)));
    const LayerWeights *lw = st == STACK_ENC ? m->enc : m->dec;
    char name[LENS_NAME];
    for (int l = 0; l < L; l++) {
        const float *wo = lw[l].self.wo;
        for (int h = 0; h < H; h++) { /* o_h · W_O's rows h·dh.. (columns when (out, in)) */
            const TraceEntry *o = trace_find(t, st, l, SUB_SELF, h, T_HEAD_OUT);
            if (!o)
                goto missing;
            const float *orow = o->data + (size_t)pos * dh;
            for (int j = 0; j < d; j++) {
                double s = 0.0;
                for (int k = 0; k < dh; k++)
                    s += (double)orow[k] * lens_weight(m, wo, cf->w_out_in
                                                                  ? (size_t)j * hd + h * dh + k
                                                                  : (size_t)(h * dh + k) * d + j);
                c[j] = s;
            }
            snprintf(name, sizeof name, "L%d.h%d", l, h);
            LensPart *p = add_part(a, name, dla_value(&z, c));
            p->layer = l;
            p->head = h;
            const TraceEntry *w = trace_find(t, st, l, SUB_SELF, h, T_WEIGHTS);
            for (int j = 0; w && j < w->cols; j++) /* where it looks from pos */
                if (p->key < 0 || w->data[(size_t)pos * w->cols + j] > p->peak) {
                    p->peak = w->data[(size_t)pos * w->cols + j];
                    p->key = j;
                }
        }
        if (lw[l].self.bo) {
            snprintf(name, sizeof name, "L%d.attn_bias", l);
            add_part(a, name, dla_value(&z, row_d(c, lw[l].self.bo, d)));
        }
        if (cf->ffn != FFN_NONE) {
            const TraceEntry *f = trace_find(t, st, l, SUB_FFN, -1, T_FFN_OUT);
            if (!f)
                goto missing;
            snprintf(name, sizeof name, "L%d.mlp", l);
            add_part(a, name, dla_value(&z, row_d(c, f->data + (size_t)pos * d, d)));
        }
    }
    add_part(a, "final_bias", fb);
    a->token = token;
    a->pos = pos;
    a->scale = z.scale;
    a->logit = lg->data[(size_t)pos * lg->cols + token];
    free(gw);
    if (model_store_check(m, err, errlen)) { /* W_U and γ were read from the file */
        lens_attribution_free(a);
        return -1;
    }
    return 0;
missing:
    free(gw);
    lens_attribution_free(a);
    snprintf(err, errlen, "the run lacks a head's or FFN's output");
    return -1;
}

void lens_attribution_free(LensAttribution *a)
{
    free(a->parts);
    memset(a, 0, sizeof *a);
}

/* ---------------------------------------------------------------- patching */

static double logit_at(const Model *m, const Trace *t, int pos, int token)
{
    const TraceEntry *lg = trace_find(t, main_stack(m), -1, SUB_NONE, -1, T_LOGITS);
    return lg ? lg->data[(size_t)pos * lg->cols + token] : NAN;
}

int lens_patch(const Model *m, const int *clean, const int *corrupt, int n, const Controls *c,
               int token, int pos, LensPatch *p, char *err, size_t errlen)
{
    return lens_patch_layer(m, clean, corrupt, n, c, token, pos, -1, p, err, errlen);
}

int lens_patch_layer(const Model *m, const int *clean, const int *corrupt, int n,
                     const Controls *c, int token, int pos, int layer, LensPatch *p, char *err,
                     size_t errlen)
{
    const ModelConfig *cf = &m->cfg;
    int L = cf->n_layers, H = cf->n_heads, per = H + (cf->ffn != FFN_NONE);
    memset(p, 0, sizeof *p);
    if (lens_check_model(m, err, errlen))
        return -1;
    if (layer >= L) {
        snprintf(err, errlen, "layer %d: the model has layers 0..%d", layer, L - 1);
        return -1;
    }
    if (pos < 0 || pos >= n) {
        snprintf(err, errlen, "--position %d: the sentence has positions 0..%d", pos, n - 1);
        return -1;
    }
    if (token < 0 || token >= cf->vocab_size) {
        snprintf(err, errlen, "token %d: token ids run 0..%d", token, cf->vocab_size - 1);
        return -1;
    }
    Trace *a = trace_new(m, n, 1), *b = trace_new(m, n, 1), *x = trace_new(m, n, 1);
    p->parts = calloc((size_t)(L * per), sizeof *p->parts);
    int rc = -1;
    if (!a || !b || !x || !p->parts) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    Controls pc = *c;
    pc.patch = NULL;
    if (model_forward(m, clean, n, NULL, 0, &pc, a, err, errlen) ||
        model_forward(m, corrupt, n, NULL, 0, &pc, b, err, errlen))
        goto out;
    p->token = token;
    p->pos = pos;
    p->clean = logit_at(m, a, pos, token);
    p->corrupted = logit_at(m, b, pos, token);
    double diff = p->clean - p->corrupted;
    if (!(fabs(diff) > 1e-6 * (1.0 + fabs(p->clean)))) {
        snprintf(err, errlen, "both sentences give token %d the same logit at position %d "
                 "(%.6g): there is no difference for a patch to restore", token, pos, p->clean);
        goto out;
    }
    Stack st = main_stack(m);
    for (int l = layer < 0 ? 0 : layer; l < (layer < 0 ? L : layer + 1); l++)
        for (int h = 0; h < per; h++) {
            int head = h < H ? h : -1;
            const TraceEntry *src = head >= 0 ? trace_find(a, st, l, SUB_SELF, head, T_HEAD_OUT)
                                              : trace_find(a, st, l, SUB_FFN, -1, T_FFN_OUT);
            if (!src) {
                snprintf(err, errlen, "the clean run lacks a head's or FFN's output");
                goto out;
            }
            ModelPatch mp = {l, head, src->data, lens_resid(b, l), l};
            if (!mp.from) {
                snprintf(err, errlen, "the corrupted run lacks the stream before layer %d", l);
                goto out;
            }
            pc.patch = &mp;
            if (model_forward(m, corrupt, n, NULL, 0, &pc, x, err, errlen))
                goto out;
            LensPatchPart *q = &p->parts[p->n_parts++];
            if (head >= 0)
                snprintf(q->name, sizeof q->name, "L%d.h%d", l, head);
            else
                snprintf(q->name, sizeof q->name, "L%d.mlp", l);
            q->layer = l;
            q->head = head;
            q->logit = logit_at(m, x, pos, token);
            q->fraction = (q->logit - p->corrupted) / diff;
        }
    rc = 0;
out:
    trace_free(a);
    trace_free(b);
    trace_free(x);
    if (rc)
        lens_patch_free(p);
    return rc;
}

void lens_patch_free(LensPatch *p)
{
    free(p->parts);
    memset(p, 0, sizeof *p);
}

/* ----------------------------------------------------------------- rollout */

int lens_rollout(const Model *m, const Trace *t, double *out, char *err, size_t errlen)
{
    const ModelConfig *cf = &m->cfg;
    int n = t->n, L = cf->n_layers, H = cf->n_heads;
    size_t nn = (size_t)n * n;
    if (lens_check_model(m, err, errlen))
        return -1;
    double *A = malloc(sizeof(double) * nn);
    if (!A) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    Stack st = main_stack(m);
    for (int l = 0; l < L; l++) {
        memset(A, 0, sizeof(double) * nn);
        for (int h = 0; h < H; h++) {
            const TraceEntry *w = trace_find(t, st, l, SUB_SELF, h, T_WEIGHTS);
            if (!w) {
                free(A);
                snprintf(err, errlen, "the run lacks layer %d head %d's weights", l, h);
                return -1;
            }
            for (size_t k = 0; k < nn; k++)
                A[k] += w->data[k] / H;
        }
        for (int i = 0; i < n; i++) { /* + I, rows renormalised */
            double *row = A + (size_t)i * n, s = 0.0;
            row[i] += 1.0;
            for (int j = 0; j < n; j++)
                s += row[j];
            for (int j = 0; j < n; j++)
                row[j] /= s;
        }
        double *R = out + (size_t)l * nn;
        if (l == 0) {
            memcpy(R, A, sizeof(double) * nn);
            continue;
        }
        const double *P = R - nn;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < n; k++)
                    s += A[(size_t)i * n + k] * P[(size_t)k * n + j];
                R[(size_t)i * n + j] = s;
            }
    }
    free(A);
    return 0;
}
