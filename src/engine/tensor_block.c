/* tensor_block.c - products of many rows (tokens) with a large weight matrix (see
 * tensor_block.h): the weights are read from memory once per block of tokens, not once per
 * band of rows.
 *
 * Past TENSOR_STREAM_MAX_N tokens the tiled kernels of tensor_matmul.c walk the whole weight
 * matrix once per band of 8 rows: GPT-2 small's 768×3072 matrices (9.4 MB) came from memory
 * every 8 tokens (the cliff at 33 tokens). Here, BLIS's loop order without packing the
 * activations: for each block of KC weight rows, for each panel of NR columns, the panel
 * (KC×NR floats) is copied once into a contiguous buffer (no cache-set conflicts from the
 * matrix's row stride; the next panel prefetched meanwhile) and applied to every band of MR
 * token rows of the token block. The token block (TB rows × KC floats of activations) stays in
 * L2, the panel in L1.
 *
 * Bits: every output element is tensor_matmul's in-order fused chain over p. A block of KC
 * weight rows continues each element's chain from the value the previous block stored (a
 * float: exactly what the register held), so the bits are the tiled kernels'
 * (tests/unit/test_stream.c compares element by element, on both paths).
 *
 * [out, in] weights (tensor_matmul_bt) are not here: tensor_stream.c's kernels take any number
 * of rows in token blocks. */
#include "tensor_block.h"
#include "cpu.h"
#include "tensor_stream.h"

#include <stddef.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))
#define AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) static inline
#define AVX512 __attribute__((target("avx512f")))
#define AVX512_INLINE __attribute__((target("avx512f"), always_inline)) static inline

/* Weight rows per block (the chain is stored and continued between blocks) and token rows per
 * block: TB × KC floats of activations is 1 MB, half of this machine's L2. */
#define KC 256
#define TB 1024

static int min_i(int x, int y) { return x < y ? x : y; }

/* buf[p][0..nr) = b[p0 + p][j .. j + w), zeros past w; the same rows at the next panel's
 * columns (nj, 0 when none) prefetched into L2 meanwhile. */
static inline void pack(float *restrict buf, const float *restrict b, int m, int p0, int p1,
                        int j, int w, int nr, int nj)
{
    for (int p = p0; p < p1; p++) {
        const float *bp = b + (size_t)p * m;
        float *o = buf + (size_t)(p - p0) * nr;
        memcpy(o, bp + j, sizeof(float) * (size_t)w);
        if (w < nr)
            memset(o + w, 0, sizeof(float) * (size_t)(nr - w));
        if (nj) {
            _mm_prefetch((const char *)(bp + nj), _MM_HINT_T1);
            _mm_prefetch((const char *)(bp + nj + 16), _MM_HINT_T1);
            _mm_prefetch((const char *)(bp + min_i(nj + nr, m) - 1), _MM_HINT_T1);
        }
    }
}

/* ---- AVX-512: bands of 8 rows × 48 columns (24 accumulators of the 32 zmm registers) ---- */
#define ZMR 8
#define ZNR 48

/* R rows of out at the panel's columns (masks: the columns that exist) += a's R rows
 * [p0, p0 + kc) · the packed panel: each element's chain continues from out (from 0 when
 * first). a starts at the band's first row and the block's first column. */
AVX512_INLINE void zkern(float *restrict out, const float *restrict a, int lda,
                         const float *restrict pb, int kc, int m, int R, __mmask16 m0,
                         __mmask16 m1, __mmask16 m2, int first)
{
    __m512 c0[ZMR], c1[ZMR], c2[ZMR];
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) {
        float *o = out + (size_t)r * m;
        c0[r] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m0, o);
        c1[r] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m1, o + 16);
        c2[r] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m2, o + 32);
    }
    for (int p = 0; p < kc; p++) {
        const float *bp = pb + (size_t)p * ZNR;
        __m512 b0 = _mm512_loadu_ps(bp), b1 = _mm512_loadu_ps(bp + 16),
               b2 = _mm512_loadu_ps(bp + 32);
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) {
            __m512 av = _mm512_set1_ps(a[(size_t)r * lda + p]);
            c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
            c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
            c2[r] = _mm512_fmadd_ps(av, b2, c2[r]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) {
        float *o = out + (size_t)r * m;
        _mm512_mask_storeu_ps(o, m0, c0[r]);
        _mm512_mask_storeu_ps(o + 16, m1, c1[r]);
        _mm512_mask_storeu_ps(o + 32, m2, c2[r]);
    }
}

static __mmask16 lanes16(int w)
{
    return (__mmask16)(w >= 16 ? 0xffffu : w <= 0 ? 0u : (1u << w) - 1u);
}

