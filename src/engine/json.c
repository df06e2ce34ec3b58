/* json.c - JSON file reading with file:line:col errors and typed getters (see json.h). */
#include "json.h"
#include "utf8.h"

#include "cpu.h"
#include "fileio.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_line_col(const char *text, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else if (!utf8_is_cont((unsigned char)text[i])) {
            c++; /* count characters, not UTF-8 continuation bytes */
        }
    }
    *line = l;
    *col = c;
}

/* What the byte at a syntax error is, without quoting the file's contents (a lesson may point
 * at any file: its bytes must not reach the screen): JSON's own punctuation is named, anything
 * else only by its class. */
static const char *describe_byte(unsigned char c)
{
    switch (c) {
    case '{': return "'{'";
    case '}': return "'}'";
    case '[': return "'['";
    case ']': return "']'";
    case ',': return "','";
    case ':': return "':'";
    case '"': return "a '\"'";
    case 0: return "a NUL byte";
    }
    if (c == '\n' || c == '\r')
        return "the end of a line";
    if (c < 0x20 || c == 0x7f)
        return "a control character";
    if (c >= 0x80)
        return "a non-ASCII character";
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return "a letter (a word that is not a JSON value, or a missing quote)";
    if (c >= '0' && c <= '9')
        return "a digit";
    return "an unexpected character";
}

/* Long string values lifted out of the text before cJSON sees it. cJSON copies a string a
 * byte at a time in two passes; a model's weights are megabytes of base64 in a few strings,
 * so the parse is handed the text with those strings' contents cut out ("" left in place),
 * and the contents are copied back into the tree afterwards with memcpy. */
enum { LIFT_MIN = 4096 }; /* bytes: only strings this long are worth lifting */
typedef struct {
    size_t ord;   /* which string token of the text (keys and values, in document order) */
    size_t at;    /* where its content starts in the original text */
    size_t len;   /* content bytes (no backslash among them) */
    size_t gap;   /* where the content was cut from the short text */
} Lifted;

/* Scans text for string tokens; fills *out (malloc'd, *nout entries) with the values of
 * LIFT_MIN bytes or more that hold no backslash. Only strings are told apart: for text that
 * is not valid JSON the list does not matter (the parse fails either way). */
static int lift_find(const char *text, size_t len, Lifted **out, size_t *nout)
{
    Lifted *v = NULL;
    size_t n = 0, cap = 0, ord = 0, i = 0;
    while (i < len) {
        const char *q = memchr(text + i, '"', len - i);
        if (!q)
            break;
        size_t s = (size_t)(q - text) + 1, e = s;
        const char *close = memchr(text + s, '"', len - s);
        if (!close)
            break;
        e = (size_t)(close - text);
        int escaped = memchr(text + s, '\\', e - s) != NULL;
        if (escaped) { /* walk it: a \" does not end the string */
            for (e = s; e < len && text[e] != '"'; e++)
                if (text[e] == '\\')
                    e++;
            if (e >= len)
                break;
        }
        size_t k = e + 1;
        while (k < len && (text[k] == ' ' || text[k] == '\n' || text[k] == '\r' || text[k] == '\t'))
            k++;
        int key = k < len && text[k] == ':';
        if (!escaped && !key && e - s >= LIFT_MIN) {
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                Lifted *nv = realloc(v, cap * sizeof *nv);
                if (!nv) {
                    free(v);
                    return -1;
                }
                v = nv;
            }
            v[n++] = (Lifted){ord, s, e - s, 0};
        }
        ord++;
        i = e + 1;
    }
    *out = v;
    *nout = n;
    return 0;
}

/* The text without the lifted contents (malloc'd, NUL-terminated, length in *slen); sets
 * each entry's gap. */
