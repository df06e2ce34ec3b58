/* live.c - the live state of the explanation widgets (worked, scaling, kvcache, cost,
 * params): from a Widget's start and the learner's toggles to the numbers explain.c computes,
 * published as NamedValues for {{x NAME}}. Run through widget_run by check-lessons, the quiz
 * and the player, so prose and screen read the same numbers. No curses, no printing. */
#include "live.h"
#include "probe.h"

#include "hf_model.h"
#include "repeat_run.h"
#include "watch.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const WORKED_STEPS[LIVE_WORKED_STEPS] = {
    "Q, K, V", "QKᵀ", "÷√d_k", "+M", "softmax", "·V"};

const char *live_worked_step_name(int step)
{
    return step >= 0 && step < LIVE_WORKED_STEPS ? WORKED_STEPS[step] : "?";
}

/* The configuration's own choice of KV heads, and the grouped one when it has none. */
static long long kv_heads_gqa(const ParamConfig *base)
{
    if (base->n_kv_heads < base->n_heads)
        return base->n_kv_heads;
    long long g = base->n_heads / 4;
    return g < 1 ? 1 : g;
}

static void base_params(const Widget *w, const Model *m, ParamConfig *pc)
{
    if (w->has_params)
        *pc = w->params;
    else if (hf_model_param_config(m, pc)) /* a Hugging Face model: its files' weights */
        explain_param_config(&m->cfg, pc);
}

void live_start(LiveWidget *l, const Widget *w, const Model *m)
{
    memset(l, 0, sizeof *l);
    const WidgetStart *s = &w->start;
    l->s.causal = s->causal > 0 ? s->causal : 0; /* worked: 2 is the mask after softmax */
    l->s.scale = s->scale;
    l->s.step = s->step;
    if (w->kind == W_TRAIN)
        l->s.causal = s->causal != 0; /* the masked run unless the page starts the cheat */
    if (w->kind == W_KVCACHE && l->s.step < 1)
        l->s.step = 1;
    l->s.sample = s->temperature > 0.0f;
    l->s.temp = l->s.sample ? s->temperature : (float)LIVE_TEMP_DEFAULT;
    l->s.seed = s->seed;
    l->s.d_k = s->d_k > 0 ? s->d_k : 64;
    l->s.n = s->n > 0 ? s->n : 16;
    ParamConfig pc;
    memset(&pc, 0, sizeof pc);
    if (w->kind == W_PARAMS && (w->has_params || m))
        base_params(w, m, &pc);
    l->s.tied = s->tied >= 0 ? s->tied : pc.tied;
    l->s.gqa = s->gqa >= 0 ? s->gqa : pc.n_kv_heads < pc.n_heads;
}

void live_free(LiveWidget *l)
{
    trace_free(l->worked);
    l->worked = NULL;
    probe_free(&l->probe);
    l->ok = 0;
}

static int range_err(char *err, size_t errlen, const char *what, long long v, long long lo,
                     long long hi)
{
    snprintf(err, errlen, "%s %lld is outside %lld..%lld", what, v, lo, hi);
    return -1;
}

static int run_worked(LiveWidget *l, const Widget *w, char *err, size_t errlen)
{
    const WorkedSpec *ws = &w->worked;
    assert(ws->nq <= WORKED_MAX && ws->nk <= WORKED_MAX && ws->dk <= WORKED_MAX &&
           ws->dv <= WORKED_MAX);
    if (l->s.step < 0 || l->s.step >= LIVE_WORKED_STEPS)
        return range_err(err, errlen, "step", l->s.step, 0, LIVE_WORKED_STEPS - 1);
    trace_free(l->worked);
    l->worked = model_worked(ws->q, ws->k, ws->v, ws->nq, ws->nk, ws->dk, ws->dv, l->s.causal,
                             l->s.scale);
    if (!l->worked) {
        snprintf(err, errlen, "cannot run the worked example (out of memory or bad shapes)");
        return -1;
    }
    explain_put(&l->nv, "n_q", ws->nq, 1);
    explain_put(&l->nv, "n_k", ws->nk, 1);
    explain_put(&l->nv, "d_k", ws->dk, 1);
    explain_put(&l->nv, "d_v", ws->dv, 1);
    explain_put(&l->nv, "sqrt_d_k", sqrt((double)ws->dk), 0);
    explain_put(&l->nv, "step", l->s.step + 1, 1);
    explain_put(&l->nv, "causal", l->s.causal, 1); /* the m and s toggles, for {{if}} guards */
    explain_put(&l->nv, "scale", l->s.scale, 1);
    return 0;
}

