/* strmap.c - the one string map (strmap.h). */
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a of n bytes. */
static unsigned strmap_hash(const char *s, size_t n)
{
    unsigned h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* The slot holding key s (n bytes, hash h), or the empty slot where it would go (tcap > 0). */
static int *find_slot(const StrMap *m, const char *s, size_t n, unsigned h)
{
    unsigned mask = (unsigned)m->tcap - 1;
    for (unsigned i = h & mask;; i = (i + 1) & mask) {
        int at = m->slot[i];
        if (at < 0 || (m->hash[at] == h && m->len[at] == n && memcmp(m->keys[at], s, n) == 0))
            return &m->slot[i];
    }
}

int strmap_index(const StrMap *m, const char *s, size_t n)
{
    return m->tcap ? *find_slot(m, s, n, strmap_hash(s, n)) : -1;
}

int strmap_get(const StrMap *m, const char *s, size_t n)
{
    int i = strmap_index(m, s, n);
    return i < 0 ? -1 : m->vals[i];
}

/* Rebuilds the slots with tcap entries from the kept hashes. 0, or -1 out of memory (m
 * unchanged). */
static int rehash(StrMap *m, int tcap)
{
    int *slot = malloc(sizeof *slot * (size_t)tcap);
    if (!slot)
        return -1;
    for (int i = 0; i < tcap; i++)
        slot[i] = -1;
    unsigned mask = (unsigned)tcap - 1;
    for (int k = 0; k < m->n; k++) { /* every key is distinct: its first empty slot */
        unsigned i = m->hash[k] & mask;
        while (slot[i] >= 0)
            i = (i + 1) & mask;
        slot[i] = k;
    }
    free(m->slot);
    m->slot = slot;
    m->tcap = tcap;
    return 0;
}

/* Room for cap keys in keys/vals/hash/len. 0, or -1 out of memory (the arrays grown so far
 * are kept: m stays consistent with its old cap). */
static int grow(StrMap *m, int cap)
{
    if (cap <= m->cap)
        return 0;
    char **nk = realloc(m->keys, sizeof *nk * (size_t)cap);
    if (!nk)
        return -1;
    m->keys = nk;
    int *nv = realloc(m->vals, sizeof *nv * (size_t)cap);
    if (!nv)
        return -1;
    m->vals = nv;
    unsigned *nh = realloc(m->hash, sizeof *nh * (size_t)cap);
    if (!nh)
        return -1;
    m->hash = nh;
    unsigned *nl = realloc(m->len, sizeof *nl * (size_t)cap);
    if (!nl)
        return -1;
    m->len = nl;
    m->cap = cap;
    return 0;
}

/* A new block of at least need bytes (after its link). 0, or -1 out of memory. */
static int new_block(StrMap *m, size_t need)
{
    size_t cap = m->pool_cap ? 2 * m->pool_cap : 4096;
    if (cap > ((size_t)1 << 24))
        cap = (size_t)1 << 24;
    if (cap < need + sizeof(char *))
        cap = need + sizeof(char *);
    char *b = malloc(cap);
    if (!b)
        return -1;
    memcpy(b, &m->pool, sizeof(char *));
    m->pool = b;
    m->pool_used = sizeof(char *);
    m->pool_cap = cap;
    return 0;
}

int strmap_reserve(StrMap *m, int n, size_t bytes)
{
    if (n < 0 || grow(m, n))
        return -1;
    int tcap = m->tcap ? m->tcap : 64;
    while (tcap <= 2 * n)
        tcap *= 2;
    if (tcap > m->tcap && rehash(m, tcap))
        return -1;
    if (bytes > m->pool_cap - m->pool_used && new_block(m, bytes))
        return -1;
    return 0;
}

int strmap_put(StrMap *m, const char *s, size_t n, int val, int *added)
{
    if (added)
        *added = 0;
    unsigned h = strmap_hash(s, n);
    int *slot = m->tcap ? find_slot(m, s, n, h) : NULL; /* the empty slot, while no rehash */
    if (slot && *slot >= 0)
        return *slot;
    if (n > 0xffffffffu)
        return -1;
    if (m->n == m->cap && grow(m, m->cap ? 2 * m->cap : 64))
        return -1;
    if (2 * (m->n + 1) > m->tcap) {
        if (rehash(m, m->tcap ? 2 * m->tcap : 64))
            return -1;
        slot = NULL;
    }
    if (n + 1 > m->pool_cap - m->pool_used && new_block(m, n + 1))
        return -1;
    char *copy = m->pool + m->pool_used;
    m->pool_used += n + 1;
    memcpy(copy, s, n);
    copy[n] = 0;
    *(slot ? slot : find_slot(m, s, n, h)) = m->n;
    m->keys[m->n] = copy;
    m->vals[m->n] = val;
    m->hash[m->n] = h;
    m->len[m->n] = (unsigned)n;
    if (added)
        *added = 1;
    return m->n++;
}

void strmap_free(StrMap *m)
{
    for (char *b = m->pool, *prev; b; b = prev) {
        memcpy(&prev, b, sizeof prev);
        free(b);
    }
    free(m->keys);
    free(m->vals);
    free(m->slot);
    free(m->hash);
    free(m->len);
    memset(m, 0, sizeof *m);
}
