/* explain.h - the computations behind the course's explanation widgets, beside the model:
 * the √d_k experiment, the KV cache, the cost of attention as N grows, the parameter count of
 * a configuration, and hand-worked attention on given matrices. No curses, no printing.
 * Each publishes its results as named numbers, so lesson prose can quote them
 * ({{x name}}) and never disagree with the widget. */
#ifndef ATTEND_EXPLAIN_H
#define ATTEND_EXPLAIN_H

#include <stdint.h>

#include "model.h"

/* A named number a widget publishes for prose and quiz answers. */
typedef struct {
    char name[32];
    double value;
    int integer;       /* 1: print without decimals */
} NamedValue;

#define EXPLAIN_MAX_VALUES 48

typedef struct {
    int n;
    NamedValue v[EXPLAIN_MAX_VALUES];
} NamedValues;

void explain_put(NamedValues *nv, const char *name, double value, int integer);
/* The value of name, or NULL. */
const NamedValue *explain_get(const NamedValues *nv, const char *name);

/* ---- √d_k: random queries and keys with N(0,1) components ---- */
#define SCALING_KEYS 8
typedef struct {
    int d_k;
    double var_raw;              /* sample variance of q·k over many pairs (≈ d_k) */
    double var_scaled;           /* of q·k/√d_k (≈ 1) */
    float raw[SCALING_KEYS];     /* one query's scores against SCALING_KEYS keys */
    float scaled[SCALING_KEYS];
    float w_raw[SCALING_KEYS];   /* softmax(raw): sharper as d_k grows */
    float w_scaled[SCALING_KEYS];
    float max_raw, max_scaled;   /* largest weight of each */
    double entropy_raw, entropy_scaled; /* in bits; log2(SCALING_KEYS) is uniform */
} ScalingDemo;

/* Draws from a fixed seed so the same d_k always shows the same vectors. 0 or -1. */
int explain_scaling(ScalingDemo *out, int d_k, uint64_t seed, NamedValues *nv);

/* ---- the KV cache: generating token t of a decoder ---- */
typedef struct {
    int step;                    /* 1..n: the newest token is at position step-1 */
    long long work_cached;       /* multiply-adds to produce the newest token with a KV cache */
    long long work_full;         /* ... without a cache: the whole prefix again */
    long long total_cached;      /* summed over steps 1..step */
    long long total_full;
    long long cache_floats;      /* floats held in the cache after this step: 2·L·t·h·d_k */
    float k_drift;               /* max |K of the prefix run − first rows of K of the full run| */
    float row_drift;             /* max |last row of the prefix run's weights − same row of full| */
} KvCacheStep;

/* Runs the prefix of length step (into prefix) and the full sentence (into full, causal) and
 * counts the work. Both traces must hold n tokens. Returns 0 or -1 with a message. */
int explain_kvcache(const Model *m, const int *ids, int n, int step, Trace *full, Trace *prefix,
                    KvCacheStep *out, NamedValues *nv, char *err, size_t errlen);

/* Multiply-adds of one forward pass over n tokens of a decoder-only config (projections,
 * scores, weighted sums, W_O, FFN, LM head). */
long long explain_forward_macs(const ModelConfig *c, long long n);
/* Multiply-adds of one decoder-only run where nq new rows (projected, through the FFN and the
 * output layer) read nk keys: explain_forward_macs(c, n) is explain_step_macs(c, n, n), one
 * step with a KV cache explain_step_macs(c, 1, t). */
long long explain_step_macs(const ModelConfig *c, long long nq, long long nk);

/* ---- cost of attention as N grows ---- */
typedef struct {
    long long n;
    long long score_entries;     /* n² per head */
    long long score_bytes;       /* n²·heads·layers·4 bytes of float32 scores */
    long long qk_macs;           /* n²·d_k·heads·layers multiply-adds for QKᵀ */
    long long forward_macs;      /* the whole forward */
} CostPoint;

void explain_cost(const ModelConfig *c, long long n, CostPoint *out, NamedValues *nv);

/* ---- parameters of a configuration ---- */
typedef struct {
    long long d_model, n_heads, n_kv_heads, d_head, n_layers, d_ff, vocab;
    int swiglu;                  /* 1: three FFN matrices (gate, up, down), no biases */
    int tied;                    /* 1: the LM head reuses the embedding */
    int rmsnorm;                 /* 1: norms have a gain only */
    int bias;                    /* 1: the FFN's linear layers have biases */
    long long pos_rows;          /* rows of a learned position table (0: none, e.g. RoPE) */
    int qkv_bias;                /* 1: Q, K and V projections have biases (GPT-2, Qwen2) */
    int o_bias;                  /* 1: W_O has a bias (GPT-2) */
    int qk_norm;                 /* 1: an RMSNorm gain on each head's q and k (Qwen3) */
    int attn_only;               /* 1: no FFN sublayer, so one norm a layer (not two) */
    int no_final_norm;           /* 1: no norm after the last layer */
} ParamConfig;

#define PARAM_ROWS 10
typedef struct {
    char name[32];
    char formula[64];
    long long count;             /* for the whole model */
} ParamRow;

/* Fills rows (at most PARAM_ROWS); returns the number of rows and sets *total. */
int explain_params(const ParamConfig *c, ParamRow *rows, long long *total, NamedValues *nv);
/* The ParamConfig of a model's own ModelConfig. */
void explain_param_config(const ModelConfig *mc, ParamConfig *out);

#endif
