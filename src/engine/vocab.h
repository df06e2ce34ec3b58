/* vocab.h - the vocabulary and tokenizer: lowercase, punctuation as its own token, <pad> for
 * padding; a word-level vocabulary says <unk> for unknown words (reported), a WordPiece one
 * splits them into known pieces and bytes. No curses, no printing. */
#ifndef ATTEND_VOCAB_H
#define ATTEND_VOCAB_H

#include <stddef.h>

#include "strmap.h"

#define VOCAB_PAD "<pad>"
#define VOCAB_UNK "<unk>"
#define VOCAB_MASK "<mask>"   /* the masked-LM blank (encoder models) */
#define VOCAB_WORD_MAX 48     /* longest word kept; longer words are <unk> */
#define VOCAB_MAX_UNKNOWN 8   /* unknown words remembered for the message */
#define VOCAB_CONT "##"       /* WordPiece: a piece that continues a word ("##ing") */
#define VOCAB_DIRECTIVE "#tokenizer: wordpiece" /* first line of a WordPiece vocabulary file */

/* How a vocabulary turns a word into tokens. */
typedef enum {
    VOCAB_WORDS,     /* one token per word; unknown words are <unk> (the course's old models) */
    VOCAB_WORDPIECE  /* a known word is one token; any other is split into known pieces:
                        the first piece as is, the next ones "##piece"; a byte no piece covers
                        is its byte token: never <unk> when the vocabulary has every letter
                        and digit in both forms and the byte tokens (vocab_tokenize) */
} VocabKind;

/* What tokenizing a text found besides the ids. */
typedef struct {
    int n_tokens;                         /* tokens in the whole text (may exceed max_ids) */
    int truncated;                        /* 1 if n_tokens > max_ids */
    int n_unknown;                        /* tokens mapped to <unk> */
    int n_split;                          /* words written as two or more pieces (WordPiece) */
    char unknown[VOCAB_MAX_UNKNOWN][VOCAB_WORD_MAX + 1]; /* the first unknown words */
    int stopped;                          /* 1: the tokenizer stopped counting past max_ids
                                             (truncated; n_tokens is then a lower bound) */
    char error[240];                      /* "" or why the text was refused (a limit of a
                                             model's own tokenizer, named); no ids then */
} TokenizeInfo;

typedef struct {
    VocabKind kind;
    int n;            /* number of words */
    char **words;     /* (n) owned strings, id -> word */
    StrMap map;       /* word -> id (the first id of a word two ids spell alike) */
    int words_in_map; /* 1: words[i] are the map's copies (vocab_push), not freed one by one */
    int cap;          /* room in words (vocab_start) */
    int pad_id, unk_id;
    int cont_bytes;   /* 1: the vocabulary marks a byte inside a word "##<0xHH>" (a plain
                         "<0xHH>" starts a word) and is split naturally (vocab_tokenize);
                         0: a plain byte token may continue a word, the split is greedy */
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
/* vocab_init for a vocabulary of the given kind. */
int vocab_init_kind(Vocab *v, VocabKind kind, const char *const *words, int n, char *err,
                    size_t errlen);
/* Reads one word per line from a regular file of at most FILEIO_MAX_BYTES. A word-level
 * file skips blank lines and lines starting with '#'; a file whose first line is
 * VOCAB_DIRECTIVE is a WordPiece vocabulary, where only blank lines are skipped (so "#" can
 * be a token). */
int vocab_load_file(Vocab *v, const char *path, char *err, size_t errlen);
void vocab_free(Vocab *v);
/* An empty vocabulary for a model's own tokens, shown as they read (" cat"), filled in id
 * order by vocab_push without checking them: room for n words of about `bytes` bytes in all.
 * No <pad> (pad_id -1), no <unk> (unk_id -1: the caller sets it). 0, or -1 with a message
 * (v empty; vocab_free it). */
int vocab_start(Vocab *v, int n, size_t bytes, char *err, size_t errlen);
/* Appends word w (len bytes, no NUL inside) as the next id (v->n before the call): copied
 * once, into the word -> id map (the first id of a word two ids spell alike keeps it), and
 * words[id] is that copy (owned by the map: v->words_in_map). 0, or -1 out of memory. */
int vocab_push(Vocab *v, const char *w, size_t len, char *err, size_t errlen);
/* Id of a word (exact match), or -1. */
int vocab_id(const Vocab *v, const char *word);
/* Word of an id; "<?>" when out of range. Borrowed. */
const char *vocab_word(const Vocab *v, int id);
/* "words" or "wordpiece": the name model files use (VOCAB_WORDS is written as no name). */
const char *vocab_kind_name(VocabKind k);
/* The kind called name, or -1. */
int vocab_kind_parse(const char *name);
/* Writes the text of ids into buf (always terminated): tokens separated by one space, except
 * that a token that joins the token before (vocab_joins_prev) does, a byte token written as
 * its byte; a model's own tokenizer's tokens are written one after the other, as they read.
 * Returns the length written. */
size_t vocab_join(const Vocab *v, const int *ids, int n, char *buf, size_t len);
/* 1 if id joins the token before it into one word: a WordPiece continuation ("##...",
 * "##<0xHH>"), a plain byte token ("<0xHH>") in a vocabulary without cont_bytes (there a
 * word that starts with a non-ASCII character comes back glued to the word before it); every
 * token of a model's own tokenizer (tok_encode), whose tokens carry their spaces (" cat"). */
int vocab_joins_prev(const Vocab *v, int id);
/* Splits text into tokens: ASCII letters lowercased, whitespace separates, every ASCII
 * punctuation character is a token of its own, except that "<pad>", "<unk>" and "<mask>"
 * written in the text are the special tokens (in a WordPiece vocabulary that lacks one, it
 * reads as its characters: "<", "mask", ">"); then each word is one token (VOCAB_WORDS, or
 * <unk>) or its WordPiece pieces. A WordPiece vocabulary that marks inner bytes ("##<0xHH>",
 * cont_bytes) splits a word naturally: a number is whole or its digits ("1 ##7 ##8 ##9"), a
 * letter after a digit starts a piece, the letters take the fewest known pieces (of as many,
 * the split whose earlier pieces are longer: "love ##s"), a byte no piece covers is "<0xHH>"
 * at the word's start and "##<0xHH>" inside it; an older one takes the longest known piece
 * from the left, again and again (greedy), a byte as "<0xHH>" anywhere. Writes at most
 * max_ids ids; returns the number written.
 * info (may be NULL) says how many tokens there were and which words were unknown. */
int vocab_tokenize(const Vocab *v, const char *text, int *ids, int max_ids, TokenizeInfo *info);
/* The token count of info for a message: "12", or "more than 1024" when the tokenizer stopped
 * counting past the limit (info->stopped). Returns buf. */
const char *vocab_count_text(const TokenizeInfo *info, char *buf, size_t n);
/* Whether tokenizing a text into n ids (at most cap) went wrong: 1 with "the WHAT: <the
 * tokenizer's error>", "the WHAT has N tokens; this model reads at most CAP" or "the WHAT has
 * no tokens" in buf, else 0. */
int vocab_tokenize_problem(const TokenizeInfo *info, int n, int cap, const char *what,
                           char *buf, size_t len);
/* Splits text into words without a vocabulary (the same rules before any word is split into
 * pieces; a word is cut at 199 bytes); calls fn for each. */
void vocab_split(const char *text, void (*fn)(const char *tok, void *ctx), void *ctx);

#endif