static char *lift_cut(const char *text, size_t len, Lifted *v, size_t n, size_t *slen)
{
    size_t cut = 0;
    for (size_t i = 0; i < n; i++)
        cut += v[i].len;
    char *s = malloc(len - cut + 1);
    if (!s)
        return NULL;
    size_t from = 0, to = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(s + to, text + from, v[i].at - from);
        to += v[i].at - from;
        v[i].gap = to;
        from = v[i].at + v[i].len;
    }
    memcpy(s + to, text + from, len - from);
    to += len - from;
    s[to] = 0;
    *slen = to;
    return s;
}

/* An offset in the short text -> the same place in the original text. */
static size_t lift_map(const Lifted *v, size_t n, size_t off)
{
    size_t add = 0;
    for (size_t i = 0; i < n && v[i].gap <= off; i++)
        add += v[i].len;
    return off + add;
}

/* Puts the lifted contents back into the tree, counting string tokens in document order as
 * lift_find did: copied (own == NULL), or borrowed from own, the text itself, whose closing
 * quote becomes the string's NUL (the node is marked cJSON_IsReference so cJSON_Delete leaves
 * it alone). Returns -1 when out of memory. */
static int lift_restore(cJSON *node, const char *text, char *own, const Lifted *v, size_t n,
                        size_t *ord, size_t *next)
{
    for (; node; node = node->next) {
        if (node->string)
            (*ord)++;
        if (cJSON_IsString(node)) {
            if (*next < n && v[*next].ord == *ord) {
                const Lifted *l = &v[*next];
                char *str = own ? own + l->at : malloc(l->len + 1);
                if (!str)
                    return -1;
                if (!own)
                    memcpy(str, text + l->at, l->len);
                str[l->len] = 0;
                free(node->valuestring);
                node->valuestring = str;
                if (own)
                    node->type |= cJSON_IsReference;
                (*next)++;
            }
            (*ord)++;
        }
        if (node->child && lift_restore(node->child, text, own, v, n, ord, next))
            return -1;
    }
    return 0;
}

