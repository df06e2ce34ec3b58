/* vocab.h - word-level vocabulary and tokenizer: lowercase, punctuation as its own token,
 * <unk> for unknown words (reported), <pad> for padding. No curses, no printing. */
#ifndef ATTEND_VOCAB_H
#define ATTEND_VOCAB_H

#include <stddef.h>

#define VOCAB_PAD "<pad>"
#define VOCAB_UNK "<unk>"
#define VOCAB_MASK "<mask>"   /* the masked-LM blank (encoder models) */
#define VOCAB_WORD_MAX 48     /* longest word kept; longer words are <unk> */
#define VOCAB_MAX_UNKNOWN 8   /* unknown words remembered for the message */

/* What tokenizing a text found besides the ids. */
typedef struct {
    int n_tokens;                         /* tokens in the whole text (may exceed max_ids) */
    int truncated;                        /* 1 if n_tokens > max_ids */
    int n_unknown;                        /* tokens mapped to <unk> */
    char unknown[VOCAB_MAX_UNKNOWN][VOCAB_WORD_MAX + 1]; /* the first unknown words */
} TokenizeInfo;

typedef struct {
    int n;            /* number of words */
    char **words;     /* (n) owned strings, id -> word */
    int *table;       /* (cap) open-addressing hash: word index or -1 */
    int cap;
    int pad_id, unk_id;
    /* A model's own tokenizer (a Hugging Face directory's, hf_tokenizer.c), or NULL:
     * vocab_tokenize hands the text to tok_encode, and vocab_free calls tok_free. */
    void *tok;
    int (*tok_encode)(const void *tok, const char *text, int *ids, int max_ids,
                      TokenizeInfo *info);
    void (*tok_free)(void *tok);
} Vocab;


/* Builds a vocabulary from n words (copied). Fails if <pad> or <unk> is missing, a word is
 * empty, too long, repeated or contains whitespace (which the tokenizer never produces). Returns 0, or -1 with a message in err. */
int vocab_init(Vocab *v, const char *const *words, int n, char *err, size_t errlen);
/* Reads one word per line (blank lines and lines starting with '#' skipped) from a regular
 * file of at most FILEIO_MAX_BYTES. */
int vocab_load_file(Vocab *v, const char *path, char *err, size_t errlen);
void vocab_free(Vocab *v);
/* Takes over words (n owned strings, and the array) as the vocabulary without checking them:
 * a model's own tokens, shown as they read (" cat"). No <pad> (pad_id -1); unk_id is the id of
 * unk or -1. 0, or -1 with a message (words freed). */
int vocab_adopt(Vocab *v, char **words, int n, const char *unk, char *err, size_t errlen);
/* Id of a word (exact match), or -1. */
int vocab_id(const Vocab *v, const char *word);
/* Word of an id; "<?>" when out of range. Borrowed. */
const char *vocab_word(const Vocab *v, int id);
/* Splits text into tokens: ASCII letters lowercased, whitespace separates, every ASCII
 * punctuation character is a token of its own, except that "<pad>", "<unk>" and "<mask>"
 * written in the text are the special tokens. Writes at most max_ids ids; returns the number written.
 * info (may be NULL) says how many tokens there were and which words were unknown. */
int vocab_tokenize(const Vocab *v, const char *text, int *ids, int max_ids, TokenizeInfo *info);
/* Splits text into token strings without a vocabulary (same rules); calls fn for each. */
void vocab_split(const char *text, void (*fn)(const char *tok, void *ctx), void *ctx);

#endif
