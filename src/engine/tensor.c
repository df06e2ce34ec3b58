/* tensor.c - pure float math on row-major matrices (see tensor.h). */
#include "tensor.h"
#include "attend_assert.h"
#include "cpu.h"
#include "tensor_bt.h"
#include "tensor_stream.h"

#include <math.h>
#include <string.h>

/* GNU C vector types for the kernels below; on x86-64 a second copy of each kernel is compiled
 * for AVX2/FMA machines (x86-64-v3) and chosen at load time, the plain SSE2 copy otherwise.
 * tensor_matmul lives in tensor_matmul.c (built with FMA contraction). */
typedef float v8f __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32))); /* eight ints: masks of v8f comparisons */
typedef unsigned v8u __attribute__((vector_size(32)));
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define TENSOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#define TENSOR_Z 1 /* a sixteen-wide softmax row for AVX-512 machines (cpu.h) */
#else
#define TENSOR_CLONES
#define TENSOR_Z 0
#endif

/* Columns of b (rows of the product) are handled 8 (or 16) together: b's block is transposed
 * once into a local buffer and reused for every row of a, for k up to BT_MAX_K. */
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

/* BT_BLOCKS(VF, W, PART): blocks of W output columns (rows j..j+W-1 of b) from j while they
 * fit, and with PART also the last block of fewer (its missing rows of b read as zeros, their
 * lanes computed and not stored): the block transposed into tb (tb[p][u] = b[j + u][p]), then
 * for each row of a, W elements at once in vectors VF, each lane dot_bt's steps: eight partial
 * sums, their tree, the tail, then times sc (a lane's value never depends on its neighbours:
 * the same bits as dot_bt). One text for the 8- and 16-wide blocks. */
#define BT_BLOCKS(VF, W, PART)                                                                 \
    for (int w; k <= BT_MAX_K && (w = m - j < (W) ? m - j : (W)) > 0 && (PART || w == (W));    \
         j += w) {                                                                             \
        for (int u = 0; u < (W); u++)                                                          \
            for (int p = 0; p < k; p++)                                                        \
                tb[p * (W) + u] = u < w ? b[(size_t)(j + u) * k + p] : 0.0f;                   \
        for (int i = 0; i < n; i++) {                                                          \
            const float *ar = a + (size_t)i * k;                                               \
            VF a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0}, \
               t;                                                                              \
            int p = 0;                                                                         \
            for (; p + 8 <= k; p += 8) {                                                       \
                const float *tp = tb + p * (W);                                                \
                memcpy(&t, tp, sizeof t), a0 += ar[p] * t;                                     \
                memcpy(&t, tp + (W), sizeof t), a1 += ar[p + 1] * t;                           \
                memcpy(&t, tp + 2 * (W), sizeof t), a2 += ar[p + 2] * t;                       \
                memcpy(&t, tp + 3 * (W), sizeof t), a3 += ar[p + 3] * t;                       \
                memcpy(&t, tp + 4 * (W), sizeof t), a4 += ar[p + 4] * t;                       \
                memcpy(&t, tp + 5 * (W), sizeof t), a5 += ar[p + 5] * t;                       \
                memcpy(&t, tp + 6 * (W), sizeof t), a6 += ar[p + 6] * t;                       \
                memcpy(&t, tp + 7 * (W), sizeof t), a7 += ar[p + 7] * t;                       \
            }                                                                                  \
            VF s = ((a0 + a4) + (a1 + a5)) + ((a2 + a6) + (a3 + a7));                          \
            for (; p < k; p++) {                                                               \
                memcpy(&t, tb + p * (W), sizeof t);                                            \
                s += ar[p] * t;                                                                \
            }                                                                                  \
            s *= sc;                                                                           \
            memcpy(out + (size_t)i * m + j, &s, sizeof(float) * (size_t)w);                    \
        }                                                                                      \
    }

/* The columns no block took (all of them past BT_MAX_K), one element at a time. */
#define BT_REST()                                                                              \
    for (; j < m; j++)                                                                         \
        for (int i = 0; i < n; i++) {                                                          \
            out[(size_t)i * m + j] = dot_bt(a + (size_t)i * k, b + (size_t)j * k, k) * sc;     \
        }

/* The blocked product, every element times sc before it is stored: one rounding more, the
 * same as tensor_scale after, and none at sc = 1 (x·1 is x, exactly). */
__attribute__((always_inline)) static inline void matmul_bt_inl(float *restrict out,
                                                                 const float *restrict a,
                                                                 const float *restrict b, int n,
                                                                 int k, int m, float sc)
{
    float tb[BT_MAX_K * 8];
    int j = 0;
    BT_BLOCKS(v8f, 8, 1)
    BT_REST()
}

