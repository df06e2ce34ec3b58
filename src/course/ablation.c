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
    /* one line of the status bar: the parts in order of weight, the last ones left out when
     * the line would pass ABLATION_COLS columns */
    char part[4][200];
    int np = 0;
    if (!strchr(names, ',') && !strchr(names, ' ') && on)
        snprintf(part[np++], sizeof part[0], "L%d.h%d knocked out", layer, head);
    else
        snprintf(part[np++], sizeof part[0], "L%d.h%d %s (out: %.150s)", layer, head,
                 on ? "knocked out" : "back in", names);
    double before = heads_sentence_loss(a), after = heads_sentence_loss(t);
    if (isfinite(before))
        snprintf(part[np++], sizeof part[0], ": loss %.2f -> %.2f nats", before, after);
    int rows = encdec ? t->m : t->n, changed = 0, first = -1;
    for (int i = 0; i < rows; i++) {
        int ta = heads_top_next(a, i, NULL), tb = heads_top_next(t, i, NULL);
        if (ta != tb && changed++ == 0)
            first = i;
    }
    const int *row_ids = encdec ? t->tgt_in : t->src;
    const char *sep = np > 1 ? ", " : ": ";
    if (changed)
        snprintf(part[np], sizeof part[0], "%s%d/%d next words changed (after \"%.60s\")", sep,
                 changed, rows, vocab_word(&m->vocab, row_ids[first]));
    else
        snprintf(part[np], sizeof part[0], "%sno next word changed", sep);
    np++;
    int lowest = m->cfg.n_layers;
    for (int l = 0; l < m->cfg.n_layers && l < ATTEND_MAX_LAYERS; l++)
        if (t->ctl.ablate[l]) {
            lowest = l;
            break;
        }
    int cl, ch, cr;
    double d = heads_pattern_change(a, t, lowest + 1, &cl, &ch, &cr);
    if (cl >= 0)
        snprintf(part[np++], sizeof part[0], ", L%d.h%d moved %.2f", cl, ch, d);
    size_t k = 0;
    out[0] = 0;
    for (int i = 0; i < np; i++) {
        size_t cols = 0;
        for (const unsigned char *p = (const unsigned char *)out; *p; p++)
            cols += (*p & 0xC0) != 0x80;
        for (const unsigned char *p = (const unsigned char *)part[i]; *p; p++)
            cols += (*p & 0xC0) != 0x80;
        if (i > 0 && cols > ABLATION_COLS)
            break;
        int w_ = snprintf(out + k, n - k, "%s", part[i]);
        if (w_ > 0)
            k = (size_t)w_ < n - k ? k + (size_t)w_ : n - 1;
    }
    trace_free(a);
    return 0;
}
