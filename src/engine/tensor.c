/* tensor.c - pure float math on row-major matrices (see tensor.h). */
#include "tensor.h"

#include <math.h>
#include <string.h>

/* GNU C vector types for the kernels below; on x86-64 a second copy of each kernel is compiled
 * for AVX2/FMA machines (x86-64-v3) and chosen at load time, the plain SSE2 copy otherwise.
 * tensor_matmul lives in tensor_matmul.c (built with FMA contraction). */
typedef float v8f __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32))); /* eight ints: masks of v8f comparisons */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define TENSOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define TENSOR_CLONES
#endif

/* Columns of b (rows of the product) handled together: b's block is transposed once into a
 * local buffer and reused for every row of a. */
#define BT_BLOCK 8
#define BT_MAX_K 1024

/* One output element the plain way: eight partial sums over p ≡ u (mod 8), combined
 * ((0+4)+(1+5))+((2+6)+(3+7)), then the last k % 8 products in order. The blocked path below
 * computes exactly this, eight elements at a time. */
static float dot_bt(const float *ar, const float *br, int k)
{
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int p = 0;
    for (; p + 8 <= k; p += 8)
        for (int u = 0; u < 8; u++)
            acc[u] += ar[p + u] * br[p + u];
    float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (; p < k; p++)
        s += ar[p] * br[p];
    return s;
}

TENSOR_CLONES
void tensor_matmul_bt(float *restrict out, const float *restrict a, const float *restrict b,
                      int n, int k, int m)
{
    float tb[BT_MAX_K * BT_BLOCK]; /* tb[p][u] = b[j + u][p] */
    int j = 0;
    for (; k <= BT_MAX_K && j + BT_BLOCK <= m; j += BT_BLOCK) {
        for (int u = 0; u < BT_BLOCK; u++)
            for (int p = 0; p < k; p++)
                tb[p * BT_BLOCK + u] = b[(size_t)(j + u) * k + p];
        for (int i = 0; i < n; i++) {
            const float *ar = a + (size_t)i * k;
            v8f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0}, t;
            int p = 0;
            for (; p + 8 <= k; p += 8) {
                const float *tp = tb + p * BT_BLOCK;
#define BT_LANE(u, acc) memcpy(&t, tp + (u) * BT_BLOCK, sizeof t), acc += ar[p + (u)] * t
                BT_LANE(0, a0); BT_LANE(1, a1); BT_LANE(2, a2); BT_LANE(3, a3);
                BT_LANE(4, a4); BT_LANE(5, a5); BT_LANE(6, a6); BT_LANE(7, a7);
#undef BT_LANE
            }
            v8f s = ((a0 + a4) + (a1 + a5)) + ((a2 + a6) + (a3 + a7));
            for (; p < k; p++) {
                memcpy(&t, tb + p * BT_BLOCK, sizeof t);
                s += ar[p] * t;
            }
            memcpy(out + (size_t)i * m + j, &s, sizeof s);
        }
    }
    for (; j < m; j++)
        for (int i = 0; i < n; i++)
            out[(size_t)i * m + j] = dot_bt(a + (size_t)i * k, b + (size_t)j * k, k);
}

void tensor_cols(float *out, const float *a, int n, int lda, int c0, int w)
{
    for (int i = 0; i < n; i++)
        memcpy(out + (size_t)i * w, a + (size_t)i * lda + c0, sizeof(float) * (size_t)w);
}

/* The elementwise kernels below work 8 floats at a time (GNU C vectors), then the rest one by
 * one: the same operation on every element, so the same bits as a plain loop. */
TENSOR_CLONES
void tensor_add(float *out, const float *a, const float *b, size_t len)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        v8f x, y;
        memcpy(&x, a + i, sizeof x);
        memcpy(&y, b + i, sizeof y);
        x += y;
        memcpy(out + i, &x, sizeof x);
    }
    for (; i < len; i++)
        out[i] = a[i] + b[i];
}

TENSOR_CLONES
void tensor_scale(float *x, float s, size_t len)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        v8f v;
        memcpy(&v, x + i, sizeof v);
        v *= s;
        memcpy(x + i, &v, sizeof v);
    }
    for (; i < len; i++)
        x[i] *= s;
}

TENSOR_CLONES
void tensor_add_row(float *restrict x, const float *restrict bias, int n, int m)
{
    for (int i = 0; i < n; i++)
        tensor_add(x + (size_t)i * m, x + (size_t)i * m, bias, (size_t)m);
}

