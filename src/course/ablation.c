/* ablation.c - the words for a knocked-out head (ablation.h). */
#include "ablation.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "heads.h"

int ablation_words(const Trace *t, int layer, int head, char *out, size_t n)
{
    const Model *m = t->model;
    char names[512];
    heads_ablate_names(m, t->ctl.ablate, names, sizeof names);
    int on = layer >= 0 && layer < ATTEND_MAX_LAYERS && head >= 0 && head < 64 &&
             ((t->ctl.ablate[layer] >> head) & 1u);
    if (!names[0]) {
        snprintf(out, n, "L%d.h%d back in: every head is in place", layer, head);
        return 0;
    }
    Controls intact = t->ctl;
    memset(intact.ablate, 0, sizeof intact.ablate);
    int encdec = m->cfg.arch == ARCH_ENCDEC;
    Trace *a = trace_new(m, t->n, encdec ? t->m : 1);
    char err[256];
    if (!a || model_forward(m, t->src, t->n, t->tgt, t->m, &intact, a, err, sizeof err)) {
        snprintf(out, n, "cannot compare with every head in place: %s", a ? err : "out of memory");
        trace_free(a);
        return -1;
    }
    size_t k = 0;
#define PUT(...) do { int w_ = snprintf(out + k, n - k, __VA_ARGS__); \
        if (w_ > 0) k = (size_t)w_ < n - k ? k + (size_t)w_ : n - 1; } while (0)
    PUT("L%d.h%d %s (knocked out: %s).", layer, head, on ? "knocked out" : "back in", names);
    double before = heads_sentence_loss(a), after = heads_sentence_loss(t);
    if (isfinite(before))
        PUT(" Loss on the sentence %.2f -> %.2f nats.", before, after);
    int rows = encdec ? t->m : t->n, changed = 0, first = -1, ta0 = -1, tb0 = -1;
    for (int i = 0; i < rows; i++) {
        int ta = heads_top_next(a, i, NULL), tb = heads_top_next(t, i, NULL);
        if (ta != tb && changed++ == 0) {
            first = i;
            ta0 = ta;
            tb0 = tb;
        }
    }
    const int *row_ids = encdec ? t->tgt_in : t->src;
    if (changed)
        PUT(" %d of %d next-token predictions changed (after \"%s\": %s -> %s).", changed, rows,
            vocab_word(&m->vocab, row_ids[first]), vocab_word(&m->vocab, ta0),
            vocab_word(&m->vocab, tb0));
    else
        PUT(" No next-token prediction changed.");
    int lowest = m->cfg.n_layers;
    for (int l = 0; l < m->cfg.n_layers && l < ATTEND_MAX_LAYERS; l++)
        if (t->ctl.ablate[l]) {
            lowest = l;
            break;
        }
    int cl, ch, cr;
    double d = heads_pattern_change(a, t, lowest + 1, &cl, &ch, &cr);
    if (cl >= 0)
        PUT(" Largest change in a later pattern: L%d.h%d, row \"%s\", %.2f.", cl, ch,
            vocab_word(&m->vocab, t->src[cr]), d);
#undef PUT
    trace_free(a);
    return 0;
}
