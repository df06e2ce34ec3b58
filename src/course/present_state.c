/* present_state.c - the presenter's published state for `attend notes`: the directory
 * (XDG_RUNTIME_DIR/attend, else /tmp/attend-<uid>, mode 0700, checked to be ours), atomic
 * writes (temp + fsync + rename), reading, and finding the presenter to follow. */
#include "present_state.h"
#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define EXT ".state"
/* The largest state file read: its fields are bounded (present_state.h) well below this. */
#define PRESENT_STATE_MAX_BYTES ((size_t)1 << 20)

/* Creates (when asked) and checks a directory: ours, not group/other accessible. */
static int safe_dir(const char *d, int create, char *err, size_t errlen)
{
    struct stat st;
    if (create && mkdir(d, 0700) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", d, strerror(errno));
        return -1;
    }
    if (lstat(d, &st)) {
        snprintf(err, errlen, "%s: %s", d, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077)) {
        snprintf(err, errlen, "%s is not a private directory of this user (want mode 0700)", d);
        return -1;
    }
    return 0;
}

int present_state_dir(char *dir, size_t n, int create, char *err, size_t errlen)
{
    const char *rt = getenv("XDG_RUNTIME_DIR");
    struct stat st;
    if (rt && rt[0] == '/' && !stat(rt, &st) && S_ISDIR(st.st_mode))
        snprintf(dir, n, "%s/attend", rt);
    else
        snprintf(dir, n, "/tmp/attend-%lu", (unsigned long)getuid());
    return safe_dir(dir, create, err, errlen);
}

static void put(FILE *f, const char *key, const char *v)
{
    fprintf(f, "%s\t", key);
    for (; *v; v++) {
        if (*v == '\n')
            fputs("\\n", f);
        else if (*v == '\t')
            fputs("\\t", f);
        else if (*v == '\\')
            fputs("\\\\", f);
        else
            fputc(*v, f);
    }
    fputc('\n', f);
}

static void put_long(FILE *f, const char *key, long v)
{
    fprintf(f, "%s\t%ld\n", key, v);
}

int present_state_write(const char *dir, const PresentState *s, char *err, size_t errlen)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s" EXT, dir, s->session);
    FileioTmp t; /* exclusive temp file, fsync, rename over a regular file only */
    if (fileio_tmp_open(&t, path, 0600, err, errlen))
        return -1;
    FILE *f = fileio_tmp_stream(&t, 0);
    if (!f) {
        fileio_tmp_abort(&t);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    fputs("attend-presenter 1\n", f);
    put(f, "session", s->session);
    put_long(f, "pid", s->pid);
    put_long(f, "started", s->started);
    put_long(f, "seq", s->seq);
    put(f, "lesson_id", s->lesson_id);
    put(f, "lesson_title", s->lesson_title);
    put_long(f, "lesson_no", s->lesson_no);
    put_long(f, "n_lessons", s->n_lessons);
    put_long(f, "page", s->page);
    put_long(f, "n_pages", s->n_pages);
    put(f, "page_title", s->page_title);
    put(f, "next_title", s->next_title);
    put(f, "keys", s->keys);
    put(f, "notes", s->notes);
    put(f, "answer", s->answer);
    put(f, "room", s->room);
    return fileio_tmp_commit(&t, err, errlen);
}

/* Copies an escaped value into out (n bytes). */
static void unescape(const char *v, char *out, size_t n)
{
    size_t o = 0;
    for (; *v && *v != '\n' && o + 1 < n; v++) {
        if (*v == '\\' && v[1]) {
            v++;
            out[o++] = *v == 'n' ? '\n' : *v == 't' ? '\t' : *v;
        } else {
            out[o++] = *v;
        }
    }
    out[o] = '\0';
}

