/* watch.c - "watch attention learn": a small decoder trained step by step and measured as it
 * goes (train and held-out loss, the best head's previous-token score), on the Trainer API. */
#include "watch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct WatchRun {
    WatchOpts o;
    TrainOpts to;
    Model m;
    Corpus train, eval;
    Trainer *t;
    Trace *trace;
    char err[512];
};

void watch_opts_defaults(WatchOpts *o)
{
    memset(o, 0, sizeof *o);
    o->d_model = 64;
    o->n_heads = 4;
    o->n_layers = 2;
    o->d_ff = 256;
    o->max_len = 32;
    o->steps = 600;
    o->batch = 16;
    o->seq_len = 32;
    o->warmup = 50;
    o->lr = 0.02f;
    o->seed = 1;
    o->causal = 1;
    o->eval_examples = 40;
    o->stat_lines = 60;
}

static void train_opts_of(const WatchOpts *o, TrainOpts *to)
{
    train_opts_defaults(to);
    to->steps = o->steps;
    to->batch = o->batch;
    to->seq_len = o->seq_len;
    to->warmup = o->warmup;
    to->lr = o->lr;
    to->seed = o->seed;
    to->causal = o->causal;
    to->threads = 1;
}

void watch_model_config(const WatchOpts *o, int vocab_size, ModelConfig *mc)
{
    model_config_defaults(mc);
    mc->arch = ARCH_DECODER;
    mc->vocab_size = vocab_size;
    mc->d_model = o->d_model;
    mc->n_heads = o->n_heads;
    mc->d_head = o->d_model / o->n_heads;
    mc->n_layers = o->n_layers;
    mc->d_ff = o->d_ff;
    mc->max_len = o->max_len;
    mc->pe = PE_LEARNED;
    snprintf(mc->name, sizeof mc->name, "watch");
    snprintf(mc->description, sizeof mc->description,
             "a small decoder trained live by attend's train widget (watch attention learn)");
}

WatchRun *watch_new(const char *vocab_path, const char *corpus_path, const char *eval_path,
                    const WatchOpts *o, char *err, size_t errlen)
{
    WatchRun *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->o = *o;
    ModelConfig mc;
    Vocab v;
    if (vocab_load_file(&v, vocab_path, err, errlen)) {
        free(w);
        return NULL;
    }
    watch_model_config(o, v.n, &mc);
    char msg[400];
    if (model_config_check(&mc, msg, sizeof msg) || model_new(&w->m, &mc, &v, msg, sizeof msg)) {
        snprintf(err, errlen, "watch model: %s", msg);
        vocab_free(&v);
        free(w);
        return NULL;
    }
    if (corpus_load_lm(&w->train, corpus_path, &w->m.vocab, err, errlen)) {
        model_free(&w->m);
        free(w);
        return NULL;
    }
    if (corpus_load_lm(&w->eval, eval_path, &w->m.vocab, err, errlen)) {
        corpus_free(&w->train);
        model_free(&w->m);
        free(w);
        return NULL;
    }
    w->trace = trace_new(&w->m, mc.max_len, mc.max_len);
    if (!w->trace || watch_reset(w, o->causal, err, errlen)) {
        if (!w->trace)
            snprintf(err, errlen, "out of memory");
        watch_free(w);
        return NULL;
    }
    return w;
}

int watch_reset(WatchRun *w, int causal, char *err, size_t errlen)
{
    if (w->t)
        train_free(w->t);
    w->o.causal = causal;
    train_opts_of(&w->o, &w->to);
    w->t = train_new(&w->m, &w->train, &w->to, 1, err, errlen);
    return w->t ? 0 : -1;
}

int watch_step(WatchRun *w)
{
    int rc = train_step(w->t);
    if (rc < 0)
        snprintf(w->err, sizeof w->err, "%s", train_error(w->t));
    return rc;
}

/* The previous-token score of every self-attention head (layer * n_heads + head) as
 * train_head_stats computes it, over the held-out sentences. 0 or -1. */
