/* vocab.c - word-level vocabulary and tokenizer (see vocab.h). */
#include "vocab.h"

#include "fileio.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VOCAB_LINE_MAX 254 /* longest line of a vocabulary file */

static unsigned hash_str(const char *s)
{
    unsigned h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

int vocab_id(const Vocab *v, const char *word)
{
    if (!v->table || v->cap == 0)
        return -1;
    unsigned i = hash_str(word) & (unsigned)(v->cap - 1);
    while (v->table[i] >= 0) {
        if (strcmp(v->words[v->table[i]], word) == 0)
            return v->table[i];
        i = (i + 1) & (unsigned)(v->cap - 1);
    }
    return -1;
}

const char *vocab_word(const Vocab *v, int id)
{
    if (id < 0 || id >= v->n)
        return "<?>";
    return v->words[id];
}

void vocab_free(Vocab *v)
{
    if (v->tok_free)
        v->tok_free(v->tok);
    if (v->words)
        for (int i = 0; i < v->n; i++)
            free(v->words[i]);
    free(v->words);
    free(v->table);
    memset(v, 0, sizeof *v);
}

int vocab_adopt(Vocab *v, char **words, int n, const char *unk, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    int cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    v->table = malloc(sizeof(int) * (size_t)cap);
    v->words = words;
    v->n = n;
    if (!v->table) {
        snprintf(err, errlen, "out of memory");
        vocab_free(v);
        return -1;
    }
    v->cap = cap;
    for (int i = 0; i < cap; i++)
        v->table[i] = -1;
    for (int i = 0; i < n; i++) {
        if (vocab_id(v, words[i]) >= 0)
            continue; /* two ids that read the same: the first is found by name */
        unsigned h = hash_str(words[i]) & (unsigned)(cap - 1);
        while (v->table[h] >= 0)
            h = (h + 1) & (unsigned)(cap - 1);
        v->table[h] = i;
    }
    v->pad_id = -1;
    v->unk_id = unk ? vocab_id(v, unk) : -1;
    return 0;
}

int vocab_init(Vocab *v, const char *const *words, int n, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    if (n <= 0) {
        snprintf(err, errlen, "vocabulary is empty");
        return -1;
    }
    int cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    v->words = calloc((size_t)n, sizeof *v->words);
    v->table = malloc(sizeof(int) * (size_t)cap);
    if (!v->words || !v->table) {
        snprintf(err, errlen, "out of memory");
        vocab_free(v);
        return -1;
    }
    v->cap = cap;
    for (int i = 0; i < cap; i++)
        v->table[i] = -1;
    for (int i = 0; i < n; i++) {
        const char *w = words[i];
        size_t len = w ? strlen(w) : 0;
        if (len == 0 || len > VOCAB_WORD_MAX) {
            snprintf(err, errlen, "vocabulary word %d is %s", i, len ? "too long" : "empty");
            vocab_free(v);
            return -1;
        }
        for (size_t k = 0; k < len; k++)
            if (isspace((unsigned char)w[k])) {
                /* the tokenizer splits at whitespace: such a word could never be produced */
                snprintf(err, errlen, "vocabulary word %d contains %s (the tokenizer splits "
                         "words at whitespace, so it could never be produced)", i,
                         w[k] == ' ' ? "a space" : "whitespace");
                vocab_free(v);
                return -1;
            }
        if (vocab_id(v, w) >= 0) {
            snprintf(err, errlen, "vocabulary word %d \"%s\" is repeated", i, w);
            vocab_free(v);
            return -1;
        }
        v->words[i] = strdup(w);
        if (!v->words[i]) {
            snprintf(err, errlen, "out of memory");
            vocab_free(v);
            return -1;
        }
        v->n = i + 1;
        unsigned h = hash_str(w) & (unsigned)(cap - 1);
        while (v->table[h] >= 0)
            h = (h + 1) & (unsigned)(cap - 1);
        v->table[h] = i;
    }
    v->pad_id = vocab_id(v, VOCAB_PAD);
    v->unk_id = vocab_id(v, VOCAB_UNK);
    if (v->pad_id < 0 || v->unk_id < 0) {
        snprintf(err, errlen, "vocabulary lacks %s", v->pad_id < 0 ? VOCAB_PAD : VOCAB_UNK);
        vocab_free(v);
        return -1;
    }
    return 0;
}

int vocab_load_file(Vocab *v, const char *path, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    char *text;
    size_t tlen;
    if (fileio_read(path, FILEIO_MAX_BYTES, &text, &tlen, err, errlen))
        return -1;
    int n = 0, cap = 0, lineno = 0, rc = 0;
    char **words = NULL;
    for (char *p = text; rc == 0 && p < text + tlen;) {
        lineno++;
        char *nl = memchr(p, '\n', (size_t)(text + tlen - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(text + tlen - p);
        char *line = p;
        p += len + (nl ? 1 : 0);
        if (len > VOCAB_LINE_MAX) {
            snprintf(err, errlen, "%s:%d: line too long (more than %d bytes)", path, lineno,
                     VOCAB_LINE_MAX);
            rc = -1;
            break;
        }
        if (memchr(line, 0, len)) {
            snprintf(err, errlen, "%s:%d: a NUL byte (not a text file)", path, lineno);
            rc = -1;
            break;
        }
        while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
            len--;
        line[len] = 0;
        if (len == 0 || line[0] == '#')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            char **nw = realloc(words, sizeof *words * (size_t)cap);
            if (!nw) {
                rc = -1;
                snprintf(err, errlen, "out of memory");
                break;
            }
            words = nw;
        }
        words[n] = strdup(line);
        if (!words[n]) {
            rc = -1;
            snprintf(err, errlen, "out of memory");
            break;
        }
        n++;
    }
    free(text);
    if (rc == 0) {
        char e2[256];
        rc = vocab_init(v, (const char *const *)words, n, e2, sizeof e2);
        if (rc)
            snprintf(err, errlen, "%s: %s", path, e2);
    }
    for (int i = 0; i < n; i++)
        free(words[i]);
    free(words);
    return rc;
}

void vocab_split(const char *text, void (*fn)(const char *tok, void *ctx), void *ctx)
{
    char buf[VOCAB_WORD_MAX * 4 + 8];
    const char *p = text;
    while (*p) {
        unsigned char c = (unsigned char)*p;
        if (isspace(c)) {
            p++;
            continue;
        }
        /* Special tokens written literally. */
        if (c == '<' && (strncmp(p, VOCAB_PAD, 5) == 0 || strncmp(p, VOCAB_UNK, 5) == 0)) {
            memcpy(buf, p, 5);
            buf[5] = 0;
            fn(buf, ctx);
            p += 5;
            continue;
        }
        if (c == '<' && strncmp(p, VOCAB_MASK, 6) == 0) {
            memcpy(buf, p, 6);
            buf[6] = 0;
            fn(buf, ctx);
            p += 6;
            continue;
        }
        if (c < 128 && ispunct(c)) {
            buf[0] = (char)c;
            buf[1] = 0;
            fn(buf, ctx);
            p++;
            continue;
        }
        size_t len = 0;
        while (*p) {
            unsigned char d = (unsigned char)*p;
            if (isspace(d) || (d < 128 && ispunct(d)))
                break;
            if (len < sizeof buf - 1)
                buf[len++] = (char)(d < 128 ? tolower(d) : d);
            p++;
        }
        buf[len] = 0;
        fn(buf, ctx);
    }
}

typedef struct {
    const Vocab *v;
    int *ids;
    int max_ids, written;
    TokenizeInfo *info;
} TokCtx;

static void tok_one(const char *tok, void *vctx)
{
    TokCtx *c = vctx;
    int id = strlen(tok) <= VOCAB_WORD_MAX ? vocab_id(c->v, tok) : -1;
    if (id < 0) {
        id = c->v->unk_id;
        if (c->info) {
            if (c->info->n_unknown < VOCAB_MAX_UNKNOWN) {
                snprintf(c->info->unknown[c->info->n_unknown], VOCAB_WORD_MAX + 1, "%s", tok);
            }
            c->info->n_unknown++;
        }
    }
    if (c->info)
        c->info->n_tokens++;
    if (c->written < c->max_ids)
        c->ids[c->written++] = id;
    else if (c->info)
        c->info->truncated = 1;
}

int vocab_tokenize(const Vocab *v, const char *text, int *ids, int max_ids, TokenizeInfo *info)
{
    TokCtx c = {v, ids, max_ids, 0, info};
    if (info)
        memset(info, 0, sizeof *info);
    if (v->tok_encode)
        return v->tok_encode(v->tok, text, ids, max_ids, info);
    vocab_split(text, tok_one, &c);
    return c.written;
}
