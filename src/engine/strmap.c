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

/* The slot holding key s, or the empty slot where it would go (m->tcap > 0). */
static int *find_slot(const StrMap *m, const char *s, size_t n)
{
    unsigned mask = (unsigned)m->tcap - 1;
    for (unsigned h = strmap_hash(s, n) & mask;; h = (h + 1) & mask) {
        int at = m->slot[h];
        if (at < 0 || (strlen(m->keys[at]) == n && memcmp(m->keys[at], s, n) == 0))
            return &m->slot[h];
    }
}

int strmap_index(const StrMap *m, const char *s, size_t n)
{
    return m->tcap ? *find_slot(m, s, n) : -1;
}

int strmap_get(const StrMap *m, const char *s, size_t n)
{
    int i = strmap_index(m, s, n);
    return i < 0 ? -1 : m->vals[i];
}

/* Rebuilds the slots with tcap entries. 0, or -1 out of memory (m unchanged). */
static int rehash(StrMap *m, int tcap)
{
    int *slot = malloc(sizeof *slot * (size_t)tcap), *old = m->slot;
    if (!slot)
        return -1;
    for (int i = 0; i < tcap; i++)
        slot[i] = -1;
    m->slot = slot;
    m->tcap = tcap;
    for (int i = 0; i < m->n; i++)
        *find_slot(m, m->keys[i], strlen(m->keys[i])) = i;
    free(old);
    return 0;
}

int strmap_put(StrMap *m, const char *s, size_t n, int val, int *added)
{
    if (added)
        *added = 0;
    int at = strmap_index(m, s, n);
    if (at >= 0)
        return at;
    if (2 * (m->n + 1) > m->tcap && rehash(m, m->tcap ? 2 * m->tcap : 64))
        return -1;
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 64;
        char **nk = realloc(m->keys, sizeof *nk * (size_t)cap);
        if (!nk)
            return -1;
        m->keys = nk;
        int *nv = realloc(m->vals, sizeof *nv * (size_t)cap);
        if (!nv)
            return -1;
        m->vals = nv;
        m->cap = cap;
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, n);
    copy[n] = 0;
    *find_slot(m, s, n) = m->n;
    m->keys[m->n] = copy;
    m->vals[m->n] = val;
    if (added)
        *added = 1;
    return m->n++;
}

void strmap_free(StrMap *m)
{
    for (int i = 0; i < m->n; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->vals);
    free(m->slot);
    memset(m, 0, sizeof *m);
}
