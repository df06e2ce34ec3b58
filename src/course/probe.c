/* probe.c - the probe widgets' numbers (probe.h): the logit lens, direct logit attribution,
 * activation patching, attention rollout and attention vs effect, each from src/engine/lens.c
 * on the page's own run. */
#include "probe.h"
#include "model_key.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errf.h"

static void clear(Probe *p)
{
    for (int i = 0; p->attr && i < p->n; i++)
        lens_attribution_free(&p->attr[i]);
    free(p->attr);
    free(p->target);
    free(p->loss);
    free(p->top);
    free(p->heads);
    free(p->case_key);
    free(p->roll);
    for (int k = 0; k < 2; k++) {
        free(p->pair[k].sc);
        free(p->pair[k].hc);
    }
    lens_patch_free(&p->patch);
    memset(p, 0, sizeof *p);
}

void probe_free(Probe **pp)
{
    if (!*pp)
        return;
    clear(*pp);
    free(*pp);
    *pp = NULL;
}

int probe_corrupt(const Widget *w, const Model *m, int *pos, int *tok, char *err, size_t errlen)
{
    *pos = w->start.corrupt_pos;
    return lens_token_parse(m, w->start.corrupt, "corrupt", tok, err, errlen);
}

/* −log softmax(row)[tok] of one row of V logits. */
static double nll(const float *row, int V, int tok)
{
    double mx = row[0], s = 0.0;
    for (int j = 1; j < V; j++)
        mx = row[j] > mx ? row[j] : mx;
    for (int j = 0; j < V; j++)
        s += exp(row[j] - mx);
    return -(row[tok] - mx - log(s));
}

static const float *logits_of(const Model *m, const Trace *t)
{
    const TraceEntry *e = trace_find(t, model_output_stack(m), -1, SUB_NONE, -1, T_LOGITS);
    return e ? e->data : NULL;
}

/* Each head's look, push and knock-out effect at every row (of every layer, or of one). */
static int effect(Probe *p, const Model *m, const Trace *t, char *err, size_t errlen)
{
    int n = p->n, V = m->cfg.vocab_size, H = p->H;
    int l0 = p->layer < 0 ? 0 : p->layer, l1 = p->layer < 0 ? p->L : p->layer + 1;
    p->n_heads = (l1 - l0) * H;
    p->heads = calloc((size_t)n * p->n_heads, sizeof *p->heads);
    p->case_key = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!p->heads || !p->case_key)
        return errf(err, errlen, "out of memory");
    const float *lg = logits_of(m, t);
    if (!lg)
        return errf(err, errlen, "the run has no logits");
    for (int i = 0; i < n; i++)
        p->loss[i] = nll(lg + (size_t)i * V, V, p->target[i]);
    Trace *k = trace_new(m, n, 1);
    if (!k)
        return errf(err, errlen, "out of memory");
    Stack st = model_output_stack(m);
    int rc = 0;
    for (int l = l0; l < l1 && !rc; l++)
        for (int h = 0; h < H && !rc; h++) {
            int hi = (l - l0) * H + h;
            Controls c = t->ctl;
            if (l >= ATTEND_MAX_LAYERS || h >= 64) {
                rc = errf(err, errlen, "head L%d.h%d cannot be knocked out", l, h);
                break;
            }
            c.ablate[l] |= (uint64_t)1 << h;
            c.patch = NULL;
            rc = lens_forward_from(m, t, l, &c, k, err, errlen); /* from layer l's input */
            const float *kl = rc ? NULL : logits_of(m, k);
            const TraceEntry *wt = trace_find(t, st, l, SUB_SELF, h, T_WEIGHTS);
            for (int i = 0; i < n && !rc; i++) {
                ProbeHead *q = &p->heads[(size_t)i * p->n_heads + hi];
                q->layer = l;
                q->head = h;
                q->weight = -1.0;
                q->key = -1;
                for (int j = 0; wt && j < wt->cols; j++)
                    if (wt->data[(size_t)i * wt->cols + j] > q->weight) {
                        q->weight = wt->data[(size_t)i * wt->cols + j];
                        q->key = j;
                    }
                q->dloss = kl ? nll(kl + (size_t)i * V, V, p->target[i]) - p->loss[i] : NAN;
                q->direct = NAN;
                const LensAttribution *a = &p->attr[i];
                for (int x = 0; x < a->n_parts; x++)
                    if (a->parts[x].layer == l && a->parts[x].head == h)
                        q->direct = a->parts[x].value;
            }
        }
    trace_free(k);
    for (int i = 0; i < n && !rc; i++) { /* the case key of each row, and every head's weight */
        ProbeHead *hs = &p->heads[(size_t)i * p->n_heads];
        int key = -1, best = 0;
        for (int j = i - 1; j >= 0 && key < 0; j--)
            if (t->src[j] == t->src[i])
                key = j + 1;
        for (int h = 1; h < p->n_heads; h++)
            if (hs[h].weight > hs[best].weight)
                best = h;
        p->case_key[i] = key >= 0 ? key : hs[best].key;
        for (int h = 0; h < p->n_heads; h++) {
            const TraceEntry *wt = trace_find(t, st, hs[h].layer, SUB_SELF, hs[h].head, T_WEIGHTS);
            hs[h].on_key = wt && p->case_key[i] >= 0 ? wt->data[(size_t)i * wt->cols + p->case_key[i]]
                                                     : NAN;
        }
    }
    return rc;
}

