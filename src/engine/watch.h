/* watch.h - "watch attention learn": a small decoder trained step by step from a fixed seed
 * on the shipped corpus, measured as it goes (train and held-out loss, the best head's
 * previous-token score), for `attend train --watch` and the player's train widget. Built on
 * the public Trainer API (train.h). No curses, no printing. */
#ifndef ATTEND_WATCH_H
#define ATTEND_WATCH_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"
#include "model.h"
#include "train.h"

/* What a watch run trains: the model size and the schedule. */
typedef struct {
    int d_model, n_heads, n_layers, d_ff, max_len;
    int steps, batch, seq_len, warmup;
    float lr;
    uint64_t seed;
    int causal;          /* 0: the cheating run (no causal mask while training) */
    int eval_examples;   /* sequences of seq_len tokens measured for each loss */
    int stat_lines;      /* held-out sentences measured for the previous-token score */
} WatchOpts;

/* The defaults: the size chosen so a previous-token head (score >= 0.5) forms within the
 * default steps in well under 30 s on one core (docs/training.md, "Watching a head form"). */
void watch_opts_defaults(WatchOpts *o);

/* One measurement of a run. */
typedef struct {
    int step;
    double train_loss;    /* mean loss on the first eval_examples training sequences, with the
                             run's own mask setting (the cheating run reads ahead here too) */
    double heldout_loss;  /* same on the held-out text, always with the causal mask */
    double best_prev;     /* the best head's mean weight on the previous token */
    int best_layer, best_head;
} WatchPoint;

/* The model configuration of o's size for a vocabulary of vocab_size words. */
void watch_model_config(const WatchOpts *o, int vocab_size, ModelConfig *mc);

typedef struct WatchRun WatchRun;

/* Loads the vocabulary and the corpora (train, held-out) and builds a freshly initialised
 * model of o's size. NULL with "FILE: message" in err. */
WatchRun *watch_new(const char *vocab_path, const char *corpus_path, const char *eval_path,
                    const WatchOpts *o, char *err, size_t errlen);
/* Re-initialises the model from the seed with the causal setting given: step 0 again. */
int watch_reset(WatchRun *w, int causal, char *err, size_t errlen);
/* Runs one optimisation step: 0, 1 when all steps are done, -1 on error (watch_error). */
int watch_step(WatchRun *w);
/* Measures the model as it is now into p. 0 or -1. */
int watch_measure(WatchRun *w, WatchPoint *p);
/* One of them (heldout 0: the training text with the run's mask; 1: held-out, masked), so a
 * view can spread a measurement over two slices. 0 or -1. */
int watch_loss(WatchRun *w, int heldout, double *loss);
/* The best head of watch_head_prev's scores: its score, layer and head. 0 or -1. */
int watch_best_head(WatchRun *w, double *score, int *layer, int *head);
int watch_steps_done(const WatchRun *w);
long watch_tokens_done(const WatchRun *w);
const Model *watch_model(const WatchRun *w);
const WatchOpts *watch_opts(const WatchRun *w);
const char *watch_error(const WatchRun *w);
/* Greedy continuation of prompt by the run's model (causal), stopping at "." or max_new
 * tokens or max_len; writes the words, space-separated, to out. Returns tokens added or -1. */
int watch_generate(const WatchRun *w, const char *prompt, int max_new, char *out, size_t outlen);
/* Saves the trained model (model_save: temp file + rename). 0 or -1 with a message. */
int watch_save(WatchRun *w, const char *path, char *err, size_t errlen);
void watch_free(WatchRun *w);

#endif
