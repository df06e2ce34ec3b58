/* corpus.h - training data: a tokenized English text (language modelling) or tokenized
 * English->French pairs with word alignments (translation). No curses, no printing. */
#ifndef ATTEND_CORPUS_H
#define ATTEND_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "vocab.h"

typedef enum { CORPUS_LM, CORPUS_PAIRS } CorpusKind;

typedef struct {
    int src_off, src_len;   /* into Corpus.ids: the English tokens */
    int tgt_off, tgt_len;   /* into Corpus.ids: the French tokens */
    int link_off, n_links;  /* into Corpus.links: (english index, french index) pairs */
} CorpusPair;

typedef struct {
    CorpusKind kind;
    int *ids;               /* (n_ids) every token, lines concatenated */
    int n_ids;
    int *starts;            /* (n_lines) LM: where each line (sentence) starts in ids */
    int n_lines;
    CorpusPair *pairs;      /* (n_pairs) CORPUS_PAIRS */
    int n_pairs;
    int *links;             /* (2 * total links) */
    int n_unknown;          /* tokens that were <unk> */
    char first_unknown[VOCAB_WORD_MAX + 1];
} Corpus;

/* Reads an LM corpus: one sentence a line, tokenized with v. Returns 0, or -1 with
 * "FILE:LINE: message" in err (unreadable, empty, a line with unknown words...). */
int corpus_load_lm(Corpus *c, const char *path, const Vocab *v, char *err, size_t errlen);
/* Reads "english<TAB>french<TAB>i-j i-j ..." lines (alignment optional). */
int corpus_load_pairs(Corpus *c, const char *path, const Vocab *v, char *err, size_t errlen);
void corpus_free(Corpus *c);

/* French tokens j of pair p aligned to English token i: 1 if linked. */
int corpus_linked(const Corpus *c, int p, int i, int j);

/* Deterministic random numbers for sampling (xorshift64*). */
typedef struct { uint64_t s; } CorpusRng;
void corpus_rng_seed(CorpusRng *r, uint64_t seed);
uint32_t corpus_rng_next(CorpusRng *r);

#endif
