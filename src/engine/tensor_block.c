/* tensor_block.c - products of many rows (tokens) with a large weight matrix (see
 * tensor_block.h): the weights are read from memory once per block of tokens, not once per
 * band of rows.
 *
 * Past TENSOR_STREAM_MAX_N tokens the tiled kernels of tensor_matmul.c walk the whole weight
 * matrix once per band of 8 rows: GPT-2 small's 768×3072 matrices (9.4 MB) came from memory
 * every 8 tokens (the cliff at 33 tokens). Here, BLIS's loop order. AVX-512: column blocks of
 * ZNC columns; in each, token blocks of up to ZTB rows; in each, blocks of KC weight rows: the
 * block's weights packed into panels of 48 columns, a panel at a time as its bands start
 * (contiguous, in L1: no cache-set conflicts from the matrix's row stride; the next block
 * prefetched into L2 a line every few kernel steps, beside the multiply-adds), the token
 * block's activations in bands of 8 rows (each step of the kernel broadcasts from one 32-byte
 * row, not from 8 rows a matrix row apart; all of them packed once per product, over the
 * threads, before the column parts start: pack_all), then each panel (in L1) applied to every
 * band: 8 rows × 48 columns, 24 of the 32 zmm registers. Between weight blocks the chains
 * stay in L2 (ZTB × ZNC floats), in a contiguous tile per band and panel (not in out, whose
 * rows a 3072-wide matrix puts in the same cache sets); the last block stores to out. AVX2
 * (speed secondary): the activations read in place, the whole token block (TB rows) per
 * panel, 6 × 16.
 *
 * Bits: every output element is tensor_matmul's in-order fused chain over p. A block of KC
 * weight rows continues each element's chain from the value the previous block stored (a
 * float: exactly what the register held), so the bits are the tiled kernels'
 * (tests/unit/test_stream.c compares element by element, on both paths).
 *
 * [out, in] weights (tensor_matmul_bt) are not here: tensor_stream.c's kernels take any number
 * of rows in token blocks. Half-precision weights (tensor_half.c) are widened as their panels
 * are packed: the same bits as their float32 widening. */
#include "tensor_block.h"
#include "tensor.h"
#include "cpu.h"
#include "tensor_par.h"
#include "tensor_stream.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,fma")))
#define AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) static inline
#define AVX512 __attribute__((target("avx512f")))
#define AVX512_INLINE __attribute__((target("avx512f"), always_inline)) static inline

/* Weight rows per block (the chain is stored and continued between blocks; a panel, KC × 48
 * floats, is 24 KB: L1; 64 and 256 measured slower) and the AVX2 path's token rows per block.
 * (-DKC=... and, below, -DZNC, -DZTB build variants for tools/gemm_bench A/B runs.) */
#ifndef KC
#define KC 128
#endif
#define TB 1024

static int min_i(int x, int y) { return x < y ? x : y; }

/* Rows p0..p1-1 of b (or h's, widened: h non-NULL holds dtype's 16-bit values), columns
 * [jlo, jhi), into panels of nr columns: panel q at buf + q·kc·nr holds row p at (p - p0)·nr,
 * zeros past the last column. Each row is read in order, from memory once. */
static inline void pack(float *restrict buf, const float *restrict b, const uint16_t *restrict h,
                        int dtype, int m, int p0, int p1, int jlo, int jhi, int nr)
{
    int kc = p1 - p0;
    for (int p = p0; p < p1; p++)
        for (int j = jlo, q = 0; j < jhi; j += nr, q++) {
            int w = min_i(nr, jhi - j);
            float *o = buf + ((size_t)q * kc + (size_t)(p - p0)) * nr;
            if (h)
                tensor_widen(o, h + (size_t)p * m + j, dtype, (size_t)w);
            else
                memcpy(o, b + (size_t)p * m + j, sizeof(float) * (size_t)w);
            if (w < nr)
                memset(o + w, 0, sizeof(float) * (size_t)(nr - w));
        }
}

/* The share q of np of the next block's rows (p0..p1-1, columns [jlo, jhi)) into L2: spread
 * over the panels of the current block, the next block comes from memory while this one is
 * computed. */
