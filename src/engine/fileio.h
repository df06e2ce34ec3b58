/* fileio.h - bounded reads of regular files and crash-safe writes (exclusive temp file in the
 * target directory, fsync, rename, fsync the directory). Every file attend reads or writes
 * goes through here (docs/security.md). No curses, no printing, no exit(). */
#ifndef ATTEND_FILEIO_H
#define ATTEND_FILEIO_H

#include <stddef.h>

/* The largest file attend reads (a model, a lesson, the progress file, a vocabulary):
 * 256 MiB, enough for a model of MODEL_MAX_PARAMS weights in the base64 "f32" form
 * (about 171 MB). The shipped models are under 0.5 MiB. */
#define FILEIO_MAX_BYTES ((size_t)256 << 20)

/* Reads the whole of path into a NUL-terminated buffer (*out, caller frees; *len its length
 * without the NUL). Only regular files of at most cap bytes are read: a directory, a FIFO, a
 * device (such as /dev/zero) or a socket is refused without blocking or reading from it.
 * 0, or -1 with "PATH: what is wrong" in err (never the file's contents). */
int fileio_read(const char *path, size_t cap, char **out, size_t *len, char *err,
                size_t errlen);

/* An atomic write in progress: the temp file PATH.tmp-PID-RANDOM, created with
 * O_CREAT|O_EXCL|O_NOFOLLOW (mode 0600 or as given) in the target's own directory. */
typedef struct {
    int fd;            /* open for writing, or -1 once closed */
    char path[1024];   /* the target */
    char tmp[1100];    /* the temp file */
} FileioTmp;

/* Creates the temp file for path. 0, or -1 with a message naming path (not the temp name). */
int fileio_tmp_open(FileioTmp *t, const char *path, int mode, char *err, size_t errlen);
/* Writes all of buf (retrying short writes and EINTR). 0, or -1 with errno set (EFBIG when
 * a file-size limit is hit: SIGXFSZ must be ignored by the program for that). */
int fileio_write_all(int fd, const void *buf, size_t len);
/* fsyncs and closes the temp file (unless t->fd is already -1), renames it over the target
 * and fsyncs the directory. On any failure the temp file is removed, the target is left as it
 * was, and -1 comes back with "PATH: cannot save: reason". 0 on success. */
int fileio_tmp_commit(FileioTmp *t, char *err, size_t errlen);
/* Closes and removes the temp file (a write failed). Keeps errno. */
void fileio_tmp_abort(FileioTmp *t);

/* Removes PATH.tmp-PID and PATH.tmp-PID-* (and the older PATH.tmp.PID) left behind by
 * processes that no longer exist; regular files only, live processes' files kept. Returns the
 * number removed. */
int fileio_clean_stale(const char *path);

#endif
