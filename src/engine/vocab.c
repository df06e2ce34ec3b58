/* vocab.c - the vocabulary and tokenizer, word-level or WordPiece (see vocab.h). */
#include "vocab.h"

#include "fileio.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VOCAB_LINE_MAX 254 /* longest line of a vocabulary file */

int vocab_id(const Vocab *v, const char *word)
{
    return strmap_get(&v->map, word, strlen(word));
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
    if (v->words && !v->words_in_map)
        for (int i = 0; i < v->n; i++)
            free(v->words[i]);
    free(v->words);
    strmap_free(&v->map);
    memset(v, 0, sizeof *v);
}

int vocab_start(Vocab *v, int n, size_t bytes, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    v->pad_id = v->unk_id = -1;
    v->words_in_map = 1;
    v->words = calloc(n > 0 ? (size_t)n : 1, sizeof *v->words);
    if (!v->words || strmap_reserve(&v->map, n, bytes)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    v->cap = n;
    return 0;
}

int vocab_push(Vocab *v, const char *w, size_t len, char *err, size_t errlen)
{
    int at = v->n < v->cap ? strmap_put(&v->map, w, len, v->n, NULL) : -1;
    if (at < 0) {
        snprintf(err, errlen, v->n < v->cap ? "out of memory" : "more words than vocab_start's %d", v->cap);
        return -1;
    }
    v->words[v->n++] = v->map.keys[at];
    return 0;
}

int vocab_init(Vocab *v, const char *const *words, int n, char *err, size_t errlen)
{
    return vocab_init_kind(v, VOCAB_WORDS, words, n, err, errlen);
}

/* Why the tokenizer of kind could never produce word w ("" when it can): it lowercases ASCII
 * letters and splits at whitespace and at each ASCII punctuation character (next_span);
 * special tokens <...> are written literally, WordPiece pieces may start with "##". */
static const char *unreachable(VocabKind kind, const char *w, char *why, size_t n)
{
    size_t len = strlen(w);
    size_t cl = strlen(VOCAB_CONT);
    if (len >= 2 && w[0] == '<' && w[len - 1] == '>' && !strpbrk(w, " \t\n\r\v\f"))
        return ""; /* a special token (<pad>, <bos>, <0x41>...); whitespace splits, even here */
    if (len == cl + 6 && !strncmp(w, VOCAB_CONT, cl) && !strncmp(w + cl, "<0x", 3) &&
        w[len - 1] == '>')
        return ""; /* a byte token inside a word ("##<0xA9>") */
    if (len == 1 && (unsigned char)w[0] < 128 && ispunct((unsigned char)w[0]))
        return ""; /* punctuation is a token of its own */
    const char *p = w;
    (void)kind; /* a piece "##ing" is checked after its "##" (kept in either kind: a WordPiece
                 * vocabulary read as words keeps its pieces as they are) */
    if (!strncmp(p, VOCAB_CONT, strlen(VOCAB_CONT)) && p[strlen(VOCAB_CONT)])
        p += strlen(VOCAB_CONT);
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (isspace(c)) {
            snprintf(why, n, "contains %s (the tokenizer splits words at whitespace)",
                     c == ' ' ? "a space" : "whitespace");
            return why;
        }
        if (c < 128 && isupper(c)) {
            snprintf(why, n, "has a capital letter (the tokenizer lowercases what it reads, "
                     "so \"%c\" becomes \"%c\")", c, tolower(c));
            return why;
        }
        if (c < 128 && ispunct(c)) {
            snprintf(why, n, "contains \"%c\" (the tokenizer makes each punctuation mark a "
                     "token of its own)", c);
            return why;
        }
    }
    return "";
}

