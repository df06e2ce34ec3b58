/* fileio.h - bounded reads of regular files and crash-safe writes (exclusive temp file in the
 * target directory, fsync, rename, fsync the directory). Every file attend reads or writes
 * goes through here (docs/security.md). No curses, no printing, no exit(). */
#ifndef ATTEND_FILEIO_H
#define ATTEND_FILEIO_H

#include <stddef.h>
#include <stdio.h>

/* The largest file attend reads (a model, a lesson, the progress file, a vocabulary):
 * 256 MiB, enough for a model of MODEL_MAX_PARAMS weights in the base64 "f32" form
 * (about 171 MB). The shipped models are under 0.5 MiB. */
#define FILEIO_MAX_BYTES ((size_t)256 << 20)

/* Whether path is absent: 0 when something is there (a file, a directory, anything stat
 * reaches); 1 when nothing is; 2 when path is a symbolic link whose target is missing (an
 * interrupted download), with "PATH is a symbolic link to a missing file (TARGET): ..." in
 * err. */
int fileio_absent(const char *path, char *err, size_t errlen);
/* Reads the whole of path into a NUL-terminated buffer (*out, caller frees; *len its length
 * without the NUL). Only regular files of at most cap bytes are read: a directory, a FIFO, a
 * device (such as /dev/zero) or a socket is refused without blocking or reading from it.
 * 0, or -1 with "PATH: what is wrong" in err (never the file's contents). */
int fileio_read(const char *path, size_t cap, char **out, size_t *len, char *err,
                size_t errlen);

/* What a watcher compares to tell whether a file changed: its size, modification time, inode
 * and a 64-bit FNV-1a hash of its first FILEIO_PRINT_MAX bytes. The contents are what settle
 * it: a file renamed over another within one tick of a coarse file clock keeps the mtime, and
 * on ext4 the inode alternates between two numbers, so a third write of the same size looked
 * like the first (session 13's notes screen). ok = 0: the file could not be read (absent, not a
 * regular file): two such prints are the same. */
#define FILEIO_PRINT_MAX ((size_t)4 << 20)
typedef struct {
    int ok;
    long long size, mtime_ns;
    unsigned long long ino, hash;
} FileioPrint;

/* Fills *fp for path (never blocks on a FIFO or device: only a regular file is read) and
 * returns fp->ok. */
int fileio_print(const char *path, FileioPrint *fp);
/* 1 when a and b are the same print (every field equal), else 0. */
int fileio_print_same(const FileioPrint *a, const FileioPrint *b);

/* Asks the kernel to back the n bytes at p (memory about to be filled from a file: the read
 * buffer, a model's weights) with pages now, in one call, rather than with one page fault per
 * page as they are written: a model file is megabytes. Only blocks of 256 KiB or more; a hint,
 * ignored where the kernel does not know it (before Linux 5.14). Contents are unchanged. */
void fileio_prefault(void *p, size_t n);

/* The largest file attend writes (a figure, a handout page, a recording, a model): 256 MiB.
 * A stream from fileio_tmp_stream or fileio_sink_open fails with EFBIG past its cap. */
#define FILEIO_MAX_WRITE ((size_t)256 << 20)

/* Checks that path may be written by replacing it: it does not exist yet, or it is a regular
 * file. A symbolic link, a directory, a FIFO, a device or a socket there is refused (lstat:
 * the link itself, not what it points to). 0, or -1 with "PATH: is a symbolic link; attend
 * writes only regular files (...)" in err. Nothing is opened or created. */
int fileio_check_target(const char *path, char *err, size_t errlen);

/* A capped output stream over a descriptor it does not own (standard output, or a temp
 * file): the first write error's errno is kept in werr (EFBIG once cap bytes are passed). */
typedef struct {
    int fd;
    size_t cap;        /* the most bytes it accepts */
    size_t written;
    int werr;          /* 0, or the first write error */
    int over_cap;      /* 1: werr is EFBIG because cap bytes were passed */
} FileioSink;

/* A stdio stream writing to fd through s (cap 0: FILEIO_MAX_WRITE). The caller fcloses it
 * (fd stays open) and then looks at s->werr. NULL when out of memory. */
FILE *fileio_sink_open(FileioSink *s, int fd, size_t cap);

/* An atomic write in progress: the temp file PATH.tmp-PID-RANDOM, created with
 * O_CREAT|O_EXCL|O_NOFOLLOW (mode 0600 or as given) in the target's own directory. */
typedef struct {
    int fd;            /* open for writing, or -1 once closed */
    FILE *f;           /* the stream of fileio_tmp_stream over fd, or NULL */
    FileioSink sink;   /* the stream's writes and first error */
    char path[1024];   /* the target */
    char tmp[1100];    /* the temp file */
} FileioTmp;

/* Checks the target (fileio_check_target) and creates the temp file for path; an existing
 * target's permission bits are kept. 0, or -1 with a message naming path (not the temp
 * name). Nothing at path is touched. */
int fileio_tmp_open(FileioTmp *t, const char *path, int mode, char *err, size_t errlen);
/* A stdio stream over the temp file, at most cap bytes (0: FILEIO_MAX_WRITE); write errors
 * are reported by fileio_tmp_finish / fileio_tmp_commit. NULL when out of memory. */
FILE *fileio_tmp_stream(FileioTmp *t, size_t cap);
/* Writes all of buf (retrying short writes and EINTR). 0, or -1 with errno set (EFBIG when
 * a file-size limit is hit: SIGXFSZ must be ignored by the program for that). */
int fileio_write_all(int fd, const void *buf, size_t len);
/* Flushes the stream, fsyncs and closes the temp file (renames nothing). 0, or -1 with
 * "PATH: write error: reason (the previous file, if any, is unchanged)" and the temp file
 * removed. Safe to call again (then 0). */
int fileio_tmp_finish(FileioTmp *t, char *err, size_t errlen);
/* Finishes the temp file (fileio_tmp_finish), checks again that the target is absent or a
 * regular file, renames the temp file over it and fsyncs the directory. On any failure the
 * temp file is removed, the target is left as it was, and -1 comes back with a message
 * naming PATH. 0 on success. */
int fileio_tmp_commit(FileioTmp *t, char *err, size_t errlen);
/* Finishes the temp file and gives it the name path (which may differ from the target it
 * was opened for, in the same directory) only if no file has that name yet (link: never
 * replacing anything), then removes the temp name. 0; 1 when path exists (the temp file is
 * kept for another name); -1 with a message naming path (the temp file removed). */
int fileio_tmp_commit_new(FileioTmp *t, const char *path, char *err, size_t errlen);
/* Closes and removes the temp file (a write failed). Keeps errno. */
void fileio_tmp_abort(FileioTmp *t);

/* The whole of buf written to path atomically (fileio_tmp_open, write, fileio_tmp_commit).
 * 0, or -1 with a message naming path. */
int fileio_write_file(const char *path, int mode, const void *buf, size_t len, char *err,
                      size_t errlen);

/* Removes PATH.tmp-PID and PATH.tmp-PID-* (and the older PATH.tmp.PID) left behind by
 * processes that no longer exist; regular files only, live processes' files kept. Returns the
 * number removed. */
int fileio_clean_stale(const char *path);

#endif
