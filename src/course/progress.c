/* progress.c - the learner's progress file: load (corrupt files moved aside), atomic save
 * (temp file, fsync, rename, fsync dir), and small setters. Format in docs/lessons.md. */
#include "progress.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "json.h"
#include "strmap.h"

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
    strmap_free(&p->index);
    if (p->disk) {
        progress_free(p->disk);
        free(p->disk);
    }
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
    int at = id ? strmap_get(&p->index, id, strlen(id)) : -1;
    return at >= 0 ? &p->lessons[at] : NULL;
}

static ProgressLesson *get_lesson(Progress *p, const char *id)
{
    ProgressLesson *l = find_lesson(p, id);
    if (l)
        return l;
    if (!id || !*id || strlen(id) >= sizeof l->id)
        return NULL;
    if (p->n_lessons == p->cap_lessons) { /* doubling: n records cost O(n) in all */
        int nc = p->cap_lessons ? p->cap_lessons * 2 : 16;
        ProgressLesson *nl = realloc(p->lessons, sizeof *nl * (size_t)nc);
        if (!nl)
            return NULL;
        p->lessons = nl;
        p->cap_lessons = nc;
    }
    if (strmap_put(&p->index, id, strlen(id), p->n_lessons, NULL) < 0)
        return NULL;
    l = &p->lessons[p->n_lessons++];
    memset(l, 0, sizeof *l);
    snprintf(l->id, sizeof l->id, "%s", id);
    return l;
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
            /* range first: converting an out-of-range double to int is undefined */
            if (!cJSON_IsNumber(s) || !(s->valuedouble >= 0 && s->valuedouble < PROGRESS_MAX_PAGE) ||
                s->valuedouble != floor(s->valuedouble) ||
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
    char why[1400];
    if (fileio_check_target(path, why, sizeof why)) {
        p->no_save = 1; /* a symlink, directory or FIFO there: keep it, read and save nothing */
        snprintf(err, errlen, "%.1300s: progress will not be saved", why);
        return -1;
    }
    char perr[600];
    cJSON *root = json_parse_file(path, NULL, perr, sizeof perr);
    if (!root && access(path, R_OK) != 0) {
        p->no_save = 1;
        snprintf(err, errlen, "%s", perr);
        return -1;
    }
    const cJSON *ver = root ? json_get(root, "version") : NULL;
    if (cJSON_IsNumber(ver) && ver->valuedouble > PROGRESS_VERSION) {
        /* not corrupt: a newer attend's file. Kept where it is, and not overwritten. */
        p->no_save = 1;
        snprintf(err, errlen, "%.900s: written by a newer attend (progress format %.15g; this "
                 "attend reads format %d): it is kept as it is, and progress will not be saved "
                 "until the newer attend is used", path, ver->valuedouble, PROGRESS_VERSION);
        cJSON_Delete(root);
        return -1;
    }
    int bad = !root;
    if (root) {
        if (from_json(p, root, why, sizeof why)) {
            bad = 1;
            snprintf(perr, sizeof perr, "%.280s: %.300s", path, why);
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

/* The file's text (the format of docs/lessons.md), written directly: linear in the records,
 * with no JSON tree built. NUL-terminated, ends with a newline; *len its length. NULL when
 * out of memory. */
static char *to_json(const Progress *p, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    fprintf(f, "{\n  \"version\": %d,\n", PROGRESS_VERSION);
    if (p->current_lesson[0]) {
        fputs("  \"current\": {\"lesson\": ", f);
        json_write_string(f, p->current_lesson);
        fprintf(f, ", \"page\": %d},\n", p->current_page);
    }
    fputs("  \"lessons\": {", f);
    for (int i = 0; i < p->n_lessons; i++) {
        const ProgressLesson *l = &p->lessons[i];
        fputs(i ? ",\n    " : "\n    ", f);
        json_write_string(f, l->id);
        fputs(": {\"seen\": [", f);
        for (int k = 0, first = 1; k < l->n_seen; k++)
            if (l->seen[k]) {
                fprintf(f, first ? "%d" : ", %d", k);
                first = 0;
            }
        fprintf(f, "], \"completed\": %s}", l->completed ? "true" : "false");
    }
    fputs(p->n_lessons ? "\n  },\n  \"slots\": {" : "},\n  \"slots\": {", f);
    for (int i = 0; i < p->n_slots; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        json_write_string(f, p->slots[i].key);
        fputs(": ", f);
        fputs(p->slots[i].json, f); /* checked JSON, printed compact by progress_slot_set */
    }
    fputs(p->n_slots ? "\n  }\n}\n" : "}\n}\n", f);
    int bad = ferror(f);
    if (fclose(f) || bad) {
        free(text);
        return NULL;
    }
    return text;
}

/* ---- merging two windows' progress (docs/security.md) ----
 * A save reads what is on disk under the lock and writes the union:
 *   pages seen: union; completed: either; current lesson and page: this save's (the newest);
 *   slots: key by key; inside a slot's JSON, objects merge key by key (keys of either side
 *   kept), an object carrying a number "when" or "last" is a record stamped with a time and the
 *   newer one wins whole (ties: this save's), except that a number "best" keeps the larger;
 *   any other value in both: this save's (the newest).
 * Nothing is ever removed by a merge, so nothing either window recorded is lost. */

/* The record's time stamp ("when" or "last"), or NAN when it is not a stamped record. */
static double stamp_of(const cJSON *o)
{
    const cJSON *w = json_get(o, "when");
    if (!cJSON_IsNumber(w))
        w = json_get(o, "last");
    return cJSON_IsNumber(w) && isfinite(w->valuedouble) ? w->valuedouble : NAN;
}

/* The merge of disk's and mine's values (new tree, caller deletes), NULL if out of memory. */
static cJSON *merge_value(const cJSON *disk, const cJSON *mine, int depth)
{
    if (!cJSON_IsObject(disk) || !cJSON_IsObject(mine) || depth > 32)
        return cJSON_Duplicate(mine, 1);
    double sd = stamp_of(disk), sm = stamp_of(mine);
    if (!isnan(sd) && !isnan(sm)) {
        cJSON *r = cJSON_Duplicate(sd > sm ? disk : mine, 1);
        const cJSON *bd = json_get(disk, "best"), *bm = json_get(mine, "best");
        if (r && cJSON_IsNumber(bd) && cJSON_IsNumber(bm)) {
            double best = bd->valuedouble > bm->valuedouble ? bd->valuedouble : bm->valuedouble;
            cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(r, "best"), best);
        }
        return r;
    }
    cJSON *r = cJSON_Duplicate(mine, 1);
    for (const cJSON *d = disk->child; r && d; d = d->next) {
        cJSON *m = cJSON_GetObjectItemCaseSensitive(r, d->string);
        cJSON *v = m ? merge_value(d, m, depth + 1) : cJSON_Duplicate(d, 1);
        if (!v) {
            cJSON_Delete(r);
            return NULL;
        }
        if (m)
            cJSON_ReplaceItemInObjectCaseSensitive(r, d->string, v);
        else
            cJSON_AddItemToObject(r, d->string, v);
    }
    return r;
}

/* Adds mine's records into disk (which becomes the merge). 0, or -1 with a message. */
static int merge_into(Progress *disk, const Progress *mine, char *err, size_t errlen)
{
    if (mine->current_lesson[0])
        progress_set_current(disk, mine->current_lesson, mine->current_page);
    for (int i = 0; i < mine->n_lessons; i++) { /* one lookup a record: linear in all */
        const ProgressLesson *l = &mine->lessons[i];
        ProgressLesson *d = get_lesson(disk, l->id);
        if (!d)
            goto oom;
        if (l->n_seen > d->n_seen) {
            unsigned char *ns = realloc(d->seen, (size_t)l->n_seen);
            if (!ns)
                goto oom;
            memset(ns + d->n_seen, 0, (size_t)(l->n_seen - d->n_seen));
            d->seen = ns;
            d->n_seen = l->n_seen;
        }
        for (int k = 0; k < l->n_seen; k++)
            d->seen[k] |= l->seen[k];
        d->completed |= l->completed;
    }
    for (int i = 0; i < mine->n_slots; i++) {
        const ProgressSlot *sl = &mine->slots[i];
        const char *dt = progress_slot_get(disk, sl->key);
        if (!dt) {
            if (progress_slot_set(disk, sl->key, sl->json, err, errlen))
                return -1;
            continue;
        }
        cJSON *a = cJSON_Parse(dt), *b = cJSON_Parse(sl->json);
        cJSON *m = a && b ? merge_value(a, b, 0) : NULL;
        char *text = m ? cJSON_PrintUnformatted(m) : NULL;
        cJSON_Delete(a);
        cJSON_Delete(b);
        cJSON_Delete(m);
        int rc = text ? progress_slot_set(disk, sl->key, text, err, errlen) : -1;
        free(text);
        if (rc)
            goto oom;
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* Takes the lock beside the progress file (PATH.lock, flock), waiting up to ~5 s for another
 * window's save. The lock file's descriptor, or -1 with a message. */
static int take_lock(const char *path, char *err, size_t errlen)
{
    char lock[sizeof ((Progress *)0)->path + 8];
    snprintf(lock, sizeof lock, "%s.lock", path);
    /* O_NONBLOCK: a FIFO planted at the lock's name must not block the open */
    int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot save progress: cannot open the lock %s: %s", path, lock,
                 strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: cannot save progress: the lock %s is not a regular file",
                 path, lock);
        close(fd);
        return -1;
    }
    for (int tries = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; tries++) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || tries >= 500) {
            snprintf(err, errlen, "%s: cannot save progress: %s", path,
                     errno == EWOULDBLOCK ? "another attend holds the lock" : strerror(errno));
            close(fd);
            return -1;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return fd;
}

/* What identifies the file on disk now (device, inode, size, modification time); all zero
 * when there is none. */
static void file_sig(const char *path, long long sig[5])
{
    struct stat st;
    memset(sig, 0, 5 * sizeof *sig);
    if (lstat(path, &st) == 0) {
        sig[0] = (long long)st.st_dev;
        sig[1] = (long long)st.st_ino;
        sig[2] = (long long)st.st_size;
        sig[3] = (long long)st.st_mtim.tv_sec;
        sig[4] = (long long)st.st_mtim.tv_nsec;
    }
}

/* FNV-1a, 64 bits, of a file's text. */
static unsigned long long text_hash(const char *s, size_t n)
{
    unsigned long long h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* 1 if the file still holds the text this window last wrote (its size and time stamps can
 * repeat within a clock tick; its bytes are what counts). */
static int same_text(const Progress *p)
{
    char *buf, e[300];
    size_t len;
    if (fileio_read(p->path, FILEIO_MAX_BYTES, &buf, &len, e, sizeof e))
        return 0;
    int same = text_hash(buf, len) == p->disk_hash;
    free(buf);
    return same;
}

int progress_save(Progress *p, char *err, size_t errlen)
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
    int lock = take_lock(p->path, err, errlen);
    if (lock < 0)
        return -1;
    fileio_clean_stale(p->path);
    /* What another window saved since: merged with ours, never overwritten. The file is read
     * again only when it changed since this window last read or wrote it; otherwise the copy
     * kept then is what it holds. */
    long long sig[5];
    file_sig(p->path, sig);
    if (p->disk && (memcmp(sig, p->disk_sig, sizeof sig) || !same_text(p))) {
        progress_free(p->disk);
        free(p->disk);
        p->disk = NULL;
    }
    if (!p->disk) {
        Progress *disk = malloc(sizeof *disk);
        char derr[1200];
        int rc = disk ? progress_load(disk, p->path, derr, sizeof derr) : -1;
        if (rc < 0) {
            snprintf(err, errlen, "%.1100s (progress not saved)", disk ? derr : "out of memory");
            if (disk)
                progress_free(disk);
            free(disk);
            close(lock);
            return -1;
        }
        p->disk = disk;
        file_sig(p->path, sig); /* a corrupt file was moved aside: nothing is there now */
    }
    char *text = NULL;
    size_t len = 0;
    if (merge_into(p->disk, p, err, errlen) == 0) {
        text = to_json(p->disk, &len);
        if (!text)
            snprintf(err, errlen, "out of memory");
    }
    int rc = text ? fileio_write_file(p->path, 0600, text, len, err, errlen) : -1;
    if (rc == 0) {
        file_sig(p->path, p->disk_sig);
        p->disk_hash = text_hash(text, len);
    }
    free(text);
    if (rc) { /* the copy holds what was not written: read the file again next time */
        progress_free(p->disk);
        free(p->disk);
        p->disk = NULL;
    }
    close(lock); /* releases the flock */
    return rc;
}
