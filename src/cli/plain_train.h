/* plain_train.h - the train widget in plain mode: t trains the Session's run (session_train.c)
 * to the end, saying its losses and best head as it goes; on a replay page (the induction
 * model) a fresh model by its recorded recipe. */
#ifndef ATTEND_PLAIN_TRAIN_H
#define ATTEND_PLAIN_TRAIN_H

#include "plain.h"

/* Handles REQ_TRAIN_RUN: the Session's run (or a replay page's live run) trained to the
 * end. 1 when used. */
int plain_train(Plain *p, Request req);

#endif
