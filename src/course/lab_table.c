/* lab_table.c - the table of labs: names, titles, the lesson each ends, languages, hints and
 * the cases (the misconceptions are one catalogue for every lab: lab_catalogue.c). */
#include <string.h>

#include "lab_util.h"

static const LabDef LABS[] = {
    {"softmax", "Softmax over the rows of a matrix", "softmax-weighted-sum", "py c",
     {"Softmax works on each row alone: row i of the result is e^x / Σ e^x over row i. In "
      "numpy, axis=-1 (or axis=1) names the row's entries.",
      "e^x overflows past x ≈ 709: subtract each row's max first (keepdims=True keeps the "
      "shape for broadcasting). The result does not change, since softmax(x − c) = softmax(x).",
      "A row that is −∞ everywhere has no max to subtract: its weights are all 0 by the "
      "engine's convention (no NaN). np.where(np.isfinite(mx), mx, 0) is one way.",
      "Check: every row of your result sums to 1 (or is all 0 for a fully −∞ row)."},
     lab_make_softmax, NULL},
    {"attention", "Scaled dot-product attention", "matrix-form", "py c",
     {"Three steps: S = Q·Kᵀ (n×m), then S / √d_k, then softmax of each row gives the "
      "weights; the output is weights · V (n×d_v).",
      "K is (m, d_k): Q @ K.T is (n, m). d_k is Q.shape[1]. The mask, when given, is added to "
      "the scaled scores before the softmax: −∞ becomes a weight of exactly 0.",
      "Subtract each row's max before np.exp (the large-score case overflows otherwise), and "
      "give a fully masked row weights of 0 and an output of 0, not NaN.",
      "Return a pair: return out, weights (in that order)."},
     lab_make_attention, NULL},
    {"masks", "Causal and padding masks", "padding-mask", "py",
     {"A mask is added to the scores: 0 where a query may read a key, −∞ where it may not. "
      "causal_mask(n) is −∞ above the diagonal (key j > query i).",
      "np.triu(np.full((n, n), -np.inf), k=1) is the causal mask in one line. The padding "
      "mask hides the padded keys (keep[j] == 0) from every query: the same row n times.",
      "masked_softmax adds the mask to the scores and then takes the softmax of each row; a "
      "row masked everywhere gets weights 0.",
      "Use −∞ itself (-np.inf), not −1e9: the lesson's mask makes e^(−∞) exactly 0."},
     lab_make_masks, NULL},
    {"multihead", "Multi-head split and merge", "multi-head", "py",
     {"split_heads(X, h): X is (n, d_model); head i takes columns i·d_h … (i+1)·d_h − 1, "
      "d_h = d_model / h. The result is (h, n, d_h).",
      "X.reshape(n, h, d_h).transpose(1, 0, 2) splits; merge_heads undoes it: "
      "H.transpose(1, 0, 2).reshape(n, h·d_h). A reshape alone mixes the tokens.",
      "multi_head: Q = X·W_q (and K, V), split each, attention per head scaled by √d_h (the "
      "head's width, not d_model), merge, then · W_o.",
      "Check shapes at every step: (n, d) → (h, n, d_h) → (n, d)."},
     lab_make_multihead, NULL},
    {"block", "The full block: RMSNorm, attention, SwiGLU, residuals", "transformer-block", "py",
     {"Pre-norm: x = x + attn(rmsnorm(x)·g1); then x = x + ffn(rmsnorm(x)·g2). Each "
      "sublayer adds to the residual stream, it does not replace it.",
      "RMSNorm divides each row by √(mean(x²) + eps), eps = 1e-5; no mean is subtracted and "
      "there is no bias (that would be LayerNorm).",
      "SwiGLU: ffn(x) = (silu(x·W1) ⊙ (x·W3)) · W2 with silu(z) = z / (1 + e^−z).",
      "X is (batch, n, d): run each batch element alone (or use @, which broadcasts), and "
      "return the same shape: a [1, 16, 256] input gives a [1, 16, 256] output."},
     lab_make_block, NULL},
    {"positions", "Permutation equivariance, with and without positions",
     "positional-encoding", "py",
     {"self_attention(X, Wq, Wk, Wv): one head, no mask, scaled by √d_k, returns "
      "softmax(Q·Kᵀ/√d_k)·V with Q = X·Wq and so on.",
      "sinusoidal(n, d): PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / "
      "10000^(2i/d)).",
      "encoded_attention adds the positions to the input, before Q, K and V are computed: "
      "self_attention(X + sinusoidal(n, d), ...).",
      "Without positions, permuting the rows of X permutes the output's rows the same way; "
      "with them the values themselves change."},
     lab_make_positions, lab_note_positions},
    {"kvcache", "KV-cache decoding equals the full recompute", "kv-cache", "py",
     {"decode_step(cache, q, k, v) is called once per token, in order; cache is a dict that "
      "is yours to fill (it starts empty).",
      "Append this token's k and v to the cache first, then attend: the query reads every key "
      "so far, itself included.",
      "With the cache as (t, d_k) and (t, d_v) arrays: w = softmax(K·q / √d_k), out = w·V.",
      "The outputs stacked must equal causal attention over the whole sequence at once."},
     lab_make_kvcache, NULL},
};
#define N_LABS (int)(sizeof LABS / sizeof LABS[0])

int lab_count(void) { return N_LABS; }

const LabDef *lab_at(int i) { return i >= 0 && i < N_LABS ? &LABS[i] : NULL; }

const LabDef *lab_find(const char *name)
{
    for (int i = 0; name && i < N_LABS; i++)
        if (!strcmp(LABS[i].name, name))
            return &LABS[i];
    return NULL;
}

int lab_has_lang(const LabDef *d, const char *lang)
{
    size_t n = strlen(lang);
    for (const char *p = d->langs; (p = strstr(p, lang)); p += n)
        if ((p == d->langs || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
            return 1;
    return 0;
}

