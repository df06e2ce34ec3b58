/* trace.c - reading a Trace: its tensors found by position or name (trace_find,
 * trace_find_name), the four n×n steps of a head filled in when first read (trace_entry, with
 * sdpa.c's kernel), which stack a view shows, and the names, symbols and formulas of the
 * tensor kinds. */
#include <stdlib.h>
#include <string.h>

#include "attend_assert.h"
#include "model.h"
#include "tensor.h"
#include "tensor_par.h"

static const char *const KIND_KEY[T__COUNT] = {
    "embed", "embed_scaled", "pe", "x_pe", "norm_in", "q", "k", "v", "q_rot", "k_rot",
    "scores", "scaled", "mask", "masked", "weights", "out", "concat", "attn_out", "resid",
    "norm_out", "ffn_hidden", "ffn_out", "final_norm", "logits"};
static const char *const KIND_SYMBOL[T__COUNT] = {
    "X", "X·√d_model", "PE", "X+PE", "norm", "Q", "K", "V", "RoPE(Q)", "RoPE(K)",
    "QKᵀ", "÷√d_k", "M", "+M", "softmax", "·V", "concat", "·W_O", "+residual",
    "norm", "FFN hidden", "FFN out", "final norm", "logits"};
static const char *const KIND_FORMULA[T__COUNT] = {
    "X = E[token]  (one embedding row per token)",
    "X = E[token] · √d_model",
    "PE[pos,2i] = sin(pos/10000^(2i/d)), PE[pos,2i+1] = cos(...); or learned rows",
    "X + PE  (position added to every token vector)",
    "norm(x) = g·(x − mean)/√(var + ε) + b   (RMSNorm: g·x/√(mean(x²) + ε))",
    "Q = x · W_Q[:, head]",
    "K = x · W_K[:, head]",
    "V = x · W_V[:, head]",
    "RoPE: rotate each pair (q[2i], q[2i+1]) by angle pos·θ_i",
    "RoPE: rotate each pair (k[2i], k[2i+1]) by angle pos·θ_i",
    "S = Q · Kᵀ   (S[i][j] = q_i · k_j)",
    "S / √d_k",
    "M[i][j] = −∞ where query i may not see key j, else 0",
    "S/√d_k + M",
    "A = softmax(S/√d_k + M)  row by row; every row sums to 1",
    "head = A · V",
    "concat(head_1, ..., head_h)",
    "concat · W_O",
    "x + sublayer(x)",
    "norm(x + sublayer(x))",
    "act(x·W1 + b1)   (SwiGLU: silu(x·W1) ⊙ (x·W3))",
    "hidden · W2 + b2",
    "norm of the last layer's output",
    "logits = h · W_vocab"};

const char *trace_kind_symbol(TensorKind k) { return (unsigned)k < T__COUNT ? KIND_SYMBOL[k] : "?"; }
const char *trace_kind_formula(TensorKind k) { return (unsigned)k < T__COUNT ? KIND_FORMULA[k] : "?"; }
const char *trace_kind_key(TensorKind k) { return (unsigned)k < T__COUNT ? KIND_KEY[k] : "?"; }

const TraceEntry *trace_find(const Trace *t, Stack stack, int layer, Sublayer sub, int head,
                             TensorKind kind)
{
    for (int i = 0; i < t->n_entries; i++) {
        const TraceEntry *e = &t->entries[i];
        if (e->kind == kind && e->stack == stack && e->layer == layer && e->sub == sub &&
            e->head == head)
            return trace_entry(t, i);
    }
    return NULL;
}

const TraceEntry *trace_find_name(const Trace *t, const char *name)
{
    for (int i = 0; i < t->n_entries; i++)
        if (strcmp(t->entries[i].name, name) == 0)
            return trace_entry(t, i);
    return NULL;
}

/* ---- the map cache (model.h states the rule its readers follow) ---- */

struct TraceSlot {
    float *data;        /* (4, rows, cols): the head's scores, scaled, masked, weights */
    size_t cap;         /* floats data holds (a block kept from an earlier run may be larger) */
    int first;          /* the head's T_SCORES entry, or -1: free */
    unsigned long used; /* t->clock when the head was last read */
};

