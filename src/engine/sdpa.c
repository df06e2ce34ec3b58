/* sdpa.c - scaled dot-product attention of one head, S = QKᵀ, S/√d_k, + M (where the mask is
 * applied), softmax, ·V: whole, every step kept (model_sdpa, and model_sdpa_maps, the same
 * bits a band of rows at a time), or as the forward pass runs it, keeping only the output
 * (model_sdpa_out). The kernels only: a trace's lazily filled steps (trace_entry) are in
 * trace.c, above this file. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "attend_assert.h"
#include "cpu.h"
#include "model.h"
#include "tensor.h"

/* Query rows done together: the forward's band of rows, and the unit over which it skips the
 * keys that none of the rows may read. */
#define SDPA_ROWS MODEL_SDPA_ROWS
/* Keys per block of the packed K (MODEL_SDPA_BAND's last part). */
#define PK MODEL_SDPA_PACK

typedef float v8f __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define SDPA_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#define SDPA_Z 1 /* sixteen keys at a time on AVX-512 machines (cpu.h) */
typedef float v16f __attribute__((vector_size(64)));
#else
#define SDPA_CLONES
#define SDPA_Z 0
#endif

/* ---- Q·Kᵀ from K packed once per head ----
 * tensor_matmul_bt_scaled transposes each block of keys again for every call, so a head done a
 * band of rows at a time transposed its whole K once per band (a third of the product's time
 * at 1024 tokens). Here K is packed once, pk[blk·PK·dk + p·PK + u] = k[blk·PK + u][p] (keys
 * past nk as zeros), and every band reads it. Each output element is tensor_matmul_bt_scaled's
 * chain exactly (tensor.c BT_BLOCKS and dot_bt): eight partial sums over p mod 8 of products
 * rounded apart, combined ((0+4)+(1+5))+((2+6)+(3+7)), then the last dk % 8 products in order,
 * then times sc; a lane's value never depends on its neighbours, so the vector width (16 or 8)
 * and the rows done together change no bit. This file is built without FMA contraction. */

/* Packs k (nk rows of dk) into pk (MODEL_SDPA_PACK_FLOATS(nk, dk) floats) as above. */
static void pack_keys(float *restrict pk, const float *restrict k, int nk, int dk)
{
    for (int j0 = 0; j0 < nk; j0 += PK) {
        float *b = pk + (size_t)j0 * dk;
        for (int u = 0; u < PK; u++) {
            const float *kr = k + (size_t)(j0 + u) * dk;
            for (int p = 0; p < dk; p++)
                b[p * PK + u] = j0 + u < nk ? kr[p] : 0.0f;
        }
    }
}

/* QK_SUMS(VF, ar, tb, s): s = the lanes' chains of row ar against the packed block at tb (its
 * lanes PK floats apart), before the factor. One text for both widths. */
#define QK_SUMS(VF, ar, tb, s)                                                                 \
    do {                                                                                       \
        VF a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0}, t;  \
        int p = 0;                                                                             \
        for (; p + 8 <= dk; p += 8) {                                                          \
            const float *tp = (tb) + p * PK;                                                   \
            memcpy(&t, tp, sizeof t), a0 += (ar)[p] * t;                                       \
            memcpy(&t, tp + PK, sizeof t), a1 += (ar)[p + 1] * t;                              \
            memcpy(&t, tp + 2 * PK, sizeof t), a2 += (ar)[p + 2] * t;                          \
            memcpy(&t, tp + 3 * PK, sizeof t), a3 += (ar)[p + 3] * t;                          \
            memcpy(&t, tp + 4 * PK, sizeof t), a4 += (ar)[p + 4] * t;                          \
            memcpy(&t, tp + 5 * PK, sizeof t), a5 += (ar)[p + 5] * t;                          \
            memcpy(&t, tp + 6 * PK, sizeof t), a6 += (ar)[p + 6] * t;                          \
            memcpy(&t, tp + 7 * PK, sizeof t), a7 += (ar)[p + 7] * t;                          \
        }                                                                                      \
        s = ((a0 + a4) + (a1 + a5)) + ((a2 + a6) + (a3 + a7));                                 \
        for (; p < dk; p++) {                                                                  \
            memcpy(&t, (tb) + p * PK, sizeof t);                                               \
            s += (ar)[p] * t;                                                                  \
        }                                                                                      \
    } while (0)

