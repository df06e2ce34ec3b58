/* view_train_repeat.h - the train widget's page on a model trained on the repeated-sequence
 * task (view_train_repeat.c), driven by view_train.c. */
#ifndef ATTEND_VIEW_TRAIN_REPEAT_H
#define ATTEND_VIEW_TRAIN_REPEAT_H

#include "app_views.h"

typedef struct TrainRepeat TrainRepeat;

/* 1 when the page's model records a repeat-task recipe (the induction model), 0 otherwise. */
int trr_applies(const Model *m);
/* The replay of m's recorded training, its heads on a repeated sequence, beside the live run
 * the Session's t holds (t, r, w are the Session's: session_train.c); NULL with a message. */
TrainRepeat *trr_new(const Model *m, const SessionTrain *t, char *err, size_t errlen);
/* One slice of live training (a step or a measurement): 1 if it worked, 0 when idle. */
int trr_tick(App *a, TrainRepeat *r);
/* The Session changed the live run (ch): a fresh run's clock, the replay's heatmaps. */
void trr_changed(App *a, TrainRepeat *r, const Change *ch);
void trr_draw(const TrainRepeat *r, Rect rc);
/* Rows the page wants at width w. */
int trr_need(const TrainRepeat *r, int w);
void trr_free(TrainRepeat *r);

#endif