static int patching(Probe *p, const Widget *w, const Model *m, const Trace *t, char *err,
                    size_t errlen)
{
    int n = p->n;
    char why[300];
    if (probe_corrupt(w, m, &p->corrupt_pos, &p->corrupt_tok, why, sizeof why)) {
        /* another model's vocabulary (the learner's): said on the widget, not a failed run */
        p->corrupt_tok = -1;
        snprintf(p->patch_why, sizeof p->patch_why, "%s", why);
        return 0;
    }
    if (p->corrupt_pos >= n) {
        snprintf(p->patch_why, sizeof p->patch_why, "the sentence has no position %d to change "
                 "(it has %d tokens)", p->corrupt_pos, n);
        return 0;
    }
    if (t->src[p->corrupt_pos] == p->corrupt_tok) {
        snprintf(p->patch_why, sizeof p->patch_why, "position %d is \"%s\" already: the two "
                 "runs are one", p->corrupt_pos, vocab_word(&m->vocab, p->corrupt_tok));
        return 0;
    }
    int *bad = malloc(sizeof(int) * (size_t)n);
    if (!bad)
        return errf(err, errlen, "out of memory");
    memcpy(bad, t->src, sizeof(int) * (size_t)n);
    bad[p->corrupt_pos] = p->corrupt_tok;
    char msg[300];
    int rc = lens_patch_layer(m, t->src, bad, n, &t->ctl, p->target[n - 1], n - 1, p->layer,
                              &p->patch, msg, sizeof msg);
    free(bad);
    if (rc) /* the same logit in both runs: nothing to restore, said on the widget */
        snprintf(p->patch_why, sizeof p->patch_why, "%s", msg);
    else
        p->patched = 1;
    return 0;
}

/* The copies' losses, head scores and circuits depend on the weights alone (and the probes
 * its training record gives), yet every redraw and check-lessons' every state runs the pair
 * again: the last few models' are kept under their ModelKey (model_key.h). One thread. */
enum { PAIR_MEMO = 4 };
static struct {
    ModelKey key;
    double first, second;
    HeadScores *sc;
    HeadCircuit *hc;
} pair_memo[PAIR_MEMO];
static int pair_memo_next;

void probe_pair_probe(const Model *m, HeadProbe *hp)
{
    heads_probe_defaults(m, hp);
    const ModelConfig *c = &m->cfg;
    double weights = (double)c->n_layers * 12.0 * c->d_model * c->d_model;
    if (weights < PROBE_PAIR_BIG || hp->n_lens < 1)
        return;
    /* a model of GPT-2 size: one length, two probes (each a forward, a shuffled one and a
     * forward for the losses: about a second on GPT-2-small, where the defaults take ~9 s) */
    int top = (c->max_len - 1) / 2;
    hp->n_probes = 2;
    hp->n_lens = 1;
    hp->lens[0] = top < PROBE_PAIR_LEN ? top : PROBE_PAIR_LEN;
}

/* q's losses, scores and circuits (q->sc and q->hc allocated, L·H each) for m: kept, or
 * computed and kept. 0, or -1 with a message. */
