/* demo.c - loads demo scripts (docs/demos.md) through json.c; each step remembers the
 * line:col of its object, found by scanning the text of the "steps" array. */
#include "demo.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datapath.h"
#include "json.h"
#include "model.h"
#include "names.h"

/* Offsets of the objects directly inside the array that follows "steps" in text. */
static int step_offsets(const char *text, size_t *off, int max)
{
    const char *p = strstr(text, "\"steps\"");
    int n = 0, depth = 0, in_str = 0;
    if (!p || !(p = strchr(p, '[')))
        return 0;
    for (; *p; p++) {
        if (in_str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_str = 0;
            continue;
        }
        if (*p == '"')
            in_str = 1;
        else if (*p == '[' || *p == '{') {
            if (depth == 1 && *p == '{' && n < max)
                off[n++] = (size_t)(p - text);
            depth++;
        } else if (*p == ']' || *p == '}') {
            if (--depth == 0)
                break;
        }
    }
    return n;
}

static int copy_str(const cJSON *o, const char *key, char *out, size_t n, const char *where,
                    char *err, size_t errlen)
{
    const cJSON *v = json_get(o, key);
    if (!v)
        return 0;
    if (!cJSON_IsString(v)) {
        snprintf(err, errlen, "%s: \"%s\" must be a string", where, key);
        return -1;
    }
    if (strlen(v->valuestring) >= n) {
        snprintf(err, errlen, "%s: \"%s\" is longer than %zu bytes", where, key, n - 1);
        return -1;
    }
    snprintf(out, n, "%s", v->valuestring);
    return 0;
}

static const char *const KNOWN[] = {"open", "page", "keys", "type", "caption", "pause", "demo",
                                    "to", "quiz", "count", "seed", "room", "port", "bind",
                                    "expect", NULL};

/* The "demo" and "quiz" steps' fields. */
static int load_demo_quiz(DemoStep *s, const cJSON *o, const char *where, char *err,
                          size_t errlen)
{
    char e2[300];
    if (copy_str(o, "demo", s->demo, sizeof s->demo, where, err, errlen) ||
        copy_str(o, "quiz", s->quiz, sizeof s->quiz, where, err, errlen) ||
        copy_str(o, "bind", s->quiz_bind, sizeof s->quiz_bind, where, err, errlen))
        return -1;
    if (json_get(o, "to") && (!s->demo[0] ||
                              json_get_int(o, "to", 1, DEMO_MAX_STEPS, &s->demo_to, "to", e2, sizeof e2))) {
        snprintf(err, errlen, "%s: %s", where, s->demo[0] ? e2 : "\"to\" needs \"demo\"");
        return -1;
    }
    int quiz_only = json_get(o, "count") || json_get(o, "seed") || json_get(o, "room") ||
                    json_get(o, "port") || json_get(o, "bind");
    if (quiz_only && !s->quiz[0]) {
        snprintf(err, errlen, "%s: count, seed, room, port and bind need \"quiz\" (a lesson id)",
                 where);
        return -1;
    }
    double seed = 0;
    if ((json_get(o, "count") &&
         json_get_int(o, "count", 1, 200, &s->quiz_count, "count", e2, sizeof e2)) ||
        (json_get(o, "seed") && json_get_number(o, "seed", &seed, "seed", e2, sizeof e2)) ||
        (json_get(o, "room") && json_get_bool(o, "room", &s->quiz_room, "room", e2, sizeof e2)) ||
        (json_get(o, "port") && json_get_int(o, "port", 0, 65535, &s->quiz_port, "port", e2,
                                             sizeof e2))) {
        snprintf(err, errlen, "%s: %s", where, e2);
        return -1;
    }
    if (json_get(o, "port") && s->quiz_port == 0)
        s->quiz_port = -1; /* 0 asks for any free port, as --port 0 does */
    if (!(seed >= 0 && seed < 1e15)) {
        snprintf(err, errlen, "%s: \"seed\" is a whole number from 0", where);
        return -1;
    }
    s->quiz_seed = (unsigned long long)seed;
    if ((s->demo[0] || s->quiz[0]) && (s->lesson[0] || s->keys[0] || s->type[0])) {
        snprintf(err, errlen, "%s: a \"%s\" step stands alone (no open, keys or type)", where,
                 s->demo[0] ? "demo" : "quiz");
        return -1;
    }
    return 0;
}

/* One step (step_no, from 1) from its object (text from off); where is "FILE:LINE:COL:
 * step N". */
