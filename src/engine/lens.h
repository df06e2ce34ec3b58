/* lens.h - what the parts of the residual stream do to the next token, read from the same
 * Trace the heatmaps draw: the logit lens, direct logit attribution, activation patching and
 * attention rollout (their definitions in docs/dump-format.md). r_l(i) is the residual stream
 * at position i after block l of the main stack (r_0: the embeddings, the stack's input).
 * No curses, no printing, no exit(). */
#ifndef ATTEND_LENS_H
#define ATTEND_LENS_H

#include <stddef.h>

#include "model.h"

/* 0 if the lens, attribution, patching and rollout read m's runs (a decoder-only or encoder
 * model), else -1 with a message saying why (an encoder-decoder). */
int lens_check_model(const Model *m, char *err, size_t errlen);

/* r_l of every position (t->n rows of d_model, in the trace), l = 0..n_layers; NULL when the
 * trace has no such entry. Post-norm: the block's normed output. */
const float *lens_resid(const Trace *t, int l);

/* A token id given as a number, or as a word the model's tokenizer makes one token of. 0 and
 * *id, or -1 with a message naming the value (what: the option, for the message). */
int lens_token_parse(const Model *m, const char *s, const char *what, int *id, char *err,
                     size_t errlen);

/* Element i of one of m's weight matrices as float: widened exactly when the model keeps its
 * matrices 16-bit (Model.wdtype), else read as it is. */
float lens_weight(const Model *m, const float *w, size_t i);
/* The unembedding's row of token tok (d_model values of W_U[tok]: lm_head's column, or the tied
 * embedding's row), written to w as doubles. */
void lens_unembed_row(const Model *m, int tok, double *w);

/* ---- logit lens: softmax(W_U · final_norm(r_l) + b_U), the norm recomputed on r_l ---- */
typedef struct {
    int id;
    double p;
} LensTop;
/* The k (<= V) most likely tokens of one row of V logits, by descending p (ties: the lower id
 * first), p their softmax probabilities (the one softmax of the lens and `dump --next`). */
void lens_top(const float *r, int V, int k, LensTop *top);
/* The k most likely tokens (descending p, ties by lower id) of every row l = 0..n_layers and
 * position i = 0..t->n-1: out + (l * t->n + i) * k, (n_layers + 1) * t->n * k entries. Row
 * n_layers is the softmax of the trace's own logits (the model's output). Rows are unembedded a
 * block at a time (at most 64 MiB of logits). 0, or -1 with a message (out of memory). */
int lens_logit(const Model *m, const Trace *t, int k, LensTop *out, char *err, size_t errlen);
/* Runs t's tokens again under controls c (a knock-out, say) that change nothing below layer
 * `layer` (0..n_layers-1), from t's stream before that layer (lens_resid): the layers below
 * are not run again. out's logits are the bits of a whole model_forward's under c; out holds
 * nothing of the layers below. Pre-norm or post-norm, not encoder-decoder. 0, or -1. */
int lens_forward_from(const Model *m, const Trace *t, int layer, const Controls *c, Trace *out,
                      char *err, size_t errlen);
/* The same at position pos alone: row l at out + l * k, (n_layers + 1) * k entries, each the
 * bits of lens_logit's. 0, or -1 with a message (pos outside the run, out of memory). */
int lens_logit_at(const Model *m, const Trace *t, int pos, int k, LensTop *out, char *err,
                  size_t errlen);

/* ---- direct logit attribution ---- */
#define LENS_NAME 32
typedef struct {
    char name[LENS_NAME];  /* "embed", "pos", "L0.h1", "L0.attn_bias", "L0.mlp", "final_bias" */
    double value;
    int layer, head;       /* a head's part: its layer and head; -1, -1 for the others */
    double peak;           /* a head's part: its largest attention weight from the position */
    int key;               /* ... and the key position it puts it on; -1 for the others */
} LensPart;
typedef struct {
    int token, pos;
    double logit;          /* the model's own logit of token at pos (the trace's) */
    double scale;          /* the final norm's frozen scale: σ (LayerNorm), rms (RMSNorm), 1 */
    int n_parts;
    LensPart *parts;       /* (n_parts), owned: embed, pos (additive PE only), then layer by
                              layer its heads, attn_bias (if W_O has one), mlp (if an FFN), then
                              final_bias */
} LensAttribution;
/* The logit of token at position pos of t split into parts that sum to it: with the final
 * norm's scale frozen at its value on r_L(pos), part(c) = ((γ ⊙ W_U[token]) · centre(c)) / scale
 * (centre: minus its mean for LayerNorm, none for RMSNorm; γ 1 and scale 1 without a final
 * norm), final_bias = β · W_U[token] + b_U[token]. Pre-norm models only. 0, or -1 with a
 * message (post-norm, position or token out of range, out of memory). Free with
 * lens_attribution_free. */
int lens_attribute(const Model *m, const Trace *t, int token, int pos, LensAttribution *a,
                   char *err, size_t errlen);
void lens_attribution_free(LensAttribution *a);

/* ---- activation patching ---- */
typedef struct {
    char name[LENS_NAME];  /* "L0.h1", "L0.mlp" */
    int layer, head;       /* head -1: the FFN */
    double logit;          /* token's logit at pos in the corrupted run with this part patched */
    double fraction;       /* (logit − corrupted) / (clean − corrupted) */
} LensPatchPart;
typedef struct {
    int token, pos;
    double clean, corrupted;  /* token's logit at pos in the two runs */
    int n_parts;
    LensPatchPart *parts;  /* (n_parts), owned: layer by layer, each head, then the FFN if any */
} LensPatch;
/* Runs clean and corrupt (n tokens each) under c, then for each head of the main stack (its
 * weights·V) and each layer's FFN (its output) the corrupted run with that output replaced by
 * the clean run's: how much of the clean − corrupted logit difference of token at pos each
 * restores. 0, or -1 with a message (no difference to restore, token or position out of range,
 * out of memory). Free with lens_patch_free. */
int lens_patch(const Model *m, const int *clean, const int *corrupt, int n, const Controls *c,
               int token, int pos, LensPatch *p, char *err, size_t errlen);
/* lens_patch with only layer's heads and FFN patched (layer -1: every layer's), for a model
 * too big to patch every head at each key. */
int lens_patch_layer(const Model *m, const int *clean, const int *corrupt, int n,
                     const Controls *c, int token, int pos, int layer, LensPatch *p, char *err,
                     size_t errlen);
void lens_patch_free(LensPatch *p);

/* ---- attention rollout (Abnar & Zuidema 2020) ---- */
/* Per layer Â_l = (mean over heads of the self-attention weights + I), each row divided by its
 * sum; R_0 = Â_0, R_l = Â_l · R_{l−1}. out + l·n·n gets R_l (n_layers matrices n × n, n =
 * t->n). 0, or -1 with a message (the weights are not in the trace). */
int lens_rollout(const Model *m, const Trace *t, double *out, char *err, size_t errlen);

#endif
