/* view_matrix.h - the matrix widget's view (view_matrix.c): what x exports from it. */
#ifndef ATTEND_VIEW_MATRIX_H
#define ATTEND_VIEW_MATRIX_H

#include "app.h"

/* The name of the tensor the matrix view shows ("L0.h0.weights"); owned by a. */
const char *matrix_view_tensor(const App *a);

/* Rows the matrix view spends above its table of e at width w: the name, the formula (one
 * line, two when longer), a decoder's note (the blank line it adds only when all fits). */
int matrix_head_rows(App *a, const TraceEntry *e, int w);

#endif