static int pair_measure(ProbeModel *q, const Model *m, char *err, size_t errlen)
{
    size_t n = (size_t)q->L * q->H;
    ModelKey key;
    model_key(m, &key);
    for (int i = 0; i < PAIR_MEMO; i++)
        if (pair_memo[i].sc && model_key_eq(&pair_memo[i].key, &key)) {
            q->first = pair_memo[i].first;
            q->second = pair_memo[i].second;
            memcpy(q->sc, pair_memo[i].sc, n * sizeof *q->sc);
            memcpy(q->hc, pair_memo[i].hc, n * sizeof *q->hc);
            return 0;
        }
    HeadProbe hp;
    probe_pair_probe(m, &hp);
    if (hp.n_lens < 1)
        return errf(err, errlen, "%s is too short for repeats (max_len %d)", m->cfg.name,
                    m->cfg.max_len);
    if (heads_copy_loss(m, &hp, NULL, &q->first, &q->second, err, errlen) ||
        heads_scores(m, &hp, NULL, q->sc, err, errlen) || circuits_heads(m, q->hc, err, errlen))
        return -1;
    HeadScores *sc = malloc(n * sizeof *sc);
    HeadCircuit *hc = malloc(n * sizeof *hc);
    if (!sc || !hc) { /* nothing kept: computed again next time */
        free(sc);
        free(hc);
        return 0;
    }
    memcpy(sc, q->sc, n * sizeof *sc);
    memcpy(hc, q->hc, n * sizeof *hc);
    int e = pair_memo_next;
    pair_memo_next = (pair_memo_next + 1) % PAIR_MEMO;
    free(pair_memo[e].sc);
    free(pair_memo[e].hc);
    pair_memo[e].key = key;
    pair_memo[e].first = q->first;
    pair_memo[e].second = q->second;
    pair_memo[e].sc = sc;
    pair_memo[e].hc = hc;
    return 0;
}

/* One model of the pair: its copies' losses, head scores and circuits; its guess after the
 * sentence ids (n tokens), run here unless t is its run already. */
static int pair_model(ProbeModel *q, const Model *m, const Trace *t, char *err, size_t errlen)
{
    int L = m->cfg.n_layers, H = m->cfg.n_heads;
    q->m = m;
    q->L = L;
    q->H = H;
    q->next = -1;
    q->sc = calloc((size_t)L * H, sizeof *q->sc);
    q->hc = calloc((size_t)L * H, sizeof *q->hc);
    if (!q->sc || !q->hc)
        return errf(err, errlen, "out of memory");
    if (pair_measure(q, m, err, errlen))
        return -1;
    if (t->model == m) {
        q->next = heads_top_next(t, t->n - 1, &q->p);
        return 0;
    }
    if (m->cfg.vocab_size != t->model->cfg.vocab_size || t->n > m->cfg.max_len)
        return 0; /* another vocabulary: no guess on these ids */
    Trace *u = trace_new(m, t->n, 1);
    if (!u)
        return errf(err, errlen, "out of memory");
    Controls c = t->ctl;
    c.patch = NULL;
    memset(c.ablate, 0, sizeof c.ablate);
    c.order = NULL;
    int rc = model_forward(m, t->src, t->n, NULL, 0, &c, u, err, errlen) ? -1 : 0;
    if (!rc)
        q->next = heads_top_next(u, t->n - 1, &q->p);
    trace_free(u);
    return rc;
}

static int pair(Probe *p, const Widget *w, const Model *m, const Trace *t, char *err,
                size_t errlen)
{
    const CourseModel *o = w->model2_slot; /* "@opened:NAME": the learner's, once opened */
    const Model *m2 = o && o->opened && o->ok ? &o->model : w->model2;
    if (!m2)
        return errf(err, errlen, "a pair widget needs its second model (\"model2\")");
    if (lens_check_model(m2, err, errlen))
        return -1;
    const Model *ms[2] = {m, m2};
    for (int k = 0; k < 2; k++) {
        ProbeModel *q = &p->pair[k];
        if (pair_model(q, ms[k], t, err, errlen))
            return -1;
        double ind = 0, prev = 0, copy = 0;
        int il = 0, pl = 0;
        for (int i = 0; i < q->L * q->H; i++) {
            if (q->sc[i].induction > ind) {
                ind = q->sc[i].induction;
                il = i / q->H;
            }
            if (q->sc[i].prev > prev) {
                prev = q->sc[i].prev;
                pl = i / q->H;
            }
            copy = fmax(copy, q->hc[i].copy);
        }
        char nm[32];
        const char *sfx = k ? "b" : "a";
#define PUT(name, v, integer)                                                                \
    do {                                                                                     \
        snprintf(nm, sizeof nm, "%s_%s", name, sfx);                                         \
        explain_put(&p->nv, nm, v, integer);                                                 \
    } while (0)
        PUT("first", q->first, 0);
        PUT("second", q->second, 0);
        PUT("induction", ind, 0);
        PUT("prev", prev, 0);
        PUT("copy", copy, 0);
        PUT("layers", q->L, 1);
        PUT("inductlayer", il, 1);
        PUT("prevlayer", pl, 1);
        PUT("opened", k == 1 && ms[1] != w->model2, 1);
#undef PUT
    }
    return 0;
}

