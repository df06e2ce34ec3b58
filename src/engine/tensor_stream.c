/* tensor_stream.c - products of a few rows (tokens) with a large weight matrix (see
 * tensor_stream.h): the weights are read from memory once, in order, and applied to every row.
 *
 * At a dozen tokens a real model's forward is bound by memory: GPT-2 small reads 498 MB of
 * weights per forward for 3 GFLOP. The tiled kernels (tensor_matmul.c, tensor.c) read a weight
 * matrix once per band of 8 rows and walk it by columns; these read it once, by rows, a block
 * of rows at a time, prefetching the next block while the current one is applied to all rows.
 *
 * Bits: every output element is the chain its tiled kernel computes, so a forward gives the
 * same bits whichever path runs (tests/unit/test_stream.c compares them element by element):
 *  - [in, out] weights (tensor_matmul): acc = fma(a[i][p], b[p][j], acc) for p in order from 0.
 *    A block of rows continues each element's chain from the value the previous block stored
 *    (a float, exactly what the register held).
 *  - [out, in] weights (tensor_matmul_bt): eight partial sums over p ≡ u (mod 8), products and
 *    sums rounded apart (this file is built without FMA contraction, and the products and sums
 *    are separate instructions), combined ((0+4)+(1+5))+((2+6)+(3+7)), then the last k mod 8
 *    products in order, then ·sc.
 * AVX-512 when the CPU has it (cpu.h; ATTEND_NO_AVX512=1 hides it), else AVX2+FMA; elsewhere
 * (and in sanitizer builds) the callers' own kernels run. */
#include "tensor_stream.h"
#include "cpu.h"
#include "tensor_bt.h"
#include "tensor_par.h"

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))
#define AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) static inline
#define AVX512 __attribute__((target("avx512f")))
#define AVX512_INLINE __attribute__((target("avx512f"), always_inline)) static inline

/* Weight rows per block of the [in, out] product. A block is applied strip by strip (32
 * columns of its rows). While row p of a strip is applied, the lines row p needs next (its
 * next strip; after the last strip, row p + SB's first) are prefetched into L1, straight from
 * memory: a few requests among each row's FMAs, never a burst that waits for the L1's few miss
 * buffers while the FMAs behind it stall, and each row read in order, a stream the L2's own
 * prefetcher follows ahead. Measured at 12 tokens (CPU time, interleaved, load 11-17): GPT-2's
 * 48 [in, out] products 39.7 ms with the next block prefetched into L2 and the next strip into
 * L1 at each strip's start, 33 without the L2 prefetch, 28 as now; 16, 24 and 48 rows and a
 * prefetch two strips ahead measured slower. */
#define SB 32
/* Rows (tokens) whose accumulators stay in registers together: 12 × 2 zmm (24 of 32), or
 * 6 × 2 ymm (12 of 16) on AVX2. */
#define ZR 12
#define YR 6

/* Bytes of activations per token block of the [out, in] product past a few rows. */
#define TENSOR_STREAM_BT_BYTES ((size_t)1 << 20)

#define R_CASES(F) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12)

static int min_i(int x, int y) { return x < y ? x : y; }

/* ---- [in, out] weights: out[n×m] = a · b, b stored k rows of m ---- */

/* Rows p0..p1-1 of b, columns [j, j+32) (masks m0, m1: the columns that exist) applied to R
 * rows of a: each element's chain continues from out (or starts from 0 when first). out, b
 * start at column j; a at the group's first row. pfb (or NULL): while row p is applied, the
 * 32 floats from pfb + p·m (2 or 3 lines) are prefetched into L1. */
