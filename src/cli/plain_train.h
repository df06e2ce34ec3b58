/* plain_train.h - the train widget in plain mode: t trains the small decoder of the page
 * (src/engine/watch.c) to the end, saying its losses and best head as it goes; w writes the
 * trained model. */
#ifndef ATTEND_PLAIN_TRAIN_H
#define ATTEND_PLAIN_TRAIN_H

#include "plain.h"

/* Handles REQ_TRAIN_RUN (train to the end) and REQ_SAVE (write attend-trained.json). 1 when
 * used. */
int plain_train(Plain *p, Request req);
/* Frees the trained run. */
void plain_train_free(void);

#endif
