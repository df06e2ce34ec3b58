/* tensor.c - pure float math on row-major matrices (see tensor.h). */
#include "tensor.h"

#include <math.h>
#include <string.h>

/* GNU C vector types for the kernels below; on x86-64 a second copy of each kernel is compiled
 * for AVX2/FMA machines (x86-64-v3) and chosen at load time, the plain SSE2 copy otherwise.
 * tensor_matmul lives in tensor_matmul.c (built with FMA contraction). */
typedef float v8f __attribute__((vector_size(32)));
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define TENSOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define TENSOR_CLONES
#endif

TENSOR_CLONES
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

TENSOR_CLONES
void tensor_add(float *out, const float *a, const float *b, size_t len)
{
    for (size_t i = 0; i < len; i++)
        out[i] = a[i] + b[i];
}

TENSOR_CLONES
void tensor_scale(float *x, float s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        x[i] *= s;
}

TENSOR_CLONES
void tensor_add_row(float *restrict x, const float *restrict bias, int n, int m)
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

TENSOR_CLONES
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
        float inv = (float)(1.0 / sqrt(var + eps)), mu = (float)mean;
        for (int j = 0; j < m; j++)
            o[j] = gain[j] * ((r[j] - mu) * inv);
        if (bias)
            for (int j = 0; j < m; j++)
                o[j] += bias[j];
    }
}

TENSOR_CLONES
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
    /* 0.5·(1 + tanh(u)) is exactly sigmoid(2u): one expf instead of tanhf. */
    const float c = 0.7978845608028654f; /* sqrt(2/pi) */
    float u = c * (x + 0.044715f * x * x * x);
    return x / (1.0f + expf(-2.0f * u));
}

typedef int v8i __attribute__((vector_size(32)));

/* e^x for 8 floats at once, in place: x = n·ln2 + r, e^r by Cephes' degree-6 polynomial
 * (relative error about 2e-7 on |r| ≤ ln2/2), 2^n from the exponent bits. Arguments are
 * clamped to ±88.37 (the float range). By pointer: no vector-ABI differences between clones. */
static inline void exp8(v8f *px)
{
    v8f x = *px;
    v8i xi, lo, hi, m;
    const float cl = 88.3762626647949f;
    v8f hif = {cl, cl, cl, cl, cl, cl, cl, cl}, lof = -hif;
    memcpy(&xi, &x, sizeof xi);
    memcpy(&hi, &hif, sizeof hi);
    memcpy(&lo, &lof, sizeof lo);
    m = x > hif;                                     /* -1 where above the range */
    xi = (xi & ~m) | (hi & m);
    memcpy(&x, &xi, sizeof x);
    m = x < lof;
    xi = (xi & ~m) | (lo & m);
    memcpy(&x, &xi, sizeof x);
    v8f fx = x * 1.44269504088896341f + 0.5f;
    v8i n = __builtin_convertvector(fx, v8i);       /* truncation toward zero */
    v8f nf = __builtin_convertvector(n, v8f);
    n += (v8i)(nf > fx);                             /* floor: -1 where truncation went up */
    nf = __builtin_convertvector(n, v8f);
    v8f r = x - nf * 0.693359375f + nf * 2.12194440e-4f;
    v8f r2 = r * r;
    v8f y = 1.9875691500E-4f * r + 1.3981999507E-3f;
    y = y * r + 8.3334519073E-3f;
    y = y * r + 4.1665795894E-2f;
    y = y * r + 1.6666665459E-1f;
    y = y * r + 5.0000001201E-1f;
    y = y * r2 + r + 1.0f;
    v8i bits = (n + 127) << 23;
    v8f scale;
    memcpy(&scale, &bits, sizeof scale);
    *px = y * scale;
}

TENSOR_CLONES
void tensor_gelu(float *x, size_t len)
{
    const float c = 0.7978845608028654f; /* sqrt(2/pi) */
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        v8f v;
        memcpy(&v, x + i, sizeof v);
        v8f e = -2.0f * c * (v + 0.044715f * v * v * v);
        exp8(&e);
        v = v / (1.0f + e);
        memcpy(x + i, &v, sizeof v);
    }
    for (; i < len; i++)
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