int probe_run(Probe **pp, const Widget *w, const Model *m, const Trace *t, int layer,
              char *err, size_t errlen)
{
    if (!*pp && !(*pp = calloc(1, sizeof **pp)))
        return errf(err, errlen, "out of memory");
    Probe *p = *pp;
    clear(p);
    if (lens_check_model(m, err, errlen))
        return -1;
    int n = t->n, L = m->cfg.n_layers, H = m->cfg.n_heads;
    p->kind = w->kind;
    p->n = n;
    p->L = L;
    p->H = H;
    p->layer = L * H > PROBE_ALL_HEADS && (w->kind == W_PATCH || w->kind == W_EFFECT)
                   ? (layer >= 0 && layer < L ? layer : 0) : -1;
    p->target = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    p->loss = calloc((size_t)(n > 0 ? n : 1), sizeof *p->loss);
    if (!p->target || !p->loss)
        return errf(err, errlen, "out of memory");
    for (int i = 0; i < n; i++) {
        double pr;
        p->target[i] = heads_top_next(t, i, &pr);
        if (p->target[i] < 0)
            return errf(err, errlen, "the run has no next-token row");
    }
    switch (w->kind) {
    case W_LENS:
        p->top = malloc(sizeof *p->top * (size_t)(L + 1) * n * PROBE_TOP);
        if (!p->top)
            return errf(err, errlen, "out of memory");
        return lens_logit(m, t, PROBE_TOP, p->top, err, errlen);
    case W_ATTRIB: case W_EFFECT:
        p->attr = calloc((size_t)n, sizeof *p->attr);
        if (!p->attr)
            return errf(err, errlen, "out of memory");
        for (int i = 0; i < n; i++)
            if (lens_attribute(m, t, p->target[i], i, &p->attr[i], err, errlen))
                return -1;
        return w->kind == W_EFFECT ? effect(p, m, t, err, errlen) : 0;
    case W_PATCH:
        return patching(p, w, m, t, err, errlen);
    case W_PAIR:
        return pair(p, w, m, t, err, errlen);
    case W_ROLLOUT:
        p->roll = malloc(sizeof(double) * (size_t)L * n * n);
        if (!p->roll)
            return errf(err, errlen, "out of memory");
        return lens_rollout(m, t, p->roll, err, errlen);
    default:
        return errf(err, errlen, "%s is no probe widget", course_widget_name(w->kind));
    }
}

int probe_parts_order(const Probe *p, int pos, int *idx, int max)
{
    if (!p->attr || pos < 0 || pos >= p->n)
        return 0;
    const LensAttribution *a = &p->attr[pos];
    int k = 0;
    while (k < max && k < a->n_parts) { /* the largest |value| not yet taken; ties: first */
        int best = -1;
        for (int i = 0; i < a->n_parts; i++) {
            int taken = 0;
            for (int j = 0; j < k && !taken; j++)
                taken = idx[j] == i;
            if (!taken && (best < 0 || fabs(a->parts[i].value) > fabs(a->parts[best].value)))
                best = i;
        }
        idx[k++] = best;
    }
    return k;
}

const char *probe_case_why(const Trace *t, int i, int key)
{
    for (int j = i - 1; j >= 0; j--)
        if (t->src[j] == t->src[i])
            return j + 1 == key ? "the token after the earlier occurrence" : "the hardest look's";
    return "the hardest look's";
}
