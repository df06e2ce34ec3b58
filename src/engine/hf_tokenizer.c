/* hf_tokenizer.c - Hugging Face BPE tokenizers (see hf_tokenizer.h): added tokens split out
 * first, then normalizer, pre-tokenizer (regex splits through libpcre2), BPE by merge rank,
 * byte fallback, and the post-processor's BOS. */
#include "hf_tokenizer.h"
#include "hf_tokenizer_internal.h"
#include "utf8.h"

#include <stdarg.h>
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

/* GPT-2's bytes_to_unicode: printable bytes stand for themselves, the rest for 256 + n, n
 * counting the 68 bytes without a printable character in order: 0..32, 127..160, 173. */
static unsigned hf_tok_byte_char(int b)
{
    if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255))
        return (unsigned)b;
    return 256u + (unsigned)(b <= 32 ? b : b <= 160 ? 33 + (b - 127) : 67);
}

/* The byte a byte-level character stands for, or -1 (hf_tok_byte_char's inverse). */
int hf_tok_char_byte(unsigned cp)
{
    if ((cp >= 33 && cp <= 126) || (cp >= 161 && cp <= 172) || (cp >= 174 && cp <= 255))
        return (int)cp;
    if (cp < 256 || cp >= 256 + 68)
        return -1;
    unsigned n = cp - 256; /* the n-th byte (from 0) that has no printable character */
    return n < 33 ? (int)n : n < 67 ? (int)(127 + (n - 33)) : 173;
}

/* ---------------------------------------------------------------- encode */

/* One sentence's encoding: where its ids go, and its limits. Every pre-tokenizer step hands
 * each piece it makes straight to the next step (feed), the last to BPE, so the work stops as
 * soon as the sentence has more tokens than fit (the length limit before the expensive work)
 * or a limit is hit. The work budget (HF_TOK_MAX_WORK) counts the steps of every regex match
 * of the file's own patterns (PCRE2's auto-callouts) and every pair BPE looks up, across the
 * whole sentence: PCRE2's match limit alone applies per call. */
typedef struct {
    const HfTok *t;
    int *ids;
    int max, written;
    TokenizeInfo *info;
    long long work;           /* units of work left */
    int stop;                 /* 1: no more tokens wanted (full, or an error) */
    int fail;                 /* 1: an error (info->error says which) */
    pcre2_match_data *md;
    pcre2_match_context *mc;
} Enc;

static void fail(Enc *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(Enc *e, const char *fmt, ...)
{
    if (e->fail)
        return;
    e->fail = e->stop = 1;
    if (e->info) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->info->error, sizeof e->info->error, fmt, ap);
        va_end(ap);
    }
}

static void emit(Enc *o, int id)
{
    if (o->stop)
        return;
    if (o->info) {
        o->info->n_tokens++;
        if (o->written >= o->max) {
            o->info->truncated = 1;
            o->info->stopped = 1; /* one past the limit is enough to say "too long" */
            o->stop = 1;
        }
    }
    if (o->written < o->max)
        o->ids[o->written++] = id;
    else if (!o->info)
        o->stop = 1;
}

static void emit_unknown(Enc *o, const char *sym)
{
    if (o->t->unk_id < 0) {
        fail(o, "\"%s\" is not in the tokenizer's vocabulary, and the tokenizer has no "
             "unk_token to stand for it", sym);
        return;
    }
    if (o->info && o->info->n_unknown < VOCAB_MAX_UNKNOWN)
        snprintf(o->info->unknown[o->info->n_unknown], VOCAB_WORD_MAX + 1, "%s", sym);
    if (o->info)
        o->info->n_unknown++;
    emit(o, o->t->unk_id);
}

/* Charges n units of work; 0, or -1 (an error) when the budget is spent. */
static int charge(Enc *e, long long n)
{
    e->work -= n;
    if (e->work >= 0)
        return 0;
    fail(e, "the sentence needs more than %d steps of the tokenizer's pattern matching and "
         "merges (attend's work limit per sentence): shorten it, or the tokenizer.json's "
         "pre_tokenizer pattern backtracks too much", HF_TOK_MAX_WORK);
    return -1;
}

/* PCRE2's auto-callout: one unit of work per pattern item tried. */
static int on_callout(pcre2_callout_block *cb, void *ctx)
{
    (void)cb;
    Enc *e = ctx;
    if (--e->work >= 0)
        return 0;
    return HF_TOK_ERROR_WORK;
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
static void bpe_word(Enc *o, const char *w, size_t n)
{
    const HfTok *t = o->t;
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
        fail(o, "out of memory");
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
        if (k > 1 && charge(o, k - 1))
            break;
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
    for (int i = 0; i < k && !o->stop; i++) {
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
            emit_unknown(o, sym);
        }
    }
    free(b);
    free(e);
    free(key);
}

