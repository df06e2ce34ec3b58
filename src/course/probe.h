/* probe.h - the numbers of the probe widgets (lens, attribution, patching, rollout, effect),
 * computed by src/engine/lens.c from the page's own run after its model_forward: what the
 * views draw, plain mode words (describe_probe.c) and {{x NAME}} reads. widget_run fills it;
 * a LiveWidget owns it. No curses, no printing. */
#ifndef ATTEND_PROBE_H
#define ATTEND_PROBE_H

#include <stddef.h>

#include "course.h"
#include "circuits.h"
#include "explain.h"
#include "heads.h"
#include "lens.h"
#include "model.h"

#define PROBE_TOP 5          /* the logit lens keeps each block's five best guesses */
/* A model with more heads than this (layers × heads) is patched and knocked out one layer at a
 * time (the widget's layer, l), so a key costs at most one layer's runs. */
#define PROBE_ALL_HEADS 16
/* The pair widget's probes on a model with more weights than this (12·d_model²·layers):
 * PROBE_PAIR_LEN-token segments, two probes, rather than heads_probe_defaults'. */
#define PROBE_PAIR_BIG 2e7
#define PROBE_PAIR_LEN 16

/* One head on the effect widget's query row. */
typedef struct {
    int layer, head;
    double weight;           /* its largest attention weight from the row */
    int key;                 /* ... the key position it puts it on */
    double direct;           /* its direct part of the target's logit (attribution) */
    double dloss;            /* the loss with the head knocked out minus the loss */
    double on_key;           /* its weight on the row's case key (Probe.case_key) */
} ProbeHead;

/* One model of the pair widget, measured the way `attend heads` measures it: the loss on each
 * copy of fresh random repeats and every head's scores (heads.h, the model's default probes),
 * its heads' circuits from the weights (circuits.h), and its guess after the sentence. */
typedef struct {
    const Model *m;
    int L, H;
    double first, second;    /* mean loss (nats) on the first and the second copy */
    HeadScores *sc;          /* (L · H): prev, induction, ... of head l·H + h */
    HeadCircuit *hc;         /* (L · H): copy, prev, kcomp */
    int next;                /* its top next-token guess after the sentence (-1: none) */
    double p;                /* ... and its probability */
} ProbeModel;

typedef struct Probe {
    WidgetKind kind;
    int n, L, H;             /* the run's tokens; the model's layers and heads */
    int layer;               /* patching, effect: the one layer done (big models), else -1 */
    int *target;             /* (n): the model's top next-token guess at each position */
    double *loss;            /* (n): −log p(target) at each position (effect) */
    LensTop *top;            /* lens: ((L + 1) · n · PROBE_TOP): block l, position i at
                                (l · n + i) · PROBE_TOP, best first */
    LensAttribution *attr;   /* attribution, effect: (n), position i's split of target[i] */
    int n_heads;             /* effect: heads per row (all, or the layer's) */
    ProbeHead *heads;        /* effect: (n · n_heads), row i's heads at i · n_heads */
    int *case_key;           /* effect: (n) the key every head's weight is read on from row
                                i: the token after the last earlier occurrence of token i
                                (where an induction head looks), else the key the hardest
                                look of the row lands on */
    int corrupt_pos, corrupt_tok; /* patching: the word put at the position */
    int patched;             /* patching: 1 when patch holds the run */
    char patch_why[320];     /* patching: why nothing could be patched ("" when patched) */
    LensPatch patch;         /* patching: the metric is target[n − 1] of the clean run */
    double *roll;            /* rollout: (L · n · n), R_l at l · n · n */
    ProbeModel pair[2];      /* pair: the page's model, then "model2" */
    NamedValues nv;          /* pair: published for {{x NAME}} (probe_run's comment) */
} Probe;

/* Computes the numbers of w's kind (a probe kind) on t, the page model m's run of its
 * sentence: layer is the widget's layer (the one patched or knocked out on a big model). The
 * pair widget publishes, for model a (the page's) and b (w->model2): first_a, second_a (each
 * copy's loss), induction_a and prev_a (the largest induction and previous-token score of its
 * heads), copy_a (the largest OV copying score), layers_a, and the same for b.
 * Allocates *pp the first time (free with probe_free); clears what the last run held. 0, or
 * -1 with a message (a post-norm model for attribution, out of memory, ...). Patching whose
 * corrupted word cannot be placed or changes nothing is not an error: patch_why says why. */
int probe_run(struct Probe **pp, const Widget *w, const Model *m, const Trace *t, int layer,
              char *err, size_t errlen);
void probe_free(struct Probe **pp);
/* The probes the pair widget measures m on (attend heads --probes N --lengths N reproduces
 * them): heads_probe_defaults', or for a model above PROBE_PAIR_BIG two of one length. */
void probe_pair_probe(const Model *m, HeadProbe *hp);
/* Why key is row i's case key (Probe.case_key), in words: "the token after the earlier
 * occurrence" or "the hardest look's". */
const char *probe_case_why(const Trace *t, int i, int key);

/* The attribution parts of position pos ordered by |value|, largest first, into idx (at most
 * max); returns the count. */
int probe_parts_order(const Probe *p, int pos, int *idx, int max);

/* The patching widget's corrupted word and position from its widget's start, or the lesson
 * default: a message when the word is no single token. 0 or -1. */
int probe_corrupt(const Widget *w, const Model *m, int *pos, int *tok, char *err, size_t errlen);

#endif
