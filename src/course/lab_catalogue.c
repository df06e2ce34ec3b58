/* lab_catalogue.c - the catalogue of misconceptions, one row each, shared by every lab: a
 * row is an engine variant (a LabWay: the computation with that mistake) with its words and
 * the lesson to open. lab_diagnose runs the rows on the cases of a failing function and names
 * the one the learner's answer matches (docs/labs.md, "How to add a misconception"). */
#include <math.h>
#include <string.h>

#include "lab_util.h"
#include "lab_way.h"

#define W_AFTER "The mask was applied after the softmax: it must be added to the scaled "    \
    "scores before it, so that −∞ becomes a weight of exactly 0 and the row still sums to 1."
#define W_ORDER "The heads were split or merged in the wrong layout: head i owns columns "    \
    "i·d_h to (i+1)·d_h − 1 of every token. A reshape alone mixes tokens into heads; "       \
    "reshape to (n, h, d_h), then swap the first two axes (and back before merging)."
#define W_RES "A residual is missing: each sublayer adds its output to the stream, x = x + " \
    "f(norm(x)), and does not replace it."
#define W_ACT "The FFN's activation is SiLU, silu(z) = z·sigmoid(z) = z / (1 + e^−z), applied to "   \
    "x·W1 and gating x·W3: not ReLU, GELU, or sigmoid(z) alone."
#define W_EXP "The frequencies are off: dimensions 2i and 2i+1 share the angle pos / "        \
    "10000^(2i/d) (the pair's index doubled, over d)."

