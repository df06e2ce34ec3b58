/* tensor_matmul.c - the matrix product that dominates the forward pass (see tensor.h).
 * Built with -ffp-contract=fast (Makefile) so a*b+c becomes one FMA on AVX2 machines; kept
 * apart from tensor.c so the trainer's kernels keep their exact rounding.
 *
 * Rounding contract (the course's screens and `attend dump` depend on it): every output
 * element is one chain over p = 0..k-1 in order, acc = acc + a[i][p]·b[p][j] starting from 0,
 * fused into one FMA per step on machines with FMA and as a product then a sum elsewhere.
 * The AVX-512 kernel, the AVX2 kernel, the portable kernel and the row/column tails all keep
 * that chain, so the bits do not depend on the shape, the tile an element falls in, the vector
 * width or the path taken (ATTEND_NO_AVX512=1 forces the AVX2 path; tests compare the two).
 * A few rows against a large matrix go to tensor_stream.c, many to tensor_block.c; both keep
 * the same chain. */
#include "tensor.h"
#include "attend_assert.h"
#include "cpu.h"
#include "tensor_block.h"
#include "tensor_stream.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define TENSOR_X86 1
#include <immintrin.h>
#else
#define TENSOR_X86 0
#endif

/* ---- the portable kernel (and the copy of it for machines without AVX2) ---- */

/* A 4×16 tile of out lives in eight 8-float vector registers for the whole k loop, so each
 * row of b is loaded once per four rows of a and out is written once. GNU C vector types. */
typedef float v8f __attribute__((vector_size(32)));

static void matmul_portable(float *restrict out, const float *restrict a, int lda,
                            const float *restrict b, int n, int k, int m)
{
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        const float *a0 = a + (size_t)i * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
        int j = 0;
        for (; j + 16 <= m; j += 16) {
            v8f c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0}, c30 = {0},
                c31 = {0};
            for (int p = 0; p < k; p++) {
                v8f b0, b1;
                memcpy(&b0, b + (size_t)p * m + j, sizeof b0);
                memcpy(&b1, b + (size_t)p * m + j + 8, sizeof b1);
                c00 += a0[p] * b0; c01 += a0[p] * b1;
                c10 += a1[p] * b0; c11 += a1[p] * b1;
                c20 += a2[p] * b0; c21 += a2[p] * b1;
                c30 += a3[p] * b0; c31 += a3[p] * b1;
            }
            float *o = out + (size_t)i * m + j;
            memcpy(o, &c00, sizeof c00); memcpy(o + 8, &c01, sizeof c01);
            o += m;
            memcpy(o, &c10, sizeof c10); memcpy(o + 8, &c11, sizeof c11);
            o += m;
            memcpy(o, &c20, sizeof c20); memcpy(o + 8, &c21, sizeof c21);
            o += m;
            memcpy(o, &c30, sizeof c30); memcpy(o + 8, &c31, sizeof c31);
        }
        for (; j < m; j++)
            for (int r = 0; r < 4; r++) {
                float s = 0.0f;
                const float *ar = a + (size_t)(i + r) * lda;
                for (int p = 0; p < k; p++)
                    s += ar[p] * b[(size_t)p * m + j];
                out[(size_t)(i + r) * m + j] = s;
            }
    }
    for (; i < n; i++) {
        float *o = out + (size_t)i * m;
        memset(o, 0, sizeof(float) * (size_t)m);
        const float *ar = a + (size_t)i * lda;
        for (int p = 0; p < k; p++) {
            float av = ar[p];
            const float *br = b + (size_t)p * m;
            for (int j = 0; j < m; j++)
                o[j] += av * br[j];
        }
    }
}

/* ---- AVX2 + FMA: tiles of up to 6 rows × 16 columns, masked loads for any width ---- */

#if TENSOR_X86
#define AVX2 __attribute__((target("avx2,fma")))
#define AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) static inline

/* Lanes 0..w-1 of an 8-float vector (w may be <= 0 or >= 8). */
AVX2_INLINE __m256i lane_mask(int w)
{
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(w), idx);
}