/* json_parse_text, and with own (the text, writable) long strings borrowed from it. */
static cJSON *parse_text(const char *name, const char *text, char *own, size_t len, char *err,
                         size_t errlen)
{
    Lifted *lift = NULL;
    size_t nlift = 0, slen = len;
    const char *parsed = text;
    char *shortened = NULL;
    if (lift_find(text, len, &lift, &nlift) == 0 && nlift) {
        shortened = lift_cut(text, len, lift, nlift, &slen);
        if (shortened)
            parsed = shortened;
    }
    if (!shortened) {
        nlift = 0;
        slen = len;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(parsed, slen, &end, 0);
    size_t end_off = end && end >= parsed && (size_t)(end - parsed) <= slen
                         ? lift_map(lift, nlift, (size_t)(end - parsed))
                         : 0;
    free(shortened);
    if (!root) {
        free(lift);
        size_t off = end_off;
        if (off > len)
            off = len;
        int line, col;
        json_line_col(text, off, &line, &col);
        size_t rest = off;
        while (rest < len && (text[rest] == ' ' || text[rest] == '\n' || text[rest] == '\r' ||
                              text[rest] == '\t'))
            rest++;
        if (rest >= len)
            snprintf(err, errlen, "%s:%d:%d: JSON syntax error: unexpected end of file", name,
                     line, col);
        else
            snprintf(err, errlen, "%s:%d:%d: JSON syntax error at %s", name, line, col,
                     describe_byte((unsigned char)text[off]));
        return NULL;
    }
    /* Anything but whitespace after the value is an error too (checked before a borrowed
     * string's NUL is written into the text: the line count stops at a NUL). */
    if (end) {
        size_t off = end_off;
        while (off < len && (text[off] == ' ' || text[off] == '\n' || text[off] == '\r' ||
                             text[off] == '\t'))
            off++;
        if (off < len) { /* a NUL byte after the value is garbage too */
            int line, col;
            json_line_col(text, off, &line, &col);
            snprintf(err, errlen, "%s:%d:%d: JSON syntax error: text after the end of the value",
                     name, line, col);
            cJSON_Delete(root);
            free(lift);
            return NULL;
        }
    }
    size_t ord = 0, next = 0;
    if (nlift && (lift_restore(root, text, own, lift, nlift, &ord, &next) || next != nlift)) {
        cJSON_Delete(root); /* next != nlift cannot happen on a parse that succeeded */
        root = NULL;
        snprintf(err, errlen, "%s: out of memory reading JSON", name);
    }
    free(lift);
    return root;
}

cJSON *json_parse_text(const char *name, const char *text, size_t len, char *err, size_t errlen)
{
    return parse_text(name, text, NULL, len, err, errlen);
}

cJSON *json_parse_file_borrow(const char *path, char **buf, size_t *len, char *err,
                              size_t errlen)
{
    if (fileio_read(path, FILEIO_MAX_BYTES, buf, len, err, errlen))
        return NULL;
    cJSON *root = parse_text(path, *buf, *buf, *len, err, errlen);
    if (!root) {
        free(*buf);
        *buf = NULL;
    }
    return root;
}

cJSON *json_parse_file(const char *path, char **text_out, char *err, size_t errlen)
{
    if (text_out)
        *text_out = NULL;
    char *buf;
    size_t len;
    if (fileio_read(path, FILEIO_MAX_BYTES, &buf, &len, err, errlen))
        return NULL;
    cJSON *root = json_parse_text(path, buf, len, err, errlen);
    if (root && text_out)
        *text_out = buf;
    else
        free(buf);
    return root;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key of object o that appears twice, or NULL. */
static const char *dup_key(const cJSON *o)
{
    int k = 0;
    for (const cJSON *c = o->child; c; c = c->next)
        k++;
    if (k < 2)
        return NULL;
    if (k <= 16) {
        for (const cJSON *a = o->child; a; a = a->next)
            for (const cJSON *b = a->next; b; b = b->next)
                if (a->string && b->string && !strcmp(a->string, b->string))
                    return a->string;
        return NULL;
    }
    const char **keys = malloc(sizeof *keys * (size_t)k); /* sorted: O(k log k) */
    if (!keys)
        return NULL;
    int n = 0;
    for (const cJSON *c = o->child; c; c = c->next)
        if (c->string)
            keys[n++] = c->string;
    qsort(keys, (size_t)n, sizeof *keys, cmp_key);
    const char *d = NULL;
    for (int i = 1; i < n && !d; i++)
        if (!strcmp(keys[i - 1], keys[i]))
            d = keys[i];
    free(keys);
    return d;
}

static int dup_walk(const cJSON *v, char *path, size_t n, int depth)
{
    if (depth > 64)
        return 0;
    size_t at = strlen(path);
    if (cJSON_IsObject(v)) {
        const char *d = dup_key(v);
        if (d) {
            snprintf(path + at, n - at, "%s%s", at ? "." : "", d);
            return 1;
        }
    }
    if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
        return 0;
    int i = 0;
    for (const cJSON *c = v->child; c; c = c->next, i++) {
        if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
            continue; /* a scalar holds no keys: no path to build (a vocabulary has thousands) */
        if (cJSON_IsObject(v))
            snprintf(path + at, n - at, "%s%s", at ? "." : "", c->string ? c->string : "");
        else
            snprintf(path + at, n - at, "[%d]", i);
        if (dup_walk(c, path, n, depth + 1))
            return 1;
        path[at] = 0;
    }
    return 0;
}

int json_find_duplicate(const cJSON *root, char *path, size_t n)
{
    if (!n)
        return 0;
    path[0] = 0;
    return dup_walk(root, path, n, 0);
}

const cJSON *json_get(const cJSON *obj, const char *key)
{
    if (!obj || !cJSON_IsObject(obj))
        return NULL;
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

int json_get_number(const cJSON *obj, const char *key, double *out, const char *what, char *err,
                    size_t errlen)
{
    const cJSON *it = json_get(obj, key);
    if (!it) {
        snprintf(err, errlen, "missing key \"%s\"", what);
        return -1;
    }
    if (!cJSON_IsNumber(it)) {
        snprintf(err, errlen, "\"%s\" must be a number", what);
        return -1;
    }
    if (!isfinite(it->valuedouble)) {
        snprintf(err, errlen, "\"%s\" is not finite", what);
        return -1;
    }
    *out = it->valuedouble;
    return 0;
}

int json_get_int(const cJSON *obj, const char *key, int lo, int hi, int *out, const char *what,
                 char *err, size_t errlen)
{
    double d;
    if (json_get_number(obj, key, &d, what, err, errlen))
        return -1;
    if (d != floor(d)) {
        snprintf(err, errlen, "\"%s\" must be a whole number, got %g", what, d);
        return -1;
    }
    if (d < lo || d > hi) {
        snprintf(err, errlen, "\"%s\" is %g, must be between %d and %d", what, d, lo, hi);
        return -1;
    }
    *out = (int)d;
    return 0;
}

int json_get_bool(const cJSON *obj, const char *key, int *out, const char *what, char *err,
                  size_t errlen)
{
    const cJSON *it = json_get(obj, key);
    if (!it) {
        snprintf(err, errlen, "missing key \"%s\"", what);
        return -1;
    }
    if (!cJSON_IsBool(it)) {
        snprintf(err, errlen, "\"%s\" must be true or false", what);
        return -1;
    }
    *out = cJSON_IsTrue(it) ? 1 : 0;
    return 0;
}

const char *json_get_string(const cJSON *obj, const char *key, const char *what, char *err,
                            size_t errlen)
{
    const cJSON *it = json_get(obj, key);
    if (!it) {
        snprintf(err, errlen, "missing key \"%s\"", what);
        return NULL;
    }
    if (!cJSON_IsString(it) || !it->valuestring) {
        snprintf(err, errlen, "\"%s\" must be a string", what);
        return NULL;
    }
    return it->valuestring;
}

static int read_row(const cJSON *row, float *out, int cols, const char *what, int r, char *err,
                    size_t errlen)
{
    if (!cJSON_IsArray(row)) {
        snprintf(err, errlen, "\"%s\" row %d is not an array", what, r);
        return -1;
    }
    int n = cJSON_GetArraySize(row);
    if (n != cols) {
        snprintf(err, errlen, "\"%s\" row %d has %d values, expected %d", what, r, n, cols);
        return -1;
    }
    int j = 0;
    for (const cJSON *v = row->child; v; v = v->next, j++) {
        if (!cJSON_IsNumber(v)) {
            snprintf(err, errlen, "\"%s\"[%d][%d] is not a number", what, r, j);
            return -1;
        }
        double d = v->valuedouble;
        if (!isfinite(d) || fabs(d) > FLT_MAX) {
            snprintf(err, errlen, "\"%s\"[%d][%d] is not a finite float (%g)", what, r, j, d);
            return -1;
        }
        out[j] = (float)d;
    }
    return 0;
}

/* The index of the first of p[0..len) that is not a base64 character (dec[c] < 0), or len. */
static size_t first_non_base64(const signed char *dec, const unsigned char *p, size_t len)
{
    size_t k = 0;
    while (k < len && dec[p[k]] >= 0)
        k++;
    return k;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#include <immintrin.h>
#define B64_AVX2 __attribute__((target("avx2")))
/* b64_decode's first part with AVX2, 32 characters -> 24 bytes a step (stored as 32), while a
 * 32-byte store fits in nbytes; stops before a block holding a character that is not base64
 * (the scalar loop then names it). Returns the characters decoded, a multiple of 32. Each
 * byte is checked by its two nibbles: lut_hi gives its high nibble's row a bit (0x10 for a
 * row no base64 character is in), lut_lo[low nibble] the rows where that low nibble is not
 * base64; a byte is base64 when the two share no bit. Its value is the byte plus its row's
 * offset ('/' has a row of its own), and each 4 values of 6 bits are packed into 3 bytes.
 * In place as b64_decode: the store ends at o + q + 32 <= p + k + 32, not yet read. */
B64_AVX2 static size_t b64_decode_avx2(const unsigned char *p, size_t len, unsigned char *o,
                                        size_t nbytes)
{
    const __m256i lut_hi = _mm256_setr_epi8(
        0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10,
        0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10);
    const __m256i lut_lo = _mm256_setr_epi8(
        0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A,
        0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A);
    const __m256i roll = _mm256_setr_epi8( /* by row: '/', '+', digits, A-Z (2 rows), a-z */
        0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i nib = _mm256_set1_epi8(0x0F), slash = _mm256_set1_epi8(0x2F);
    const __m256i pack = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
                                          2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    size_t k = 0, q = 0;
    for (; k + 32 <= len && q + 32 <= nbytes; k += 32, q += 24) {
        __m256i s = _mm256_loadu_si256((const __m256i *)(const void *)(p + k));
        __m256i hi = _mm256_and_si256(_mm256_srli_epi32(s, 4), nib);
        __m256i lo = _mm256_and_si256(s, nib);
        if (!_mm256_testz_si256(_mm256_shuffle_epi8(lut_lo, lo), _mm256_shuffle_epi8(lut_hi, hi)))
            break;
        __m256i row = _mm256_add_epi8(_mm256_cmpeq_epi8(s, slash), hi);
        s = _mm256_add_epi8(s, _mm256_shuffle_epi8(roll, row));         /* 6-bit values */
        s = _mm256_maddubs_epi16(s, _mm256_set1_epi32(0x01400140));    /* a<<6|b, c<<6|d */
        s = _mm256_madd_epi16(s, _mm256_set1_epi32(0x00011000));       /* a<<18|...|d */
        s = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(s, pack), lanes);
        _mm256_storeu_si256((__m256i *)(void *)(o + q), s);
    }
    return k;
}

/* How many of x[0..n) are known finite, a multiple of 8 from the start: 8 values a step, all
 * exponent bits set being an infinity or a NaN; stops at the first block holding one. */
B64_AVX2 static size_t finite_avx2(const float *x, size_t n)
{
    const __m256i e = _mm256_set1_epi32(0x7f800000);
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        __m256i v = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)(x + k)), e);
        if (!_mm256_testz_si256(_mm256_cmpeq_epi32(v, e), _mm256_cmpeq_epi32(v, e)))
            break;
    }
    return k;
}
#endif