AVX512_INLINE void zgroup(float *restrict out, const float *restrict a, int lda,
                          const float *restrict b, int p0, int p1, int m, int R, __mmask16 m0,
                          __mmask16 m1, int first, const float *pfb)
{
    __m512 c0[ZR], c1[ZR];
#pragma GCC unroll 12
    for (int r = 0; r < R; r++) {
        c0[r] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m0, out + (size_t)r * m);
        c1[r] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m1, out + (size_t)r * m + 16);
    }
    for (int p = p0; p < p1; p++) {
        const float *bp = b + (size_t)p * m;
        if (pfb) {
            const float *q = pfb + (size_t)p * m;
            _mm_prefetch((const char *)q, _MM_HINT_T0);
            _mm_prefetch((const char *)(q + 16), _MM_HINT_T0);
            _mm_prefetch((const char *)(q + 31), _MM_HINT_T0);
        }
        __m512 b0 = _mm512_maskz_loadu_ps(m0, bp), b1 = _mm512_maskz_loadu_ps(m1, bp + 16);
#pragma GCC unroll 12
        for (int r = 0; r < R; r++) {
            __m512 av = _mm512_set1_ps(a[(size_t)r * lda + p]);
            c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
            c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
        }
    }
#pragma GCC unroll 12
    for (int r = 0; r < R; r++) {
        _mm512_mask_storeu_ps(out + (size_t)r * m, m0, c0[r]);
        _mm512_mask_storeu_ps(out + (size_t)r * m + 16, m1, c1[r]);
    }
}

AVX512 static void stream_mm_z(float *restrict out, const float *restrict a, int lda,
                               const float *restrict b, int n, int k, int m, int j0, int j1)
{
    for (int p = 0; p < min_i(SB, k); p++) { /* the first strip, before its FMAs */
        const float *q = b + (size_t)p * m + j0;
        _mm_prefetch((const char *)q, _MM_HINT_T0);
        _mm_prefetch((const char *)(q + 16), _MM_HINT_T0);
        _mm_prefetch((const char *)(q + 31), _MM_HINT_T0);
    }
    for (int p0 = 0; p0 < k; p0 += SB) {
        int p1 = min_i(p0 + SB, k);
        for (int j = j0; j < j1; j += 32) {
            int w = min_i(32, j1 - j);
            __mmask16 m0 = (__mmask16)(w >= 16 ? 0xffffu : (1u << w) - 1u);
            __mmask16 m1 = (__mmask16)(w >= 32 ? 0xffffu : w > 16 ? (1u << (w - 16)) - 1u : 0u);
            /* while row p of this strip is applied, the line(s) row p needs next: its next
             * strip, or after the last strip row p + SB's first (the next block's; a prefetch
             * past the matrix is a hint, never a fault) */
            const float *pfb = j + 32 < j1 ? b + j + 32 : p1 < k ? b + (size_t)SB * m + j0 : NULL;
            for (int i0 = 0; i0 < n; i0 += ZR) {
                float *o = out + (size_t)i0 * m + j;
                const float *ai = a + (size_t)i0 * lda;
                const float *pf = i0 == 0 ? pfb : NULL;
                switch (min_i(ZR, n - i0)) {
#define ZCASE(R) case R: zgroup(o, ai, lda, b + j, p0, p1, m, R, m0, m1, p0 == 0, pf); break;
                    R_CASES(ZCASE)
#undef ZCASE
                default: break;
                }
            }
        }
    }
}

