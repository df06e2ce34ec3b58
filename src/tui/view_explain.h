/* view_explain.h - helpers shared by the explanation views (view_worked.c, view_scaling.c,
 * view_kvcache.c, view_cost.c, view_params.c); defined in view_explain.c. */
#ifndef ATTEND_VIEW_EXPLAIN_H
#define ATTEND_VIEW_EXPLAIN_H

#include <stddef.h>

#include "app.h"

/* An integer with its digits grouped by three: thin spaces in UTF-8, spaces in ASCII.
 * Returns out. */
const char *ex_group(long long v, char *out, size_t n);
/* A byte count as "512 B", "8.0 KiB", "1.5 MiB", "2.0 GiB". Returns out. */
const char *ex_bytes(long long v, char *out, size_t n);
/* A horizontal bar of frac (0..1) of w columns: eighth blocks in UTF-8, '#' in ASCII; at
 * least a sliver when frac > 0. In the current attribute. */
void ex_bar(int y, int x, int w, double frac);
/* The run error (or "nothing to show") when a->s->ran is 0; returns 1 if it drew it. */
int ex_not_ran(App *a, Rect r);

#endif