#if TENSOR_Z
typedef float v16f __attribute__((vector_size(64)));
typedef int v16i __attribute__((vector_size(64)));
typedef unsigned v16u __attribute__((vector_size(64)));

/* On AVX-512: blocks of sixteen columns first, then of eight, then the rest. */
__attribute__((target("avx512f"))) static void matmul_bt_z(float *restrict out,
                                                           const float *restrict a,
                                                           const float *restrict b, int n, int k,
                                                           int m, float sc)
{
    float tb[BT_MAX_K * 16];
    int j = 0;
    BT_BLOCKS(v16f, 16, 0)
    BT_BLOCKS(v8f, 8, 1)
    BT_REST()
}
#endif

TENSOR_CLONES
void tensor_matmul_bt_scaled(float *restrict out, const float *restrict a,
                             const float *restrict b, int n, int k, int m, float s)
{
    ATTEND_ASSERT(n >= 0 && k >= 0 && m >= 0 && (!n || !m || (out && a && b)));
    ATTEND_ASSERT(attend_disjoint(out, sizeof(float) * (size_t)n * m, a,
                                  sizeof(float) * (size_t)n * k));
    ATTEND_ASSERT(attend_disjoint(out, sizeof(float) * (size_t)n * m, b,
                                  sizeof(float) * (size_t)m * k));
    if (tensor_stream_matmul_bt(out, a, b, n, k, m, s)) /* a few rows, large weights */
        return;
#if TENSOR_Z
    if (cpu_has_avx512()) {
        matmul_bt_z(out, a, b, n, k, m, s);
        return;
    }
#endif
    matmul_bt_inl(out, a, b, n, k, m, s);
}

void tensor_matmul_bt(float *restrict out, const float *restrict a, const float *restrict b,
                      int n, int k, int m)
{
    tensor_matmul_bt_scaled(out, a, b, n, k, m, 1.0f);
}

int tensor_matmul_bt_finite(float *restrict out, const float *restrict a,
                            const float *restrict b, int n, int k, int m)
{
    int finite = 0;
    /* the kernel tensor_matmul_bt_scaled takes for these shapes (tensor_stream_bt_ldo) */
    if ((size_t)k * (size_t)m >= TENSOR_STREAM_MIN_KM &&
        tensor_bt_matmul_check(out, m, a, b, n, k, m, 1.0f, &finite))
        return finite;
    tensor_matmul_bt(out, a, b, n, k, m);
    return 0;
}

void tensor_cols(float *out, const float *a, int n, int lda, int c0, int w)
{
    ATTEND_ASSERT(n >= 0 && c0 >= 0 && w >= 0 && c0 + w <= lda);
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

__attribute__((always_inline)) static inline void scale_inl(float *x, float s, size_t len)
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
void tensor_scale(float *x, float s, size_t len) { scale_inl(x, s, len); }

TENSOR_CLONES
void tensor_scale_add(float *restrict scaled, float *restrict sum, const float *restrict x,
                      float s, const float *restrict add, size_t len)
{
    ATTEND_ASSERT(attend_disjoint(scaled, sizeof(float) * len, sum, sizeof(float) * len) &&
                  attend_disjoint(scaled, sizeof(float) * len, x, sizeof(float) * len) &&
                  attend_disjoint(sum, sizeof(float) * len, x, sizeof(float) * len));
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        v8f v, a;
        memcpy(&v, x + i, sizeof v);
        v *= s;
        memcpy(scaled + i, &v, sizeof v);
        if (add) {
            memcpy(&a, add + i, sizeof a);
            v += a;
        }
        memcpy(sum + i, &v, sizeof v);
    }
    for (; i < len; i++) {
        scaled[i] = x[i] * s;
        sum[i] = add ? scaled[i] + add[i] : scaled[i];
    }
}

TENSOR_CLONES
void tensor_add_row(float *restrict x, const float *restrict bias, int n, int m)
{
    ATTEND_ASSERT(n >= 0 && m >= 0 && attend_disjoint(x, sizeof(float) * (size_t)n * m, bias,
                                                       sizeof(float) * (size_t)m));
    for (int i = 0; i < n; i++)
        tensor_add(x + (size_t)i * m, x + (size_t)i * m, bias, (size_t)m);
}

/* Largest entry of r[0..m-1] that compares greater than -INFINITY (NaNs are skipped, as
 * `if (r[j] > mx)` does), 8 lanes at a time: the maximum does not depend on the order. */
__attribute__((always_inline)) static inline float row_max(const float *r, int m)
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