#if SDPA_Z
/* Rows a[0..r-1] (dk apart) against keys 0..m-1 of pk, times sc, into out (rows ldo apart):
 * sixteen keys a block, two rows at a time (each block's loads shared), on AVX-512. */
__attribute__((target("avx512f"))) static void qk_z(float *restrict out, size_t ldo,
                                                    const float *restrict a, int r, int dk,
                                                    const float *restrict pk, int m, float sc)
{
    for (int j = 0; j < m; j += PK) {
        const float *tb = pk + (size_t)j * dk;
        size_t w = (size_t)(m - j < PK ? m - j : PK);
        int i = 0;
        for (; i + 2 <= r; i += 2) {
            const float *a0r = a + (size_t)i * dk, *a1r = a0r + dk;
            v16f x0 = {0}, x1 = {0}, x2 = {0}, x3 = {0}, x4 = {0}, x5 = {0}, x6 = {0}, x7 = {0};
            v16f y0 = {0}, y1 = {0}, y2 = {0}, y3 = {0}, y4 = {0}, y5 = {0}, y6 = {0}, y7 = {0};
            v16f t;
            int p = 0;
/* QK_T(u): the block's key lane values for p + u, loaded once into a register for both rows
 * (left to itself GCC folds the load into each row's multiply: twice the loads) */
#define QK_T(u) do { memcpy(&t, tp + (u) * PK, sizeof t); __asm__("" : "+v"(t)); } while (0)
            for (; p + 8 <= dk; p += 8) {
                const float *tp = tb + p * PK;
                QK_T(0);
                x0 += a0r[p] * t, y0 += a1r[p] * t;
                QK_T(1);
                x1 += a0r[p + 1] * t, y1 += a1r[p + 1] * t;
                QK_T(2);
                x2 += a0r[p + 2] * t, y2 += a1r[p + 2] * t;
                QK_T(3);
                x3 += a0r[p + 3] * t, y3 += a1r[p + 3] * t;
                QK_T(4);
                x4 += a0r[p + 4] * t, y4 += a1r[p + 4] * t;
                QK_T(5);
                x5 += a0r[p + 5] * t, y5 += a1r[p + 5] * t;
                QK_T(6);
                x6 += a0r[p + 6] * t, y6 += a1r[p + 6] * t;
                QK_T(7);
                x7 += a0r[p + 7] * t, y7 += a1r[p + 7] * t;
            }
#undef QK_T
            v16f s0 = ((x0 + x4) + (x1 + x5)) + ((x2 + x6) + (x3 + x7));
            v16f s1 = ((y0 + y4) + (y1 + y5)) + ((y2 + y6) + (y3 + y7));
            for (; p < dk; p++) {
                memcpy(&t, tb + p * PK, sizeof t);
                s0 += a0r[p] * t;
                s1 += a1r[p] * t;
            }
            s0 *= sc;
            s1 *= sc;
            if (w == PK) { /* a whole block: one store (a sized memcpy is a rep movs) */
                memcpy(out + (size_t)i * ldo + j, &s0, sizeof s0);
                memcpy(out + (size_t)(i + 1) * ldo + j, &s1, sizeof s1);
            } else {
                memcpy(out + (size_t)i * ldo + j, &s0, sizeof(float) * w);
                memcpy(out + (size_t)(i + 1) * ldo + j, &s1, sizeof(float) * w);
            }
        }
        for (; i < r; i++) {
            v16f s;
            QK_SUMS(v16f, a + (size_t)i * dk, tb, s);
            s *= sc;
            if (w == PK)
                memcpy(out + (size_t)i * ldo + j, &s, sizeof s);
            else
                memcpy(out + (size_t)i * ldo + j, &s, sizeof(float) * w);
        }
    }
}
#endif

/* qk_z's product eight keys at a time (each packed block's two halves), on any x86-64. */
SDPA_CLONES
static void qk_8(float *restrict out, size_t ldo, const float *restrict a, int r, int dk,
                 const float *restrict pk, int m, float sc)
{
    for (int j = 0; j < m; j += 8) {
        const float *tb = pk + (size_t)(j / PK * PK) * dk + j % PK;
        size_t w = (size_t)(m - j < 8 ? m - j : 8);
        for (int i = 0; i < r; i++) {
            v8f s;
            QK_SUMS(v8f, a + (size_t)i * dk, tb, s);
            s *= sc;
            if (w == 8)
                memcpy(out + (size_t)i * ldo + j, &s, sizeof s);
            else
                memcpy(out + (size_t)i * ldo + j, &s, sizeof(float) * w);
        }
    }
}

