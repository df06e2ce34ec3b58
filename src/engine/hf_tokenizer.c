/* hf_tokenizer.c - Hugging Face BPE tokenizers (see hf_tokenizer.h): added tokens split out
 * first, then normalizer, pre-tokenizer (regex splits through libpcre2), BPE by merge rank,
 * byte fallback, and the post-processor's BOS. */
#include "hf_tokenizer.h"
#include "hf_tokenizer_internal.h"
#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* A copy of s (n bytes) with every invalid UTF-8 byte replaced by U+FFFD. */
static char *clean_utf8(const char *s, size_t n, size_t *out_len)
{
    char *o = malloc(3 * n + 1);
    size_t k = 0;
    if (!o)
        return NULL;
    for (size_t i = 0; i < n;) {
        int l = utf8_decode(s + i, n - i, NULL);
        if (l) {
            memcpy(o + k, s + i, (size_t)l);
            k += (size_t)l;
            i += (size_t)l;
        } else {
            k += (size_t)utf8_encode(UTF8_REPLACEMENT, o + k);
            i++;
        }
    }
    o[k] = 0;
    *out_len = k;
    return o;
}

/* GPT-2's bytes_to_unicode: printable bytes stand for themselves, the rest for 256 + n. */
static unsigned hf_tok_byte_char(int b)
{
    if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255))
        return (unsigned)b;
    int n = 0;
    for (int x = 0; x < b; x++)
        if (!((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || (x >= 174 && x <= 255)))
            n++;
    return 256u + (unsigned)n;
}

/* The byte a byte-level character stands for, or -1. */
int hf_tok_char_byte(unsigned cp)
{
    if ((cp >= 33 && cp <= 126) || (cp >= 161 && cp <= 172) || (cp >= 174 && cp <= 255))
        return (int)cp;
    if (cp < 256 || cp >= 256 + 68)
        return -1;
    for (int b = 0; b < 256; b++)
        if (hf_tok_byte_char(b) == cp)
            return b;
    return -1;
}

/* ---------------------------------------------------------------- encode */

/* The text pieces a pre-tokenizer step produces, appended to an array. */
typedef struct {
    char **s;
    size_t *len;
    int n, cap;
    int fail;
} Pieces;

static void piece_add(Pieces *p, const char *s, size_t n)
{
    if (p->fail || n == 0)
        return;
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        char **ns = realloc(p->s, sizeof *ns * (size_t)cap);
        if (ns) p->s = ns;
        size_t *nl = realloc(p->len, sizeof *nl * (size_t)cap);
        if (nl) p->len = nl;
        if (!ns || !nl) { p->fail = 1; return; }
        p->cap = cap;
    }
    char *c = malloc(n + 1);
    if (!c) { p->fail = 1; return; }
    memcpy(c, s, n);
    c[n] = 0;
    p->s[p->n] = c;
    p->len[p->n++] = n;
}

static void pieces_free(Pieces *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->s[i]);
    free(p->s);
    free(p->len);
    memset(p, 0, sizeof *p);
}

/* Splits s by re: matches (unless removed) and the text between them become pieces. */
static void split_regex(Pieces *out, pcre2_code *re, int removed, const char *s, size_t n)
{
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    pcre2_match_context *mc = pcre2_match_context_create(NULL);
    if (!md || !mc) {
        pcre2_match_data_free(md);
        pcre2_match_context_free(mc);
        out->fail = 1;
        return;
    }
    /* a pattern that backtracks without end stops here: the rest is one piece */
    pcre2_set_match_limit(mc, 1000000);
    size_t at = 0, last = 0;
    while (at <= n) {
        int rc = pcre2_match(re, (PCRE2_SPTR)s, n, at, PCRE2_NO_UTF_CHECK, md, mc);
        if (rc < 0)
            break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t b = ov[0], e = ov[1];
        if (e == b) { /* an empty match: step one character on */
            int l = at < n ? utf8_decode(s + at, n - at, NULL) : 1;
            at += l ? (size_t)l : 1;
            continue;
        }
        piece_add(out, s + last, b - last);
        if (!removed)
            piece_add(out, s + b, e - b);
        last = at = e;
    }
    piece_add(out, s + last, n - last);
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
}

