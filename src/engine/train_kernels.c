/* train_kernels.c - the trainer's matrix products (see train_internal.h for their rounding
 * contract: the shipped models depend on it bit for bit). */
/* The kernels are written so the compiler can vectorise them (no reductions in inner loops
 * except through 8 independent lanes); GCC needs -O3 for that, whatever the build's -O. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "train_internal.h"

/* ======================= the portable kernels ======================= */

/* These define the rounding: the AVX2 kernels below compute the same chains, element by
 * element, only with several elements in registers at once. */

/* out[n×m] (+)= a[n×k]·b[k×m] */
static void mm_portable(float *out, const float *a, const float *b, int n, int k, int m, int acc)
{
    for (int i = 0; i < n; i++) {
        float *o = out + (size_t)i * m;
        if (!acc)
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

/* dw[k×m] += a[n×k]ᵀ·g[n×m] */
static void mm_at_b_portable(float *dw, const float *a, const float *g, int n, int k, int m)
{
    for (int i = 0; i < n; i++) {
        const float *ar = a + (size_t)i * k, *gr = g + (size_t)i * m;
        for (int p = 0; p < k; p++) {
            float av = ar[p];
            if (av == 0.0f)
                continue;
            float *d = dw + (size_t)p * m;
            for (int j = 0; j < m; j++)
                d[j] += av * gr[j];
        }
    }
}

/* dx[n×k] += g[n×m]·w[k×m]ᵀ (dot products summed in 8 lanes, then the lanes in order), for
 * the columns p0..k-1 of dx (the AVX2 kernel does the columns before p0). */
static void mm_a_bt_portable(float *dx, const float *g, const float *w, int n, int m, int k,
                             int p0)
{
    int m8 = m & ~7;
    for (int i = 0; i < n; i++) {
        const float *gr = g + (size_t)i * m;
        float *d = dx + (size_t)i * k;
        for (int p = p0; p < k; p++) {
            const float *wr = w + (size_t)p * m;
            float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (int j = 0; j < m8; j += 8)
                for (int l = 0; l < 8; l++)
                    acc[l] += gr[j + l] * wr[j + l];
            float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
            for (int j = m8; j < m; j++)
                s += gr[j] * wr[j];
            d[p] += s;
        }
    }
}

void train_col_sum(float *db, const float *g, int n, int m)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            db[j] += g[(size_t)i * m + j];
}

/* ======================= AVX2 (products and sums rounded apart, as above) ======================= */

/* target("avx2") without "fma": the compiler cannot fuse a product into a sum here, so every
 * element keeps the portable kernels' two roundings. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#include <immintrin.h>
#define TK_AVX2 __attribute__((target("avx2")))
#define TK_INLINE __attribute__((target("avx2"), always_inline)) static inline

TK_INLINE __m256i tk_mask(int w)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(w), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* R rows × w (<= 16) columns of out = (out or 0) + Σp a[r][p]·b[p][:], in registers. */
TK_INLINE void mm_tile(float *out, const float *a, const float *b, int k, int m, int R, int w,
                       int acc)
{
    __m256 c0[6], c1[6];
    __m256i m0 = tk_mask(w), m1 = tk_mask(w - 8);
#pragma GCC unroll 6
    for (int r = 0; r < R; r++) {
        c0[r] = acc ? _mm256_maskload_ps(out + (size_t)r * m, m0) : _mm256_setzero_ps();
        c1[r] = acc ? _mm256_maskload_ps(out + (size_t)r * m + 8, m1) : _mm256_setzero_ps();
    }
    for (int p = 0; p < k; p++) {
        const float *bp = b + (size_t)p * m;
        __m256 b0 = _mm256_maskload_ps(bp, m0), b1 = _mm256_maskload_ps(bp + 8, m1);
#pragma GCC unroll 6
        for (int r = 0; r < R; r++) {
            __m256 av = _mm256_broadcast_ss(a + (size_t)r * k + p);
            c0[r] = _mm256_add_ps(c0[r], _mm256_mul_ps(av, b0));
            c1[r] = _mm256_add_ps(c1[r], _mm256_mul_ps(av, b1));
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; r++) {
        _mm256_maskstore_ps(out + (size_t)r * m, m0, c0[r]);
        _mm256_maskstore_ps(out + (size_t)r * m + 8, m1, c1[r]);
    }
}

TK_INLINE void mm_band(float *out, const float *a, const float *b, int k, int m, int R, int acc)
{
    for (int j = 0; j < m; j += 16)
        mm_tile(out + j, a, b + j, k, m, R, m - j < 16 ? m - j : 16, acc);
}

TK_AVX2 static void mm_avx2(float *out, const float *a, const float *b, int n, int k, int m,
                            int acc)
{
    int i = 0;
    for (; i + 6 <= n; i += 6)
        mm_band(out + (size_t)i * m, a + (size_t)i * k, b, k, m, 6, acc);
    float *o = out + (size_t)i * m;
    const float *ai = a + (size_t)i * k;
    switch (n - i) {
    case 5: mm_band(o, ai, b, k, m, 5, acc); break;
    case 4: mm_band(o, ai, b, k, m, 4, acc); break;
    case 3: mm_band(o, ai, b, k, m, 3, acc); break;
    case 2: mm_band(o, ai, b, k, m, 2, acc); break;
    case 1: mm_band(o, ai, b, k, m, 1, acc); break;
    default: break;
    }
}

/* R rows (p) × w columns of dw += Σi a[i][p]·g[i][:], terms with a[i][p] == 0 left out (a
 * blend keeps the old value, as the portable kernel's `continue` does). */
TK_INLINE void at_b_tile(float *dw, const float *a, const float *g, int n, int k, int m, int R,
                         int w)
{
    __m256 c0[6], c1[6];
    __m256i m0 = tk_mask(w), m1 = tk_mask(w - 8);
    const __m256 zero = _mm256_setzero_ps();
#pragma GCC unroll 6
    for (int r = 0; r < R; r++) {
        c0[r] = _mm256_maskload_ps(dw + (size_t)r * m, m0);
        c1[r] = _mm256_maskload_ps(dw + (size_t)r * m + 8, m1);
    }
    for (int i = 0; i < n; i++) {
        const float *gi = g + (size_t)i * m;
        __m256 g0 = _mm256_maskload_ps(gi, m0), g1 = _mm256_maskload_ps(gi + 8, m1);
#pragma GCC unroll 6
        for (int r = 0; r < R; r++) {
            __m256 av = _mm256_broadcast_ss(a + (size_t)i * k + r);
            __m256 keep = _mm256_cmp_ps(av, zero, _CMP_EQ_OQ); /* a == 0: the term is skipped */
            c0[r] = _mm256_blendv_ps(_mm256_add_ps(c0[r], _mm256_mul_ps(av, g0)), c0[r], keep);
            c1[r] = _mm256_blendv_ps(_mm256_add_ps(c1[r], _mm256_mul_ps(av, g1)), c1[r], keep);
        }
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; r++) {
        _mm256_maskstore_ps(dw + (size_t)r * m, m0, c0[r]);
        _mm256_maskstore_ps(dw + (size_t)r * m + 8, m1, c1[r]);
    }
}

TK_INLINE void at_b_band(float *dw, const float *a, const float *g, int n, int k, int m, int R)
{
    for (int j = 0; j < m; j += 16)
        at_b_tile(dw + j, a, g + j, n, k, m, R, m - j < 16 ? m - j : 16);
}

TK_AVX2 static void mm_at_b_avx2(float *dw, const float *a, const float *g, int n, int k, int m)
{
    int p = 0;
    for (; p + 6 <= k; p += 6)
        at_b_band(dw + (size_t)p * m, a + p, g, n, k, m, 6);
    float *d = dw + (size_t)p * m;
    switch (k - p) {
    case 5: at_b_band(d, a + p, g, n, k, m, 5); break;
    case 4: at_b_band(d, a + p, g, n, k, m, 4); break;
    case 3: at_b_band(d, a + p, g, n, k, m, 3); break;
    case 2: at_b_band(d, a + p, g, n, k, m, 2); break;
    case 1: at_b_band(d, a + p, g, n, k, m, 1); break;
    default: break;
    }
}

/* Eight columns p..p+7 of dx at once: w's rows p..p+7 transposed into wt[j][u], then for each
 * row of g the eight lane sums (lane l: j ≡ l mod 8, in order) as eight vectors, combined
 * ((0+1)+(2+3))+((4+5)+(6+7)), the last m % 8 terms in order, and added to dx. */
TK_AVX2 static int mm_a_bt_avx2(float *dx, const float *g, const float *w, int n, int m, int k,
                                int p, float *wt)
{
    int m8 = m & ~7;
    if (m > TRAIN_ABT_MAX_M)
        return 0;
    for (; p + 8 <= k; p += 8) {
        for (int u = 0; u < 8; u++)
            for (int j = 0; j < m; j++)
                wt[j * 8 + u] = w[(size_t)(p + u) * m + j];
        for (int i = 0; i < n; i++) {
            const float *gr = g + (size_t)i * m;
            __m256 l0 = _mm256_setzero_ps(), l1 = l0, l2 = l0, l3 = l0, l4 = l0, l5 = l0,
                   l6 = l0, l7 = l0;
            for (int j = 0; j < m8; j += 8) {
                const float *t = wt + j * 8;
#define TK_LANE(l, acc) acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_broadcast_ss(gr + j + (l)), \
                                                               _mm256_loadu_ps(t + (l) * 8)))
                TK_LANE(0, l0); TK_LANE(1, l1); TK_LANE(2, l2); TK_LANE(3, l3);
                TK_LANE(4, l4); TK_LANE(5, l5); TK_LANE(6, l6); TK_LANE(7, l7);
#undef TK_LANE
            }
            __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(l0, l1), _mm256_add_ps(l2, l3)),
                                     _mm256_add_ps(_mm256_add_ps(l4, l5), _mm256_add_ps(l6, l7)));
            for (int j = m8; j < m; j++)
                s = _mm256_add_ps(s, _mm256_mul_ps(_mm256_broadcast_ss(gr + j),
                                                   _mm256_loadu_ps(wt + j * 8)));
            float *d = dx + (size_t)i * k + p;
            _mm256_storeu_ps(d, _mm256_add_ps(_mm256_loadu_ps(d), s));
        }
    }
    return p;
}

