/* plain_train.h - the train widget in plain mode: t trains the Session's run (session_train.c)
 * to the end, saying its losses and best head as it goes; on a replay page (the induction
 * model) its recorded recipe, and w writes that model. */
#ifndef ATTEND_PLAIN_TRAIN_H
#define ATTEND_PLAIN_TRAIN_H

#include "plain.h"

/* Handles REQ_TRAIN_RUN (train to the end) and, on a replay page, REQ_SAVE. 1 when used. */
int plain_train(Plain *p, Request req);
/* Frees the replay page's run. */
void plain_train_free(void);

#endif