static int load_step(DemoStep *s, const cJSON *o, const char *text, size_t off,
                     const char *path, int step_no, const char *where, char *err,
                     size_t errlen)
{
    if (!cJSON_IsObject(o)) {
        snprintf(err, errlen, "%s: a step must be an object", where);
        return -1;
    }
    for (const cJSON *c = o->child; c; c = c->next) {
        int ok = 0;
        for (int i = 0; KNOWN[i]; i++)
            ok |= !strcmp(c->string, KNOWN[i]);
        if (!ok) {
            snprintf(err, errlen, "%s: unknown field \"%s\" (open, page, keys, type, caption, "
                     "pause, demo, to, quiz and its count, seed, room, port, bind, expect)",
                     where, c->string);
            return -1;
        }
    }
    if (copy_str(o, "open", s->lesson, sizeof s->lesson, where, err, errlen) ||
        copy_str(o, "keys", s->keys, sizeof s->keys, where, err, errlen) ||
        copy_str(o, "type", s->type, sizeof s->type, where, err, errlen) ||
        copy_str(o, "caption", s->caption, sizeof s->caption, where, err, errlen))
        return -1;
    int cols = 0; /* the caption row is one line: 78 columns at 80x24 */
    for (const unsigned char *c = (const unsigned char *)s->caption; *c; c++)
        cols += (*c & 0xC0) != 0x80;
    if (cols > DEMO_CAPTION_COLS) {
        snprintf(err, errlen, "%s: \"caption\" is %d columns: the caption row shows %d at 80x24 "
                 "(the rest would be cut); shorten it or split it over two steps", where, cols,
                 DEMO_CAPTION_COLS);
        return -1;
    }
    s->page = 1;
    char e2[300]; /* the getters' message names the field; where says which step */
    if (json_get(o, "page") && json_get_int(o, "page", 1, 10000, &s->page, "page", e2, sizeof e2)) {
        snprintf(err, errlen, "%s: %s (pages are numbered from 1)", where, e2);
        return -1;
    }
    if (json_get(o, "page") && !s->lesson[0]) {
        snprintf(err, errlen, "%s: \"page\" needs \"open\" (the lesson id)", where);
        return -1;
    }
    if (json_get(o, "pause")) {
        if (json_get_number(o, "pause", &s->pause, "pause", e2, sizeof e2)) {
            snprintf(err, errlen, "%s: %s", where, e2);
            return -1;
        }
        if (!(s->pause >= 0 && s->pause <= 600)) {
            snprintf(err, errlen, "%s: \"pause\" must be 0..600 seconds", where);
            return -1;
        }
    }
    if (load_demo_quiz(s, o, where, err, errlen))
        return -1;
    if (demo_expect_load(s, o, text, off, path, step_no, err, errlen))
        return -1;
    if (!s->lesson[0] && !s->keys[0] && !s->type[0] && !s->caption[0] && !json_get(o, "pause") &&
        !s->demo[0] && !s->quiz[0] && !s->expect.on) {
        snprintf(err, errlen, "%s: an empty step (give open, keys, type, caption, pause, demo, "
                 "quiz or expect)", where);
        return -1;
    }
    return 0;
}

/* Appends line to err (a newline between messages). */
static void add_err(char *err, size_t errlen, const char *line)
{
    size_t l = strlen(err);
    if (l + 2 < errlen)
        snprintf(err + l, errlen - l, "%s%s", l ? "\n" : "", line);
}

