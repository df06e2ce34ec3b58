/* corpus.c - loads training text and aligned sentence pairs (see corpus.h). */
#include "corpus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"

#define LINE_MAX_TOKENS 256

void corpus_free(Corpus *c)
{
    free(c->ids);
    free(c->starts);
    free(c->pairs);
    free(c->links);
    memset(c, 0, sizeof *c);
}

void corpus_rng_seed(CorpusRng *r, uint64_t seed)
{
    r->s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!r->s)
        r->s = 1;
}

uint32_t corpus_rng_next(CorpusRng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return (uint32_t)((r->s * 2685821657736338717ull) >> 32);
}

/* Growing int array. */
static int push(int **a, int *n, int *cap, int v)
{
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 1024;
        int *na = realloc(*a, sizeof(int) * (size_t)nc);
        if (!na)
            return -1;
        *a = na;
        *cap = nc;
    }
    (*a)[(*n)++] = v;
    return 0;
}

/* Reads a whole line of any length; NULL at end of file. Caller frees. */
static char *read_line(FILE *f)
{
    size_t cap = 0;
    char *line = NULL;
    ssize_t len = getline(&line, &cap, f);
    if (len < 0) {
        free(line);
        return NULL;
    }
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = 0;
    return line;
}

static int blank(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == 0;
}

