/* describe_live.c - the words for the explanation widgets (describe.h): the worked example's
 * step, the sqrt(d_k) experiment, the KV cache, the cost of attention, the parameter count,
 * the train widget's schedule and the generate widget's step, from the numbers live.c
 * computed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "describe_live.h"
#include "lab.h"


static double nv(const LiveWidget *l, const char *name)
{
    const NamedValue *v = explain_get(&l->nv, name);
    return v ? v->value : 0.0;
}

static void floats(DBuf *b, const float *x, int n)
{
    for (int i = 0; i < n; i++)
        dbuf_put(b, "%s%.2f", i ? ", " : "", (double)x[i]);
}

static void worked_words(const WidgetIO *io, DBuf *b)
{
    const LiveWidget *l = io->live;
    const Trace *t = l->worked;
    const WorkedSpec *ws = &io->w->worked;
    dbuf_put(b, "Worked example: %d queries, %d keys, d_k %d, d_v %d; mask: %s; scaling by "
                "1/sqrt(d_k): %s.\nStep %d of %d: %s.\n", ws->nq, ws->nk, ws->dk, ws->dv,
             l->s.causal == 2 ? "causal, applied after softmax (the mistake: rows need not sum to 1)"
             : l->s.causal ? "causal" : "none", l->s.scale ? "on" : "off", l->s.step + 1,
             LIVE_WORKED_STEPS, live_worked_step_name(l->s.step));
    if (!t)
        return;
    WidgetIO wio = *io;
    wio.tr.t = (Trace *)t;
    wio.layer = wio.head = wio.cross = 0;
#define E(k) trace_find(t, STACK_DEC, 0, SUB_SELF, (k) == T_MASK ? -1 : 0, (k))
    static const TensorKind STEP_KIND[LIVE_WORKED_STEPS] = {T_Q, T_SCORES, T_SCALED, T_MASKED,
                                                            T_WEIGHTS, T_HEAD_OUT};
    int s = l->s.step < 0 ? 0 : l->s.step >= LIVE_WORKED_STEPS ? LIVE_WORKED_STEPS - 1
                                                                 : l->s.step;
    if (STEP_KIND[s] == T_WEIGHTS) {
        const TraceEntry *W = E(T_WEIGHTS);
        if (W)
            drows(&wio, t, W, E(T_MASK), 0, b);
        return;
    }
    static const TensorKind QKV[3] = {T_Q, T_K, T_V};
    for (int i = 0; i < (s == 0 ? 3 : 1); i++) {
        const TraceEntry *e = E(s == 0 ? QKV[i] : STEP_KIND[s]);
        if (e)
            dtable(&wio, t, e, b);
    }
#undef E
}

static void scaling_words(const LiveWidget *l, DBuf *b)
{
    const ScalingDemo *d = &l->scaling;
    dbuf_put(b, "The sqrt(d_k) experiment: d_k = %d, one query against %d random keys. The "
                "model %s its scores.\n", d->d_k, SCALING_KEYS,
             l->s.scale ? "scales" : "does not scale");
    dbuf_put(b, "Raw scores q.k: ");
    floats(b, d->raw, SCALING_KEYS);
    dbuf_put(b, ".\nScaled by 1/sqrt(d_k) = 1/%.2f: ", sqrt((double)d->d_k));
    floats(b, d->scaled, SCALING_KEYS);
    dbuf_put(b, ".\nSoftmax of the raw scores: ");
    floats(b, d->w_raw, SCALING_KEYS);
    dbuf_put(b, ".\nSoftmax of the scaled scores: ");
    floats(b, d->w_scaled, SCALING_KEYS);
    dbuf_put(b, ".\nVariance of q.k over many pairs: raw %.2f, scaled %.2f. Largest weight: raw "
                "%.2f, scaled %.2f. Entropy: raw %.2f bits, scaled %.2f bits (uniform: %.2f).\n",
             d->var_raw, d->var_scaled, (double)d->max_raw, (double)d->max_scaled,
             d->entropy_raw, d->entropy_scaled, log2((double)SCALING_KEYS));
}

static void kvcache_words(const WidgetIO *io, DBuf *b)
{
    const LiveWidget *l = io->live;
    const KvCacheStep *k = &l->kv;
    dbuf_put(b, "KV cache: token %d of %d is being produced", k->step, l->n_tokens);
    if (io->tr.t && io->tr.t->model && k->step >= 1 && k->step <= io->tr.t->n)
        dbuf_put(b, " (\"%s\")", vocab_word(&io->m->vocab, io->tr.t->src[k->step - 1]));
    dbuf_put(b, ".\nThis token costs %lld multiply-adds with the cache, %lld without; so far "
                "%lld with, %lld without (%.1f times less work). The cache holds %lld floats.\n",
             k->work_cached, k->work_full, k->total_cached, k->total_full,
             k->total_cached ? (double)k->total_full / (double)k->total_cached : 0.0,
             k->cache_floats);
    dbuf_put(b, "Cached keys differ from a full run by %.2g; the newest row of weights by "
                "%.2g.\n", (double)k->k_drift, (double)k->row_drift);
}

/* A lab page: the commands (the check itself runs outside, in attend lab). */
static void lab_words(const Widget *w, DBuf *b)
{
    const LabDef *d = lab_find(w->lab);
    if (!d)
        return;
    dbuf_put(b, "Lab %s: %s. Start it with: attend lab start %s. Check it on every save with: "
                "attend lab watch %s %s.py (attend lab hint %s gives hints).\n",
             d->name, d->title, d->name, d->name, d->name, d->name);
}