int present_state_read(const char *path, PresentState *s, char *err, size_t errlen)
{
    char *text;
    size_t len;
    memset(s, 0, sizeof *s);
    /* a regular file only, never blocking: a FIFO named *.state is refused, not opened */
    if (fileio_read(path, PRESENT_STATE_MAX_BYTES, &text, &len, err, errlen))
        return -1;
    if (strncmp(text, "attend-presenter 1\n", 19)) {
        snprintf(err, errlen, "%s:1:1: not a presenter state file", path);
        free(text);
        return -1;
    }
    struct { const char *key; char *str; size_t n; long *num; int *inum; } F[] = {
        {"session", s->session, sizeof s->session, NULL, NULL},
        {"pid", NULL, 0, &s->pid, NULL},
        {"started", NULL, 0, &s->started, NULL},
        {"seq", NULL, 0, &s->seq, NULL},
        {"lesson_id", s->lesson_id, sizeof s->lesson_id, NULL, NULL},
        {"lesson_title", s->lesson_title, sizeof s->lesson_title, NULL, NULL},
        {"lesson_no", NULL, 0, NULL, &s->lesson_no},
        {"n_lessons", NULL, 0, NULL, &s->n_lessons},
        {"page", NULL, 0, NULL, &s->page},
        {"n_pages", NULL, 0, NULL, &s->n_pages},
        {"page_title", s->page_title, sizeof s->page_title, NULL, NULL},
        {"next_title", s->next_title, sizeof s->next_title, NULL, NULL},
        {"keys", s->keys, sizeof s->keys, NULL, NULL},
        {"notes", s->notes, sizeof s->notes, NULL, NULL},
        {"answer", s->answer, sizeof s->answer, NULL, NULL},
        {"room", s->room, sizeof s->room, NULL, NULL},
    };
    for (char *line = text + 19, *next; *line; line = next) {
        next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        char *tab = memchr(line, '\t', (size_t)(next - line));
        if (!tab)
            continue;
        *tab = '\0';
        for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
            if (strcmp(line, F[i].key))
                continue;
            if (F[i].str)
                unescape(tab + 1, F[i].str, F[i].n);
            else if (F[i].num)
                *F[i].num = strtol(tab + 1, NULL, 10);
            else
                *F[i].inum = (int)strtol(tab + 1, NULL, 10);
        }
    }
    free(text);
    return 0;
}

/* 1 if the process pid is running (or exists under another user). */
/* 1 when process pid runs: it exists (kill 0) and is not a zombie, a killed process its
 * parent has not reaped yet (/proc/PID/stat's state Z, where /proc is there). */
static int alive(long pid)
{
    if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno != EPERM))
        return 0;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close = strrchr(buf, ')'); /* "PID (comm) S ...": comm may hold spaces */
    return !(close && close[1] == ' ' && close[2] == 'Z');
}

int present_state_live(const PresentState *s)
{
    return alive(s->pid);
}

int present_state_find(const char *dir, const char *session, char *path, size_t n)
{
    static PresentState s;
    char err[256];
    if (session) {
        snprintf(path, n, "%s/%s" EXT, dir, session);
        return present_state_read(path, &s, err, sizeof err) || !alive(s.pid) ? -1 : 0;
    }
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    struct timespec best = {0, 0};
    int found = 0;
    char p[1024];
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l <= strlen(EXT) || strcmp(e->d_name + l - strlen(EXT), EXT))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        /* lstat: a FIFO, a link or a directory named *.state is never opened */
        if (lstat(p, &st) || !S_ISREG(st.st_mode) || present_state_read(p, &s, err, sizeof err))
            continue;
        if (!alive(s.pid)) { /* a presenter that was killed: its file is attend's, stale */
            unlink(p);
            continue;
        }
        if (!found || st.st_mtim.tv_sec > best.tv_sec ||
            (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec > best.tv_nsec)) {
            best = st.st_mtim;
            snprintf(path, n, "%s", p);
            found = 1;
        }
    }
    closedir(d);
    return found ? 0 : -1;
}

void present_state_remove(const char *dir, const char *session)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s" EXT, dir, session);
    unlink(path);
}
