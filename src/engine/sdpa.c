/* sdpa.c - scaled dot-product attention of one head, S = QKᵀ, S/√d_k, + M (where the mask is
 * applied), softmax, ·V; and the two of its steps the forward pass does not store but a trace
 * fills in when they are first read (scaled and masked: see trace_entry in model.h). */
#include <math.h>
#include <string.h>

#include "model.h"
#include "tensor.h"

/* Query rows done together: every step runs on SDPA_ROWS rows before the next rows, so their
 * rows of the n×n matrices are still in the core's cache when the next step reads them. Every
 * element is computed as it would be on the whole matrix: the same bits for any band. */
#define SDPA_ROWS MODEL_SDPA_ROWS

/* The band loop. scaled and masked: where to keep those steps (whole nq×nk matrices), or NULL
 * with band (2·SDPA_ROWS·nk floats) taking them one band at a time. */
static void sdpa(float *scores, float *scaled, float *masked, float *weights, float *out,
                 float *band, const float *q, const float *k, const float *v, const float *mask,
                 int nq, int nk, int dk, int dv, float scale)
{
    for (int i0 = 0; i0 < nq; i0 += SDPA_ROWS) {
        int r = nq - i0 < SDPA_ROWS ? nq - i0 : SDPA_ROWS;
        size_t at = (size_t)i0 * nk, nn = (size_t)r * nk;
        float *ss = scaled ? scaled + at : band, *sm = masked ? masked + at : band + nn;
        tensor_matmul_bt(scores + at, q + (size_t)i0 * dk, k, r, dk, nk); /* S = Q Kᵀ */
        /* S / √d_k, then + M: where the mask is applied (one pass over the rows) */
        tensor_scale_add(ss, sm, scores + at, scale, mask ? mask + at : NULL, nn);
        tensor_softmax_rows_to(weights + at, sm, r, nk); /* A = softmax(...) row by row */
        tensor_matmul(out + (size_t)i0 * dv, weights + at, v, r, nk, dv); /* A · V */
    }
}

void model_sdpa(float *scores, float *scaled, float *masked, float *weights, float *out,
                const float *q, const float *k, const float *v, const float *mask, int nq, int nk,
                int dk, int dv, float scale)
{
    sdpa(scores, scaled, masked, weights, out, NULL, q, k, v, mask, nq, nk, dk, dv, scale);
}

void model_sdpa_kept(float *scores, float *weights, float *out, float *band, const float *q,
                     const float *k, const float *v, const float *mask, int nq, int nk, int dk,
                     int dv, float scale)
{
    sdpa(scores, NULL, NULL, weights, out, band, q, k, v, mask, nq, nk, dk, dv, scale);
}

float model_sdpa_scale(int scale_on, int d_k) { return scale_on ? 1.0f / sqrtf((float)d_k) : 1.0f; }

/* A derived pair (scaled, masked), which the forward records right after its head's scores, is
 * computed from them, the run's scale and the sublayer's mask exactly as sdpa computes it: the
 * same bits as if the forward had kept it. */
static void fill(Trace *t, int i)
{
    int s = i - (t->entries[i].kind == T_SCALED ? 1 : 2);
    TraceEntry *sc = &t->entries[s + 1], *mk = &t->entries[s + 2];
    const TraceEntry *mask = trace_find(t, sc->stack, sc->layer, sc->sub, -1, T_MASK);
    tensor_scale_add(sc->data, mk->data, t->entries[s].data,
                     model_sdpa_scale(t->ctl.scale, t->model->cfg.d_head), mask ? mask->data : NULL,
                     (size_t)sc->rows * sc->cols);
    sc->lazy = mk->lazy = 0;
}

const TraceEntry *trace_entry(const Trace *t, int i)
{
    if (i < 0 || i >= t->n_entries)
        return NULL;
    if (t->entries[i].lazy)
        fill((Trace *)t, i); /* logically const: the values were always these */
    return &t->entries[i];
}
