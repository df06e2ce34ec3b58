/* tensor_bt.c - the [out, in] product (a · bᵀ: torch's nn.Linear weights, tied LM heads) for
 * many rows (tokens) under its rounding contract, near the contract's ceiling (see tensor_bt.h).
 *
 * The contract (tensor.c's dot_bt, tensor_stream.c's header): each output element is eight
 * partial sums over p ≡ u (mod 8), products and sums rounded apart (two instructions: this file
 * is built without FMA contraction), combined ((0+4)+(1+5))+((2+6)+(3+7)), then the last k mod
 * 8 products in order, then ·sc. Its ceiling is half the FMA peak: a mul and an add per lane
 * instead of one FMA, on the same two vector ports. Measured on one core of this machine (an
 * Emerald Rapids guest, tools/bt_bench --peak: a pure zmm mul+add loop, every product
 * distinct): 83-86 GFLOP/s, against 175 for FMAs. This kernel on GPT-2's LM head (768 ->
 * 50,257), one thread, best of alternated runs on a shared machine: 77 GFLOP/s at 33 tokens,
 * 81 at 64, 80 at 256, 79 at 1024 (tensor_stream.c's kernel before it: 62-67); each thread's
 * share the same at two threads. On the maps' fill (k = 64) tensor.c's transposed kernel is
 * faster (no horizontal sums): it stays there.
 *
 * The kernel: activations packed once per call as pairs of tokens, each step of 8 along p one
 * zmm (token t's 8 floats in lanes 0-7, token t+1's in 8-15); a weight row's 8 floats are
 * broadcast to both halves straight from memory (a load, no shuffle). One zmm accumulator then
 * holds the eight partial sums of two output elements (tokens t, t+1 of one weight row). A
 * register tile of P pairs × 8 weight rows (P ≤ 3: 24 accumulators) costs P + 8 loads per step
 * for 8P muls and 8P adds, all on the two vector ports. The 8 weight rows (24 KB at k = 768)
 * stay in L1 while every tile of the token block passes; the next 8 rows are prefetched
 * into L2 meanwhile, their lines spread evenly over the group's steps (every tile's: one line
 * per step from 4 tiles, 2 at 12 tokens). At a few rows (GPT-2's head at 12 tokens: 154 MB
 * read from memory for 0.93 GFLOP, both about 10 ms at this machine's ceilings) that keeps
 * the reading and the arithmetic overlapped: 12.2 ms against tensor_stream.c's 16.7. Token
 * blocks of about 1 MB of packed activations stay in L2 while every weight row passes once
 * (GPT-2's 154 MB head is read from memory once per ~340 tokens).
 *
 * The finish, per pair: the 8 accumulators' 16 elements reduced together by the contract's
 * tree (every add the same two floats, in the same operand order, as dot_bt's), then ·sc and
 * one permute into two rows of 8 outputs.
 *
 * Weights are packed a group of 8 rows (and a chunk of k, past 1024) at a time, step by step
 * (one contiguous 256-byte line pair per step, no L1 set conflicts whatever k's stride), once
 * per token block; BF16/F16 weights (Qwen's projections kept half) are widened exactly as they
 * are packed (tensor_widen's values): the bits of widening the whole matrix first.
 *
 * AVX-512 only; elsewhere the callers' kernels (tensor_stream.c) run. */
#include "tensor_bt.h"
#include "tensor.h"
#include "cpu.h"
#include "tensor_par.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))
#define AVX512_INLINE __attribute__((target("avx512f"), always_inline)) static inline

/* Weight rows per group (the accumulators' second dimension) and the most token pairs per
 * register tile. */
#define WC 8
#define PP 3
/* The most steps of 8 along k per chunk: a group's chunk, at most WC·8·KS floats (24 KB),
 * stays in L1 while every tile of the token block passes; past it k is cut in equal chunks and
 * the accumulators carried between them. GPT-2's k = 768 is one chunk; Qwen's k = 2048 and
 * 3072 measured about 6% faster in chunks of 64-96 steps than of 128, k = 1024 alike in 1 or 2
 * chunks, 32 steps slower. */
