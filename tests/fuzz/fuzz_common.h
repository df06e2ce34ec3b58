/* fuzz_common.h - shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c, built by `make
 * fuzz` with clang): a private scratch directory and writing one input to a file there. */
#ifndef ATTEND_FUZZ_COMMON_H
#define ATTEND_FUZZ_COMMON_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_dir_path[256];
static inline void fuzz_clean(const char *dir, const char *keep);

static void fuzz_dir_remove(void)
{
    fuzz_clean(fuzz_dir_path, NULL);
    rmdir(fuzz_dir_path);
}

/* The harness's own scratch directory, made once: /tmp/attend-fuzz-NAME-PID, removed at
 * exit. */
static inline const char *fuzz_dir(const char *name)
{
    if (!fuzz_dir_path[0]) {
        snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "/tmp/attend-fuzz-%s-%ld", name,
                 (long)getpid());
        mkdir(fuzz_dir_path, 0700);
        atexit(fuzz_dir_remove);
    }
    return fuzz_dir_path;
}

/* Writes data to path (replacing it). 0 or -1. */
static inline int fuzz_write(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && w == size ? 0 : -1;
}

/* Removes every entry of dir except keep (a file name), so corrupt-file copies and the like
 * do not pile up over millions of inputs. */
static inline void fuzz_clean(const char *dir, const char *keep)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char path[600];
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || (keep && !strcmp(e->d_name, keep)))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

#endif