/* Decodes len base64 characters (no '=') at p into the nbytes bytes at o, which may be p
 * itself or any place before it (the loader decodes weights into the file's own buffer): a
 * character is always read before a byte is written over it. Validation and decoding are one
 * pass: each character's 6 bits come from a table already shifted to their place in a
 * 4-character group, a character that is not base64 sets bit 31. Returns len, or the index of
 * the first character that is not base64 (o then partly written; p from there unchanged). */
static size_t b64_decode(const signed char *dec, const unsigned char *p, size_t len,
                         unsigned char *o, size_t nbytes)
{
    static uint32_t sh[4][256]; /* sh[i][c]: c's 6 bits << (18 - 6 i), or 1 << 31 */
    if (!sh[0][0]) {
        static const char abc[] =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int i = 0; i < 4; i++) {
            for (int c = 0; c < 256; c++)
                sh[i][c] = 1u << 31;
            for (int v = 0; v < 64; v++)
                sh[i][(unsigned char)abc[v]] = (uint32_t)v << (18 - 6 * i);
        }
    }
    size_t full = len / 4 * 4, k = 0, q = 0;
#ifdef B64_AVX2
    if (cpu_has_avx2()) {
        k = b64_decode_avx2(p, full, o, nbytes);
        q = k / 4 * 3;
    }
