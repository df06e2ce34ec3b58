/* The attention lab's solution in C, the starter's TODOs filled in (attend lab solution
 * attention --lang c shows it). */
#include <math.h>

void attention(const double *Q, const double *K, const double *V, const double *mask, int n,
               int m, int d_k, int d_v, double *out, double *weights)
{
    for (int i = 0; i < n; i++) {
        double *w = weights + (long)i * m, mx = -INFINITY, sum = 0;
        for (int j = 0; j < m; j++) {
            double s = 0;
            for (int c = 0; c < d_k; c++)
                s += Q[i * d_k + c] * K[j * d_k + c];
            w[j] = s / sqrt((double)d_k) + (mask ? mask[i * m + j] : 0);
            if (w[j] > mx)
                mx = w[j];
        }
        if (mx == -INFINITY)
            mx = 0;
        for (int j = 0; j < m; j++)
            sum += (w[j] = exp(w[j] - mx));
        for (int j = 0; j < m; j++)
            w[j] = sum > 0 ? w[j] / sum : 0;
        for (int c = 0; c < d_v; c++) {
            double o = 0;
            for (int j = 0; j < m; j++)
                o += w[j] * V[j * d_v + c];
            out[i * d_v + c] = o;
        }
    }
}
