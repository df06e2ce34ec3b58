/* model_params.c - a model's shape and its parameters: the config's defaults and checks, the
 * layout that names every weight matrix and its shape, the parameter store (model_new fills it
 * with the initial weights; model_bind points the layer structs into it), and the controls a
 * fresh view starts with. The forward pass that uses them is model.c. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attend_limits.h"

/* ----------------------------------------------------------------- config */

void model_config_defaults(ModelConfig *c)
{
    memset(c, 0, sizeof *c); /* vocab_size, scale_embed and tie_embed 0 */
    c->arch = ARCH_DECODER;
    c->d_model = 32, c->n_heads = 4, c->d_head = 8, c->n_layers = 2, c->d_ff = 128;
    c->max_len = 32;
    c->pe = PE_SINUSOIDAL;
    c->norm = NORM_LAYER, c->pre_norm = 1, c->final_norm = 1;
    c->ffn = FFN_GELU;
    c->norm_eps = 1e-5f;
    c->rope_base = 10000.0f;
}

int model_config_check(const ModelConfig *c, char *err, size_t errlen)
{
#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
    if ((unsigned)c->arch > ARCH_ENCDEC) BAD("config.arch is not one of encoder, decoder, encoder-decoder");
    if (c->vocab_size < 2 || c->vocab_size > 1000000) BAD("config.vocab_size %d out of range (2..1000000)", c->vocab_size);
    if (c->d_model < 1 || c->d_model > ATTEND_MAX_D_MODEL) BAD("config.d_model %d out of range (1..%d)", c->d_model, ATTEND_MAX_D_MODEL);
    if (c->n_heads < 1 || c->n_heads > ATTEND_MAX_HEADS) BAD("config.n_heads %d out of range (1..%d)", c->n_heads, ATTEND_MAX_HEADS);
    if (c->d_head < 1 || c->d_head > ATTEND_MAX_D_HEAD) BAD("config.d_head %d out of range (1..%d)", c->d_head, ATTEND_MAX_D_HEAD);
    if (c->n_layers < 1 || c->n_layers > ATTEND_MAX_LAYERS) BAD("config.n_layers %d out of range (1..%d)", c->n_layers, ATTEND_MAX_LAYERS);
    if ((unsigned)c->ffn > FFN_NONE) BAD("config.ffn is not one of relu, gelu, swiglu, none");
    if (c->ffn == FFN_NONE && c->d_ff != 0) BAD("config.d_ff must be 0 (or absent) when config.ffn is none (got %d)", c->d_ff);
    if (c->ffn != FFN_NONE && (c->d_ff < 1 || c->d_ff > 65536)) BAD("config.d_ff %d out of range (1..65536)", c->d_ff);
    if (c->max_len < 1 || c->max_len > ATTEND_MAX_LEN) BAD("config.max_len %d out of range (1..%d)", c->max_len, ATTEND_MAX_LEN);
    if ((unsigned)c->pe >= PE__COUNT) BAD("config.pe is not one of none, sinusoidal, learned, rope");
    if (c->pe == PE_ROPE && c->d_head % 2) BAD("config.d_head must be even for rope (got %d)", c->d_head);
    if (c->pe == PE_SINUSOIDAL && c->d_model % 2) BAD("config.d_model must be even for sinusoidal PE (got %d)", c->d_model);
    if (!(c->norm_eps > 0.0f && c->norm_eps < 1.0f)) BAD("config.norm_eps must be in (0, 1)");
    if (!(c->rope_base > 1.0f)) BAD("config.rope_base must be > 1");
    if (c->n_kv_heads < 0 || c->n_kv_heads > c->n_heads ||
        (c->n_kv_heads > 0 && c->n_heads % c->n_kv_heads))
        BAD("config.n_kv_heads %d must divide n_heads %d", c->n_kv_heads, c->n_heads);
    if (c->rope_scaling != ROPE_SCALE_NONE && !(c->rope_factor >= 1.0f))
        BAD("config.rope_factor must be >= 1 when RoPE is scaled");
    if (c->rope_scaling == ROPE_SCALE_LLAMA3 &&
        (!(c->rope_high_freq > c->rope_low_freq) || !(c->rope_low_freq > 0.0f) || c->rope_orig_max < 1))
        BAD("config: llama3 RoPE scaling needs high_freq_factor > low_freq_factor > 0 and "
            "original_max_position_embeddings >= 1");
    return 0;
#undef BAD
}