#define KS 96
/* Bytes of packed activations per token block (held in L2 while every weight row passes). */
#define BT_BLOCK_BYTES ((size_t)1 << 20)

static int min_i(int x, int y) { return x < y ? x : y; }

/* Activations a[n×k] packed as pairs: pair q's step s (16 floats) at pk + q·aps + s·16, token
 * 2q's a[p..p+7] (p = 8s) in lanes 0-7, token 2q+1's in 8-15 (the last token again when n is
 * odd). Only the k8 = k/8 whole steps: the tail is read from a. */
AVX512 static void pack_pairs(float *restrict pk, size_t aps, const float *restrict a, int n,
                              int k)
{
    int k8 = k / 8;
    for (int q = 0; q < (n + 1) / 2; q++) {
        const float *r0 = a + (size_t)(2 * q) * k, *r1 = a + (size_t)min_i(2 * q + 1, n - 1) * k;
        float *o = pk + (size_t)q * aps;
        for (int s = 0; s < k8; s++) {
            __m256d hi = _mm256_castps_pd(_mm256_loadu_ps(r1 + 8 * s));
            __m512 v = _mm512_castps256_ps512(_mm256_loadu_ps(r0 + 8 * s));
            v = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(v), hi, 1));
            _mm512_storeu_ps(o + 16 * s, v);
        }
    }
}

/* Two accumulators' 16 lanes (a: tokens t | t+1 of one weight row, b: of another) to 4-lane
 * halves summed: blocks [a.t, a.t+1, b.t, b.t+1], lane u = c[u] + c[u+4] (dot_bt's first
 * level, the lower lane the first operand). */
