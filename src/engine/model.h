/* model.h - the small transformer: configuration, weights, controls, forward pass and the
 * Trace of every intermediate tensor. No curses, no printing, no exit(). */
#ifndef ATTEND_MODEL_H
#define ATTEND_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "attend_limits.h"
#include "vocab.h"

typedef enum { ARCH_ENCODER, ARCH_DECODER, ARCH_ENCDEC } Arch;
typedef enum { PE_NONE, PE_SINUSOIDAL, PE_LEARNED, PE_ROPE, PE__COUNT } PeKind;
typedef enum { NORM_LAYER, NORM_RMS } NormKind;
/* FFN_NONE: attention-only layers (no feed-forward sublayer, d_ff 0), the models in which
 * induction heads are studied. */
typedef enum { FFN_RELU, FFN_GELU, FFN_SWIGLU, FFN_NONE } FfnKind;
/* How RoPE's frequencies are stretched for long contexts (Hugging Face's rope_scaling). */
typedef enum { ROPE_SCALE_NONE, ROPE_SCALE_LINEAR, ROPE_SCALE_LLAMA3 } RopeScaling;

const char *model_arch_name(Arch a);   /* "encoder", "decoder", "encoder-decoder" */
const char *model_pe_name(PeKind p);   /* "none", "sinusoidal", "learned", "rope" */
const char *model_norm_name(NormKind k);
const char *model_ffn_name(FfnKind k);
/* Parse a name into the enum; return -1 if unknown. */
int model_arch_parse(const char *s);
int model_pe_parse(const char *s);
int model_norm_parse(const char *s);
int model_ffn_parse(const char *s);

typedef struct {
    Arch arch;
    int vocab_size;
    int d_model;
    int n_heads;
    int d_head;        /* d_k = d_v per head; default d_model / n_heads */
    int n_layers;      /* layers per stack (encoder and decoder each, for encoder-decoder) */
    int d_ff;          /* 0 when ffn is FFN_NONE */
    int max_len;       /* longest sequence (learned PE has this many rows) */
    PeKind pe;         /* the PE the model was built with (controls may override) */
    NormKind norm;
    int pre_norm;      /* 1: x + f(norm(x)); 0: norm(x + f(x)) */
    FfnKind ffn;       /* FFN_NONE: attention-only (no FFN sublayer, no norm2) */
    int scale_embed;   /* 1: token embeddings multiplied by sqrt(d_model) */
    int final_norm;    /* 1: a norm after the last layer of each stack */
    int tie_embed;     /* 1: the LM head is tok_embedᵀ (no lm_head weight) */
    float norm_eps;    /* default 1e-5 */
    float rope_base;   /* default 10000 */
    /* The choices a Hugging Face family adds (hf_model.c); 0 for attend's own models: */
    int n_kv_heads;    /* K/V heads (grouped-query attention): query head h reads K/V head
                          h / (n_heads / n_kv_heads); 0 means n_heads (one each) */
    int w_out_in;      /* 1: projection and LM-head weights are stored (out, in), as torch's
                          nn.Linear, and multiplied transposed; 0: (in, out) */
    int rope_half;     /* 1: RoPE rotates the pairs (x[i], x[i + d_head/2]) (Hugging Face's
                          rotate_half); 0: (x[2i], x[2i+1]) */
    RopeScaling rope_scaling;
    float rope_factor;      /* rope_scaling: the factor (linear: positions divided by it) */
    float rope_low_freq;    /* llama3: low_freq_factor */
    float rope_high_freq;   /* llama3: high_freq_factor */
    int rope_orig_max;      /* llama3: original_max_position_embeddings */
    char name[64];
    char description[512];
} ModelConfig;

/* One named weight tensor: a view into Model.data. */
typedef struct {
    char name[48];
    int rows, cols;    /* vectors have rows == 1 */
    size_t offset;     /* into Model.data, in floats */
} Param;

