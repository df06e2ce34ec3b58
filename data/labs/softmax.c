/* attend lab softmax, in C: softmax over the rows of a matrix.
 *
 * Check it with:   attend lab check softmax softmax.c     (compiled with cc and -lm)
 * Re-check on save: attend lab watch softmax softmax.c
 *
 * The contract: X is n rows of m scores (row-major, X[i*m + j]); write into out (n×m) the
 * softmax of each row: e^X[i][j] / Σ_j' e^X[i][j']. -INFINITY entries get exactly 0; a row
 * that is -INFINITY everywhere gets all 0 (never NaN). Scores may be near ±1000, where exp()
 * of a score overflows. */
#include <math.h>

void softmax(const double *X, int n, int m, double *out)
{
    for (int i = 0; i < n; i++) {
        const double *x = X + (long)i * m;
        double *o = out + (long)i * m;
        /* TODO: the row's max (use 0 when the row is -INFINITY everywhere) */
        /* TODO: o[j] = exp(x[j] - max), and their sum */
        /* TODO: divide by the sum (a sum of 0 leaves the row at 0) */
        (void)x;
        (void)o;
    }
}