/* out[i][j] (rows ldo apart) = (a row i · key j)·sc for rows 0..r-1 and keys 0..m-1 of pk:
 * tensor_matmul_bt_scaled's bits (above). */
static void qk_rows(float *out, size_t ldo, const float *a, int r, int dk, const float *pk, int m,
                    float sc)
{
#if SDPA_Z
    if (cpu_has_avx512()) {
        qk_z(out, ldo, a, r, dk, pk, m, sc);
        return;
    }
#endif
    qk_8(out, ldo, a, r, dk, pk, m, sc);
}

void model_sdpa_limits(const float *mask, int nq, int nk, int *lim)
{
    for (int i = 0; i < nq; i++) {
        const float *row = mask + (size_t)i * nk;
        int j = nk, holes = 0;
        while (j > 0 && row[j - 1] == -INFINITY)
            j--;
        for (int u = 0; u < j && !holes; u++) /* a −0 is a hole too: x + −0 is not x + 0 */
            holes = row[u] != 0.0f || signbit(row[u]);
        lim[i] = j | (holes ? MODEL_SDPA_HOLES : 0);
    }
}

/* Keys the rows i0..i0+r-1 read: all but the ones masked in every row at the end (a causal
 * band's future). From lim when given, else from the mask itself. */
static int band_keys(const int *lim, const float *mask, int i0, int r, int nk)
{
    if (!mask)
        return nk;
    int L = 0;
    for (int i = i0; i < i0 + r; i++) {
        int li;
        if (lim)
            li = lim[i];
        else
            model_sdpa_limits(mask + (size_t)i * nk, 1, nk, &li);
        li &= ~MODEL_SDPA_HOLES;
        if (li > L)
            L = li;
    }
    return L;
}

/* A masked key's weight is exactly 0 (tensor_softmax_rows) and adds an exact 0 to every sum
 * of A·V, so leaving out the keys after a band's last readable one changes no bit of the
 * output: a causal band does half the work of the whole matrix. The same L per band in both
 * functions below, and the same in-order chain of tensor_matmul_lda: the same out. One r×L
 * matrix a band: the scaled scores (from K packed once, at the end of band), masked in place,
 * then their softmax. */
void model_sdpa_out(float *out, float *band, const float *q, const float *k, const float *v,
                    const float *mask, const int *lim, int nq, int nk, int dk, int dv,
                    float scale)
{
    ATTEND_ASSERT(nq >= 1 && nk >= 1 && dk >= 1 && dv >= 1 && scale > 0.0f);
    ATTEND_ASSERT(out && band && q && k && v);
    float *pk = band + 4 * (size_t)SDPA_ROWS * nk;
    pack_keys(pk, k, nk, dk);
    for (int i0 = 0; i0 < nq; i0 += SDPA_ROWS) {
        int r = nq - i0 < SDPA_ROWS ? nq - i0 : SDPA_ROWS, L = band_keys(lim, mask, i0, r, nk);
        ATTEND_ASSERT(L >= 0 && L <= nk); /* a band reads no key past the last */
        float *A = band; /* rows L apart */
        qk_rows(A, (size_t)L, q + (size_t)i0 * dk, r, dk, pk, L, scale); /* Q Kᵀ / √d_k */
        for (int i = 0; mask && i < r; i++) { /* + M: where the mask is applied */
            float *a = A + (size_t)i * L;
            int li = lim ? lim[i0 + i] : MODEL_SDPA_HOLES;
            if (li & MODEL_SDPA_HOLES) {
                tensor_add(a, a, mask + (size_t)(i0 + i) * nk, (size_t)L);
            } else { /* M is 0 up to li (adding it changes no weight), then −∞: not read */
                for (int j = li; j < L; j++)
                    a[j] = -INFINITY;
            }
        }
        tensor_softmax_rows(A, r, L); /* A = softmax(...) row by row */
        tensor_matmul_lda(out + (size_t)i0 * dv, A, L, v, r, L, dv); /* A · V */
    }
}