/* ======================= AVX-512 (the same chains, 16 elements a vector) ======================= */

/* Each element's chain is the one above whatever the vector width: lane i of a 16-float
 * vector does what lane i of an 8-float one does. Without "fma" for the same reason. */
#define TZ_AVX512 __attribute__((target("avx512f")))
#define TZ_INLINE __attribute__((target("avx512f"), always_inline)) static inline
#define TZ_R 8 /* rows of a tile: 8 × 3 vectors = 24 accumulators of the 32 registers */

/* R rows × W vectors (the last one `last` lanes wide) of out (row stride m) = (out or 0) +
 * Σs A(r, s)·b[s][:], s = 0..K-1 in order, with A(r, s) = a[r·ars + s·ass]; skip: terms whose
 * A(r, s) is 0 left out (a masked add keeps the old value). */
TZ_INLINE void z_tile(float *out, const float *a, size_t ars, size_t ass, const float *b, int K,
                      int m, int R, int W, int last, int acc, int skip)
{
    __m512 c[TZ_R][3];
    __mmask16 lm = (__mmask16)((1u << last) - 1u);
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
#pragma GCC unroll 3
        for (int v = 0; v < W; v++)
            c[r][v] = acc ? _mm512_maskz_loadu_ps(v == W - 1 ? lm : 0xffff,
                                                  out + (size_t)r * m + 16 * v)
                          : _mm512_setzero_ps();
    for (int s = 0; s < K; s++) {
        const float *bs = b + (size_t)s * m;
        __m512 bv[3];
#pragma GCC unroll 3
        for (int v = 0; v < W; v++)
            bv[v] = _mm512_maskz_loadu_ps(v == W - 1 ? lm : 0xffff, bs + 16 * v);
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) {
            __m512 av = _mm512_set1_ps(a[(size_t)r * ars + (size_t)s * ass]);
            __mmask16 k = skip ? _mm512_cmpneq_ps_mask(av, _mm512_setzero_ps()) : 0xffff;
#pragma GCC unroll 3
            for (int v = 0; v < W; v++)
                c[r][v] = _mm512_mask_add_ps(c[r][v], k, c[r][v], _mm512_mul_ps(av, bv[v]));
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
#pragma GCC unroll 3
        for (int v = 0; v < W; v++)
            _mm512_mask_storeu_ps(out + (size_t)r * m + 16 * v, v == W - 1 ? lm : 0xffff,
                                  c[r][v]);
}

/* R rows (a constant at each call below) × all m columns, 48 at a time. */
TZ_INLINE void z_band(float *out, const float *a, size_t ars, size_t ass, const float *b, int K,
                      int m, int R, int acc, int skip)
{
    for (int j = 0; j < m; j += 48) {
        int w = m - j < 48 ? m - j : 48, W = (w + 15) / 16, last = w - 16 * (W - 1);
        if (W == 3)
            z_tile(out + j, a, ars, ass, b + j, K, m, R, 3, last, acc, skip);
        else if (W == 2)
            z_tile(out + j, a, ars, ass, b + j, K, m, R, 2, last, acc, skip);
        else
            z_tile(out + j, a, ars, ass, b + j, K, m, R, 1, last, acc, skip);
    }
}

/* rows × m of out, TZ_R rows at a time; row r of out reads A(r, ·) at a + r·ars. */
TZ_AVX512 static void z_mm(float *out, const float *a, size_t ars, size_t ass, const float *b,
                           int rows, int K, int m, int acc, int skip)
{
    int i = 0;
    for (; i + TZ_R <= rows; i += TZ_R)
        z_band(out + (size_t)i * m, a + i * ars, ars, ass, b, K, m, TZ_R, acc, skip);
    float *o = out + (size_t)i * m;
    const float *ai = a + i * ars;
    switch (rows - i) {
    case 7: z_band(o, ai, ars, ass, b, K, m, 7, acc, skip); break;
    case 6: z_band(o, ai, ars, ass, b, K, m, 6, acc, skip); break;
    case 5: z_band(o, ai, ars, ass, b, K, m, 5, acc, skip); break;
    case 4: z_band(o, ai, ars, ass, b, K, m, 4, acc, skip); break;
    case 3: z_band(o, ai, ars, ass, b, K, m, 3, acc, skip); break;
    case 2: z_band(o, ai, ars, ass, b, K, m, 2, acc, skip); break;
    case 1: z_band(o, ai, ars, ass, b, K, m, 1, acc, skip); break;
    default: break;
    }
}

/* R (1 or 2) rows of g against the sixteen transposed rows of w in wt: per row, eight lane
 * sums (lane l: j ≡ l mod 8, in order), combined ((0+1)+(2+3))+((4+5)+(6+7)), the last
 * m % 8 terms in order, then added to dx's 16 columns. */
TZ_INLINE void z_abt_rows(float *dx, const float *g, const float *wt, int m, int k, int R)
{
    __m512 l[2][8];
    int m8 = m & ~7;
#pragma GCC unroll 2
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int u = 0; u < 8; u++)
            l[r][u] = _mm512_setzero_ps();
    for (int j = 0; j < m8; j += 8)
#pragma GCC unroll 8
        for (int u = 0; u < 8; u++) {
            __m512 t = _mm512_loadu_ps(wt + (j + u) * 16);
#pragma GCC unroll 2
            for (int r = 0; r < R; r++)
                l[r][u] = _mm512_add_ps(l[r][u], _mm512_mul_ps(
                              _mm512_set1_ps(g[(size_t)r * m + j + u]), t));
        }
#pragma GCC unroll 2
    for (int r = 0; r < R; r++) {
        __m512 s = _mm512_add_ps(
            _mm512_add_ps(_mm512_add_ps(l[r][0], l[r][1]), _mm512_add_ps(l[r][2], l[r][3])),
            _mm512_add_ps(_mm512_add_ps(l[r][4], l[r][5]), _mm512_add_ps(l[r][6], l[r][7])));
        for (int j = m8; j < m; j++)
            s = _mm512_add_ps(s, _mm512_mul_ps(_mm512_set1_ps(g[(size_t)r * m + j]),
                                               _mm512_loadu_ps(wt + j * 16)));
        float *d = dx + (size_t)r * k;
        _mm512_storeu_ps(d, _mm512_add_ps(_mm512_loadu_ps(d), s));
    }
}

