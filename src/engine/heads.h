/* heads.h - what each attention head does, measured the one way lessons, the quiz, `attend
 * heads` and the tests all use: scores on fresh random repeated sequences (TransformerLens's
 * probes), and the loss on each copy, with any heads knocked out. No curses, no printing. */
#ifndef ATTEND_HEADS_H
#define ATTEND_HEADS_H

#include <stdint.h>

#include "model.h"
#include "repeat.h"

#define HEADS_MAX_LENS 8

/* The probes: for each segment length lens[i], n_probes sequences [<bos>, R, R] (R: n
 * distinct random words of the vocabulary when it has that many), and as many
 * [<bos>, R, shuffled R] for the prefix-matching score. */
typedef struct {
    uint64_t seed;
    int n_probes;               /* sequences per length */
    int lens[HEADS_MAX_LENS];   /* segment lengths, each 2..(max_len-1)/2 */
    int n_lens;
} HeadProbe;

/* One self-attention head's scores, each a mean attention weight (0..1):
 *   prev       on the previous token (rows i >= 1 of the repeated probes)
 *   induction  from each second-copy position on the token just after the earlier occurrence
 *              of its own token (the first copy's next position)
 *   by_len     the induction score at each probe length (a head that looks a fixed distance
 *              back scores at one length only)
 *   prefix     the same target on the shuffled probes: the token after the earlier occurrence,
 *              whatever the order around it
 *   self       on itself, first on the first token (rows i >= 1) */
typedef struct {
    double prev, induction, prefix, self, first;
    double by_len[HEADS_MAX_LENS];
} HeadScores;

/* Defaults for m: 32 probes a length, seed 1; lengths: when m->training records the
 * repeated-sequence task (repeat.min_segment..max_segment), up to four lengths it never trained
 * on (3 and min_segment-1 below, max_segment+1 and (max_len-1)/2 above, those that exist),
 * otherwise four lengths spread over 3..(max_len-1)/2. n_lens is 0 when max_len < 7. */
void heads_probe_defaults(const Model *m, HeadProbe *p);
/* The same, for a model trained on segments of lo..hi (0, 0: none recorded). */
void heads_probe_for(const Model *m, int lo, int hi, HeadProbe *p);

/* Every self-attention head's scores of the main stack (out[layer * n_heads + head]) under
 * controls c (its ablate bits knock heads out; NULL: the model's defaults), over p's probes.
 * Runs model_forward; 0 or -1 with a message. */
int heads_scores(const Model *m, const HeadProbe *p, const Controls *c, HeadScores *out,
                 char *err, size_t errlen);

/* Mean next-token cross-entropy (nats) on p's repeated probes under c: *first over the first
 * copy's positions s1..s1+n-2 (random words: about ln(words) for any model), *second over the
 * second copy's s2..s2+n-2 (what induction makes predictable). 0 or -1. */
int heads_copy_loss(const Model *m, const HeadProbe *p, const Controls *c, double *first,
                    double *second, char *err, size_t errlen);

/* The score names in order ("prev", "induction", "prefix", "self", "first") and a score by
 * index 0..4. */
#define HEADS_N_SCORES 5
const char *heads_score_name(int i);
double heads_score(const HeadScores *s, int i);

/* ---- what knocking heads out changed: two runs of one sentence, intact and ablated ---- */

/* Mean next-token cross-entropy (nats) of a decoder or encoder run over its positions
 * 0..n-2 (each predicting the token after it); NAN for fewer than 2 tokens or an
 * encoder-decoder (whose rows predict the target words: its positions 0..m-1). */
double heads_sentence_loss(const Trace *t);
/* The most likely next token at row i of t's logits and its probability (*p may be NULL);
 * -1 when t has no such row. */
int heads_top_next(const Trace *t, int i, double *p);
/* The largest |a − b| between the self-attention weights of the two runs of the same tokens
 * (main stack), over every head of layers >= from_layer; its layer, head and query row. 0 when
 * equal or not comparable. */
double heads_pattern_change(const Trace *a, const Trace *b, int from_layer, int *layer,
                            int *head, int *row);
/* Parses "L.H" or a comma list of them ("1.2,0.3") into ablate bits (Controls.ablate), added
 * to what is there. 0, or -1 with a message naming the bad item; ranges are checked against
 * m when m is not NULL (layers 0..n_layers-1, heads 0..n_heads-1). */
int heads_ablate_parse(const char *s, const Model *m, uint64_t *ablate, char *err,
                       size_t errlen);
/* Writes the knocked-out heads of ablate as "L1.h2, L0.h3" (or "" for none) into out. */
void heads_ablate_names(const Model *m, const uint64_t *ablate, char *out, size_t outlen);

/* ---- a training run's history: both copies' losses and every head's scores over the steps */
typedef struct {
    HeadProbe probe;  /* what every point is measured on */
    int n, cap;       /* points recorded */
    int n_heads;      /* layers × heads */
    int *step;        /* (cap) the step after which each point was measured (0: before) */
    float *train_loss;  /* (cap) the last step's training loss (NAN at step 0) */
    float *loss_first, *loss_second; /* (cap) heads_copy_loss */
    float *scores;    /* (cap, n_heads, HEADS_N_SCORES) heads_scores */
} HeadsHistory;

/* Starts an empty history for m measured on p (copied). 0 or -1 (out of memory). */
int heads_history_init(HeadsHistory *h, const Model *m, const HeadProbe *p);
/* Measures m now (after `step` steps) and appends a point. 0 or -1 with a message. */
int heads_history_add(HeadsHistory *h, const Model *m, int step, float train_loss, char *err,
                      size_t errlen);
/* The history as a JSON object (docs/model-format.md, "training.history"): malloc'd text, or
 * NULL when out of memory. */
char *heads_history_json(const HeadsHistory *h);
/* Reads m->training's "history" (as heads_history_json writes it) into h: 0, or -1 with a
 * message when m has none or it is malformed (h is then empty). Free with heads_history_free. */
int heads_history_read(const Model *m, HeadsHistory *h, char *err, size_t errlen);
/* The values of one series of h: "loss_first", "loss_second", "train_loss", or a score of one
 * head "SCORE.L.H" ("induction.1.0", "prev.0.1"); writes h->n values to out (NAN where none
 * was measured). 0, or -1 with a message naming the series. */
int heads_history_series(const HeadsHistory *h, const Model *m, const char *name, float *out,
                         char *err, size_t errlen);
/* The first recorded step whose second-copy loss is below half of the first point's, or -1. */
int heads_history_phase(const HeadsHistory *h);
void heads_history_free(HeadsHistory *h);

#endif