/* Weights are (in, out) as drawn here, or (out, in) when cfg.w_out_in; kvd = n_kv_heads*d_head. */
typedef struct {
    const float *wq;           /* (d_model, n_heads*d_head); head h = columns h*d_head.. */
    const float *wk, *wv;      /* (d_model, kvd) */
    const float *wo;           /* (n_heads*d_head, d_model) */
    const float *wqkv;         /* (d_model, n_heads*d_head + 2·kvd): Q, K, V side by side in one
                                  matrix (GPT-2's c_attn), used instead of wq, wk, wv; or NULL */
    const float *bq, *bk, *bv; /* (n_heads*d_head), (kvd), (kvd) biases, or NULL */
    const float *bqkv;         /* (n_heads*d_head + 2·kvd) wqkv's bias, or NULL */
    const float *bo;           /* (d_model) or NULL */
    const float *q_norm, *k_norm; /* (d_head) RMSNorm gains on each head's q and k (Qwen3), or
                                     NULL */
} AttnWeights;

typedef struct {
    const float *gain;         /* (d_model) */
    const float *bias;         /* (d_model), NULL for RMSNorm */
} NormWeights;

typedef struct {
    AttnWeights self;
    NormWeights norm1;         /* around self-attention */
    AttnWeights cross;         /* decoder layers of an encoder-decoder only, else zeros */
    NormWeights normc;         /* around cross-attention */
    const float *w1;           /* (d_model, d_ff) */
    const float *b1;           /* (d_ff), NULL for SwiGLU */
    const float *w3;           /* (d_model, d_ff) SwiGLU gate, else NULL */
    const float *w2;           /* (d_ff, d_model) */
    const float *b2;           /* (d_model), NULL for SwiGLU */
    NormWeights norm2;         /* around the FFN */
} LayerWeights;

typedef struct {
    ModelConfig cfg;
    Vocab vocab;
    int n_params;
    Param *params;             /* (n_params) in the canonical order of model_layout */
    size_t n_floats;
    float *data;               /* (n_floats) every weight, contiguous */
    /* Views into data, set by model_bind: */
    const float *tok_embed;    /* (vocab_size, d_model) */
    const float *pos_embed;    /* (max_len, d_model) learned PE */
    LayerWeights *enc;         /* (n_layers) or NULL */
    LayerWeights *dec;         /* (n_layers) or NULL */
    NormWeights enc_final, dec_final;
    const float *lm_head;      /* (d_model, vocab_size); NULL when tied */
    int wdtype;                /* 0: every weight float32. TENSOR_BF16 or TENSOR_F16 (tensor.h): a
                                  Hugging Face model's half-precision matrices kept in its mapped
                                  file: tok_embed, lm_head and every projection (wq wk wv wo wqkv
                                  w1 w2 w3) point at 16-bit values, read only through tensor_widen
                                  and tensor_matmul_half / _bt_half; vectors and pos_embed are
                                  float32 */
    char path[512];            /* file it came from, "" if made in memory */
    int save_arrays;           /* model_save: 1 writes weights as number arrays, 0 (default) as
                                  base64 float32 ("f32"), 30 times faster to load */
    char *training;            /* owned JSON object text kept in the file's "training" key
                                  (final loss, steps, seed...), or NULL */
    /* Weights not in data (a Hugging Face directory's mapped files and converted tensors):
     * the views point into store, which model_free releases with store_free. */
    void *store;
    void (*store_free)(void *store);
    /* Called (through model_store_check) after every pass and every other read when not NULL: 0, or -1 with a message when the
     * store's files changed under it (truncated while mapped); with nonfinite set (the pass
     * produced a NaN or an infinity), -1 with a message naming the weight that holds one. */
    int (*store_check)(const void *store, int nonfinite, char *err, size_t errlen);
} Model;

/* Fills cfg with defaults (decoder, d_model 32, 4 heads, 2 layers, ...). */
void model_config_defaults(ModelConfig *cfg);
/* Checks a configuration for consistency; 0 or -1 with a message naming the key. */
int model_config_check(const ModelConfig *cfg, char *err, size_t errlen);
/* Number of weights (floats) of a configuration, without allocating. */
size_t model_config_param_count(const ModelConfig *cfg);
/* The most weights attend allocates for one model (128 MB of floats): bigger configs are
 * refused before anything is allocated. */