int vocab_init_kind(Vocab *v, VocabKind kind, const char *const *words, int n, char *err,
                    size_t errlen)
{
    memset(v, 0, sizeof *v);
    v->kind = kind;
    if (n <= 0) {
        snprintf(err, errlen, "vocabulary is empty");
        return -1;
    }
    v->words = calloc((size_t)n, sizeof *v->words);
    if (!v->words) {
        snprintf(err, errlen, "out of memory");
        vocab_free(v);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const char *w = words[i];
        size_t len = w ? strlen(w) : 0;
        if (len == 0 || len > VOCAB_WORD_MAX) {
            snprintf(err, errlen, "vocabulary word %d is %s", i, len ? "too long" : "empty");
            vocab_free(v);
            return -1;
        }
        char why[160];
        if (unreachable(kind, w, why, sizeof why)[0]) {
            /* a word no sentence can ever become: its weights would be dead */
            char shown[VOCAB_WORD_MAX * 2 + 8];
            size_t o = 0;
            for (const char *q = w; *q && o + 2 < sizeof shown; q++)
                shown[o++] = (unsigned char)*q < 0x20 || *q == 0x7f ? '?' : *q;
            shown[o] = 0;
            snprintf(err, errlen, "vocabulary word %d \"%s\" %s, so it could never be produced",
                     i, shown, why);
            vocab_free(v);
            return -1;
        }
        if (vocab_id(v, w) >= 0) {
            snprintf(err, errlen, "vocabulary word %d \"%s\" is repeated", i, w);
            vocab_free(v);
            return -1;
        }
        v->words[i] = strdup(w);
        if (!v->words[i] || strmap_put(&v->map, w, len, i, NULL) < 0) {
            free(v->words[i]);
            v->words[i] = NULL;
            snprintf(err, errlen, "out of memory");
            vocab_free(v);
            return -1;
        }
        v->n = i + 1;
    }
    v->pad_id = vocab_id(v, VOCAB_PAD);
    v->unk_id = vocab_id(v, VOCAB_UNK);
    for (int i = 0; i < n && !v->cont_bytes; i++)
        v->cont_bytes = !strncmp(v->words[i], VOCAB_CONT "<0x", strlen(VOCAB_CONT) + 3);
    if (v->pad_id < 0 || v->unk_id < 0) {
        snprintf(err, errlen, "vocabulary lacks %s", v->pad_id < 0 ? VOCAB_PAD : VOCAB_UNK);
        vocab_free(v);
        return -1;
    }
    v->kind = kind; /* vocab_free cleared it on the way */
    return 0;
}

const char *vocab_kind_name(VocabKind k)
{
    return k == VOCAB_WORDPIECE ? "wordpiece" : "words";
}

int vocab_kind_parse(const char *name)
{
    if (strcmp(name, "words") == 0)
        return VOCAB_WORDS;
    if (strcmp(name, "wordpiece") == 0)
        return VOCAB_WORDPIECE;
    return -1;
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
    size_t dl = strlen(VOCAB_DIRECTIVE);
    VocabKind kind = tlen >= dl && memcmp(text, VOCAB_DIRECTIVE, dl) == 0 &&
                     (tlen == dl || text[dl] == '\n' || text[dl] == '\r') ? VOCAB_WORDPIECE
                                                                          : VOCAB_WORDS;
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
        if (len == 0 || (kind == VOCAB_WORDS && line[0] == '#') ||
            (kind == VOCAB_WORDPIECE && lineno == 1))
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
        rc = vocab_init_kind(v, kind, (const char *const *)words, n, e2, sizeof e2);
        if (rc)
            snprintf(err, errlen, "%s: %s", path, e2);
    }
    for (int i = 0; i < n; i++)
        free(words[i]);
    free(words);
    return rc;
}

/* What next_span found. */
typedef enum { SPAN_END, SPAN_SPECIAL, SPAN_PUNCT, SPAN_WORD } SpanKind;

/* The next token span of the text at *p (skipping whitespace): a special token written
 * literally, one ASCII punctuation character, or a word (a run of anything else, case as
 * written). Sets *start and *len and moves *p past it. */