static void cost_words(const LiveWidget *l, DBuf *b)
{
    const CostPoint *c = &l->cost;
    dbuf_put(b, "Cost of attention at N = %lld token%s: each head's score matrix has %lld "
                "%s; every head of every layer together holds %lld bytes (%.1f KiB) of "
                "float32 scores. QK^T takes %lld multiply-adds; the whole forward pass %lld.\n",
             c->n, c->n == 1 ? "" : "s", c->score_entries, c->score_entries == 1 ? "entry" : "entries",
             c->score_bytes, (double)c->score_bytes / 1024.0, c->qk_macs,
             c->forward_macs);
}

static void params_words(const LiveWidget *l, DBuf *b)
{
    const ParamConfig *p = &l->pc;
    dbuf_put(b, "Parameters: d_model %lld, %lld layers, %lld query heads and %lld key-value "
                "heads of width %lld, d_ff %lld, vocabulary %lld; embeddings %s.\n",
             p->d_model, p->n_layers, p->n_heads, p->n_kv_heads, p->d_head, p->d_ff, p->vocab,
             p->tied ? "tied to the output layer" : "not tied");
    for (int i = 0; i < l->n_rows; i++)
        dbuf_put(b, "%s: %lld (%s).\n", l->rows[i].name, l->rows[i].count, l->rows[i].formula);
    if (l->total >= 100000000LL)
        dbuf_put(b, "Total: %lld parameters (%.2f billion).\n", l->total, (double)l->total / 1e9);
    else
        dbuf_put(b, "Total: %lld parameters (%.2f million).\n", l->total, (double)l->total / 1e6);
}

static void train_words(const LiveWidget *l, DBuf *b)
{
    if (nv(l, "repeat") > 0) {
        dbuf_put(b, "Train widget on a model trained on repeated random sequences: the replay of "
                    "its recorded training (both copies' losses and every head's score, measured "
                    "every %.0f steps over %.0f steps", nv(l, "history_every"), nv(l, "steps"));
        if (nv(l, "phase") >= 0)
            dbuf_put(b, "; the second-copy loss fell below half its start at step %.0f",
                     nv(l, "phase"));
        dbuf_put(b, "), and its layer-0 previous-token head beside its induction head. Type t to "
                    "train a fresh model of %.0f weights by the same recipe (the reports are "
                    "printed as it goes).\n", nv(l, "weights"));
        return;
    }
    dbuf_put(b, "Train widget: a decoder of d_model %.0f, %.0f layers of %.0f heads (%.0f "
                "weights) trained for %.0f steps of %.0f sequences of %.0f tokens, causal mask "
                "%s while training. Type t to train it to the end (the losses are printed as it "
                "goes), m before that to switch the mask.\n",
             nv(l, "d_model"), nv(l, "layers"), nv(l, "heads"), nv(l, "weights"),
             nv(l, "steps"), nv(l, "batch"), nv(l, "seq_len"), l->s.causal ? "on" : "off");
}

static void generate_words(const WidgetIO *io, DBuf *b)
{
    const LiveWidget *l = io->live;
    const GenStep *g = &l->gen;
    const Vocab *v = &io->m->vocab;
    dbuf_put(b, "Generate, %s: step %d, %d prompt tokens, %d run.\nText so far:",
             l->s.sample ? "sampling" : "greedy", g->step, g->n_prompt, g->n);
    for (int i = 0; i < g->n; i++)
        dbuf_put(b, " %s", vocab_word(v, l->gen_ids[i]));
    dbuf_put(b, ".\n");
    if (l->s.sample)
        dbuf_put(b, "Temperature %.2f, seed %d.\n", (double)l->s.temp, l->s.seed);
    if (g->end)
        dbuf_put(b, "The text is finished.\n");
    else
        dbuf_put(b, "Next token: %s, probability %.3f.\n", vocab_word(v, g->next), g->next_p);
    dbuf_put(b, "Most likely next tokens:");
    for (int i = 0; i < g->n_top; i++)
        dbuf_put(b, "%s %s %.3f", i ? "," : "", vocab_word(v, g->top_id[i]), g->top_p[i]);
    dbuf_put(b, ".\nKey and value rows computed so far: %lld with the cache, %lld without; "
                "multiply-adds %lld with, %lld without.\n",
             g->rows_cached, g->rows_full, g->macs_cached, g->macs_full);
}

void describe_live(const WidgetIO *io, DBuf *b)
{
    const LiveWidget *l = io->live;
    if (!l || !l->ok) {
        dbuf_put(b, "The widget's numbers are not computed.\n");
        return;
    }
    switch (io->w->kind) {
    case W_WORKED: worked_words(io, b); break;
    case W_SCALING: scaling_words(l, b); break;
    case W_KVCACHE: kvcache_words(io, b); break;
    case W_COST: cost_words(l, b); break;
    case W_PARAMS: params_words(l, b); break;
    case W_TRAIN: train_words(l, b); break;
    case W_GENERATE: generate_words(io, b); break;
    case W_LAB: lab_words(io->w, b); break;
    default: break;
    }
}
