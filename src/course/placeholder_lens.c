/* placeholder_lens.c - the placeholders of "what a head does" (lesson 22, docs/lessons.md),
 * each computed by src/engine/lens.c on the page's own run, at its last position:
 *   {{effect BY FIELD}}  the head chosen BY its attention (look: the largest peak weight from
 *                        the last row) or BY its direct push on the model's top next token
 *                        (direct: its part of that logit, lens_attribute), and its FIELD: name
 *                        ("L1.h0"), layer, head, weight (its peak weight), key (the token it
 *                        puts it on), next (the top next token), direct (its part of that
 *                        logit), knock (the logit minus the logit with the head knocked out),
 *                        logit (the logit itself), loss (−log p of the top next token),
 *                        dloss (that loss with the head knocked out, minus the loss).
 *   {{effectsame}}       1 when the two choices are one head, else 0.
 *   {{rollout FIELD}}    attention rollout (lens_rollout) into the last row: key (the input
 *                        token it credits most), share (that token's share), pos (its position).
 *   {{lens FIELD}}       the logit lens (lens_logit) at the last position: next (the output's
 *                        top guess), p (its probability), embed (the embedding row's top
 *                        guess), from (where the output's guess becomes the top one and stays:
 *                        "the embedding" or "layer L", the block after which it does),
 *                        fromlayer (that layer as a number, -1 for the embedding).
 *   {{circuit L H FIELD}} head (L, H)'s circuits from its weights (circuits_heads): copy (the
 *                        share score), copying (Elhage's eigenvalue score), prev, or kG (its
 *                        K-composition with head G of the layer below).
 *   {{induct FIELD}}     every head measured on fresh random repeats (heads_scores and
 *                        heads_copy_loss on probe_pair_probe's probes, as the pair widget):
 *                        name, layer and score (the head with the largest induction score,
 *                        its layer, and it), prevname, prevlayer and prev (the same for the
 *                        previous-token score), copying (the induction head's copying score,
 *                        circuits_heads), kprev (its K-composition with the previous-token
 *                        head; absent unless that head is in the layer below), first and
 *                        second (the mean loss on each copy).
 *   {{patch POS WORD FIELD}} activation patching (lens_patch): the corrupted run is the page's
 *                        sentence with position POS made WORD; the metric, the clean run's top
 *                        next token at the last position: next (that token), clean and
 *                        corrupted (its logit in each run), best (the head or FFN whose clean
 *                        output restores most of the difference), frac (how much it restores).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits.h"
#include "errf.h"
#include "heads.h"
#include "lens.h"
#include "model_key.h"
#include "placeholder.h"
#include "probe.h"

static void put_real(const PlaceholderCtx *ctx, double v, int prec, char *out, size_t outlen)
{
    (void)ctx;
    snprintf(out, outlen, "%.*f", prec < 0 ? 2 : prec, fabs(v) < 0.5 * pow(10, -(prec < 0 ? 2 : prec)) ? 0.0 : v);
}

static Stack stack_of(const Model *m)
{
    return model_output_stack(m); /* decoder-only or encoder: the main stack */
}

/* The peak weight of head (l, h) from row i, and its key. */
static double peak(const Trace *t, Stack st, int l, int h, int i, int *key)
{
    const TraceEntry *w = trace_find(t, st, l, SUB_SELF, h, T_WEIGHTS);
    double best = -1.0;
    *key = -1;
    for (int j = 0; w && j < w->cols; j++)
        if (w->data[(size_t)i * w->cols + j] > best) {
            best = w->data[(size_t)i * w->cols + j];
            *key = j;
        }
    return best;
}

/* −log softmax(row)[tok] of row i of a run's logits. */
static double row_nll(const Model *m, const Trace *t, int i, int tok)
{
    const TraceEntry *lg = trace_find(t, stack_of(m), -1, SUB_NONE, -1, T_LOGITS);
    if (!lg)
        return NAN;
    const float *r = lg->data + (size_t)i * lg->cols;
    double mx = r[0], s = 0.0;
    for (int j = 1; j < lg->cols; j++)
        mx = r[j] > mx ? r[j] : mx;
    for (int j = 0; j < lg->cols; j++)
        s += exp(r[j] - mx);
    return -(r[tok] - mx - log(s));
}

