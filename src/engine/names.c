/* names.c - the mask names (names.h): printed and parsed in one place for every room. */
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