#define MODEL_MAX_PARAMS ((size_t)32000000)
/* 0 if cfg's weights fit MODEL_MAX_PARAMS, else -1 with a message giving the size
 * (model_io.c). */
int model_config_check_size(const ModelConfig *cfg, char *err, size_t errlen);

/* Allocates a model for cfg with every weight zero and the given vocabulary (taken over:
 * v is emptied). Returns 0 or -1 with a message. */
int model_new(Model *m, const ModelConfig *cfg, Vocab *v, char *err, size_t errlen);
/* Seeded random initialisation: N(0, 0.02²)-style normals (xorshift + Box-Muller), projections
 * scaled by 1/sqrt(2·layers), norms gain 1 bias 0, biases 0. Same seed, same bits. */
void model_init_random(Model *m, uint64_t seed);
void model_free(Model *m);
/* Points the named views (tok_embed, the layers' weights, ...) into m->data again: after the
 * loader moves the weights to another block (m->data, n_floats floats, owned by m). */
void model_bind(Model *m);
/* The parameter of that name, or NULL. */
const Param *model_param(const Model *m, const char *name);
/* The floats of parameter p of m. */
float *model_param_data(Model *m, const Param *p);

/* Loads a model JSON file (docs/model-format.md), or a Hugging Face model directory (hf_model.h,
 * docs/models.md). Validates everything; on failure returns -1,
 * leaves *m zeroed and writes "FILE: message" (with line:col for syntax errors) to err. */
int model_load(Model *m, const char *path, char *err, size_t errlen);
/* model_load, calling progress(ctx, done, total) as a Hugging Face directory's weights are
 * read or converted (bytes; progress may be NULL). */
typedef void (*ModelProgress)(void *ctx, size_t done, size_t total);
int model_load_progress(Model *m, const char *path, ModelProgress progress, void *ctx, char *err,
                        size_t errlen);
/* (model_config_read, which reads a "config" JSON object, is in model_json.h.) */
/* Writes the model as JSON, atomically (temp file + rename). 0 or -1. */
int model_save(const Model *m, const char *path, char *err, size_t errlen);
/* Writes c's architecture as JSON members, no braces ("arch" ... "rope_base", the keys of
 * docs/model-format.md that model_config_read reads), sep between them. pe_key names the
 * model's positional encoding: "pe" in a model file, "model_pe" in a dump, whose "pe" is the
 * run's. One writer for the model file and the dump's "config". */
void model_config_write(FILE *f, const ModelConfig *c, const char *pe_key, const char *sep);

/* ---- Controls: what the learner toggles. ---- */
typedef struct {
    int causal;        /* 1: causal mask on self-attention (decoder stack) */
    int padding;       /* 1: mask key columns whose token is <pad> */
    PeKind pe;         /* positional encoding used for this run */
    int scale;         /* 1: divide scores by sqrt(d_k) */
    const int *order;  /* run token order[i] at position i (a permutation of 0..n-1), or NULL */
    /* Head ablation: bit h of ablate[l] set zeroes head h's output (weights·V) in layer l's
     * self-attention of the main stack (the decoder's; an encoder's), before W_O. The head's
     * pattern is still computed and traced; later layers see the stream without it. */
    uint64_t ablate[ATTEND_MAX_LAYERS];
    /* Activation patching (lens.c): the output of the head or FFN *patch names is replaced by
     * its rows before it joins the stream; NULL: none. Not kept in a trace (as order). */
    const struct ModelPatch *patch;
} Controls;

/* One component's output put back from another run (activation patching). */
typedef struct ModelPatch {
    int layer;          /* a layer of the main stack */
    int head;           /* a query head of its self-attention, or -1: its FFN */
    const float *data;  /* (n, d_head): the head's weights·V (before W_O, as ablation zeroes
                           it); (n, d_model): the FFN's output, its bias included */
    /* Resume (NULL: none): the main stack starts at layer from_layer with from (n, d_model)
     * as its input, the stream an earlier run of the same tokens and controls had there
     * (lens_resid): the embedding and the layers below are not run again, and the trace holds
     * nothing of them. The logits are the bits of a whole run's. */
    const float *from;
    int from_layer;
} ModelPatch;