#endif
    /* 8 characters -> 6 bytes, stored as 8 (the 2 extra are overwritten next): while 8 fit.
     * The store ends at o + q + 8 <= p + k: the characters not yet read are untouched. */
    for (; k + 8 <= full && q + 8 <= nbytes; k += 8, q += 6) {
        uint32_t a = sh[0][p[k]] | sh[1][p[k + 1]] | sh[2][p[k + 2]] | sh[3][p[k + 3]];
        uint32_t b = sh[0][p[k + 4]] | sh[1][p[k + 5]] | sh[2][p[k + 6]] | sh[3][p[k + 7]];
        if ((a | b) >> 31)
            return k + first_non_base64(dec, p + k, 8);
        uint64_t x = (uint64_t)a << 40 | (uint64_t)b << 16; /* bytes 0..5 from the top */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        x = __builtin_bswap64(x);
        memcpy(o + q, &x, 8);
#else
        for (int i = 0; i < 8; i++)
            o[q + i] = (unsigned char)(x >> (56 - 8 * i));
#endif
    }
    for (; k < full; k += 4, q += 3) {
        uint32_t a = sh[0][p[k]] | sh[1][p[k + 1]] | sh[2][p[k + 2]] | sh[3][p[k + 3]];
        if (a >> 31)
            return k + first_non_base64(dec, p + k, 4);
        o[q] = (unsigned char)(a >> 16);
        o[q + 1] = (unsigned char)(a >> 8);
        o[q + 2] = (unsigned char)a;
    }
    if (full < len) { /* 2 or 3 characters left: 1 or 2 bytes */
        uint32_t a = sh[0][p[full]] | sh[1][p[full + 1]] | (full + 2 < len ? sh[2][p[full + 2]] : 0);
        if (a >> 31)
            return full + first_non_base64(dec, p + full, len - full);
        o[q++] = (unsigned char)(a >> 16);
        if (q < nbytes)
            o[q] = (unsigned char)(a >> 8);
    }
    return len;
}