/* AVX2: columns [j, j+16), masks for the columns that exist; R <= 6. */
AVX2_INLINE void ygroup(float *restrict out, const float *restrict a, int lda,
                        const float *restrict b, int p0, int p1, int m, int R, __m256i m0,
                        __m256i m1, int first, const float *pfb)
{
    __m256 c0[YR], c1[YR];
#pragma GCC unroll 6
    for (int r = 0; r < R; r++) {
        c0[r] = first ? _mm256_setzero_ps() : _mm256_maskload_ps(out + (size_t)r * m, m0);
        c1[r] = first ? _mm256_setzero_ps() : _mm256_maskload_ps(out + (size_t)r * m + 8, m1);
    }
    for (int p = p0; p < p1; p++) {
        const float *bp = b + (size_t)p * m;
        if (pfb) { /* as zgroup's: the 16 floats from pfb + p·m */
            _mm_prefetch((const char *)(pfb + (size_t)p * m), _MM_HINT_T0);
            _mm_prefetch((const char *)(pfb + (size_t)p * m + 15), _MM_HINT_T0);
        }
        __m256 b0 = _mm256_maskload_ps(bp, m0), b1 = _mm256_maskload_ps(bp + 8, m1);
#pragma GCC unroll 6
        for (int r = 0; r < R; r++) {
            __m256 av = _mm256_broadcast_ss(a + (size_t)r * lda + p);
            c0[r] = _mm256_fmadd_ps(av, b0, c0[r]);
            c1[r] = _mm256_fmadd_ps(av, b1, c1[r]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; r++) {
        _mm256_maskstore_ps(out + (size_t)r * m, m0, c0[r]);
        _mm256_maskstore_ps(out + (size_t)r * m + 8, m1, c1[r]);
    }
}

/* Lanes 0..w-1 of an 8-float vector (w may be <= 0 or >= 8). */
AVX2_INLINE __m256i lanes(int w)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(w), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

AVX2 static void stream_mm_y(float *restrict out, const float *restrict a, int lda,
                             const float *restrict b, int n, int k, int m, int j0, int j1)
{
    for (int p = 0; p < min_i(SB, k); p++) { /* stream_mm_z's prefetch, 16-column strips */
        _mm_prefetch((const char *)(b + (size_t)p * m + j0), _MM_HINT_T0);
        _mm_prefetch((const char *)(b + (size_t)p * m + j0 + 15), _MM_HINT_T0);
    }
    for (int p0 = 0; p0 < k; p0 += SB) {
        int p1 = min_i(p0 + SB, k);
        for (int j = j0; j < j1; j += 16) {
            int w = min_i(16, j1 - j);
            __m256i m0 = lanes(w), m1 = lanes(w - 8);
            const float *pfb = j + 16 < j1 ? b + j + 16 : p1 < k ? b + (size_t)SB * m + j0 : NULL;
            for (int i0 = 0; i0 < n; i0 += YR) {
                float *o = out + (size_t)i0 * m + j;
                const float *ai = a + (size_t)i0 * lda;
                const float *pf = i0 == 0 ? pfb : NULL;
                switch (min_i(YR, n - i0)) {
#define YCASE(R) case R: ygroup(o, ai, lda, b + j, p0, p1, m, R, m0, m1, p0 == 0, pf); break;
                    YCASE(1) YCASE(2) YCASE(3) YCASE(4) YCASE(5) YCASE(6)
#undef YCASE
                default: break;
                }
            }
        }
    }
}

/* ---- [out, in] weights: out[n×m] = a · bᵀ, b stored m rows of k ---- */

/* One element from its eight lane sums (tensor.c's dot_bt order), the tail and the scale. */
static float bt_finish(const float *lane, const float *ar, const float *br, int p, int k,
                       float sc)
{
    float s = ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
    for (; p < k; p++)
        s += ar[p] * br[p];
    return s * sc;
}

/* Weight rows j..j+3 (clamped to the last: rows past m are computed and dropped), each read
 * once, against R rows of a: lanes 0-7 of a zmm are one weight row's eight partial sums,
 * lanes 8-15 the next row's. pf: the weight rows to prefetch meanwhile (4k floats). */
AVX512_INLINE void zbt_group(float *restrict out, int ldo, const float *restrict a,
                             const float *restrict b, int k, int m, int j, int R, float sc,
                             const float *pf)
{
    const float *br[4];
    for (int q = 0; q < 4; q++)
        br[q] = b + (size_t)min_i(j + q, m - 1) * k;
    __m512 c0[ZR], c1[ZR];
#pragma GCC unroll 12
    for (int r = 0; r < R; r++)
        c0[r] = c1[r] = _mm512_setzero_ps();
    int p = 0;
    for (; p + 8 <= k; p += 8) {
        _mm_prefetch((const char *)(pf + 4 * p), _MM_HINT_T0);
        _mm_prefetch((const char *)(pf + 4 * p + 16), _MM_HINT_T0);
        __m512d w01 = _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(_mm256_loadu_ps(br[0] + p))),
                                         _mm256_castps_pd(_mm256_loadu_ps(br[1] + p)), 1);
        __m512d w23 = _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(_mm256_loadu_ps(br[2] + p))),
                                         _mm256_castps_pd(_mm256_loadu_ps(br[3] + p)), 1);
        __m512 b0 = _mm512_castpd_ps(w01), b1 = _mm512_castpd_ps(w23);