/* e^x for eight floats, made of float multiplications and additions only (no FMA, no libm):
 * every build and every CPU gives the same bits, and the softmax below runs eight keys at a
 * time instead of calling libm's scalar expf once per key.
 *   x = k·ln2 + r with k = round(x·log2 e) and |r| <= ln2/2 (ln2 in two parts, the first exact
 *   in 9 bits, so k·0.693359375 is exact); e^r by a degree-7 polynomial (Cephes' expf
 *   coefficients); then times 2^k, as two powers of two so that e^x below 2^-126 is rounded
 *   once, into a subnormal, like expf. Within 2 ulp of e^x: 0.99 ulp at worst over every
 *   float of [-104, 89] (libm's expf: 0.50), and test_engine sweeps a sample of them. 0 below
 *   -103.98, infinity above 88.73, NaN stays NaN. GELU uses it too. */
#define EXP_LO (-104.0f)
#define EXP_HI 89.0f
#define EXP_MAGIC 12582912.0f /* 1.5·2^23: adding it rounds to an integer in the low bits */
/* EXP_STEPS(px, VF, VI, VU): the steps on a vector of any width (VF floats, VI ints of its
 * comparisons, VU unsigned), so the 8- and 16-wide versions are one text and one set of bits
 * per lane. Constants are broadcast as (VF){0} + c. */
#define EXP_STEPS(px, VF, VI, VU)                                                              \
    do {                                                                                       \
        VF x_ = *(px), z_ = {0};                                                               \
        VF lo_ = z_ + EXP_LO, hi_ = z_ + EXP_HI, mg_ = z_ + EXP_MAGIC;                          \
        VI below_ = x_ < lo_, above_ = x_ > hi_; /* NaN is neither: it stays NaN */            \
        x_ = (VF)((below_ & (VI)lo_) | (above_ & (VI)hi_) | (~(below_ | above_) & (VI)x_));    \
        VF kf_ = x_ * 1.44269504088896341f + EXP_MAGIC;                                        \
        VI k_ = (VI)kf_ - (VI)mg_;                                                             \
        kf_ -= EXP_MAGIC;                                                                      \
        VF r_ = x_ - kf_ * 0.693359375f;                                                       \
        r_ = r_ - kf_ * -2.12194440e-4f;                                                       \
        VF p_ = r_ * 1.9875691500e-4f + 1.3981999507e-3f;                                      \
        p_ = p_ * r_ + 8.3334519073e-3f;                                                       \
        p_ = p_ * r_ + 4.1665795894e-2f;                                                       \
        p_ = p_ * r_ + 1.6666665459e-1f;                                                       \
        p_ = p_ * r_ + 5.0000001201e-1f;                                                       \
        VF y_ = p_ * (r_ * r_) + r_ + 1.0f;                                                    \
        VI k1_ = k_ >> 1, k2_ = k_ - k1_; /* each within [-75, 64]: 2^k1, 2^k2 are normal */  \
        VF s1_ = (VF)((VU)(k1_ + 127) << 23), s2_ = (VF)((VU)(k2_ + 127) << 23);                \
        *(px) = y_ * s1_ * s2_;                                                                \
    } while (0)

__attribute__((always_inline)) static inline void exp8(v8f *px) /* by pointer: no vector ABI */
{
    EXP_STEPS(px, v8f, v8i, v8u);
}

/* One float through exp8 (broadcast, lane 0): the same bits as any lane by construction, and
 * no slower than a scalar copy of the steps (the tail keys of a softmax row, tensor_expf). */
__attribute__((always_inline)) static inline float exp1(float x)
{
    v8f v = {x, x, x, x, x, x, x, x};
    exp8(&v);
    return v[0];
}

float tensor_expf(float x) { return exp1(x); }

/* One row: out[j] = e^(x[j] − mx) (exactly 0 where x[j] is −∞), and their sum: eight partial
 * sums over j ≡ u (mod 8), the tail padded with zeros, combined ((0+4)+(1+5))+((2+6)+(3+7)).
 * Adding a masked key (a 0) changes no partial sum, so a causal row keeps its bits when the
 * sentence grows (the K/V cache relies on it); the tail keys go through exp1, exp8 itself on
 * one float, so every key gets the same bits wherever it sits. */
__attribute__((always_inline)) static inline int any_lane(const v8i *m) /* by pointer, as exp8 */
{
    v8i z = {0};
    return memcmp(m, &z, sizeof *m) != 0;
}

/* Keys j.. of a row in groups of eight, then the tail, onto the lane sums *pacc (by pointer,
 * as exp8: a vector argument by value draws GCC's 32-byte-alignment ABI note). */
