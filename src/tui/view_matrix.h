/* view_matrix.h - the matrix widget's view (view_matrix.c): what x exports from it. */
#ifndef ATTEND_VIEW_MATRIX_H
#define ATTEND_VIEW_MATRIX_H

#include "app.h"

/* The name of the tensor the matrix view shows ("L0.h0.weights"); owned by a. */
const char *matrix_view_tensor(const App *a);

#endif