static inline void prefetch_next(const float *b, const uint16_t *h, int m, int p0, int p1, int jlo,
                                 int jhi, int q, int np)
{
    int r0 = p0 + (int)((long)(p1 - p0) * q / np), r1 = p0 + (int)((long)(p1 - p0) * (q + 1) / np);
    for (int p = r0; p < r1; p++) {
        const char *lo = h ? (const char *)(h + (size_t)p * m + jlo) : (const char *)(b + (size_t)p * m + jlo);
        const char *hi = h ? (const char *)(h + (size_t)p * m + jhi) : (const char *)(b + (size_t)p * m + jhi);
        for (const char *c = lo; c < hi; c += 64)
            _mm_prefetch(c, _MM_HINT_T1);
        _mm_prefetch(hi - 1, _MM_HINT_T1);
    }
}

/* ---- AVX-512: bands of 8 rows × 48 columns (24 accumulators of the 32 zmm registers) ---- */
#define ZMR 8
#define ZNR 48
/* AVX-512's blocks: columns per column block (its token block's outputs, ZTB × ZNC floats =
 * 768 KB, stay in L2 from one weight block to the next; 384 measured slower) and token rows per
 * token block (the column block's weights are read from memory once per token block: at 256
 * rows, 128 multiply-adds per weight read). */
#ifndef ZNC
#define ZNC 768
#endif
#ifndef ZTB
#define ZTB 256
#endif

/* The first w lanes of 16 (none when w <= 0). */
static __mmask16 lanes16(int w)
{
    return (__mmask16)(w >= 16 ? 0xffffu : w <= 0 ? 0u : (1u << w) - 1u);
}

/* Rows [0, R) of a (rows lda floats apart, from the block's first column) for kc columns, into
 * a band's micro-panel: ap[p·ZMR + r] = a[r·lda + p], rows R..ZMR-1 zero, so that each step of
 * the kernel broadcasts from one contiguous 32-byte row. */
AVX512 static void pack_a(float *restrict ap, const float *restrict a, int lda, int R, int kc)
{
    int p = 0;
    if (R == ZMR)
        for (; p + 8 <= kc; p += 8) { /* 8×8 transposes */
            __m256 r0 = _mm256_loadu_ps(a + p), r1 = _mm256_loadu_ps(a + (size_t)lda + p),
                   r2 = _mm256_loadu_ps(a + 2 * (size_t)lda + p), r3 = _mm256_loadu_ps(a + 3 * (size_t)lda + p),
                   r4 = _mm256_loadu_ps(a + 4 * (size_t)lda + p), r5 = _mm256_loadu_ps(a + 5 * (size_t)lda + p),
                   r6 = _mm256_loadu_ps(a + 6 * (size_t)lda + p), r7 = _mm256_loadu_ps(a + 7 * (size_t)lda + p);
            __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1),
                   t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3),
                   t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
                   t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
            __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee),
                   u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee),
                   u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee),
                   u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
            float *o = ap + (size_t)p * ZMR;
            _mm256_storeu_ps(o, _mm256_permute2f128_ps(u0, u4, 0x20));
            _mm256_storeu_ps(o + 8, _mm256_permute2f128_ps(u1, u5, 0x20));
            _mm256_storeu_ps(o + 16, _mm256_permute2f128_ps(u2, u6, 0x20));
            _mm256_storeu_ps(o + 24, _mm256_permute2f128_ps(u3, u7, 0x20));
            _mm256_storeu_ps(o + 32, _mm256_permute2f128_ps(u0, u4, 0x31));
            _mm256_storeu_ps(o + 40, _mm256_permute2f128_ps(u1, u5, 0x31));
            _mm256_storeu_ps(o + 48, _mm256_permute2f128_ps(u2, u6, 0x31));
            _mm256_storeu_ps(o + 56, _mm256_permute2f128_ps(u3, u7, 0x31));
        }
    for (; p < kc; p++)
        for (int r = 0; r < ZMR; r++)
            ap[(size_t)p * ZMR + r] = r < R ? a[(size_t)r * lda + p] : 0.0f;
}