/* token's logit at row i with head (l, h) knocked out, the run's other controls kept; *nll
 * (may be NULL) its loss there, −log p(token). */
static int knocked_logit(const Model *m, const Trace *t, int l, int h, int i, int token,
                         double *v, double *nll, char *err, size_t errlen)
{
    Controls c = t->ctl;
    if (l >= ATTEND_MAX_LAYERS || h >= 64)
        return errf(err, errlen, "head L%d.h%d cannot be knocked out", l, h);
    c.ablate[l] |= (uint64_t)1 << h;
    Trace *k = trace_new(m, t->n, 1);
    if (!k)
        return errf(err, errlen, "out of memory");
    int rc = lens_forward_from(m, t, l, &c, k, err, errlen); /* the layers below: as in t */
    if (!rc) {
        const TraceEntry *lg = trace_find(k, stack_of(m), -1, SUB_NONE, -1, T_LOGITS);
        *v = lg ? lg->data[(size_t)i * lg->cols + token] : NAN;
        if (nll)
            *nll = row_nll(m, k, i, token);
    }
    trace_free(k);
    return rc ? -1 : 0;
}

/* circuits_heads reads the weights alone, yet every redraw of a page (and check-lessons' walk,
 * in every state it reaches) evaluates its {{circuit}}s again: the circuits of the last few
 * models are kept, each under its ModelKey (model_key.h: a model trained in place or another
 * loaded at the same address is computed afresh). Not thread-safe (placeholders are evaluated on one thread). Returns the
 * kept result (owned here), or NULL with a message. */
enum { CIRCUIT_MEMO = 4 };
static struct {
    ModelKey key;
    HeadCircuit *hc;
} circuit_memo[CIRCUIT_MEMO];
static int circuit_memo_next;

static const HeadCircuit *circuits_of(const Model *m, char *err, size_t errlen)
{
    ModelKey key;
    model_key(m, &key);
    for (int i = 0; i < CIRCUIT_MEMO; i++)
        if (circuit_memo[i].hc && model_key_eq(&circuit_memo[i].key, &key))
            return circuit_memo[i].hc;
    HeadCircuit *hc = calloc((size_t)m->cfg.n_layers * m->cfg.n_heads, sizeof *hc);
    if (!hc) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (circuits_heads(m, hc, err, errlen)) {
        free(hc);
        return NULL;
    }
    int e = circuit_memo_next;
    circuit_memo_next = (circuit_memo_next + 1) % CIRCUIT_MEMO;
    free(circuit_memo[e].hc);
    circuit_memo[e].key = key;
    circuit_memo[e].hc = hc;
    return hc;
}

/* {{circuit L H FIELD}} (see the top of the file). */
static int ph_circuit(char **av, int prec, const PlaceholderCtx *ctx, char *out, size_t outlen,
                      char *err, size_t errlen)
{
    const Model *m = ctx->model;
    int L = m->cfg.n_layers, H = m->cfg.n_heads;
    char *e1, *e2;
    long l = strtol(av[1], &e1, 10), h = strtol(av[2], &e2, 10);
    if (*e1 || *e2 || l < 0 || l >= L || h < 0 || h >= H)
        return errf(err, errlen, "circuit %s %s: this model has layers 0..%d, heads 0..%d", av[1],
                    av[2], L - 1, H - 1);
    const char *f = av[3];
    long g = -1;
    if (f[0] == 'k' && f[1]) {
        g = strtol(f + 1, &e1, 10);
        if (*e1 || g < 0 || g >= H || l < 1)
            return errf(err, errlen, "circuit FIELD %s: kG needs a head G of the layer below "
                        "(0..%d) and a layer from 1", f, H - 1);
    } else if (strcmp(f, "copy") && strcmp(f, "copying") && strcmp(f, "prev"))
        return errf(err, errlen, "circuit FIELD is copy, copying, prev or kG, not \"%s\"", f);
    char msg[256];
    const HeadCircuit *hc = circuits_of(m, msg, sizeof msg);
    if (!hc)
        return errf(err, errlen, "%s", msg);
    const HeadCircuit *c = &hc[l * H + h];
    double v = g >= 0 ? c->kcomp[g] : !strcmp(f, "copy") ? c->copy
                                     : !strcmp(f, "copying") ? c->copying : c->prev;
    if (isnan(v))
        return errf(err, errlen, "circuit %s: %s", f, strcmp(f, "prev")
                    ? "the OV circuit's eigenvalues were not found" : "the model has no learned positions");
    put_real(ctx, v, prec, out, outlen);
    return 0;
}

