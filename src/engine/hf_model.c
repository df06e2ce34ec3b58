/* hf_model.c - a Hugging Face model directory as a Model (see hf_model.h): config.json read
 * into the family's choices, the weights bound in place from the mapped safetensors. */
#include "hf_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attend_limits.h"
#include "hf_tokenizer.h"
#include "json.h"
#include "safetensors.h"
#include "tensor.h"

int hf_is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---------------------------------------------------------------- config */

/* An integer key: required (def < 0) or def when absent or null. */
static int cfg_int(const cJSON *j, const char *key, int def, int lo, int hi, int *out,
                   char *err, size_t errlen)
{
    const cJSON *it = json_get(j, key);
    if (!it || cJSON_IsNull(it)) {
        if (def < 0) {
            snprintf(err, errlen, "key \"%s\" is missing", key);
            return -1;
        }
        *out = def;
        return 0;
    }
    return json_get_int(j, key, lo, hi, out, key, err, errlen);
}

static int cfg_num(const cJSON *j, const char *key, double def, double *out, char *err,
                   size_t errlen)
{
    const cJSON *it = json_get(j, key);
    if (!it || cJSON_IsNull(it)) {
        *out = def;
        return 0;
    }
    return json_get_number(j, key, out, key, err, errlen);
}

static int cfg_bool(const cJSON *j, const char *key, int def)
{
    const cJSON *it = json_get(j, key);
    return cJSON_IsBool(it) ? cJSON_IsTrue(it) : def;
}

/* A string key equal to want (absent: fine), else an error naming the key and value. */
static int cfg_only(const cJSON *j, const char *key, const char *want1, const char *want2,
                    char *err, size_t errlen)
{
    const cJSON *it = json_get(j, key);
    if (!it || cJSON_IsNull(it))
        return 0;
    if (cJSON_IsString(it) && (!strcmp(it->valuestring, want1) || (want2 && !strcmp(it->valuestring, want2))))
        return 0;
    snprintf(err, errlen, "key \"%s\" is %s%.60s%s: attend supports only \"%s\"%s%s%s", key,
             cJSON_IsString(it) ? "\"" : "", cJSON_IsString(it) ? it->valuestring : "not a string",
             cJSON_IsString(it) ? "\"" : "", want1, want2 ? " and \"" : "", want2 ? want2 : "",
             want2 ? "\"" : "");
    return -1;
}

static int read_gpt2(const cJSON *j, ModelConfig *c, HfInfo *in, char *err, size_t errlen)
{
    int inner;
    double eps;
    if (cfg_int(j, "vocab_size", -1, 2, 1000000, &c->vocab_size, err, errlen) ||
        cfg_int(j, "n_embd", -1, 1, ATTEND_MAX_D_MODEL, &c->d_model, err, errlen) ||
        cfg_int(j, "n_layer", -1, 1, ATTEND_MAX_LAYERS, &c->n_layers, err, errlen) ||
        cfg_int(j, "n_head", -1, 1, ATTEND_MAX_HEADS, &c->n_heads, err, errlen) ||
        cfg_int(j, "n_positions", 1024, 1, 1 << 24, &in->max_positions, err, errlen) ||
        cfg_int(j, "n_inner", 0, 1, 65536, &inner, err, errlen) ||
        cfg_num(j, "layer_norm_epsilon", 1e-5, &eps, err, errlen) ||
        cfg_only(j, "activation_function", "gelu_new", "gelu_pytorch_tanh", err, errlen))
        return -1;
    if (c->d_model % c->n_heads) {
        snprintf(err, errlen, "key \"n_embd\" (%d) is not a multiple of \"n_head\" (%d)", c->d_model, c->n_heads);
        return -1;
    }
    if (cfg_bool(j, "scale_attn_by_inverse_layer_idx", 0) || cfg_bool(j, "add_cross_attention", 0) ||
        !cfg_bool(j, "scale_attn_weights", 1)) {
        snprintf(err, errlen, "key \"%s\": attend supports only GPT-2's default",
                 cfg_bool(j, "add_cross_attention", 0) ? "add_cross_attention"
                 : !cfg_bool(j, "scale_attn_weights", 1) ? "scale_attn_weights"
                                                          : "scale_attn_by_inverse_layer_idx");
        return -1;
    }
    c->d_head = c->d_model / c->n_heads;
    c->d_ff = inner ? inner : 4 * c->d_model;
    c->pe = PE_LEARNED;
    c->norm = NORM_LAYER;
    c->ffn = FFN_GELU;
    c->norm_eps = (float)eps;
    c->tie_embed = cfg_bool(j, "tie_word_embeddings", 1);
    return 0;
}