/* The last step's piece: mapped to byte characters (byte-level), then BPE. */
static void to_bpe(Enc *o, const char *w, size_t wn)
{
    if (!o->t->byte_level) {
        bpe_word(o, w, wn);
        return;
    }
    char *mapped = malloc(2 * wn + 1);
    if (!mapped) {
        fail(o, "out of memory");
        return;
    }
    size_t k = 0;
    for (size_t j = 0; j < wn; j++)
        k += (size_t)utf8_encode(hf_tok_byte_char((unsigned char)w[j]), mapped + k);
    mapped[k] = 0;
    bpe_word(o, mapped, k);
    free(mapped);
}

static void feed(Enc *e, int k, const char *s, size_t n, int first);

/* Splits s by re: matches (unless removed) and the text between them go on to step k + 1.
 * fixed: one of attend's own patterns (linear; not counted). */
static void split_regex(Enc *e, int k, const pcre2_code *re, int removed, int fixed,
                        const char *s, size_t n, int first)
{
    size_t at = 0, last = 0;
    int idx = 0;
    pcre2_set_callout(e->mc, fixed ? NULL : on_callout, e);
#define NEXT(p, len) do { if ((len) > 0) feed(e, k + 1, (p), (len), first && idx++ == 0); } while (0)
    while (at <= n && !e->stop) {
        int rc = pcre2_match(re, (PCRE2_SPTR)s, n, at, PCRE2_NO_UTF_CHECK, e->md, e->mc);
        if (rc == PCRE2_ERROR_NOMATCH)
            break;
        if (rc == HF_TOK_ERROR_WORK) {
            charge(e, 1); /* the budget is spent: the error names it */
            return;
        }
        if (rc < 0) {
            PCRE2_UCHAR msg[120];
            pcre2_get_error_message(rc, msg, sizeof msg);
            fail(e, "the tokenizer's pre_tokenizer pattern failed on this sentence (PCRE2: %s)%s",
                 (const char *)msg, rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
                 rc == PCRE2_ERROR_HEAPLIMIT ? ": it backtracks too much" : "");
            return;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(e->md);
        size_t b = ov[0], en = ov[1];
        if (en == b) { /* an empty match: step one character on */
            int l = at < n ? utf8_decode(s + at, n - at, NULL) : 1;
            at += l ? (size_t)l : 1;
            continue;
        }
        NEXT(s + last, b - last);
        if (!removed)
            NEXT(s + b, en - b);
        last = at = en;
    }
    if (!e->stop)
        NEXT(s + last, n - last);
#undef NEXT
}

/* Runs pre-tokenizer step k over piece s (first: the first piece of the step's input), and
 * hands what it makes to step k + 1; past the last step, to BPE. */
static void feed(Enc *e, int k, const char *s, size_t n, int first)
{
    if (e->stop || n == 0)
        return;
    if (k == e->t->n_steps) {
        to_bpe(e, s, n);
        return;
    }
    const Step *st = &e->t->steps[k];
    if (st->kind == PT_BYTELEVEL) {
        char *tmp = NULL;
        if (st->prefix_space && first && s[0] != ' ') {
            if (!(tmp = malloc(n + 2))) {
                fail(e, "out of memory");
                return;
            }
            tmp[0] = ' ';
            memcpy(tmp + 1, s, n);
            tmp[n + 1] = 0;
            s = tmp;
            n++;
        }
        if (st->re)
            split_regex(e, k, st->re, 0, 1, s, n, first);
        else
            feed(e, k + 1, s, n, first);
        free(tmp);
    } else if (st->kind == PT_METASPACE) {
        /* spaces already replaced by the normalizer or here by U+2581 */
        size_t cap = 3 * n + 4, j2 = 0;
        char *tmp = malloc(cap);
        if (!tmp) {
            fail(e, "out of memory");
            return;
        }
        if (st->prepend == 1 || (st->prepend == 2 && first))
            if (!(n >= 3 && !memcmp(s, "\xe2\x96\x81", 3)))
                j2 += (size_t)utf8_encode(0x2581, tmp + j2);
        for (size_t j = 0; j < n; j++)
            if (s[j] == ' ')
                j2 += (size_t)utf8_encode(0x2581, tmp + j2);
            else
                tmp[j2++] = s[j];
        size_t start = 0;
        int idx = 0;
        for (size_t j = 0; st->split && j + 3 <= j2 && !e->stop; j++)
            if (j > start && !memcmp(tmp + j, "\xe2\x96\x81", 3)) {
                feed(e, k + 1, tmp + start, j - start, first && idx++ == 0);
                start = j;
            }
        feed(e, k + 1, tmp + start, j2 - start, first && idx == 0);
        free(tmp);
    } else {
        split_regex(e, k, st->re, st->removed, st->kind == PT_DIGITS, s, n, first);
    }
}

/* The normalizers: prepend and replace, in order, into a new string; NULL on an error (the
 * output would pass the growth cap, checked before anything is allocated). */
static char *normalize(Enc *e, const char *s, size_t n, size_t *out_n)
{
    const HfTok *t = e->t;
    size_t cap_len = HF_TOK_NORM_GROWTH * n + HF_TOK_NORM_SLACK;
    char *cur = malloc(n + 1);
    if (!cur) {
        fail(e, "out of memory");
        return NULL;
    }
    memcpy(cur, s, n);
    cur[n] = 0;
    size_t len = n;
    for (int k = 0; k < t->n_norms; k++) {
        const Norm *nm = &t->norms[k];
        size_t la = strlen(nm->a), lb = nm->b ? strlen(nm->b) : 0, out = len + la;
        if (nm->kind == NM_REPLACE) {
            size_t hits = 0;
            for (const char *p = cur; la && (p = strstr(p, nm->a)); p += la)
                hits++;
            out = len - hits * la + hits * lb;
        }
        if (out > cap_len) {
            fail(e, "the tokenizer's normalizer (step %d, %s) makes this %zu-byte text longer "
                 "than %zu bytes, attend's cap on normalizer growth (%d times the text plus %d)",
                 k + 1, nm->kind == NM_REPLACE ? "Replace" : "Prepend", n, cap_len,
                 HF_TOK_NORM_GROWTH, HF_TOK_NORM_SLACK);
            free(cur);
            return NULL;
        }
        char *nx = malloc(out + 1), *o = nx;
        if (!nx) {
            fail(e, "out of memory");
            free(cur);
            return NULL;
        }
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
        len = out;
    }
    *out_n = len;
    return cur;
}

/* One stretch of text between added tokens: normalize, pre-tokenize, BPE. */
static void encode_text(Enc *e, const char *s, size_t n)
{
    if (n == 0 || e->stop)
        return;
    size_t nn;
    char *norm = normalize(e, s, n, &nn);
    if (!norm)
        return;
    feed(e, 0, norm, nn, 1);
    free(norm);
}

int hf_tok_encode(const HfTok *t, const char *text, int *ids, int max_ids, TokenizeInfo *info)
{
    Enc e = {t, ids, max_ids, 0, info, HF_TOK_MAX_WORK, 0, 0, NULL, NULL};
    if (info)
        memset(info, 0, sizeof *info);
    size_t tl = strlen(text);
    if (tl > HF_TOK_MAX_TEXT) {
        fail(&e, "the text is %zu bytes; attend's tokenizer reads at most %d bytes", tl,
             HF_TOK_MAX_TEXT);
        return 0;
    }
    size_t n;
    char *s = clean_utf8(text, tl, &n);
    e.mc = pcre2_match_context_create(NULL);
    /* the longest match data any pattern needs: one pair is all split_regex reads */
    e.md = pcre2_match_data_create(1, NULL);
    if (!s || !e.mc || !e.md) {
        fail(&e, "out of memory");
    } else {
        /* a pattern that backtracks without end is stopped by the work budget, or here */
        pcre2_set_match_limit(e.mc, HF_TOK_MATCH_LIMIT);
        for (int i = 0; i < t->n_prefix; i++)
            emit(&e, t->prefix[i]);
        size_t last = 0;
        for (size_t at = 0; at < n && !e.stop;) {
            int best = -1;
            for (int k = 0; k < t->n_added; k++)
                if (t->added[k].len <= n - at && !memcmp(s + at, t->added[k].text, t->added[k].len) &&
                    (best < 0 || t->added[k].len > t->added[best].len))
                    best = k;
            if (best < 0) {
                at++;
                continue;
            }
            encode_text(&e, s + last, at - last);
            emit(&e, t->added[best].id);
            at += t->added[best].len;
            last = at;
        }
        if (last < n)
            encode_text(&e, s + last, n - last);
        for (int i = 0; i < t->n_suffix; i++)
            emit(&e, t->suffix[i]);
    }
    free(s);
    pcre2_match_data_free(e.md);
    pcre2_match_context_free(e.mc);
    if (e.fail) {
        if (info) {
            info->n_tokens = info->n_unknown = 0;
            info->truncated = info->stopped = 0;
        }
        return 0;
    }
    return e.written;
}