void model_sdpa(float *scores, float *scaled, float *masked, float *weights, float *out,
                const float *q, const float *k, const float *v, const float *mask, int nq, int nk,
                int dk, int dv, float scale)
{
    ATTEND_ASSERT(nq >= 1 && nk >= 1 && dk >= 1 && dv >= 1 && scale > 0.0f);
    ATTEND_ASSERT(scores && scaled && masked && weights && q && k && (!out || v));
    size_t nn = (size_t)nq * nk;
    tensor_matmul_bt(scores, q, k, nq, dk, nk);                /* S = Q Kᵀ */
    /* S/√d_k, then + M: where the mask is applied (one pass) */
    tensor_scale_add(scaled, masked, scores, scale, mask, nn);
    tensor_softmax_rows_to(weights, masked, nq, nk);           /* softmax row by row */
    if (!out)
        return;
    for (int i0 = 0; i0 < nq; i0 += SDPA_ROWS) { /* A · V, model_sdpa_out's keys per band */
        int r = nq - i0 < SDPA_ROWS ? nq - i0 : SDPA_ROWS, L = band_keys(NULL, mask, i0, r, nk);
        tensor_matmul_lda(out + (size_t)i0 * dv, weights + (size_t)i0 * nk, nk, v, r, L, dv);
    }
}

/* ---- streaming a band out to the maps ----
 * dst[0..n-1] = src[0..n-1], exactly: plain stores up to dst's first aligned vector, then
 * non-temporal ones (written to memory without reading the line first, and not kept in the
 * cache), then plain stores for the tail. The caller fences (stream_done) before the maps are
 * read by another thread. */
#if SDPA_Z
__attribute__((target("avx512f"))) static void stream_z(float *restrict dst,
                                                        const float *restrict src, size_t n)
{
    size_t i = 0;
    for (; i < n && ((uintptr_t)(dst + i) & 63); i++)
        dst[i] = src[i];
    for (; i + 16 <= n; i += 16)
        _mm512_stream_ps(dst + i, _mm512_loadu_ps(src + i));
    for (; i < n; i++)
        dst[i] = src[i];
}
#endif

static void stream_copy(float *restrict dst, const float *restrict src, size_t n)
{
#if defined(__x86_64__)
#if SDPA_Z
    if (cpu_has_avx512()) {
        stream_z(dst, src, n);
        return;
    }
#endif
    size_t i = 0; /* SSE: every x86-64 */
    for (; i < n && ((uintptr_t)(dst + i) & 15); i++)
        dst[i] = src[i];
    for (; i + 4 <= n; i += 4)
        _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
    for (; i < n; i++)
        dst[i] = src[i];
#else
    memcpy(dst, src, sizeof(float) * n);
#endif
}

/* The streamed stores ordered before what follows (another thread reading the maps). */
static void stream_done(void)
{
#if defined(__x86_64__)
    _mm_sfence();
#endif
}

/* One row of scores x (nk of them) whose mask is +0 before key li and −∞ from it (a row without
 * holes, model_sdpa_limits): ss = x·s, sm = ss + that mask, tensor_scale_add's operations on
 * each element with the mask's values as constants (its row is not read). Returns 1 when every
 * sm from li on is −∞ (what the mask makes of any finite score; +∞ or NaN make a NaN) and none
 * before li is +∞ or NaN (which would make the row's sum, and so every weight of the row, the
 * future's too, NaN): then the row's softmax over its first li keys is the whole row's. */
SDPA_CLONES
static int scale_cut(float *restrict ss, float *restrict sm, const float *restrict x, float s,
                     int li, int nk)
{
    const v8f zero = {0}, ninf = zero - INFINITY, pinf = zero + INFINITY;
    int j = 0;
    v8i live = {0}, ok = ~live;
    for (; j + 8 <= li; j += 8) {
        v8f v;
        memcpy(&v, x + j, sizeof v);
        v *= s;
        memcpy(ss + j, &v, sizeof v);
        v += zero;
        memcpy(sm + j, &v, sizeof v);
        ok &= v < pinf; /* false for +∞ and NaN */
    }
    for (; j < li; j++) {
        float v = x[j] * s;
        ss[j] = v;
        sm[j] = v + 0.0f;
        ok[0] &= -(sm[j] < INFINITY);
    }
    for (; j < nk && j % 8; j++) {
        float v = x[j] * s;
        ss[j] = v;
        sm[j] = v + -INFINITY;
        live[0] |= sm[j] != -INFINITY;
    }
    for (; j + 8 <= nk; j += 8) {
        v8f v;
        memcpy(&v, x + j, sizeof v);
        v *= s;
        memcpy(ss + j, &v, sizeof v);
        v += ninf;
        memcpy(sm + j, &v, sizeof v);
        live |= v != ninf;
    }
    for (; j < nk; j++) {
        float v = x[j] * s;
        ss[j] = v;
        sm[j] = v + -INFINITY;
        live[0] |= sm[j] != -INFINITY;
    }
    int any = 0;
    for (int u = 0; u < 8; u++)
        any |= live[u] | ~ok[u];
    return !any;
}

