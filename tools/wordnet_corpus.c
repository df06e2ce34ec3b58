/* wordnet_corpus.c - builds the real-English corpus and its WordPiece vocabulary from the
 * WordNet database that Debian's wordnet-base package installs (docs/data.md).
 *
 *   wordnet_corpus [--wordnet DIR] [--out DIR] [--vocab FILE] [--words N] [--pieces N]
 *                  [--not-in FILE] [--natural] [--everyday FILE]... [--common FILE]...
 *
 * Reads DIR/data.noun, data.verb, data.adj and data.adv (default /usr/share/wordnet). Each
 * synset line ends in "| gloss": a definition, then example sentences in double quotes. The
 * tool writes every example of three or more words as a line, and every definition as
 * "lemma: definition", each ending in '.', '?' or '!' (a '.' is added when it has none),
 * distinct lines only, in file order: every 20th line into OUT/wordnet-test.txt (held out),
 * the others into OUT/wordnet.txt. Then it trains a WordPiece vocabulary on the training text
 * with the engine's subword_train (the N most frequent words whole, a word of an example
 * counted three times and one of a definition once; then every word of the --everyday
 * files, one a line, lowercased, that is only letters (SCOWL's lists of common English words
 * and names: docs/data.md); then every such word of the --common files that the counted text
 * has as often as a kept word must (3 times); then N pieces; --natural: the vocabulary of the
 * natural split, vocab.h, where an everyday or common word that is a kept word plus an
 * inflection is left out, subword.h) and writes
 * FILE (default data/vocab-wordnet.txt). Same package, same files, byte for byte. With --not-in,
 * it fails if a sentence of that file ('#' lines skipped; data/everyday.txt) is a line of the
 * corpus, compared lowercased without spaces or final punctuation. */
#include "fileio.h"
#include "subword.h"
#include "vocab.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_WORDS 3  /* shorter examples ("polar diameter") are fragments */
#define MAX_WORDS 40 /* longer lines are rare and would only be cut into windows */
#define TEST_EVERY 20

/* A growing text buffer. */
typedef struct {
    char *s;
    size_t n, cap;
} Buf;

static int buf_add(Buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1 << 20;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns)
            return -1;
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
    return 0;
}

/* The distinct lines seen so far (open addressing on a hash of the text). */
typedef struct {
    char **s;
    size_t n, cap;
} Seen;

static unsigned long hash_line(const char *s)
{
    unsigned long h = 1469598103934665603ul;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ul;
    return h;
}

/* 1 if line was new (and is now remembered), 0 if seen before, -1 out of memory. */
static int seen_add(Seen *t, const char *line)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1 << 16;
        char **ns = calloc(cap, sizeof *ns);
        if (!ns)
            return -1;
        for (size_t i = 0; i < t->cap; i++)
            if (t->s[i]) {
                size_t h = hash_line(t->s[i]) & (cap - 1);
                while (ns[h])
                    h = (h + 1) & (cap - 1);
                ns[h] = t->s[i];
            }
        free(t->s);
        t->s = ns;
        t->cap = cap;
    }
    size_t h = hash_line(line) & (t->cap - 1);
    for (; t->s[h]; h = (h + 1) & (t->cap - 1))
        if (strcmp(t->s[h], line) == 0)
            return 0;
    if (!(t->s[h] = strdup(line)))
        return -1;
    t->n++;
    return 1;
}

static void seen_free(Seen *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->s[i]);
    free(t->s);
}

/* 1 if line is in t. */
static int seen_has(const Seen *t, const char *line)
{
    if (!t->cap)
        return 0;
    for (size_t h = hash_line(line) & (t->cap - 1); t->s[h]; h = (h + 1) & (t->cap - 1))
        if (strcmp(t->s[h], line) == 0)
            return 1;
    return 0;
}

typedef struct {
    Buf train, test;
    Buf examples; /* the training examples again, for the vocabulary's counts */
    Seen seen;
    long n_lines, n_examples, n_definitions;
} Out;

static void count_word(const char *tok, void *ctx)
{
    unsigned char c = (unsigned char)tok[0];
    if (!(c < 128 && ispunct(c)))
        ++*(int *)ctx;
}

/* Adds one line (trimmed, a final '.' added when it ends in none of . ? !) if it has
 * MIN_WORDS..MAX_WORDS words and was not seen before. */
