/* fileio.c - bounded regular-file reads and exclusive temp file + fsync + rename writes
 * (see fileio.h). */
#define _GNU_SOURCE /* fopencookie */
#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

void fileio_prefault(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
    enum { MIN = 256 << 10 };
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)p, e = a + n;
    if (n < MIN || !page || page & (page - 1))
        return;
    a = (a + page - 1) & ~(page - 1);
    e &= ~(page - 1);
    if (e > a)
        madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

/* What a non-regular file is, for the message. */
static const char *kind_name(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO (named pipe)";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

int fileio_read(const char *path, size_t cap, char **out, size_t *len, char *err,
                size_t errlen)
{
    *out = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; cleared below for a file. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: is %s, not a regular file: attend reads only regular files",
                 path, kind_name(st.st_mode));
        close(fd);
        return -1;
    }
    if ((uintmax_t)st.st_size > (uintmax_t)cap) {
        snprintf(err, errlen, "%s: too large (%jd bytes; attend reads files of at most %zu MiB)",
                 path, (intmax_t)st.st_size, cap >> 20);
        close(fd);
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    size_t want = (size_t)st.st_size, got = 0, bufcap = want + 1;
    char *buf = malloc(bufcap + 1);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        close(fd);
        return -1;
    }
    fileio_prefault(buf, bufcap); /* read() would fault it in a page at a time */
    for (;;) {
        if (got == bufcap) { /* the file grew while we read it */
            if (bufcap > cap) {
                snprintf(err, errlen, "%s: too large (more than %zu MiB; attend reads files of "
                         "at most %zu MiB)", path, cap >> 20, cap >> 20);
                free(buf);
                close(fd);
                return -1;
            }
            size_t nc = bufcap * 2 > cap + 1 ? cap + 1 : bufcap * 2;
            char *nb = realloc(buf, nc + 1);
            if (!nb) {
                snprintf(err, errlen, "%s: out of memory", path);
                free(buf);
                close(fd);
                return -1;
            }
            buf = nb;
            bufcap = nc;
        }
        ssize_t r = read(fd, buf + got, bufcap - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got > cap) {
        snprintf(err, errlen, "%s: too large (attend reads files of at most %zu MiB)", path,
                 cap >> 20);
        free(buf);
        return -1;
    }
    buf[got] = 0;
    *out = buf;
    *len = got;
    return 0;
}

/* fileio.h: size, mtime, inode and the FNV-1a hash of the first FILEIO_PRINT_MAX bytes. */
int fileio_print(const char *path, FileioPrint *fp)
{
    memset(fp, 0, sizeof *fp);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC); /* a FIFO: no wait */
    if (fd < 0)
        return 0;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 0;
    }
    uint64_t h = 1469598103934665603ull; /* FNV-1a, 64 bits */
    unsigned char buf[16384];
    size_t left = FILEIO_PRINT_MAX;
    while (left > 0) {
        ssize_t r = read(fd, buf, left < sizeof buf ? left : sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        for (ssize_t i = 0; i < r; i++)
            h = (h ^ buf[i]) * 1099511628211ull;
        left -= (size_t)r;
    }
    close(fd);
    fp->ok = 1;
    fp->size = (long long)st.st_size;
    fp->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000ll + st.st_mtim.tv_nsec;
    fp->ino = (unsigned long long)st.st_ino;
    fp->hash = h;
    return 1;
}

int fileio_print_same(const FileioPrint *a, const FileioPrint *b)
{
    return a->ok == b->ok && a->size == b->size && a->mtime_ns == b->mtime_ns &&
           a->ino == b->ino && a->hash == b->hash;
}

/* 64 unpredictable bits for a temp name: getrandom, else the clock, pid and a counter. */
static uint64_t random_bits(void)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r)
        return r;
    static uint64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    r = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15u ^ (uint64_t)ts.tv_sec << 20 ^
        (uint64_t)getpid() << 40 ^ ++counter * 0xD1B54A32D192ED03u;
    return r;
}

