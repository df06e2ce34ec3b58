/* progress.c - the learner's progress file: load (corrupt files moved aside), atomic save
 * (temp file, fsync, rename, fsync dir), and small setters. Format in docs/lessons.md. */
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"

#define PROGRESS_VERSION 1
#define PROGRESS_MAX_PAGE 10000

int progress_default_path(char *out, size_t outlen, char *err, size_t errlen)
{
    const char *xdg = getenv("XDG_STATE_HOME");
    int r;
    if (xdg && xdg[0] == '/') { /* the XDG spec ignores relative paths */
        r = snprintf(out, outlen, "%s/attend/progress.json", xdg);
    } else {
        const char *home = getenv("HOME");
        if (!home || !*home) {
            snprintf(err, errlen, "neither XDG_STATE_HOME nor HOME is set: progress not saved");
            return -1;
        }
        r = snprintf(out, outlen, "%s/.local/state/attend/progress.json", home);
    }
    if (r < 0 || (size_t)r >= outlen) {
        snprintf(err, errlen, "progress path too long");
        return -1;
    }
    return 0;
}

void progress_free(Progress *p)
{
    for (int i = 0; i < p->n_lessons; i++)
        free(p->lessons[i].seen);
    free(p->lessons);
    for (int i = 0; i < p->n_slots; i++)
        free(p->slots[i].json);
    free(p->slots);
    char path[sizeof p->path];
    memcpy(path, p->path, sizeof path);
    memset(p, 0, sizeof *p);
    memcpy(p->path, path, sizeof path);
}

static ProgressLesson *find_lesson(const Progress *p, const char *id)
{
    for (int i = 0; i < p->n_lessons; i++)
        if (!strcmp(p->lessons[i].id, id))
            return &p->lessons[i];
    return NULL;
}

static ProgressLesson *get_lesson(Progress *p, const char *id)
{
    ProgressLesson *l = find_lesson(p, id);
    if (l)
        return l;
    if (!id || !*id || strlen(id) >= sizeof l->id)
        return NULL;
    ProgressLesson *nl = realloc(p->lessons, sizeof *nl * (size_t)(p->n_lessons + 1));
    if (!nl)
        return NULL;
    p->lessons = nl;
    l = &nl[p->n_lessons++];
    memset(l, 0, sizeof *l);
    snprintf(l->id, sizeof l->id, "%s", id);
    return l;
}

const ProgressLesson *progress_lesson(const Progress *p, const char *lesson_id)
{
    return find_lesson(p, lesson_id);
}

int progress_set_current(Progress *p, const char *lesson_id, int page)
{
    if (!lesson_id || strlen(lesson_id) >= sizeof p->current_lesson || page < 0)
        return -1;
    snprintf(p->current_lesson, sizeof p->current_lesson, "%s", lesson_id);
    p->current_page = page;
    return 0;
}

int progress_mark_seen(Progress *p, const char *lesson_id, int page)
{
    if (page < 0 || page >= PROGRESS_MAX_PAGE)
        return -1;
    ProgressLesson *l = get_lesson(p, lesson_id);
    if (!l)
        return -1;
    if (page >= l->n_seen) {
        unsigned char *ns = realloc(l->seen, (size_t)page + 1);
        if (!ns)
            return -1;
        memset(ns + l->n_seen, 0, (size_t)(page + 1 - l->n_seen));
        l->seen = ns;
        l->n_seen = page + 1;
    }
    l->seen[page] = 1;
    return 0;
}

int progress_seen(const Progress *p, const char *lesson_id, int page)
{
    const ProgressLesson *l = find_lesson(p, lesson_id);
    return l && page >= 0 && page < l->n_seen && l->seen[page];
}

int progress_count_seen(const Progress *p, const char *lesson_id)
{
    const ProgressLesson *l = find_lesson(p, lesson_id);
    int k = 0;
    for (int i = 0; l && i < l->n_seen; i++)
        k += l->seen[i] != 0;
    return k;
}

int progress_set_completed(Progress *p, const char *lesson_id, int completed)
{
    ProgressLesson *l = get_lesson(p, lesson_id);
    if (!l)
        return -1;
    l->completed = completed != 0;
    return 0;
}

int progress_completed(const Progress *p, const char *lesson_id)
{
    const ProgressLesson *l = find_lesson(p, lesson_id);
    return l && l->completed;
}

const char *progress_slot_get(const Progress *p, const char *key)
{
    for (int i = 0; i < p->n_slots; i++)
        if (!strcmp(p->slots[i].key, key))
            return p->slots[i].json;
    return NULL;
}