/* rope_scaling: null, or {"rope_type" (or "type"): "default" | "linear" | "llama3", ...}. */
static int read_rope_scaling(const cJSON *j, ModelConfig *c, char *err, size_t errlen)
{
    const cJSON *rs = json_get(j, "rope_scaling");
    if (!rs || cJSON_IsNull(rs))
        return 0;
    const cJSON *ty = json_get(rs, "rope_type");
    if (!ty)
        ty = json_get(rs, "type");
    if (!cJSON_IsString(ty)) {
        snprintf(err, errlen, "key \"rope_scaling\" has no \"rope_type\"");
        return -1;
    }
    const char *t = ty->valuestring;
    double f, lo, hi;
    if (!strcmp(t, "default"))
        return 0;
    if (strcmp(t, "linear") && strcmp(t, "llama3")) {
        snprintf(err, errlen, "rope_scaling type \"%.40s\" is not supported (attend knows "
                 "\"linear\" and \"llama3\")", t);
        return -1;
    }
    if (cfg_num(rs, "factor", 0, &f, err, errlen))
        return -1;
    c->rope_factor = (float)f;
    if (!strcmp(t, "linear")) {
        c->rope_scaling = ROPE_SCALE_LINEAR;
        return 0;
    }
    c->rope_scaling = ROPE_SCALE_LLAMA3;
    if (cfg_num(rs, "low_freq_factor", 1, &lo, err, errlen) ||
        cfg_num(rs, "high_freq_factor", 4, &hi, err, errlen) ||
        cfg_int(rs, "original_max_position_embeddings", 8192, 1, 1 << 24, &c->rope_orig_max, err, errlen))
        return -1;
    c->rope_low_freq = (float)lo;
    c->rope_high_freq = (float)hi;
    return 0;
}

static int read_llama(const cJSON *j, ModelConfig *c, HfInfo *in, char *err, size_t errlen)
{
    double eps, theta, prf;
    if (cfg_int(j, "vocab_size", -1, 2, 1000000, &c->vocab_size, err, errlen) ||
        cfg_int(j, "hidden_size", -1, 1, ATTEND_MAX_D_MODEL, &c->d_model, err, errlen) ||
        cfg_int(j, "num_hidden_layers", -1, 1, ATTEND_MAX_LAYERS, &c->n_layers, err, errlen) ||
        cfg_int(j, "num_attention_heads", -1, 1, ATTEND_MAX_HEADS, &c->n_heads, err, errlen) ||
        cfg_int(j, "intermediate_size", -1, 1, 65536, &c->d_ff, err, errlen) ||
        cfg_int(j, "num_key_value_heads", c->n_heads, 1, ATTEND_MAX_HEADS, &c->n_kv_heads, err, errlen) ||
        cfg_int(j, "max_position_embeddings", 2048, 1, 1 << 24, &in->max_positions, err, errlen) ||
        cfg_num(j, "rms_norm_eps", 1e-6, &eps, err, errlen) ||
        cfg_num(j, "rope_theta", 10000, &theta, err, errlen) ||
        cfg_num(j, "partial_rotary_factor", 1, &prf, err, errlen) ||
        cfg_only(j, "hidden_act", "silu", NULL, err, errlen) || read_rope_scaling(j, c, err, errlen))
        return -1;
    if (cfg_int(j, "head_dim", c->d_model / c->n_heads, 1, ATTEND_MAX_D_HEAD, &c->d_head, err, errlen))
        return -1;
    if (c->n_heads % c->n_kv_heads) {
        snprintf(err, errlen, "key \"num_key_value_heads\" (%d) does not divide "
                 "\"num_attention_heads\" (%d)", c->n_kv_heads, c->n_heads);
        return -1;
    }
    const char *bad = prf != 1.0 ? "partial_rotary_factor"
                      : cfg_bool(j, "mlp_bias", 0) ? "mlp_bias"
                      : cfg_bool(j, "use_sliding_window", 0) ? "use_sliding_window" : NULL;
    if (bad) {
        snprintf(err, errlen, "key \"%s\" is not supported by attend (only its default)", bad);
        return -1;
    }
    c->pe = PE_ROPE;
    c->rope_half = 1;
    c->norm = NORM_RMS;
    c->ffn = FFN_SWIGLU;
    c->w_out_in = 1;
    c->norm_eps = (float)eps;
    c->rope_base = (float)theta;
    c->tie_embed = cfg_bool(j, "tie_word_embeddings", 0);
    in->qkv_bias = !strcmp(in->model_type, "qwen2") || cfg_bool(j, "attention_bias", 0);
    in->qk_norm = !strcmp(in->model_type, "qwen3");
    return 0;
}