AVX512 static void block_z(float *restrict out, const float *restrict a, int lda,
                           const float *restrict b, int n, int k, int m, float *buf)
{
    for (int i0 = 0; i0 < n; i0 += TB) {
        int i1 = min_i(n, i0 + TB);
        for (int p0 = 0; p0 < k; p0 += KC) {
            int p1 = min_i(k, p0 + KC), kc = p1 - p0, first = p0 == 0;
            for (int j = 0; j < m; j += ZNR) {
                int w = min_i(ZNR, m - j);
                pack(buf, b, m, p0, p1, j, w, ZNR, j + ZNR < m ? j + ZNR : 0);
                __mmask16 m0 = lanes16(w), m1 = lanes16(w - 16), m2 = lanes16(w - 32);
                for (int r = i0; r < i1; r += ZMR) {
                    float *o = out + (size_t)r * m + j;
                    const float *ar = a + (size_t)r * lda + p0;
                    switch (min_i(ZMR, i1 - r)) {
#define ZCASE(R) case R: zkern(o, ar, lda, buf, kc, m, R, m0, m1, m2, first); break;
                        ZCASE(8) ZCASE(7) ZCASE(6) ZCASE(5) ZCASE(4) ZCASE(3) ZCASE(2) ZCASE(1)
#undef ZCASE
                    default: break;
                    }
                }
            }
        }
    }
}

/* ---- AVX2 + FMA: bands of 6 rows × 16 columns (12 accumulators of the 16 ymm) ---- */
#define YMR 6
#define YNR 16

AVX2_INLINE __m256i lanes8(int w)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(w), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

AVX2_INLINE void ykern(float *restrict out, const float *restrict a, int lda,
                       const float *restrict pb, int kc, int m, int R, __m256i m0, __m256i m1,
                       int first)
{
    __m256 c0[YMR], c1[YMR];
#pragma GCC unroll 6
    for (int r = 0; r < R; r++) {
        float *o = out + (size_t)r * m;
        c0[r] = first ? _mm256_setzero_ps() : _mm256_maskload_ps(o, m0);
        c1[r] = first ? _mm256_setzero_ps() : _mm256_maskload_ps(o + 8, m1);
    }
    for (int p = 0; p < kc; p++) {
        const float *bp = pb + (size_t)p * YNR;
        __m256 b0 = _mm256_loadu_ps(bp), b1 = _mm256_loadu_ps(bp + 8);
#pragma GCC unroll 6
        for (int r = 0; r < R; r++) {
            __m256 av = _mm256_broadcast_ss(a + (size_t)r * lda + p);
            c0[r] = _mm256_fmadd_ps(av, b0, c0[r]);
            c1[r] = _mm256_fmadd_ps(av, b1, c1[r]);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; r++) {
        float *o = out + (size_t)r * m;
        _mm256_maskstore_ps(o, m0, c0[r]);
        _mm256_maskstore_ps(o + 8, m1, c1[r]);
    }
}

AVX2 static void block_y(float *restrict out, const float *restrict a, int lda,
                         const float *restrict b, int n, int k, int m, float *buf)
{
    for (int i0 = 0; i0 < n; i0 += TB) {
        int i1 = min_i(n, i0 + TB);
        for (int p0 = 0; p0 < k; p0 += KC) {
            int p1 = min_i(k, p0 + KC), kc = p1 - p0, first = p0 == 0;
            for (int j = 0; j < m; j += YNR) {
                int w = min_i(YNR, m - j);
                pack(buf, b, m, p0, p1, j, w, YNR, j + YNR < m ? j + YNR : 0);
                __m256i m0 = lanes8(w), m1 = lanes8(w - 8);
                for (int r = i0; r < i1; r += YMR) {
                    float *o = out + (size_t)r * m + j;
                    const float *ar = a + (size_t)r * lda + p0;
                    switch (min_i(YMR, i1 - r)) {
#define YCASE(R) case R: ykern(o, ar, lda, buf, kc, m, R, m0, m1, first); break;
                        YCASE(6) YCASE(5) YCASE(4) YCASE(3) YCASE(2) YCASE(1)
#undef YCASE
                    default: break;
                    }
                }
            }
        }
    }
}

int tensor_block_matmul(float *restrict out, const float *restrict a, int lda,
                        const float *restrict b, int n, int k, int m)
{
    if (n <= TENSOR_STREAM_MAX_N || k < 1 || (size_t)k * (size_t)m < TENSOR_STREAM_MIN_KM)
        return 0;
    /* the panel buffer: KC rows of the widest panel, 64-byte aligned */
    static _Thread_local float buf[KC * ZNR] __attribute__((aligned(64)));
    if (cpu_has_avx512())
        block_z(out, a, lda, b, n, k, m, buf);
    else if (cpu_has_avx2_fma())
        block_y(out, a, lda, b, n, k, m, buf);
    else
        return 0;
    return 1;
}

#else
int tensor_block_matmul(float *restrict out, const float *restrict a, int lda,
                        const float *restrict b, int n, int k, int m)
{
    (void)out, (void)a, (void)lda, (void)b, (void)n, (void)k, (void)m;
    return 0;
}
#endif