AVX512_INLINE __m512 fold1(__m512 a, __m512 b)
{
    return _mm512_add_ps(_mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
}

/* Within each 128-bit block: [x0 + x1, x2 + x3, y0 + y1, y2 + y3] (the tree's next levels). */
AVX512_INLINE __m512 fold2(__m512 x, __m512 y)
{
    return _mm512_add_ps(_mm512_shuffle_ps(x, y, 0x88), _mm512_shuffle_ps(x, y, 0xDD));
}

/* The tile: P pairs (packed at ap, pair stride aps floats) × WC weight rows, steps s0..s1-1 of
 * the k8 = k/8 (ap at pair 0's step s0). The rows: wr[w] when wr is not NULL (whole float32
 * rows, k floats each, read in place), else their chunk packed at wp (step s's 8 floats of row
 * w at wp + ((s - s0)·WC + w)·8; after the last step, the last k mod 8 of row w, zero-padded,
 * at wp + ((s1 - s0)·WC + w)·8). The accumulators start from zero at s0 = 0, else from acc (pair
 * q's row w at acc + (q·WC + w)·16: exactly the floats the registers held); before the last
 * step they are stored there, after it the products for tokens t.. (nt of them valid) and
 * weight rows j.. (nw valid) are finished and stored to out (token t at out + t·ldo, row w at
 * + w). a: the first token's unpacked row (rows k apart) for the k mod 8 tail. pf: a prefetch
 * cursor (the next group's weights into L2) advanced lps lines per step while below pfend.
 * chk: every finished element stored times 0 is added to it (0 while all are finite, NaN from
 * the first NaN or infinity on: the output checked while in the registers). */
AVX512_INLINE void tile(float *restrict out, int ldo, const float *restrict ap, size_t aps,
                        const float *restrict wp, const float *const *wr, float *restrict acc,
                        const float *restrict a, int k, int s0, int s1, int P, int nt, int nw,
                        float sc, const char **pf, const char *pfend, int lps, __m512 *chk)
{
    int k8 = k / 8;
    __m512 c[PP][WC];
#pragma GCC unroll 3
    for (int q = 0; q < P; q++)
#pragma GCC unroll 8
        for (int w = 0; w < WC; w++)
            c[q][w] = s0 ? _mm512_loadu_ps(acc + ((size_t)q * WC + w) * 16) : _mm512_setzero_ps();
    const char *f = *pf;
    for (int s = 0; s < s1 - s0; s++) { /* ap and wp start at step s0 */
        for (int e = 0; e < lps && f < pfend; e++, f += 64)
            _mm_prefetch(f, _MM_HINT_T1);
        __m512 av[PP];
#pragma GCC unroll 3
        for (int q = 0; q < P; q++)
            av[q] = _mm512_loadu_ps(ap + (size_t)q * aps + 16 * (size_t)s);
        const float *ws = wp + (size_t)s * (8 * WC);
#pragma GCC unroll 8
        for (int w = 0; w < WC; w++) {
            const float *src = wr ? wr[w] + 8 * (size_t)s : ws + 8 * w;
            __m256d w8 = _mm256_castps_pd(_mm256_loadu_ps(src));
            __m512 wv = _mm512_castpd_ps(_mm512_broadcast_f64x4(w8)); /* both halves */
#pragma GCC unroll 3
            for (int q = 0; q < P; q++)
                c[q][w] = _mm512_add_ps(c[q][w], _mm512_mul_ps(av[q], wv));
        }
    }
    *pf = f;
    if (s1 < k8) {
#pragma GCC unroll 3
        for (int q = 0; q < P; q++)
#pragma GCC unroll 8
            for (int w = 0; w < WC; w++)
                _mm512_storeu_ps(acc + ((size_t)q * WC + w) * 16, c[q][w]);
        return;
    }
    /* lanes of a pair's reduced vector: 4b + e holds token t + (b & 1), weight row
     * e + 4·(b >> 1); this permute makes it lanes 0-7 token t's rows 0-7, 8-15 token t+1's */
    const __m512i perm = _mm512_setr_epi32(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15);
    const __m512 scv = _mm512_set1_ps(sc);
    __mmask16 wm = (__mmask16)((1u << nw) - 1u);
#pragma GCC unroll 3
    for (int q = 0; q < P; q++) {
        __m512 x0 = fold1(c[q][0], c[q][4]), x1 = fold1(c[q][1], c[q][5]);
        __m512 x2 = fold1(c[q][2], c[q][6]), x3 = fold1(c[q][3], c[q][7]);
        __m512 r = fold2(fold2(x0, x1), fold2(x2, x3));
        int t = 2 * q;
        if (k & 7) { /* the last k mod 8 products, in order, then ·sc: one element at a time */
            float lane[16];
            _mm512_storeu_ps(lane, r);
            for (int L = 0; L < 16; L++) {
                int tt = t + ((L >> 2) & 1), w = (L & 3) + 4 * (L >> 3);
                if (tt >= nt || w >= nw)
                    continue;
                const float *ar = a + (size_t)tt * k + 8 * k8;
                const float *br = wr ? wr[w] + 8 * (size_t)k8
                                     : wp + ((size_t)(s1 - s0) * WC + w) * 8;
                float e = lane[L];
                for (int p = 0; p < k - 8 * k8; p++)
                    e += ar[p] * br[p];
                out[(size_t)tt * ldo + w] = e * sc;
                *chk = _mm512_add_ps(*chk, _mm512_set1_ps(e * sc * 0.0f));
            }
            continue;
        }
        r = _mm512_mul_ps(_mm512_permutexvar_ps(perm, r), scv);
        __mmask16 cm = (__mmask16)(wm | (t + 1 < nt ? wm << 8 : 0)); /* the lanes stored */
        *chk = _mm512_mask_add_ps(*chk, cm, *chk, _mm512_mul_ps(r, _mm512_setzero_ps()));
        _mm512_mask_storeu_ps(out + (size_t)t * ldo, wm, r);
        if (t + 1 < nt)
            _mm512_mask_storeu_ps(out + (size_t)(t + 1) * ldo, wm,
                                  _mm512_shuffle_f32x4(r, r, 0x4E)); /* the upper half */
    }
}

/* Steps s0..s1-1 of weight rows j..j+nw-1 (nw <= WC; float32 rows of b, or 16-bit rows of h,
 * dtype TENSOR_BF16 or TENSOR_F16, widened exactly) packed for tile(): step s of row w at
 * wp + ((s - s0)·WC + w)·8; when s1 is the last step, the last k mod 8 after it, zero-padded;
 * rows past nw zeros (their products are computed and dropped). */
AVX512 static void pack_rows(float *restrict wp, const float *restrict b,
                             const uint16_t *restrict h, int dtype, int k, int j, int nw, int s0,
                             int s1)
{
    int k8 = k / 8, kt = k - 8 * k8, last = s1 == k8, ns = s1 - s0;
    for (int w = 0; w < WC; w++) {
        float *o = wp + (size_t)w * 8;
        if (w >= nw) {
            for (int s = 0; s < ns + last; s++)
                _mm256_storeu_ps(o + (size_t)s * (8 * WC), _mm256_setzero_ps());
            continue;
        }
        float *t = o + (size_t)ns * (8 * WC);
        if (b) {
            const float *r = b + (size_t)(j + w) * k + 8 * (size_t)s0;
            for (int s = 0; s < ns; s++)
                _mm256_storeu_ps(o + (size_t)s * (8 * WC), _mm256_loadu_ps(r + 8 * s));
            for (int p = 0; last && p < 8; p++)
                t[p] = p < kt ? r[8 * ns + p] : 0.0f;
        } else {
            const uint16_t *r = h + (size_t)(j + w) * k + 8 * (size_t)s0;
            for (int s = 0; s < ns; s++) {
                float *d = o + (size_t)s * (8 * WC);
                if (dtype == TENSOR_F16) {
                    tensor_widen(d, r + 8 * s, TENSOR_F16, 8);
                    continue;
                }
                __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(r + 8 * s)));
                _mm256_storeu_si256((__m256i *)d, _mm256_slli_epi32(v, 16));
            }
            if (last) {
                tensor_widen(t, r + 8 * ns, dtype, (size_t)kt);
                for (int p = kt; p < 8; p++)
                    t[p] = 0.0f;
            }
        }
    }
}