/* Under AddressSanitizer a block kept for a later run is poisoned while free, so a pointer
 * kept into the last run's maps is reported as a bad read, as a freed block would be. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, bytes) ASAN_POISON_MEMORY_REGION((p), (bytes))
#define UNPOISON(p, bytes) ASAN_UNPOISON_MEMORY_REGION((p), (bytes))
#else
#define POISON(p, bytes) ((void)(p), (void)(bytes))
#define UNPOISON(p, bytes) ((void)(p), (void)(bytes))
#endif

/* A map's head: the index of its T_SCORES entry (the forward records the four in a row). */
static int first_of(const Trace *t, int i)
{
    TensorKind kind = t->entries[i].kind;
    return i - (kind == T_SCALED ? 1 : kind == T_MASKED ? 2 : kind == T_WEIGHTS ? 3 : 0);
}

/* Heads the cache holds in this run: the budget over the largest head's four maps, and never
 * fewer than TRACE_MAP_KEEP. */
static int slot_limit(const Trace *t)
{
    size_t L = (size_t)(t->n > t->m ? t->n : t->m);
    size_t one = sizeof(float) * 4 * (L > 0 ? L * L : 1), k = t->map_budget / one;
    if (k < TRACE_MAP_KEEP)
        k = TRACE_MAP_KEEP;
    return k > 1000000 ? 1000000 : (int)k;
}

/* Frees slot s for another head: its head's maps lazy again, data NULL; its block freed, or
 * with keep kept (poisoned) for the next run's maps. */
static void slot_release(Trace *t, int s, int keep)
{
    TraceSlot *S = &t->slots[s];
    if (S->first >= 0)
        for (int j = 0; j < 4; j++) {
            TraceEntry *e = &t->entries[S->first + j];
            e->lazy = 1;
            e->data = NULL;
            e->slot = -1;
        }
    S->first = -1;
    if (S->data) {
        UNPOISON(S->data, sizeof(float) * S->cap);
        if (keep) {
            POISON(S->data, sizeof(float) * S->cap);
            return;
        }
    }
    free(S->data);
    S->data = NULL;
    S->cap = 0;
}

void trace_maps_drop(Trace *t, int keep)
{
    for (int s = 0; s < t->n_slots; s++)
        slot_release(t, s, keep);
    if (!keep) {
        free(t->slots);
        t->slots = NULL;
        t->n_slots = t->cap_slots = 0;
    }
}

void trace_set_map_budget(Trace *t, size_t bytes)
{
    t->map_budget = bytes;
    if (t->n_slots > slot_limit(t))
        trace_maps_drop(t, 1);
}

/* Gives the head whose T_SCORES entry is s0 a slot of its own: a free one, a new one while
 * the cache is under its limit, else (evict) the slot of the head read least recently, whose
 * block is freed (a stale pointer into it is then a use after free that ASan reports). Its
 * four entries point into the slot's block, still lazy until compute(). 0, or -1 out of
 * memory (or full, without evict). */
static int take_slot(Trace *t, int s0, int may_evict)
{
    TraceEntry *e = &t->entries[s0];
    size_t len = (size_t)e->rows * e->cols, need = 4 * (len ? len : 1);
    int s = -1, limit = slot_limit(t);
    while (t->n_slots > limit) /* free at this run's start (a longer run: fewer, larger) */
        slot_release(t, --t->n_slots, 0);
    for (int i = 0; i < t->n_slots && s < 0; i++)
        if (t->slots[i].first < 0)
            s = i;
    if (s < 0 && t->n_slots < limit) {
        if (t->n_slots == t->cap_slots) {
            int cap = t->cap_slots ? 2 * t->cap_slots : 16;
            TraceSlot *g = realloc(t->slots, sizeof *g * (size_t)cap);
            if (!g)
                return -1;
            t->slots = g;
            t->cap_slots = cap;
        }
        s = t->n_slots++;
        t->slots[s] = (TraceSlot){NULL, 0, -1, 0};
    }
    int evict = s < 0;
    if (evict && !may_evict)
        return -1;
    if (evict) /* full: the least recently read */
        for (int i = 0; i < t->n_slots; i++)
            if (s < 0 || t->slots[i].used < t->slots[s].used)
                s = i;
    TraceSlot *S = &t->slots[s];
    slot_release(t, s, !evict && S->cap >= need);
    if (!S->data) {
        S->data = malloc(sizeof(float) * need);
        if (!S->data)
            return -1;
        S->cap = need;
        POISON(S->data, sizeof(float) * need);
    }
    UNPOISON(S->data, sizeof(float) * need);
    S->first = s0;
    S->used = ++t->clock;
    for (int j = 0; j < 4; j++) {
        e[j].data = S->data + (size_t)j * len;
        e[j].slot = s;
    }
    return 0;
}