/* pack's float32 case for ZNR-column panels (buf 64-byte aligned): three vector copies per
 * panel row (the library's memcpy of 192 bytes was a string move, an eighth of the product's
 * time at 256 tokens), masked at the last panel's edge, zeros past it. */
AVX512 static void pack_z(float *restrict buf, const float *restrict b, int m, int p0, int p1,
                          int jlo, int jhi)
{
    int kc = p1 - p0, full = (jhi - jlo) / ZNR, w = jhi - jlo - full * ZNR;
    __mmask16 m0 = lanes16(w), m1 = lanes16(w - 16), m2 = lanes16(w - 32);
    for (int p = p0; p < p1; p++) {
        const float *src = b + (size_t)p * m + jlo;
        float *o = buf + (size_t)(p - p0) * ZNR;
        for (int q = 0; q < full; q++, src += ZNR, o += (size_t)kc * ZNR) {
            __m512 x0 = _mm512_loadu_ps(src), x1 = _mm512_loadu_ps(src + 16), x2 = _mm512_loadu_ps(src + 32);
            _mm512_store_ps(o, x0);
            _mm512_store_ps(o + 16, x1);
            _mm512_store_ps(o + 32, x2);
        }
        if (w) {
            _mm512_store_ps(o, _mm512_maskz_loadu_ps(m0, src));
            _mm512_store_ps(o + 16, _mm512_maskz_loadu_ps(m1, src + 16));
            _mm512_store_ps(o + 32, _mm512_maskz_loadu_ps(m2, src + 32));
        }
    }
}

/* A walk over the next weight block's lines (rows p0..p1-1 of the matrix, bytes [lo, lo + len)
 * of each, rows stride bytes apart), a line at a time, for the kernels to prefetch into L2 one
 * line every few steps: spread so, the next block streams in beside the multiply-adds (a burst of
 * hundreds of prefetches per panel held the kernel until the line fill buffers drained). */
typedef struct {
    const char *row, *at;
    size_t stride;
    int per, left, rows; /* lines per row, lines left in this row, rows left */
} Pf;

static void pf_init(Pf *f, const char *base, size_t stride, size_t lo, size_t len, int rows)
{
    uintptr_t a = ((uintptr_t)(base + lo)) & ~(uintptr_t)63;
    f->row = f->at = (const char *)a;
    f->stride = stride;
    f->per = (int)((len + 63) / 64) + 1;
    f->left = f->per;
    f->rows = rows;
}

/* R rows of dst (ds floats apart) at the panel's columns (masks: the columns that exist) = R
 * rows of src (ss apart) + the band's packed rows (ap, pack_a's layout) · the packed panel pb, kc
 * steps: each element's chain continues from src (from 0 when first). npf of the steps, evenly
 * spaced, each prefetch the next line of pf's walk; next (when not first): the next band's src
 * tile, 24 lines, prefetched into L1.
 * (Packing the panel here instead, as its first band reads
 * it from the matrix, measured 10-40% slower: the strided rows stall the chain.) */
AVX512_INLINE void zkern(float *dst, int ds, const float *src, int ss, const float *restrict ap,
                         const float *restrict pb, int kc, int R, __mmask16 m0, __mmask16 m1,
                         __mmask16 m2, int first, Pf *pf, int npf, const float *next)
{
    const char *at = pf->at, *row = pf->row;
    int left = pf->left, rows = pf->rows;
    if (rows <= 0)
        npf = 0;
    __m512 c0[ZMR], c1[ZMR], c2[ZMR];
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) {
        const float *o = src + (size_t)r * ss;
        c0[r] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m0, o);
        c1[r] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m1, o + 16);
        c2[r] = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(m2, o + 32);
    }
    if (next && !first) /* the next band's chains, from L2 into L1 while this one runs */
        for (int l = 0; l < ZMR * ZNR / 16; l++)
            _mm_prefetch((const char *)(next + 16 * l), _MM_HINT_T0);
    /* the npf lines one every ev steps, spread over the whole kernel (issued back to back in
     * its first npf steps, they held the multiply-adds: 3-5% of the product at 64 tokens) */
    int ev = npf > 0 && kc / npf > 1 ? kc / npf : 1, cd = 1;