static int run_params(LiveWidget *l, const Widget *w, const Model *m, char *err, size_t errlen)
{
    ParamConfig base;
    if (!w->has_params && !m) {
        snprintf(err, errlen, "no configuration: give \"config\" or a model");
        return -1;
    }
    base_params(w, m, &base);
    l->pc = base;
    l->pc.tied = l->s.tied ? 1 : 0;
    l->pc.n_kv_heads = l->s.gqa ? kv_heads_gqa(&base) : base.n_heads;
    l->n_rows = explain_params(&l->pc, l->rows, &l->total, &l->nv);
    explain_put(&l->nv, "n_kv_heads", (double)l->pc.n_kv_heads, 1);
    explain_put(&l->nv, "n_heads", (double)l->pc.n_heads, 1);
    /* the quantities of the config and the projections' widths (the config exercise) */
    explain_put(&l->nv, "d_model", (double)l->pc.d_model, 1);
    explain_put(&l->nv, "d_head", (double)l->pc.d_head, 1);
    explain_put(&l->nv, "n_layers", (double)l->pc.n_layers, 1);
    explain_put(&l->nv, "d_ff", (double)l->pc.d_ff, 1);
    explain_put(&l->nv, "vocab", (double)l->pc.vocab, 1);
    explain_put(&l->nv, "q_out", (double)(l->pc.n_heads * l->pc.d_head), 1);
    explain_put(&l->nv, "kv_out", (double)(l->pc.n_kv_heads * l->pc.d_head), 1);
    explain_put(&l->nv, "qkv_out", (double)((l->pc.n_heads + 2 * l->pc.n_kv_heads) * l->pc.d_head), 1);
    explain_put(&l->nv, "tied", l->pc.tied, 1);
    return 0;
}

int live_train_steps(const Widget *w)
{
    WatchOpts o;
    watch_opts_defaults(&o);
    return w && w->kind == W_TRAIN && w->train_steps > 0 ? w->train_steps : o.steps;
}

/* The train widget's sizes (live_watch_opts): what one step sees, the model it trains. */
static int run_train(LiveWidget *l, const Widget *w, const Model *m, char *err, size_t errlen)
{
    if (!m) {
        snprintf(err, errlen, "the train widget needs a model for its vocabulary");
        return -1;
    }
    TrainOpts ro;
    int every;
    char rerr[300];
    if (repeat_recipe_read(m, &ro, &every, rerr, sizeof rerr) == 0) {
        /* a model trained on the repeated-sequence task: its recorded recipe, replayed or
         * trained again live (repeat_run.c) */
        HeadsHistory h;
        int phase = heads_history_read(m, &h, rerr, sizeof rerr) ? -1 : heads_history_phase(&h);
        heads_history_free(&h);
        explain_put(&l->nv, "repeat", 1, 1);
        explain_put(&l->nv, "steps", ro.steps, 1);
        explain_put(&l->nv, "batch", ro.batch, 1);
        explain_put(&l->nv, "seq_len", ro.seq_len, 1);
        explain_put(&l->nv, "tokens_per_step", (double)ro.batch * ro.seq_len, 1);
        explain_put(&l->nv, "d_model", m->cfg.d_model, 1);
        explain_put(&l->nv, "heads", m->cfg.n_heads, 1);
        explain_put(&l->nv, "layers", m->cfg.n_layers, 1);
        explain_put(&l->nv, "heads_total", m->cfg.n_heads * m->cfg.n_layers, 1);
        explain_put(&l->nv, "weights", (double)m->n_floats, 1);
        explain_put(&l->nv, "history_every", every, 1);
        explain_put(&l->nv, "phase", phase, 1);
        explain_put(&l->nv, "causal", 1, 1);
        return 0;
    }
    WatchOpts o;
    watch_opts_defaults(&o);
    o.steps = live_train_steps(w);
    ModelConfig mc;
    watch_model_config(&o, m->cfg.vocab_size, &mc);
    explain_put(&l->nv, "steps", o.steps, 1);
    explain_put(&l->nv, "batch", o.batch, 1);
    explain_put(&l->nv, "seq_len", o.seq_len, 1);
    explain_put(&l->nv, "tokens_per_step", (double)o.batch * o.seq_len, 1);
    explain_put(&l->nv, "d_model", o.d_model, 1);
    explain_put(&l->nv, "heads", o.n_heads, 1);
    explain_put(&l->nv, "layers", o.n_layers, 1);
    explain_put(&l->nv, "heads_total", o.n_heads * o.n_layers, 1);
    explain_put(&l->nv, "weights", (double)model_config_param_count(&mc), 1);
    explain_put(&l->nv, "causal", l->s.causal, 1);
    return 0;
}