/* ----------------------------------------------------------------- layout */

/* Calls add(name, rows, cols) for every weight in canonical order. The one place that
 * knows which weights a configuration has. */
typedef void (*LayoutFn)(void *ctx, const char *name, int rows, int cols);

static void layout_layer(const ModelConfig *c, const char *p, int cross, LayoutFn add, void *ctx)
{
    char nm[48];
    int d = c->d_model, hd = c->n_heads * c->d_head, ln = c->norm == NORM_LAYER;
#define ADD(suffix, r, k) do { snprintf(nm, sizeof nm, "%s%s", p, suffix); add(ctx, nm, r, k); } while (0)
    ADD("attn.wq", d, hd);
    ADD("attn.wk", d, hd);
    ADD("attn.wv", d, hd);
    ADD("attn.wo", hd, d);
    ADD("norm1.gain", 1, d);
    if (ln) ADD("norm1.bias", 1, d);
    if (cross) {
        ADD("cross.wq", d, hd);
        ADD("cross.wk", d, hd);
        ADD("cross.wv", d, hd);
        ADD("cross.wo", hd, d);
        ADD("normc.gain", 1, d);
        if (ln) ADD("normc.bias", 1, d);
    }
    if (c->ffn == FFN_NONE)
        return; /* attention-only: no FFN, no norm around it */
    ADD("ffn.w1", d, c->d_ff);
    if (c->ffn == FFN_SWIGLU) {
        ADD("ffn.w3", d, c->d_ff);
    } else {
        ADD("ffn.b1", 1, c->d_ff);
    }
    ADD("ffn.w2", c->d_ff, d);
    if (c->ffn != FFN_SWIGLU) ADD("ffn.b2", 1, d);
    ADD("norm2.gain", 1, d);
    if (ln) ADD("norm2.bias", 1, d);
#undef ADD
}

static void model_layout(const ModelConfig *c, LayoutFn add, void *ctx)
{
    char p[32];
    int d = c->d_model;
    add(ctx, "tok_embed", c->vocab_size, d);
    add(ctx, "pos_embed", c->max_len, d);
    for (int s = 0; s < 2; s++) {
        int is_enc = s == 0;
        if (is_enc && c->arch == ARCH_DECODER) continue;
        if (!is_enc && c->arch == ARCH_ENCODER) continue;
        for (int l = 0; l < c->n_layers; l++) {
            snprintf(p, sizeof p, "%s.%d.", is_enc ? "enc" : "dec", l);
            layout_layer(c, p, !is_enc && c->arch == ARCH_ENCDEC, add, ctx);
        }
        if (c->final_norm) {
            add(ctx, is_enc ? "enc.final.gain" : "dec.final.gain", 1, d);
            if (c->norm == NORM_LAYER)
                add(ctx, is_enc ? "enc.final.bias" : "dec.final.bias", 1, d);
        }
    }
    if (!c->tie_embed)
        add(ctx, "lm_head", d, c->vocab_size);
}

static void count_fn(void *ctx, const char *name, int rows, int cols)
{
    (void)name;
    *(size_t *)ctx += (size_t)rows * (size_t)cols;
}

size_t model_config_param_count(const ModelConfig *c)
{
    size_t n = 0;
    model_layout(c, count_fn, &n);
    return n;
}

typedef struct { Model *m; int i; size_t off; } FillCtx;

static void fill_fn(void *vctx, const char *name, int rows, int cols)
{
    FillCtx *f = vctx;
    if (f->m->params) {
        Param *p = &f->m->params[f->i];
        snprintf(p->name, sizeof p->name, "%s", name);
        p->rows = rows;
        p->cols = cols;
        p->offset = f->off;
    }
    f->i++;
    f->off += (size_t)rows * (size_t)cols;
}

const Param *model_param(const Model *m, const char *name)
{
    for (int i = 0; i < m->n_params; i++)
        if (strcmp(m->params[i].name, name) == 0)
            return &m->params[i];
    return NULL;
}

float *model_param_data(Model *m, const Param *p) { return m->data + p->offset; }