static int watch_head_prev(WatchRun *w, double *prev)
{
    int nh = w->m.cfg.n_layers * w->m.cfg.n_heads;
    HeadStat *hs = calloc((size_t)nh, sizeof *hs);
    if (!hs || train_head_stats(&w->m, &w->eval, w->o.stat_lines, 0, hs)) {
        free(hs);
        snprintf(w->err, sizeof w->err, "head statistics failed");
        return -1;
    }
    for (int k = 0; k < nh; k++)
        prev[k] = hs[k].prev;
    free(hs);
    return 0;
}

int watch_loss(WatchRun *w, int heldout, double *loss)
{
    *loss = heldout ? train_eval_loss(&w->m, &w->eval, &w->to, 1, w->o.eval_examples)
                    : train_eval_loss(&w->m, &w->train, &w->to, w->o.causal, w->o.eval_examples);
    return *loss < 0 ? -1 : 0;
}

/* The two losses of watch_measure alone. 0 or -1. */
static int watch_losses(WatchRun *w, double *train_loss, double *heldout_loss)
{
    int a = watch_loss(w, 0, train_loss), b = watch_loss(w, 1, heldout_loss);
    return a || b ? -1 : 0;
}

int watch_best_head(WatchRun *w, double *score, int *layer, int *head)
{
    double prev[64];
    int nh = w->m.cfg.n_layers * w->m.cfg.n_heads;
    if (nh > 64 || watch_head_prev(w, prev))
        return -1;
    *score = -1;
    for (int k = 0; k < nh; k++)
        if (prev[k] > *score) {
            *score = prev[k];
            *layer = k / w->m.cfg.n_heads;
            *head = k % w->m.cfg.n_heads;
        }
    return 0;
}

int watch_measure(WatchRun *w, WatchPoint *p)
{
    memset(p, 0, sizeof *p);
    p->step = train_step_count(w->t);
    if (watch_losses(w, &p->train_loss, &p->heldout_loss))
        return -1;
    return watch_best_head(w, &p->best_prev, &p->best_layer, &p->best_head);
}

int watch_steps_done(const WatchRun *w) { return train_step_count(w->t); }
long watch_tokens_done(const WatchRun *w) { return train_tokens_done(w->t); }
const Model *watch_model(const WatchRun *w) { return &w->m; }
const WatchOpts *watch_opts(const WatchRun *w) { return &w->o; }
const char *watch_error(const WatchRun *w) { return w->err; }

int watch_generate(const WatchRun *w, const char *prompt, int max_new, char *out, size_t outlen)
{
    int L = w->m.cfg.max_len, V = w->m.cfg.vocab_size;
    int ids[256];
    int n = vocab_tokenize(&w->m.vocab, prompt, ids, L < 256 ? L : 256, NULL);
    if (n < 1 || !outlen)
        return -1;
    Controls c;
    model_default_controls(&w->m, &c);
    out[0] = 0;
    size_t used = 0;
    int added = 0;
    char msg[256];
    while (added < max_new && n < L) {
        if (model_forward(&w->m, ids, n, NULL, 0, &c, w->trace, msg, sizeof msg))
            return -1;
        const TraceEntry *lg = trace_find(w->trace, STACK_DEC, -1, SUB_NONE, -1, T_LOGITS);
        if (!lg) /* an encoder's logits */
            lg = trace_find(w->trace, STACK_ENC, -1, SUB_NONE, -1, T_LOGITS);
        if (!lg)
            return -1;
        const float *row = lg->data + (size_t)(n - 1) * lg->cols;
        int best = 0;
        for (int j = 1; j < V; j++)
            if (row[j] > row[best])
                best = j;
        ids[n++] = best;
        added++;
        const char *word = vocab_word(&w->m.vocab, best);
        int k = snprintf(out + used, outlen - used, "%s%s", used ? " " : "", word);
        if (k < 0 || (size_t)k >= outlen - used)
            break;
        used += (size_t)k;
        if (!strcmp(word, "."))
            break;
    }
    return added;
}

int watch_save(WatchRun *w, const char *path, char *err, size_t errlen)
{
    return model_save(&w->m, path, err, errlen);
}

void watch_free(WatchRun *w)
{
    if (!w)
        return;
    train_free(w->t);
    trace_free(w->trace);
    corpus_free(&w->train);
    corpus_free(&w->eval);
    model_free(&w->m);
    free(w);
}
