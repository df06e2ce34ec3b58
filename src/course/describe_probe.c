/* describe_probe.c - the words for the probe widgets (lens, attribution, effect, patching,
 * rollout): what plain mode says, the same numbers the player's view_probe.c draws, read
 * from the run's Probe (probe.h) at the Session's position and layer. */
#include "describe_probe.h"

#include <math.h>

#include "probe.h"

static const char *word(const WidgetIO *io, int id)
{
    return vocab_word(&io->m->vocab, id);
}

static void lens_words(const WidgetIO *io, const Probe *p, int i, DBuf *b)
{
    dbuf_put(b, "Logit lens after \"%s\" (position %d of 0..%d): what the residual stream "
                "after each block would predict, through the final norm and the unembedding.\n",
             word(io, io->tr.t->src[i]), i, p->n - 1);
    for (int l = 0; l <= p->L; l++) {
        if (l == 0)
            dbuf_put(b, "embed:");
        else if (l == p->L)
            dbuf_put(b, "output:");
        else
            dbuf_put(b, "after L%d:", l - 1);
        for (int c = 0; c < 3; c++) {
            const LensTop *t = &p->top[((size_t)l * p->n + i) * PROBE_TOP + c];
            dbuf_put(b, "%s \"%s\" %.2f", c ? "," : "", word(io, t->id), t->p);
        }
        dbuf_put(b, ".\n");
    }
}

static void attrib_words(const WidgetIO *io, const Probe *p, int i, DBuf *b)
{
    const LensAttribution *a = &p->attr[i];
    int idx[8];
    int k = probe_parts_order(p, i, idx, 8);
    dbuf_put(b, "Direct logit attribution after \"%s\" (position %d): the logit of \"%s\", the "
                "top guess, is %.2f, the sum of %d parts. The largest:\n",
             word(io, io->tr.t->src[i]), i, word(io, a->token), a->logit, a->n_parts);
    double rest = a->logit;
    for (int j = 0; j < k; j++) {
        const LensPart *q = &a->parts[idx[j]];
        rest -= q->value;
        dbuf_put(b, "%s %+.2f", q->name, q->value);
        if (q->key >= 0)
            dbuf_put(b, " (looks hardest at \"%s\", %.2f)", word(io, io->tr.t->src[q->key]),
                     q->peak);
        dbuf_put(b, ".\n");
    }
    if (k < a->n_parts)
        dbuf_put(b, "The other %d parts: %+.2f.\n", a->n_parts - k, rest);
}

static void effect_words(const WidgetIO *io, const Probe *p, int i, DBuf *b)
{
    int tg = p->target[i];
    dbuf_put(b, "Attention vs effect after \"%s\" (position %d): the top guess is \"%s\", loss "
                "%.2f (-log p).", word(io, io->tr.t->src[i]), i, word(io, tg), p->loss[i]);
    if (p->layer >= 0)
        dbuf_put(b, " Layer %d's heads.", p->layer);
    int ck = p->case_key[i];
    const char *kw = ck >= 0 ? word(io, io->tr.t->src[ck]) : "?";
    dbuf_put(b, "\nEach head: where it looks hardest, its weight on \"%s\" (position %d, %s), its "
                "own push on the logit of \"%s\", and the loss with it knocked out, minus the "
                "loss.\n", kw, ck, probe_case_why(io->tr.t, i, ck), word(io, tg));
    const ProbeHead *hs = &p->heads[(size_t)i * p->n_heads];
    for (int h = 0; h < p->n_heads; h++)
        dbuf_put(b, "L%d.h%d: looks at \"%s\" %.2f; on \"%s\" %.2f; push %+.2f; knocked out "
                 "%+.2f.\n", hs[h].layer, hs[h].head,
                 hs[h].key >= 0 ? word(io, io->tr.t->src[hs[h].key]) : "?", hs[h].weight, kw,
                 hs[h].on_key, hs[h].direct, hs[h].dloss);
}