/* The model's heads measured on fresh random repeats (probe_pair_probe's: the pair widget's),
 * kept for the last few models. */
enum { INDUCT_MEMO = 4 };
static struct {
    ModelKey key;
    HeadScores *sc;
    double first, second;
} induct_memo[INDUCT_MEMO];
static int induct_memo_next;

static const HeadScores *induct_of(const Model *m, double *first, double *second, char *err,
                                   size_t errlen)
{
    ModelKey key;
    model_key(m, &key);
    for (int i = 0; i < INDUCT_MEMO; i++)
        if (induct_memo[i].sc && model_key_eq(&induct_memo[i].key, &key)) {
            *first = induct_memo[i].first;
            *second = induct_memo[i].second;
            return induct_memo[i].sc;
        }
    HeadProbe hp;
    probe_pair_probe(m, &hp);
    if (hp.n_lens < 1) {
        errf(err, errlen, "%s is too short for repeats (max_len %d)", m->cfg.name,
             m->cfg.max_len);
        return NULL;
    }
    HeadScores *sc = calloc((size_t)m->cfg.n_layers * m->cfg.n_heads, sizeof *sc);
    if (!sc) {
        errf(err, errlen, "out of memory");
        return NULL;
    }
    if (heads_scores(m, &hp, NULL, sc, err, errlen) ||
        heads_copy_loss(m, &hp, NULL, first, second, err, errlen)) {
        free(sc);
        return NULL;
    }
    int e = induct_memo_next;
    induct_memo_next = (induct_memo_next + 1) % INDUCT_MEMO;
    free(induct_memo[e].sc);
    induct_memo[e].key = key;
    induct_memo[e].sc = sc;
    induct_memo[e].first = *first;
    induct_memo[e].second = *second;
    return sc;
}

/* {{induct FIELD}} (see the top of the file). */
static int ph_induct(const char *f, int prec, const PlaceholderCtx *ctx, char *out,
                     size_t outlen, char *err, size_t errlen)
{
    const Model *m = ctx->model;
    int n = m->cfg.n_layers * m->cfg.n_heads, H = m->cfg.n_heads;
    int name = !strcmp(f, "name") || !strcmp(f, "prevname");
    int layer = !strcmp(f, "layer") || !strcmp(f, "prevlayer");
    int circ = !strcmp(f, "copying") || !strcmp(f, "kprev");
    if (!name && !layer && !circ && strcmp(f, "score") && strcmp(f, "prev") &&
        strcmp(f, "first") && strcmp(f, "second"))
        return errf(err, errlen, "induct FIELD is name, layer, score, copying, kprev, prevname, "
                    "prevlayer, prev, first or second, not \"%s\"", f);
    if ((name || layer) && prec >= 0)
        return errf(err, errlen, "induct %s is not a real number; it takes no precision", f);
    double first, second;
    char msg[300];
    const HeadScores *sc = induct_of(m, &first, &second, msg, sizeof msg);
    if (!sc)
        return errf(err, errlen, "%s", msg);
    int bi = 0, bp = 0;
    for (int i = 1; i < n; i++) {
        if (sc[i].induction > sc[bi].induction)
            bi = i;
        if (sc[i].prev > sc[bp].prev)
            bp = i;
    }
    if (!strcmp(f, "name"))
        snprintf(out, outlen, "L%d.h%d", bi / H, bi % H);
    else if (!strcmp(f, "prevname"))
        snprintf(out, outlen, "L%d.h%d", bp / H, bp % H);
    else if (layer)
        snprintf(out, outlen, "%d", (!strcmp(f, "layer") ? bi : bp) / H);
    else if (circ) { /* the induction head's circuits: its copying score, or its K-composition
                      * with the previous-token head when that head is in the layer below */
        const HeadCircuit *hc = circuits_of(m, msg, sizeof msg);
        if (!hc)
            return errf(err, errlen, "%s", msg);
        if (!strcmp(f, "kprev") && bp / H != bi / H - 1) {
            errf(err, errlen, "the previous-token head L%d.h%d is not in the layer below the "
                 "induction head L%d.h%d", bp / H, bp % H, bi / H, bi % H);
            return PLACEHOLDER_ABSENT;
        }
        double v = !strcmp(f, "copying") ? hc[bi].copying : hc[bi].kcomp[bp % H];
        if (isnan(v))
            return errf(err, errlen, "the OV circuit's eigenvalues were not found");
        put_real(ctx, v, prec, out, outlen);
    }
    else
        put_real(ctx, !strcmp(f, "score") ? sc[bi].induction : !strcmp(f, "prev") ? sc[bp].prev
                      : !strcmp(f, "first") ? first : second, prec, out, outlen);
    return 0;
}