int progress_slot_set(Progress *p, const char *key, const char *json, char *err, size_t errlen)
{
    if (!key || !*key || strlen(key) >= sizeof p->slots[0].key) {
        snprintf(err, errlen, "progress slot key must be 1..%zu bytes",
                 sizeof p->slots[0].key - 1);
        return -1;
    }
    int at = -1;
    for (int i = 0; i < p->n_slots; i++)
        if (!strcmp(p->slots[i].key, key))
            at = i;
    if (!json) {
        if (at >= 0) {
            free(p->slots[at].json);
            p->slots[at] = p->slots[--p->n_slots];
        }
        return 0;
    }
    char name[96];
    snprintf(name, sizeof name, "slot \"%s\"", key);
    cJSON *v = json_parse_text(name, json, strlen(json), err, errlen);
    if (!v)
        return -1;
    char *text = cJSON_PrintUnformatted(v);
    cJSON_Delete(v);
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (at < 0) {
        ProgressSlot *ns = realloc(p->slots, sizeof *ns * (size_t)(p->n_slots + 1));
        if (!ns) {
            free(text);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        p->slots = ns;
        at = p->n_slots++;
        snprintf(p->slots[at].key, sizeof p->slots[at].key, "%s", key);
        p->slots[at].json = NULL;
    }
    free(p->slots[at].json);
    p->slots[at].json = text;
    return 0;
}

/* Reads the parsed document into p. 0, or -1 with what is wrong in err. */
static int from_json(Progress *p, const cJSON *root, char *err, size_t errlen)
{
    if (!cJSON_IsObject(root)) {
        snprintf(err, errlen, "not a JSON object");
        return -1;
    }
    int version;
    if (json_get_int(root, "version", 1, PROGRESS_VERSION, &version, "version", err, errlen))
        return -1;
    const cJSON *cur = json_get(root, "current");
    if (cur) {
        const char *id = json_get_string(cur, "lesson", "current.lesson", err, errlen);
        int page;
        if (!id || json_get_int(cur, "page", 0, PROGRESS_MAX_PAGE - 1, &page, "current.page",
                                err, errlen))
            return -1;
        if (*id && progress_set_current(p, id, page)) {
            snprintf(err, errlen, "current.lesson: bad lesson id");
            return -1;
        }
    }
    const cJSON *ls = json_get(root, "lessons");
    if (ls && !cJSON_IsObject(ls)) {
        snprintf(err, errlen, "lessons: not an object");
        return -1;
    }
    for (const cJSON *l = ls ? ls->child : NULL; l; l = l->next) {
        if (!cJSON_IsObject(l) || !get_lesson(p, l->string)) {
            snprintf(err, errlen, "lessons.%s: not a lesson record", l->string);
            return -1;
        }
        const cJSON *seen = json_get(l, "seen");
        if (seen && !cJSON_IsArray(seen)) {
            snprintf(err, errlen, "lessons.%s.seen: not an array", l->string);
            return -1;
        }
        for (const cJSON *s = seen ? seen->child : NULL; s; s = s->next) {
            if (!cJSON_IsNumber(s) || s->valuedouble != (double)(int)s->valuedouble ||
                progress_mark_seen(p, l->string, (int)s->valuedouble)) {
                snprintf(err, errlen, "lessons.%s.seen: not a list of page numbers", l->string);
                return -1;
            }
        }
        const cJSON *done = json_get(l, "completed");
        if (done && !cJSON_IsBool(done)) {
            snprintf(err, errlen, "lessons.%s.completed: not true/false", l->string);
            return -1;
        }
        progress_set_completed(p, l->string, cJSON_IsTrue(done));
    }
    const cJSON *slots = json_get(root, "slots");
    if (slots && !cJSON_IsObject(slots)) {
        snprintf(err, errlen, "slots: not an object");
        return -1;
    }
    for (const cJSON *s = slots ? slots->child : NULL; s; s = s->next) {
        char *text = cJSON_PrintUnformatted(s);
        int rc = text ? progress_slot_set(p, s->string, text, err, errlen) : -1;
        free(text);
        if (rc) {
            snprintf(err, errlen, "slots.%s: cannot keep this slot", s->string);
            return -1;
        }
    }
    return 0;
}

int progress_load(Progress *p, const char *path, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (strlen(path) >= sizeof p->path - 32) {
        p->no_save = 1;
        snprintf(err, errlen, "%s: path too long", path);
        return -1;
    }
    snprintf(p->path, sizeof p->path, "%s", path);
    if (access(path, F_OK) != 0) {
        if (errno == ENOENT)
            return 0; /* first run */
        p->no_save = 1;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char perr[600], why[300];
    cJSON *root = json_parse_file(path, NULL, perr, sizeof perr);
    if (!root && access(path, R_OK) != 0) {
        p->no_save = 1;
        snprintf(err, errlen, "%s", perr);
        return -1;
    }
    int bad = !root;
    if (root) {
        if (from_json(p, root, why, sizeof why)) {
            bad = 1;
            snprintf(perr, sizeof perr, "%.280s: %s", path, why);
        }
        cJSON_Delete(root);
    }
    if (!bad)
        return 0;
    progress_free(p);
    /* Move the corrupt file aside; never overwrite it. */
    char aside[sizeof p->path + 40], stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(aside, sizeof aside, "%s.corrupt-%s", path, stamp);
    for (int k = 2; access(aside, F_OK) == 0 && k < 100; k++)
        snprintf(aside, sizeof aside, "%s.corrupt-%s-%d", path, stamp, k);
    if (rename(path, aside) != 0) {
        p->no_save = 1;
        snprintf(err, errlen, "the progress file is corrupt (%.300s) and could not be moved "
                 "aside (%s); progress will not be saved", perr, strerror(errno));
        return -1;
    }
    snprintf(err, errlen, "the progress file was corrupt (%.300s); it was moved to %.400s and "
             "progress starts afresh", perr, aside);
    return 1;
}

/* mkdir -p for the directory part of path. */
static int make_dirs(const char *path, char *err, size_t errlen)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = 0;
    for (char *q = dir + 1; *q; q++) {
        if (*q != '/')
            continue;
        *q = 0;
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "%s: %s", dir, strerror(errno));
            return -1;
        }
        *q = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

static char *to_json(const Progress *p)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    int ok = cJSON_AddNumberToObject(root, "version", PROGRESS_VERSION) != NULL;
    if (p->current_lesson[0]) {
        cJSON *cur = cJSON_AddObjectToObject(root, "current");
        ok = ok && cur && cJSON_AddStringToObject(cur, "lesson", p->current_lesson) &&
             cJSON_AddNumberToObject(cur, "page", p->current_page);
    }
    cJSON *ls = cJSON_AddObjectToObject(root, "lessons");
    ok = ok && ls;
    for (int i = 0; ok && i < p->n_lessons; i++) {
        const ProgressLesson *l = &p->lessons[i];
        cJSON *o = cJSON_AddObjectToObject(ls, l->id);
        cJSON *seen = o ? cJSON_AddArrayToObject(o, "seen") : NULL;
        ok = seen != NULL;
        for (int k = 0; ok && k < l->n_seen; k++)
            if (l->seen[k]) {
                cJSON *num = cJSON_CreateNumber(k);
                ok = num && cJSON_AddItemToArray(seen, num);
            }
        ok = ok && cJSON_AddBoolToObject(o, "completed", l->completed);
    }
    cJSON *slots = ok ? cJSON_AddObjectToObject(root, "slots") : NULL;
    ok = ok && slots;
    for (int i = 0; ok && i < p->n_slots; i++) {
        cJSON *v = cJSON_Parse(p->slots[i].json);
        ok = v && cJSON_AddItemToObject(slots, p->slots[i].key, v);
        if (!ok)
            cJSON_Delete(v);
    }
    char *text = ok ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    return text;
}

