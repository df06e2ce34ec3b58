/* train.h - training attend's models: a forward pass that keeps what the backward pass needs,
 * the backward pass (every component the models use), AdamW with warm-up, cosine decay and
 * gradient clipping, and a step-by-step training API a view can drive. Deterministic: the
 * same seed gives the same weights, bit for bit. No curses, no printing, no exit(). */
#ifndef ATTEND_TRAIN_H
#define ATTEND_TRAIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "corpus.h"
#include "model.h"
#include "repeat.h"

/* ---- one example, forward and backward ---- */

/* A training example. Decoder or encoder model: src holds n input tokens and targets n ids
 * (the token to predict at each position, -1 = no loss there; for an encoder, the original
 * word at each masked position, see train_mlm_mask). Encoder-decoder: src is the
 * encoder input (n), dec the decoder input (m) and targets m ids. */
typedef struct {
    const int *src;
    int n;
    const int *dec;
    int m;
    const int *targets;
} TrainExample;

typedef struct TrainWork TrainWork;

/* Buffers for sequences up to max_n (and max_m decoder tokens). NULL on failure. */
TrainWork *train_work_new(const Model *m, int max_n, int max_m);
void train_work_free(TrainWork *w);

/* Runs the model on ex, with (causal = 1) or without the causal mask on the self-attention
 * of the decoder stack. Returns the summed cross-entropy over target positions and writes
 * their count to *count. If grad is not NULL (n_floats, laid out like m->data), adds the
 * gradient of that sum to it. Returns a negative value on a bad example (too long, bad id). */
double train_forward_backward(const Model *m, TrainWork *w, const TrainExample *ex, int causal,
                              float *grad, int *count);
/* The logits of the last train_forward_backward call: (rows, vocab) with rows n (or m). */
const float *train_work_logits(const TrainWork *w, int *rows);

/* ---- optimisation ---- */

typedef struct {
    int steps;           /* optimisation steps */
    int batch;           /* sequences per step */
    int seq_len;         /* LM: tokens per sequence (<= max_len) */
    float lr;            /* peak learning rate */
    float min_lr_ratio;  /* cosine decay ends at lr * this */
    int warmup;          /* linear warm-up steps */
    float weight_decay;  /* AdamW, matrices only (not gains and biases) */
    float beta1, beta2, eps;
    float clip;          /* global gradient-norm clip, 0 = off */
    int causal;          /* 1: causal mask on the decoder's self-attention while training */
    float mask_rate;     /* encoder (masked LM): fraction of tokens chosen for prediction */
    int threads;         /* worker threads (1 or 2); the result does not depend on it */
    uint64_t seed;
    RepeatOpts repeat;   /* repeat.on: the repeated-sequence task (decoder; no corpus) */
} TrainOpts;

void train_opts_defaults(TrainOpts *o);

/* Learning rate at step (0-based): linear warm-up, then cosine decay to lr*min_lr_ratio. */
float train_lr_at(const TrainOpts *o, int step);

/* One AdamW update of n weights with gradient g (already scaled and clipped); decay[i] 1 if
 * weight i decays. t is the 1-based step number. Bias-corrected like torch.optim.AdamW. */
void train_adamw(float *w, const float *g, float *mom, float *vel, const unsigned char *decay,
                 size_t n, int t, float lr, const TrainOpts *o);

/* ---- masked language modelling (encoder-only models, BERT-style) ---- */

/* The token that hides a word from an encoder: <mask> if the vocabulary has it, else <unk>. */
int train_mask_id(const Model *m);

/* BERT's corruption of one sentence ids[0..n-1], deterministic from rng: each token is chosen
 * with probability rate (at least one token is always chosen); a chosen token becomes mask_id
 * 80% of the time, a random token drawn from pool[0..n_pool-1] 10% of the time (pool NULL:
 * mask_id instead), and stays itself 10% of the time. Writes the input to src and the targets
 * to tgt (the original word where chosen, -1 elsewhere). Returns the number chosen. */
