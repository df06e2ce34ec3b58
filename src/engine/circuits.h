/* circuits.h - what a head does, read from its weights alone (no sentence): the OV circuit's
 * copying score, the QK circuit's previous-position preference, and K-composition with the
 * heads of the layer below (Elhage et al. 2021, "A Mathematical Framework for Transformer
 * Circuits"). Definitions in docs/training.md ("Circuits"). No curses, no printing. */
#ifndef ATTEND_CIRCUITS_H
#define ATTEND_CIRCUITS_H

#include "model.h"

/* At most this many tokens are scored by the copying score (evenly spaced over the pool). */
#define CIRCUITS_MAX_TOKENS 256

typedef struct {
    /* OV: over the scored tokens t of the pool (repeat_pool: no <...> words), the fraction
     * whose own logit is the largest of final_norm(norm1(e_t) · W_V^h · W_O^h) · W_U among the
     * scored tokens: the head, attending to t, raises t. */
    double copy;
    /* OV, Elhage et al.'s copying score: over the eigenvalues λ of the OV circuit restricted
     * to the scored tokens, E_s P Γ1 W_V^h W_O^h P Γf U_sᵀ (E_s, U_s their embedding and
     * unembedding rows; Γ1, Γf the gains of norm1 and the final norm; P LayerNorm's
     * centering, absent for RMSNorm; the norms' scale and bias left out, as in folded
     * weights), Re Σλ / Σ|λ|: near 1 for a head that copies, near -1 for one that
     * suppresses. Computed as the d_head nonzero ones, those of W_O P Γf U_sᵀ E_s P Γ1 W_V
     * (eigen.c). NAN if the iteration fails. */
    double copying;
    /* QK of positions alone (learned PE only, else NAN): over query positions i = 1..max_len-1,
     * the fraction whose highest score norm1(p_i) W_Q^h · (norm1(p_j) W_K^h) over keys j <= i is
     * j = i-1: the weights alone point the head at the previous position. */
    double prev;
    /* K-composition with each head g of the layer below (layer >= 1; 0 in layer 0):
     * ‖W_QK^h · (W_OV^g)ᵀ‖_F / (‖W_QK^h‖_F · ‖W_OV^g‖_F), W_QK = W_Q W_Kᵀ, W_OV = W_V W_O (d×d):
     * how much the keys this head reads are made of what head g wrote. */
    double kcomp[ATTEND_MAX_HEADS];
} HeadCircuit;

/* Every self-attention head of m's main stack: out[layer * n_heads + head]. A decoder-only or
 * encoder model. 0, or -1 with a message. */
int circuits_heads(const Model *m, HeadCircuit *out, char *err, size_t errlen);

#endif