/* Controls the model was built for: causal on for decoders, padding mask on, the model's PE,
 * scaling on. */
void model_default_controls(const Model *m, Controls *c);

/* ---- Trace: every tensor of one run, in computation order. ---- */
typedef enum {
    T_EMBED,        /* X: token embeddings (n, d_model) */
    T_EMBED_SCALED, /* X·√d_model */
    T_PE,           /* PE matrix (n, d_model) */
    T_X_PE,         /* X + PE: the input of layer 0 */
    T_NORM_IN,      /* norm(x) feeding a sublayer (pre-norm) */
    T_Q, T_K, T_V,  /* per head (n, d_head) ; cross: K,V (n_src, d_head) */
    T_Q_ROT, T_K_ROT, /* after RoPE */
    T_SCORES,       /* QKᵀ (n, n_keys) */
    T_SCALED,       /* QKᵀ/√d_k */
    T_MASK,         /* M: 0 or -inf (n, n_keys), once per attention sublayer */
    T_MASKED,       /* scaled + M */
    T_WEIGHTS,      /* softmax (n, n_keys) */
    T_HEAD_OUT,     /* weights·V (n, d_head) */
    T_CONCAT,       /* heads side by side (n, n_heads*d_head) */
    T_ATTN_OUT,     /* concat·W_O (n, d_model) */
    T_RESID,        /* x + sublayer(..) */
    T_NORM_OUT,     /* norm(x + sublayer) (post-norm) */
    T_FFN_HIDDEN,   /* act(x W1 + b1) or silu(xW1)⊙(xW3) (n, d_ff) */
    T_FFN_OUT,      /* hidden W2 + b2 (n, d_model) */
    T_FINAL_NORM,   /* final norm of a stack */
    T_LOGITS,       /* (n, vocab) */
    T__COUNT
} TensorKind;

typedef enum { SUB_NONE, SUB_SELF, SUB_CROSS, SUB_FFN } Sublayer;
typedef enum { STACK_ENC, STACK_DEC } Stack;

typedef struct {
    TensorKind kind;
    Stack stack;
    int layer;         /* -1 outside the layers */
    Sublayer sub;
    int head;          /* -1 when not per head */
    int rows, cols;
    float *data;       /* (rows, cols) into the trace arena */
    char name[40];     /* e.g. "L0.h1.weights", "enc.L0.h0.q", "dec.L1.cross.h0.weights" */
    /* A head's scores, scaled, masked and weights (four n×n matrices, most of a long run's
     * memory) are not written by the forward pass, which keeps only the head's output and
     * gives them no room in the arena: lazy is 1 (data NULL) until trace_entry or trace_find
     * computes them into the trace's map cache (below) from the head's q, k, v, the
     * sublayer's mask and the run's scale, the same bits the forward used. Read entries
     * through those two (trace_meta for the name and shape alone). */
    int lazy;
    int slot;          /* a lazy-born map: its slot in the map cache while filled, else -1 */
    int finite;        /* 1: found finite by the forward while in the cache (trace_mark_finite),
                          so trace_check_finite's scan reads it no more */
} TraceEntry;

/* The map cache: one slot holds one head's four maps (trace.c). */
typedef struct TraceSlot TraceSlot;
/* The cache always has room for this many heads' maps (the rule below). */
#define TRACE_MAP_KEEP 4
/* Bytes of maps a trace keeps by default beyond that (trace_set_map_budget): every head's maps
 * of a course model or of a real model's short sentence; 8 heads of GPT-2 at 1024 tokens. */
#define TRACE_MAP_BYTES ((size_t)128 << 20)