static int add_line(Out *o, const char *s, size_t n, int is_example)
{
    char line[1200];
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n > sizeof line - 4)
        return 0;
    memcpy(line, s, n);
    line[n] = 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)line[i] < 32)
            line[i] = ' ';
    int words = 0;
    vocab_split(line, count_word, &words);
    if (words < MIN_WORDS || words > MAX_WORDS)
        return 0;
    if (!strchr(".?!", line[n - 1]))
        memcpy(line + n, ".", 2);
    int fresh = seen_add(&o->seen, line);
    if (fresh <= 0)
        return fresh;
    Buf *b = o->n_lines % TEST_EVERY == TEST_EVERY - 1 ? &o->test : &o->train;
    o->n_lines++;
    if (is_example && b == &o->train &&
        (buf_add(&o->examples, line, strlen(line)) || buf_add(&o->examples, "\n", 1)))
        return -1;
    if (is_example)
        o->n_examples++;
    else
        o->n_definitions++;
    return buf_add(b, line, strlen(line)) || buf_add(b, "\n", 1) ? -1 : 0;
}

/* The first lemma of a synset line ("laying_waste" -> "laying waste", "free(a)" -> "free"). */
static void first_lemma(const char *line, char *out, size_t cap)
{
    /* offset lex_filenum ss_type w_cnt(hex) word lex_id ... */
    const char *p = line;
    for (int field = 0; field < 4 && *p; field++) {
        while (*p && *p != ' ')
            p++;
        while (*p == ' ')
            p++;
    }
    size_t n = 0;
    for (; *p && *p != ' ' && *p != '(' && n + 1 < cap; p++)
        out[n++] = *p == '_' ? ' ' : *p;
    out[n] = 0;
}

/* One synset line: its definition as "lemma: definition" and each quoted example. */
static int add_synset(Out *o, const char *line)
{
    const char *bar = strstr(line, " | ");
    if (!bar)
        return 0;
    const char *g = bar + 3, *q = strchr(g, '"');
    size_t dl = q ? (size_t)(q - g) : strlen(g);
    while (dl && (isspace((unsigned char)g[dl - 1]) || g[dl - 1] == ';'))
        dl--;
    char lemma[128], def[1200];
    first_lemma(line, lemma, sizeof lemma);
    if (dl && dl < sizeof def - sizeof lemma - 4) {
        int n = snprintf(def, sizeof def, "%s: %.*s", lemma, (int)dl, g);
        if (add_line(o, def, (size_t)n, 0) < 0)
            return -1;
    }
    while (q) {
        const char *e = strchr(q + 1, '"');
        if (!e)
            break;
        if (add_line(o, q + 1, (size_t)(e - q - 1), 1) < 0)
            return -1;
        q = strchr(e + 1, '"');
    }
    return 0;
}

static int write_file(const char *path, const Buf *b, char *err, size_t errlen)
{
    FileioTmp t;
    if (fileio_tmp_open(&t, path, 0644, err, errlen))
        return -1;
    if (fileio_write_all(t.fd, b->s ? b->s : "", b->n)) {
        snprintf(err, errlen, "%s: cannot write", path);
        fileio_tmp_abort(&t);
        return -1;
    }
    return fileio_tmp_commit(&t, err, errlen);
}

/* line lowercased, without whitespace and final . ? ! into out (cap bytes). */
static void normal(const char *line, char *out, size_t cap)
{
    size_t o = 0;
    for (; *line && o + 1 < cap; line++)
        if (!isspace((unsigned char)*line))
            out[o++] = (char)tolower((unsigned char)*line);
    while (o && strchr(".?!", out[o - 1]))
        o--;
    out[o] = 0;
}

/* 0 if no sentence of path is a line of the corpus (train or test), else -1 naming it. */
static int check_not_in(const char *path, const Out *o)
{
    char *text, err[1200], norm[1300];
    size_t len;
    if (fileio_read(path, FILEIO_MAX_BYTES, &text, &len, err, sizeof err)) {
        fprintf(stderr, "wordnet_corpus: %s\n", err);
        return -1;
    }
    Seen mine = {0};
    for (char *p = strtok(text, "\n"); p; p = strtok(NULL, "\n"))
        if (p[0] != '#') {
            normal(p, norm, sizeof norm);
            if (seen_add(&mine, norm) < 0)
                return -1;
        }
    int rc = 0;
    const Buf *bufs[2] = {&o->train, &o->test};
    for (int b = 0; b < 2; b++)
        for (const char *p = bufs[b]->s; p && *p;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            char line[1300];
            snprintf(line, sizeof line, "%.*s", (int)n, p);
            normal(line, norm, sizeof norm);
            if (seen_has(&mine, norm)) {
                fprintf(stderr, "wordnet_corpus: %s: \"%s\" is a line of the corpus\n", path,
                        line);
                rc = -1;
            }
            p = nl ? nl + 1 : p + n;
        }
    seen_free(&mine);
    free(text);
    return rc;
}

/* Appends the words of path (one a line, lowercased; UTF-8, ISO-8859-1 or anything: words
 * that are not all ASCII letters are dropped by subword_train) to *words. 0, or -1 with a
 * message. */
