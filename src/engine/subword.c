/* subword.c - training a WordPiece vocabulary: word counts, whole words, BPE merges (subword.h). */
#include "subword.h"

#include "fileio.h"
#include "strmap.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The index of s in t (strmap.h), added (count 0) when absent and add is set; -1 when absent
 * or out of memory. */
static int tab_find(StrMap *t, const char *s, int add)
{
    return add ? strmap_put(t, s, strlen(s), 0, NULL) : strmap_index(t, s, strlen(s));
}

/* ---- counting the words of the text ---- */

typedef struct {
    StrMap *words;
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
        c->words->vals[i]++;
}

/* Sorts word indices by count descending, then bytewise. */
static const StrMap *g_sort_tab;
static int by_count(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    int ci = g_sort_tab->vals[i], cj = g_sort_tab->vals[j];
    if (ci != cj)
        return ci > cj ? -1 : 1;
    return strcmp(g_sort_tab->keys[i], g_sort_tab->keys[j]);
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
static int add_base(StrMap *out, int natural)
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
    for (int cont = 0; cont < 1 + (natural != 0); cont++)
        for (unsigned b = 1; b < 256; b++) {
            snprintf(t, sizeof t, "%s<0x%02X>", cont ? VOCAB_CONT : "", b);
            if (is_byte_token(b) && tab_find(out, t, 1) < 0)
                return -1;
        }
    return 0;
}

/* 1 if an everyday word can be a whole word: 1..VOCAB_WORD_MAX lowercase ASCII letters. */
static int everyday_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > VOCAB_WORD_MAX)
        return 0;
    for (; *s; s++)
        if (*s < 'a' || *s > 'z')
            return 0;
    return 1;
}

/* The inflections a kept word may take and still read as itself plus one piece (loves =
 * love ##s); in a natural vocabulary they are pieces whatever the merges learn. */
static const char *const INFLECTIONS[] = {"s", "es", "d", "ed", "ing", "er", "ers", "est",
                                          "ly", "r", "st", "n", "y"};
#define N_INFLECTIONS ((int)(sizeof INFLECTIONS / sizeof *INFLECTIONS))
#define STEM_MIN 3 /* a shorter stem reads as letters, not as a word */

/* The everyday word i of the candidates: o->everyday then o->common. */
static const char *candidate(const SubwordOpts *o, int i)
{
    return i < o->n_everyday ? o->everyday[i] : o->common[i - o->n_everyday];
}

/* Candidate indices by length, then in their order. */
static const SubwordOpts *g_sort_opts;
static int by_length(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    size_t li = strlen(candidate(g_sort_opts, i)), lj = strlen(candidate(g_sort_opts, j));
    return li != lj ? (li < lj ? -1 : 1) : (i > j) - (i < j);
}

/* 1 if s is a word of toks or of keep plus one of the INFLECTIONS. */
static int inflected(const char *s, const StrMap *toks, const StrMap *keep)
{
    size_t n = strlen(s);
    for (int k = 0; k < N_INFLECTIONS; k++) {
        size_t sl = strlen(INFLECTIONS[k]);
        if (n < sl + STEM_MIN || strcmp(s + n - sl, INFLECTIONS[k]) != 0)
            continue;
        if (strmap_index(toks, s, n - sl) >= 0 || strmap_index(keep, s, n - sl) >= 0)
            return 1;
    }
    return 0;
}

/* Adds o's everyday words (all) and common words (those text has min_count times: words) to
 * toks after the counted words, each once, in their order; natural: not a word that is a kept
 * word plus an inflection (decided shortest first, so its stem's fate is known), and the
 * inflections are pieces. 0, or -1 out of memory. */
static int add_everyday(StrMap *toks, const StrMap *words, const SubwordOpts *o)
{
    int n = o->n_everyday + o->n_common, rc = -1;
    int *order = malloc(sizeof *order * ((size_t)n + 1));
    StrMap keep = {0};
    if (!order)
        return -1;
    for (int i = 0; i < n; i++)
        order[i] = i;
    g_sort_opts = o;
    if (o->natural)
        qsort(order, (size_t)n, sizeof *order, by_length);
    for (int r = 0; r < n; r++) {
        const char *s = candidate(o, order[r]);
        if (!everyday_ok(s) || tab_find(toks, s, 0) >= 0)
            continue;
        if (order[r] >= o->n_everyday) {
            int c = strmap_index(words, s, strlen(s));
            if (c < 0 || words->vals[c] < o->min_count)
                continue;
        }
        if (o->natural && inflected(s, toks, &keep))
            continue;
        if (strmap_put(&keep, s, strlen(s), 0, NULL) < 0)
            goto done;
    }
    for (int i = 0; i < n; i++) { /* in the lists' order */
        const char *s = candidate(o, i);
        if (strmap_index(&keep, s, strlen(s)) >= 0 && tab_find(toks, s, 0) < 0 &&
            tab_find(toks, s, 1) < 0)
            goto done;
    }
    for (int k = 0; o->natural && k < N_INFLECTIONS; k++) {
        char t[16];
        snprintf(t, sizeof t, "%s%s", VOCAB_CONT, INFLECTIONS[k]);
        if (tab_find(toks, t, 1) < 0)
            goto done;
    }
    rc = 0;
done:
    free(order);
    strmap_free(&keep);
    return rc;
}

