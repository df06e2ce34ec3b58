/* hf_tokenizer_internal.h - what hf_tokenizer.c (encoding) and hf_tokenizer_load.c (reading
 * tokenizer files) share: the tokenizer's struct (its maps are strmap.h's). */
#ifndef ATTEND_HF_TOKENIZER_INTERNAL_H
#define ATTEND_HF_TOKENIZER_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>

#include "strmap.h"

/* GPT-2's pre-tokenizer pattern (the ByteLevel pre-tokenizer's use_regex). */
#define HF_TOK_GPT2_PATTERN \
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"
#define HF_TOK_MAX_STEPS 8
#define HF_TOK_MAX_ADDED 4096
#define HF_TOK_MAX_AFFIX 4


typedef enum { PT_SPLIT, PT_BYTELEVEL, PT_DIGITS, PT_METASPACE } StepKind;
typedef struct {
    StepKind kind;
    pcre2_code *re;     /* PT_SPLIT, PT_BYTELEVEL with use_regex, PT_DIGITS */
    int removed;        /* PT_SPLIT: matches dropped (behavior "Removed") */
    int prefix_space;   /* PT_BYTELEVEL: add_prefix_space */
    int split;          /* PT_METASPACE: split before each replacement */
    int prepend;        /* PT_METASPACE: 0 never, 1 always, 2 first piece only */
} Step;

typedef enum { NM_PREPEND, NM_REPLACE } NormKind_;
typedef struct {
    NormKind_ kind;
    char *a, *b;        /* prepend a; replace a by b */
} Norm;

struct HfTok {
    StrMap vocab;             /* token -> id */
    StrMap merges;            /* "left\xffright" -> rank */
    char **id_tok;          /* (n_ids) raw token text or NULL */
    int n_ids;
    int byte_level;         /* tokens are GPT-2's byte-to-unicode characters */
    int byte_fallback;      /* unknown pieces become <0xHH> byte tokens */
    int ignore_merges;      /* a whole word in the vocabulary is one token */
    int unk_id;
    int n_steps;
    Step steps[HF_TOK_MAX_STEPS];
    int n_norms;
    Norm norms[HF_TOK_MAX_STEPS];
    int n_added;
    struct { char *text; size_t len; int id; } added[HF_TOK_MAX_ADDED];
    int n_prefix, n_suffix;
    int prefix[HF_TOK_MAX_AFFIX], suffix[HF_TOK_MAX_AFFIX];
    int byte_id[256];       /* byte fallback: id of <0xHH>, or -1 */
};

/* GPT-2's bytes_to_unicode, back: the byte character cp stands for (-1: none). */
int hf_tok_char_byte(unsigned cp);

#endif
