/* Hostile C: never returns. */
void attention(const double *Q, const double *K, const double *V, const double *mask, int n,
               int m, int d_k, int d_v, double *out, double *weights)
{
    for (volatile int i = 0;; i++)
        (void)Q, (void)K, (void)V, (void)mask, (void)n, (void)m, (void)d_k, (void)d_v,
            (void)out, (void)weights;
}
