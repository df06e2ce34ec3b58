/* names.h - the names of the masks, shared by every room: one printer and one parser, so
 * `dump`, the lessons, the player and the quiz call a mask the same thing. (PE, norm and FFN
 * names are model_pe_name / model_pe_parse and friends in model.h.) No printing. */
#ifndef ATTEND_NAMES_H
#define ATTEND_NAMES_H

#include "model.h"

/* The mask names in the order they are listed in messages. */
#define NAMES_MASK_LIST "none, causal, padding, both"

/* "none", "causal", "padding" or "both" for the causal and padding switches. */
const char *names_mask(int causal, int padding);
/* The reverse of names_mask: 0 with *causal and *padding set, or -1 (unknown name; the
 * outputs are untouched). */
int names_mask_parse(const char *s, int *causal, int *padding);
/* The mask model_forward actually applies on one attention sublayer of m (m may be NULL: a
 * worked example) given the causal and padding controls: an encoder-decoder's encoder
 * self-attention and its cross-attention get no causal mask. Named as names_mask. Shared by
 * the player's status line, the quiz's Setup line and {{mask}}. */
const char *names_sublayer_mask(const Model *m, Stack st, Sublayer sub, int causal,
                                int padding);

#endif
