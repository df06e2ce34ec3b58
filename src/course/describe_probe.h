/* describe_probe.h - the words for the probe widgets (describe_probe.c), called by
 * describe_widget. No curses, no printing. */
#ifndef ATTEND_DESCRIBE_PROBE_H
#define ATTEND_DESCRIBE_PROBE_H

#include "describe.h"
#include "describe_text.h"

/* What a probe widget (lens, attribution, effect, patching, rollout) shows at the view's
 * position (v->step) and io's layer, appended to b. */
void describe_probe(const WidgetIO *io, const DescribeView *v, DBuf *b);

#endif