/* {"shape": [rows, cols] or [cols], "f32": "<base64 of little-endian float32 values>"} */
static int read_packed(const cJSON *item, float *out, int rows, int cols, const char *what,
                       char *err, size_t errlen)
{
    for (const cJSON *k = item->child; k; k = k->next)
        if (strcmp(k->string, "shape") && strcmp(k->string, "f32")) {
            snprintf(err, errlen, "weight \"%s\" has unknown key \"%s\" (expected shape, f32)", what,
                     k->string);
            return -1;
        }
    const cJSON *shape = json_get(item, "shape");
    const cJSON *data = json_get(item, "f32");
    if (!shape || !cJSON_IsArray(shape) || !data || !cJSON_IsString(data)) {
        snprintf(err, errlen, "weight \"%s\" must be an array, or an object with \"shape\" and \"f32\"",
                 what);
        return -1;
    }
    int dims[2] = {0, 0}, nd = cJSON_GetArraySize(shape), i = 0;
    for (const cJSON *d = shape->child; d && i < 2; d = d->next, i++)
        dims[i] = cJSON_IsNumber(d) && d->valuedouble >= 0 && d->valuedouble <= 1e8 &&
                          d->valuedouble == floor(d->valuedouble)
                      ? (int)d->valuedouble
                      : -1; /* never converts an out-of-range double (UB) */
    int r = nd == 1 ? 1 : dims[0], c = nd == 1 ? dims[0] : dims[1];
    if ((nd != 1 && nd != 2) || r != rows || c != cols) {
        char got[48];
        if (nd == 1)
            snprintf(got, sizeof got, "[%d]", dims[0]);
        else if (nd == 2)
            snprintf(got, sizeof got, "[%d, %d]", dims[0], dims[1]);
        else
            snprintf(got, sizeof got, "of rank %d", nd);
        snprintf(err, errlen, "weight \"%s\" has shape %s, expected %dx%d", what, got, rows, cols);
        return -1;
    }
    /* One pass: validate and decode 4 characters -> 3 bytes straight into out (a model's
     * weights are megabytes of base64: this loop is most of a load), then fix the byte order
     * on a big-endian host and check every value is finite. */
    static signed char dec[256];
    if (!dec['B']) {
        memset(dec, -1, sizeof dec);
        for (int v = 0; v < 64; v++)
            dec[(unsigned char)"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[v]] =
                (signed char)v;
    }
    const unsigned char *p = (const unsigned char *)data->valuestring;
    size_t len = strlen(data->valuestring);
    while (len && p[len - 1] == '=')
        len--;
    size_t want = (size_t)rows * (size_t)cols, nbytes = len / 4 * 3;
    nbytes += len % 4 > 1 ? len % 4 - 1 : 0;
    if (len % 4 == 1 || nbytes % 4 || nbytes / 4 != want) {
        /* A wrong length: a character that is not base64 is still the first thing named. */
        size_t bad = first_non_base64(dec, p, len);
        if (bad < len)
            snprintf(err, errlen, "weight \"%s\": \"f32\" is not base64 (a character that "
                     "is not base64 at %zu)", what, bad);
        else if (len % 4 == 1 || nbytes % 4)
            snprintf(err, errlen, "weight \"%s\": \"f32\" is not a whole number of float32 values",
                     what);
        else if (nbytes / 4 > want)
            snprintf(err, errlen, "weight \"%s\" holds more than %zu values (%zu)", what, want,
                     nbytes / 4);
        else
            snprintf(err, errlen, "weight \"%s\" holds %zu values, expected %zu (%dx%d)", what,
                     nbytes / 4, want, rows, cols);
        return -1;
    }
    unsigned char *o = (unsigned char *)out;
    size_t bad = b64_decode(dec, p, len, o, nbytes);
    if (bad < len) {
        snprintf(err, errlen, "weight \"%s\": \"f32\" is not base64 (a character that "
                 "is not base64 at %zu)", what, bad);
        return -1;
    }
    const uint32_t one = 1;
    if (*(const unsigned char *)&one == 0) /* a big-endian host */
        for (size_t k = 0; k < want; k++) {
            unsigned char *x = o + 4 * k, t0 = x[0], t1 = x[1];
            x[0] = x[3]; x[1] = x[2]; x[2] = t1; x[3] = t0;
        }
    size_t k0 = 0; /* values before k0 are known finite */
#ifdef B64_AVX2
    if (cpu_has_avx2())
        k0 = finite_avx2(out, want);
#endif
    for (size_t k = k0; k < want; k++)
        if (!isfinite(out[k])) {
            snprintf(err, errlen, "\"%s\" value %zu is not finite", what, k);
            return -1;
        }
    return 0;
}

/* v (finite, 1e-12 <= |v| < 1e15) as "%.9g" prints it, into out; 0 when near a tie, where
 * the caller lets snprintf decide. v·10^k (|k| <= 22, each power exact) is one rounding off
 * the exact product: under 2e-7 at nine digits, so the digit rounding is sure unless the
 * fraction is within 1e-6 of one half. */
static int g9_fast(char *out, double v)
{
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    double a = fabs(v);
    if (!(a >= 1e-12 && a < 1e15))
        return 0;
    int e = (int)floor(log10(a)), k;
    double sc = 0;
    for (int tries = 0; tries < 3; tries++) { /* 1e8 <= a·10^(8-e) < 1e9 */
        k = 8 - e;
        sc = k >= 0 ? a * p10[k] : a / p10[-k];
        if (sc < 1e8)
            e--;
        else if (sc >= 1e9)
            e++;
        else
            break;
    }
    if (!(sc >= 1e8 && sc < 1e9))
        return 0;
    double r = floor(sc), frac = sc - r;
    if (fabs(frac - 0.5) < 1e-6)
        return 0;
    uint64_t d = (uint64_t)r + (frac > 0.5);
    if (d == 1000000000u) {
        d = 100000000u;
        e++;
    }
    char dig[10];
    for (int i = 8; i >= 0; i--, d /= 10)
        dig[i] = (char)('0' + d % 10);
    int nd = 9;
    while (nd > 1 && dig[nd - 1] == '0')
        nd--; /* %g drops trailing zeros */
    char *o = out;
    if (v < 0)
        *o++ = '-';
    if (e < -4 || e >= 9) { /* d.ddde+XX */
        *o++ = dig[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, dig + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        o += sprintf(o, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    } else if (e >= 0) { /* ddd.ddd */
        for (int i = 0; i <= e; i++)
            *o++ = i < nd ? dig[i] : '0';
        if (nd > e + 1) {
            *o++ = '.';
            memcpy(o, dig + e + 1, (size_t)(nd - e - 1));
            o += nd - e - 1;
        }
        *o = 0;
    } else { /* 0.000ddd */
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -e - 1; i++)
            *o++ = '0';
        memcpy(o, dig, (size_t)nd);
        o += nd;
        *o = 0;
    }
    return 1;
}

void json_format_g9(char *out, float v)
{
    if (!g9_fast(out, (double)v))
        snprintf(out, 32, "%.9g", (double)v);
}

void json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void json_write_f32_base64(FILE *f, const float *x, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], sizeof u);
        for (int b = 0; b < 4; b++) {
            acc = (acc << 8) | ((u >> (8 * b)) & 0xFFu);
            bits += 8;
            while (bits >= 6) {
                bits -= 6;
                fputc(tab[(acc >> bits) & 63], f);
            }
        }
        acc &= 0xFFu; /* keep only the unread low bits */
    }
    if (bits > 0) {
        fputc(tab[(acc << (6 - bits)) & 63], f);
        /* pad to a multiple of 4 characters */
        size_t chars = (n * 4 * 8 + 5) / 6;
        while (chars++ % 4)
            fputc('=', f);
    }
}