/* Runs one pre-tokenizer step over every piece of in into out. */
static void run_step(const Step *st, const Pieces *in, Pieces *out)
{
    for (int i = 0; i < in->n && !out->fail; i++) {
        const char *s = in->s[i];
        size_t n = in->len[i];
        if (st->kind == PT_BYTELEVEL) {
            char *tmp = NULL;
            if (st->prefix_space && i == 0 && s[0] != ' ') {
                tmp = malloc(n + 2);
                if (!tmp) { out->fail = 1; return; }
                tmp[0] = ' ';
                memcpy(tmp + 1, s, n + 1);
                s = tmp;
                n++;
            }
            if (st->re)
                split_regex(out, st->re, 0, s, n);
            else
                piece_add(out, s, n);
            free(tmp);
        } else if (st->kind == PT_METASPACE) {
            /* spaces already replaced by the normalizer or here by U+2581 */
            size_t cap = 3 * n + 4, k = 0;
            char *tmp = malloc(cap);
            if (!tmp) { out->fail = 1; return; }
            if (st->prepend == 1 || (st->prepend == 2 && i == 0))
                if (!(n >= 3 && !memcmp(s, "\xe2\x96\x81", 3)))
                    k += (size_t)utf8_encode(0x2581, tmp + k);
            for (size_t j = 0; j < n; j++)
                if (s[j] == ' ')
                    k += (size_t)utf8_encode(0x2581, tmp + k);
                else
                    tmp[k++] = s[j];
            size_t start = 0;
            for (size_t j = 0; st->split && j + 3 <= k; j++)
                if (j > start && !memcmp(tmp + j, "\xe2\x96\x81", 3)) {
                    piece_add(out, tmp + start, j - start);
                    start = j;
                }
            piece_add(out, tmp + start, k - start);
            free(tmp);
        } else {
            split_regex(out, st->re, st->removed, s, n);
        }
    }
}

/* The normalizers: prepend and replace, in order, into a new string. */
static char *normalize(const HfTok *t, const char *s, size_t n, size_t *out_n)
{
    char *cur = malloc(n + 1);
    if (!cur) return NULL;
    memcpy(cur, s, n);
    cur[n] = 0;
    for (int k = 0; k < t->n_norms; k++) {
        const Norm *nm = &t->norms[k];
        size_t la = strlen(nm->a), lb = nm->b ? strlen(nm->b) : 0, len = strlen(cur);
        size_t cap = nm->kind == NM_PREPEND ? len + la + 1 : len * (lb + 1) + 1;
        char *nx = malloc(cap), *o = nx;
        if (!nx) { free(cur); return NULL; }
        if (nm->kind == NM_PREPEND) {
            memcpy(o, nm->a, la);
            memcpy(o + la, cur, len + 1);
        } else {
            for (const char *p = cur; *p;) {
                if (la && !strncmp(p, nm->a, la)) {
                    memcpy(o, nm->b, lb);
                    o += lb;
                    p += la;
                } else {
                    *o++ = *p++;
                }
            }
            *o = 0;
        }
        free(cur);
        cur = nx;
    }
    *out_n = strlen(cur);
    return cur;
}

typedef struct {
    int *ids;
    int max, written;
    TokenizeInfo *info;
} Out;

static void emit(Out *o, int id)
{
    if (o->info) {
        o->info->n_tokens++;
        if (o->written >= o->max)
            o->info->truncated = 1;
    }
    if (o->written < o->max)
        o->ids[o->written++] = id;
}

static void emit_unknown(const HfTok *t, Out *o, const char *sym)
{
    if (o->info && o->info->n_unknown < VOCAB_MAX_UNKNOWN)
        snprintf(o->info->unknown[o->info->n_unknown], VOCAB_WORD_MAX + 1, "%s", sym);
    if (o->info)
        o->info->n_unknown++;
    if (t->unk_id >= 0)
        emit(o, t->unk_id);
}

/* 1 if every byte of s has its <0xHH> token. */
static int all_bytes(const HfTok *t, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (t->byte_id[(unsigned char)s[i]] < 0)
            return 0;
    return 1;
}

