/* datapath.c - where attend finds its data files (data/, lessons/): one lookup shared by the
 * loaders, the subcommands, the player and `attend --version`. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datapath.h"

/* Both come from the Makefile, for this file only: DATADIR = $(PREFIX)/share/attend, SRCDIR =
 * the tree it was built in (empty in the Debian package, to keep the build path out of it). */
#ifndef ATTEND_DATADIR
#define ATTEND_DATADIR ""
#endif
#ifndef ATTEND_SRCDIR
#define ATTEND_SRCDIR ""
#endif

/* The running binary's path (resolved), or 0 when /proc is not there. */
static int exe_path(char *out, size_t n)
{
    ssize_t k = readlink("/proc/self/exe", out, n - 1);
    if (k <= 0 || (size_t)k >= n - 1)
        return 0;
    out[k] = 0;
    return 1;
}

/* 1 when the running binary lies inside the tree it was built in. */
static int in_build_tree(void)
{
    char exe[PATH_MAX], src[PATH_MAX];
    if (!ATTEND_SRCDIR[0] || !exe_path(exe, sizeof exe) || !realpath(ATTEND_SRCDIR, src))
        return 0;
    size_t n = strlen(src);
    return strncmp(exe, src, n) == 0 && exe[n] == '/';
}

/* 1 when dir is the current directory. */
static int is_cwd(const char *dir)
{
    struct stat a, b;
    return stat(dir, &a) == 0 && stat(".", &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* Writes root/rel to out (rel alone when root is the current directory, so messages name
 * "data/decoder.json" when run from the tree); 1 when that fits and is readable. */
static int try_root(const char *root, const char *rel, char *out, size_t outlen)
{
    if (!root[0])
        return 0;
    int k = is_cwd(root) ? snprintf(out, outlen, "%s", rel)
                         : snprintf(out, outlen, "%s/%s", root, rel);
    return k > 0 && (size_t)k < outlen && access(out, R_OK) == 0;
}

const char *data_locate(const char *rel, char *out, size_t outlen)
{
    if (rel[0] != '/') {
        const char *env = getenv("ATTEND_DATA");
        if (env && try_root(env, rel, out, outlen))
            return "$ATTEND_DATA";
        int tree_first = in_build_tree();
        if (tree_first && try_root(ATTEND_SRCDIR, rel, out, outlen))
            return "build tree";
        if (try_root(ATTEND_DATADIR, rel, out, outlen))
            return "installed";
        if (!tree_first && try_root(ATTEND_SRCDIR, rel, out, outlen))
            return "build tree";
        /* Next to the binary: a clone moved elsewhere, or a relocated prefix. */
        char exe[PATH_MAX];
        char *slash;
        if (exe_path(exe, sizeof exe) && (slash = strrchr(exe, '/'))) {
            *slash = 0;
            if (try_root(exe, rel, out, outlen))
                return "next to the binary";
            size_t n = strlen(exe);
            if (n + sizeof "/../share/attend" <= sizeof exe) {
                memcpy(exe + n, "/../share/attend", sizeof "/../share/attend");
                if (try_root(exe, rel, out, outlen))
                    return "next to the binary";
            }
        }
    }
    snprintf(out, outlen, "%s", rel);
    return access(out, R_OK) == 0 ? "as given" : "not found";
}

void data_path(const char *rel, char *out, size_t outlen)
{
    (void)data_locate(rel, out, outlen);
}

const char *data_model_path(const char *value, char *out, size_t outlen)
{
    if (!value) {
        data_path(DATA_DEFAULT_MODEL, out, outlen);
        return out;
    }
    struct stat st;
    if (!strchr(value, '/') && value[0] && strcmp(value, ".") && strcmp(value, "..") &&
        stat(value, &st) != 0) {
        const char *tries[] = {"data/%s", "data/%s.json"};
        for (int i = 0; i < 2; i++) {
            char rel[600];
            snprintf(rel, sizeof rel, tries[i], value);
            if (strcmp(data_locate(rel, out, outlen), "not found") &&
                stat(out, &st) == 0 && S_ISREG(st.st_mode))
                return out;
        }
    }
    snprintf(out, outlen, "%s", value);
    return out;
}
