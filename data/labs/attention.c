/* attend lab attention, in C: scaled dot-product attention.
 *
 * Check it with:   attend lab check attention attention.c     (compiled with cc and -lm)
 * Re-check on save: attend lab watch attention attention.c
 *
 * The contract (all arrays row-major doubles):
 *   Q is n×d_k, K is m×d_k, V is m×d_v, mask is NULL or n×m of 0 and -INFINITY (additive).
 *   Write weights (n×m) = softmax(Q·Kᵀ / √d_k + mask) row by row, and out (n×d_v) =
 *   weights·V. A row the mask hides everywhere gets weights 0 and output 0 (never NaN). Some
 *   scores are in the thousands: subtract each row's max before exp(). */
#include <math.h>

void attention(const double *Q, const double *K, const double *V, const double *mask, int n,
               int m, int d_k, int d_v, double *out, double *weights)
{
    for (int i = 0; i < n; i++) {
        double *w = weights + (long)i * m;
        /* TODO: w[j] = (row i of Q · row j of K) / sqrt(d_k), plus mask[i*m + j] if mask */
        /* TODO: softmax of w (the max first; a row of -INFINITY only becomes 0) */
        /* TODO: out[i*d_v + c] = Σ_j w[j] · V[j*d_v + c] */
        (void)w;
    }
    (void)Q; (void)K; (void)V; (void)mask; (void)d_k; (void)d_v; (void)out;
}