int json_read_matrix(const cJSON *item, float *out, int rows, int cols, const char *what,
                     char *err, size_t errlen)
{
    if (!item) {
        snprintf(err, errlen, "missing weight \"%s\"", what);
        return -1;
    }
    if (cJSON_IsObject(item))
        return read_packed(item, out, rows, cols, what, err, errlen);
    if (!cJSON_IsArray(item)) {
        snprintf(err, errlen, "weight \"%s\" must be an array", what);
        return -1;
    }
    int n = cJSON_GetArraySize(item);
    const cJSON *first = item->child;
    if (rows == 1 && (!first || !cJSON_IsArray(first))) {
        /* A vector: a flat array of cols numbers. */
        if (n != cols) {
            snprintf(err, errlen, "weight \"%s\" has %d values, expected %d", what, n, cols);
            return -1;
        }
        int j = 0;
        for (const cJSON *v = first; v; v = v->next, j++) {
            if (!cJSON_IsNumber(v)) {
                snprintf(err, errlen, "\"%s\"[%d] is not a number", what, j);
                return -1;
            }
            double d = v->valuedouble;
            if (!isfinite(d) || fabs(d) > FLT_MAX) {
                snprintf(err, errlen, "\"%s\"[%d] is not a finite float (%g)", what, j, d);
                return -1;
            }
            out[j] = (float)d;
        }
        return 0;
    }
    if (n != rows) {
        snprintf(err, errlen, "weight \"%s\" has %d rows, expected %d (shape %dx%d)", what, n, rows,
                 rows, cols);
        return -1;
    }
    int r = 0;
    for (const cJSON *row = first; row; row = row->next, r++)
        if (read_row(row, out + (size_t)r * cols, cols, what, r, err, errlen))
            return -1;
    return 0;
}
