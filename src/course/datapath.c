/* datapath.c - where attend finds its data files (data/, lessons/): one lookup shared by the
 * loaders, the subcommands and the player. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datapath.h"

void data_path(const char *rel, char *out, size_t outlen)
{
    const char *env = getenv("ATTEND_DATA");
    if (env && *env) {
        /* ATTEND_DATA names the directory that holds data/ and lessons/ */
        snprintf(out, outlen, "%s/%s", env, rel);
        if (access(out, R_OK) == 0)
            return;
    }
    if (access(rel, R_OK) == 0) {
        snprintf(out, outlen, "%s", rel);
        return;
    }
    /* Next to the binary: /proc/self/exe's directory. */
    char exe[1024];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        exe[k] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(out, outlen, "%s/%s", exe, rel);
            if (access(out, R_OK) == 0)
                return;
            snprintf(out, outlen, "%s/../share/attend/%s", exe, rel);
            if (access(out, R_OK) == 0)
                return;
        }
    }
    snprintf(out, outlen, "%s", rel);
}