typedef struct {
    const Model *model;
    Controls ctl;      /* the controls of the run (order pointer not kept) */
    int n;             /* tokens of the main sequence (encoder input, or decoder input) */
    int m;             /* decoder tokens of an encoder-decoder run, else 0 */
    int max_n, max_m;  /* capacity */
    int bands;         /* attention row bands in the scratch: heads computed at once */
    int *src;          /* (max_n) token ids as run (after the order permutation) */
    int *tgt;          /* (max_m) decoder target words: row j of the decoder produces tgt[j] */
    int *tgt_in;       /* (max_m) what the decoder reads: <bos> tgt[0..m-2] (teacher forcing),
                          or tgt itself when the vocabulary has no <bos> */
    int *order;        /* (max_n) order used; identity when none */
    int n_entries, cap_entries;
    TraceEntry *entries;
    size_t used, cap;  /* floats of the arena */
    size_t cap_main;   /* floats for entries; then scratch, then a spill area */
    float *sinusoid;   /* (max(max_n, max_m), d_model) sinusoidal PE table, filled by
                          trace_sinusoid when a forward first adds it (sinusoid_ready) */
    int sinusoid_ready;
    float *arena;
    size_t spill;      /* floats from arena to the spill area (room for any one tensor) */
    /* The map cache. Ownership and lifetime, the rule every reader of a map follows: the trace
     * owns every slot; the data of a head's map that trace_entry or trace_find returned stays
     * valid until the trace runs again (model_forward), is freed, or the maps of
     * TRACE_MAP_KEEP other heads of this trace have been read since this head's were last
     * read. The cache holds max(TRACE_MAP_KEEP, map_budget / one head's maps) heads; reading a
     * head not in a full cache frees the slot of the head read least recently (its entries lazy
     * again, data NULL) and computes the new head's maps in a new one. So a caller may hold
     * the maps of up to TRACE_MAP_KEEP heads at once, and nothing keeps a map's data pointer
     * across calls into the trace (read it again through trace_find). */
    TraceSlot *slots;
    int n_slots, cap_slots;
    unsigned long clock;  /* reads of cached maps, for least-recently-read */
    size_t map_budget;    /* bytes (trace_new: TRACE_MAP_BYTES) */
    int maps_eager;       /* trace_want_maps: the forward writes every head's maps as it runs */
} Trace;

/* Allocates a trace able to hold a run of up to max_n main tokens (and max_m decoder tokens
 * for encoder-decoder models). NULL on allocation failure. */
Trace *trace_new(const Model *m, int max_n, int max_m);
void trace_free(Trace *t);
/* The sinusoidal PE table of t (max(max_n, max_m) rows of d_model), filled on the first call
 * (model_sinusoid's values; a model with learned or rotary PE never pays for it: 20-30% of the
 * player's start on GPT-2 small). Owned by t; no allocation. */
const float *trace_sinusoid(Trace *t);
/* Entry i (0 <= i < t->n_entries, else NULL), its data filled: how code outside the engine
 * reads t->entries. A scaled or masked entry is computed on its first read (the trace is
 * written then, though passed const: do not read one trace from two threads). */
const TraceEntry *trace_entry(const Trace *t, int i);
/* Entry i's kind, place, name and shape without computing it (a lazy map's data is NULL):
 * what a list of the run's tensors reads. NULL outside 0..n_entries-1. */
const TraceEntry *trace_meta(const Trace *t, int i);
/* Row `row` of one head's map (kind T_SCORES, T_SCALED, T_MASKED or T_WEIGHTS; the head as
 * trace_find names it) into out (the map's cols floats): copied when the head's maps are in the
 * cache, else computed for that row alone from the head's q, k and the mask (n·d_head work,
 * not n²·d_head, and nothing cached): the same bits as the whole map's row. What a scan of
 * one cell of every head reads. 0, or -1 (no such map or row, or out of memory). */
int trace_map_row(const Trace *t, Stack st, int layer, Sublayer sub, int head, TensorKind kind,
                  int row, float *out);
/* Fills every head's four n×n steps not yet computed (what trace_entry would fill one head at
 * a time), the heads split over the cores when there are enough (tensor_par.h): a display or
 * a bench about to read them all. The same bits as trace_entry's. 0, or -1 when the map
 * cache's budget cannot hold every head's maps at once, or out of memory (nothing filled
 * then, or some heads only; trace_entry still fills on demand). */
