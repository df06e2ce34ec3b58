/* json.c - JSON file reading with file:line:col errors and typed getters (see json.h). */
#include "json.h"

#include <errno.h>
#include <float.h>
#include <math.h>
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
        char near[24];
        size_t k = 0;
        for (size_t i = off; i < len && k < 16 && text[i] != '\n'; i++)
            near[k++] = text[i];
        near[k] = 0;
        if (off >= len || k == 0)
            snprintf(err, errlen, "%s:%d:%d: JSON syntax error: unexpected end of file", name,
                     line, col);
        else
            snprintf(err, errlen, "%s:%d:%d: JSON syntax error near '%s'", name, line, col, near);
        return NULL;
    }
    /* Anything but whitespace after the value is an error too. */
    if (end) {
        size_t off = (size_t)(end - text);
        while (off < len && (text[off] == ' ' || text[off] == '\n' || text[off] == '\r' ||
                             text[off] == '\t'))
            off++;
        if (off < len && text[off] != 0) {
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
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap)
            break;
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
    }
    int rerr = ferror(f);
    fclose(f);
    if (!buf || rerr) {
        snprintf(err, errlen, "%s: %s", path, buf ? "read error" : "out of memory");
        free(buf);
        return NULL;
    }
    buf[len] = 0;
    cJSON *root = json_parse_text(path, buf, len, err, errlen);
    if (root && text_out)
        *text_out = buf;
    else
        free(buf);
    return root;
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

int json_read_matrix(const cJSON *item, float *out, int rows, int cols, const char *what,
                     char *err, size_t errlen)
{
    if (!item) {
        snprintf(err, errlen, "missing weight \"%s\"", what);
        return -1;
    }
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