/* {{lens FIELD}} (see the top of the file). */
static int ph_lens(const char *f, int prec, const PlaceholderCtx *ctx, char *out, size_t outlen,
                   char *err, size_t errlen)
{
    const Model *m = ctx->model;
    const Trace *t = ctx->trace;
    int L = m->cfg.n_layers, n = t->n, i = n - 1;
    int text = strcmp(f, "p") != 0;
    if (strcmp(f, "next") && strcmp(f, "p") && strcmp(f, "embed") && strcmp(f, "from") &&
        strcmp(f, "fromlayer"))
        return errf(err, errlen, "lens FIELD is next, p, embed, from or fromlayer, not \"%s\"",
                    f);
    if (text && prec >= 0)
        return errf(err, errlen, "lens %s is not a real number; it takes no precision", f);
    LensTop *top = malloc(sizeof *top * (size_t)(L + 1));
    char msg[300];
    if (!top || lens_logit_at(m, t, i, 1, top, msg, sizeof msg)) {
        free(top);
        return errf(err, errlen, "%s", top ? msg : "out of memory");
    }
    const LensTop *o = &top[L];
    int from = L;
    while (from > 0 && top[from - 1].id == o->id)
        from--;
    if (!strcmp(f, "next"))
        snprintf(out, outlen, "%s", vocab_word(&m->vocab, o->id));
    else if (!strcmp(f, "embed"))
        snprintf(out, outlen, "%s", vocab_word(&m->vocab, top[0].id));
    else if (!strcmp(f, "p"))
        put_real(ctx, o->p, prec, out, outlen);
    else if (!strcmp(f, "fromlayer"))
        snprintf(out, outlen, "%d", from - 1);
    else if (from == 0)
        snprintf(out, outlen, "the embedding");
    else
        snprintf(out, outlen, "layer %d", from - 1);
    free(top);
    return 0;
}