int hf_config_read(const char *path, ModelConfig *c, HfInfo *in, char *err, size_t errlen)
{
    char e2[400];
    model_config_defaults(c);
    memset(in, 0, sizeof *in);
    cJSON *j = json_parse_file(path, NULL, err, errlen);
    if (!j)
        return -1;
    int rc = -1;
    const cJSON *mt = json_get(j, "model_type");
    if (!cJSON_IsString(mt)) {
        snprintf(e2, sizeof e2, "key \"model_type\" is missing");
        goto out;
    }
    snprintf(in->model_type, sizeof in->model_type, "%s", mt->valuestring);
    if (!strcmp(in->model_type, "gpt2")) {
        in->family = HF_GPT2;
        rc = read_gpt2(j, c, in, e2, sizeof e2);
    } else if (!strcmp(in->model_type, "llama") || !strcmp(in->model_type, "qwen2") ||
               !strcmp(in->model_type, "qwen3")) {
        in->family = HF_LLAMA;
        rc = read_llama(j, c, in, e2, sizeof e2);
    } else {
        snprintf(e2, sizeof e2, "model_type \"%.40s\" is not supported: attend opens gpt2 "
                 "(GPT-2, distilgpt2), llama (LLaMA, SmolLM2, TinyLlama), qwen2 and qwen3",
                 mt->valuestring);
    }
    if (rc)
        goto out;
    const cJSON *bos = json_get(j, "bos_token_id");
    in->bos_id = cJSON_IsNumber(bos) ? bos->valueint : -1;
    c->arch = ARCH_DECODER;
    c->pre_norm = 1;
    c->final_norm = 1;
    c->max_len = in->max_positions < ATTEND_MAX_LEN ? in->max_positions : ATTEND_MAX_LEN;
    if (c->n_kv_heads == c->n_heads)
        c->n_kv_heads = 0;
    const cJSON *nm = json_get(j, "_name_or_path");
    snprintf(c->name, sizeof c->name, "%.63s", cJSON_IsString(nm) && nm->valuestring[0] ? nm->valuestring : in->model_type);
    rc = model_config_check(c, e2, sizeof e2);
out:
    if (rc)
        snprintf(err, errlen, "%s: %s", path, e2);
    cJSON_Delete(j);
    return rc;
}

/* -------------------------------------------------------------- weights */

typedef void (*WeightFn)(void *ctx, const char *name, long long rows, long long cols);