#pragma GCC unroll 12
        for (int r = 0; r < R; r++) {
            __m512 av = _mm512_castpd_ps(
                _mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_loadu_ps(a + (size_t)r * k + p))));
            c0[r] = _mm512_add_ps(c0[r], _mm512_mul_ps(av, b0));
            c1[r] = _mm512_add_ps(c1[r], _mm512_mul_ps(av, b1));
        }
    }
    /* bt_finish's sum of the eight lanes, ((0+4)+(1+5))+((2+6)+(3+7)), for four weight rows
     * at once in registers (each add the same two floats as bt_finish's, so the same bits):
     * + the other half of each 8 lanes, + the neighbour, + the pair two over; lanes 0 and 8
     * of each vector are then the sums of its two weight rows */
#pragma GCC unroll 12
    for (int r = 0; r < R; r++) {
        __m512 s[2] = {c0[r], c1[r]};
        for (int v = 0; v < 2; v++) {
            __m512 x = s[v];
            x = _mm512_add_ps(x, _mm512_shuffle_f32x4(x, x, 0xB1));
            x = _mm512_add_ps(x, _mm512_permute_ps(x, 0xB1));
            s[v] = _mm512_add_ps(x, _mm512_permute_ps(x, 0x4E));
        }
        float sum[4] = {_mm512_cvtss_f32(s[0]), _mm_cvtss_f32(_mm512_extractf32x4_ps(s[0], 2)),
                        _mm512_cvtss_f32(s[1]), _mm_cvtss_f32(_mm512_extractf32x4_ps(s[1], 2))};
        const float *ar = a + (size_t)r * k;
        for (int q = 0; q < 4 && j + q < m; q++) {
            float e = sum[q];
            for (int t = p; t < k; t++) /* the last k mod 8 products, in order */
                e += ar[t] * br[q][t];
            out[(size_t)r * ldo + j + q] = e * sc;
        }
    }
}

AVX512 static void stream_bt_z(float *restrict out, int ldo, const float *restrict a,
                               const float *restrict b, int n, int k, int m, float sc, int j0,
                               int j1)
{
    for (int j = j0; j < j1; j += 4) {
        /* two groups ahead: 4 rows of k floats, prefetched over this group's k/8 steps */
        const float *pf = j + 12 <= m ? b + (size_t)(j + 8) * k : b + (size_t)j * k;
        for (int i0 = 0; i0 < n; i0 += ZR) {
            float *o = out + (size_t)i0 * ldo;
            const float *ai = a + (size_t)i0 * k;
            switch (min_i(ZR, n - i0)) {
#define ZCASE(R) case R: zbt_group(o, ldo, ai, b, k, m, j, R, sc, pf); break;
                R_CASES(ZCASE)
#undef ZCASE
            default: break;
            }
        }
    }
}