#pragma GCC unroll 2
    for (int p = 0; p < kc; p++) {
        const float *bp = pb + (size_t)p * ZNR, *a = ap + (size_t)p * ZMR;
        if (npf > 0 && --cd == 0) {
            cd = ev;
            npf--;
            _mm_prefetch(at, _MM_HINT_T1);
            at += 64;
            if (--left == 0) {
                row += pf->stride;
                at = row;
                left = pf->per;
                if (--rows == 0)
                    npf = 0;
            }
        }
        __m512 b0 = _mm512_load_ps(bp), b1 = _mm512_load_ps(bp + 16), b2 = _mm512_load_ps(bp + 32);
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) {
            __m512 av = _mm512_set1_ps(a[r]);
            c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);
            c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);
            c2[r] = _mm512_fmadd_ps(av, b2, c2[r]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) {
        float *o = dst + (size_t)r * ds;
        _mm512_mask_storeu_ps(o, m0, c0[r]);
        _mm512_mask_storeu_ps(o + 16, m1, c1[r]);
        _mm512_mask_storeu_ps(o + 32, m2, c2[r]);
    }
    pf->at = at, pf->row = row, pf->left = left, pf->rows = rows;
}

/* The rows of a token block: n split evenly into blocks of at most tbmax rows, rounded up to
 * whole bands of ZMR (block_z's and pack_all's one definition). */
static int z_tb(int n, int tbmax)
{
    int ntb = (n + tbmax - 1) / tbmax;
    return ((n + ntb - 1) / ntb + ZMR - 1) / ZMR * ZMR;
}

/* Bands [g0, g1) (band g: rows 8g..8g+7 of n, the missing ones zero) of a (rows lda floats
 * apart, k columns) into apk in block_z's order for token blocks of tb rows (z_tb): the token
 * block at row i0 (its rows rounded up to bands: rb) at apk + i0·k, in it the weight block at
 * row p0 at + p0·rb, in it the band at row r at + (r - i0)·kc, pack_a's layout. So every weight
 * block's bands are where block_z packed them before, once per product instead of once per
 * column block (and once per thread). */
AVX512 static void pack_all(float *restrict apk, const float *restrict a, int lda, int n, int k,
                            int tb, int g0, int g1)
{
    for (int g = g0; g < g1; g++) {
        int r = g * ZMR, i0 = r / tb * tb, rb = (min_i(n, i0 + tb) - i0 + ZMR - 1) / ZMR * ZMR;
        for (int p0 = 0; p0 < k; p0 += KC) {
            int kc = min_i(k, p0 + KC) - p0;
            pack_a(apk + (size_t)i0 * k + (size_t)p0 * rb + (size_t)(r - i0) * kc,
                   a + (size_t)r * lda + p0, lda, min_i(ZMR, n - r), kc);
        }
    }
}

/* Columns [jlo, jhi) of the product in column blocks of ZNC; in each, token blocks of up to tbmax
 * rows (a multiple of ZMR; n split evenly, z_tb); in each, weight blocks of KC rows: the token
 * block's activations in bands (apk: all of a, packed by pack_all for tbmax; NULL: packed here
 * into abuf, tbmax × KC floats, for each weight block), then each panel of the weight block
 * packed (buf: one panel, KC × ZNR floats, rewritten in L1: the whole block packed first into
 * KC × ZNC went through L2 twice, 15% of the product at 64 tokens) and applied to every band,
 * the next weight block prefetched a line every few kernel steps. Between weight blocks each
 * chain is kept in cbuf (tbmax × (ZNC + ZNR) floats: a contiguous 8 × 48 tile per band and
 * panel, no cache-set conflicts from out's row stride); the last block stores to out. */
