/* describe_buf.h - what describe.c and describe_live.c share: a text buffer that appends and
 * marks a cut, the tokens of a run's rows and columns, and the words of the explanation
 * widgets. Internal to the words for a widget (describe.h). */
#ifndef ATTEND_DESCRIBE_BUF_H
#define ATTEND_DESCRIBE_BUF_H

#include <stddef.h>

#include "describe.h"

/* Text appended into p (n bytes, NUL-terminated); len bytes used. */
typedef struct {
    char *p;
    size_t n, len;
} DBuf;

/* Appends printf-style; a text too long for the buffer is cut and ends in "...". */
void dbuf_put(DBuf *b, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The token of row i / column j of the attention io shows in trace t (a worked trace: its
 * labels). */
const char *dword_row(const WidgetIO *io, const Trace *t, int i);
const char *dword_col(const WidgetIO *io, const Trace *t, int j);
/* Every row of weights (or scores) E under mask M (may be NULL) as words: its strongest keys,
 * the rest, the masked keys, the sum. */
void drows(const WidgetIO *io, const Trace *t, const TraceEntry *E, const TraceEntry *M,
           int scores, DBuf *b);
/* Tensor e of trace t as a short table: name, shape, formula, its first rows and columns. */
void dtable(const WidgetIO *io, const Trace *t, const TraceEntry *e, DBuf *b);
/* The explanation widgets (worked, scaling, kvcache, cost, params, train, generate) in
 * words (describe_live.c). */
void describe_live(const WidgetIO *io, const DescribeView *v, DBuf *b);
/* The published numbers that changed from a to b ("d_k 64 -> 128"), appended. */
void live_change(const DescribeSnap *a, const DescribeSnap *b, DBuf *o);

#endif
