/* json.h - the only place that includes cJSON's parser entry points: read a file, parse it,
 * report syntax errors as file:line:col, typed getters. No curses, no printing. */
#ifndef ATTEND_JSON_H
#define ATTEND_JSON_H

#include <stddef.h>
#include <cjson/cJSON.h>

/* Reads and parses a JSON file (a regular file of at most FILEIO_MAX_BYTES, see fileio.h).
 * On failure returns NULL and writes "FILE:LINE:COL: JSON syntax error at <what>" or
 * "FILE: <what is wrong>" into err; messages never quote the file's bytes.
 * The caller owns the result (cJSON_Delete). If text_out is not NULL it receives the file
 * text (caller frees), useful to locate keys. */
cJSON *json_parse_file(const char *path, char **text_out, char *err, size_t errlen);
/* json_parse_file without copying the long strings (a model's base64 weights): string values
 * of 4 KiB or more point into *buf, the file's text, *len bytes (malloc'd: the caller frees it
 * or takes it over, only after the last use of those strings, and cJSON_Delete(root) never
 * touches them; NUL-terminated in place, so *buf no longer reads as the file). Same messages
 * as json_parse_file; on failure *buf is NULL. */
cJSON *json_parse_file_borrow(const char *path, char **buf, size_t *len, char *err,
                              size_t errlen);
/* json_parse_file that also refuses an object holding a key twice (cJSON would keep the first,
 * Python's json the last): NULL with "FILE:LINE:COL: key \"K\" appears twice in one object"
 * (the second one's place; a key's name is the only text of the file quoted). */
cJSON *json_parse_file_strict(const char *path, char **text_out, char *err, size_t errlen);
/* For JSON text that parsed: 1 if an object holds a key twice, with the offset of the second
 * one's opening quote (the first such in the file) and the key's raw length; else 0. Linear-
 * logarithmic in the keys. */
int json_text_duplicate(const char *text, size_t len, size_t *dup_off, size_t *dup_len);
/* Parses a string; on failure NULL and "NAME:LINE:COL: ..." in err (the offending byte is
 * described, never quoted). */
cJSON *json_parse_text(const char *name, const char *text, size_t len, char *err, size_t errlen);
/* 1-based line and column of byte offset off in text. */
void json_line_col(const char *text, size_t off, int *line, int *col);

/* Case-sensitive member lookup; NULL if absent. */
/* 1 if some object in root has a key twice (cJSON would keep the first silently), with its
 * path ("config.arch", "weights.W_q[2].x") in path; else 0. Linear-logarithmic in the keys. */
int json_find_duplicate(const cJSON *root, char *path, size_t n);
const cJSON *json_get(const cJSON *obj, const char *key);
/* d for a message: a whole number exactly ("2147483648"), others to 17 digits, a huge or tiny
 * one short ("1e+300"). Returns buf (40 bytes are enough). */
const char *json_num_text(double d, char *buf, size_t n);
/* Typed getters: 0 on success, -1 with "what: message" in err (missing, wrong type, out of
 * range). what names the key for the message, e.g. "config.d_model". */
int json_get_int(const cJSON *obj, const char *key, int lo, int hi, int *out,
                 const char *what, char *err, size_t errlen);
int json_get_bool(const cJSON *obj, const char *key, int *out, const char *what, char *err,
                  size_t errlen);
int json_get_number(const cJSON *obj, const char *key, double *out, const char *what, char *err,
                    size_t errlen);
/* Borrowed string or NULL with a message. */
const char *json_get_string(const cJSON *obj, const char *key, const char *what, char *err,
                            size_t errlen);
/* Writes n floats as base64 of their little-endian IEEE-754 bytes (the "f32" form). */
#include <stdio.h>
void json_write_f32_base64(FILE *f, const float *x, size_t n);
/* v as snprintf's "%.9g" writes it (the same bytes, including "0", "-0", "inf", "nan"),
 * into out (32 bytes), several times faster for the usual magnitudes: a dump writes tens of
 * thousands of numbers. */
void json_format_g9(char *out, float v);
/* Writes s as a JSON string literal (quotes, backslashes and control characters escaped). */
void json_write_string(FILE *f, const char *s);
/* Reads a weight into out (rows×cols): an array of rows (rows==1 also accepts a flat array),
 * or {"shape": [rows, cols], "f32": "<base64>"} ({"shape": [cols]} for a vector). out may
 * lie over the "f32" string itself if it starts at or before it (decoding in place).
 * Checks shape and finiteness; messages name `what` and the offending index. */
int json_read_matrix(const cJSON *item, float *out, int rows, int cols, const char *what,
                     char *err, size_t errlen);

#endif