static const float *W(const Model *m, const char *fmt, const char *prefix)
{
    char nm[48];
    snprintf(nm, sizeof nm, fmt, prefix);
    const Param *p = model_param(m, nm);
    return p ? m->data + p->offset : NULL;
}

/* (contract in model.h) */
void model_bind(Model *m)
{
    const ModelConfig *c = &m->cfg;
    m->tok_embed = W(m, "%stok_embed", "");
    m->pos_embed = W(m, "%spos_embed", "");
    for (int s = 0; s < 2; s++) {
        LayerWeights *lw = s == 0 ? m->enc : m->dec;
        if (!lw) continue;
        for (int l = 0; l < c->n_layers; l++) {
            char p[32];
            snprintf(p, sizeof p, "%s.%d.", s == 0 ? "enc" : "dec", l);
            LayerWeights *L = &lw[l];
            L->self.wq = W(m, "%sattn.wq", p);
            L->self.wk = W(m, "%sattn.wk", p);
            L->self.wv = W(m, "%sattn.wv", p);
            L->self.wo = W(m, "%sattn.wo", p);
            L->norm1.gain = W(m, "%snorm1.gain", p);
            L->norm1.bias = W(m, "%snorm1.bias", p);
            L->cross.wq = W(m, "%scross.wq", p);
            L->cross.wk = W(m, "%scross.wk", p);
            L->cross.wv = W(m, "%scross.wv", p);
            L->cross.wo = W(m, "%scross.wo", p);
            L->normc.gain = W(m, "%snormc.gain", p);
            L->normc.bias = W(m, "%snormc.bias", p);
            L->w1 = W(m, "%sffn.w1", p);
            L->b1 = W(m, "%sffn.b1", p);
            L->w3 = W(m, "%sffn.w3", p);
            L->w2 = W(m, "%sffn.w2", p);
            L->b2 = W(m, "%sffn.b2", p);
            L->norm2.gain = W(m, "%snorm2.gain", p);
            L->norm2.bias = W(m, "%snorm2.bias", p);
        }
    }
    m->enc_final.gain = W(m, "%senc.final.gain", "");
    m->enc_final.bias = W(m, "%senc.final.bias", "");
    m->dec_final.gain = W(m, "%sdec.final.gain", "");
    m->dec_final.bias = W(m, "%sdec.final.bias", "");
    m->lm_head = W(m, "%slm_head", "");
}

int model_new(Model *m, const ModelConfig *cfg, Vocab *v, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (model_config_check(cfg, err, errlen))
        return -1;
    if (v->n != cfg->vocab_size) {
        snprintf(err, errlen, "config.vocab_size is %d but the vocabulary has %d words",
                 cfg->vocab_size, v->n);
        return -1;
    }
    m->cfg = *cfg;
    FillCtx f = {m, 0, 0};
    model_layout(cfg, fill_fn, &f);
    m->n_params = f.i;
    m->n_floats = f.off;
    m->params = calloc((size_t)m->n_params, sizeof *m->params);
    m->data = calloc(m->n_floats, sizeof *m->data);
    if (cfg->arch != ARCH_DECODER)
        m->enc = calloc((size_t)cfg->n_layers, sizeof *m->enc);
    if (cfg->arch != ARCH_ENCODER)
        m->dec = calloc((size_t)cfg->n_layers, sizeof *m->dec);
    if (!m->params || !m->data || (cfg->arch != ARCH_DECODER && !m->enc) ||
        (cfg->arch != ARCH_ENCODER && !m->dec)) {
        snprintf(err, errlen, "out of memory for %zu weights", m->n_floats);
        model_free(m);
        return -1;
    }
    f = (FillCtx){m, 0, 0};
    model_layout(cfg, fill_fn, &f);
    model_bind(m);
    m->vocab = *v;
    memset(v, 0, sizeof *v);
    return 0;
}

void model_free(Model *m)
{
    free(m->params);
    free(m->data);
    free(m->enc);
    free(m->dec);
    free(m->training);
    if (m->store_free)
        m->store_free(m->store);
    vocab_free(&m->vocab);
    memset(m, 0, sizeof *m);
}

void model_default_controls(const Model *m, Controls *c)
{
    memset(c, 0, sizeof *c);
    c->causal = m->cfg.arch != ARCH_ENCODER;
    c->padding = 1;
    c->pe = m->cfg.pe;
    c->scale = 1;
    c->order = NULL;
}
