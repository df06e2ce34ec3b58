/* demo.c - loads demo scripts (docs/demos.md) through json.c; each step remembers the
 * line:col of its object, found by scanning the text of the "steps" array. */
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

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

static const char *const KNOWN[] = {"open", "page", "keys", "type", "caption", "pause", NULL};

/* One step from its object; where is "FILE:LINE:COL". */
static int load_step(DemoStep *s, const cJSON *o, const char *where, char *err, size_t errlen)
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
                     "pause)", where, c->string);
            return -1;
        }
    }
    if (copy_str(o, "open", s->lesson, sizeof s->lesson, where, err, errlen) ||
        copy_str(o, "keys", s->keys, sizeof s->keys, where, err, errlen) ||
        copy_str(o, "type", s->type, sizeof s->type, where, err, errlen) ||
        copy_str(o, "caption", s->caption, sizeof s->caption, where, err, errlen))
        return -1;
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
    if (!s->lesson[0] && !s->keys[0] && !s->type[0] && !s->caption[0] && !json_get(o, "pause")) {
        snprintf(err, errlen, "%s: an empty step (give open, keys, type, caption or pause)", where);
        return -1;
    }
    return 0;
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
    int i = 0;
    for (const cJSON *o = steps->child; o; o = o->next, i++) {
        DemoStep *s = &d->steps[i];
        s->line = s->col = 1;
        if (i < n_off)
            json_line_col(text, off[i], &s->line, &s->col);
        char where[600];
        snprintf(where, sizeof where, "%s:%d:%d: step %d", path, s->line, s->col, i + 1);
        if (load_step(s, o, where, err, errlen))
            goto out;
    }
    d->n_steps = n;
    if (!d->steps[0].lesson[0]) {
        snprintf(err, errlen, "%s:%d:%d: step 1 must open a lesson's page (\"open\")", path,
                 d->steps[0].line, d->steps[0].col);
        goto out;
    }
    rc = 0;
out:
    cJSON_Delete(root);
    free(text);
    return rc;
}