/* Tokenizes text, appending to c->ids; returns the token count or -1 with a message. */
static int add_text(Corpus *c, int *cap, const char *text, const Vocab *v, const char *path,
                    int lineno, char *err, size_t errlen)
{
    int tmp[LINE_MAX_TOKENS];
    TokenizeInfo info;
    int n = vocab_tokenize(v, text, tmp, LINE_MAX_TOKENS, &info);
    if (info.truncated) {
        snprintf(err, errlen, "%s:%d: line longer than %d tokens", path, lineno,
                 LINE_MAX_TOKENS);
        return -1;
    }
    if (info.n_unknown) {
        if (!c->n_unknown)
            snprintf(c->first_unknown, sizeof c->first_unknown, "%s", info.unknown[0]);
        c->n_unknown += info.n_unknown;
        snprintf(err, errlen, "%s:%d: word \"%s\" is not in the vocabulary", path, lineno,
                 info.unknown[0]);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (push(&c->ids, &c->n_ids, cap, tmp[i]) < 0) {
            snprintf(err, errlen, "%s: out of memory", path);
            return -1;
        }
    return n;
}

/* Closes what corpus_open opened. */
static void corpus_close(FILE *f, char *buf)
{
    fclose(f);
    free(buf);
}

/* Opens a corpus file for reading line by line: read whole through fileio_read (regular files
 * only, capped: a FIFO or a device is refused, never blocked on), then read from memory.
 * NULL with a message; *buf is the caller's to free after fclose. */
static FILE *corpus_open(const char *path, char **buf, char *err, size_t errlen)
{
    size_t len = 0;
    *buf = NULL;
    if (fileio_read(path, FILEIO_MAX_BYTES, buf, &len, err, errlen))
        return NULL;
    FILE *f = len ? fmemopen(*buf, len, "r") : fopen("/dev/null", "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(*buf);
        *buf = NULL;
    }
    return f;
}

int corpus_load_lm(Corpus *c, const char *path, const Vocab *v, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->kind = CORPUS_LM;
    char *text;
    FILE *f = corpus_open(path, &text, err, errlen);
    if (!f)
        return -1;
    int cap = 0, scap = 0, lineno = 0;
    char *line;
    while ((line = read_line(f))) {
        lineno++;
        if (blank(line) || line[0] == '#') {
            free(line);
            continue;
        }
        int start = c->n_ids;
        int n = add_text(c, &cap, line, v, path, lineno, err, errlen);
        free(line);
        if (n < 0 || push(&c->starts, &c->n_lines, &scap, start) < 0) {
            if (n >= 0)
                snprintf(err, errlen, "%s: out of memory", path);
            corpus_close(f, text);
            corpus_free(c);
            return -1;
        }
    }
    corpus_close(f, text);
    if (c->n_lines == 0) {
        snprintf(err, errlen, "%s: no sentences", path);
        corpus_free(c);
        return -1;
    }
    return 0;
}

int corpus_load_pairs(Corpus *c, const char *path, const Vocab *v, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->kind = CORPUS_PAIRS;
    char *text;
    FILE *f = corpus_open(path, &text, err, errlen);
    if (!f)
        return -1;
    int cap = 0, lcap = 0, n_link_ints = 0, pcap = 0, lineno = 0;
    char *line;
    while ((line = read_line(f))) {
        lineno++;
        if (blank(line) || line[0] == '#') {
            free(line);
            continue;
        }
        char *t1 = strchr(line, '\t');
        char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t1) {
            snprintf(err, errlen, "%s:%d: expected \"english<TAB>french[<TAB>alignment]\"",
                     path, lineno);
            goto fail_line;
        }
        *t1 = 0;
        if (t2)
            *t2 = 0;
        if (c->n_pairs == pcap) {
            int nc = pcap ? pcap * 2 : 256;
            CorpusPair *np = realloc(c->pairs, sizeof *np * (size_t)nc);
            if (!np) {
                snprintf(err, errlen, "%s: out of memory", path);
                goto fail_line;
            }
            c->pairs = np;
            pcap = nc;
        }
        CorpusPair *p = &c->pairs[c->n_pairs];
        p->src_off = c->n_ids;
        p->src_len = add_text(c, &cap, line, v, path, lineno, err, errlen);
        if (p->src_len < 0)
            goto fail_line;
        p->tgt_off = c->n_ids;
        p->tgt_len = add_text(c, &cap, t1 + 1, v, path, lineno, err, errlen);
        if (p->tgt_len < 0)
            goto fail_line;
        if (p->src_len == 0 || p->tgt_len == 0) {
            snprintf(err, errlen, "%s:%d: empty sentence", path, lineno);
            goto fail_line;
        }
        p->link_off = n_link_ints / 2;
        p->n_links = 0;
        if (t2) {
            char *s = t2 + 1, *end;
            while (!blank(s)) {
                long i = strtol(s, &end, 10), j;
                if (end == s || *end != '-') {
                    snprintf(err, errlen, "%s:%d: alignment \"%s\" is not i-j pairs", path,
                             lineno, t2 + 1);
                    goto fail_line;
                }
                s = end + 1;
                j = strtol(s, &end, 10);
                if (end == s || i < 0 || i >= p->src_len || j < 0 || j >= p->tgt_len) {
                    snprintf(err, errlen, "%s:%d: alignment link %ld-%ld out of range", path,
                             lineno, i, j);
                    goto fail_line;
                }
                s = end;
                if (push(&c->links, &n_link_ints, &lcap, (int)i) < 0 ||
                    push(&c->links, &n_link_ints, &lcap, (int)j) < 0) {
                    snprintf(err, errlen, "%s: out of memory", path);
                    goto fail_line;
                }
                p->n_links++;
            }
        }
        c->n_pairs++;
        free(line);
        continue;
    fail_line:
        free(line);
        corpus_close(f, text);
        corpus_free(c);
        return -1;
    }
    corpus_close(f, text);
    if (c->n_pairs == 0) {
        snprintf(err, errlen, "%s: no sentence pairs", path);
        corpus_free(c);
        return -1;
    }
    return 0;
}

int corpus_linked(const Corpus *c, int p, int i, int j)
{
    const CorpusPair *cp = &c->pairs[p];
    for (int k = 0; k < cp->n_links; k++) {
        const int *l = c->links + 2 * (cp->link_off + k);
        if (l[0] == i && l[1] == j)
            return 1;
    }
    return 0;
}