/* AVX2: weight rows j, j+1 (clamped), one ymm of eight partial sums per element; R <= 6. */
AVX2_INLINE void ybt_group(float *restrict out, int ldo, const float *restrict a,
                           const float *restrict b, int k, int m, int j, int R, float sc,
                           const float *pf)
{
    const float *b0r = b + (size_t)j * k, *b1r = b + (size_t)min_i(j + 1, m - 1) * k;
    __m256 c0[YR], c1[YR];
#pragma GCC unroll 6
    for (int r = 0; r < R; r++)
        c0[r] = c1[r] = _mm256_setzero_ps();
    int p = 0;
    for (; p + 8 <= k; p += 8) {
        _mm_prefetch((const char *)(pf + 2 * p), _MM_HINT_T0);
        __m256 b0 = _mm256_loadu_ps(b0r + p), b1 = _mm256_loadu_ps(b1r + p);
#pragma GCC unroll 6
        for (int r = 0; r < R; r++) {
            __m256 av = _mm256_loadu_ps(a + (size_t)r * k + p);
            c0[r] = _mm256_add_ps(c0[r], _mm256_mul_ps(av, b0));
            c1[r] = _mm256_add_ps(c1[r], _mm256_mul_ps(av, b1));
        }
    }
    for (int r = 0; r < R; r++) {
        float lane[16];
        _mm256_storeu_ps(lane, c0[r]);
        _mm256_storeu_ps(lane + 8, c1[r]);
        const float *ar = a + (size_t)r * k;
        out[(size_t)r * ldo + j] = bt_finish(lane, ar, b0r, p, k, sc);
        if (j + 1 < m)
            out[(size_t)r * ldo + j + 1] = bt_finish(lane + 8, ar, b1r, p, k, sc);
    }
}

AVX2 static void stream_bt_y(float *restrict out, int ldo, const float *restrict a,
                             const float *restrict b, int n, int k, int m, float sc, int j0,
                             int j1)
{
    for (int j = j0; j < j1; j += 2) {
        const float *pf = j + 6 <= m ? b + (size_t)(j + 4) * k : b + (size_t)j * k;
        for (int i0 = 0; i0 < n; i0 += YR) {
            float *o = out + (size_t)i0 * ldo;
            const float *ai = a + (size_t)i0 * k;
            switch (min_i(YR, n - i0)) {
#define YCASE(R) case R: ybt_group(o, ldo, ai, b, k, m, j, R, sc, pf); break;
                YCASE(1) YCASE(2) YCASE(3) YCASE(4) YCASE(5) YCASE(6)
#undef YCASE
            default: break;
            }
        }
    }
}

/* ---- [out, in] BF16 weights kept half: the same chains, each weight widened in registers ---- */

/* Weight rows r0 and r1's eight BF16 values at p as one zmm (lanes 0-7, 8-15), widened
 * exactly (a BF16 is a float32's high half: tensor_widen's values). */
AVX512_INLINE __m512 zbf16_pair(const uint16_t *r0, const uint16_t *r1)
{
    __m256i h = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)r0)),
                                        _mm_loadu_si128((const __m128i *)r1), 1);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* zbt_group with BF16 weight rows (k a multiple of 8: no tail); pf: the rows to prefetch
 * meanwhile (4k BF16 values, 64 bytes per step). */
AVX512_INLINE void zbt_group_bf16(float *restrict out, int ldo, const float *restrict a,
                                  const uint16_t *restrict b, int k, int m, int j, int R,
                                  float sc, const char *pf)
{
    const uint16_t *br[4];
    for (int q = 0; q < 4; q++)
        br[q] = b + (size_t)min_i(j + q, m - 1) * k;
    __m512 c0[ZR], c1[ZR];
#pragma GCC unroll 12
    for (int r = 0; r < R; r++)
        c0[r] = c1[r] = _mm512_setzero_ps();
    for (int p = 0; p < k; p += 8) {
        _mm_prefetch(pf + 8 * (size_t)p, _MM_HINT_T0);
        __m512 b0 = zbf16_pair(br[0] + p, br[1] + p), b1 = zbf16_pair(br[2] + p, br[3] + p);
#pragma GCC unroll 12
        for (int r = 0; r < R; r++) {
            __m512 av = _mm512_castpd_ps(
                _mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_loadu_ps(a + (size_t)r * k + p))));
            c0[r] = _mm512_add_ps(c0[r], _mm512_mul_ps(av, b0));
            c1[r] = _mm512_add_ps(c1[r], _mm512_mul_ps(av, b1));
        }
    }
