/* lesson_json.c - the lesson loaders' shared machinery (lesson_json.h, prefix lj_): JSON
 * paths located in the file text for file:line:col, problems appended to the course, and
 * typed getters that report what is wrong. No curses, no printing, no exit(). */
#include "lesson_json.h"

#include <ctype.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- locating a JSON path in the file text (cJSON keeps no positions) ---- */

static const char *sk_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    return p;
}

static const char *sk_str(const char *p)
{
    p++;
    while (*p && *p != '"') {
        if (*p == '\\' && p[1])
            p++;
        p++;
    }
    return *p ? p + 1 : p;
}

static const char *sk_val(const char *p)
{
    p = sk_ws(p);
    if (*p == '"')
        return sk_str(p);
    if (*p == '{' || *p == '[') {
        int d = 0;
        while (*p) {
            if (*p == '"') {
                p = sk_str(p);
                continue;
            }
            if (*p == '{' || *p == '[')
                d++;
            else if ((*p == '}' || *p == ']') && --d == 0)
                return p + 1;
            p++;
        }
        return p;
    }
    while (*p && *p != ',' && *p != '}' && *p != ']' && !isspace((unsigned char)*p))
        p++;
    return p;
}

/* p at an object: the key (its opening quote) of member name, and *val its value. */
static const char *sk_member(const char *p, const char *name, size_t nlen, const char **val)
{
    p = sk_ws(p);
    if (*p != '{')
        return NULL;
    p++;
    for (;;) {
        p = sk_ws(p);
        if (*p != '"')
            return NULL;
        const char *k = p, *e = sk_str(p);
        p = sk_ws(e);
        if (*p != ':')
            return NULL;
        const char *v = sk_ws(p + 1);
        if ((size_t)(e - k) == nlen + 2 && !memcmp(k + 1, name, nlen)) {
            *val = v;
            return k;
        }
        p = sk_ws(sk_val(v));
        if (*p != ',')
            return NULL;
        p++;
    }
}

static const char *sk_index(const char *p, int idx)
{
    p = sk_ws(p);
    if (*p != '[')
        return NULL;
    p++;
    for (int i = 0;; i++) {
        p = sk_ws(p);
        if (!*p || *p == ']')
            return NULL;
        if (i == idx)
            return p;
        p = sk_ws(sk_val(p));
        if (*p != ',')
            return NULL;
        p++;
    }
}

/* Byte offset of path ("pages[2].widget.kind") in text: the key when want_key, else the
 * value; where the path stops existing, the deepest container that does. */
size_t lj_locate(const char *text, const char *path, int want_key)
{
    const char *cur = sk_ws(text), *key = NULL;
    const char *p = path;
    while (*p) {
        if (*p == '.') {
            p++;
            continue;
        }
        if (*p == '[') {
            int idx = atoi(p + 1);
            const char *e = sk_index(cur, idx);
            if (!e)
                return (size_t)(cur - text);
            cur = e;
            key = NULL;
            p = strchr(p, ']');
            if (!p)
                break;
            p++;
            continue;
        }
        size_t n = strcspn(p, ".[");
        const char *v = NULL, *k = sk_member(cur, p, n, &v);
        if (!k)
            return (size_t)(cur - text);
        cur = v;
        key = k;
        p += n;
    }
    return (size_t)((want_key && key ? key : cur) - text);
}

/* ---- problems ---- */


/* A new problem of this lesson at the end of the course's list; NULL when out of memory. */
static LessonProblem *problem_slot(LjCtx *x)
{
    Course *c = x->c;
    LessonProblem *np = realloc(c->problems, sizeof *np * (size_t)(c->n_problems + 1));
    if (!np) {
        x->oom = 1;
        return NULL;
    }
    c->problems = np;
    LessonProblem *pr = &np[c->n_problems++];
    pr->lesson = x->li;
    x->n++;
    return pr;
}

static void vproblem(LjCtx *x, const char *path, int want_key, const char *fmt, va_list ap)
{
    LessonProblem *pr = problem_slot(x);
    if (!pr)
        return;
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (x->text && path) {
        int line, col;
        json_line_col(x->text, lj_locate(x->text, path, want_key), &line, &col);
        if (*path)
            snprintf(pr->msg, sizeof pr->msg, "%s:%d:%d: %s: %s", x->file, line, col, path, msg);
        else
            snprintf(pr->msg, sizeof pr->msg, "%s:%d:%d: %s", x->file, line, col, msg);
    } else if (path && *path) {
        snprintf(pr->msg, sizeof pr->msg, "%s: %s: %s", x->file, path, msg);
    } else {
        snprintf(pr->msg, sizeof pr->msg, "%s: %s", x->file, msg);
    }
}

/* A problem about the value at path. */
void lj_prob(LjCtx *x, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem(x, path, 0, fmt, ap);
    va_end(ap);
}

/* A problem about the key at path (unknown key, duplicate). */
void lj_prob_key(LjCtx *x, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem(x, path, 1, fmt, ap);
    va_end(ap);
}

/* A problem at a byte offset of the text (placeholders inside a string). */
void lj_prob_at(LjCtx *x, size_t off, const char *path, const char *fmt, ...)
{
    LessonProblem *pr = problem_slot(x);
    if (!pr)
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line, col;
    json_line_col(x->text, off, &line, &col);
    snprintf(pr->msg, sizeof pr->msg, "%s:%d:%d: %s: %s", x->file, line, col, path, msg);
}

/* Paths are cut when absurdly deep; the return value is checked only to say so. */
void lj_pjoin(char *out, size_t n, const char *base, const char *key)
{
    if (snprintf(out, n, "%s%s%s", base, *base ? "." : "", key) >= (int)n)
        out[n - 1] = 0;
}