AVX512 static void block_z(float *restrict out, const float *restrict a, int lda,
                           const float *restrict apk, const float *restrict b,
                           const uint16_t *restrict h, int dtype, int n, int k, int m, float *buf,
                           float *abuf, float *cbuf, int tbmax, int jlo, int jhi)
{
    int tb = z_tb(n, tbmax);
    for (int jc = jlo; jc < jhi; jc += ZNC) {
        int jce = min_i(jhi, jc + ZNC);
        for (int i0 = 0; i0 < n; i0 += tb) {
            int i1 = min_i(n, i0 + tb), rb = (i1 - i0 + ZMR - 1) / ZMR * ZMR;
            for (int p0 = 0; p0 < k; p0 += KC) {
                int p1 = min_i(k, p0 + KC), kc = p1 - p0, first = p0 == 0;
                const float *ab = apk ? apk + (size_t)i0 * k + (size_t)p0 * rb : abuf;
                if (!apk)
                    for (int r = i0; r < i1; r += ZMR)
                        pack_a(abuf + (size_t)(r - i0) * kc, a + (size_t)r * lda + p0, lda,
                               min_i(ZMR, i1 - r), kc);
                /* the next weight block: this token block's next rows, else the next token
                 * block's first, else the next column block's first */
                int np = (jce - jc + ZNR - 1) / ZNR, nq0 = -1, nq1 = 0, nj0 = jc, nj1 = jce;
                if (p1 < k)
                    nq0 = p1, nq1 = min_i(k, p1 + KC);
                else if (i1 < n)
                    nq0 = 0, nq1 = min_i(k, KC);
                else if (jce < jhi)
                    nq0 = 0, nq1 = min_i(k, KC), nj0 = jce, nj1 = min_i(jhi, jce + ZNC);
                /* the next block's lines, a share per kernel (spread over its steps), or, when the
                 * shares would not fit in the steps (few bands), a share per panel at once */
                int es = h ? 2 : 4, bands = (i1 - i0 + ZMR - 1) / ZMR;
                Pf pf = {0};
                long lines = 0;
                if (nq0 >= 0) {
                    pf_init(&pf, h ? (const char *)h : (const char *)b, (size_t)m * es,
                            (size_t)nq0 * m * es + (size_t)nj0 * es, (size_t)(nj1 - nj0) * es, nq1 - nq0);
                    lines = (long)pf.per * (nq1 - nq0);
                }
                long kern = (long)np * bands;
                int share = (int)((lines + kern - 1) / kern), spread = share <= kc;
                if (!spread)
                    share = 0, pf.rows = 0;
                for (int j = jc; j < jce; j += ZNR) {
                    int w = min_i(ZNR, jce - j), q = (j - jc) / ZNR;
                    const float *pb = buf; /* packed as its bands start: written into L1 */
                    if (h)
                        pack(buf, b, h, dtype, m, p0, p1, j, j + w, ZNR);
                    else
                        pack_z(buf, b, m, p0, p1, j, j + w);
                    if (nq0 >= 0 && !spread)
                        prefetch_next(b, h, m, nq0, nq1, nj0, nj1, q, np);
                    __mmask16 m0 = lanes16(w), m1 = lanes16(w - 16), m2 = lanes16(w - 32);
                    for (int r = i0; r < i1; r += ZMR) {
                        /* the chains between weight blocks: a tile of cbuf per band and panel */
                        float *o = out + (size_t)r * m + j,
                              *t = cbuf + ((size_t)q * bands + (size_t)(r - i0) / ZMR) * ZMR * ZNR,
                              *d = p1 == k ? o : t;
                        int dstr = p1 == k ? m : ZNR;
                        const float *ap = ab + (size_t)(r - i0) * kc,
                                    *nx = r + ZMR < i1 ? t + ZMR * ZNR : NULL;
                        switch (min_i(ZMR, i1 - r)) {
#define ZCASE(R) case R: zkern(d, dstr, t, ZNR, ap, pb, kc, R, m0, m1, m2, first, &pf, share, nx); break;
                            ZCASE(8) ZCASE(7) ZCASE(6) ZCASE(5) ZCASE(4) ZCASE(3) ZCASE(2) ZCASE(1)
#undef ZCASE
                        default: break;
                        }
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
                         const float *restrict b, const uint16_t *restrict h, int dtype, int n,
                         int k, int m, float *buf, int jlo, int jhi)
{
    for (int i0 = 0; i0 < n; i0 += TB) {
        int i1 = min_i(n, i0 + TB);
        for (int p0 = 0; p0 < k; p0 += KC) {
            int p1 = min_i(k, p0 + KC), kc = p1 - p0, first = p0 == 0;
            pack(buf, b, h, dtype, m, p0, p1, jlo, jhi, YNR);
            int np = (jhi - jlo + YNR - 1) / YNR, np0 = p1 < k ? p1 : 0, np1 = min_i(k, p1 + KC);
            for (int j = jlo; j < jhi; j += YNR) {
                int w = min_i(YNR, jhi - j), q = (j - jlo) / YNR;
                const float *pb = buf + (size_t)q * kc * YNR;
                if (np0)
                    prefetch_next(b, h, m, np0, np1, jlo, jhi, q, np);
                __m256i m0 = lanes8(w), m1 = lanes8(w - 8);
                for (int r = i0; r < i1; r += YMR) {
                    float *o = out + (size_t)r * m + j;
                    const float *ar = a + (size_t)r * lda + p0;
                    switch (min_i(YMR, i1 - r)) {
#define YCASE(R) case R: ykern(o, ar, lda, pb, kc, m, R, m0, m1, first); break;
                        YCASE(6) YCASE(5) YCASE(4) YCASE(3) YCASE(2) YCASE(1)
#undef YCASE
                    default: break;
                    }
                }
            }
        }
    }
}

/* The packed weights of each thread (AVX-512: one panel, KC × ZNR, then block_z's abuf and cbuf;
 * AVX2: KC weight rows of its columns in panels); grown when a wider matrix comes, kept for the
 * next product (the thread's lifetime). */
static _Thread_local float *panels;
static _Thread_local size_t panels_cap;

typedef struct {
    float *out;
    const float *a, *b, *apk; /* apk: a packed once for every part (pack_all), or NULL */
    const uint16_t *h;
    int lda, dtype, n, k, m, z;
} Job;

/* One part of the columns (whole panels) of the product (tensor_par.h). */
static void part_run(void *ctx, int part, int parts)
{
    const Job *J = ctx;
    int j0, j1;
    tensor_par_range(J->m, J->z ? ZNR : YNR, part, parts, &j0, &j1);
    if (j0 >= j1)
        return;
    size_t bn = J->z ? (size_t)KC * ZNR : (size_t)KC * (size_t)(j1 - j0 + ZNR),
           cn = (size_t)ZTB * (ZNC + ZNR),
           need = bn + (J->z ? (size_t)ZTB * KC + cn : 0) + 48;
    if (need > panels_cap) {
        free(panels);
        panels = malloc(sizeof(float) * need);
        panels_cap = panels ? need : 0;
    }
    if (!panels) { /* out of memory: one panel at a time in a small buffer, the same bits */
        static _Thread_local float one[KC * ZNR] __attribute__((aligned(64)));
        static _Thread_local float aone[KC * ZMR] __attribute__((aligned(64)));
        static _Thread_local float cone[ZMR * ZNR] __attribute__((aligned(64)));
        int nr = J->z ? ZNR : YNR;
        for (int j = j0; j < j1; j += nr) {
            int e = j + nr < j1 ? j + nr : j1;
            if (J->z) /* token blocks of ZMR rows: not apk's layout (ZTB's) */
                block_z(J->out, J->a, J->lda, NULL, J->b, J->h, J->dtype, J->n, J->k, J->m, one,
                        aone, cone, ZMR, j, e);
            else
                block_y(J->out, J->a, J->lda, J->b, J->h, J->dtype, J->n, J->k, J->m, one, j, e);
        }
        return;
    }
    float *buf = (float *)(((uintptr_t)panels + 63) & ~(uintptr_t)63);
    if (J->z)
        block_z(J->out, J->a, J->lda, J->apk, J->b, J->h, J->dtype, J->n, J->k, J->m, buf,
                buf + (bn + 15) / 16 * 16, buf + (bn + 15) / 16 * 16 + (size_t)ZTB * KC, ZTB, j0, j1);
    else
        block_y(J->out, J->a, J->lda, J->b, J->h, J->dtype, J->n, J->k, J->m, buf, j0, j1);
}

/* The calling thread's packed activations (pack_all's layout, shared with the workers for one
 * product): grown when a longer or wider a comes, kept for the next product. */
static _Thread_local float *apack;
static _Thread_local size_t apack_cap;
/* Past this many floats (the activations of 4096 tokens × 4096), a is packed per part and
 * weight block instead (the memory is not kept): GPT-2 small at 1024 tokens needs 3.1 M. */
#define APACK_MAX ((size_t)1 << 24)

/* One part of the bands of pack_all (AVX-512, a ZTB-row token-block layout). */
static void pack_run(void *ctx, int part, int parts)
{
    const Job *J = ctx;
    int g0, g1;
    tensor_par_range((J->n + ZMR - 1) / ZMR, 1, part, parts, &g0, &g1);
    if (g0 < g1)
        pack_all((float *)J->apk, J->a, J->lda, J->n, J->k, z_tb(J->n, ZTB), g0, g1);
}

/* The product over the threads (AVX-512: a packed once, over the threads that are awake, then
 * the columns in parts; AVX2: the columns in parts). 0 without AVX2+FMA. */
static int run(float *out, const float *a, int lda, const float *b, const uint16_t *h,
               int dtype, int n, int k, int m)
{
    int z = cpu_has_avx512();
    if (!z && !cpu_has_avx2_fma())
        return 0;
    Job J = {out, a, b, NULL, h, lda, dtype, n, k, m, z};
    size_t need = (size_t)(n + ZMR - 1) / ZMR * ZMR * (size_t)k + 16;
    if (z && need <= APACK_MAX) {
        if (need > apack_cap) {
            free(apack);
            apack = malloc(sizeof(float) * need);
            apack_cap = apack ? need : 0;
        }
        if (apack) { /* else: packed per part and weight block, the same bits */
            J.apk = (const float *)(((uintptr_t)apack + 63) & ~(uintptr_t)63);
            /* over the threads when the workers are awake; when one sleeps, on this thread
             * alone (a pack is a few % of the product: the column job below wakes it, and
             * this one does not wait for it) */
            int parts = tensor_par_parts(n, k, m), bands = (n + ZMR - 1) / ZMR;
            tensor_par_dyn_awake(pack_run, &J, parts < bands ? parts : bands);
        }
    }
    /* parts of at least 384 columns (8 panels of 48): each part packs its own weights, once
     * per token block (without apk, all of a again too); narrower parts read the weights in
     * shorter row pieces (3072x768 at 1024 tokens cut into 4 or 8 parts, one thread: 9% and
     * 16% more CPU than 2, a shared pack of a notwithstanding) */
    tensor_par_dyn(part_run, &J, tensor_par_chunks_cols(n, k, m, 384));
    return 1;
}

int tensor_block_matmul(float *restrict out, const float *restrict a, int lda,
                        const float *restrict b, int n, int k, int m)
{
    if (n <= TENSOR_STREAM_MAX_N || k < 1 || (size_t)k * (size_t)m < TENSOR_STREAM_MIN_KM)
        return 0;
    return run(out, a, lda, b, NULL, 0, n, k, m);
}

int tensor_block_matmul_half(float *restrict out, const float *restrict a, int lda,
                             const uint16_t *restrict h, int dtype, int n, int k, int m)
{
    if (n < 1 || k < 1 || m < 1)
        return 0;
    return run(out, a, lda, NULL, h, dtype, n, k, m);
}

#else
int tensor_block_matmul(float *restrict out, const float *restrict a, int lda,
                        const float *restrict b, int n, int k, int m)
{
    (void)out, (void)a, (void)lda, (void)b, (void)n, (void)k, (void)m;
    return 0;
}

int tensor_block_matmul_half(float *restrict out, const float *restrict a, int lda,
                             const uint16_t *restrict h, int dtype, int n, int k, int m)
{
    (void)out, (void)a, (void)lda, (void)h, (void)dtype, (void)n, (void)k, (void)m;
    return 0;
}
#endif