#pragma GCC unroll 12
    for (int r = 0; r < R; r++) { /* zbt_group's finish (no tail) */
        __m512 s[2] = {c0[r], c1[r]};
        for (int v = 0; v < 2; v++) {
            __m512 x = s[v];
            x = _mm512_add_ps(x, _mm512_shuffle_f32x4(x, x, 0xB1));
            x = _mm512_add_ps(x, _mm512_permute_ps(x, 0xB1));
            s[v] = _mm512_add_ps(x, _mm512_permute_ps(x, 0x4E));
        }
        float sum[4] = {_mm512_cvtss_f32(s[0]), _mm_cvtss_f32(_mm512_extractf32x4_ps(s[0], 2)),
                        _mm512_cvtss_f32(s[1]), _mm_cvtss_f32(_mm512_extractf32x4_ps(s[1], 2))};
        for (int q = 0; q < 4 && j + q < m; q++)
            out[(size_t)r * ldo + j + q] = sum[q] * sc;
    }
}

AVX512 static void stream_bt_bf16_z(float *restrict out, int ldo, const float *restrict a,
                                    const uint16_t *restrict b, int n, int k, int m, float sc,
                                    int j0, int j1)
{
    for (int j = j0; j < j1; j += 4) {
        const char *pf = (const char *)(b + (size_t)(j + 12 <= m ? j + 8 : j) * k);
        for (int i0 = 0; i0 < n; i0 += ZR) {
            float *o = out + (size_t)i0 * ldo;
            const float *ai = a + (size_t)i0 * k;
            switch (min_i(ZR, n - i0)) {
#define ZCASE(R) case R: zbt_group_bf16(o, ldo, ai, b, k, m, j, R, sc, pf); break;
                R_CASES(ZCASE)
#undef ZCASE
            default: break;
            }
        }
    }
}

typedef struct {
    float *out;
    const float *a;
    const uint16_t *b;
    int n, k, m;
    float sc;
} HalfJob;

static void bt_bf16_part(void *ctx, int part, int parts)
{
    const HalfJob *J = ctx;
    int j0, j1, n = J->n, k = J->k;
    tensor_par_range(J->m, 4, part, parts, &j0, &j1);
    if (j0 >= j1)
        return;
    int tb = (int)(TENSOR_STREAM_BT_BYTES / (sizeof(float) * (size_t)k)); /* as bt_part */
    tb = tb < ZR ? ZR : tb - tb % ZR;
    for (int i0 = 0; i0 < n; i0 += tb) {
        int r = n - i0 < tb ? n - i0 : tb;
        stream_bt_bf16_z(J->out + (size_t)i0 * J->m, J->m, J->a + (size_t)i0 * k, J->b, r, k,
                         J->m, J->sc, j0, j1);
    }
}

int tensor_stream_bt_bf16(float *restrict out, const float *restrict a,
                          const uint16_t *restrict b, int n, int k, int m, float sc)
{
    if (n < 1 || k < 8 || k % 8 || m < 1 || !cpu_has_avx512())
        return 0;
    HalfJob J = {out, a, b, n, k, m, sc};
    tensor_par_dyn(bt_bf16_part, &J, tensor_par_chunks(n, k, m));
    return 1;
}

static int streams(int n, int k, int m)
{
    return n >= 1 && n <= TENSOR_STREAM_MAX_N && k >= 1 && (size_t)k * (size_t)m >= TENSOR_STREAM_MIN_KM;
}

/* One product split over the cores (tensor_par.h): each part a range of output columns in
 * whole vector groups, so every element keeps its one chain whatever the thread count. */
typedef struct {
    float *out;
    int ldo, lda;
    const float *a, *b;
    int n, k, m, z;
    float sc;
} Job;

static void mm_part(void *ctx, int part, int parts)
{
    const Job *J = ctx;
    int j0, j1;
    tensor_par_range(J->m, J->z ? 32 : 16, part, parts, &j0, &j1);
    if (j0 >= j1)
        return;
    if (J->z)
        stream_mm_z(J->out, J->a, J->lda, J->b, J->n, J->k, J->m, j0, j1);
    else
        stream_mm_y(J->out, J->a, J->lda, J->b, J->n, J->k, J->m, j0, j1);
}

