/* mtable.h - a traced matrix drawn as a scrollable table with token labels (mtable.c),
 * shared by the matrix and shape-passport views. */
#ifndef ATTEND_MTABLE_H
#define ATTEND_MTABLE_H

#include "app.h"

/* Rows mtable_draw needs to draw e whole at width w (column header, rows, and the
 * "cols ... of" line when not every column fits). Columns are as wide as e's widest value
 * needs (7 to 10), the label column as its longest row label. */
int mtable_need(App *a, const TraceEntry *e, int w);
/* The rows and columns of e that mtable_draw shows unscrolled in a w x h rectangle. */
void mtable_visible(App *a, const TraceEntry *e, int w, int h, int *vis_r, int *vis_c);
/* Draws e in r with row labels, scrolled by (sr, sc); returns the rows used. */
int mtable_draw(App *a, Rect r, const TraceEntry *e, int sr, int sc);
/* Applies a scroll request (REQ_SCROLL_UP/DOWN/LEFT/RIGHT) to the row and column offsets;
 * 1 if it was one. Clamp after. */
int mtable_scroll(Request req, int *sr, int *sc);
/* Clamps the offsets to e so that keys never scroll into emptiness (e NULL: no change). */
void mtable_clamp(const TraceEntry *e, int *sr, int *sc);
/* 1: e is a decoder tensor of an encoder-decoder model (its rows are the target's words). */
int mtable_encdec_dec(const App *a, const TraceEntry *e);

#endif