void hf_weights(const ModelConfig *c, const HfInfo *in, const char *prefix, WeightFn fn, void *ctx)
{
    char nm[160];
    long long d = c->d_model, V = c->vocab_size, F = c->d_ff, hd = (long long)c->n_heads * c->d_head;
    long long kvd = (long long)(c->n_kv_heads ? c->n_kv_heads : c->n_heads) * c->d_head;
#define W(r, k, ...) do { int p_ = snprintf(nm, sizeof nm, "%s", prefix); \
        snprintf(nm + p_, sizeof nm - (size_t)p_, __VA_ARGS__); fn(ctx, nm, r, k); } while (0)
    if (in->family == HF_GPT2) {
        W(V, d, "wte.weight");
        W(in->max_positions, d, "wpe.weight");
        for (int l = 0; l < c->n_layers; l++) {
            W(0, d, "h.%d.ln_1.weight", l);
            W(0, d, "h.%d.ln_1.bias", l);
            W(d, hd + 2 * kvd, "h.%d.attn.c_attn.weight", l);
            W(0, hd + 2 * kvd, "h.%d.attn.c_attn.bias", l);
            W(hd, d, "h.%d.attn.c_proj.weight", l);
            W(0, d, "h.%d.attn.c_proj.bias", l);
            W(0, d, "h.%d.ln_2.weight", l);
            W(0, d, "h.%d.ln_2.bias", l);
            W(d, F, "h.%d.mlp.c_fc.weight", l);
            W(0, F, "h.%d.mlp.c_fc.bias", l);
            W(F, d, "h.%d.mlp.c_proj.weight", l);
            W(0, d, "h.%d.mlp.c_proj.bias", l);
        }
        W(0, d, "ln_f.weight");
        W(0, d, "ln_f.bias");
        if (!c->tie_embed)
            fn(ctx, "lm_head.weight", V, d);
        return;
    }
    W(V, d, "embed_tokens.weight");
    for (int l = 0; l < c->n_layers; l++) {
        W(0, d, "layers.%d.input_layernorm.weight", l);
        W(hd, d, "layers.%d.self_attn.q_proj.weight", l);
        W(kvd, d, "layers.%d.self_attn.k_proj.weight", l);
        W(kvd, d, "layers.%d.self_attn.v_proj.weight", l);
        if (in->qkv_bias) {
            W(0, hd, "layers.%d.self_attn.q_proj.bias", l);
            W(0, kvd, "layers.%d.self_attn.k_proj.bias", l);
            W(0, kvd, "layers.%d.self_attn.v_proj.bias", l);
        }
        if (in->qk_norm) {
            W(0, c->d_head, "layers.%d.self_attn.q_norm.weight", l);
            W(0, c->d_head, "layers.%d.self_attn.k_norm.weight", l);
        }
        W(d, hd, "layers.%d.self_attn.o_proj.weight", l);
        W(0, d, "layers.%d.post_attention_layernorm.weight", l);
        W(F, d, "layers.%d.mlp.gate_proj.weight", l);
        W(F, d, "layers.%d.mlp.up_proj.weight", l);
        W(d, F, "layers.%d.mlp.down_proj.weight", l);
    }
    W(0, d, "norm.weight");
    if (!c->tie_embed)
        fn(ctx, "lm_head.weight", V, d);
#undef W
}

void hf_param_config(const ModelConfig *c, const HfInfo *in, ParamConfig *p)
{
    memset(p, 0, sizeof *p);
    int gpt2 = in->family == HF_GPT2;
    p->d_model = c->d_model;
    p->n_heads = c->n_heads;
    p->n_kv_heads = c->n_kv_heads ? c->n_kv_heads : c->n_heads;
    p->d_head = c->d_head;
    p->n_layers = c->n_layers;
    p->d_ff = c->d_ff;
    p->vocab = c->vocab_size;
    p->swiglu = c->ffn == FFN_SWIGLU;
    p->tied = c->tie_embed;
    p->rmsnorm = c->norm == NORM_RMS;
    p->bias = gpt2;
    p->pos_rows = gpt2 ? in->max_positions : 0;
    p->qkv_bias = gpt2 || in->qkv_bias;
    p->o_bias = gpt2;
    p->qk_norm = in->qk_norm;
}

/* Where each weight goes: the engine's view of the family's tensor. */
typedef struct {
    Model *m;
    StSet *st;
    int fail;
    size_t convert, total; /* bytes to convert; bytes of every weight */
    char *err;
    size_t errlen;
    int wdtype;            /* TENSOR_BF16/F16: the matrices stay half in the map (Model.wdtype) */
    int n_mat, n_half[3];  /* matrices seen; of them BF16 and F16 readable in place */
} Bind;

/* The matrices a half-precision file keeps half: every 2-D weight but GPT-2's position table
 * (small; read as float32 by the embedding). */
static int kept_half(const char *name, long long rows)
{
    return rows > 0 && strcmp(name, "wpe.weight") && strcmp(name, "transformer.wpe.weight");
}

static void half_fn(void *ctx, const char *name, long long rows, long long cols)
{
    Bind *b = ctx;
    (void)cols;
    if (!kept_half(name, rows))
        return;
    const StTensor *t = st_find(b->st, name);
    b->n_mat++;
    if (t && st_half_in_place(b->st, name))
        b->n_half[t->kind == ST_BF16 ? TENSOR_BF16 : TENSOR_F16]++;
}

