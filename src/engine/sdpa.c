/* sdpa.c - scaled dot-product attention of one head, S = QKᵀ, S/√d_k, + M (where the mask is
 * applied), softmax, ·V: whole, every step kept (model_sdpa), or as the forward pass runs it,
 * keeping only the output (model_sdpa_out). The kernels only: a trace's lazily filled steps
 * (trace_entry) are in trace.c, above this file. */
#include <math.h>

#include "attend_assert.h"
#include "model.h"
#include "tensor.h"

/* Query rows done together: the forward's band of rows, and the unit over which it skips the
 * keys that none of the rows may read. */
#define SDPA_ROWS MODEL_SDPA_ROWS

void model_sdpa_limits(const float *mask, int nq, int nk, int *lim)
{
    for (int i = 0; i < nq; i++) {
        const float *row = mask + (size_t)i * nk;
        int j = nk, holes = 0;
        while (j > 0 && row[j - 1] == -INFINITY)
            j--;
        for (int u = 0; u < j && !holes; u++)
            holes = row[u] != 0.0f;
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
 * matrix a band: the scaled scores, masked in place, then their softmax. */
void model_sdpa_out(float *out, float *band, const float *q, const float *k, const float *v,
                    const float *mask, const int *lim, int nq, int nk, int dk, int dv,
                    float scale)
{
    ATTEND_ASSERT(nq >= 1 && nk >= 1 && dk >= 1 && dv >= 1 && scale > 0.0f);
    ATTEND_ASSERT(out && band && q && k && v);
    for (int i0 = 0; i0 < nq; i0 += SDPA_ROWS) {
        int r = nq - i0 < SDPA_ROWS ? nq - i0 : SDPA_ROWS, L = band_keys(lim, mask, i0, r, nk);
        ATTEND_ASSERT(L >= 0 && L <= nk); /* a band reads no key past the last */
        float *A = band; /* rows L apart */
        tensor_matmul_bt_scaled(A, q + (size_t)i0 * dk, k, r, dk, L, scale); /* Q Kᵀ / √d_k */
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

float model_sdpa_scale(int scale_on, int d_k) { return scale_on ? 1.0f / sqrtf((float)d_k) : 1.0f; }