/* out[R rows × w columns] at (i, j), w <= 16: R×2 accumulators in registers for the whole k
 * loop (12 at R = 6, plus two rows of b and a broadcast: 15 of the 16 ymm registers). R is a
 * constant at every call, so the row loops unroll. full: w == 16 (no masks). */
AVX2_INLINE void tile(float *restrict out, const float *restrict a, int lda,
                      const float *restrict b, int k, int m, int R, int w, int full)
{
    __m256 c0[6], c1[6];
    __m256i m0 = lane_mask(w), m1 = lane_mask(w - 8);
    int two = w > 8;
#pragma GCC unroll 6
    for (int r = 0; r < R; r++)
        c0[r] = c1[r] = _mm256_setzero_ps();
    for (int p = 0; p < k; p++) {
        const float *bp = b + (size_t)p * m;
        __m256 b0 = full ? _mm256_loadu_ps(bp) : _mm256_maskload_ps(bp, m0);
        __m256 b1 = full ? _mm256_loadu_ps(bp + 8)
                         : two ? _mm256_maskload_ps(bp + 8, m1) : _mm256_setzero_ps();
#pragma GCC unroll 6
        for (int r = 0; r < R; r++) {
            __m256 av = _mm256_broadcast_ss(a + (size_t)r * lda + p);
            c0[r] = _mm256_fmadd_ps(av, b0, c0[r]);
            if (full || two)
                c1[r] = _mm256_fmadd_ps(av, b1, c1[r]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; r++) {
        float *o = out + (size_t)r * m;
        if (full) {
            _mm256_storeu_ps(o, c0[r]);
            _mm256_storeu_ps(o + 8, c1[r]);
        } else {
            _mm256_maskstore_ps(o, m0, c0[r]);
            if (two)
                _mm256_maskstore_ps(o + 8, m1, c1[r]);
        }
    }
}

/* One band of R rows: full 16-wide tiles, then one masked tile for the last m % 16 columns. */
AVX2_INLINE void band(float *restrict out, const float *restrict a, int lda,
                      const float *restrict b, int k, int m, int R)
{
    int j = 0;
    for (; j + 16 <= m; j += 16)
        tile(out + j, a, lda, b + j, k, m, R, 16, 1);
    if (j < m)
        tile(out + j, a, lda, b + j, k, m, R, m - j, 0);
}

AVX2 static void matmul_avx2(float *restrict out, const float *restrict a, int lda,
                             const float *restrict b, int n, int k, int m)
{
    int i = 0;
    for (; i + 6 <= n; i += 6)
        band(out + (size_t)i * m, a + (size_t)i * lda, lda, b, k, m, 6);
    float *o = out + (size_t)i * m;
    const float *ai = a + (size_t)i * lda;
    switch (n - i) {
    case 5: band(o, ai, lda, b, k, m, 5); break;
    case 4: band(o, ai, lda, b, k, m, 4); break;
    case 3: band(o, ai, lda, b, k, m, 3); break;
    case 2: band(o, ai, lda, b, k, m, 2); break;
    case 1: band(o, ai, lda, b, k, m, 1); break;
    default: break;
    }
}

/* ---- AVX-512: tiles of up to 8 rows × 48 columns (24 of the 32 zmm registers) ---- */

#define AVX512 __attribute__((target("avx512f")))
#define AVX512_INLINE __attribute__((target("avx512f"), always_inline)) static inline
#define Z_ROWS 8

/* out[R rows × W vectors] at (i, j), the last vector `last` lanes wide (1..16): the same
 * chain per element as tile() above, sixteen columns a vector. */
AVX512_INLINE void ztile(float *restrict out, const float *restrict a, int lda,
                         const float *restrict b, int k, int m, int R, int W, int last)
{
    __m512 c[Z_ROWS][3];
    __mmask16 lm = (__mmask16)((1u << last) - 1u);
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
#pragma GCC unroll 3
        for (int v = 0; v < W; v++)
            c[r][v] = _mm512_setzero_ps();
    for (int p = 0; p < k; p++) {
        const float *bp = b + (size_t)p * m;
        __m512 bv[3];
#pragma GCC unroll 3
        for (int v = 0; v < W; v++)
            bv[v] = _mm512_maskz_loadu_ps(v == W - 1 ? lm : (__mmask16)0xffff, bp + 16 * v);
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) {
            __m512 av = _mm512_set1_ps(a[(size_t)r * lda + p]);
#pragma GCC unroll 3
            for (int v = 0; v < W; v++)
                c[r][v] = _mm512_fmadd_ps(av, bv[v], c[r][v]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
#pragma GCC unroll 3
        for (int v = 0; v < W; v++)
            _mm512_mask_storeu_ps(out + (size_t)r * m + 16 * v,
                                  v == W - 1 ? lm : (__mmask16)0xffff, c[r][v]);
}

/* One band of R rows (a constant at each call), all m columns, 48 at a time. */
AVX512_INLINE void zband(float *restrict out, const float *restrict a, int lda,
                         const float *restrict b, int k, int m, int R)
{
    for (int j = 0; j < m; j += 48) {
        int w = m - j < 48 ? m - j : 48, W = (w + 15) / 16, last = w - 16 * (W - 1);
        if (W == 3)
            ztile(out + j, a, lda, b + j, k, m, R, 3, last);
        else if (W == 2)
            ztile(out + j, a, lda, b + j, k, m, R, 2, last);
        else
            ztile(out + j, a, lda, b + j, k, m, R, 1, last);
    }
}

AVX512 static void matmul_avx512(float *restrict out, const float *restrict a, int lda,
                                 const float *restrict b, int n, int k, int m)
{
    int i = 0;
    for (; i + Z_ROWS <= n; i += Z_ROWS)
        zband(out + (size_t)i * m, a + (size_t)i * lda, lda, b, k, m, Z_ROWS);
    float *o = out + (size_t)i * m;
    const float *ai = a + (size_t)i * lda;
    switch (n - i) {
    case 7: zband(o, ai, lda, b, k, m, 7); break;
    case 6: zband(o, ai, lda, b, k, m, 6); break;
    case 5: zband(o, ai, lda, b, k, m, 5); break;
    case 4: zband(o, ai, lda, b, k, m, 4); break;
    case 3: zband(o, ai, lda, b, k, m, 3); break;
    case 2: zband(o, ai, lda, b, k, m, 2); break;
    case 1: zband(o, ai, lda, b, k, m, 1); break;
    default: break;
    }
}

#endif

void tensor_matmul_lda(float *restrict out, const float *restrict a, int lda,
                       const float *restrict b, int n, int k, int m)
{
    ATTEND_ASSERT(n >= 0 && k >= 0 && m >= 0 && lda >= k && (!n || !m || (out && a && b)));
    ATTEND_ASSERT(attend_disjoint(out, sizeof(float) * (size_t)n * m, a,
                                  sizeof(float) * ((size_t)(n ? n - 1 : 0) * lda + k)));
    ATTEND_ASSERT(attend_disjoint(out, sizeof(float) * (size_t)n * m, b,
                                  sizeof(float) * (size_t)k * m));
    if (tensor_stream_matmul(out, a, lda, b, n, k, m)) /* a few rows, large weights */
        return;
    if (tensor_block_matmul(out, a, lda, b, n, k, m)) /* many rows, large weights */
        return;
#if TENSOR_X86
    if (cpu_has_avx512()) {
        matmul_avx512(out, a, lda, b, n, k, m);
        return;
    }
    if (cpu_has_avx2_fma()) {
        matmul_avx2(out, a, lda, b, n, k, m);
        return;
    }
#endif
    matmul_portable(out, a, lda, b, n, k, m);
}

void tensor_matmul(float *restrict out, const float *restrict a, const float *restrict b, int n,
                   int k, int m)
{
    tensor_matmul_lda(out, a, k, b, n, k, m);
}
