/* lab_run.c - the learner's code as an untrusted child process: its own session (no
 * terminal), a CPU, memory and file-size limit, a clean environment, inside bubblewrap when it
 * works here (lab_contain.c), stdin fed from a buffer, stdout+stderr and the answer (fd 3) read
 * with caps, a wall-clock limit; every process it started killed and reaped at the end. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errf.h"
#include "lab.h"
#include "lab_contain.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void set_limit(int what, rlim_t v)
{
    struct rlimit rl = {v, v};
    setrlimit(what, &rl);
}

/* In the child: limits, descriptors 0 1 2 3 from the pipes, everything else closed, exec. */
static void child(const LabRunSpec *s, const char *prog, const char *const *argv,
                  char *const *envp, int in, int out, int res)
{
    setsid(); /* a new session: no controlling terminal, its own process group */
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* attend killed: this dies too */
    set_limit(RLIMIT_CPU, (rlim_t)s->cpu_s);
    if (s->mem_bytes)
        set_limit(RLIMIT_AS, (rlim_t)s->mem_bytes);
    set_limit(RLIMIT_FSIZE, (rlim_t)16 << 20);
    set_limit(RLIMIT_CORE, 0);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(res, 3) < 0)
        _exit(126);
    for (int fd = 4; fd < 1024; fd++)
        close(fd);
    if (s->dir && chdir(s->dir))
        _exit(126);
    const int sigs[] = {SIGPIPE, SIGXFSZ, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(prog, (char *const *)argv, envp);
    if (write(3, "exec-failed\n", 12) < 0)
        _exit(127);
    _exit(127);
}

typedef struct {
    int fd;
    char *buf;
    size_t len, cap, limit;
    int over;
} Sink;

/* Reads what is there into the sink (up to its limit). 1 at EOF or error, else 0. */
static int drain(Sink *k)
{
    char tmp[65536];
    for (;;) {
        ssize_t n = read(k->fd, tmp, sizeof tmp);
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : 1;
        if (n == 0)
            return 1;
        size_t take = (size_t)n;
        if (k->len + take > k->limit) {
            take = k->limit - k->len;
            k->over = 1;
        }
        if (k->len + take + 1 > k->cap) {
            size_t cap = (k->len + take + 1) * 2;
            if (cap > k->limit + 1)
                cap = k->limit + 1;
            char *nb = realloc(k->buf, cap);
            if (!nb) {
                k->over = 1;
                return 1;
            }
            k->buf = nb;
            k->cap = cap;
        }
        memcpy(k->buf + k->len, tmp, take);
        k->len += take;
        k->buf[k->len] = '\0';
        if (k->over)
            return 1;
    }
}

static void nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/* The parent's side: feed stdin, read both sinks, watch the clock and the child. */
static void supervise(const LabRunSpec *s, pid_t pid, int in, Sink *sk, LabRunOut *o)
{
    size_t sent = 0;
    int done[2] = {0, 0}, status = 0, reaped = 0;
    double t0 = now_s();
    while (!reaped) {
        struct pollfd p[3];
        int np = 0, ii = -1;
        for (int i = 0; i < 2; i++)
            if (!done[i])
                p[np++] = (struct pollfd){sk[i].fd, POLLIN, 0};
        if (in >= 0) {
            ii = np;
            p[np++] = (struct pollfd){in, POLLOUT, 0};
        }
        poll(p, (nfds_t)np, 20);
        if (ii >= 0 && p[ii].revents) {
            ssize_t w = p[ii].revents & POLLOUT
                            ? write(in, s->input + sent, s->input_len - sent)
                            : -1;
            if (w > 0)
                sent += (size_t)w;
            if (w < 0 && errno != EAGAIN && errno != EINTR)
                sent = s->input_len; /* the child closed its stdin */
            if (sent >= s->input_len) {
                close(in);
                in = -1;
            }
        }
        for (int i = 0; i < 2; i++)
            if (!done[i])
                done[i] = drain(&sk[i]);
        int end = 1;
        if (s->stop && *s->stop)
            o->interrupted = 1;
        else if (sk[0].over || sk[1].over) {
            o->out_over = sk[0].over;
            o->res_over = sk[1].over;
        } else if (now_s() - t0 > s->wall_s)
            o->timed_out = 1;
        else
            end = 0;
        if (end) { /* the child and everything it started, whatever their group */
            lab_contain_kill_descendants();
            kill(pid, SIGKILL);
        }
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            reaped = 1;
            for (int i = 0; i < 2; i++)
                if (!done[i])
                    drain(&sk[i]); /* what is already in the pipe; never wait for EOF */
        }
    }
    if (in >= 0)
        close(in);
    lab_contain_reap_all(5.0); /* anything the child left behind, wherever it went */
    o->secs = now_s() - t0;
    o->exited = WIFEXITED(status);
    o->status = o->exited ? WEXITSTATUS(status) : -1;
    o->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (o->signal == SIGXCPU)
        o->timed_out = 1;
}

