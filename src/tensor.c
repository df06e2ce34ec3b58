/* tensor.c - pure float math on row-major matrices (see tensor.h). */
#include "tensor.h"

#include <math.h>
#include <string.h>

/* Register tile: 4 rows × 16 columns of out accumulate over the whole k loop, so each loaded
 * row of b is used four times and out is written once. Plain C that compilers vectorize. */
#define MM_R 4
#define MM_C 16
void tensor_matmul(float *restrict out, const float *restrict a, const float *restrict b, int n,
                   int k, int m)
{
    int i = 0;
    for (; i + MM_R <= n; i += MM_R) {
        int j = 0;
        for (; j + MM_C <= m; j += MM_C) {
            float acc[MM_R][MM_C] = {{0}};
            for (int p = 0; p < k; p++) {
                const float *br = b + (size_t)p * m + j;
                for (int r = 0; r < MM_R; r++) {
                    float av = a[(size_t)(i + r) * k + p];
                    for (int c = 0; c < MM_C; c++)
                        acc[r][c] += av * br[c];
                }
            }
            for (int r = 0; r < MM_R; r++)
                memcpy(out + (size_t)(i + r) * m + j, acc[r], sizeof acc[r]);
        }
        for (; j < m; j++)
            for (int r = 0; r < MM_R; r++) {
                float s = 0.0f;
                for (int p = 0; p < k; p++)
                    s += a[(size_t)(i + r) * k + p] * b[(size_t)p * m + j];
                out[(size_t)(i + r) * m + j] = s;
            }
    }
    for (; i < n; i++) {
        float *o = out + (size_t)i * m;
        memset(o, 0, sizeof(float) * (size_t)m);
        const float *ar = a + (size_t)i * k;
        for (int p = 0; p < k; p++) {
            float av = ar[p];
            const float *br = b + (size_t)p * m;
            for (int j = 0; j < m; j++)
                o[j] += av * br[j];
        }
    }
}

void tensor_matmul_bt(float *restrict out, const float *restrict a, const float *restrict b,
                      int n, int k, int m)
{
    for (int i = 0; i < n; i++) {
        const float *ar = a + (size_t)i * k;
        for (int j = 0; j < m; j++) {
            const float *br = b + (size_t)j * k;
            /* Eight partial sums: lets the compiler use SIMD lanes for the dot product. */
            float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            int p = 0;
            for (; p + 8 <= k; p += 8)
                for (int u = 0; u < 8; u++)
                    acc[u] += ar[p + u] * br[p + u];
            float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
            for (; p < k; p++)
                s += ar[p] * br[p];
            out[(size_t)i * m + j] = s;
        }
    }
}

void tensor_cols(float *out, const float *a, int n, int lda, int c0, int w)
{
    for (int i = 0; i < n; i++)
        memcpy(out + (size_t)i * w, a + (size_t)i * lda + c0, sizeof(float) * (size_t)w);
}

void tensor_add(float *out, const float *a, const float *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        out[i] = a[i] + b[i];
}

void tensor_scale(float *x, float s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        x[i] *= s;
}

void tensor_add_row(float *x, const float *bias, int n, int m)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            x[(size_t)i * m + j] += bias[j];
}

void tensor_softmax_rows(float *x, int n, int m)
{
    for (int i = 0; i < n; i++) {
        float *r = x + (size_t)i * m;
        float mx = -INFINITY;
        for (int j = 0; j < m; j++)
            if (r[j] > mx)
                mx = r[j];
        if (mx == -INFINITY) { /* every key masked: no distribution, all zeros */
            memset(r, 0, sizeof(float) * (size_t)m);
            continue;
        }
        float sum = 0.0f;
        for (int j = 0; j < m; j++) {
            r[j] = (r[j] == -INFINITY) ? 0.0f : expf(r[j] - mx);
            sum += r[j];
        }
        float inv = 1.0f / sum;
        for (int j = 0; j < m; j++)
            r[j] *= inv;
    }
}

void tensor_layernorm(float *out, const float *x, const float *gain, const float *bias,
                      int n, int m, float eps)
{
    for (int i = 0; i < n; i++) {
        const float *r = x + (size_t)i * m;
        float *o = out + (size_t)i * m;
        double mean = 0.0, var = 0.0;
        for (int j = 0; j < m; j++)
            mean += r[j];
        mean /= m;
        for (int j = 0; j < m; j++)
            var += (r[j] - mean) * (r[j] - mean);
        var /= m;
        float inv = (float)(1.0 / sqrt(var + eps));
        for (int j = 0; j < m; j++)
            o[j] = gain[j] * ((r[j] - (float)mean) * inv) + (bias ? bias[j] : 0.0f);
    }
}

void tensor_rmsnorm(float *out, const float *x, const float *gain, int n, int m, float eps)
{
    for (int i = 0; i < n; i++) {
        const float *r = x + (size_t)i * m;
        float *o = out + (size_t)i * m;
        double ss = 0.0;
        for (int j = 0; j < m; j++)
            ss += (double)r[j] * r[j];
        float inv = (float)(1.0 / sqrt(ss / m + eps));
        for (int j = 0; j < m; j++)
            o[j] = gain[j] * (r[j] * inv);
    }
}

void tensor_relu(float *x, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (x[i] < 0.0f)
            x[i] = 0.0f;
}

float tensor_gelu1(float x)
{
    const float c = 0.7978845608028654f; /* sqrt(2/pi) */
    return 0.5f * x * (1.0f + tanhf(c * (x + 0.044715f * x * x * x)));
}

void tensor_gelu(float *x, size_t len)
{
    for (size_t i = 0; i < len; i++)
        x[i] = tensor_gelu1(x[i]);
}

float tensor_silu1(float x)
{
    return x / (1.0f + expf(-x));
}

float tensor_max_abs_diff(const float *a, const float *b, size_t len)
{
    float mx = 0.0f;
    for (size_t i = 0; i < len; i++) {
        float d = fabsf(a[i] - b[i]);
        if (d != d)
            return INFINITY;
        if (d > mx)
            mx = d;
    }
    return mx;
}
