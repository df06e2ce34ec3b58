/* subword.c - training a WordPiece vocabulary: word counts, whole words, BPE merges (subword.h). */
#include "subword.h"

#include "fileio.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a string -> index table (open addressing), for words and symbols ---- */

typedef struct {
    char **s;      /* (n) owned strings */
    long *count;   /* (n) how often each occurred */
    int n, cap;    /* used, allocated entries of s and count */
    int *slot;     /* (tcap) index into s, or -1 */
    int tcap;
} StrTab;

static unsigned str_hash(const char *s)
{
    unsigned h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static void tab_free(StrTab *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->count);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

static int tab_grow(StrTab *t)
{
    int tcap = t->tcap ? t->tcap * 2 : 1024;
    int *slot = malloc(sizeof *slot * (size_t)tcap);
    if (!slot)
        return -1;
    for (int i = 0; i < tcap; i++)
        slot[i] = -1;
    for (int i = 0; i < t->n; i++) {
        unsigned h = str_hash(t->s[i]) & (unsigned)(tcap - 1);
        while (slot[h] >= 0)
            h = (h + 1) & (unsigned)(tcap - 1);
        slot[h] = i;
    }
    free(t->slot);
    t->slot = slot;
    t->tcap = tcap;
    return 0;
}

/* The index of s, added (count 0) when absent and add is set; -1 when absent or out of memory. */
static int tab_find(StrTab *t, const char *s, int add)
{
    if (t->tcap) {
        unsigned h = str_hash(s) & (unsigned)(t->tcap - 1);
        for (; t->slot[h] >= 0; h = (h + 1) & (unsigned)(t->tcap - 1))
            if (strcmp(t->s[t->slot[h]], s) == 0)
                return t->slot[h];
    }
    if (!add)
        return -1;
    if (2 * (t->n + 1) > t->tcap && tab_grow(t))
        return -1;
    if (t->n == t->cap) {
        int cap = t->cap ? t->cap * 2 : 1024;
        char **ns = realloc(t->s, sizeof *ns * (size_t)cap);
        if (ns)
            t->s = ns;
        long *nc = realloc(t->count, sizeof *nc * (size_t)cap);
        if (nc)
            t->count = nc;
        if (!ns || !nc)
            return -1;
        t->cap = cap;
    }
    char *copy = strdup(s);
    if (!copy)
        return -1;
    unsigned h = str_hash(s) & (unsigned)(t->tcap - 1);
    while (t->slot[h] >= 0)
        h = (h + 1) & (unsigned)(t->tcap - 1);
    t->slot[h] = t->n;
    t->s[t->n] = copy;
    t->count[t->n] = 0;
    return t->n++;
}

/* ---- counting the words of the text ---- */

typedef struct {
    StrTab *words;
    int failed;
} CountCtx;

static void count_word(const char *tok, void *vctx)
{
    CountCtx *c = vctx;
    unsigned char f = (unsigned char)tok[0];
    if ((f < 128 && ispunct(f)) || tok[0] == '<')
        return; /* punctuation and special tokens are in the vocabulary already */
    int i = tab_find(c->words, tok, 1);
    if (i < 0)
        c->failed = 1;
    else
        c->words->count[i]++;
}

/* Sorts word indices by count descending, then bytewise. */
static const StrTab *g_sort_tab;
static int by_count(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    long ci = g_sort_tab->count[i], cj = g_sort_tab->count[j];
    if (ci != cj)
        return ci > cj ? -1 : 1;
    return strcmp(g_sort_tab->s[i], g_sort_tab->s[j]);
}

/* ---- the base tokens ---- */

/* 1 if a word's byte b is a letter or digit piece (else it is a byte token). */
static int is_alnum_piece(unsigned char b)
{
    return (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9');
}

/* 1 if byte b can sit inside a word and is no letter or digit: a byte token. */
static int is_byte_token(unsigned b)
{
    return b != 0 && !isspace((int)b) && !(b < 128 && ispunct((int)b)) &&
           !is_alnum_piece((unsigned char)b) && !(b >= 'A' && b <= 'Z');
}

/* Adds the special tokens, punctuation, letters, digits and byte tokens to out. */
static int add_base(StrTab *out)
{
    static const char *const SPECIAL[] = {VOCAB_PAD, VOCAB_UNK, "<bos>", "<eos>"};
    char t[16];
    for (int i = 0; i < 4; i++)
        if (tab_find(out, SPECIAL[i], 1) < 0)
            return -1;
    for (int b = 33; b < 127; b++) {
        t[0] = (char)b;
        t[1] = 0;
        if (ispunct(b) && tab_find(out, t, 1) < 0)
            return -1;
    }
    for (int cont = 0; cont < 2; cont++)
        for (int b = '0'; b <= 'z'; b++) {
            if (!is_alnum_piece((unsigned char)b))
                continue;
            snprintf(t, sizeof t, "%s%c", cont ? VOCAB_CONT : "", b);
            if (tab_find(out, t, 1) < 0)
                return -1;
        }
    for (unsigned b = 1; b < 256; b++) {
        snprintf(t, sizeof t, "<0x%02X>", b);
        if (is_byte_token(b) && tab_find(out, t, 1) < 0)
            return -1;
    }
    return 0;
}

/* ---- BPE merges over the words not kept whole ---- */

typedef struct {
    int *sym;      /* (total) symbol ids, word after word */
    int *off;      /* (n + 1) where each word starts in sym */
    int *len;      /* (n) its current length in symbols */
    long *count;   /* (n) its count in the text */
    int n;
    StrTab syms;   /* symbol id -> piece ("a", "##bc", "<0xC3>") */
} Words;

/* A pair's count in the open-addressing pair table. */
typedef struct {
    uint64_t key; /* (left << 32 | right) + 1; 0 = empty */
    long count;
} PairSlot;

#define PAIR_BITS 21

/* The symbol of byte b at position pos of a word. */
static int base_symbol(Words *w, unsigned char b, int pos)
{
    char t[16];
    if (is_alnum_piece(b))
        snprintf(t, sizeof t, "%s%c", pos ? VOCAB_CONT : "", b);
    else
        snprintf(t, sizeof t, "<0x%02X>", b);
    return tab_find(&w->syms, t, 1);
}

/* Splits each word not in keep (count >= 1, length <= VOCAB_WORD_MAX) into byte symbols. */
static int words_build(Words *w, const StrTab *all, const StrTab *keep)
{
    memset(w, 0, sizeof *w);
    size_t total = 0;
    for (int i = 0; i < all->n; i++)
        total += strlen(all->s[i]);
    w->sym = malloc(sizeof *w->sym * (total + 1));
    w->off = malloc(sizeof *w->off * ((size_t)all->n + 1));
    w->len = malloc(sizeof *w->len * ((size_t)all->n + 1));
    w->count = malloc(sizeof *w->count * ((size_t)all->n + 1));
    if (!w->sym || !w->off || !w->len || !w->count)
        return -1;
    int o = 0;
    for (int i = 0; i < all->n; i++) {
        const char *s = all->s[i];
        size_t l = strlen(s);
        if (l > VOCAB_WORD_MAX || tab_find((StrTab *)keep, s, 0) >= 0)
            continue;
        w->off[w->n] = o;
        w->len[w->n] = (int)l;
        w->count[w->n] = all->count[i];
        for (size_t k = 0; k < l; k++) {
            int id = base_symbol(w, (unsigned char)s[k], (int)k);
            if (id < 0)
                return -1;
            w->sym[o++] = id;
        }
        w->n++;
    }
    w->off[w->n] = o;
    return 0;
}

static void words_free(Words *w)
{
    free(w->sym);
    free(w->off);
    free(w->len);
    free(w->count);
    tab_free(&w->syms);
    memset(w, 0, sizeof *w);
}

/* The piece made by joining symbols a and b ("ab" + "##c" = "abc"), or "" when either is a
 * byte token or the piece would be too long. */
static void joined(const Words *w, int a, int b, char *out)
{
    const char *x = w->syms.s[a], *y = w->syms.s[b];
    size_t cl = strlen(VOCAB_CONT);
    out[0] = 0;
    if (x[0] == '<' || y[0] == '<' || strncmp(y, VOCAB_CONT, cl) != 0)
        return;
    size_t xl = strlen(x), yl = strlen(y) - cl;
    if (xl + yl > VOCAB_WORD_MAX)
        return;
    memcpy(out, x, xl);
    memcpy(out + xl, y + cl, yl + 1);
}

/* Counts every adjacent mergeable pair (weighted by word count) and returns the best: the
 * highest count, then the bytewise-smallest joined piece. *best_count 0 when none. */
static uint64_t best_pair(const Words *w, PairSlot *tab, int *used, long *best_count)
{
    uint64_t mask = (1u << PAIR_BITS) - 1;
    int n_used = 0;
    uint64_t best = 0;
    char bj[VOCAB_WORD_MAX + 1] = "", cj[VOCAB_WORD_MAX + 1];
    *best_count = 0;
    for (int i = 0; i < w->n; i++) {
        const int *s = w->sym + w->off[i];
        for (int k = 0; k + 1 < w->len[i]; k++) {
            uint64_t key = ((uint64_t)(uint32_t)s[k] << 32 | (uint32_t)s[k + 1]) + 1;
            uint64_t h = (key * 0x9E3779B97F4A7C15ull) >> (64 - PAIR_BITS);
            while (tab[h].key && tab[h].key != key)
                h = (h + 1) & mask;
            if (!tab[h].key) {
                if (n_used >= (1 << (PAIR_BITS - 1)))
                    continue; /* table half full: the rarest pairs wait for a later round */
                tab[h].key = key;
                used[n_used++] = (int)h;
            }
            tab[h].count += w->count[i];
        }
    }
    for (int u = 0; u < n_used; u++) {
        PairSlot *p = &tab[used[u]];
        if (p->count >= *best_count) {
            int a = (int)((p->key - 1) >> 32), b = (int)((p->key - 1) & 0xffffffffu);
            joined(w, a, b, cj);
            if (cj[0] && (p->count > *best_count || strcmp(cj, bj) < 0)) {
                *best_count = p->count;
                best = p->key;
                memcpy(bj, cj, sizeof bj);
            }
        }
        p->key = 0;
        p->count = 0;
    }
    return best;
}

/* Replaces every adjacent (a, b) in every word by c, left to right. */
static void apply_merge(Words *w, int a, int b, int c)
{
    for (int i = 0; i < w->n; i++) {
        int *s = w->sym + w->off[i], o = 0;
        for (int k = 0; k < w->len[i]; k++) {
            if (k + 1 < w->len[i] && s[k] == a && s[k + 1] == b) {
                s[o++] = c;
                k++;
            } else {
                s[o++] = s[k];
            }
        }
        w->len[i] = o;
    }
}

/* Learns up to n merges, adding each new piece to out. */
static int learn_pieces(Words *w, int n, StrTab *out)
{
    PairSlot *tab = calloc((size_t)1 << PAIR_BITS, sizeof *tab);
    int *used = malloc(sizeof *used << (PAIR_BITS - 1));
    int rc = tab && used ? 0 : -1;
    for (int added = 0; rc == 0 && added < n;) {
        long cnt;
        uint64_t key = best_pair(w, tab, used, &cnt);
        if (cnt < 2)
            break;
        int a = (int)((key - 1) >> 32), b = (int)((key - 1) & 0xffffffffu);
        char piece[VOCAB_WORD_MAX + 1];
        joined(w, a, b, piece);
        int c = tab_find(&w->syms, piece, 1);
        if (c < 0) {
            rc = -1;
            break;
        }
        apply_merge(w, a, b, c);
        if (tab_find(out, piece, 0) < 0) {
            if (tab_find(out, piece, 1) < 0)
                rc = -1;
            added++;
        }
    }
    free(tab);
    free(used);
    return rc;
}

int subword_train(const char *text, const SubwordOpts *o, Vocab *out, char *err, size_t errlen)
{
    StrTab words = {0}, toks = {0};
    Words w = {0};
    int *order = NULL, rc = -1;
    memset(out, 0, sizeof *out);
    if (o->n_words < 0 || o->n_pieces < 0 || o->min_count < 1) {
        snprintf(err, errlen, "subword: n_words and n_pieces must be >= 0, min_count >= 1");
        return -1;
    }
    CountCtx cc = {&words, 0};
    vocab_split(text, count_word, &cc);
    if (cc.failed || add_base(&toks))
        goto oom;
    order = malloc(sizeof *order * ((size_t)words.n + 1));
    if (!order)
        goto oom;
    for (int i = 0; i < words.n; i++)
        order[i] = i;
    g_sort_tab = &words;
    qsort(order, (size_t)words.n, sizeof *order, by_count);
    for (int i = 0, kept = 0; i < words.n && kept < o->n_words; i++) {
        const char *s = words.s[order[i]];
        if (words.count[order[i]] < o->min_count)
            break;
        if (strlen(s) > VOCAB_WORD_MAX || tab_find(&toks, s, 0) >= 0)
            continue;
        if (tab_find(&toks, s, 1) < 0)
            goto oom;
        kept++;
    }
    if (words_build(&w, &words, &toks) || learn_pieces(&w, o->n_pieces, &toks))
        goto oom;
    char e2[200];
    rc = vocab_init_kind(out, VOCAB_WORDPIECE, (const char *const *)toks.s, toks.n, e2,
                         sizeof e2);
    if (rc)
        snprintf(err, errlen, "subword: %s", e2);
    goto done;
oom:
    snprintf(err, errlen, "subword: out of memory");
done:
    free(order);
    words_free(&w);
    tab_free(&words);
    tab_free(&toks);
    return rc;
}

int subword_save(const Vocab *v, const char *path, char *err, size_t errlen)
{
    FileioTmp t;
    if (fileio_tmp_open(&t, path, 0644, err, errlen))
        return -1;
    int bad = 0;
    if (v->kind == VOCAB_WORDPIECE)
        bad |= fileio_write_all(t.fd, VOCAB_DIRECTIVE "\n", strlen(VOCAB_DIRECTIVE) + 1);
    for (int i = 0; i < v->n && !bad; i++) {
        if (v->kind == VOCAB_WORDS && v->words[i][0] == '#') {
            snprintf(err, errlen, "%s: cannot save: the word-level vocabulary file format "
                     "cannot hold \"%s\" (a line starting with '#' is a comment)", path,
                     v->words[i]);
            fileio_tmp_abort(&t);
            return -1;
        }
        bad |= fileio_write_all(t.fd, v->words[i], strlen(v->words[i]));
        bad |= fileio_write_all(t.fd, "\n", 1);
    }
    if (bad) {
        snprintf(err, errlen, "%s: cannot save: %s", path, strerror(errno));
        fileio_tmp_abort(&t);
        return -1;
    }
    return fileio_tmp_commit(&t, err, errlen);
}