/* The directory part of path ("." when none) into dir. */
static void dir_of(const char *path, char *dir, size_t n)
{
    snprintf(dir, n, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = 0;
    else
        snprintf(dir, n, ".");
}

/* What an existing non-regular target is, for the refusal. */
static const char *target_kind(mode_t m)
{
    return S_ISLNK(m) ? "a symbolic link" : kind_name(m);
}

int fileio_check_target(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (!path[0]) {
        snprintf(err, errlen, "the file name is empty");
        return -1;
    }
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            char dir[1024];
            dir_of(path, dir, sizeof dir);
            struct stat ds;
            if (stat(dir, &ds) != 0) {
                snprintf(err, errlen, "%s: cannot write there: %s: %s", path, dir,
                         strerror(errno));
                return -1;
            }
            if (!S_ISDIR(ds.st_mode)) {
                snprintf(err, errlen, "%s: cannot write there: %s is not a directory", path, dir);
                return -1;
            }
            return 0;
        }
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode))
        return 0;
    snprintf(err, errlen, "%s: is %s, not a regular file: attend replaces only regular files "
             "(it writes a new file and renames it over the old one), so it leaves this one as "
             "it is", path, target_kind(st.st_mode));
    return -1;
}

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
    FileioSink *s = cookie;
    if (s->werr) {
        errno = s->werr;
        return -1;
    }
    if (len > s->cap - s->written) {
        s->over_cap = 1;
        s->werr = errno = EFBIG;
        return -1;
    }
    if (fileio_write_all(s->fd, buf, len)) {
        s->werr = errno ? errno : EIO;
        return -1;
    }
    s->written += len;
    return (ssize_t)len;
}

FILE *fileio_sink_open(FileioSink *s, int fd, size_t cap)
{
    s->fd = fd;
    s->cap = cap ? cap : FILEIO_MAX_WRITE;
    s->written = 0;
    s->werr = 0;
    s->over_cap = 0;
    cookie_io_functions_t io = {NULL, sink_write, NULL, NULL};
    return fopencookie(s, "w", io);
}

/* "PATH: write error: reason" for errno e (EFBIG past a sink's cap says the limit). */
static void write_error(const FileioTmp *t, int e, char *err, size_t errlen)
{
    if (e == EFBIG && t->sink.over_cap)
        snprintf(err, errlen, "%s: not written: larger than %zu MiB, attend's limit for one "
                 "file (the previous file, if any, is unchanged)", t->path, t->sink.cap >> 20);
    else
        snprintf(err, errlen, "%s: write error: %s (the previous file, if any, is unchanged)",
                 t->path, strerror(e ? e : EIO));
}

