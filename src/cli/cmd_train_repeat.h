/* cmd_train_repeat.h - `attend train`'s repeated-sequence task (cmd_train_repeat.c). */
#ifndef ATTEND_CMD_TRAIN_REPEAT_H
#define ATTEND_CMD_TRAIN_REPEAT_H

#include "heads.h"
#include "json.h"
#include "train.h"

/* Reads a training config's "repeat" object (docs/training.md) into o, the history's
 * interval into *every. 0, or -1 with a message (cmd_train_repeat.c). */
int train_repeat_read(const cJSON *r, RepeatOpts *o, int *every, char *msg, size_t msglen);
/* The training record of a repeated-sequence run: a JSON object's text (malloc'd) with the
 * options, the final losses of both copies and the history h; NULL when out of memory. */
char *train_repeat_record(const char *cfg_path, const TrainOpts *o, int every, int done,
                          double avg, const HeadsHistory *h, double first, double second,
                          long tokens);
#endif
