/* hf_tokenizer.h - Hugging Face tokenizers: tokenizer.json (byte-level BPE with the file's
 * pre-tokenizer regex through libpcre2, or SentencePiece-style BPE with byte fallback), or
 * GPT-2's vocab.json + merges.txt; added/special tokens; the BOS the model adds. No curses,
 * no printing, no exit(). */
#ifndef ATTEND_HF_TOKENIZER_H
#define ATTEND_HF_TOKENIZER_H

#include <stddef.h>

#include "vocab.h"

typedef struct HfTok HfTok;

/* The longest token text kept (longer pieces are cut for display only). */
#define HF_TOK_MAX_PIECE 256

/* Parses a tokenizer.json text (name is used in messages). 0 with *out (free with
 * hf_tok_free), or -1 with "NAME: key: message" naming what is wrong or unsupported. */
int hf_tok_parse_json(HfTok **out, const char *name, const char *text, size_t len, char *err,
                      size_t errlen);
/* Loads dir/tokenizer.json, else dir/vocab.json + dir/merges.txt (GPT-2's files). bos_id (or
 * -1): the model's BOS, added first when tokenizer.json's post-processor adds it. */
int hf_tok_load_dir(HfTok **out, const char *dir, int bos_id, char *err, size_t errlen);
/* Loads GPT-2's vocab.json (token -> id) and merges.txt. */
int hf_tok_load_gpt2(HfTok **out, const char *vocab_json, const char *merges_txt, char *err,
                     size_t errlen);
/* Token ids of text (at most max_ids written; the count found in info->n_tokens, truncated
 * set when more). Returns the number written. Invalid UTF-8 reads as U+FFFD. */
int hf_tok_encode(const HfTok *t, const char *text, int *ids, int max_ids, TokenizeInfo *info);
/* The readable text of token id (" cat" for "Ġcat", "\n" shown as "\\n"), written into buf. */
void hf_tok_readable(const HfTok *t, int id, char *buf, size_t n);
/* Ids the tokenizer knows (its vocabulary and added tokens: 1 + the largest id). */
int hf_tok_size(const HfTok *t);
/* Makes v the vocabulary of vocab_size ids shown as readable text, with t as its tokenizer
 * (v owns t from here, also on failure). 0 or -1 with a message. */
int hf_tok_vocab(HfTok *t, int vocab_size, Vocab *v, char *err, size_t errlen);
void hf_tok_free(HfTok *t);

#endif