void lj_pindex(char *out, size_t n, const char *base, int i)
{
    if (snprintf(out, n, "%s[%d]", base, i) >= (int)n)
        out[n - 1] = 0;
}

const char *lj_type_name(const cJSON *it)
{
    if (cJSON_IsString(it)) return "a string";
    if (cJSON_IsNumber(it)) return "a number";
    if (cJSON_IsBool(it)) return "true/false";
    if (cJSON_IsNull(it)) return "null";
    if (cJSON_IsArray(it)) return "an array";
    if (cJSON_IsObject(it)) return "an object";
    return "invalid";
}

/* Unknown, duplicate and missing keys of an object. required: NULL-terminated, may be NULL.
 * Returns 0 if obj is an object (even with key problems), -1 if not. */
int lj_check_keys(LjCtx *x, const cJSON *obj, const char *path, const char *const *allowed,
                      const char *const *required)
{
    if (!cJSON_IsObject(obj)) {
        lj_prob(x, path, "must be an object, not %s", lj_type_name(obj));
        return -1;
    }
    for (const cJSON *it = obj->child; it; it = it->next) {
        char kp[300];
        lj_pjoin(kp, sizeof kp, path, it->string);
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            if (!strcmp(allowed[i], it->string))
                ok = 1;
        if (!ok) {
            char list[300] = "";
            for (int i = 0; allowed[i]; i++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", allowed[i]);
            }
            lj_prob_key(x, kp, "unknown key \"%s\" (known keys: %s)", it->string, list);
            continue;
        }
        for (const cJSON *b = obj->child; b != it; b = b->next)
            if (!strcmp(b->string, it->string)) {
                /* locate finds the first one; point at the object instead */
                lj_prob(x, path, "key \"%s\" appears twice", it->string);
                break;
            }
    }
    for (int i = 0; required && required[i]; i++)
        if (!json_get(obj, required[i]))
            lj_prob(x, path, "missing key \"%s\"", required[i]);
    return 0;
}

/* The member key of obj when it is present and is() accepts it (kp gets its path). NULL with
 * *rc 0 when absent, NULL with *rc -1 when it is not WANT (reported). */
static const cJSON *member(LjCtx *x, const cJSON *obj, const char *path, const char *key,
                           cJSON_bool (*is)(const cJSON *), const char *want, char *kp,
                           size_t kplen, int *rc)
{
    const cJSON *it = json_get(obj, key);
    *rc = 0;
    if (!it)
        return NULL;
    lj_pjoin(kp, kplen, path, key);
    if (!is(it)) {
        lj_prob(x, kp, "must be %s, not %s", want, lj_type_name(it));
        *rc = -1;
        return NULL;
    }
    return it;
}

int lj_get_str(LjCtx *x, const cJSON *obj, const char *path, const char *key, char *dst,
               size_t cap)
{
    char kp[300];
    int rc;
    const cJSON *it = member(x, obj, path, key, cJSON_IsString, "a string", kp, sizeof kp, &rc);
    if (!it)
        return rc;
    if (strlen(it->valuestring) >= cap) {
        lj_prob(x, kp, "too long (%zu bytes; at most %zu)", strlen(it->valuestring), cap - 1);
        return -1;
    }
    snprintf(dst, cap, "%s", it->valuestring);
    return 1;
}

int lj_get_dup(LjCtx *x, const cJSON *obj, const char *path, const char *key, char **dst)
{
    char kp[300];
    int rc;
    const cJSON *it = member(x, obj, path, key, cJSON_IsString, "a string", kp, sizeof kp, &rc);
    if (!it)
        return rc;
    *dst = strdup(it->valuestring);
    if (!*dst) {
        x->oom = 1;
        return -1;
    }
    return 1;
}

int lj_get_bool(LjCtx *x, const cJSON *obj, const char *path, const char *key, int *dst)
{
    char kp[300];
    int rc;
    const cJSON *it = member(x, obj, path, key, cJSON_IsBool, "true or false", kp, sizeof kp,
                             &rc);
    if (!it)
        return rc;
    *dst = cJSON_IsTrue(it) ? 1 : 0;
    return 1;
}

int lj_get_int(LjCtx *x, const cJSON *obj, const char *path, const char *key, int lo, int hi,
               int *dst, const char *range_what)
{
    const cJSON *it = json_get(obj, key);
    if (!it)
        return 0;
    char kp[300];
    lj_pjoin(kp, sizeof kp, path, key);
    if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble)) { /* no cast: UB out of range */
        lj_prob(x, kp, "must be a whole number, not %s", lj_type_name(it));
        return -1;
    }
    double v = it->valuedouble;
    if (v < lo || v > hi) {
        if (range_what)
            lj_prob(x, kp, "%g is out of range: %s %d..%d", v, range_what, lo, hi);
        else
            lj_prob(x, kp, "%g is out of range %d..%d", v, lo, hi);
        return -1;
    }
    *dst = (int)v;
    return 1;
}

int lj_valid_id(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
            return 0;
    return 1;
}

void lj_prob_msg(LjCtx *x, const char *msg)
{
    LessonProblem *pr = problem_slot(x);
    if (pr)
        snprintf(pr->msg, sizeof pr->msg, "%s", msg);
}

char *lj_read_text(const char *file)
{
    char *text = NULL, err[600];
    cJSON_Delete(json_parse_file(file, &text, err, sizeof err));
    return text;
}

void lj_take_problems(LjCtx *x, LessonProblem **out, int *n)
{
    Course *c = x->c;
    *out = c->problems;
    *n = c->n_problems;
    c->problems = NULL;
    c->n_problems = 0;
}