int tensor_stream_matmul(float *restrict out, const float *restrict a, int lda,
                         const float *restrict b, int n, int k, int m)
{
    if (!streams(n, k, m))
        return 0;
    int z = cpu_has_avx512();
    if (!z && !cpu_has_avx2_fma())
        return 0;
    Job J = {out, m, lda, a, b, n, k, m, z, 1.0f};
    tensor_par_dyn(mm_part, &J, tensor_par_chunks(n, k, m));
    return 1;
}

static void bt_part(void *ctx, int part, int parts)
{
    const Job *J = ctx;
    int j0, j1, n = J->n, k = J->k;
    tensor_par_range(J->m, J->z ? 4 : 2, part, parts, &j0, &j1);
    if (j0 >= j1)
        return;
    /* token blocks whose rows (TENSOR_STREAM_BT_BYTES) stay in L2 while every weight row passes */
    int tb = (int)(TENSOR_STREAM_BT_BYTES / (sizeof(float) * (size_t)k));
    tb = tb < ZR ? ZR : tb - tb % ZR;
    for (int i0 = 0; i0 < n; i0 += tb) {
        int r = n - i0 < tb ? n - i0 : tb;
        float *o = J->out + (size_t)i0 * J->ldo;
        const float *ai = J->a + (size_t)i0 * k;
        if (J->z)
            stream_bt_z(o, J->ldo, ai, J->b, r, k, J->m, J->sc, j0, j1);
        else
            stream_bt_y(o, J->ldo, ai, J->b, r, k, J->m, J->sc, j0, j1);
    }
}

int tensor_stream_bt_ldo(float *restrict out, int ldo, const float *restrict a,
                         const float *restrict b, int n, int k, int m, float sc)
{
    if (n < 1 || k < 1 || m < 1)
        return 0;
    /* tensor_bt.c: many rows, or weights read from memory (GPT-2's tied head at 12 tokens:
     * 16.7 -> 12.2 ms, its next group's lines spread over the group's steps); small weights
     * (tensor_half.c's widened blocks, in L2) at a few rows stay here */
    if ((n > TENSOR_BT_MIN_N || (size_t)k * (size_t)m >= TENSOR_STREAM_MIN_KM) &&
        tensor_bt_matmul(out, ldo, a, b, n, k, m, sc))
        return 1;
    int z = cpu_has_avx512();
    if (!z && !cpu_has_avx2_fma())
        return 0;
    Job J = {out, ldo, k, a, b, n, k, m, z, sc};
    tensor_par_dyn(bt_part, &J, tensor_par_chunks(n, k, m));
    return 1;
}

int tensor_stream_matmul_bt(float *restrict out, const float *restrict a,
                            const float *restrict b, int n, int k, int m, float sc)
{
    if ((size_t)k * (size_t)m < TENSOR_STREAM_MIN_KM)
        return 0;
    return tensor_stream_bt_ldo(out, m, a, b, n, k, m, sc);
}

#else
int tensor_stream_matmul(float *restrict out, const float *restrict a, int lda,
                         const float *restrict b, int n, int k, int m)
{
    (void)out, (void)a, (void)lda, (void)b, (void)n, (void)k, (void)m;
    return 0;
}

int tensor_stream_matmul_bt(float *restrict out, const float *restrict a,
                            const float *restrict b, int n, int k, int m, float sc)
{
    (void)out, (void)a, (void)b, (void)n, (void)k, (void)m, (void)sc;
    return 0;
}

int tensor_stream_bt_ldo(float *restrict out, int ldo, const float *restrict a,
                         const float *restrict b, int n, int k, int m, float sc)
{
    (void)out, (void)ldo, (void)a, (void)b, (void)n, (void)k, (void)m, (void)sc;
    return 0;
}

int tensor_stream_bt_bf16(float *restrict out, const float *restrict a,
                          const uint16_t *restrict b, int n, int k, int m, float sc)
{
    (void)out, (void)a, (void)b, (void)n, (void)k, (void)m, (void)sc;
    return 0;
}
#endif