/* Rows i0..i0+r-1 of a head's scaled, masked and weights from their scores S (rows nk apart, the
 * band's): a row without holes (lim, or the mask's own limits) is scaled and masked by
 * scale_cut and its softmax taken over its first li keys, the rest exact zeros, as the whole
 * row's would be (a masked key adds an exact 0 to every sum, tensor_softmax_rows); a row with
 * holes, or whose future is not all −∞, as model_sdpa does it. The same bits as model_sdpa. */
static void band_steps(float *Ss, float *Sm, float *A, const float *S, const float *mask,
                       const int *lim, int i0, int r, int nk, float scale)
{
    if (!mask) {
        tensor_scale_add(Ss, Sm, S, scale, NULL, (size_t)r * nk);
        tensor_softmax_rows_to(A, Sm, r, nk);
        return;
    }
    for (int i = 0; i < r; i++) {
        size_t o = (size_t)i * nk;
        const float *mrow = mask + (size_t)(i0 + i) * nk;
        int li;
        if (lim)
            li = lim[i0 + i];
        else
            model_sdpa_limits(mrow, 1, nk, &li);
        if (!(li & MODEL_SDPA_HOLES) && scale_cut(Ss + o, Sm + o, S + o, scale, li, nk)) {
            tensor_softmax_rows_to(A + o, Sm + o, 1, li);
            memset(A + o + li, 0, sizeof(float) * (size_t)(nk - li));
        } else {
            tensor_scale_add(Ss + o, Sm + o, S + o, scale, mrow, (size_t)nk);
            tensor_softmax_rows_to(A + o, Sm + o, 1, nk);
        }
    }
}

/* model_sdpa's steps a band of SDPA_ROWS query rows at a time, each band's four steps while its
 * rows are still in the cache (one pass over the maps' memory, not three), its scores from K
 * packed once: every step is per element (the products' chains) or per row (scaling, the mask,
 * softmax), so the bits are model_sdpa's. Large maps: the band's four steps in band's rows,
 * then copied out exactly (stream_copy). */
void model_sdpa_maps(float *scores, float *scaled, float *masked, float *weights, float *out,
                     float *band, const float *q, const float *k, const float *v,
                     const float *mask, const int *lim, int nq, int nk, int dk, int dv,
                     float scale)
{
    ATTEND_ASSERT(nq >= 1 && nk >= 1 && dk >= 1 && dv >= 1 && scale > 0.0f);
    ATTEND_ASSERT(scores && scaled && masked && weights && band && q && k && (!out || v));
    float *pk = band + 4 * (size_t)SDPA_ROWS * nk;
    int stream = (size_t)nq * nk >= MODEL_SDPA_STREAM;
    pack_keys(pk, k, nk, dk);
    for (int i0 = 0; i0 < nq; i0 += SDPA_ROWS) {
        int r = nq - i0 < SDPA_ROWS ? nq - i0 : SDPA_ROWS;
        size_t o = (size_t)i0 * nk, len = (size_t)r * nk;
        float *S = scores + o, *Ss = scaled + o, *Sm = masked + o, *A = weights + o;
        if (stream) /* the band's rows in band, in the cache, then streamed out */
            S = band, Ss = S + len, Sm = Ss + len, A = Sm + len;
        qk_rows(S, (size_t)nk, q + (size_t)i0 * dk, r, dk, pk, nk, 1.0f); /* Q Kᵀ */
        band_steps(Ss, Sm, A, S, mask, lim, i0, r, nk, scale); /* ÷√d_k, + M, softmax */
        if (out) { /* A · V, model_sdpa_out's keys per band */
            int L = band_keys(lim, mask, i0, r, nk);
            tensor_matmul_lda(out + (size_t)i0 * dv, A, nk, v, r, L, dv);
        }
        if (stream) {
            stream_copy(scores + o, S, len);
            stream_copy(scaled + o, Ss, len);
            stream_copy(masked + o, Sm, len);
            stream_copy(weights + o, A, len);
        }
    }
    if (stream)
        stream_done();
}

float model_sdpa_scale(int scale_on, int d_k) { return scale_on ? 1.0f / sqrtf((float)d_k) : 1.0f; }