static int read_everyday(const char *path, char ***words, int *n, char *err, size_t errlen)
{
    char *text;
    size_t len;
    if (fileio_read(path, FILEIO_MAX_BYTES, &text, &len, err, errlen))
        return -1;
    for (char *p = text; p < text + len;) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        if (nl)
            *nl = 0;
        for (char *q = p; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        char **nw = realloc(*words, sizeof *nw * (size_t)(*n + 1));
        if (!nw || !(nw[*n] = strdup(p))) {
            free(nw ? nw : *words);
            *words = NULL;
            free(text);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        *words = nw;
        (*n)++;
        p = nl ? nl + 1 : text + len;
    }
    free(text);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: wordnet_corpus [--wordnet DIR] [--out DIR] [--vocab FILE] "
                    "[--words N] [--pieces N] [--not-in FILE] [--natural] [--everyday FILE]... [--common FILE]...\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *wn = "/usr/share/wordnet", *dir = "data/corpus", *vocab = "data/vocab-wordnet.txt";
    const char *not_in = NULL;
    SubwordOpts so = {.n_words = 5000, .min_count = 3, .n_pieces = 600};
    char **everyday = NULL, **common = NULL;
    int n_everyday = 0, n_common = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--natural")) {
            so.natural = 1;
            continue;
        }
        if (!v)
            return usage();
        if (!strcmp(a, "--wordnet"))
            wn = v;
        else if (!strcmp(a, "--out"))
            dir = v;
        else if (!strcmp(a, "--vocab"))
            vocab = v;
        else if (!strcmp(a, "--words"))
            so.n_words = atoi(v);
        else if (!strcmp(a, "--pieces"))
            so.n_pieces = atoi(v);
        else if (!strcmp(a, "--not-in"))
            not_in = v;
        else if (!strcmp(a, "--everyday") || !strcmp(a, "--common")) {
            char e[300];
            int ev = !strcmp(a, "--everyday");
            if (read_everyday(v, ev ? &everyday : &common, ev ? &n_everyday : &n_common, e,
                              sizeof e)) {
                fprintf(stderr, "wordnet_corpus: %s\n", e);
                return 1;
            }
        }
        else
            return usage();
        i++;
    }
    static const char *const FILES[] = {"data.noun", "data.verb", "data.adj", "data.adv"};
    Out o = {0};
    char err[1200], path[1100];
    for (int f = 0; f < 4; f++) {
        char *text;
        size_t len;
        snprintf(path, sizeof path, "%s/%s", wn, FILES[f]);
        if (fileio_read(path, FILEIO_MAX_BYTES, &text, &len, err, sizeof err)) {
            fprintf(stderr, "wordnet_corpus: %s (install Debian's wordnet-base package)\n", err);
            return 1;
        }
        for (char *p = text; p < text + len;) {
            char *nl = memchr(p, '\n', (size_t)(text + len - p));
            if (nl)
                *nl = 0;
            if (p[0] != ' ' && add_synset(&o, p)) {
                fprintf(stderr, "wordnet_corpus: out of memory\n");
                return 1;
            }
            p = nl ? nl + 1 : text + len;
        }
        free(text);
    }
    if (not_in && check_not_in(not_in, &o))
        return 1;
    Vocab v;
    snprintf(path, sizeof path, "%s/wordnet.txt", dir);
    if (write_file(path, &o.train, err, sizeof err)) {
        fprintf(stderr, "wordnet_corpus: %s\n", err);
        return 1;
    }
    snprintf(path, sizeof path, "%s/wordnet-test.txt", dir);
    /* The vocabulary counts a word of an example three times, of a definition once: the
     * examples are everyday usage, the definitions dictionary language. */
    Buf counted = {0};
    if (buf_add(&counted, o.train.s, o.train.n) || buf_add(&counted, o.examples.s, o.examples.n) ||
        buf_add(&counted, o.examples.s, o.examples.n)) {
        fprintf(stderr, "wordnet_corpus: out of memory\n");
        return 1;
    }
    so.everyday = (const char *const *)everyday;
    so.n_everyday = n_everyday;
    so.common = (const char *const *)common;
    so.n_common = n_common;
    if (write_file(path, &o.test, err, sizeof err) ||
        subword_train(counted.s, &so, &v, err, sizeof err) ||
        subword_save(&v, vocab, err, sizeof err)) {
        fprintf(stderr, "wordnet_corpus: %s\n", err);
        return 1;
    }
    printf("wordnet_corpus: %ld lines (%ld examples, %ld definitions), %ld held out; "
           "vocabulary %d tokens in %s\n", o.n_lines, o.n_examples, o.n_definitions,
           o.n_lines / TEST_EVERY, v.n, vocab);
    vocab_free(&v);
    for (int i = 0; i < n_everyday; i++)
        free(everyday[i]);
    free(everyday);
    for (int i = 0; i < n_common; i++)
        free(common[i]);
    free(common);
    free(counted.s);
    free(o.train.s);
    free(o.test.s);
    free(o.examples.s);
    seen_free(&o.seen);
    return 0;
}