int demo_load(Demo *d, const char *path, char *err, size_t errlen)
{
    char *text = NULL;
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", path);
    cJSON *root = json_parse_file_strict(path, &text, err, errlen);
    if (!root) {
        free(text);
        return -1;
    }
    int rc = -1;
    size_t off[DEMO_MAX_STEPS];
    const cJSON *steps = json_get(root, "steps");
    if (!cJSON_IsObject(root) || !cJSON_IsArray(steps)) {
        snprintf(err, errlen, "%s:1:1: a demo is an object with a \"steps\" array", path);
        goto out;
    }
    if (copy_str(root, "title", d->title, sizeof d->title, path, err, errlen))
        goto out;
    int n_off = step_offsets(text, off, DEMO_MAX_STEPS);
    int n = cJSON_GetArraySize(steps);
    if (n == 0 || n > DEMO_MAX_STEPS) {
        snprintf(err, errlen, "%s:1:1: a demo has 1..%d steps, not %d", path, DEMO_MAX_STEPS, n);
        goto out;
    }
    int i = 0, bad = 0;
    err[0] = '\0';
    for (const cJSON *o = steps->child; o; o = o->next, i++) {
        DemoStep *s = &d->steps[i];
        s->line = s->col = 1;
        if (i < n_off)
            json_line_col(text, off[i], &s->line, &s->col);
        char where[600], e1[4000];
        snprintf(where, sizeof where, "%s:%d:%d: step %d", path, s->line, s->col, i + 1);
        if (load_step(s, o, text, i < n_off ? off[i] : 0, path, i + 1, where, e1, sizeof e1)) {
            /* every step's problem, not the first */
            memset(s, 0, sizeof *s);
            s->line = s->col = 1;
            if (i < n_off)
                json_line_col(text, off[i], &s->line, &s->col);
            s->bad = 1;
            add_err(err, errlen, e1);
            bad++;
        }
    }
    d->n_steps = n;
    if (!d->steps[0].bad && !d->steps[0].lesson[0] && !d->steps[0].demo[0]) {
        char e1[700];
        snprintf(e1, sizeof e1, "%s:%d:%d: step 1 must open a lesson's page (\"open\") or play "
                 "a demo (\"demo\")", path, d->steps[0].line, d->steps[0].col);
        add_err(err, errlen, e1);
        bad++;
    }
    rc = bad ? -1 : 0;
out:
    cJSON_Delete(root);
    free(text);
    return rc;
}

/* 1 when path names a regular file. */
static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int demo_resolve(const char *arg, char *out, size_t n)
{
    char rel[600];
    struct stat st;
    if (is_file(arg) || lstat(arg, &st) == 0 || strchr(arg, '/')) {
        /* a path, or anything there (a FIFO, a directory): the loader names what is wrong */
        snprintf(out, n, "%s", arg);
    } else {
        size_t l = strlen(arg);
        snprintf(rel, sizeof rel, "demos/%s%s", arg,
                 l > 5 && !strcmp(arg + l - 5, ".json") ? "" : ".json");
        data_path(rel, out, n);
        if (!is_file(out))
            return -1;
    }
    char cwd[PATH_MAX];
    size_t c = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    if (c > 1 && !strncmp(out, cwd, c) && out[c] == '/')
        memmove(out, out + c + 1, strlen(out + c + 1) + 1);
    return 0;
}

void demo_step_words(const Demo *d, int i, char *out, size_t n)
{
    if (i < 0 || i >= d->n_steps) {
        snprintf(out, n, "the end of the plan");
        return;
    }
    const DemoStep *s = &d->steps[i];
    int o = snprintf(out, n, "step %d/%d:", i + 1, d->n_steps);
    if (o < 0 || (size_t)o >= n)
        return;
    if (s->lesson[0])
        o += snprintf(out + o, n - (size_t)o, " %s page %d", s->lesson, s->page);
    if (s->type[0] && (size_t)o < n)
        o += snprintf(out + o, n - (size_t)o, " type \"%s\"", s->type);
    if (s->keys[0] && (size_t)o < n)
        o += snprintf(out + o, n - (size_t)o, " keys %s", s->keys);
    if (s->demo[0] && (size_t)o < n)
        o += snprintf(out + o, n - (size_t)o, " the demo %s", s->demo);
    if (s->quiz[0] && (size_t)o < n)
        o += snprintf(out + o, n - (size_t)o, " a class quiz on %s%s", s->quiz,
                      s->quiz_room ? " (students answer)" : "");
    if (s->caption[0] && (size_t)o < n)
        snprintf(out + o, n - (size_t)o, " (%s)", s->caption);
}

const char *demo_room_error(const char *err, char *out, size_t n)
{
    const char *st = strstr(err, ": step ");
    snprintf(out, n, "plan %s", st ? st + 2 : err);
    return out;
}

const char *demo_room_path(const char *path, char *out, size_t n)
{
    char cwd[PATH_MAX];
    size_t c = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    if (path[0] != '/') {
        snprintf(out, n, "%s", path);
        return out;
    }
    if (c > 1 && !strncmp(path, cwd, c) && path[c] == '/') {
        snprintf(out, n, "%s", path + c + 1);
        return out;
    }
    size_t l = strlen(path);
    while (l > 1 && path[l - 1] == '/')
        l--;
    size_t b = l;
    while (b > 0 && path[b - 1] != '/')
        b--;
    snprintf(out, n, "%.*s", (int)(l - b), path + b);
    return out;
}
