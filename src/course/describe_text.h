/* describe_text.h - the wording the words for a widget share (describe.h builds on it): a
 * text buffer that appends and marks a cut, which attention a run shows and the tokens of its
 * rows and columns, a row of weights said with its strongest keys, and a tensor as a short
 * table. No curses, no printing. */
#ifndef ATTEND_DESCRIBE_TEXT_H
#define ATTEND_DESCRIBE_TEXT_H

#include <stddef.h>

#include "widget.h"

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
/* The stack and sublayer of the attention io shows (model_view_stack/model_view_sub of io->m
 * and io->cross): self-attention of the one stack of a decoder or encoder; an
 * encoder-decoder's encoder, or with io->cross its decoder's cross-attention. */
Stack describe_stack(const WidgetIO *io);
Sublayer describe_sub(const WidgetIO *io);
/* The token of row i / column j of the attention io shows in trace t (a worked trace: its
 * labels). */
const char *dword_row(const WidgetIO *io, const Trace *t, int i);
const char *dword_col(const WidgetIO *io, const Trace *t, int j);
/* 1: mask M (may be NULL) takes cell (i, j); the cells of rows x cols it takes. */
int dcell_masked(const TraceEntry *M, int i, int j);
int dcount_masked(const TraceEntry *M, int rows, int cols);
/* Every row of weights (or scores) E under mask M (may be NULL) as words: its strongest keys,
 * the rest, the masked keys, the sum. */
void drows(const WidgetIO *io, const Trace *t, const TraceEntry *E, const TraceEntry *M,
           int scores, DBuf *b);
/* Tensor e of trace t as a short table: name, shape, formula, its first rows and columns. */
void dtable(const WidgetIO *io, const Trace *t, const TraceEntry *e, DBuf *b);

#endif
