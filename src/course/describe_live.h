/* describe_live.h - the words for the explanation widgets (worked, scaling, kvcache, cost,
 * params, train, generate), from the numbers live.c computed, and which published numbers
 * changed between two runs. Part of the words for a widget (describe.h). No curses. */
#ifndef ATTEND_DESCRIBE_LIVE_H
#define ATTEND_DESCRIBE_LIVE_H

#include "describe_text.h"

/* Appends io's explanation widget in words to b. */
void describe_live(const WidgetIO *io, DBuf *b);
/* Appends the numbers of b that differ from a ("d_k 64 -> 128; "), at most a few. */
void describe_live_change(const NamedValues *a, const NamedValues *b, DBuf *o);

#endif
