/* subword.h - training a WordPiece vocabulary (vocab.h's VOCAB_WORDPIECE) on a text: the most
 * frequent words whole, BPE merges on the others for the pieces. No curses, no printing. */
#ifndef ATTEND_SUBWORD_H
#define ATTEND_SUBWORD_H

#include <stddef.h>

#include "vocab.h"

typedef struct {
    int n_words;    /* whole words kept, the most frequent first */
    int min_count;  /* a whole word occurs at least this often */
    int n_pieces;   /* pieces learned by BPE merges over the other words (fewer when no pair
                       occurs twice) */
    int natural;    /* 1: a vocabulary for the natural split (vocab_tokenize): a byte inside a
                       word is "##<0xHH>", no piece holds a digit; 0: as before (greedy) */
    const char *const *everyday; /* (n_everyday) words a learner types, kept whole too (after
                       the counted ones, in this order) whether the text has them or not;
                       only words of lowercase ASCII letters are taken; may be NULL */
    int n_everyday;
    const char *const *common; /* (n_common) words kept whole too (after the everyday ones) when
                       the text has them min_count times; may be NULL. natural: an everyday
                       or common word that is a kept word plus an inflection (s, ed, ing, ...)
                       is not kept: it reads as its stem plus a piece ("love ##s") */
    int n_common;
} SubwordOpts;

/* Trains a WordPiece vocabulary on text (split into words by vocab_split's rules). Its tokens,
 * in order: <pad> <unk> <bos> <eos>; every ASCII punctuation character; each letter and
 * digit as a word's first piece ("a") and as a continuation ("##a"); a byte token for every
 * other byte a word can hold ("<0xC3>"; natural: also inside a word, "##<0xA9>"); the whole
 * words (count descending, then bytewise); the everyday words not among them, then the common words the text has min_count times
 * (natural: neither a kept word plus an inflection; then the inflection pieces); the pieces in
 * the order their merges were learned (ties broken bytewise, so the same text gives the same
 * vocabulary; no piece holds a byte, nor, natural, a digit). The result tokenizes any text
 * without <unk>. Returns 0 with out
 * filled (free with vocab_free), or -1 with a message in err. */
int subword_train(const char *text, const SubwordOpts *o, Vocab *out, char *err, size_t errlen);

/* Writes v as a vocabulary file that vocab_load_file reads back (VOCAB_DIRECTIVE first for a
 * WordPiece vocabulary), through a temporary file renamed over path. 0, or -1 with a
 * message. */
int subword_save(const Vocab *v, const char *path, char *err, size_t errlen);

#endif