/* Largest entry of r[0..m-1] that compares greater than -INFINITY (NaNs are skipped, as
 * `if (r[j] > mx)` does), 8 lanes at a time: the maximum does not depend on the order. */
TENSOR_CLONES
static float row_max(const float *r, int m)
{
    float mx = -INFINITY;
    int j = 0;
    if (m >= 8) {
        v8f v = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY,
                 -INFINITY}, t;
        for (; j + 8 <= m; j += 8) {
            memcpy(&t, r + j, sizeof t);
            v8i gt = (v8i)(t > v); /* -1 where t is larger (never where t is NaN) */
            v = (v8f)(((v8i)t & gt) | ((v8i)v & ~gt));
        }
        for (int u = 0; u < 8; u++)
            if (v[u] > mx)
                mx = v[u];
    }
    for (; j < m; j++)
        if (r[j] > mx)
            mx = r[j];
    return mx;
}

/* Rows are done four at a time: each row's sum of exponentials still runs in order (the same
 * bits as one row at a time), but four independent chains overlap their latencies. */
void tensor_softmax_rows(float *x, int n, int m)
{
    for (int i = 0; i < n; i += 4) {
        float *live[4], mx[4], sum[4] = {0, 0, 0, 0};
        int R = 0;
        for (int r = i; r < n && r < i + 4; r++) {
            float *row = x + (size_t)r * m;
            float v = row_max(row, m);
            if (v == -INFINITY) { /* every key masked: no distribution, all zeros */
                memset(row, 0, sizeof(float) * (size_t)m);
                continue;
            }
            live[R] = row;
            mx[R++] = v;
        }
        for (int j = 0; j < m; j++)
            for (int r = 0; r < R; r++) {
                float v = live[r][j];
                v = (v == -INFINITY) ? 0.0f : expf(v - mx[r]);
                live[r][j] = v;
                sum[r] += v;
            }
        for (int r = 0; r < R; r++)
            tensor_scale(live[r], 1.0f / sum[r], (size_t)m);
    }
}

/* Mean and 1/sqrt(var + eps) of R rows at once: each row's sums run in order in double (the
 * same bits as one row at a time), R chains side by side so their latencies overlap. */
__attribute__((always_inline)) static inline void ln_stats(const float *x, int m, int R, float eps, float *mu, float *inv)
{
    double mean[4] = {0, 0, 0, 0}, var[4] = {0, 0, 0, 0};
    for (int j = 0; j < m; j++)
#pragma GCC unroll 4
        for (int r = 0; r < R; r++)
            mean[r] += x[(size_t)r * m + j];
    for (int r = 0; r < R; r++)
        mean[r] /= m;
    for (int j = 0; j < m; j++)
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            double d = x[(size_t)r * m + j] - mean[r];
            var[r] += d * d;
        }
    for (int r = 0; r < R; r++) {
        var[r] /= m;
        inv[r] = (float)(1.0 / sqrt(var[r] + eps));
        mu[r] = (float)mean[r];
    }
}

TENSOR_CLONES
void tensor_layernorm(float *out, const float *x, const float *gain, const float *bias,
                      int n, int m, float eps)
{
    for (int i = 0; i < n; i += 4) {
        int R = n - i < 4 ? n - i : 4;
        float mu[4], inv[4];
        if (R == 4)
            ln_stats(x + (size_t)i * m, m, 4, eps, mu, inv);
        else
            ln_stats(x + (size_t)i * m, m, R, eps, mu, inv);
        for (int r = 0; r < R; r++) {
            const float *row = x + (size_t)(i + r) * m;
            float *o = out + (size_t)(i + r) * m;
            int j = 0;
            for (; j + 8 <= m; j += 8) { /* o = gain·((x − μ)·inv) (+ bias), 8 at a time */
                v8f v, g;
                memcpy(&v, row + j, sizeof v);
                memcpy(&g, gain + j, sizeof g);
                v = g * ((v - mu[r]) * inv[r]);
                if (bias) {
                    memcpy(&g, bias + j, sizeof g);
                    v += g;
                }
                memcpy(o + j, &v, sizeof v);
            }
            for (; j < m; j++) {
                o[j] = gain[j] * ((row[j] - mu[r]) * inv[r]);
                if (bias)
                    o[j] += bias[j];
            }
        }
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