int train_mlm_mask(CorpusRng *rng, const int *ids, int n, float rate, int mask_id,
                   const int *pool, int n_pool, int *src, int *tgt);

/* ---- the step-by-step training API ---- */

typedef struct Trainer Trainer;

/* Prepares training m (its weights are updated in place; the trainer does not own m or c).
 * Randomly initialises m with o->seed if init is 1. Returns NULL with a message in err.
 * Decoder: next-token prediction on seq_len-token windows of an LM corpus. Encoder: masked
 * LM, one sentence (line) of an LM corpus per example, masked with train_mlm_mask at
 * o->mask_rate. Encoder-decoder: translation of a pairs corpus. With o->repeat.on (a decoder
 * only) c may be NULL: each example is repeat_example's, seq_len tokens from the model's
 * vocabulary (repeat_pool) behind <bos> when the vocabulary has it. */
Trainer *train_new(Model *m, const Corpus *c, const TrainOpts *o, int init, char *err,
                   size_t errlen);
/* Runs one optimisation step (one batch). Returns 0, 1 when all steps are done (nothing
 * run), or -1 on error (message via train_error). Takes milliseconds on the shipped sizes. */
int train_step(Trainer *t);
/* One step on the given examples instead of a sampled batch (1..batch of them), e.g. on the
 * sentence a learner typed. Returns 0 or -1. The step still counts towards the schedule. */
int train_step_on(Trainer *t, const TrainExample *ex, int n_ex);
/* The gradient used by the last step: batch mean, after clipping (n_floats, like m->data). */
const float *train_last_grad(const Trainer *t);
int train_step_count(const Trainer *t);   /* steps done */
float train_last_loss(const Trainer *t);  /* mean loss of the last step's batch */
float train_last_lr(const Trainer *t);
float train_last_grad_norm(const Trainer *t);
long train_tokens_done(const Trainer *t); /* target tokens seen so far */
const char *train_error(const Trainer *t);
/* Mean loss over the first max_examples examples of corpus c (deterministic; LM corpora are
 * cut into consecutive sequences of o->seq_len). causal as in train_forward_backward.
 * Encoder: the masked-LM loss over the first max_examples sentences, each masked by
 * train_mlm_mask at o->mask_rate with a fixed seed (the same masks for every model) and
 * every chosen token replaced by the mask (no random or kept tokens). */
double train_eval_loss(const Model *m, const Corpus *c, const TrainOpts *o, int causal,
                       int max_examples);
void train_free(Trainer *t);

/* ---- what the heads do (computed with model_forward, as the course shows them) ---- */

/* Mean attention weight of one self-attention head on the previous token, on itself and on
 * the first token, over every query row i >= 1; and on the next token, over every row that
 * has one (0 under a causal mask). */
typedef struct {
    double prev, self, first, next;
    long rows, next_rows;
} HeadStat;

/* Fills out[layer * n_heads + head] for the self-attention of the main stack (the decoder's,
 * or the encoder's for encoder models and the encoder of an encoder-decoder when enc is 1),
 * over the first max_lines sentences of c (LM corpus: each line run alone from position 0;
 * pairs: the English side for the encoder, <bos> + French for the decoder). 0 or -1. */
int train_head_stats(const Model *m, const Corpus *c, int max_lines, int enc, HeadStat *out);

/* Cross-attention alignment of an encoder-decoder on the pairs of c that have alignments: the
 * decoder row that produces French word j (its input is the word before, or <bos>) should put
 * its largest weight on an English word linked to j. head -1 uses the mean of the layer's heads.
 * Writes the fraction of French words whose argmax is aligned, and the fraction of pairs where
 * every word's is. 0, or -1 (not an encoder-decoder, no alignments, forward error). */
int train_cross_alignment(const Model *m, const Corpus *c, int layer, int head,
                          double *word_acc, double *pair_acc);

#endif
