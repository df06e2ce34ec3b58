/* The softmax lab's solution, in C (attend lab solution softmax --lang c shows it). */
#include <math.h>

void softmax(const double *X, int n, int m, double *out)
{
    for (int i = 0; i < n; i++) {
        const double *x = X + (long)i * m;
        double *o = out + (long)i * m, mx = -INFINITY, sum = 0;
        for (int j = 0; j < m; j++)
            mx = x[j] > mx ? x[j] : mx;
        if (mx == -INFINITY)
            mx = 0;
        for (int j = 0; j < m; j++)
            sum += (o[j] = exp(x[j] - mx));
        for (int j = 0; j < m; j++)
            o[j] = sum > 0 ? o[j] / sum : 0;
    }
}
