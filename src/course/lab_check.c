/* lab_check.c - one check of a learner's lab file: find the interpreter or the compiler (a
 * message naming the Debian package when missing), build the cases, run the harness with the
 * learner's code as a limited child (contained: the probe for bubblewrap is here), parse its
 * answer and judge it; the PyTorch step. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datapath.h"
#include "errf.h"
#include "fileio.h"
#include "lab.h"
#include "lab_contain.h"

#define LAB_FILE_MAX ((size_t)1 << 20)  /* the largest learner's file read */
#define LAB_OUT_CAP ((size_t)64 << 10)  /* what the learner's code may print */
#define LAB_RES_CAP ((size_t)64 << 20)  /* the harness's answer */
#define LAB_CC_SECONDS 30.0              /* the compiler's time ... */
#define LAB_CC_MEM ((size_t)1 << 30)     /* ... and address space */

/* ---- the probe ---- */

static int probed = -1;
static char probe_words[400];

/* The first line of text, at most n-1 bytes, printable. */
static void first_line(char *out, size_t n, const char *text)
{
    size_t k = 0;
    for (; text && text[k] && text[k] != '\n' && k + 1 < n; k++)
        out[k] = (unsigned char)text[k] < 0x20 ? '?' : text[k];
    out[k] = '\0';
}

int lab_contain_mode(char *words, size_t n)
{
    if (probed < 0) {
        const char *env = getenv("ATTEND_LAB_BWRAP");
        char bw[1024];
        probed = LAB_CONTAIN_LIMITS;
        if (env && !strcmp(env, "0")) {
            snprintf(probe_words, sizeof probe_words, "ATTEND_LAB_BWRAP=0 turns bubblewrap off");
        } else if (lab_which("bwrap", bw, sizeof bw)) {
            snprintf(probe_words, sizeof probe_words,
                     "bubblewrap is not installed: apt-get install bubblewrap");
        } else {
            const char *argv[] = {bw, "--unshare-all", "--die-with-parent", "--new-session",
                                  "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                  "--tmpfs", "/tmp", "--", "/bin/true", NULL};
            LabRunSpec s = {.argv = argv, .dir = "/", .wall_s = 10, .cpu_s = 10,
                            .out_cap = 4096, .res_cap = 64};
            LabRunOut o;
            char err[256], line[200];
            if (lab_run_child(&s, &o, err, sizeof err)) {
                snprintf(probe_words, sizeof probe_words, "bubblewrap could not start: %s", err);
            } else {
                if (o.exited && o.status == 0) {
                    probed = LAB_CONTAIN_BWRAP;
                } else {
                    first_line(line, sizeof line, o.out);
                    snprintf(probe_words, sizeof probe_words,
                             "bubblewrap cannot make a sandbox here (%s)",
                             line[0] ? line : "it failed");
                }
                lab_run_out_free(&o);
            }
        }
    }
    if (words && n)
        snprintf(words, n, "%s",
                 probed == LAB_CONTAIN_BWRAP
                     ? "your code runs in bubblewrap: its own process namespace (nothing it "
                       "starts outlives the check), no network, the file system read-only "
                       "except its folder and a private /tmp, a clean environment"
                     : probe_words);
    if (words && n && probed != LAB_CONTAIN_BWRAP) {
        size_t k = strlen(words);
        snprintf(words + k, n - k, "; your code runs with limits only: time, memory and "
                 "output limits, a clean environment, every process it starts killed at the "
                 "end; it can write wherever you can");
    }
    return probed;
}

/* The absolute path of a data file of the labs (the child runs in another directory). 0, or
 * -1 with a message when it is missing. */
static int lab_data(const char *rel, char *out, size_t n, char *err, size_t errlen)
{
    char p[1024], abs[PATH_MAX];
    data_path(rel, p, sizeof p);
    if (!realpath(p, abs) || strlen(abs) >= n)
        return errf(err, errlen, "%s: missing (attend's lab files are not installed?)", p);
    memcpy(out, abs, strlen(abs) + 1);
    return 0;
}

/* 1 if name (no '/') is an executable on PATH, or a path that is executable. */
static int on_path(const char *name)
{
    char buf[1024];
    return lab_which(name, buf, sizeof buf) == 0;
}

/* Removes the directory tree name under dirfd without following a link (depth bounded):
 * the private temporary directory of a check, with whatever the learner's code left in it. */
static void rm_tree(int dirfd, const char *name, int depth)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
        return;
    if (S_ISDIR(st.st_mode) && depth < 64) {
        int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                rm_tree(fd, e->d_name, depth + 1);
        if (d)
            closedir(d);
        else if (fd >= 0)
            close(fd);
        unlinkat(dirfd, name, AT_REMOVEDIR);
    } else {
        unlinkat(dirfd, name, 0);
    }
}

