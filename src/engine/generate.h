/* generate.h - a decoder writing one token at a time: the choice of the next token (greedy,
 * or a draw at a temperature from a seeded generator), shared by `attend generate` and the
 * generate widget, and the widget's run of a prompt to a given step: the sequence so far,
 * the next-token probabilities, the K and V rows reused from the step before (measured),
 * and the work done so far with and without a KV cache. No curses, no printing. */
#ifndef ATTEND_GENERATE_H
#define ATTEND_GENERATE_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"
#include "model.h"

#define GEN_TOP_K 5 /* next-token candidates the widget lists */

/* Picks the next token from one row of logits (V entries), never <pad> or <unk>: greedy,
 * the largest; else a draw from softmax(logits / temp) over the top_k largest (top_k <= 0:
 * every token), which takes one number from rng. Out of memory it falls back to greedy. */
int gen_pick(const float *logits, int V, const Vocab *voc, int greedy, float temp, int top_k,
             CorpusRng *rng);

/* How the widget decodes: greedy (temp 0) or sampling at temp from seed over every token
 * (what `attend generate --temperature T --seed S` does). */
typedef struct {
    float temp;          /* 0: greedy; else (0, 100] */
    uint64_t seed;
} GenSampling;

/* One step of the generate widget: the prompt plus `step` generated tokens run through the
 * model, what it would append next and how it got there. */
typedef struct {
    int step;            /* tokens generated so far (0: the prompt alone, the prefill) */
    int n_prompt;        /* prompt tokens */
    int n;               /* tokens run: n_prompt + step */
    int next;            /* the token n would append: the choice from the last row */
    int end;             /* 1: no further step (the last token is '.', the choice is <eos>, or
                            the model's max_len is reached) */
    int n_top;           /* candidates listed (at most GEN_TOP_K) */
    int top_id[GEN_TOP_K];    /* the most likely next tokens (never <pad> or <unk>) */
    double top_p[GEN_TOP_K];  /* their probability: softmax of the last row of logits */
    double top_pt[GEN_TOP_K]; /* sampling: their probability at the temperature (0 greedy) */
    double next_p;       /* the chosen token's probability (softmax of the logits) */
    double next_pt;      /* sampling: its probability at the temperature (0 greedy) */
    float reuse_drift;   /* max |K, V rows 0..n-2 of this run − the run of the step before|
                            over every layer and head (0 at step 0: nothing to reuse) */
    long long rows_cached, rows_full;  /* K/V rows computed so far per head and layer: with
                                          a cache each token once; without, every run again */
    long long macs_cached, macs_full;  /* multiply-adds so far (runs 0..step) */
} GenStep;

/* Runs prompt (n_prompt tokens) and generates step tokens, one model run per step (every
 * run from scratch, so the reused rows are measured, not assumed), with the causal mask
 * and the model's own controls. ids (cap entries, cap >= n_prompt + step) gets the
 * sequence; cur gets the last run (n_prompt + step tokens), prev the run before it (when
 * step >= 1). Both traces must hold cap tokens. Returns 0, or -1 with a message (not a
 * decoder-only model, a step past the end of the text: "step 9 is past the end (the text
 * ends at step 6)"). */
int gen_run(const Model *m, const int *prompt, int n_prompt, int step, const GenSampling *s,
            int *ids, int cap, Trace *cur, Trace *prev, GenStep *out, char *err, size_t errlen);

#endif