/* {{patch POS WORD FIELD}} (see the top of the file). */
static int ph_patch(char **av, int prec, const PlaceholderCtx *ctx, char *out, size_t outlen,
                    char *err, size_t errlen)
{
    const Model *m = ctx->model;
    const Trace *t = ctx->trace;
    char *e, msg[512];
    long pos = strtol(av[1], &e, 10);
    int word;
    if (*e || pos < 0)
        return errf(err, errlen, "patch POS \"%s\" is not a position", av[1]);
    if (pos >= t->n) {
        errf(err, errlen, "position %ld is past the sentence's %d tokens", pos, t->n);
        return PLACEHOLDER_ABSENT;
    }
    if (lens_token_parse(m, av[2], "patch", &word, msg, sizeof msg)) {
        errf(err, errlen, "%s", msg); /* the learner's model: absent; a course's: the lesson's */
        return ctx->opened ? PLACEHOLDER_ABSENT : -1;
    }
    double p;
    int next = heads_top_next(t, t->n - 1, &p);
    int *bad = malloc(sizeof(int) * (size_t)t->n);
    if (!bad || next < 0) {
        free(bad);
        return errf(err, errlen, "%s", bad ? "the run has no next-token row" : "out of memory");
    }
    memcpy(bad, t->src, sizeof(int) * (size_t)t->n);
    bad[pos] = word;
    LensPatch lp;
    int rc = lens_patch(m, t->src, bad, t->n, &t->ctl, next, t->n - 1, &lp, msg, sizeof msg);
    free(bad);
    if (rc) { /* the same logit in both runs (WORD is the word already there): nothing to say */
        errf(err, errlen, "%s", msg);
        return PLACEHOLDER_ABSENT;
    }
    int best = 0;
    for (int i = 1; i < lp.n_parts; i++)
        if (lp.parts[i].fraction > lp.parts[best].fraction)
            best = i;
    const char *f = av[3];
    rc = 0;
    if (!strcmp(f, "next") || !strcmp(f, "best")) {
        if (prec >= 0)
            rc = errf(err, errlen, "patch %s is not a real number; it takes no precision", f);
        else if (!strcmp(f, "next"))
            snprintf(out, outlen, "%s", vocab_word(&m->vocab, next));
        else
            snprintf(out, outlen, "%s", lp.parts[best].name);
    } else if (!strcmp(f, "clean") || !strcmp(f, "corrupted") || !strcmp(f, "frac"))
        put_real(ctx, !strcmp(f, "clean") ? lp.clean : !strcmp(f, "corrupted") ? lp.corrupted
                                                                                : lp.parts[best].fraction,
                 prec, out, outlen);
    else
        rc = errf(err, errlen, "patch FIELD is next, clean, corrupted, best or frac, not \"%s\"", f);
    lens_patch_free(&lp);
    return rc;
}

/* {{rollout FIELD}} (see the top of the file). */
static int ph_rollout(const char *f, int prec, const PlaceholderCtx *ctx, char *out,
                      size_t outlen, char *err, size_t errlen)
{
    const Model *m = ctx->model;
    const Trace *t = ctx->trace;
    int L = m->cfg.n_layers, i = t->n - 1;
    char msg[512];
    double *R = malloc(sizeof(double) * (size_t)L * t->n * t->n);
    if (!R || lens_rollout(m, t, R, msg, sizeof msg)) {
        free(R);
        return errf(err, errlen, "%s", R ? msg : "out of memory");
    }
    const double *row = R + ((size_t)(L - 1) * t->n + i) * t->n;
    int best = 0;
    for (int j = 1; j < t->n; j++)
        if (row[j] > row[best])
            best = j;
    double share = row[best];
    free(R);
    if (!strcmp(f, "key"))
        snprintf(out, outlen, "%s", vocab_word(&m->vocab, t->src[best]));
    else if (!strcmp(f, "pos"))
        snprintf(out, outlen, "%d", best);
    else if (!strcmp(f, "share"))
        put_real(ctx, share, prec, out, outlen);
    else
        return errf(err, errlen, "rollout FIELD is key, share or pos, not \"%s\"", f);
    return 0;
}