int lab_run_child(const LabRunSpec *s, LabRunOut *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, pres[2] = {-1, -1};
    if (pipe(pin) || pipe(pout) || pipe(pres)) {
        for (int i = 0; i < 2; i++) {
            if (pin[i] >= 0) close(pin[i]);
            if (pout[i] >= 0) close(pout[i]);
            if (pres[i] >= 0) close(pres[i]);
        }
        return errf(err, errlen, "cannot make pipes: %s", strerror(errno));
    }
    struct sigaction ign = {0}, old_pipe;
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old_pipe); /* a child that stops reading must not kill attend */
    /* the program's path, the clean environment, bubblewrap's command line: all before fork */
    char prog[1024], bwrap[1024];
    const char *bargv[160], *const *argv = s->argv, *exe = prog;
    LabEnv env;
    lab_contain_env(&env, s->tmp);
    if (lab_which(s->argv[0], prog, sizeof prog))
        snprintf(prog, sizeof prog, "%s", s->argv[0]); /* execve fails: exec_failed */
    else if (s->contain == LAB_CONTAIN_BWRAP && !lab_which("bwrap", bwrap, sizeof bwrap) &&
             lab_contain_bwrap_argv(s, bwrap, prog, bargv, 160) > 0) {
        argv = bargv;
        exe = bwrap;
    }
    lab_contain_subreaper(1);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        child(s, exe, argv, env.envp, pin[0], pout[1], pres[1]);
    close(pin[0]);
    close(pout[1]);
    close(pres[1]);
    if (pid < 0) {
        close(pin[1]);
        close(pout[0]);
        close(pres[0]);
        sigaction(SIGPIPE, &old_pipe, NULL);
        lab_contain_subreaper(0);
        return errf(err, errlen, "cannot start a process: %s", strerror(errno));
    }
    Sink sk[2] = {{pout[0], NULL, 0, 0, s->out_cap, 0}, {pres[0], NULL, 0, 0, s->res_cap, 0}};
    nonblock(pin[1]);
    nonblock(pout[0]);
    nonblock(pres[0]);
    supervise(s, pid, s->input_len ? pin[1] : (close(pin[1]), -1), sk, o);
    close(pout[0]);
    close(pres[0]);
    sigaction(SIGPIPE, &old_pipe, NULL);
    lab_contain_subreaper(0);
    o->out = sk[0].buf ? sk[0].buf : calloc(1, 1);
    o->out_len = sk[0].len;
    o->res = sk[1].buf ? sk[1].buf : calloc(1, 1);
    o->res_len = sk[1].len;
    o->exec_failed = o->status == 127 && o->res_len == 12 && !memcmp(o->res, "exec-failed\n", 12);
    if (!o->out || !o->res) {
        lab_run_out_free(o);
        return errf(err, errlen, "out of memory");
    }
    return 0;
}

void lab_run_out_free(LabRunOut *o)
{
    free(o->out);
    free(o->res);
    o->out = o->res = NULL;
}