/* BPE over one piece: its characters merged by rank, then looked up. */
static void bpe_word(const HfTok *t, const char *w, size_t n, Out *o)
{
    if (t->ignore_merges) {
        int id = strmap_get(&t->vocab, w, n);
        if (id >= 0) {
            emit(o, id);
            return;
        }
    }
    /* symbols: [start, end) byte ranges of w, merged in place */
    size_t *b = malloc(sizeof *b * (n + 1)), *e = malloc(sizeof *e * (n + 1));
    char *key = malloc(n + 2);
    if (!b || !e || !key) {
        free(b); free(e); free(key);
        return;
    }
    int k = 0;
    for (size_t i = 0; i < n;) {
        int l = utf8_decode(w + i, n - i, NULL);
        if (!l) l = 1;
        b[k] = i;
        e[k++] = i + (size_t)l;
        i += (size_t)l;
    }
    for (;;) {
        int best = -1, best_rank = 0;
        for (int i = 0; i + 1 < k; i++) {
            size_t la = e[i] - b[i], lb = e[i + 1] - b[i + 1];
            memcpy(key, w + b[i], la);
            key[la] = (char)0xff;
            memcpy(key + la + 1, w + b[i + 1], lb);
            int r = strmap_get(&t->merges, key, la + 1 + lb);
            if (r >= 0 && (best < 0 || r < best_rank)) {
                best = i;
                best_rank = r;
            }
        }
        if (best < 0)
            break;
        /* merge every occurrence of that pair, left to right */
        size_t la = e[best] - b[best], lb = e[best + 1] - b[best + 1];
        char pa[HF_TOK_MAX_PIECE * 4], pb[HF_TOK_MAX_PIECE * 4];
        if (la >= sizeof pa || lb >= sizeof pb) break;
        memcpy(pa, w + b[best], la);
        memcpy(pb, w + b[best + 1], lb);
        int j = 0;
        for (int i = 0; i < k; i++) {
            if (i + 1 < k && e[i] - b[i] == la && e[i + 1] - b[i + 1] == lb &&
                !memcmp(w + b[i], pa, la) && !memcmp(w + b[i + 1], pb, lb)) {
                b[j] = b[i];
                e[j++] = e[i + 1];
                i++;
            } else {
                b[j] = b[i];
                e[j++] = e[i];
            }
        }
        k = j;
    }
    for (int i = 0; i < k; i++) {
        int id = strmap_get(&t->vocab, w + b[i], e[i] - b[i]);
        if (id >= 0) {
            emit(o, id);
        } else if (t->byte_fallback && all_bytes(t, w + b[i], e[i] - b[i])) {
            for (size_t x = b[i]; x < e[i]; x++)
                emit(o, t->byte_id[(unsigned char)w[x]]);
        } else {
            char sym[VOCAB_WORD_MAX + 1];
            size_t l = e[i] - b[i] < VOCAB_WORD_MAX ? e[i] - b[i] : VOCAB_WORD_MAX;
            memcpy(sym, w + b[i], l);
            sym[l] = 0;
            emit_unknown(t, o, sym);
        }
    }
    free(b);
    free(e);
    free(key);
}

/* One stretch of text between added tokens: normalize, pre-tokenize, BPE. */
static void encode_text(const HfTok *t, const char *s, size_t n, Out *o)
{
    if (n == 0)
        return;
    size_t nn;
    char *norm = normalize(t, s, n, &nn);
    if (!norm)
        return;
    Pieces a = {0}, b = {0};
    piece_add(&a, norm, nn);
    free(norm);
    for (int k = 0; k < t->n_steps; k++) {
        run_step(&t->steps[k], &a, &b);
        pieces_free(&a);
        a = b;
        memset(&b, 0, sizeof b);
    }
    for (int i = 0; i < a.n; i++) {
        const char *w = a.s[i];
        size_t wn = a.len[i];
        char *mapped = NULL;
        if (t->byte_level) { /* every byte as its character */
            mapped = malloc(2 * wn + 1);
            if (!mapped) break;
            size_t k = 0;
            for (size_t j = 0; j < wn; j++)
                k += (size_t)utf8_encode(hf_tok_byte_char((unsigned char)w[j]), mapped + k);
            mapped[k] = 0;
            w = mapped;
            wn = k;
        }
        bpe_word(t, w, wn, o);
        free(mapped);
    }
    pieces_free(&a);
}

int hf_tok_encode(const HfTok *t, const char *text, int *ids, int max_ids, TokenizeInfo *info)
{
    Out o = {ids, max_ids, 0, info};
    if (info)
        memset(info, 0, sizeof *info);
    size_t n;
    char *s = clean_utf8(text, strlen(text), &n);
    if (!s)
        return 0;
    for (int i = 0; i < t->n_prefix; i++)
        emit(&o, t->prefix[i]);
    size_t last = 0;
    for (size_t at = 0; at < n;) {
        int best = -1;
        for (int k = 0; k < t->n_added; k++)
            if (t->added[k].len <= n - at && !memcmp(s + at, t->added[k].text, t->added[k].len) &&
                (best < 0 || t->added[k].len > t->added[best].len))
                best = k;
        if (best < 0) {
            at++;
            continue;
        }
        encode_text(t, s + last, at - last, &o);
        emit(&o, t->added[best].id);
        at += t->added[best].len;
        last = at;
    }
    if (last < n)
        encode_text(t, s + last, n - last, &o);
    for (int i = 0; i < t->n_suffix; i++)
        emit(&o, t->suffix[i]);
    free(s);
    return o.written;
}