int progress_save(const Progress *p, char *err, size_t errlen)
{
    if (p->no_save) {
        snprintf(err, errlen, "%s: not saved: the file could not be read, so it is kept as is",
                 p->path);
        return -1;
    }
    if (!p->path[0]) {
        snprintf(err, errlen, "progress has no file name");
        return -1;
    }
    if (make_dirs(p->path, err, errlen))
        return -1;
    char *text = to_json(p);
    if (!text) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char tmp[sizeof p->path + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", p->path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        free(text);
        return -1;
    }
    size_t len = strlen(text), off = 0;
    int rc = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            rc = -1;
            break;
        }
        off += (size_t)w;
    }
    if (!rc && write(fd, "\n", 1) != 1)
        rc = -1;
    if (!rc && fsync(fd) != 0)
        rc = -1;
    int saved = errno;
    if (close(fd) != 0 && !rc) {
        rc = -1;
        saved = errno;
    }
    free(text);
    if (rc || rename(tmp, p->path) != 0) {
        if (!rc)
            saved = errno;
        snprintf(err, errlen, "%s: cannot save progress: %s", p->path, strerror(saved));
        unlink(tmp);
        return -1;
    }
    /* make the rename itself durable */
    char dir[sizeof p->path];
    snprintf(dir, sizeof dir, "%s", p->path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = slash == dir ? '/' : 0;
        if (slash == dir)
            dir[1] = 0;
        int dfd = open(dir, O_RDONLY);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
    return 0;
}