static void patch_words(const WidgetIO *io, const Probe *p, DBuf *b)
{
    if (!p->patched) {
        dbuf_put(b, "Activation patching with \"%s\" at position %d: %s.\n",
                 p->corrupt_tok >= 0 ? word(io, p->corrupt_tok) : io->w->start.corrupt,
                 p->corrupt_pos, p->patch_why);
        return;
    }
    const LensPatch *lp = &p->patch;
    dbuf_put(b, "Activation patching: \"%s\" (position %d) made \"%s\" moves the logit of "
                "\"%s\" after the last word from %.2f to %.2f. The share of that change each "
                "part's output from the real run puts back:\n",
             word(io, io->tr.t->src[p->corrupt_pos]), p->corrupt_pos, word(io, p->corrupt_tok),
             word(io, lp->token), lp->clean, lp->corrupted);
    for (int x = 0; x < lp->n_parts; x++)
        dbuf_put(b, "%s %.2f%s", lp->parts[x].name, lp->parts[x].fraction,
                 x + 1 < lp->n_parts && lp->parts[x + 1].layer == lp->parts[x].layer ? "; "
                                                                                     : ".\n");
}

static void rollout_words(const WidgetIO *io, const Probe *p, DBuf *b)
{
    int l = io->layer < 0 ? 0 : io->layer >= p->L ? p->L - 1 : io->layer, n = p->n;
    dbuf_put(b, "Attention rollout through layer %d: each row's share of each input token "
                "(rows sum to 1). Its largest:\n", l);
    const double *R = p->roll + (size_t)l * n * n;
    for (int i = 0; i < n; i++) {
        int best = 0;
        for (int j = 1; j < n; j++)
            if (R[(size_t)i * n + j] > R[(size_t)i * n + best])
                best = j;
        dbuf_put(b, "%d \"%s\": \"%s\" %.2f.\n", i, word(io, io->tr.t->src[i]),
                 word(io, io->tr.t->src[best]), R[(size_t)i * n + best]);
    }
}

static void pair_words(const WidgetIO *io, const Probe *p, DBuf *b)
{
    const Trace *t = io->tr.t;
    dbuf_put(b, "Two models side by side. Loss in nats on fresh random repeats, first and "
                "second copy; per head: prev and induct, its mean weight on the previous token "
                "and on the token after the earlier copy; copy, the share of words its OV "
                "circuit maps to themselves.\n");
    for (int k = 0; k < 2; k++) {
        const ProbeModel *q = &p->pair[k];
        if (!q->m)
            continue;
        dbuf_put(b, "%s (%d layer%s): first copy %.2f, second copy %.2f.", q->m->cfg.name, q->L,
                 q->L == 1 ? "" : "s", q->first, q->second);
        for (int i = 0; i < q->L * q->H; i++)
            dbuf_put(b, " L%d.h%d prev %.2f induct %.2f copy %.2f%s", i / q->H, i % q->H,
                     q->sc[i].prev, q->sc[i].induction, q->hc[i].copy,
                     i + 1 < q->L * q->H ? ";" : ".");
        if (q->next >= 0)
            dbuf_put(b, " After \"%s\": \"%s\" %.2f.", word(io, t->src[t->n - 1]),
                     vocab_word(&q->m->vocab, q->next), q->p);
        dbuf_put(b, "\n");
    }
}

void describe_probe(const WidgetIO *io, const DescribeView *v, DBuf *b)
{
    const Probe *p = io->live ? io->live->probe : NULL;
    if (!p || p->n < 1 || !io->tr.t) {
        dbuf_put(b, "Nothing to show.\n");
        return;
    }
    int i = v->step < 0 ? 0 : v->step >= p->n ? p->n - 1 : v->step;
    switch (p->kind) {
    case W_LENS: lens_words(io, p, i, b); break;
    case W_ATTRIB: attrib_words(io, p, i, b); break;
    case W_EFFECT: effect_words(io, p, i, b); break;
    case W_PATCH: patch_words(io, p, b); break;
    case W_ROLLOUT: rollout_words(io, p, b); break;
    case W_PAIR: pair_words(io, p, b); break;
    default: break;
    }
}