int fileio_tmp_open(FileioTmp *t, const char *path, int mode, char *err, size_t errlen)
{
    t->fd = -1;
    t->f = NULL;
    t->tmp[0] = 0;
    memset(&t->sink, 0, sizeof t->sink);
    if (!path[0] || strlen(path) >= sizeof t->path) {
        snprintf(err, errlen, "%.200s: path %s", path, path[0] ? "too long" : "is empty");
        return -1;
    }
    snprintf(t->path, sizeof t->path, "%s", path);
    if (fileio_check_target(path, err, errlen))
        return -1;
    struct stat old;
    int keep_mode = lstat(path, &old) == 0 && S_ISREG(old.st_mode);
    for (int attempt = 0; attempt < 100; attempt++) {
        snprintf(t->tmp, sizeof t->tmp, "%s.tmp-%ld-%016llx", path, (long)getpid(),
                 (unsigned long long)random_bits());
        t->fd = open(t->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     (mode_t)mode);
        if (t->fd >= 0) {
            if (keep_mode)
                fchmod(t->fd, old.st_mode & 07777);
            return 0;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    char dir[1024];
    dir_of(path, dir, sizeof dir);
    snprintf(err, errlen, "%s: cannot create a file in %s: %s", path, dir, strerror(e));
    t->tmp[0] = 0;
    return -1;
}

FILE *fileio_tmp_stream(FileioTmp *t, size_t cap)
{
    if (!t->f && t->fd >= 0)
        t->f = fileio_sink_open(&t->sink, t->fd, cap);
    return t->f;
}

int fileio_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

void fileio_tmp_abort(FileioTmp *t)
{
    int e = errno;
    if (t->f)
        fclose(t->f);
    t->f = NULL;
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
    if (t->tmp[0])
        unlink(t->tmp);
    t->tmp[0] = 0;
    errno = e;
}

int fileio_tmp_finish(FileioTmp *t, char *err, size_t errlen)
{
    if (t->fd < 0)
        return 0;
    int e = 0;
    if (t->f) {
        if (fflush(t->f) != 0 || ferror(t->f))
            e = t->sink.werr ? t->sink.werr : errno;
        fclose(t->f); /* the cookie's stream: closes nothing underneath */
        t->f = NULL;
        if (!e && t->sink.werr)
            e = t->sink.werr;
    }
    if (!e && fsync(t->fd) != 0)
        e = errno;
    if (close(t->fd) != 0 && !e)
        e = errno;
    t->fd = -1;
    if (e) {
        write_error(t, e, err, errlen);
        fileio_tmp_abort(t);
        return -1;
    }
    return 0;
}

int fileio_tmp_commit(FileioTmp *t, char *err, size_t errlen)
{
    if (fileio_tmp_finish(t, err, errlen))
        return -1;
    if (!t->tmp[0]) {
        snprintf(err, errlen, "%s: cannot save: nothing was written", t->path);
        return -1;
    }
    char why[1400];
    if (fileio_check_target(t->path, why, sizeof why)) { /* something appeared meanwhile */
        snprintf(err, errlen, "%s", why);
        fileio_tmp_abort(t);
        return -1;
    }
    if (rename(t->tmp, t->path) != 0) {
        snprintf(err, errlen, "%s: cannot save: %s (the previous file, if any, is unchanged)",
                 t->path, strerror(errno));
        fileio_tmp_abort(t);
        return -1;
    }
    t->tmp[0] = 0;
    /* make the rename itself durable */
    char dir[sizeof t->path];
    dir_of(t->path, dir, sizeof dir);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

int fileio_tmp_commit_new(FileioTmp *t, const char *path, char *err, size_t errlen)
{
    if (fileio_tmp_finish(t, err, errlen))
        return -1;
    if (link(t->tmp, path) != 0) {
        if (errno == EEXIST)
            return 1;
        snprintf(err, errlen, "%s: cannot save: %s", path, strerror(errno));
        fileio_tmp_abort(t);
        return -1;
    }
    unlink(t->tmp);
    t->tmp[0] = 0;
    char dir[sizeof t->path];
    dir_of(path, dir, sizeof dir);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

int fileio_write_file(const char *path, int mode, const void *buf, size_t len, char *err,
                      size_t errlen)
{
    FileioTmp t;
    if (fileio_tmp_open(&t, path, mode, err, errlen))
        return -1;
    if (fileio_write_all(t.fd, buf, len)) {
        write_error(&t, errno, err, errlen);
        fileio_tmp_abort(&t);
        return -1;
    }
    return fileio_tmp_commit(&t, err, errlen);
}

int fileio_clean_stale(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = path;
    if (slash) {
        base = path + (slash - dir) + 1;
        *(slash == dir ? slash + 1 : slash) = 0;
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    size_t blen = strlen(base);
    if (!blen)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const char *n = e->d_name;
        if (strncmp(n, base, blen) || (strncmp(n + blen, ".tmp-", 5) &&
                                       strncmp(n + blen, ".tmp.", 5)))
            continue;
        char *end;
        errno = 0;
        long pid = strtol(n + blen + 5, &end, 10);
        if (errno || end == n + blen + 5 || pid <= 0 || (*end && *end != '-'))
            continue;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* its writer may still be running */
        char full[2200];
        snprintf(full, sizeof full, "%s/%s", dir, n);
        struct stat st;
        if (lstat(full, &st) == 0 && S_ISREG(st.st_mode) && unlink(full) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

int fileio_absent(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return 0;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
        return 1;
    char to[512];
    ssize_t n = readlink(path, to, sizeof to - 1);
    to[n > 0 ? n : 0] = 0;
    snprintf(err, errlen, "%s is a symbolic link to a missing file (%.300s): an interrupted "
             "download, or a file moved away", path, to);
    return 2;
}