/* ---- BPE merges over the words not kept whole ---- */

typedef struct {
    int *sym;      /* (total) symbol ids, word after word */
    int *off;      /* (n + 1) where each word starts in sym */
    int *len;      /* (n) its current length in symbols */
    long *count;   /* (n) its count in the text */
    int n;
    StrMap syms;   /* symbol id -> piece ("a", "##bc", "<0xC3>") */
    int natural;   /* SubwordOpts.natural */
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
        snprintf(t, sizeof t, "%s<0x%02X>", pos && w->natural ? VOCAB_CONT : "", b);
    return tab_find(&w->syms, t, 1);
}

/* Splits each word not in keep (count >= 1, length <= VOCAB_WORD_MAX) into byte symbols. */
static int words_build(Words *w, const StrMap *all, const StrMap *keep, int natural)
{
    memset(w, 0, sizeof *w);
    w->natural = natural;
    size_t total = 0;
    for (int i = 0; i < all->n; i++)
        total += strlen(all->keys[i]);
    w->sym = malloc(sizeof *w->sym * (total + 1));
    w->off = malloc(sizeof *w->off * ((size_t)all->n + 1));
    w->len = malloc(sizeof *w->len * ((size_t)all->n + 1));
    w->count = malloc(sizeof *w->count * ((size_t)all->n + 1));
    if (!w->sym || !w->off || !w->len || !w->count)
        return -1;
    int o = 0;
    for (int i = 0; i < all->n; i++) {
        const char *s = all->keys[i];
        size_t l = strlen(s);
        if (l > VOCAB_WORD_MAX || strmap_index(keep, s, l) >= 0)
            continue;
        w->off[w->n] = o;
        w->len[w->n] = (int)l;
        w->count[w->n] = all->vals[i];
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
    strmap_free(&w->syms);
    memset(w, 0, sizeof *w);
}

/* 1 if piece x may not be joined: a byte token; in a natural vocabulary, a piece holding a
 * digit too (a number is whole or its digits: vocab.c's split_digits). */
static int unmergeable(const char *x, int natural)
{
    return natural ? strpbrk(x, "0123456789<") != NULL : x[0] == '<';
}

/* The piece made by joining symbols a and b ("ab" + "##c" = "abc"), or "" when either is a
 * byte token or (natural) holds a digit, or the piece would be too long. */
static void joined(const Words *w, int a, int b, char *out)
{
    const char *x = w->syms.keys[a], *y = w->syms.keys[b];
    size_t cl = strlen(VOCAB_CONT);
    out[0] = 0;
    if (unmergeable(x, w->natural) || unmergeable(y, w->natural) ||
        strncmp(y, VOCAB_CONT, cl) != 0)
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
static int learn_pieces(Words *w, int n, StrMap *out)
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
    StrMap words = {0}, toks = {0};
    Words w = {0};
    int *order = NULL, rc = -1;
    memset(out, 0, sizeof *out);
    if (o->n_words < 0 || o->n_pieces < 0 || o->min_count < 1) {
        snprintf(err, errlen, "subword: n_words and n_pieces must be >= 0, min_count >= 1");
        return -1;
    }
    CountCtx cc = {&words, 0};
    vocab_split(text, count_word, &cc);
    if (cc.failed || add_base(&toks, o->natural))
        goto oom;
    order = malloc(sizeof *order * ((size_t)words.n + 1));
    if (!order)
        goto oom;
    for (int i = 0; i < words.n; i++)
        order[i] = i;
    g_sort_tab = &words;
    qsort(order, (size_t)words.n, sizeof *order, by_count);
    for (int i = 0, kept = 0; i < words.n && kept < o->n_words; i++) {
        const char *s = words.keys[order[i]];
        if (words.vals[order[i]] < o->min_count)
            break;
        if (strlen(s) > VOCAB_WORD_MAX || tab_find(&toks, s, 0) >= 0)
            continue;
        if (tab_find(&toks, s, 1) < 0)
            goto oom;
        kept++;
    }
    if (add_everyday(&toks, &words, o))
        goto oom;
    if (words_build(&w, &words, &toks, o->natural) || learn_pieces(&w, o->n_pieces, &toks))
        goto oom;
    char e2[200];
    rc = vocab_init_kind(out, VOCAB_WORDPIECE, (const char *const *)toks.keys, toks.n, e2,
                         sizeof e2);
    if (rc)
        snprintf(err, errlen, "subword: %s", e2);
    goto done;
oom:
    snprintf(err, errlen, "subword: out of memory");
done:
    free(order);
    words_free(&w);
    strmap_free(&words);
    strmap_free(&toks);
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