/* mm_a_bt_avx2 with sixteen columns p..p+15 of dx at once (the same eight lanes per column),
 * from column p; returns where it stopped. */
TZ_AVX512 static int mm_a_bt_avx512(float *dx, const float *g, const float *w, int n, int m,
                                    int k, float *wt)
{
    int p = 0;
    if (m > TRAIN_ABT_MAX_M)
        return 0;
    for (; p + 16 <= k; p += 16) {
        for (int u = 0; u < 16; u++)
            for (int j = 0; j < m; j++)
                wt[j * 16 + u] = w[(size_t)(p + u) * m + j];
        int i = 0;
        for (; i + 2 <= n; i += 2) /* two rows of g share each load of wt */
            z_abt_rows(dx + (size_t)i * k + p, g + (size_t)i * m, wt, m, k, 2);
        if (i < n)
            z_abt_rows(dx + (size_t)i * k + p, g + (size_t)i * m, wt, m, k, 1);
    }
    return p;
}

#endif

/* ======================= the kernels ======================= */

void train_mm(float *out, const float *a, const float *b, int n, int k, int m, int acc)
{
#ifdef TK_AVX2
    if (cpu_has_avx512()) {
        z_mm(out, a, (size_t)k, 1, b, n, k, m, acc, 0);
        return;
    }
    if (cpu_has_avx2()) {
        mm_avx2(out, a, b, n, k, m, acc);
        return;
    }
#endif
    mm_portable(out, a, b, n, k, m, acc);
}

void train_mm_at_b(float *dw, const float *a, const float *g, int n, int k, int m)
{
#ifdef TK_AVX2
    if (cpu_has_avx512()) {
        z_mm(dw, a, 1, (size_t)k, g, k, n, m, 1, 1);
        return;
    }
    if (cpu_has_avx2()) {
        mm_at_b_avx2(dw, a, g, n, k, m);
        return;
    }
#endif
    mm_at_b_portable(dw, a, g, n, k, m);
}

void train_mm_a_bt(float *dx, const float *g, const float *w, int n, int m, int k, float *wt)
{
    int p0 = 0;
#ifdef TK_AVX2
    if (wt && cpu_has_avx512())
        p0 = mm_a_bt_avx512(dx, g, w, n, m, k, wt);
    if (wt && cpu_has_avx2())
        p0 = mm_a_bt_avx2(dx, g, w, n, m, k, p0, wt);
#else
    (void)wt;
#endif
    mm_a_bt_portable(dx, g, w, n, m, k, p0);
}
