/* lab_contain.c - the pieces of containing the learner's code (lab_check.c probes which is in
 * force): the child's clean environment, bubblewrap's command line, a child subreaper and the
 * killing of a whole process tree (docs/labs.md, "Containment"). */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lab_contain.h"

int lab_which(const char *name, char *out, size_t n)
{
    if (strchr(name, '/')) {
        if (access(name, X_OK) || strlen(name) >= n)
            return -1;
        memcpy(out, name, strlen(name) + 1);
        return 0;
    }
    const char *path = getenv("PATH");
    for (const char *p = path && *path ? path : "/usr/bin:/bin"; *p;) {
        const char *e = strchr(p, ':');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        int w = snprintf(out, n, "%.*s/%s", (int)k, k ? p : ".", name);
        if (w > 0 && (size_t)w < n && access(out, X_OK) == 0)
            return 0;
        p += k + (e ? 1 : 0);
    }
    return -1;
}

/* ---- the child's environment and bubblewrap's command line ---- */

void lab_contain_env(LabEnv *e, const char *tmp)
{
    const char *fixed[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
                           "PYTHONDONTWRITEBYTECODE=1", "OPENBLAS_NUM_THREADS=1",
                           "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1"};
    int k = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        e->envp[k++] = (char *)fixed[i];
    snprintf(e->home, sizeof e->home, "HOME=%s", tmp ? tmp : "/");
    snprintf(e->tmpdir, sizeof e->tmpdir, "TMPDIR=%s", tmp ? tmp : "/tmp");
    e->envp[k++] = e->home;
    e->envp[k++] = e->tmpdir;
    e->envp[k] = NULL;
}

/* 1 if path is /tmp or below it (hidden by the private /tmp unless bound again). */
static int under_tmp(const char *p) { return p && !strncmp(p, "/tmp", 4) && (!p[4] || p[4] == '/'); }

int lab_contain_bwrap_argv(const LabRunSpec *s, const char *bwrap, const char *prog,
                           const char **argv, int max)
{
    int k = 0;
#define ADD(x)                                                                               \
    do {                                                                                     \
        if (k >= max - 1)                                                                    \
            return -1;                                                                       \
        argv[k++] = (x);                                                                     \
    } while (0)
    ADD(bwrap);
    ADD("--unshare-all");
    ADD("--die-with-parent");
    ADD("--new-session");
    ADD("--ro-bind"); ADD("/"); ADD("/");
    ADD("--dev"); ADD("/dev");
    ADD("--proc"); ADD("/proc");
    if (s->tmp) {
        ADD("--bind"); ADD(s->tmp); ADD("/tmp");
    } else {
        ADD("--size"); ADD("67108864"); ADD("--tmpfs"); ADD("/tmp");
    }
    for (int i = 0; i < LAB_RUN_RO && s->ro[i]; i++)
        if (under_tmp(s->ro[i])) {
            ADD("--ro-bind"); ADD(s->ro[i]); ADD(s->ro[i]);
        }
    if (under_tmp(prog)) {
        ADD("--ro-bind"); ADD(prog); ADD(prog);
    }
    if (s->dir && strcmp(s->dir, "/")) {
        ADD("--bind"); ADD(s->dir); ADD(s->dir);
    }
    ADD("--chdir"); ADD(s->dir ? s->dir : "/");
    ADD("--clearenv");
    ADD("--setenv"); ADD("PATH"); ADD("/usr/local/bin:/usr/bin:/bin");
    ADD("--setenv"); ADD("LANG"); ADD("C.UTF-8");
    ADD("--setenv"); ADD("HOME"); ADD("/tmp");
    ADD("--setenv"); ADD("TMPDIR"); ADD("/tmp");
    ADD("--setenv"); ADD("PYTHONDONTWRITEBYTECODE"); ADD("1");
    ADD("--setenv"); ADD("OPENBLAS_NUM_THREADS"); ADD("1");
    ADD("--setenv"); ADD("OMP_NUM_THREADS"); ADD("1");
    ADD("--");
    ADD(prog);
    for (int i = 1; s->argv[i]; i++)
        ADD(s->argv[i]);
#undef ADD
    argv[k] = NULL;
    return k;
}

/* ---- killing a tree ---- */

typedef struct {
    pid_t pid, ppid;
    int mine;
} Proc;

/* Every process on the machine with its parent (from /proc). NULL when /proc is unreadable. */
static Proc *procs(int *n)
{
    DIR *d = opendir("/proc");
    *n = 0;
    if (!d)
        return NULL;
    int cap = 256;
    Proc *p = malloc(sizeof *p * (size_t)cap);
    struct dirent *e;
    while (p && (e = readdir(d))) {
        char *end, path[64], buf[512];
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        char *rp = strrchr(buf, ')');
        char st;
        int ppid;
        if (!rp || sscanf(rp + 1, " %c %d", &st, &ppid) != 2)
            continue;
        if (*n == cap) {
            cap *= 2;
            Proc *np = realloc(p, sizeof *p * (size_t)cap);
            if (!np)
                break;
            p = np;
        }
        p[(*n)++] = (Proc){(pid_t)pid, (pid_t)ppid, 0};
    }
    closedir(d);
    return p;
}

int lab_contain_kill_descendants(void)
{
    int n, killed = 0;
    Proc *p = procs(&n);
    if (!p)
        return 0;
    pid_t self = getpid();
    for (int grew = 1; grew;) {
        grew = 0;
        for (int i = 0; i < n; i++) {
            if (p[i].mine)
                continue;
            int m = p[i].ppid == self;
            for (int j = 0; !m && j < n; j++)
                m = p[j].mine && p[j].pid == p[i].ppid;
            if (m) {
                p[i].mine = grew = 1;
                kill(p[i].pid, SIGKILL);
                killed++;
            }
        }
    }
    free(p);
    return killed;
}

void lab_contain_reap_all(double max_s)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        lab_contain_kill_descendants();
        int st;
        pid_t w = waitpid(-1, &st, WNOHANG);
        if (w < 0 && errno == ECHILD)
            return;
        if (w > 0 || (w < 0 && errno == EINTR))
            continue;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 > max_s)
            return;
        poll(NULL, 0, 2);
    }
}

void lab_contain_subreaper(int on) { prctl(PR_SET_CHILD_SUBREAPER, on ? 1 : 0, 0, 0, 0); }
