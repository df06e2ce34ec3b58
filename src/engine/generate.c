/* generate.c - a decoder writing one token at a time (generate.h): the next-token choice
 * shared by `attend generate` and the generate widget, and the widget's run to a step. */
#include "generate.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "tensor.h"

static int allowed(const Vocab *voc, int j)
{
    return j != voc->pad_id && j != voc->unk_id;
}

int gen_pick(const float *logits, int V, const Vocab *voc, int greedy, float temp, int top_k,
             CorpusRng *rng)
{
    int best = -1;
    for (int j = 0; j < V; j++) {
        if (!allowed(voc, j))
            continue;
        if (best < 0 || logits[j] > logits[best])
            best = j;
    }
    if (greedy)
        return best;
    /* top-k sampling at temperature temp: candidates sorted by logit, largest first */
    int k = top_k > 0 && top_k < V ? top_k : V;
    int *idx = malloc(sizeof(int) * (size_t)k);
    double *p = malloc(sizeof(double) * (size_t)k);
    if (!idx || !p) {
        free(idx);
        free(p);
        return best;
    }
    int nk = 0;
    for (int j = 0; j < V; j++) {
        if (!allowed(voc, j))
            continue;
        int pos = nk < k ? nk++ : k;
        if (pos == k) {
            if (logits[j] <= logits[idx[k - 1]])
                continue;
            pos = k - 1;
        }
        while (pos > 0 && logits[idx[pos - 1]] < logits[j]) {
            idx[pos] = idx[pos - 1];
            pos--;
        }
        idx[pos] = j;
    }
    double sum = 0.0;
    for (int i = 0; i < nk; i++) {
        p[i] = exp((logits[idx[i]] - logits[idx[0]]) / temp);
        sum += p[i];
    }
    double r = (corpus_rng_next(rng) / 4294967296.0) * sum;
    int choice = idx[nk - 1];
    for (int i = 0; i < nk; i++) {
        r -= p[i];
        if (r < 0) {
            choice = idx[i];
            break;
        }
    }
    free(idx);
    free(p);
    return choice;
}

/* The probabilities of the last row (softmax of the logits, and at the temperature over the
 * tokens gen_pick may choose) and the GEN_TOP_K most likely choosable tokens. */
static void gen_top(const Model *m, const float *r, float temp, int next, GenStep *o)
{
    int V = m->cfg.vocab_size;
    const Vocab *voc = &m->vocab;
    double mx = r[0], sum = 0.0, mxa = -INFINITY, sumt = 0.0;
    for (int j = 1; j < V; j++)
        mx = r[j] > mx ? r[j] : mx;
    for (int j = 0; j < V; j++)
        if (allowed(voc, j) && r[j] > mxa)
            mxa = r[j];
    for (int j = 0; j < V; j++) {
        sum += exp(r[j] - mx);
        if (temp > 0.0f && allowed(voc, j))
            sumt += exp((r[j] - mxa) / temp);
    }
    o->n_top = 0;
    for (int k = 0; k < GEN_TOP_K; k++) {
        int best = -1;
        for (int j = 0; j < V; j++) {
            int seen = 0;
            for (int q = 0; q < o->n_top; q++)
                seen |= o->top_id[q] == j;
            if (!seen && allowed(voc, j) && (best < 0 || r[j] > r[best]))
                best = j;
        }
        if (best < 0)
            break;
        o->top_id[k] = best;
        o->top_p[k] = exp(r[best] - mx) / sum;
        o->top_pt[k] = temp > 0.0f ? exp((r[best] - mxa) / temp) / sumt : 0.0;
        o->n_top++;
    }
    o->next_p = exp(r[next] - mx) / sum;
    o->next_pt = temp > 0.0f ? exp((r[next] - mxa) / temp) / sumt : 0.0;
}