int placeholder_lens(int ac, char **av, int prec, const PlaceholderCtx *ctx, char *out,
                     size_t outlen, char *err, size_t errlen)
{
    const Model *m = ctx->model;
    const Trace *t = ctx->trace;
    char msg[512];
    (void)ac;
    if (!m || !t)
        return errf(err, errlen, "this widget runs no model");
    if (lens_check_model(m, msg, sizeof msg))
        return errf(err, errlen, "%s", msg);
    const ModelConfig *c = &m->cfg;
    int i = t->n - 1, L = c->n_layers, H = c->n_heads;
    Stack st = stack_of(m);
    if (!strcmp(av[0], "circuit"))
        return ph_circuit(av, prec, ctx, out, outlen, err, errlen);
    if (!strcmp(av[0], "induct"))
        return ph_induct(av[1], prec, ctx, out, outlen, err, errlen);
    if (!strcmp(av[0], "patch"))
        return ph_patch(av, prec, ctx, out, outlen, err, errlen);
    if (!strcmp(av[0], "lens"))
        return ph_lens(av[1], prec, ctx, out, outlen, err, errlen);
    if (!strcmp(av[0], "rollout"))
        return ph_rollout(av[1], prec, ctx, out, outlen, err, errlen);
    /* effect: the top next token at the last row, every head's direct part of its logit */
    double p;
    int next = heads_top_next(t, i, &p);
    LensAttribution a;
    if (next < 0 || lens_attribute(m, t, next, i, &a, msg, sizeof msg))
        return errf(err, errlen, "%s", next < 0 ? "the run has no next-token row" : msg);
    int by_look = -1, by_direct = -1, key_look = -1;
    double w_look = -1.0, d_direct = -INFINITY;
    double *direct = calloc((size_t)L * H, sizeof *direct);
    if (!direct) {
        lens_attribution_free(&a);
        return errf(err, errlen, "out of memory");
    }
    for (int k = 0; k < a.n_parts; k++) {
        int l, h;
        char tail;
        if (sscanf(a.parts[k].name, "L%d.h%d%c", &l, &h, &tail) == 2 && l < L && h < H)
            direct[l * H + h] = a.parts[k].value;
    }
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++) {
            int key;
            double w = peak(t, st, l, h, i, &key);
            if (w > w_look) {
                w_look = w;
                by_look = l * H + h;
                key_look = key;
            }
            if (direct[l * H + h] > d_direct) {
                d_direct = direct[l * H + h];
                by_direct = l * H + h;
            }
        }
    double logit = a.logit;
    lens_attribution_free(&a);
    int rc = 0;
    if (!strcmp(av[0], "effectsame")) {
        snprintf(out, outlen, "%d", by_look == by_direct);
        free(direct);
        return 0;
    }
    int which = !strcmp(av[1], "look") ? by_look : !strcmp(av[1], "direct") ? by_direct : -2;
    if (which == -2) {
        free(direct);
        return errf(err, errlen, "effect BY is look, direct or same, not \"%s\"", av[1]);
    }
    int l = which / H, h = which % H, key = key_look;
    double w = peak(t, st, l, h, i, &key);
    const char *f = av[2];
    int text = !strcmp(f, "name") || !strcmp(f, "key") || !strcmp(f, "next") ||
               !strcmp(f, "layer") || !strcmp(f, "head");
    if (text && prec >= 0)
        rc = errf(err, errlen, "effect %s %s is not a real number; it takes no precision", av[1], f);
    else if (!strcmp(f, "name"))
        snprintf(out, outlen, "L%d.h%d", l, h);
    else if (!strcmp(f, "layer") || !strcmp(f, "head"))
        snprintf(out, outlen, "%d", !strcmp(f, "layer") ? l : h);
    else if (!strcmp(f, "key"))
        snprintf(out, outlen, "%s", key >= 0 ? vocab_word(&m->vocab, t->src[key]) : "");
    else if (!strcmp(f, "next"))
        snprintf(out, outlen, "%s", vocab_word(&m->vocab, next));
    else if (!strcmp(f, "weight"))
        put_real(ctx, w, prec, out, outlen);
    else if (!strcmp(f, "direct"))
        put_real(ctx, direct[which], prec, out, outlen);
    else if (!strcmp(f, "logit"))
        put_real(ctx, logit, prec, out, outlen);
    else if (!strcmp(f, "knock")) {
        double v = NAN;
        rc = knocked_logit(m, t, l, h, i, next, &v, NULL, err, errlen);
        if (!rc)
            put_real(ctx, logit - v, prec, out, outlen);
    } else if (!strcmp(f, "dloss") || !strcmp(f, "loss")) {
        double v = NAN, nll = NAN, base = row_nll(m, t, i, next);
        rc = !strcmp(f, "loss") ? 0 : knocked_logit(m, t, l, h, i, next, &v, &nll, err, errlen);
        if (!rc)
            put_real(ctx, !strcmp(f, "loss") ? base : nll - base, prec, out, outlen);
    } else
        rc = errf(err, errlen, "effect FIELD is name, layer, head, weight, key, next, direct, "
                  "knock, dloss, loss or logit, not \"%s\"", f);
    free(direct);
    return rc;
}