/* clang-format off */
const LabMistake LAB_CATALOGUE[] = {
    /* the scale of the scores */
    {"no-scale", "The scores were not divided by √d_k: they come out √d_k times too large and "
     "the softmax too peaked.", "scaling", {.scale = SC_NONE}},
    {"scale-d-k", "The scores were divided by d_k, not by its square root: the variance of a "
     "dot product of d_k terms grows like d_k, so its spread like √d_k.", "scaling",
     {.scale = SC_DK}},
    {"scale-d-v", "The scores were divided by √d_v, the values' width: the scale belongs to "
     "the dot products of queries and keys, √d_k.", "scaling", {.scale = SC_SQRT_DV}},
    {"scale-d-model", "Each head was scaled by √d_model: a head's scores are dot products of "
     "d_h = d_model / h numbers, so they are divided by √d_h.", "scaling",
     {.scale = SC_SQRT_DMODEL}},
    {"scale-times", "The scores were multiplied by √d_k instead of divided by it.", "scaling",
     {.scale = SC_TIMES}},
    /* the softmax */
    {"softmax-axis", "The softmax ran over the wrong axis (down the columns): each query's row "
     "of weights must sum to 1 (axis=-1).", "softmax-weighted-sum", {.axis = 1}},
    {"no-max-shift", "e^x overflowed to ∞ and ∞/∞ is NaN: subtract each row's max before the "
     "exponential. softmax(x − c) = softmax(x), so the weights do not change.", "scaling",
     {.softmax = SM_NAIVE}},
    {"masked-row-nan", "A row that is −∞ everywhere gave NaN (−∞ − (−∞), or 0/0): by the "
     "engine's convention its weights are all 0, and so is its output.", "padding-mask",
     {.softmax = SM_NANROW}},
    /* orientation */
    {"q-k-swapped", "Q and K traded places: the scores are Q·Kᵀ, row i of Q against every row "
     "of K (n×m); K·Qᵀ is its transpose.", "dot-product-scores", {.orient = OR_KQ}},
    {"k-not-transposed", "K was not transposed: the scores are Q·Kᵀ, each query against each "
     "key; Q·K multiplies a query with K's columns, which mix the keys.",
     "dot-product-scores", {.orient = OR_QK}},
    {"weights-transposed", "A weight matrix was transposed: Q = X·W_q with W_q of shape "
     "(d_in, d_out), not X·W_qᵀ.", "matrix-form", {.orient = OR_WT}},
    /* the mask */
    {"mask-after", W_AFTER, "causal-mask", {.mask = MK_AFTER}},
    {"mask-after", W_AFTER, "causal-mask", {.mask = MK_AFTER_ZERO}},
    {"mask-zero", "Hidden keys got a score of 0 instead of −∞: e^0 = 1, so they still take "
     "weight. The mask is −∞ where a query may not look.", "causal-mask", {.mask = MK_ZERO}},
    {"mask-ignored", "The mask was never added: the hidden keys still take weight.",
     "causal-mask", {.mask = MK_IGNORED}},
    {"mask-finite", "A large negative number is not −∞: with −1e9 a row hidden everywhere "
     "spreads its weight evenly instead of being 0. Use -np.inf itself.", "padding-mask",
     {.mask = MK_FINITE}},
    {"causal-lower", "The mask hides the past instead of the future: key j is hidden from "
     "query i when j > i (above the diagonal), so a token reads itself and what came before.",
     "causal-mask", {.mask = MK_LOWER}},
    {"causal-diagonal", "The diagonal is hidden too: a token may read itself (j = i); only "
     "keys after it (j > i) are −∞.", "causal-mask", {.mask = MK_DIAG}},
    {"keep-mask", "This is a keep-mask (1 = read, 0 = hidden), which is multiplied; attend's "
     "mask is added to the scores: 0 where a key may be read, −∞ where it may not.",
     "padding-mask", {.mask = MK_KEEP}},
    /* heads */
    {"heads-order", W_ORDER, "multi-head", {.heads = HD_RESHAPE}},
    {"heads-order", W_ORDER, "multi-head", {.heads = HD_INTERLEAVE}},
    {"heads-reversed", "The heads came back in reverse order: head 0's output goes to the "
     "first d_h columns, head h−1's to the last.", "multi-head", {.heads = HD_REVERSE}},
    {"no-w-o", "W_o was forgotten: the heads' outputs, side by side, are mixed by the output "
     "projection, out = concat(heads)·W_o.", "multi-head", {.heads = HD_NO_WO}},
    /* norms */
    {"layernorm", "That is LayerNorm: RMSNorm does not subtract the mean; it divides each row "
     "by √(mean(x²) + eps) and multiplies by the gain.", "transformer-block",
     {.norm = NM_LAYER}},
    {"rmsnorm-no-eps", "RMSNorm without eps: a row near 0 is blown up. The root is "
     "√(mean(x²) + eps), eps = 1e-5, inside the square root.", "transformer-block",
     {.norm = NM_NO_EPS}},
    {"rmsnorm-eps-outside", "eps was added outside the square root: RMSNorm divides by "
     "√(mean(x²) + eps), not √mean(x²) + eps.", "transformer-block", {.norm = NM_EPS_OUT}},
    {"rmsnorm-eps", "eps is 1e-5 in this block (LLaMA's checkpoints use 1e-6 or 1e-5: read "
     "it from the config).", "transformer-block", {.norm = NM_EPS6}},
    {"rmsnorm-no-gain", "The norm's gain was forgotten: RMSNorm multiplies each normalised row "
     "by g (g1 before attention, g2 before the FFN).", "transformer-block",
     {.norm = NM_NO_GAIN}},
    /* the FFN */
    {"ffn-no-gate", "The gate was left out: SwiGLU is (silu(x·W1) ⊙ (x·W3))·W2, the product "
     "of two projections, one through SiLU.", "transformer-block", {.ffn = FF_NO_GATE}},
    {"ffn-gate-swapped", "W1 and W3 traded places: SiLU goes on x·W1, and x·W3 is the gate it "
     "multiplies.", "transformer-block", {.ffn = FF_GATE_SWAP}},
    {"ffn-activation", W_ACT, "transformer-block", {.ffn = FF_RELU}},
    {"ffn-activation", W_ACT, "transformer-block", {.ffn = FF_GELU}},
    {"ffn-activation", W_ACT, "transformer-block", {.ffn = FF_GELU_ERF}},
    {"ffn-activation", W_ACT, "transformer-block", {.ffn = FF_SIGMOID}},
    /* residuals */
    {"no-residual", W_RES, "transformer-block", {.resid = RS_NO1}},
    {"no-residual", W_RES, "transformer-block", {.resid = RS_NO2}},
    {"no-residual", W_RES, "transformer-block", {.resid = RS_NONE}},
    {"post-norm", "The norm came after the residual (post-norm, the 2017 layout); this block is "
     "pre-norm: x + f(norm(x)).", "transformer-block", {.resid = RS_POST}},
    {"residual-normed", "The residual carried the normalised x: the stream adds f(norm(x)) to "
     "x itself, x + f(norm(x)), so the norm changes only what the sublayer reads.",
     "transformer-block", {.resid = RS_NORMED}},
    /* positions */
    {"positions-v-only", "The positions reached V only: they are added to the input, before Q, "
     "K and V are computed, so that the scores (Q·Kᵀ) see the order.", "positional-encoding",
     {.pos = PS_V_ONLY}},
    {"positions-qk-only", "The positions reached Q and K only: here they are added to the "
     "input itself, so V carries them too (rotary encodings, later, touch only Q and K).",
     "positional-encoding", {.pos = PS_QK_ONLY}},
    {"positions-from-1", "The positions start at 1: the first token is position 0, and its "
     "encoding is sin 0 = 0, cos 0 = 1.", "positional-encoding", {.pos = PS_FROM1}},
    {"positions-after", "The positions were added after attention: they must be added to the "
     "input, before Q, K and V are computed, or the weights never see the order.",
     "positional-encoding", {.pos = PS_AFTER}},
    {"no-positions", "The positions were never added, so the order still does not matter.",
     "positional-encoding", {.pos = PS_NONE}},
    {"sin-cos-swapped", "sin and cos traded places: even dimensions take sin(pos / 10000^(2i/d)) "
     "and odd ones cos.", "positional-encoding", {.pos = PS_SWAP}},
    {"position-frequency", W_EXP, "positional-encoding", {.pos = PS_EXP_HALF}},
    {"position-frequency", W_EXP, "positional-encoding", {.pos = PS_EXP_ODD}},
    {"positions-concat", "sin filled the first half and cos the second: this course "
     "interleaves them, sin in even dimensions and cos in odd ones.", "positional-encoding",
     {.pos = PS_CONCAT}},
    /* the KV cache */
    {"append-after", "Each query attended before its own key and value were appended: with "
     "the cache, token t reads keys 0..t, itself included, as the causal mask allows.",
     "kv-cache", {.cache = KV_BEFORE}},
    {"cache-drops-first", "The cache lost its first token: token t reads every key 0..t; "
     "slicing off the oldest (a window one too short) changes every later output.",
     "kv-cache", {.cache = KV_DROP_FIRST}},
    {"cache-q", "The cache held the queries: it keeps the keys and values of earlier tokens; "
     "each new query is used once, against them.", "kv-cache", {.cache = KV_Q}},
    {"no-cache", "Nothing was kept between steps: each token read only itself. The cache holds "
     "every earlier key and value so that they are not recomputed.", "kv-cache",
     {.cache = KV_NONE}},
    {NULL, NULL, NULL, {0}},
};
/* clang-format on */

