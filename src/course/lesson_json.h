/* lesson_json.h - private to the lesson loaders (lesson.c, lesson_widget.c, lesson_check.c,
 * quiz_question.c): where a JSON path is in the file text, problems as
 * "file:line:col: path: message", and typed getters that report. Prefix lj_. The only course
 * header that hands out cJSON. */
#ifndef ATTEND_LESSON_JSON_H
#define ATTEND_LESSON_JSON_H

#include <stddef.h>

#include "course.h"
#include "json.h"

/* Where problems go while one lesson file is read. */
typedef struct {
    Course *c;         /* problems are appended to c->problems */
    int li;            /* lesson index, -1 for the course */
    const char *file;
    const char *text;  /* file text or NULL (then problems have no line:col) */
    int n;             /* problems added for this lesson */
    int oom;
} LjCtx;

/* Byte offset of path ("pages[2].widget.kind") in text: the key when want_key, else the
 * value; where the path stops existing, the deepest container that does. */
size_t lj_locate(const char *text, const char *path, int want_key);
/* A problem about the value at path ("" the whole file, NULL no position). */
void lj_prob(LjCtx *x, const char *path, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A problem about the key at path (unknown key, duplicate). */
void lj_prob_key(LjCtx *x, const char *path, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A problem at a byte offset of the text (placeholders inside a string). */
void lj_prob_at(LjCtx *x, size_t off, const char *path, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* A problem whose message is already complete (kept from an earlier pass). */
void lj_prob_msg(LjCtx *x, const char *msg);
/* base.key and base[i] into out (cut when absurdly deep). */
void lj_pjoin(char *out, size_t n, const char *base, const char *key);
void lj_pindex(char *out, size_t n, const char *base, int i);
/* "a string", "a number", ... for messages. */
const char *lj_type_name(const cJSON *it);
/* Unknown, duplicate and missing keys of an object. required: NULL-terminated, may be NULL.
 * Returns 0 if obj is an object (even with key problems), -1 if not. */
int lj_check_keys(LjCtx *x, const cJSON *obj, const char *path, const char *const *allowed,
                  const char *const *required);
/* Member getters: 1 present and valid (copied to dst), 0 absent, -1 a problem (reported).
 * get_str copies into dst (size cap); get_dup strdups; get_int checks lo..hi and names the
 * range with range_what when given ("the model has layers 0..1"). */
int lj_get_str(LjCtx *x, const cJSON *obj, const char *path, const char *key, char *dst,
               size_t cap);
int lj_get_dup(LjCtx *x, const cJSON *obj, const char *path, const char *key, char **dst);
int lj_get_bool(LjCtx *x, const cJSON *obj, const char *path, const char *key, int *dst);
int lj_get_int(LjCtx *x, const cJSON *obj, const char *path, const char *key, int lo, int hi,
               int *dst, const char *range_what);
/* 1: letters, digits, - and _ only, not empty. */
int lj_valid_id(const char *s);
/* The text of a lesson file (for positions), or NULL; the caller frees. */
char *lj_read_text(const char *file);
/* Moves the problems collected in x->c (a scratch Course) to *out (owned by the caller). */
void lj_take_problems(LjCtx *x, LessonProblem **out, int *n);

#endif
