/* explain.c - the computations behind the explanation widgets (see explain.h). */
#include "explain.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tensor.h"

void explain_put(NamedValues *nv, const char *name, double value, int integer)
{
    if (!nv)
        return;
    for (int i = 0; i < nv->n; i++)
        if (strcmp(nv->v[i].name, name) == 0) {
            nv->v[i].value = value;
            nv->v[i].integer = integer;
            return;
        }
    if (nv->n >= EXPLAIN_MAX_VALUES)
        return;
    NamedValue *v = &nv->v[nv->n++];
    snprintf(v->name, sizeof v->name, "%s", name);
    v->value = value;
    v->integer = integer;
}

const NamedValue *explain_get(const NamedValues *nv, const char *name)
{
    for (int i = 0; nv && i < nv->n; i++)
        if (strcmp(nv->v[i].name, name) == 0)
            return &nv->v[i];
    return NULL;
}

/* splitmix64 and Marsaglia's polar method: reproducible normals, two per log and sqrt (the
 * second kept for the next call), no cos or sin. */
typedef struct {
    uint64_t s;
    int have;       /* 1 when spare holds the pair's second normal */
    double spare;
} NormalRng;

static uint64_t sm64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double normal(NormalRng *r)
{
    if (r->have) {
        r->have = 0;
        return r->spare;
    }
    double u, v, q;
    do {
        u = (double)(sm64(&r->s) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
        v = (double)(sm64(&r->s) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
        q = u * u + v * v;
    } while (q >= 1.0 || q == 0.0);
    double f = sqrt(-2.0 * log(q) / q);
    r->spare = v * f;
    r->have = 1;
    return u * f;
}

static double entropy_bits(const float *w, int n)
{
    double h = 0;
    for (int i = 0; i < n; i++)
        if (w[i] > 0)
            h -= w[i] * log2(w[i]);
    return h;
}

static void scaling_compute(ScalingDemo *out, int d_k, uint64_t seed);

/* The experiment draws 4,000·d_k normals and depends on (d_k, seed) alone, yet a page runs it
 * at every redraw and check-lessons' walk in every state: the last few results are kept (one
 * thread runs it). */
enum { SCALING_MEMO = 16 };
static struct {
    int d_k;            /* 0: empty */
    uint64_t seed;
    ScalingDemo demo;
} scaling_memo[SCALING_MEMO];
static int scaling_memo_next;

int explain_scaling(ScalingDemo *out, int d_k, uint64_t seed, NamedValues *nv)
{
    if (d_k < 1 || d_k > 4096)
        return -1;
    int hit = -1;
    for (int i = 0; i < SCALING_MEMO && hit < 0; i++)
        if (scaling_memo[i].d_k == d_k && scaling_memo[i].seed == seed)
            hit = i;
    if (hit < 0) {
        hit = scaling_memo_next;
        scaling_memo_next = (scaling_memo_next + 1) % SCALING_MEMO;
        scaling_compute(&scaling_memo[hit].demo, d_k, seed);
        scaling_memo[hit].d_k = d_k;
        scaling_memo[hit].seed = seed;
    }
    *out = scaling_memo[hit].demo;
    explain_put(nv, "d_k", d_k, 1);
    explain_put(nv, "sqrt_d_k", sqrt((double)d_k), 0);
    explain_put(nv, "var_raw", out->var_raw, 0);
    explain_put(nv, "var_scaled", out->var_scaled, 0);
    explain_put(nv, "max_raw", out->max_raw, 0);
    explain_put(nv, "max_scaled", out->max_scaled, 0);
    explain_put(nv, "entropy_raw", out->entropy_raw, 0);
    explain_put(nv, "entropy_scaled", out->entropy_scaled, 0);
    explain_put(nv, "entropy_uniform", log2((double)SCALING_KEYS), 0);
    explain_put(nv, "keys", SCALING_KEYS, 1);
    return 0;
}

static void scaling_compute(ScalingDemo *out, int d_k, uint64_t seed)
{
    memset(out, 0, sizeof *out);
    out->d_k = d_k;
    NormalRng s = {seed, 0, 0};
    /* The variance of q·k over many independent pairs. */
    const int pairs = 2000;
    double sum = 0, sum2 = 0;
    for (int p = 0; p < pairs; p++) {
        double dot = 0;
        for (int i = 0; i < d_k; i++)
            dot += normal(&s) * normal(&s);
        sum += dot;
        sum2 += dot * dot;
    }
    double mean = sum / pairs;
    out->var_raw = sum2 / pairs - mean * mean;
    out->var_scaled = out->var_raw / d_k;
    /* One query against SCALING_KEYS keys: the same directions at every d_k, so that d_k
     * only scales them. Each key's scaled score z_j = q·k_j/√d_k is drawn once, N(0, 1) as
     * for any d_k (a fixed seed of its own), and its raw score is z_j·√d_k, whose spread is
     * that of q·k at width d_k. A larger d_k therefore always sharpens the unscaled row (the
     * softmax of a row scaled by a larger factor is more peaked), and the scaled row is the
     * same at every width. */
    NormalRng s2 = {seed ^ 0xA5A5A5A5DEADBEEFULL, 0, 0};
    for (int j = 0; j < SCALING_KEYS; j++) {
        double z = normal(&s2);
        out->raw[j] = (float)(z * sqrt((double)d_k));
        out->scaled[j] = (float)z;
    }
    memcpy(out->w_raw, out->raw, sizeof out->raw);
    memcpy(out->w_scaled, out->scaled, sizeof out->scaled);
    tensor_softmax_rows(out->w_raw, 1, SCALING_KEYS);
    tensor_softmax_rows(out->w_scaled, 1, SCALING_KEYS);
    for (int j = 0; j < SCALING_KEYS; j++) {
        if (out->w_raw[j] > out->max_raw) out->max_raw = out->w_raw[j];
        if (out->w_scaled[j] > out->max_scaled) out->max_scaled = out->w_scaled[j];
    }
    out->entropy_raw = entropy_bits(out->w_raw, SCALING_KEYS);
    out->entropy_scaled = entropy_bits(out->w_scaled, SCALING_KEYS);
}

/* Multiply-adds of one decoder layer's work for nq new query rows reading nk keys, where
 * only the new rows are projected (nq == nk for a full pass). */
static long long layer_macs(const ModelConfig *c, long long nq, long long nk)
{
    long long d = c->d_model, hd = (long long)c->n_heads * c->d_head, F = c->d_ff;
    long long proj = 3 * nq * d * hd;          /* Q, K, V of the new rows */
    long long attn = 2 * nq * nk * hd;         /* q·k for every key, weights·V */
    long long wo = nq * hd * d;
    long long ffn = (c->ffn == FFN_SWIGLU ? 3 : 2) * nq * d * F;
    return proj + attn + wo + ffn;
}

long long explain_step_macs(const ModelConfig *c, long long nq, long long nk)
{
    return c->n_layers * layer_macs(c, nq, nk) + nq * (long long)c->d_model * c->vocab_size;
}

long long explain_forward_macs(const ModelConfig *c, long long n)
{
    return explain_step_macs(c, n, n);
}

int explain_kvcache(const Model *m, const int *ids, int n, int step, Trace *full, Trace *prefix,
                    KvCacheStep *out, NamedValues *nv, char *err, size_t errlen)
{
    const ModelConfig *c = &m->cfg;
    if (c->arch != ARCH_DECODER) {
        snprintf(err, errlen, "the KV cache widget needs a decoder-only model");
        return -1;
    }
    if (step < 1 || step > n) {
        snprintf(err, errlen, "step %d is outside 1..%d", step, n);
        return -1;
    }
    Controls ctl;
    model_default_controls(m, &ctl);
    ctl.causal = 1;
    if (model_forward(m, ids, n, NULL, 0, &ctl, full, err, errlen) ||
        model_forward(m, ids, step, NULL, 0, &ctl, prefix, err, errlen))
        return -1;
    memset(out, 0, sizeof *out);
    out->step = step;
    /* Cached keys never change: K of the prefix equals the first rows of K of the full run,
     * and the newest query's weights equal that row of the full run (the causal mask hides
     * the future either way). Measured, not assumed. */
    for (int l = 0; l < c->n_layers; l++)
        for (int h = 0; h < c->n_heads; h++) {
            TensorKind kk = ctl.pe == PE_ROPE ? T_K_ROT : T_K;
            const TraceEntry *kp = trace_find(prefix, STACK_DEC, l, SUB_SELF, h, kk);
            const TraceEntry *kf = trace_find(full, STACK_DEC, l, SUB_SELF, h, kk);
            const TraceEntry *wp = trace_find(prefix, STACK_DEC, l, SUB_SELF, h, T_WEIGHTS);
            const TraceEntry *wf = trace_find(full, STACK_DEC, l, SUB_SELF, h, T_WEIGHTS);
            if (!kp || !kf || !wp || !wf) {
                snprintf(err, errlen, "internal error: keys or weights not traced");
                return -1;
            }
            float dk = tensor_max_abs_diff(kp->data, kf->data, (size_t)step * kp->cols);
            float dw = tensor_max_abs_diff(wp->data + (size_t)(step - 1) * wp->cols,
                                           wf->data + (size_t)(step - 1) * wf->cols, (size_t)step);
            if (dk > out->k_drift) out->k_drift = dk;
            if (dw > out->row_drift) out->row_drift = dw;
        }
    for (int t = 1; t <= step; t++) {
        long long cached = explain_step_macs(c, 1, t);
        long long fullw = explain_forward_macs(c, t);
        out->total_cached += cached;
        out->total_full += fullw;
        if (t == step) {
            out->work_cached = cached;
            out->work_full = fullw;
        }
    }
    out->cache_floats = 2LL * c->n_layers * step * c->n_heads * c->d_head;
    explain_put(nv, "step", step, 1);
    explain_put(nv, "work_cached", (double)out->work_cached, 1);
    explain_put(nv, "work_full", (double)out->work_full, 1);
    explain_put(nv, "total_cached", (double)out->total_cached, 1);
    explain_put(nv, "total_full", (double)out->total_full, 1);
    explain_put(nv, "saving", (double)out->total_full / (double)out->total_cached, 0);
    explain_put(nv, "cache_floats", (double)out->cache_floats, 1);
    explain_put(nv, "k_drift", out->k_drift, 0);
    explain_put(nv, "row_drift", out->row_drift, 0);
    return 0;
}

void explain_cost(const ModelConfig *c, long long n, CostPoint *out, NamedValues *nv)
{
    out->n = n;
    out->score_entries = n * n;
    out->score_bytes = n * n * c->n_heads * c->n_layers * 4;
    out->qk_macs = n * n * c->d_head * c->n_heads * c->n_layers;
    out->forward_macs = explain_forward_macs(c, n);
    explain_put(nv, "n", (double)n, 1);
    explain_put(nv, "score_entries", (double)out->score_entries, 1);
    explain_put(nv, "score_bytes", (double)out->score_bytes, 1);
    explain_put(nv, "score_kib", out->score_bytes / 1024.0, 0);
    explain_put(nv, "qk_macs", (double)out->qk_macs, 1);
    explain_put(nv, "forward_macs", (double)out->forward_macs, 1);
}

void explain_param_config(const ModelConfig *mc, ParamConfig *p)
{
    memset(p, 0, sizeof *p);
    p->d_model = mc->d_model;
    p->n_heads = mc->n_heads;
    p->n_kv_heads = mc->n_heads;
    p->d_head = mc->d_head;
    p->n_layers = mc->n_layers;
    p->d_ff = mc->d_ff;
    p->vocab = mc->vocab_size;
    p->swiglu = mc->ffn == FFN_SWIGLU;
    p->tied = mc->tie_embed;
    p->rmsnorm = mc->norm == NORM_RMS;
    p->bias = mc->ffn == FFN_RELU || mc->ffn == FFN_GELU; /* attend's ReLU/GELU FFNs have b1, b2 */
    p->attn_only = mc->ffn == FFN_NONE;
    p->no_final_norm = !mc->final_norm;
    p->pos_rows = mc->max_len;        /* attend's model files always hold pos_embed */
}

int explain_params(const ParamConfig *c, ParamRow *rows, long long *total, NamedValues *nv)
{
    int n = 0;
    long long d = c->d_model, L = c->n_layers;
    long long q = d * c->n_heads * c->d_head, kv = d * c->n_kv_heads * c->d_head;
    long long o = c->n_heads * c->d_head * d;
    long long ffn = c->attn_only ? 0 : (c->swiglu ? 3 : 2) * d * c->d_ff;
    if (c->bias && !c->swiglu && !c->attn_only)
        ffn += c->d_ff + d;
    long long norm1 = c->rmsnorm ? d : 2 * d;
    /* one norm before (or after) each sublayer: two a layer, one without the FFN; + final */
    long long per = c->attn_only ? 1 : 2, fin = c->no_final_norm ? 0 : 1;
    char nf[64];
    snprintf(nf, sizeof nf, "%s%s%s x %sd_model", fin ? "(" : "", per == 2 ? "2L" : "L",
             fin ? " + 1)" : "", c->rmsnorm ? "" : "2 x ");
#define ROW(nm, fm, v) do { snprintf(rows[n].name, sizeof rows[n].name, "%s", nm); \
        snprintf(rows[n].formula, sizeof rows[n].formula, "%s", fm); rows[n].count = (v); n++; } while (0)
    ROW("embedding", "vocab x d_model", c->vocab * d);
    if (c->pos_rows > 0)
        ROW("positions", "max_len x d_model", c->pos_rows * d);
    ROW("W_Q", "L x d_model x h*d_head", L * q);
    ROW("W_K, W_V", "L x 2 x d_model x kv_h*d_head", L * 2 * kv);
    ROW("W_O", "L x h*d_head x d_model", L * o);
    ROW("FFN", c->attn_only ? "none: attention only"
               : c->swiglu ? "L x 3 x d_model x d_ff"
               : c->bias   ? "L x (2 x d_model x d_ff + d_ff + d_model)"
                           : "L x 2 x d_model x d_ff", L * ffn);
    ROW("norms", nf, (per * L + fin) * norm1);
    long long abias = (c->qkv_bias ? (c->n_heads + 2 * c->n_kv_heads) * c->d_head : 0) +
                      (c->o_bias ? d : 0);
    if (abias)
        ROW("attention biases", c->o_bias ? "L x ((h + 2 kv_h) x d_head + d_model)"
                                          : "L x (h + 2 kv_h) x d_head", L * abias);
    long long qkn = c->qk_norm ? 2 * c->d_head : 0;
    if (qkn)
        ROW("q/k norms", "L x 2 x d_head", L * qkn);
    ROW("LM head", c->tied ? "tied to the embedding: 0" : "d_model x vocab", c->tied ? 0 : d * c->vocab);
#undef ROW
    long long t = 0;
    for (int i = 0; i < n; i++)
        t += rows[i].count;
    *total = t;
    explain_put(nv, "params", (double)t, 1);
    explain_put(nv, "params_b", t / 1e9, 0);
    explain_put(nv, "params_m", t / 1e6, 0);
    int a0 = c->pos_rows > 0 ? 2 : 1; /* first attention row */
    explain_put(nv, "embedding", (double)rows[0].count, 1);
    explain_put(nv, "positions", c->pos_rows > 0 ? (double)rows[1].count : 0.0, 1);
    explain_put(nv, "attention", (double)(rows[a0].count + rows[a0 + 1].count + rows[a0 + 2].count), 1);
    explain_put(nv, "ffn", (double)rows[a0 + 3].count, 1);
    explain_put(nv, "per_layer", (double)((q + 2 * kv + o + ffn + per * norm1 + abias + qkn)), 1);
    explain_put(nv, "lm_head", (double)rows[n - 1].count, 1);
    explain_put(nv, "qk_norms", (double)(L * qkn), 1);
    explain_put(nv, "embedding_share", 100.0 * rows[0].count / (double)t, 0);
    explain_put(nv, "ffn_share", 100.0 * rows[a0 + 3].count / (double)t, 0);
    return n;
}
