/* model_equiv.c - the permutation-equivariance experiment: the same sentence run in two
 * orders, and how far self-attention's outputs are from moving with their tokens. */
#include "model.h"

#include <stdio.h>

#include "tensor.h"

float model_equivariance(const Model *m, const int *src, int n, const int *tgt, int m_tgt,
                         const Controls *c, Trace *a, Trace *b, char *err, size_t errlen)
{
    Controls id = *c;
    id.order = NULL;
    if (model_forward(m, src, n, tgt, m_tgt, &id, a, err, errlen) ||
        model_forward(m, src, n, tgt, m_tgt, c, b, err, errlen))
        return -1.0f;
    float mx = 0.0f;
    for (int l = 0; l < m->cfg.n_layers; l++) {
        float d = model_equivariance_layer(m, a, b, l);
        if (d < 0.0f) {
            snprintf(err, errlen, "internal error: attention output of layer %d not traced", l);
            return -1.0f;
        }
        if (d > mx)
            mx = d;
    }
    return mx;
}

float model_equivariance_layer(const Model *m, const Trace *a, const Trace *b, int layer)
{
    Stack st = model_self_stack(m);
    const TraceEntry *ea = trace_find(a, st, layer, SUB_SELF, -1, T_ATTN_OUT);
    const TraceEntry *eb = trace_find(b, st, layer, SUB_SELF, -1, T_ATTN_OUT);
    if (!ea || !eb || a->n != b->n)
        return -1.0f;
    float mx = 0.0f;
    for (int i = 0; i < b->n; i++) {
        /* Row i of Attn(PX) is the output for token order[i]: row order[i] of Attn(X). */
        float dlt = tensor_max_abs_diff(eb->data + (size_t)i * eb->cols,
                                        ea->data + (size_t)b->order[i] * ea->cols,
                                        (size_t)ea->cols);
        if (dlt > mx)
            mx = dlt;
    }
    return mx;
}
