/* names.c - the names every room prints and parses, each in one place: the model's kinds
 * (architecture, PE, norm, FFN: declared in model.h) and the mask (names.h). */
#include "names.h"

#include <string.h>

static const char *const MASK_NAMES[4] = {"none", "causal", "padding", "both"};

const char *names_mask(int causal, int padding)
{
    return MASK_NAMES[(causal ? 1 : 0) | (padding ? 2 : 0)];
}

int names_mask_parse(const char *s, int *causal, int *padding)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, MASK_NAMES[i])) {
            *causal = i & 1;
            *padding = (i >> 1) & 1;
            return 0;
        }
    return -1;
}

const char *names_sublayer_mask(const Model *m, Stack st, Sublayer sub, int causal,
                                int padding)
{
    /* model_forward: an encoder-decoder's encoder and its cross-attention read the whole
     * source, so the causal control applies to the decoder's self-attention only */
    if (m && m->cfg.arch == ARCH_ENCDEC && (st == STACK_ENC || sub == SUB_CROSS))
        causal = 0;
    return names_mask(causal, padding);
}

/* ---- the model's kinds (model.h) ---- */

static const char *const ARCH_NAMES[] = {"encoder", "decoder", "encoder-decoder"};
static const char *const PE_NAMES[] = {"none", "sinusoidal", "learned", "rope"};
static const char *const NORM_NAMES[] = {"layernorm", "rmsnorm"};
static const char *const FFN_NAMES[] = {"relu", "gelu", "swiglu", "none"};

static int parse_name(const char *s, const char *const *names, int n)
{
    for (int i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

const char *model_arch_name(Arch a) { return (unsigned)a < 3 ? ARCH_NAMES[a] : "?"; }
const char *model_pe_name(PeKind p) { return (unsigned)p < 4 ? PE_NAMES[p] : "?"; }
const char *model_norm_name(NormKind k) { return (unsigned)k < 2 ? NORM_NAMES[k] : "?"; }
const char *model_ffn_name(FfnKind k) { return (unsigned)k < 4 ? FFN_NAMES[k] : "?"; }
int model_arch_parse(const char *s) { return parse_name(s, ARCH_NAMES, 3); }
int model_pe_parse(const char *s)
{
    if (s && strcmp(s, "rotary") == 0)
        return PE_ROPE;
    return parse_name(s, PE_NAMES, 4);
}
int model_norm_parse(const char *s) { return parse_name(s, NORM_NAMES, 2); }
int model_ffn_parse(const char *s) { return parse_name(s, FFN_NAMES, 4); }