/* take_slot, evicting when full: a head about to be read. */
static int take(Trace *t, int s0) { return take_slot(t, s0, 1); }

void trace_want_maps(Trace *t, int want) { t->maps_eager = want != 0; }

float *trace_map_claim(Trace *t, int i)
{
    if (i < 0 || i + 3 >= t->n_entries || t->entries[i].kind != T_SCORES ||
        !t->entries[i].lazy || take_slot(t, i, 0))
        return NULL;
    for (int j = 0; j < 4; j++) /* the forward writes them before anyone reads the trace */
        t->entries[i + j].lazy = 0;
    return t->entries[i].data;
}

/* A head's four n×n steps, which the forward records in a row (scores, scaled, masked,
 * weights) without writing them, are computed into the slot take() gave them from the head's
 * q and k (after RoPE when the run has it), v, the sublayer's mask and the run's scale
 * exactly as the forward computed its output from them: every element the same bits as if
 * the forward had kept it. Reads only entries that are not maps: heads may be computed at once
 * on several threads. */
static void compute(Trace *t, int s)
{
    TraceEntry *e = &t->entries[s];
    const TraceEntry *q = trace_find(t, e->stack, e->layer, e->sub, e->head, T_Q_ROT);
    const TraceEntry *k = trace_find(t, e->stack, e->layer, e->sub, e->head, T_K_ROT);
    const TraceEntry *v = trace_find(t, e->stack, e->layer, e->sub, e->head, T_V);
    const TraceEntry *mask = trace_find(t, e->stack, e->layer, e->sub, -1, T_MASK);
    if (!q)
        q = trace_find(t, e->stack, e->layer, e->sub, e->head, T_Q);
    if (!k)
        k = trace_find(t, e->stack, e->layer, e->sub, e->head, T_K);
    for (int j = 0; j < 4; j++)
        e[j].lazy = 0;
    /* never: the forward records them before the head's steps (a release build shows zeros
     * rather than stop the player; a debug build stops here) */
    ATTEND_ASSERT(q && k && v && q->rows == e->rows && k->rows == e->cols && q->cols == k->cols);
    if (!q || !k || !v) {
        for (int j = 0; j < 4; j++)
            memset(e[j].data, 0, sizeof(float) * (size_t)e[j].rows * e[j].cols);
        return;
    }
    float scale = model_sdpa_scale(t->ctl.scale, t->model->cfg.d_head);
    float *pk = malloc(sizeof(float) * MODEL_SDPA_BAND(e->cols, q->cols));
    if (pk) /* a band of rows at a time, K packed once: the same bits */
        model_sdpa_maps(e[0].data, e[1].data, e[2].data, e[3].data, NULL, pk, q->data, k->data,
                        v->data, mask ? mask->data : NULL, NULL, e->rows, e->cols, q->cols,
                        v->cols, scale);
    else
        model_sdpa(e[0].data, e[1].data, e[2].data, e[3].data, NULL, q->data, k->data, v->data,
                   mask ? mask->data : NULL, e->rows, e->cols, q->cols, v->cols, scale);
    free(pk);
}

const TraceEntry *trace_entry(const Trace *t, int i)
{
    if (i < 0 || i >= t->n_entries)
        return NULL;
    Trace *w = (Trace *)t; /* logically const: the values were always these */
    TraceEntry *e = &w->entries[i];
    if (e->lazy) {
        int s0 = first_of(t, i);
        if (take(w, s0))
            return NULL; /* out of memory: as if absent */
        compute(w, s0);
    } else if (e->slot >= 0) {
        w->slots[e->slot].used = ++w->clock;
    }
    return e;
}