/* One product's shared inputs; a part takes weight rows [j0, j1) in whole groups. */
typedef struct {
    float *out;
    int ldo;
    const float *a, *pk; /* a[n×k] and its packed pairs */
    const float *b;      /* float32 weights, or NULL */
    const uint16_t *h;   /* 16-bit weights (dtype), or NULL */
    int dtype;
    int n, k, m, tb;     /* tb: tokens per block (even) */
    size_t aps;          /* floats from one packed pair to the next */
    int ks;              /* steps of 8 per chunk of k */
    float *bufs;         /* part_bytes(ks, tb) per thread, bufstride floats apart */
    size_t bufstride;
    float sc;
    int *nonfinite;      /* set to 1 by a part that stored a NaN or an infinity (or NULL) */
} Job;

/* Pairs in the next tile when left pairs remain: PP, the last few split into tiles of 2
 * rather than 1. */
static int tile_pairs(int left)
{
    return left >= PP + 1 || left == PP ? PP : left == 4 ? 2 : left;
}

/* Tiles that pairs token pairs take. */
static int tile_count(int pairs)
{
    int t = 0;
    for (int q = 0; q < pairs; q += tile_pairs(pairs - q))
        t++;
    return t;
}

/* Weight rows [j0, j1) against tokens [i0, i1): groups of WC rows, each a chunk of KS steps
 * at a time packed into wp and applied to every tile of the token block (the accumulators
 * carried between chunks in acc: WC·16 floats per pair). */