static SpanKind next_span(const char **p, const char **start, size_t *len)
{
    const char *q = *p;
    while (*q && isspace((unsigned char)*q))
        q++;
    *start = q;
    unsigned char c = (unsigned char)*q;
    SpanKind k;
    if (!c) {
        *len = 0;
        k = SPAN_END;
    } else if (c == '<' && (strncmp(q, VOCAB_PAD, 5) == 0 || strncmp(q, VOCAB_UNK, 5) == 0)) {
        *len = 5;
        k = SPAN_SPECIAL;
    } else if (c == '<' && strncmp(q, VOCAB_MASK, 6) == 0) {
        *len = 6;
        k = SPAN_SPECIAL;
    } else if (c < 128 && ispunct(c)) {
        *len = 1;
        k = SPAN_PUNCT;
    } else {
        const char *e = q;
        while (*e && !isspace((unsigned char)*e) &&
               !((unsigned char)*e < 128 && ispunct((unsigned char)*e)))
            e++;
        *len = (size_t)(e - q);
        k = SPAN_WORD;
    }
    *p = q + *len;
    return k;
}

/* Copies n bytes of s into buf (n < size), ASCII letters lowercased, and terminates it. */
static void lower_copy(char *buf, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char d = (unsigned char)s[i];
        buf[i] = (char)(d < 128 ? tolower(d) : d);
    }
    buf[n] = 0;
}

void vocab_split(const char *text, void (*fn)(const char *tok, void *ctx), void *ctx)
{
    char buf[VOCAB_WORD_MAX * 4 + 8];
    const char *p = text, *s;
    size_t len;
    SpanKind k;
    while ((k = next_span(&p, &s, &len)) != SPAN_END) {
        lower_copy(buf, s, len < sizeof buf - 1 ? len : sizeof buf - 1);
        fn(buf, ctx);
    }
}

typedef struct {
    const Vocab *v;
    int *ids;
    int max_ids, written;
    TokenizeInfo *info;
} TokCtx;