int trace_fill_all(const Trace *t);
/* Sets the bytes of maps t's cache may keep (at least TRACE_MAP_KEEP heads' whatever the
 * budget; SIZE_MAX: every head's, as a bench keeping all maps wants). Heads already cached
 * beyond the new budget are dropped at the next read. */
void trace_set_map_budget(Trace *t, size_t bytes);
/* Empties t's map cache: every head's maps lazy again (data NULL), every pointer into them
 * ended. keep: the blocks are kept for the next run's maps (model_forward calls it first; under
 * AddressSanitizer they are poisoned until reused), else freed (trace_free). */
void trace_maps_drop(Trace *t, int keep);
/* want 1: t's next forward passes write each head's four maps themselves, into the map cache,
 * as they compute the head's output from them (model_sdpa_maps: no second Q·Kᵀ and softmax
 * when the maps are read), for a caller about to read every head's maps (a bench keeping
 * them all, a whole dump). A head the cache's budget has no free room for (no slot free and
 * no room for another: nothing is evicted) stays lazy, computed when read, as with want 0 (the
 * default: every map lazy, memory bounded by what is read). The same bits either way, and the
 * same rule for readers (a map written by the forward is a cached head like any other). */
void trace_want_maps(Trace *t, int want);
/* The forward's side of trace_want_maps (model.c, engine only): a slot of the map cache for
 * the head whose T_SCORES entry is i (its four entries recorded in a row), if one is free or
 * the cache may add one, never evicting: the head's four maps' block (4 × rows × cols floats,
 * scores, scaled, masked, weights), its entries pointing into it and no longer lazy: the
 * caller writes all four before the trace is read. NULL (entries untouched, still lazy) when
 * the cache is full or out of memory. */
float *trace_map_claim(Trace *t, int i);
/* First entry matching; layer/head -1 for "not per layer/head". NULL if absent. Filled, as
 * trace_entry. */
const TraceEntry *trace_find(const Trace *t, Stack stack, int layer, Sublayer sub, int head,
                             TensorKind kind);
const TraceEntry *trace_find_name(const Trace *t, const char *name);
/* Which stack and sublayer a view of m's attention shows (the player, export, placeholders,
 * quiz, describe and dump all ask here): cross asks for an encoder-decoder's cross-attention
 * and is ignored for any other model; without cross an encoder-decoder shows its encoder. A
 * trace without a model (a worked example, m NULL) is one decoder head. */
Stack model_view_stack(const Model *m, int cross);
Sublayer model_view_sub(const Model *m, int cross);
/* Which stack, by name (the one rule; no front end or command writes its own ternary on the
 * architecture, tests/ref/house.py checks): the stack whose self-attention a page without
 * cross-attention shows (a decoder's; an encoder's, an encoder-decoder's encoder; m NULL: a
 * worked example's one decoder head), which is model_view_stack(m, 0); and the stack that
 * makes the model's output, its logits and last hidden state (an encoder's; a decoder's, an
 * encoder-decoder's decoder). */
Stack model_self_stack(const Model *m);
Stack model_output_stack(const Model *m);
/* The rows (queries) of that view of t: an encoder-decoder's cross-attention rows are its
 * decoder's positions, each named by the word it produces (t->tgt, t->m of them), any other
 * view's are t->src (t->n); *ids (when ids is not NULL) gets them, the count is returned. The
 * columns (keys) of every view are t->src: cross-attention reads the encoder's tokens. */
int trace_view_rows(const Trace *t, int cross, const int **ids);
/* Short symbol ("QKᵀ", "softmax") and formula ("Q = norm(x)·W_Q[:, head]") of a kind. */
const char *trace_kind_symbol(TensorKind k);
const char *trace_kind_formula(TensorKind k);
const char *trace_kind_key(TensorKind k); /* "q", "weights", ... as used in names */

/* 0, or -1 with "the model file changed while open: PATH" when the file the weights are
 * mapped from changed under a read (model_forward checks after every pass; anything else
 * that reads the weights itself, such as the lens and the circuits, checks when done). */
int model_store_check(const Model *m, char *err, size_t errlen);

