/* lab_contain.h - the containment of the learner's code, below lab_run.c: the probe for
 * bubblewrap, the child's clean environment, bubblewrap's command line, and the killing of
 * every process a child left behind (lab_contain.c). No curses, no exit. */
#ifndef ATTEND_LAB_CONTAIN_H
#define ATTEND_LAB_CONTAIN_H

#include <stddef.h>

#include "lab.h"

/* The absolute path of the program name (searched on $PATH when it has no '/') into out.
 * 0, or -1 when it is not an executable. */
int lab_which(const char *name, char *out, size_t n);

/* A clean environment for the child: PATH, LANG, HOME and TMPDIR (tmp, or / and /tmp),
 * no bytecode files, one BLAS thread. envp points into e. */
typedef struct {
    char *envp[12];
    char home[1100], tmpdir[1100];
} LabEnv;
void lab_contain_env(LabEnv *e, const char *tmp);

/* bubblewrap's argv for running s->argv (its program resolved to prog) inside a sandbox:
 * every namespace unshared (its own PIDs, no network), die-with-parent, a new session, / read
 * only, s->dir writable, s->tmp as /tmp (a 64 MiB tmpfs when NULL), s->ro and prog bound
 * again when /tmp hides them, a clean environment. argv has room for max pointers (pointing
 * into s, bwrap and prog). The count, or -1 when max is too small. */
int lab_contain_bwrap_argv(const LabRunSpec *s, const char *bwrap, const char *prog,
                           const char **argv, int max);

/* Makes the calling process a child subreaper (on 1) or not (0): the orphans of the
 * processes it starts become its children, so that none escapes by double-forking. */
void lab_contain_subreaper(int on);

/* Sends SIGKILL to every descendant of the calling process (found in /proc). The count. */
int lab_contain_kill_descendants(void);

/* Kills and reaps every child and descendant of the calling process until it has none,
 * waiting at most max_s seconds for stragglers. Call it only from a process whose children
 * are all the learner's (attend's `lab` command, a test). */
void lab_contain_reap_all(double max_s);

#endif
