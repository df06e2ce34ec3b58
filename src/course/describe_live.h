/* describe_live.h - the words for the explanation widgets (worked, scaling, kvcache, cost,
 * params, train, generate), from the numbers live.c computed. Part of the words for a widget (describe.h). No
 * curses. */
#ifndef ATTEND_DESCRIBE_LIVE_H
#define ATTEND_DESCRIBE_LIVE_H

#include "describe_text.h"

/* Appends io's explanation widget in words to b. */
void describe_live(const WidgetIO *io, DBuf *b);

#endif