int trace_map_row(const Trace *t, Stack st, int layer, Sublayer sub, int head, TensorKind kind,
                  int row, float *out)
{
    int i = 0;
    for (; i < t->n_entries; i++) {
        const TraceEntry *e = &t->entries[i];
        if (e->kind == kind && e->stack == st && e->layer == layer && e->sub == sub &&
            e->head == head)
            break;
    }
    if (i == t->n_entries || (kind != T_SCORES && kind != T_SCALED && kind != T_MASKED &&
                              kind != T_WEIGHTS))
        return -1;
    const TraceEntry *e = &t->entries[i];
    int nk = e->cols;
    if (row < 0 || row >= e->rows)
        return -1;
    if (!e->lazy) { /* in the cache (or a worked example's): as it is */
        memcpy(out, e->data + (size_t)row * nk, sizeof(float) * (size_t)nk);
        return 0;
    }
    const TraceEntry *q = trace_find(t, st, layer, sub, head, T_Q_ROT);
    const TraceEntry *k = trace_find(t, st, layer, sub, head, T_K_ROT);
    const TraceEntry *mask = trace_find(t, st, layer, sub, -1, T_MASK);
    if (!q)
        q = trace_find(t, st, layer, sub, head, T_Q);
    if (!k)
        k = trace_find(t, st, layer, sub, head, T_K);
    float *buf = malloc(sizeof(float) * 4 * (size_t)nk);
    if (!q || !k || !buf || q->cols != k->cols || k->rows != nk) {
        free(buf);
        return -1;
    }
    /* model_sdpa's steps on one query row: each step's elements are computed alone (the
     * products' chains do not depend on the rows beside them; scaling, the mask and a row's
     * softmax are per element and per row), so the bits are the whole map's */
    float *S = buf, *Ss = S + nk, *Sm = Ss + nk, *A = Sm + nk;
    tensor_matmul_bt(S, q->data + (size_t)row * q->cols, k->data, 1, q->cols, nk);
    tensor_scale_add(Ss, Sm, S, model_sdpa_scale(t->ctl.scale, t->model->cfg.d_head),
                     mask ? mask->data + (size_t)row * nk : NULL, (size_t)nk);
    tensor_softmax_rows_to(A, Sm, 1, nk);
    const float *src = kind == T_SCORES ? S : kind == T_SCALED ? Ss : kind == T_MASKED ? Sm : A;
    memcpy(out, src, sizeof(float) * (size_t)nk);
    free(buf);
    return 0;
}

const TraceEntry *trace_meta(const Trace *t, int i)
{
    return i < 0 || i >= t->n_entries ? NULL : &t->entries[i];
}

typedef struct {
    Trace *t;
    const int *first; /* each lazy head's T_SCORES entry */
    int n;
} FillJob;

static void fill_part(void *ctx, int part, int parts)
{
    const FillJob *J = ctx;
    for (int i = part; i < J->n; i += parts) /* heads dealt round: similar sizes */
        compute(J->t, J->first[i]);
}

int trace_fill_all(const Trace *t)
{
    Trace *w = (Trace *)t; /* logically const, as trace_entry */
    int n = 0, heads = 0, rc = 0;
    for (int i = 0; i < t->n_entries; i++)
        heads += t->entries[i].kind == T_SCORES && (t->entries[i].lazy || t->entries[i].slot >= 0);
    if (heads > slot_limit(t))
        return -1; /* the budget holds fewer: trace_entry fills them one by one */
    int *first = malloc(sizeof(int) * (size_t)(t->n_entries > 0 ? t->n_entries : 1));
    if (!first)
        return -1;
    size_t macs = 0;
    for (int i = 0; i < t->n_entries; i++)
        if (t->entries[i].lazy && t->entries[i].kind == T_SCORES) {
            if (take(w, i)) { /* out of memory: the heads given a slot are still computed */
                rc = -1;
                break;
            }
            first[n++] = i;
            macs += (size_t)t->entries[i].rows * t->entries[i].cols;
        }
    FillJob J = {w, first, n};
    if (macs * 16 >= TENSOR_PAR_MIN_MACS) /* a head at a time to whichever thread is free */
        tensor_par_dyn(fill_part, &J, n);
    else
        fill_part(&J, 0, 1);
    free(first);
    return rc;
}

Stack model_view_stack(const Model *m, int cross)
{
    if (!m || m->cfg.arch == ARCH_DECODER)
        return STACK_DEC;
    return model_view_sub(m, cross) == SUB_CROSS ? STACK_DEC : STACK_ENC;
}

Stack model_self_stack(const Model *m)
{
    return model_view_stack(m, 0);
}

Stack model_output_stack(const Model *m)
{
    return m && m->cfg.arch == ARCH_ENCODER ? STACK_ENC : STACK_DEC;
}

Sublayer model_view_sub(const Model *m, int cross)
{
    return cross && m && m->cfg.arch == ARCH_ENCDEC ? SUB_CROSS : SUB_SELF;
}

int trace_view_rows(const Trace *t, int cross, const int **ids)
{
    int tgt = model_view_sub(t->model, cross) == SUB_CROSS;
    if (ids)
        *ids = tgt ? t->tgt : t->src;
    return tgt ? t->m : t->n;
}