/* Runs the model. src: n token ids (the encoder input, or the only input); tgt: m decoder ids
 * for encoder-decoder models (ignored otherwise). Applies c->order to src. Fills t (never
 * allocates). Returns 0, or -1 with a message (too long, bad order, learned PE too short...,
 * or a NaN/infinity in a tensor: see trace_check_finite; the trace is then left filled). */
int model_forward(const Model *m, const int *src, int n, const int *tgt, int m_tgt,
                  const Controls *c, Trace *t, char *err, size_t errlen);

/* 0 if every value of every tensor in t is finite (the mask and the masked scores may hold
 * -inf), else -1 with "the forward pass overflowed: NAME[row][col] is NaN ..." in err.
 * model_forward calls it last (trace_check.c). */
int trace_check_finite(const Trace *t, char *err, size_t errlen);
/* The forward's side of that check for an entry it has just written (its values still in the
 * cache): sets e->finite when every value is finite (−∞ allowed in a mask or masked scores),
 * and the scan then skips it; else leaves it for the scan, which names the first offender in
 * the trace's order as before. Entries of different heads may be marked at once. */
void trace_mark_finite(TraceEntry *e);
/* 1 when any of the n floats at x is a NaN or an infinity (the check trace_mark_finite makes,
 * no −∞ allowed), for a part of a parallel step that checks its own rows while they are in its
 * core's cache; the step marks its entry finite (TraceEntry.finite) when no part found one. */
int trace_non_finite(const float *x, size_t n);
/* Bytes trace_new(m, max_n, max_m) would allocate, with the most its map cache holds by
 * default (TRACE_MAP_BYTES, or TRACE_MAP_KEEP heads' maps when more), computed without
 * allocating: callers refuse runs too long for memory before asking for it. */
size_t trace_bytes(const Model *m, int max_n, int max_m);
/* The most memory one trace may take (dump, generate, the player): 2 GiB. The shipped models'
 * traces take well under 1 MiB; GPT-2 small's whole context (1024 tokens) about 1.35 GiB. The
 * arena grows with the sentence length (its masks, one n×n per attention sublayer, with its
 * square); the heads' maps stay within the map cache's budget. */
#define TRACE_MAX_BYTES ((size_t)2048 << 20)

/* Runs src in identity order into a and in c->order into b, and returns
 * max |Attn(PX) − P·Attn(X)| over every self-attention output (·W_O) of every layer of the
 * main stack. Returns a negative value on error (message in err). */
float model_equivariance(const Model *m, const int *src, int n, const int *tgt, int m_tgt,
                         const Controls *c, Trace *a, Trace *b, char *err, size_t errlen);
/* The same gap for one layer of the main stack, read from the two runs model_equivariance
 * left in a (identity order) and b (permuted): max |Attn(PX) − P·Attn(X)| over the rows of
 * that layer's self-attention output (·W_O), the rows a learner sees side by side. Negative
 * when the layer is not in the traces. */
float model_equivariance_layer(const Model *m, const Trace *a, const Trace *b, int layer);

/* (model_worked's causal: 0 none, 1 the causal mask added before softmax, 2 the mistake of
 * applying it after softmax: the future's weights zeroed, rows not renormalised.) */
/* Scaled dot-product attention of one head on given matrices, every step kept:
 * scores = q·kᵀ (nq×nk), scaled = scores·scale, masked = scaled + mask (mask may be NULL),
 * weights = softmax(masked) row by row, out = weights·v (nq×dv; out may be NULL: not wanted).
 * Lessons call it on hand-worked examples, and a trace to fill in a head's steps when they are
 * first read. No allocation. */
void model_sdpa(float *scores, float *scaled, float *masked, float *weights, float *out,
                const float *q, const float *k, const float *v, const float *mask, int nq, int nk,
                int dk, int dv, float scale);
/* model_sdpa's four steps (and out, when not NULL), the same bits, MODEL_SDPA_ROWS query rows
 * at a time while they are in the cache, the scores from k packed once, in band
 * (MODEL_SDPA_BAND(nk, dk) floats of scratch, as model_sdpa_out's). lim: as model_sdpa_out's,
 * or NULL. Large maps (MODEL_SDPA_STREAM) are computed a band of rows at a time in band and
 * then streamed out to the four maps (non-temporal stores: no read of the maps' memory before
 * it is written, the cache kept for the work). The forward's maps when they are wanted as it
 * runs, and a trace's lazy maps (trace.c). */
