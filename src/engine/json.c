/* json.c - JSON file reading with file:line:col errors and typed getters (see json.h). */
#include "json.h"

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
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
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

cJSON *json_parse_text(const char *name, const char *text, size_t len, char *err, size_t errlen)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        size_t off = end && end >= text ? (size_t)(end - text) : 0;
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
    /* Anything but whitespace after the value is an error too. */
    if (end) {
        size_t off = (size_t)(end - text);
        while (off < len && (text[off] == ' ' || text[off] == '\n' || text[off] == '\r' ||
                             text[off] == '\t'))
            off++;
        if (off < len) { /* a NUL byte after the value is garbage too */
            int line, col;
            json_line_col(text, off, &line, &col);
            snprintf(err, errlen, "%s:%d:%d: JSON syntax error: text after the end of the value",
                     name, line, col);
            cJSON_Delete(root);
            return NULL;
        }
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
    /* Decode 4 characters -> 3 bytes straight into out, then fix the byte order on a
     * big-endian host, then check every value is finite. */
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
    for (size_t k = 0; k < len; k++)
        if (dec[p[k]] < 0) {
            snprintf(err, errlen, "weight \"%s\": \"f32\" is not base64 (a character that "
                     "is not base64 at %zu)", what, k);
            return -1;
        }
    size_t want = (size_t)rows * (size_t)cols, nbytes = len / 4 * 3;
    if (len % 4 == 1) {
        snprintf(err, errlen, "weight \"%s\": \"f32\" is not a whole number of float32 values", what);
        return -1;
    }
    nbytes += len % 4 ? len % 4 - 1 : 0;
    if (nbytes % 4) {
        snprintf(err, errlen, "weight \"%s\": \"f32\" is not a whole number of float32 values", what);
        return -1;
    }
    if (nbytes / 4 > want) {
        snprintf(err, errlen, "weight \"%s\" holds more than %zu values (%zu)", what, want, nbytes / 4);
        return -1;
    }
    if (nbytes / 4 != want) {
        snprintf(err, errlen, "weight \"%s\" holds %zu values, expected %zu (%dx%d)", what,
                 nbytes / 4, want, rows, cols);
        return -1;
    }
    unsigned char *o = (unsigned char *)out;
    size_t q = 0;
    for (size_t k = 0; k < len; k += 4) {
        int c0 = dec[p[k]], c1 = k + 1 < len ? dec[p[k + 1]] : 0;
        int c2 = k + 2 < len ? dec[p[k + 2]] : 0, c3 = k + 3 < len ? dec[p[k + 3]] : 0;
        unsigned v = (unsigned)c0 << 18 | (unsigned)c1 << 12 | (unsigned)c2 << 6 | (unsigned)c3;
        if (q < nbytes) o[q++] = (unsigned char)(v >> 16);
        if (q < nbytes) o[q++] = (unsigned char)(v >> 8);
        if (q < nbytes) o[q++] = (unsigned char)v;
    }
    const uint32_t one = 1;
    int big_endian = *(const unsigned char *)&one == 0;
    for (size_t k = 0; k < want; k++) {
        if (big_endian) {
            unsigned char *x = o + 4 * k, t0 = x[0], t1 = x[1];
            x[0] = x[3]; x[1] = x[2]; x[2] = t1; x[3] = t0;
        }
        if (!isfinite(out[k])) {
            snprintf(err, errlen, "\"%s\" value %zu is not finite", what, k);
            return -1;
        }
    }
    return 0;
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