AVX512 static void run_block(const Job *J, int i0, int i1, int j0, int j1, float *wp, float *acc,
                             __m512 *chk)
{
    int k = J->k, m = J->m, k8 = k / 8, ks = J->ks;
    size_t aps = J->aps;
    const float *pk = J->pk + (size_t)(i0 / 2) * aps;
    int pairs = (i1 - i0 + 1) / 2;
    size_t esz = J->h ? sizeof(uint16_t) : sizeof(float);
    const char *base = J->h ? (const char *)J->h : (const char *)J->b;
    /* the next group's lines spread evenly over this group's steps (every tile's): one line
     * per step from 4 tiles (24 tokens at k = 768), more with fewer tiles, so the group is
     * in L2 when its turn comes (12 tokens, 2 tiles: 2 lines per step, the head 16.7 -> 12 ms) */
    int tiles = tile_count(pairs);
    size_t glines = ((size_t)WC * k * esz + 63) / 64, gsteps = (size_t)tiles * k8;
    int lps = (int)((glines + gsteps - 1) / gsteps);
    for (int j = j0; j < j1; j += WC) {
        int nw = min_i(WC, m - j);
        /* the next group's rows, from memory into L2 while this group is computed */
        const char *pf = base + (size_t)min_i(j + WC, m) * k * esz;
        const char *pfend = base + (size_t)min_i(j + 2 * WC, m) * k * esz;
        /* float32 rows read where they are when whole (k <= KS·8) and not 4 KB apart (all 8
         * rows of a group in one L1 set): no packing */
        const float *wr[WC];
        int direct = J->b && ks >= k8 && nw == WC && k % 1024 != 0;
        for (int w = 0; direct && w < WC; w++)
            wr[w] = J->b + (size_t)(j + w) * k;
        for (int s0 = 0; s0 < k8; s0 += ks) {
            int s1 = min_i(s0 + ks, k8);
            if (!direct)
                pack_rows(wp, J->b, J->h, J->dtype, k, j, nw, s0, s1);
            /* tiles of PP pairs; the last few pairs split into tiles of 2 rather than 1 */
            for (int q = 0; q < pairs;) {
                int P = tile_pairs(pairs - q);
                int t = i0 + 2 * q;
                float *o = J->out + (size_t)t * J->ldo + j, *ac = acc + (size_t)q * WC * 16;
                const float *ap = pk + (size_t)q * aps + 16 * (size_t)s0;
                const float *ar = J->a + (size_t)t * k;
                int nt = min_i(2 * P, i1 - t);
#define TILE(PN, WR) \
    tile(o, J->ldo, ap, aps, wp, WR, ac, ar, k, s0, s1, PN, nt, nw, J->sc, &pf, pfend, lps, chk)
                if (direct && P == 3)
                    TILE(3, wr);
                else if (direct && P == 2)
                    TILE(2, wr);
                else if (direct)
                    TILE(1, wr);
                else if (P == 3)
                    TILE(3, NULL);
                else if (P == 2)
                    TILE(2, NULL);
                else
                    TILE(1, NULL);
#undef TILE
                q += P;
            }
        }
    }
}

/* A part's buffers, bytes: a packed chunk of a weight group (ks steps and the tail) and the
 * accumulators of a token block's pairs (tb/2 of them). */
static size_t part_bytes(int ks, int tb)
{
    return sizeof(float) * ((size_t)(ks + 1) * WC * 8 + (size_t)(tb / 2) * WC * 16);
}

/* A part: its weight rows, every token block in turn. */
AVX512 static void part_fn(void *ctx, int part, int parts)
{
    const Job *J = ctx;
    int j0, j1;
    tensor_par_range(J->m, WC, part, parts, &j0, &j1);
    if (j0 >= j1)
        return;
    /* the running thread's own buffers (tensor_par_self() < tensor_threads() in a part) */
    float *wp = J->bufs + (size_t)tensor_par_self() * J->bufstride;
    float *acc = wp + (size_t)(J->ks + 1) * WC * 8;
    __m512 chk = _mm512_setzero_ps();
    for (int i0 = 0; i0 < J->n; i0 += J->tb)
        run_block(J, i0, min_i(i0 + J->tb, J->n), j0, j1, wp, acc, &chk);
    /* a NaN lane compares unequal to 0: any element not finite */
    if (J->nonfinite && _mm512_cmp_ps_mask(chk, _mm512_setzero_ps(), _CMP_EQ_OQ) != 0xffff)
        __atomic_store_n(J->nonfinite, 1, __ATOMIC_RELAXED);
}