void model_sdpa_maps(float *scores, float *scaled, float *masked, float *weights, float *out,
                     float *band, const float *q, const float *k, const float *v,
                     const float *mask, const int *lim, int nq, int nk, int dk, int dv,
                     float scale);
/* The fewest elements of one map (nq·nk) for which model_sdpa_maps streams its maps out: one
 * head's four maps of 1 MB and more (256 tokens), past what the cache would keep for a reader. */
#define MODEL_SDPA_STREAM ((size_t)1 << 16)
/* As the forward pass runs it: only out, the same bits as model_sdpa's. MODEL_SDPA_ROWS query
 * rows at a time in band (MODEL_SDPA_BAND(nk, dk) floats: room for four maps' MODEL_SDPA_ROWS·nk
 * rows, model_sdpa_maps' when it streams, then k packed once), each band over the keys any of its rows may read (a causal band skips its
 * future: half the work). lim: model_sdpa_limits of the mask, computed once for all heads, or
 * NULL (read from the mask, band by band). */
#define MODEL_SDPA_ROWS 16
/* Keys per block of k packed for the product Q·Kᵀ (sdpa.c), and the floats of the packing. */
#define MODEL_SDPA_PACK 16
#define MODEL_SDPA_PACK_FLOATS(nk, dk)                                                         \
    (((size_t)(nk) + MODEL_SDPA_PACK - 1) / MODEL_SDPA_PACK * MODEL_SDPA_PACK * (size_t)(dk))
#define MODEL_SDPA_BAND(nk, dk) (4 * (size_t)MODEL_SDPA_ROWS * (size_t)(nk) + MODEL_SDPA_PACK_FLOATS(nk, dk))
/* The most heads one attention sublayer computes at once, one per thread (tensor_par.h). */
#define MODEL_HEAD_BANDS 8
/* The fewest multiply-adds of one sublayer's attention (nq·nk·d_head·heads) for which its heads
 * are spread over the threads: about 50 µs of work (GPT-2 small from ~40 tokens), several times
 * a hand-off to a worker that is watching for its next job (tensor_par.c). */
#define MODEL_HEADS_PAR_MACS ((size_t)1 << 20)
void model_sdpa_out(float *out, float *band, const float *q, const float *k, const float *v,
                    const float *mask, const int *lim, int nq, int nk, int dk, int dv,
                    float scale);
/* lim[i] = 1 + the last key query row i may read (0 when it may read none), with
 * MODEL_SDPA_HOLES set when the row's mask is not 0 on every key before that (padding): the
 * forward reads the mask only for those rows. */
#define MODEL_SDPA_HOLES (1 << 30)
void model_sdpa_limits(const float *mask, int nq, int nk, int *lim);
/* The factor the scores are multiplied by: 1/√d_k when scaling is on, else 1. */
float model_sdpa_scale(int scale_on, int d_k);

/* A trace of one head's attention on given matrices — the hand-worked examples: entries q, k,
 * v (nq×dk, nk×dk, nk×dv), scores, scaled, mask, masked, weights, out as layer 0, head 0 of a
 * decoder (t->model is NULL, tokens are positions), so views and placeholders read it like a
 * model's trace. causal: mask j > i; scale: divide by √dk. NULL on allocation failure. */
Trace *model_worked(const float *q, const float *k, const float *v, int nq, int nk, int dk,
                    int dv, int causal, int scale);

/* Rotary position embedding of x (n rows of dh), in place: rotates each pair of row pos by
 * pos·θ_i, the pairs being (x[2i], x[2i+1]), or (x[i], x[i + dh/2]) when cfg->rope_half. */
void model_rope_apply(float *x, int n, int dh, const ModelConfig *cfg);

/* Sinusoidal PE value at (pos, i) for width d. */
float model_sinusoid(int pos, int i, int d);

#endif
