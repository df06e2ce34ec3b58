/* ablation.h - the words for a knocked-out head (the player's X key, plain front ends): what
 * knocking heads out changed on the sentence, computed once below the front ends. */
#ifndef ATTEND_ABLATION_H
#define ATTEND_ABLATION_H

#include <stddef.h>

#include "model.h"

#define ABLATION_COLS 80 /* the status line it is shown on, at 80x24 */

/* Compares the run t (heads knocked out by t->ctl.ablate) with the same tokens and controls
 * with every head in place, and writes one line of at most ABLATION_COLS columns to out: the
 * head, the loss on the sentence before and after ("loss 3.62 -> 3.36 nats"), how many
 * next-word predictions changed (after which word first), and the largest change in a later
 * layer's pattern; the last parts are left out when the line would be longer. layer/head name the head just toggled. 0, or -1 with a
 * message in out (out of memory, a forward error). */
int ablation_words(const Trace *t, int layer, int head, char *out, size_t n);

#endif