static const float **slot(Model *m, const char *name)
{
    int l = -1, k = 0;
    const char *p = name;
    if (sscanf(p, "h.%d.%n", &l, &k) == 1 || sscanf(p, "layers.%d.%n", &l, &k) == 1) {
        if (l < 0 || l >= m->cfg.n_layers)
            return NULL;
        LayerWeights *L = &m->dec[l];
        static const struct { const char *key; size_t off; } T[] = {
#define O(f) offsetof(LayerWeights, f)
            {"ln_1.weight", O(norm1.gain)}, {"ln_1.bias", O(norm1.bias)},
            {"attn.c_attn.weight", O(self.wqkv)}, {"attn.c_attn.bias", O(self.bqkv)},
            {"attn.c_proj.weight", O(self.wo)}, {"attn.c_proj.bias", O(self.bo)},
            {"ln_2.weight", O(norm2.gain)}, {"ln_2.bias", O(norm2.bias)},
            {"mlp.c_fc.weight", O(w1)}, {"mlp.c_fc.bias", O(b1)},
            {"mlp.c_proj.weight", O(w2)}, {"mlp.c_proj.bias", O(b2)},
            {"input_layernorm.weight", O(norm1.gain)},
            {"self_attn.q_proj.weight", O(self.wq)}, {"self_attn.k_proj.weight", O(self.wk)},
            {"self_attn.v_proj.weight", O(self.wv)}, {"self_attn.q_proj.bias", O(self.bq)},
            {"self_attn.k_proj.bias", O(self.bk)}, {"self_attn.v_proj.bias", O(self.bv)},
            {"self_attn.q_norm.weight", O(self.q_norm)}, {"self_attn.k_norm.weight", O(self.k_norm)},
            {"self_attn.o_proj.weight", O(self.wo)},
            {"post_attention_layernorm.weight", O(norm2.gain)},
            {"mlp.gate_proj.weight", O(w1)}, {"mlp.up_proj.weight", O(w3)},
            {"mlp.down_proj.weight", O(w2)}};
#undef O
        for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
            if (!strcmp(p + k, T[i].key))
                return (const float **)(void *)((char *)L + T[i].off);
        return NULL;
    }
    if (!strcmp(p, "wte.weight") || !strcmp(p, "embed_tokens.weight")) return &m->tok_embed;
    if (!strcmp(p, "wpe.weight")) return &m->pos_embed;
    if (!strcmp(p, "ln_f.weight") || !strcmp(p, "norm.weight")) return &m->dec_final.gain;
    if (!strcmp(p, "ln_f.bias")) return &m->dec_final.bias;
    if (!strcmp(p, "lm_head.weight")) return &m->lm_head;
    return NULL;
}

/* Skips the prefix ("transformer." or "model.") to find the slot; lm_head has none. */
static const char *short_name(const char *name)
{
    if (!strncmp(name, "transformer.", 12)) return name + 12;
    if (!strncmp(name, "model.", 6)) return name + 6;
    return name;
}

static void plan_fn(void *ctx, const char *name, long long rows, long long cols)
{
    Bind *b = ctx;
    const StTensor *t = st_find(b->st, name);
    if (t) {
        if (!b->wdtype || !kept_half(name, rows))
            b->convert += st_convert_bytes(b->st, name);
        b->total += t->end - t->begin;
    }
    (void)rows;
    (void)cols;
}

static void bind_fn(void *ctx, const char *name, long long rows, long long cols)
{
    Bind *b = ctx;
    if (b->fail)
        return;
    const float **dst = slot(b->m, short_name(name));
    const float *p = b->wdtype && kept_half(name, rows)
                         ? (const float *)(const void *)st_half(b->st, name, rows, cols, b->err, b->errlen)
                         : st_matrix(b->st, name, rows, cols, b->err, b->errlen);
    if (!p || !dst) {
        if (!dst)
            snprintf(b->err, b->errlen, "internal error: no place for weight \"%s\"", name);
        b->fail = 1;
        return;
    }
    *dst = p;
}

size_t hf_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[128];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (size_t)kb * 1024;
}

static void store_free(void *p)
{
    StSet *st = p;
    if (st) {
        st_close(st);
        free(st);
    }
}

static int load_tokenizer(Model *m, const char *dir, int bos_id, char *err, size_t errlen)
{
    HfTok *tok = NULL;
    if (hf_tok_load_dir(&tok, dir, bos_id, err, errlen))
        return -1;
    return hf_tok_vocab(tok, m->cfg.vocab_size, &m->vocab, err, errlen);
}

