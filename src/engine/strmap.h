/* strmap.h - the one string map: a hash map from a string (any bytes but NUL, given with its
 * length) to an int, keys copied and kept in insertion order, so key i is also an index
 * (the vocabulary's word -> id, the Hugging Face tokenizer's token -> id and merge -> rank,
 * the subword trainer's words and their counts, progress's lesson id -> record). Open
 * addressing, FNV-1a, at most half full; each key's hash and length are kept beside it (a
 * probe compares hashes, never re-measures a key) and the keys' bytes live in a few large
 * blocks, not one allocation each (GPT-2's 50,257 tokens and 50,000 merges load in one pass).
 * No curses, no printing. */
#ifndef ATTEND_STRMAP_H
#define ATTEND_STRMAP_H

#include <stddef.h>

typedef struct {
    char **keys;      /* (n) NUL-terminated copies, in insertion order, in the blocks below */
    int *vals;        /* (n) the value of keys[i] */
    int n, cap;       /* keys used, allocated */
    int *slot;        /* (tcap) an index into keys, or -1 when empty */
    int tcap;         /* 0 or a power of two, more than twice n */
    unsigned *hash;   /* (cap) the hash of keys[i] */
    unsigned *len;    /* (cap) the length of keys[i] */
    char *pool;       /* the current block: its first bytes link to the previous block */
    size_t pool_used, pool_cap;
} StrMap;

/* The index of key s (n bytes) in m->keys, or -1 when absent. A zeroed StrMap is empty. */
int strmap_index(const StrMap *m, const char *s, size_t n);
/* The value of key s (n bytes), or -1 when absent. */
int strmap_get(const StrMap *m, const char *s, size_t n);
/* Adds s (n bytes, copied) -> val when absent and returns its index (m->n - 1); when s is
 * there already, returns its index and leaves its value. *added (may be NULL) is 1 when
 * added. -1 when out of memory (m unchanged). */
int strmap_put(StrMap *m, const char *s, size_t n, int val, int *added);
/* Makes room for n keys in all (their bytes about `bytes` in all; 0 when unknown), so that
 * many puts allocate nothing more. 0, or -1 out of memory (m unchanged, still usable). */
int strmap_reserve(StrMap *m, int n, size_t bytes);
/* Frees the keys and tables; m is empty (zeroed) after. */
void strmap_free(StrMap *m);

#endif