__attribute__((always_inline)) static inline float exp_row_from(float *out, const float *x,
                                                                int m, float mx, int j,
                                                                const v8f *pacc)
{
    v8f acc = *pacc;
    const v8f ninf = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY,
                      -INFINITY, -INFINITY};
    v8f v;
    for (; j + 8 <= m; j += 8) {
        memcpy(&v, x + j, sizeof v);
        v8i live = v != ninf;
        if (!any_lane(&live)) { /* eight masked keys (a causal row's future): zeros, no exp */
            memset(out + j, 0, sizeof v);
            continue;
        }
        v -= mx;
        exp8(&v);
        v = (v8f)((v8i)v & live);
        memcpy(out + j, &v, sizeof v);
        acc += v;
    }
    float lane[8]; /* the tail's lanes apart: acc stays in a register through the loop */
    memcpy(lane, &acc, sizeof lane);
    for (int u = 0; j + u < m; u++) { /* the tail: lane u gets key j + u, the rest add 0 */
        float e = x[j + u] == -INFINITY ? 0.0f : exp1(x[j + u] - mx);
        out[j + u] = e;
        lane[u] += e;
    }
    return ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
}

__attribute__((always_inline)) static inline float exp_row(float *out, const float *x, int m,
                                                           float mx)
{
    v8f acc = {0};
    return exp_row_from(out, x, m, mx, 0, &acc);
}

#if TENSOR_Z
/* The same row sixteen keys at a time on AVX-512: the same steps per key (EXP_STEPS), and each
 * group's two halves added to the eight lane sums in key order, keys j..j+7 then j+8..j+15, as
 * two groups of eight would be (a half with every key masked adds exact zeros where the
 * eight-wide loop skips it: the same sums). Then the eight-wide loop for what is left. */
__attribute__((target("avx512f"))) static float exp_row16(float *out, const float *x, int m,
                                                          float mx)
{
    v8f acc = {0}, h;
    v16f v, zero = {0};
    v16i none = {0};
    int j = 0;
    for (; j + 16 <= m; j += 16) {
        memcpy(&v, x + j, sizeof v);
        v16i live = v != zero - INFINITY;
        if (!memcmp(&live, &none, sizeof live)) { /* sixteen masked keys: zeros, no exp */
            memset(out + j, 0, sizeof v);
            continue;
        }
        v -= mx;
        EXP_STEPS(&v, v16f, v16i, v16u);
        v = (v16f)((v16i)v & live);
        memcpy(out + j, &v, sizeof v);
        memcpy(&h, &v, sizeof h);
        acc += h;
        memcpy(&h, (const char *)&v + sizeof h, sizeof h);
        acc += h;
    }
    return exp_row_from(out, x, m, mx, j, &acc);
}
#endif

TENSOR_CLONES
void tensor_softmax_rows_to(float *out, const float *x, int n, int m)
{
    ATTEND_ASSERT(n >= 0 && m >= 0);
    ATTEND_ASSERT(out == x || attend_disjoint(out, sizeof(float) * (size_t)n * m, x,
                                              sizeof(float) * (size_t)n * m));
    for (int i = 0; i < n; i++) {
        const float *row = x + (size_t)i * m;
        float *o = out + (size_t)i * m;
        float mx = row_max(row, m);
        if (mx == -INFINITY) { /* every key masked: no distribution, all zeros */
            memset(o, 0, sizeof(float) * (size_t)m);
            continue;
        }
#if TENSOR_Z
        float sum = cpu_has_avx512() ? exp_row16(o, row, m, mx) : exp_row(o, row, m, mx);
#else
        float sum = exp_row(o, row, m, mx);
#endif
        scale_inl(o, 1.0f / sum, (size_t)m); /* inlined: rows are short */
    }
}

void tensor_softmax_rows(float *x, int n, int m) { tensor_softmax_rows_to(x, x, n, m); }

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
    ATTEND_ASSERT(n >= 0 && m >= 1 && eps >= 0.0f && gain);
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
    ATTEND_ASSERT(n >= 0 && m >= 1 && eps >= 0.0f && gain);
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


#if TENSOR_Z
/* tensor_gelu's 16-float steps on an AVX-512 machine: x[0 .. len rounded down to 16), each lane
 * through the very steps of the 8-wide loop (EXP_STEPS: one set of bits per lane); returns how
 * many floats it did. */
__attribute__((target("avx512f"))) static size_t gelu16(float *x, size_t len)
{
    const float c = 0.7978845608028654f; /* sqrt(2/pi) */
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        v16f v;
        memcpy(&v, x + i, sizeof v);
        v16f e = -2.0f * c * (v + 0.044715f * v * v * v);
        EXP_STEPS(&e, v16f, v16i, v16u);
        v = v / (1.0f + e);
        memcpy(x + i, &v, sizeof v);
    }
    return i;
}
#endif

TENSOR_CLONES
void tensor_gelu(float *x, size_t len)
{
    const float c = 0.7978845608028654f; /* sqrt(2/pi) */
    size_t i = 0;
#if TENSOR_Z
    if (cpu_has_avx512())
        i = gelu16(x, len);
#endif
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