/* Every run of a check shares these: the containment, a private temporary directory, the
 * data directory the harness is read from, the signal flag. */
typedef struct {
    int contain;
    int lang_c;               /* 1: the C harness */
    char tmp[900];
    char data[1024];
    volatile sig_atomic_t *stop;
} Ctx;

static LabRunSpec spec(const Ctx *x, const char *const *argv, const char *dir, double wall,
                       size_t mem)
{
    LabRunSpec s = {.argv = argv, .dir = dir, .wall_s = wall, .cpu_s = (int)ceil(wall),
                    .mem_bytes = mem, .out_cap = LAB_OUT_CAP, .res_cap = LAB_RES_CAP,
                    .tmp = x->tmp, .ro = {x->data, NULL}, .contain = x->contain,
                    .stop = x->stop};
    return s;
}

static const char *pick_python(const LabCheckOpts *o)
{
    if (o && o->python)
        return o->python;
    const char *env = getenv("ATTEND_PYTHON");
    if (env && *env)
        return env;
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

/* What the learner's code printed, control characters shown as '?', cut to fit. */
static void keep_output(LabCheck *c, const char *out, size_t len)
{
    size_t k = 0, n = sizeof c->output - 1;
    for (size_t i = 0; i < len && k < n; i++) {
        unsigned char ch = (unsigned char)out[i];
        c->output[k++] = ch == '\n' || ch == '\t' || ch >= 0x20 ? (char)ch : '?';
    }
    c->output[k] = '\0';
    if (len > n && k > 4)
        memcpy(c->output + k - 4, "...", 4);
}

/* The run's fate in words when it was not a clean answer; 1 if it was one. */
static int judge_run(LabCheck *c, const LabRunOut *r, double timeout, const char *what)
{
    if (r->timed_out)
        snprintf(c->problem, sizeof c->problem,
                 "%s was stopped after %.*f s: the time limit (an endless loop? a very slow "
                 "one? --timeout SECONDS gives it longer)", what,
                 timeout == (double)(long)timeout ? 0 : 1, timeout);
    else if (r->out_over)
        snprintf(c->problem, sizeof c->problem,
                 "%s printed more than %zu KiB and was stopped (a print in a loop?)", what,
                 LAB_OUT_CAP >> 10);
    else if (r->res_over)
        snprintf(c->problem, sizeof c->problem, "%s answered more than %zu MiB and was stopped",
                 what, LAB_RES_CAP >> 20);
    else if (r->interrupted) {
        c->interrupted = 1;
        snprintf(c->problem, sizeof c->problem, "interrupted: %s was stopped, with every "
                 "process it started", what);
    } else if (r->signal)
        snprintf(c->problem, sizeof c->problem, "%s crashed: killed by signal %d (%s)%s", what,
                 r->signal, strsignal(r->signal),
                 r->signal == SIGSEGV ? ": an index out of bounds, or a NULL pointer?" : "");
    else
        return 1;
    return 0;
}

/* Runs argv with the cases on stdin and judges the answer into c. 0, or -1 with err (attend
 * could not run it at all). */
static int run_and_judge(const Ctx *x, const LabDef *d, const char *const *argv,
                         const char *dir, const char *input, size_t ilen, double timeout,
                         LabCheck *c, char *err, size_t errlen)
{
    LabRunSpec s = spec(x, argv, dir, timeout, (size_t)2 << 30);
    s.input = input;
    s.input_len = ilen;
    LabRunOut r;
    if (lab_run_child(&s, &r, err, errlen))
        return -1;
    c->secs = r.secs;
    keep_output(c, r.out, r.out_len);
    int rc = 0;
    char perr[512];
    if (r.exec_failed) {
        rc = errf(err, errlen, "cannot run %s: not found or not executable", argv[0]);
    } else if (judge_run(c, &r, timeout, "your code")) {
        if (lab_result_parse(r.res, r.res_len, &c->result, perr, sizeof perr)) {
            snprintf(c->problem, sizeof c->problem,
                     "the harness's answer could not be read (%s)%s", perr,
                     r.exited && r.status ? ": your code ended the process (exit()?)" : "");
        } else if (!strcmp(c->result.fatal, "numpy")) {
            rc = errf(err, errlen, "numpy is not installed for %s: apt-get install python3-numpy",
                      argv[0]);
        } else if (c->result.fatal[0]) {
            snprintf(c->problem, sizeof c->problem, "%s", c->result.fatal_msg);
            c->cannot_run = !strcmp(c->result.fatal, "import") ||
                            !strcmp(c->result.fatal, "missing");
        } else if ((c->result.lang_c = x->lang_c,
                    lab_diagnose(d, &c->cases, &c->result, &c->verdict))) {
            rc = errf(err, errlen, "out of memory");
        } else {
            c->ran = 1;
        }
    }
    lab_run_out_free(&r);
    return rc;
}

/* The PyTorch step (attention lab, Python, after a pass): c->torch in words. */
static void torch_step(const Ctx *x, const LabDef *d, const char *py, const char *harness,
                       const char *file, const char *dir, double timeout, LabCheck *c)
{
    size_t ilen;
    char *input = lab_input_text(d, &c->cases, 1, &ilen), err[256];
    const char *argv[] = {py, "-I", "-B", harness, file, NULL};
    LabRunSpec s = spec(x, argv, dir, timeout + 30, (size_t)8 << 30);
    s.input = input;
    s.input_len = ilen;
    LabRunOut r;
    LabResult res;
    double worst;
    int n, used = 0;
    if (!input || lab_run_child(&s, &r, err, sizeof err)) {
        free(input);
        return;
    }
    free(input);
    if (r.timed_out || r.signal || lab_result_parse(r.res, r.res_len, &res, err, sizeof err)) {
        snprintf(c->torch, sizeof c->torch, "the PyTorch step did not finish");
    } else if (!strncmp(res.torch, "absent", 6)) {
        snprintf(c->torch, sizeof c->torch,
                 "PyTorch is not installed: its step was skipped (apt-get install python3-torch)");
    } else if (sscanf(res.torch, "ok %lf %d %n", &worst, &n, &used) == 2 && used) {
        c->torch_fail = !(worst <= 1e-5);
        snprintf(c->torch, sizeof c->torch,
                 "PyTorch's %s %s yours: max |difference| %.2g over %d case%s (tolerance 1e-5)",
                 res.torch + used, c->torch_fail ? "DISAGREES with" : "agrees with", worst, n,
                 n == 1 ? "" : "s");
    }
    lab_result_free(&res);
    lab_run_out_free(&r);
}

/* Compiles the C harness with the learner's file into tmpdir/lab. 0 compiled, 1 it did not
 * (c->problem says why), -1 attend could not (err). */
static int compile_c(const Ctx *x, const LabDef *d, const LabCheckOpts *o, const char *file,
                     const char *dir, const char *bin, LabCheck *c, char *err, size_t errlen)
{
    const char *cc = o && o->cc ? o->cc : getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
    if (!on_path(cc))
        return errf(err, errlen, "%s is not installed: apt-get install gcc (the lab compiles "
                    "your C file with it)", cc);
    char harness[1024], def[64];
    if (lab_data("data/labs/harness.c", harness, sizeof harness, err, errlen))
        return -1;
    snprintf(def, sizeof def, "-DLAB_%s", !strcmp(d->name, "softmax") ? "SOFTMAX" : "ATTENTION");
    const char *argv[] = {cc, "-std=c11", "-O1", def, "-o", bin, harness, file, "-lm", NULL};
    /* the compiler under limits too: an #include "/dev/zero" must not eat the machine */
    LabRunSpec s = spec(x, argv, dir, LAB_CC_SECONDS, LAB_CC_MEM);
    s.res_cap = 4096;
    LabRunOut r;
    if (lab_run_child(&s, &r, err, errlen))
        return -1;
    int rc = 0;
    if (r.exec_failed) {
        rc = errf(err, errlen, "cannot run %s", cc);
    } else if (!judge_run(c, &r, LAB_CC_SECONDS, "the compiler") || !r.exited || r.status) {
        if (!c->problem[0]) {
            snprintf(c->problem, sizeof c->problem, "%s could not compile %.1000s:", cc, file);
            c->cannot_run = 1;
        }
        keep_output(c, r.out, r.out_len);
        rc = 1;
    }
    lab_run_out_free(&r);
    return rc;
}

/* The file's directory (for the child's working directory) and its absolute path. */
static int file_paths(const char *file, char *abs, size_t alen, char *dir, size_t dlen,
                      char *err, size_t errlen)
{
    struct stat st;
    if (stat(file, &st))
        return errf(err, errlen, "%s: %s", file, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return errf(err, errlen, "%s: not a regular file", file);
    if ((size_t)st.st_size > LAB_FILE_MAX)
        return errf(err, errlen, "%s: %lld bytes, more than a lab file's %zu", file,
                    (long long)st.st_size, LAB_FILE_MAX);
    if (access(file, R_OK))
        return errf(err, errlen, "%s: %s", file, strerror(errno));
    char cwd[1024];
    int k;
    if (file[0] == '/')
        k = snprintf(abs, alen, "%s", file);
    else if (getcwd(cwd, sizeof cwd))
        k = snprintf(abs, alen, "%s/%s", cwd, file);
    else
        return errf(err, errlen, "cannot read the current directory: %s", strerror(errno));
    if (k < 0 || (size_t)k >= alen || (size_t)k >= dlen)
        return errf(err, errlen, "%s: the path is too long", file);
    memcpy(dir, abs, (size_t)k + 1);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    return 0;
}

int lab_check(const LabDef *d, const char *file, const LabCheckOpts *o, LabCheck *c, char *err,
              size_t errlen)
{
    memset(c, 0, sizeof *c);
    const char *lang = o && o->lang ? o->lang : NULL;
    size_t fl = strlen(file);
    if (!lang)
        lang = fl > 2 && !strcmp(file + fl - 2, ".c") ? "c" : "py";
    if (!lab_has_lang(d, lang))
        return errf(err, errlen, "lab %s has no %s version (it has: %s)", d->name,
                    !strcmp(lang, "c") ? "C" : lang, d->langs);
    char abs[1024], dir[1024];
    if (file_paths(file, abs, sizeof abs, dir, sizeof dir, err, errlen))
        return -1;
    double timeout = o && o->timeout_s > 0 ? o->timeout_s : 10;
    if (lab_cases_make(d, &c->cases, err, errlen))
        return -1;
    size_t ilen;
    char *input = lab_input_text(d, &c->cases, 0, &ilen);
    if (!input)
        return errf(err, errlen, "out of memory");
    Ctx x;
    memset(&x, 0, sizeof x);
    x.contain = lab_contain_mode(NULL, 0);
    x.lang_c = !strcmp(lang, "c");
    x.stop = o ? o->stop : NULL;
    char harness[1024];
    if (lab_data(!strcmp(lang, "c") ? "data/labs/harness.c" : "data/labs/harness.py", harness,
                 sizeof harness, err, errlen)) {
        free(input);
        return -1;
    }
    snprintf(x.data, sizeof x.data, "%s", harness);
    *strrchr(x.data, '/') = '\0';
    /* a private temporary directory: /tmp inside bubblewrap, $TMPDIR without; removed with
     * whatever is in it */
    const char *t = getenv("TMPDIR");
    if (!t || t[0] != '/' || strlen(t) > 800)
        t = "/tmp";
    snprintf(x.tmp, sizeof x.tmp, "%s/attend-lab-XXXXXX", t);
    if (!mkdtemp(x.tmp)) {
        free(input);
        return errf(err, errlen, "cannot make a temporary directory in %s: %s", t,
                    strerror(errno));
    }
    int rc;
    if (!strcmp(lang, "c")) {
        /* the compiler writes into the private /tmp (inside bubblewrap, / is read-only); the
         * program runs from the host's path of the same file (read-only, bound again) */
        char out[1000], binpath[1000];
        snprintf(binpath, sizeof binpath, "%s/lab", x.tmp);
        snprintf(out, sizeof out, "%s", x.contain == LAB_CONTAIN_BWRAP ? "/tmp/lab" : binpath);
        rc = compile_c(&x, d, o, abs, dir, out, c, err, errlen);
        if (rc == 0) {
            const char *argv[] = {binpath, NULL};
            rc = run_and_judge(&x, d, argv, dir, input, ilen, timeout, c, err, errlen);
        }
        rc = rc > 0 ? 0 : rc;
    } else {
        const char *py = pick_python(o);
        if (!on_path(py)) {
            rc = errf(err, errlen, "%s is not installed: apt-get install python3 "
                      "python3-numpy (or choose an interpreter with --python PATH)", py);
        } else {
            const char *argv[] = {py, "-I", "-B", harness, abs, NULL};
            rc = run_and_judge(&x, d, argv, dir, input, ilen, timeout, c, err, errlen);
            if (!rc && c->ran && c->verdict.pass && o && o->torch &&
                !strcmp(d->name, "attention"))
                torch_step(&x, d, py, harness, abs, dir, timeout, c);
        }
    }
    rm_tree(AT_FDCWD, x.tmp, 0);
    free(input);
    return rc;
}

void lab_check_free(LabCheck *c)
{
    lab_cases_free(&c->cases);
    lab_result_free(&c->result);
}

char *lab_starter_text(const LabDef *d, const char *lang, char *err, size_t errlen)
{
    char rel[128], path[1024];
    snprintf(rel, sizeof rel, "data/labs/%s.%s", d->name, lang);
    data_path(rel, path, sizeof path);
    char *text = NULL;
    size_t len;
    if (fileio_read(path, LAB_FILE_MAX, &text, &len, err, errlen))
        return NULL;
    return text;
}