int hf_model_load(Model *m, const char *dir, HfProgress progress, void *ctx, char *err,
                  size_t errlen)
{
    memset(m, 0, sizeof *m);
    char path[1024];
    HfInfo in;
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (access(path, F_OK) != 0) {
        snprintf(err, errlen, "%s: a directory without config.json: neither a regular file (a model "
                 "JSON) nor a Hugging Face model directory (docs/models.md)", dir);
        return -1;
    }
    if (hf_config_read(path, &m->cfg, &in, err, errlen))
        return -1;
    StSet *st = calloc(1, sizeof *st);
    m->dec = calloc((size_t)m->cfg.n_layers, sizeof *m->dec);
    if (!st || !m->dec) {
        free(st);
        snprintf(err, errlen, "out of memory");
        model_free(m);
        return -1;
    }
    if (st_open_dir(st, dir, err, errlen)) {
        free(st);
        model_free(m);
        return -1;
    }
    m->store = st;
    m->store_free = store_free;
    const char *prefix = in.family == HF_GPT2 ? (st_find(st, "wte.weight") ? "" : "transformer.")
                                              : "model.";
    Bind b = {m, st, 0, 0, 0, err, errlen, 0, 0, {0, 0, 0}};
    /* Half-precision matrices stay half when all of them are of one kind, in place */
    hf_weights(&m->cfg, &in, prefix, half_fn, &b);
    for (int k = TENSOR_BF16; k <= TENSOR_F16; k++)
        if (b.n_mat && b.n_half[k] == b.n_mat)
            b.wdtype = k;
    hf_weights(&m->cfg, &in, prefix, plan_fn, &b);
    size_t avail = hf_mem_available();
    if (avail && b.convert > avail) {
        snprintf(err, errlen, "%s: its half-precision weights take %zu MB as float32 and only "
                 "%zu MB of memory is available: choose a smaller model", dir, b.convert >> 20,
                 avail >> 20);
        model_free(m);
        return -1;
    }
    st->progress = progress;
    st->progress_ctx = ctx;
    st->total = b.total;
    hf_weights(&m->cfg, &in, prefix, bind_fn, &b);
    m->wdtype = b.wdtype;
    if (b.fail || load_tokenizer(m, dir, in.bos_id, err, errlen)) {
        model_free(m);
        return -1;
    }
    snprintf(m->cfg.description, sizeof m->cfg.description, "%s (Hugging Face %s, %d layers, "
             "%d heads) from %s", m->cfg.name, in.model_type, m->cfg.n_layers, m->cfg.n_heads, dir);
    snprintf(m->path, sizeof m->path, "%s", dir);
    return 0;
}

/* What config.json said of a loaded model, read back from its weights and files: 0, or -1
 * when m is not a Hugging Face model. */
static int model_info(const Model *m, HfInfo *in, const char **prefix)
{
    if (m->store_free != store_free || !m->store || !m->dec || m->cfg.n_layers < 1)
        return -1;
    const StSet *st = m->store;
    memset(in, 0, sizeof *in);
    in->family = m->dec[0].self.wqkv ? HF_GPT2 : HF_LLAMA;
    in->qkv_bias = m->dec[0].self.bq != NULL;
    in->qk_norm = m->dec[0].self.q_norm != NULL;
    *prefix = in->family == HF_GPT2 ? (st_find(st, "wte.weight") ? "" : "transformer.")
                                    : "model.";
    char nm[64];
    snprintf(nm, sizeof nm, "%swpe.weight", *prefix);
    const StTensor *wpe = st_find(st, nm);
    in->max_positions = wpe && wpe->ndim == 2 ? (int)wpe->shape[0] : m->cfg.max_len;
    return 0;
}

int hf_model_weights(const Model *m, void (*fn)(void *ctx, const char *name, long long rows,
                                                long long cols),
                     void *ctx)
{
    HfInfo in;
    const char *prefix;
    if (model_info(m, &in, &prefix))
        return -1;
    hf_weights(&m->cfg, &in, prefix, fn, ctx);
    return 0;
}

int hf_model_param_config(const Model *m, ParamConfig *out)
{
    HfInfo in;
    const char *prefix;
    if (model_info(m, &in, &prefix))
        return -1;
    hf_param_config(&m->cfg, &in, out);
    return 0;
}