/* Packs a, splits the weight rows over the threads (each with its own buffers). 0 when out of
 * memory (nothing written). */
static int run(float *out, int ldo, const float *a, const float *b, const uint16_t *h,
               int dtype, int n, int k, int m, float sc, int *nonfinite)
{
    /* pairs one line more than their length apart: at k a multiple of 256 the pairs of a tile
     * would otherwise share an L1 set (4 KB apart) */
    size_t aps = (size_t)(k / 8) * 16 + 16;
    float *pk = malloc(sizeof(float) * aps * (size_t)((n + 1) / 2));
    int tb = (int)(BT_BLOCK_BYTES / (sizeof(float) * (size_t)k));
    tb = tb < 2 * PP ? 2 * PP : tb - tb % (2 * PP);
    int k8 = k / 8, chunks = (k8 + KS - 1) / KS, ks = (k8 + chunks - 1) / chunks;
    /* every thread's buffers, here: a part cannot fail */
    size_t stride = (part_bytes(ks, tb) / sizeof(float) + 15) / 16 * 16;
    float *bufs = malloc(sizeof(float) * stride * (size_t)tensor_threads());
    if (!pk || !bufs) {
        free(pk), free(bufs);
        return 0;
    }
    pack_pairs(pk, aps, a, n, k);
    Job J = {out, ldo, a, pk, b, h, dtype, n, k, m, tb, aps, ks, bufs, stride, sc, nonfinite};
    tensor_par_dyn(part_fn, &J, tensor_par_chunks(n, k, m));
    free(pk);
    free(bufs);
    return 1;
}

int tensor_bt_matmul(float *restrict out, int ldo, const float *restrict a,
                     const float *restrict b, int n, int k, int m, float sc)
{
    if (n < 1 || k < 8 || m < 1 || !cpu_has_avx512())
        return 0;
    return run(out, ldo, a, b, NULL, 0, n, k, m, sc, NULL);
}

int tensor_bt_matmul_check(float *restrict out, int ldo, const float *restrict a,
                           const float *restrict b, int n, int k, int m, float sc, int *finite)
{
    int bad = 0;
    if (n < 1 || k < 8 || m < 1 || !cpu_has_avx512() ||
        !run(out, ldo, a, b, NULL, 0, n, k, m, sc, &bad))
        return 0;
    *finite = !__atomic_load_n(&bad, __ATOMIC_RELAXED);
    return 1;
}

int tensor_bt_matmul_half(float *restrict out, const float *restrict a,
                          const uint16_t *restrict b, int dtype, int n, int k, int m, float sc)
{
    if (n <= TENSOR_BT_MIN_N || k < 8 || m < 1 || !cpu_has_avx512() ||
        (dtype != TENSOR_BF16 && dtype != TENSOR_F16))
        return 0;
    return run(out, m, a, NULL, b, dtype, n, k, m, sc, NULL);
}

#else
int tensor_bt_matmul(float *restrict out, int ldo, const float *restrict a,
                     const float *restrict b, int n, int k, int m, float sc)
{
    (void)out, (void)ldo, (void)a, (void)b, (void)n, (void)k, (void)m, (void)sc;
    return 0;
}

int tensor_bt_matmul_check(float *restrict out, int ldo, const float *restrict a,
                           const float *restrict b, int n, int k, int m, float sc, int *finite)
{
    (void)out, (void)ldo, (void)a, (void)b, (void)n, (void)k, (void)m, (void)sc, (void)finite;
    return 0;
}

int tensor_bt_matmul_half(float *restrict out, const float *restrict a,
                          const uint16_t *restrict b, int dtype, int n, int k, int m, float sc)
{
    (void)out, (void)a, (void)b, (void)dtype, (void)n, (void)k, (void)m, (void)sc;
    return 0;
}
#endif