/* The generate widget: the prompt ids (n tokens) continued by l->s.step tokens. */
static int run_generate(LiveWidget *l, const Model *m, const int *ids, int n, Trace *prev,
                        Trace *cur, char *err, size_t errlen)
{
    if (!m || !prev || !cur || !ids) {
        snprintf(err, errlen, "the generate widget needs a model and a prompt");
        return -1;
    }
    if (l->s.sample && !(l->s.temp > 0.0f && l->s.temp <= LIVE_TEMP_MAX))
        return range_err(err, errlen, "temperature", (long long)l->s.temp, 0,
                         (long long)LIVE_TEMP_MAX);
    int cap = LIVE_GEN_MAX;
    cap = cur->max_n < cap ? cur->max_n : cap;
    cap = prev->max_n < cap ? prev->max_n : cap;
    GenSampling gs = {l->s.sample ? l->s.temp : 0.0f, (uint64_t)l->s.seed};
    if (gen_run(m, ids, n, l->s.step, &gs, l->gen_ids, cap, cur, prev, &l->gen, err, errlen))
        return -1;
    const GenStep *g = &l->gen;
    const ModelConfig *c = &m->cfg;
    explain_put(&l->nv, "step", g->step, 1);
    explain_put(&l->nv, "n", g->n, 1);
    explain_put(&l->nv, "n_prompt", g->n_prompt, 1);
    explain_put(&l->nv, "cached_rows", g->n, 1);
    explain_put(&l->nv, "reused_rows", g->step > 0 ? g->n - 1 : 0, 1);
    explain_put(&l->nv, "new_rows", g->step > 0 ? 1 : g->n, 1);
    explain_put(&l->nv, "next_p", g->next_p, 0);
    explain_put(&l->nv, "top_p", g->n_top ? g->top_p[0] : 0.0, 0);
    explain_put(&l->nv, "greedy", !l->s.sample, 1);
    explain_put(&l->nv, "temperature", l->s.sample ? l->s.temp : 0.0, 0);
    explain_put(&l->nv, "seed", l->s.seed, 1);
    explain_put(&l->nv, "end", g->end, 1);
    explain_put(&l->nv, "reuse_drift", g->reuse_drift, 0);
    explain_put(&l->nv, "rows_cached", (double)g->rows_cached, 1);
    explain_put(&l->nv, "rows_full", (double)g->rows_full, 1);
    explain_put(&l->nv, "work_cached", (double)g->macs_cached, 1);
    explain_put(&l->nv, "work_full", (double)g->macs_full, 1);
    explain_put(&l->nv, "saving", (double)g->macs_full / (double)g->macs_cached, 0);
    explain_put(&l->nv, "cache_floats", 2.0 * c->n_layers * g->n * c->n_heads * c->d_head, 1);
    return 0;
}

int live_run(LiveWidget *l, const Widget *w, const Model *m, const int *ids, int n,
             Trace *full, Trace *prefix, char *err, size_t errlen)
{
    l->ok = 0;
    l->nv.n = 0;
    int rc = 0;
    switch (w->kind) {
    case W_WORKED:
        rc = run_worked(l, w, err, errlen);
        break;
    case W_SCALING:
        if (l->s.d_k < 1 || l->s.d_k > LIVE_DK_MAX)
            return range_err(err, errlen, "d_k", l->s.d_k, 1, LIVE_DK_MAX);
        rc = explain_scaling(&l->scaling, l->s.d_k, LIVE_SCALING_SEED, &l->nv);
        if (rc)
            snprintf(err, errlen, "d_k %d: cannot run the experiment", l->s.d_k);
        else {
            const ScalingDemo *d = &l->scaling;
            explain_put(&l->nv, "scale", l->s.scale, 1);
            explain_put(&l->nv, "max_weight", l->s.scale ? d->max_scaled : d->max_raw, 0);
            explain_put(&l->nv, "entropy", l->s.scale ? d->entropy_scaled : d->entropy_raw, 0);
        }
        break;
    case W_KVCACHE:
        if (!m || !full || !prefix || !ids) {
            snprintf(err, errlen, "the KV cache widget needs a model and a sentence");
            return -1;
        }
        if (l->s.step < 1 || l->s.step > n)
            return range_err(err, errlen, "step", l->s.step, 1, n);
        l->n_tokens = n;
        rc = explain_kvcache(m, ids, n, l->s.step, full, prefix, &l->kv, &l->nv, err, errlen);
        if (!rc) {
            explain_put(&l->nv, "n", n, 1);
            explain_put(&l->nv, "cached_rows", l->s.step, 1);
        }
        break;
    case W_COST:
        if (!m) {
            snprintf(err, errlen, "the cost widget needs a model for its sizes");
            return -1;
        }
        if (l->s.n < 1 || l->s.n > LIVE_N_MAX)
            return range_err(err, errlen, "N", l->s.n, 1, LIVE_N_MAX);
        explain_cost(&m->cfg, l->s.n, &l->cost, &l->nv);
        explain_put(&l->nv, "heads", m->cfg.n_heads, 1);
        explain_put(&l->nv, "layers", m->cfg.n_layers, 1);
        explain_put(&l->nv, "d_k", m->cfg.d_head, 1);
        explain_put(&l->nv, "qk_share",
                    100.0 * (double)l->cost.qk_macs / (double)l->cost.forward_macs, 0);
        break;
    case W_PARAMS:
        rc = run_params(l, w, m, err, errlen);
        break;
    case W_TRAIN:
        rc = run_train(l, w, m, err, errlen);
        break;
    case W_GENERATE:
        rc = run_generate(l, m, ids, n, full, prefix, err, errlen);
        break;
    case W_LAB: /* nothing to compute: the learner's code runs in attend lab, not here */
        break;
    default:
        snprintf(err, errlen, "%s is not an explanation widget", course_widget_name(w->kind));
        return -1;
    }
    if (rc)
        return -1;
    l->ok = 1;
    return 0;
}