/* 1 if each field the way sets is one the lab computes (the others would change nothing). */
static int lab_uses(const char *lab, const LabWay *w)
{
    static const struct {
        const char *lab;
        const char *fields; /* s scale, a axis, x softmax, o orient, m mask, h heads, n norm,
                               f ffn, r resid, p pos, c cache */
    } USES[] = {{"softmax", "ax"},     {"attention", "saxom"}, {"masks", "axm"},
                {"multihead", "saxoh"}, {"block", "saxohnfr"}, {"positions", "saxop"},
                {"kvcache", "saxc"}};
    const unsigned char f[] = {w->scale, w->axis, w->softmax, w->orient, w->mask, w->heads,
                               w->norm, w->ffn, w->resid, w->pos, w->cache};
    const char *names = "saxomhnfrpc";
    for (size_t i = 0; i < sizeof USES / sizeof USES[0]; i++)
        if (!strcmp(USES[i].lab, lab)) {
            for (int k = 0; names[k]; k++)
                if (f[k] && !strchr(USES[i].fields, names[k]))
                    return 0;
            return 1;
        }
    return 0;
}

int lab_mistake_usable(const LabDef *d, const LabMistake *mk)
{
    return lab_uses(d->name, &mk->way);
}

/* The way of two rows together (a and b set different fields), into out. 0, or 1 when both
 * set the same field. */
int lab_way_join(const LabWay *a, const LabWay *b, LabWay *out)
{
    const unsigned char *pa = (const unsigned char *)a, *pb = (const unsigned char *)b;
    unsigned char *po = (unsigned char *)out;
    for (size_t i = 0; i < sizeof *out; i++) {
        if (pa[i] && pb[i])
            return 1;
        po[i] = pa[i] ? pa[i] : pb[i];
    }
    return 0;
}
