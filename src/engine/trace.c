/* trace.c - reading a Trace: its tensors found by position or name (trace_find,
 * trace_find_name), the four n×n steps of a head filled in when first read (trace_entry, with
 * sdpa.c's kernel), which stack a view shows, and the names, symbols and formulas of the
 * tensor kinds. */
#include <string.h>

#include "attend_assert.h"
#include "model.h"

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

/* A head's four n×n steps, which the forward records in a row (scores, scaled, masked,
 * weights) without writing them, are computed from the head's q and k (after RoPE when the
 * run has it), v, the sublayer's mask and the run's scale exactly as the forward computed its
 * output from them: every element the same bits as if the forward had kept it. */
static void fill(Trace *t, int i)
{
    TensorKind kind = t->entries[i].kind;
    int s = i - (kind == T_SCALED ? 1 : kind == T_MASKED ? 2 : kind == T_WEIGHTS ? 3 : 0);
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
    model_sdpa(e[0].data, e[1].data, e[2].data, e[3].data, NULL, q->data, k->data, v->data,
               mask ? mask->data : NULL, e->rows, e->cols, q->cols, v->cols,
               model_sdpa_scale(t->ctl.scale, t->model->cfg.d_head));
}

const TraceEntry *trace_entry(const Trace *t, int i)
{
    if (i < 0 || i >= t->n_entries)
        return NULL;
    if (t->entries[i].lazy)
        fill((Trace *)t, i); /* logically const: the values were always these */
    return &t->entries[i];
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
