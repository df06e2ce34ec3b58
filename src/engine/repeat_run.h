/* repeat_run.h - the repeated-sequence task trained live, step by step, by the recipe a model
 * file records (its "training" object: task, schedule, seed): a fresh model of the same
 * configuration and vocabulary, measured every history_every steps on the same probes as the
 * recorded history (heads_history_add), so a live run retraces the recorded one. For the
 * player's train widget on an induction model and plain mode. No curses, no printing. */
#ifndef ATTEND_REPEAT_RUN_H
#define ATTEND_REPEAT_RUN_H

#include <stddef.h>

#include "heads.h"
#include "model.h"
#include "train.h"

/* The recipe of m's training record: the TrainOpts `attend train` used (repeat task, schedule,
 * seed; threads 2) and its history_every. 0, or -1 with a message naming the missing or bad
 * key when m was not trained on the repeat task or its record lacks one. */
int repeat_recipe_read(const Model *m, TrainOpts *o, int *history_every, char *err,
                       size_t errlen);

/* The training record of a repeated-sequence run, the one writer of what repeat_recipe_read
 * and repeat_record_task read: a JSON object's text (malloc'd) with the config's path, the
 * task and its "repeat" object, the schedule, the final losses of both copies and the history
 * h (when it has points); NULL when out of memory. */
char *repeat_recipe_write(const char *cfg_path, const TrainOpts *o, int every, int done,
                          double avg, const HeadsHistory *h, double first, double second,
                          long tokens);

typedef struct RepeatRun RepeatRun;

/* A run of m's recipe from step 0 (fresh weights from the recorded seed; m is only read).
 * NULL with a message in err. */
RepeatRun *repeat_run_new(const Model *m, char *err, size_t errlen);
/* One optimisation step: 0, 1 when all steps are done (nothing run), -1 on error. */
int repeat_run_step(RepeatRun *r);
/* 1 when a history point is due: at step 0 and every history_every steps and at the last
 * step, not measured yet. */
int repeat_run_due(const RepeatRun *r);
/* Measures the model now and appends the point (both copies' losses, every head's scores;
 * tens of milliseconds at the induction model's size). 0 or -1. */
int repeat_run_measure(RepeatRun *r);
const HeadsHistory *repeat_run_history(const RepeatRun *r);
const Model *repeat_run_model(const RepeatRun *r);
const TrainOpts *repeat_run_opts(const RepeatRun *r);
int repeat_run_steps_done(const RepeatRun *r);
const char *repeat_run_error(const RepeatRun *r);
/* Writes the model as trained so far (model_save: temp file + rename). 0 or -1. */
int repeat_run_save(const RepeatRun *r, const char *path, char *err, size_t errlen);
void repeat_run_free(RepeatRun *r);

#endif