/* Max |row i of K and V of a − b| for rows 0..rows-1, over every layer and head. */
static float gen_drift(const Model *m, const Trace *a, const Trace *b, int rows)
{
    float d = 0.0f;
    for (int l = 0; l < m->cfg.n_layers; l++)
        for (int h = 0; h < m->cfg.n_heads; h++)
            for (int kind = 0; kind < 2; kind++) {
                TensorKind k = kind ? T_V : a->ctl.pe == PE_ROPE ? T_K_ROT : T_K;
                const TraceEntry *ea = trace_find(a, STACK_DEC, l, SUB_SELF, h, k);
                const TraceEntry *eb = trace_find(b, STACK_DEC, l, SUB_SELF, h, k);
                if (!ea || !eb)
                    return INFINITY;
                float x = tensor_max_abs_diff(ea->data, eb->data, (size_t)rows * ea->cols);
                d = x > d ? x : d;
            }
    return d;
}

int gen_run(const Model *m, const int *prompt, int n_prompt, int step, const GenSampling *s,
            int *ids, int cap, Trace *cur, Trace *prev, GenStep *out, char *err, size_t errlen)
{
    const ModelConfig *c = &m->cfg;
    assert(m && prompt && s && ids && cur && out);
    memset(out, 0, sizeof *out);
    if (c->arch != ARCH_DECODER) {
        snprintf(err, errlen, "the generate widget needs a decoder-only model");
        return -1;
    }
    if (n_prompt < 1 || n_prompt > c->max_len || n_prompt > cap) {
        snprintf(err, errlen, "the prompt has %d tokens; it needs 1 to %d", n_prompt,
                 c->max_len < cap ? c->max_len : cap);
        return -1;
    }
    if (step < 0 || n_prompt + step > cap || (step > 0 && !prev)) {
        snprintf(err, errlen, "step %d is outside 0..%d", step, cap - n_prompt);
        return -1;
    }
    Controls ctl;
    model_default_controls(m, &ctl);
    ctl.causal = 1;
    CorpusRng rng;
    corpus_rng_seed(&rng, s->seed);
    int eos = vocab_id(&m->vocab, "<eos>"), dot = vocab_id(&m->vocab, ".");
    int V = c->vocab_size, greedy = !(s->temp > 0.0f);
    memcpy(ids, prompt, sizeof(int) * (size_t)n_prompt);
    for (int i = 0; i <= step; i++) {
        int n = n_prompt + i;
        Trace *t = (step - i) % 2 == 0 ? cur : prev;
        if (model_forward(m, ids, n, NULL, 0, &ctl, t, err, errlen))
            return -1;
        const TraceEntry *lg = trace_find(t, STACK_DEC, -1, SUB_NONE, -1, T_LOGITS);
        if (!lg) {
            snprintf(err, errlen, "internal error: no logits traced");
            return -1;
        }
        const float *row = lg->data + (size_t)(n - 1) * V;
        int next = gen_pick(row, V, &m->vocab, greedy, s->temp, 0, &rng);
        int end = (i > 0 && ids[n - 1] == dot) || next == eos || n >= c->max_len;
        out->rows_cached = n;
        out->rows_full += n;
        out->macs_cached += i == 0 ? explain_forward_macs(c, n) : explain_step_macs(c, 1, n);
        out->macs_full += explain_forward_macs(c, n);
        if (i == step) {
            out->step = step;
            out->n_prompt = n_prompt;
            out->n = n;
            out->next = next;
            out->end = end;
            gen_top(m, row, greedy ? 0.0f : s->temp, next, out);
            break;
        }
        if (end) {
            snprintf(err, errlen, "step %d is past the end (the text ends at step %d)", step, i);
            return -1;
        }
        if (n >= cap) {
            snprintf(err, errlen, "step %d is outside 0..%d", step, cap - n_prompt);
            return -1;
        }
        ids[n] = next;
    }
    if (step > 0)
        out->reuse_drift = gen_drift(m, cur, prev, out->n - 1);
    return 0;
}