/* Appends id (or <unk> when id < 0, reporting word) to the output. */
static void emit(TokCtx *c, int id, const char *word)
{
    if (id < 0) {
        id = c->v->unk_id;
        if (c->info) {
            if (c->info->n_unknown < VOCAB_MAX_UNKNOWN)
                snprintf(c->info->unknown[c->info->n_unknown], VOCAB_WORD_MAX + 1, "%s", word);
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

static void tok_one(const char *tok, void *vctx)
{
    TokCtx *c = vctx;
    emit(c, strlen(tok) <= VOCAB_WORD_MAX ? vocab_id(c->v, tok) : -1, tok);
}

/* The byte token of byte b: "##<0xHH>" inside a word (cont) when the vocabulary has it,
 * else "<0xHH>"; -1 when the vocabulary lacks both. */
static int byte_id(const Vocab *v, unsigned char b, int cont)
{
    char t[16];
    snprintf(t, sizeof t, "%s<0x%02X>", cont ? VOCAB_CONT : "", b);
    int id = vocab_id(v, t);
    return id >= 0 || !cont ? id : vocab_id(v, t + strlen(VOCAB_CONT));
}

/* The id of the piece s[0..n) lowercased, "##" in front when cont; -1 when unknown. */
static int piece_id(const Vocab *v, const char *s, size_t n, int cont)
{
    char buf[VOCAB_WORD_MAX + 1];
    size_t pre = cont ? strlen(VOCAB_CONT) : 0;
    if (n + pre > VOCAB_WORD_MAX)
        return -1;
    memcpy(buf, VOCAB_CONT, pre);
    lower_copy(buf + pre, s, n);
    return vocab_id(v, buf);
}

#define SEG_MAX 128 /* a run longer than this is split in runs of this length first */

/* The run s[0..n) (n <= SEG_MAX) of letters (or other non-digit bytes) in the fewest known
 * pieces, the first one plain when at_start, the others "##"; of splits with as many pieces
 * the one whose earlier pieces are longer ("love ##s", not "lo ##ves"); a byte no piece
 * covers is its byte token. */
static void split_letters(TokCtx *c, const char *s, size_t n, int at_start)
{
    int cost[SEG_MAX + 1], next[SEG_MAX + 1], id[SEG_MAX + 1];
    cost[n] = 0;
    for (size_t i = n; i-- > 0;) {
        int cont = i > 0 || !at_start;
        cost[i] = -1;
        for (size_t j = n; j > i; j--) { /* longest first: a tie keeps the longer piece */
            if (cost[i] >= 0 && cost[j] + 1 >= cost[i])
                continue;
            int p = piece_id(c->v, s + i, j - i, cont);
            if (p >= 0) {
                cost[i] = cost[j] + 1;
                next[i] = (int)j;
                id[i] = p;
            }
        }
        if (cost[i] < 0) { /* no piece starts here: the byte token */
            cost[i] = cost[i + 1] + 1;
            next[i] = (int)i + 1;
            id[i] = -2;
        }
    }
    char w[8];
    for (size_t i = 0; i < n; i = (size_t)next[i]) {
        int cont = i > 0 || !at_start;
        if (id[i] >= 0) {
            emit(c, id[i], "");
        } else {
            lower_copy(w, s + i, 1);
            emit(c, byte_id(c->v, (unsigned char)w[0], cont), w);
        }
    }
}

/* The run of digits s[0..n): the number whole when the vocabulary knows it, else one token per
 * digit, so a number never splits at an arbitrary place ("1789" or "1 ##7 ##8 ##9"). */
static void split_digits(TokCtx *c, const char *s, size_t n, int at_start)
{
    int id = piece_id(c->v, s, n, !at_start);
    if (id >= 0) {
        emit(c, id, "");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int p = piece_id(c->v, s + i, 1, i > 0 || !at_start);
        char d[2] = {s[i], 0};
        emit(c, p >= 0 ? p : byte_id(c->v, (unsigned char)s[i], i > 0 || !at_start), d);
    }
}

/* The split of a vocabulary without "##<0xHH>" (trained before the natural split, and so
 * read as it was trained): the longest known pieces from the left ("##" on all but the
 * first), a byte token where no piece starts. */
static void split_greedy(TokCtx *c, const char *s, size_t len)
{
    char buf[VOCAB_WORD_MAX + 1];
    size_t cl = strlen(VOCAB_CONT);
    for (size_t i = 0; i < len;) {
        size_t pre = i ? cl : 0, room = VOCAB_WORD_MAX - pre;
        size_t j = len - i < room ? len - i : room;
        int id = -1;
        for (; j > 0; j--) {
            memcpy(buf, VOCAB_CONT, pre);
            lower_copy(buf + pre, s + i, j);
            if ((id = vocab_id(c->v, buf)) >= 0)
                break;
        }
        if (id >= 0) {
            emit(c, id, buf);
            i += j;
            continue;
        }
        lower_copy(buf, s + i, 1);
        emit(c, byte_id(c->v, (unsigned char)buf[0], 0), buf);
        i++;
    }
}

/* WordPiece: the word s[0..len) as one token when known. Else, in a vocabulary that marks
 * inner bytes (cont_bytes: the natural split), its runs of digits and of other bytes, each
 * split by split_digits or split_letters, the first piece of the word plain, the later ones
 * "##" (a letter after a digit starts a piece: "12 ##b"); in an older one, split_greedy. */
static void wordpiece(TokCtx *c, const char *s, size_t len)
{
    int id = piece_id(c->v, s, len, 0);
    if (id >= 0) {
        emit(c, id, "");
        return;
    }
    if (c->info)
        c->info->n_split++;
    if (!c->v->cont_bytes) {
        split_greedy(c, s, len);
        return;
    }
    for (size_t i = 0; i < len;) {
        int digit = isdigit((unsigned char)s[i]) != 0;
        size_t j = i + 1;
        while (j < len && j - i < SEG_MAX && (isdigit((unsigned char)s[j]) != 0) == digit)
            j++;
        if (digit)
            split_digits(c, s + i, j - i, i == 0);
        else
            split_letters(c, s + i, j - i, i == 0);
        i = j;
    }
}

int vocab_tokenize(const Vocab *v, const char *text, int *ids, int max_ids, TokenizeInfo *info)
{
    TokCtx c = {v, ids, max_ids, 0, info};
    if (info)
        memset(info, 0, sizeof *info);
    if (v->tok_encode)
        return v->tok_encode(v->tok, text, ids, max_ids, info);
    if (v->kind == VOCAB_WORDS) {
        vocab_split(text, tok_one, &c);
        return c.written;
    }
    const char *p = text, *s;
    size_t len;
    SpanKind k;
    while ((k = next_span(&p, &s, &len)) != SPAN_END) {
        if (k == SPAN_WORD) {
            wordpiece(&c, s, len);
            continue;
        }
        char buf[8];
        lower_copy(buf, s, len);
        int id = vocab_id(v, buf);
        if (k == SPAN_SPECIAL && id < 0) {
            /* a WordPiece vocabulary without this special token reads it as the text it is:
             * "<", then the word and the ">" after it on the next turns */
            k = SPAN_PUNCT;
            p = s + 1;
            buf[1] = 0;
            id = vocab_id(v, buf);
        }
        emit(&c, id >= 0 || k != SPAN_PUNCT ? id : byte_id(v, (unsigned char)*s, 0), buf);
    }
    return c.written;
}

/* 1 if w is a byte token, "<0xHH>" or "##<0xHH>". */
static int is_byte_token(const char *w)
{
    if (!strncmp(w, VOCAB_CONT, strlen(VOCAB_CONT)))
        w += strlen(VOCAB_CONT);
    return strncmp(w, "<0x", 3) == 0 && strlen(w) == 6 && w[5] == '>';
}

int vocab_joins_prev(const Vocab *v, int id)
{
    if (v->tok_encode) /* a model's own tokens carry their spaces (" cat") */
        return id >= 0 && id < v->n;
    if (v->kind != VOCAB_WORDPIECE || id < 0 || id >= v->n)
        return 0;
    const char *w = v->words[id];
    /* a plain byte token joins only in a vocabulary without "##<0xHH>" (trained before
     * inner bytes were marked): there it may sit inside a word */
    return strncmp(w, VOCAB_CONT, strlen(VOCAB_CONT)) == 0 ||
           (strncmp(w, "<0x", 3) == 0 && strlen(w) == 6 && !v->cont_bytes);
}

size_t vocab_join(const Vocab *v, const int *ids, int n, char *buf, size_t len)
{
    size_t o = 0;
    if (!len)
        return 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++) {
        const char *w = vocab_word(v, ids[i]);
        char b[2] = {0, 0};
        int joins = vocab_joins_prev(v, ids[i]);
        if (v->tok_encode) {
            /* as the token reads */
        } else if (is_byte_token(w)) {
            b[0] = (char)strtol(strchr(w, '<') + 3, NULL, 16);
            w = b;
        } else if (joins) {
            w += strlen(VOCAB_CONT);
        }
        int wrote = snprintf(buf + o, len - o, "%s%s", i && !joins ? " " : "", w);
        if (wrote < 0 || (size_t)wrote >= len - o) {
            buf[len - 1] = 0;
            return len - 1;
        }
        o += (size_t)wrote;
    }
    return o;
}

const char *vocab_count_text(const TokenizeInfo *info, char *buf, size_t n)
{
    if (info->stopped)
        snprintf(buf, n, "more than %d", info->n_tokens - 1);
    else
        snprintf(buf, n, "%d", info->n_tokens);
    return buf;
}

int vocab_tokenize_problem(const TokenizeInfo *info, int n, int cap, const char *what,
                           char *buf, size_t len)
{
    char cnt[32];
    if (info->error[0])
        snprintf(buf, len, "the %s: %s", what, info->error);
    else if (info->truncated)
        snprintf(buf, len, "the %s has %s tokens; this model reads at most %d", what,
                 vocab_count_text(info, cnt, sizeof cnt), cap);
    else if (n == 0)
        snprintf(buf, len, "the %s has no tokens", what);
    else
        return 0;
    return 1;
}
