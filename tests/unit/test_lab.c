/* test_lab.c - labs without Python: the engine's own values fed back as an answer pass every
 * lab; every misconception's wrong values (the engine run that way) are diagnosed as that
 * misconception; the answer parser refuses malformed text with the line; the child runner's
 * limits (output, time, exec failure, fd 3); the show file round trip; lab progress from two
 * windows merged in the progress file. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "lab.h"
#include "lab_way.h"
#include "progress.h"
#include "t.h"

/* The answer text of outs per case (the harness's format). Caller frees. */
static char *answer(const LabCases *lc, LabArray (*outs)[LAB_MAX_OUTS])
{
    size_t cap = 1 << 20, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len, "attend-lab-result 1\n");
    for (int i = 0; i < lc->n_cases; i++) {
        const LabCase *c = &lc->cases[i];
        len += (size_t)snprintf(s + len, cap - len, "case %d ok %d\n", i, c->n_outs);
        for (int k = 0; k < c->n_outs; k++) {
            const LabArray *a = &outs[i][k];
            if (len + a->len * 26 + 200 > cap) {
                cap = (len + a->len * 26 + 200) * 2;
                s = realloc(s, cap);
            }
            len += (size_t)snprintf(s + len, cap - len, "%s %d", a->name, a->ndim);
            for (int d = 0; d < a->ndim; d++)
                len += (size_t)snprintf(s + len, cap - len, " %d", a->dim[d]);
            len += (size_t)snprintf(s + len, cap - len, "\n");
            for (size_t j = 0; j < a->len; j++)
                len += (size_t)snprintf(s + len, cap - len, j ? " %.17g" : "%.17g", a->v[j]);
            len += (size_t)snprintf(s + len, cap - len, "\n");
        }
    }
    snprintf(s + len, cap - len, "end\n");
    return s;
}

static void judge(const LabDef *d, const LabCases *lc, const char *text, LabVerdict *v,
                  LabResult *r)
{
    char err[512];
    int rc = lab_result_parse(text, strlen(text), r, err, sizeof err);
    CHECK(rc == 0, "%s: the answer parses: %s", d->name, err);
    CHECK(lab_diagnose(d, lc, r, v) == 0, "%s: diagnose", d->name);
}

static void test_labs(void)
{
    for (int li = 0; li < lab_count(); li++) {
        const LabDef *d = lab_at(li);
        LabCases lc;
        char err[256];
        if (lab_cases_make(d, &lc, err, sizeof err)) {
            CHECK(0, "%s: %s", d->name, err);
            continue;
        }
        static LabArray outs[LAB_MAX_CASES][LAB_MAX_OUTS];
        for (int i = 0; i < lc.n_cases; i++)
            for (int k = 0; k < lc.cases[i].n_outs; k++)
                outs[i][k] = lc.cases[i].want[k]; /* borrowed */
        char *text = answer(&lc, outs);
        LabVerdict v;
        LabResult r;
        judge(d, &lc, text, &v, &r);
        CHECK(v.pass && v.cases_ok == lc.n_cases, "%s: the engine's values pass", d->name);
        lab_result_free(&r);
        free(text);
        /* the right way of lab_way.c is the engine's, on every case */
        LabWay right;
        memset(&right, 0, sizeof right);
        for (int i = 0; i < lc.n_cases; i++) {
            LabArray w[LAB_MAX_OUTS];
            memset(w, 0, sizeof w);
            int rc = lab_way_run(d->name, &right, &lc.cases[i], w), same = rc == 0;
            for (int k = 0; same && k < lc.cases[i].n_outs; k++)
                for (size_t j = 0; j < w[k].len; j++)
                    same &= lab_close(lc.cases[i].want[k].v[j], w[k].v[j]);
            CHECK(same, "%s case %d: lab_way_run's right way is the engine's", d->name, i + 1);
            for (int k = 0; k < LAB_MAX_OUTS; k++)
                lab_array_free(&w[k]);
        }
        /* every row of the catalogue that applies here is named by its own id when a learner
         * answers that way on every case */
        int applied = 0;
        for (const LabMistake *mk = LAB_CATALOGUE; mk->id; mk++) {
            if (lab_mistake_applies(d, &lc, mk) != 1)
                continue;
            applied++;
            for (int i = 0; i < lc.n_cases; i++) {
                LabArray w[LAB_MAX_OUTS];
                memset(w, 0, sizeof w);
                int rc = lab_way_run(d->name, &mk->way, &lc.cases[i], w);
                for (int k = 0; k < lc.cases[i].n_outs; k++) {
                    if (rc == 0) {
                        outs[i][k] = w[k];
                    } else { /* does not apply: the right answer; w's own arrays freed */
                        lab_array_free(&w[k]);
                        lab_array_alloc(&outs[i][k], lc.cases[i].want[k].name,
                                        lc.cases[i].want[k].ndim, lc.cases[i].want[k].dim[0],
                                        lc.cases[i].want[k].dim[1], lc.cases[i].want[k].dim[2]);
                        memcpy(outs[i][k].v, lc.cases[i].want[k].v,
                               sizeof *outs[i][k].v * outs[i][k].len);
                    }
                }
            }
            text = answer(&lc, outs);
            judge(d, &lc, text, &v, &r);
            CHECK(!v.pass && v.mistake && !strcmp(v.mistake->id, mk->id) && v.n_found == 1,
                  "%s/%s: diagnosed as %s (%d named; maybe %s)", d->name, mk->id,
                  v.mistake ? v.mistake->id : "none", v.n_found, v.maybe);
            CHECK(v.wrong_case >= 0 && strstr(v.message, "case "), "%s/%s: names the case",
                  d->name, mk->id);
            lab_result_free(&r);
            free(text);
            for (int i = 0; i < lc.n_cases; i++)
                for (int k = 0; k < lc.cases[i].n_outs; k++)
                    lab_array_free(&outs[i][k]);
        }
        CHECK(applied >= 2, "%s: %d misconceptions apply", d->name, applied);
        lab_cases_free(&lc);
    }
}

static void test_parse(void)
{
    {
        const char *m = "attend-lab-result 1\ncase 0 ok 1\nout 1 2\n1 2\nmutated Q mask\x1b\nend\n";
        LabResult r;
        char e[256];
        CHECK(lab_result_parse(m, strlen(m), &r, e, sizeof e) == 0 &&
                  !strcmp(r.got[0].mutated, "Q mask"),
              "mutated read, control characters gone: '%s' %s", r.got[0].mutated, e);
        lab_result_free(&r);
        const char *m2 = "attend-lab-result 1\nmutated Q\nend\n";
        CHECK(lab_result_parse(m2, strlen(m2), &r, e, sizeof e) < 0 && strstr(e, "line 2"),
              "mutated without a case: %s", e);
        lab_result_free(&r);
    }
    static const char *const BAD[][2] = {
        {"", "line 1"},
        {"attend-lab-result 2\nend\n", "line 1"},
        {"attend-lab-result 1\ncase 0 ok 1\nout 2 2 2\n1 2 3\nend\n", "line 4"},
        {"attend-lab-result 1\ncase 0 ok 1\nout 2 2 2\n1 2 3 4 5\nend\n", "more than"},
        {"attend-lab-result 1\ncase 0 ok 1\nout 2 2 2\n1 2 x 4\nend\n", "not a number"},
        {"attend-lab-result 1\ncase 0 ok 1\nout 4 1 1 1 1\n1\nend\n", "line 3"},
        {"attend-lab-result 1\ncase 0 ok 1\nout 2 99999 99999\n1\nend\n", "line 3"},
        {"attend-lab-result 1\ncase 1 ok 1\nout 1 1\n1\nend\n", "out of order"},
        {"attend-lab-result 1\ncase 0 ok 3\n", "N from 1 to 2"},
        {"attend-lab-result 1\ncase 0 ok 1\nout 1 1\n1\n", "without \"end\""},
        {"attend-lab-result 1\nhello\nend\n", "unexpected"},
        {"attend-lab-result 1\nend\ncase 0 error x\n", "after \"end\""},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        LabResult r;
        char err[512] = "";
        int rc = lab_result_parse(BAD[i][0], strlen(BAD[i][0]), &r, err, sizeof err);
        CHECK(rc == -1 && strstr(err, BAD[i][1]), "bad answer %zu refused with \"%s\": %s", i,
              BAD[i][1], err);
        lab_result_free(&r);
    }
    const char *good = "attend-lab-result 1\ncase 0 ok 1\nout 2 1 3\nnan -inf 1e-3\n"
                       "case 1 error ValueError: \x1b[31mno\nfatal import f.py:1: E\nend\n";
    LabResult r;
    char err[512];
    CHECK(lab_result_parse(good, strlen(good), &r, err, sizeof err) == 0, "good: %s", err);
    CHECK(r.n_cases == 2 && r.got[0].ok && isnan(r.got[0].outs[0].v[0]) &&
              isinf(r.got[0].outs[0].v[1]) && r.got[0].outs[0].v[2] == 1e-3,
          "values read");
    CHECK(!r.got[1].ok && !strchr(r.got[1].error, 0x1b), "an error's control characters go");
    CHECK(!strcmp(r.fatal, "import"), "fatal kept");
    lab_result_free(&r);
    CHECK(lab_close(1.0, 1.00005) && !lab_close(1.0, 1.001) && lab_close(NAN, NAN) &&
              !lab_close(0.0, NAN) && lab_close(-INFINITY, -INFINITY) && !lab_close(-INFINITY, -1e9),
          "lab_close");
}

static void test_run(void)
{
    char err[256];
    LabRunOut o;
    const char *yes[] = {"/bin/sh", "-c", "while :; do echo yyyyyyyyyyyyyyyyyyyy; done", NULL};
    LabRunSpec s = {.argv = yes, .dir = "/", .input = NULL, .input_len = 0, .wall_s = 5, .cpu_s = 5,
                     .out_cap = 4096, .res_cap = 4096};
    CHECK(lab_run_child(&s, &o, err, sizeof err) == 0 && o.out_over && o.out_len <= 4096 &&
              o.secs < 4,
          "output cap: over=%d len=%zu %.2fs", o.out_over, o.out_len, o.secs);
    lab_run_out_free(&o);
    const char *slp[] = {"/bin/sh", "-c", "sleep 30 & sleep 30", NULL};
    LabRunSpec s2 = {.argv = slp, .dir = "/", .input = NULL, .input_len = 0, .wall_s = 0.3, .cpu_s = 5,
                     .out_cap = 4096, .res_cap = 4096};
    CHECK(lab_run_child(&s2, &o, err, sizeof err) == 0 && o.timed_out && o.secs < 2,
          "wall limit with a child left behind: %.2fs", o.secs);
    lab_run_out_free(&o);
    const char *fd3[] = {"/bin/sh", "-c", "cat >&3; echo hi; pwd >&3", NULL};
    LabRunSpec s3 = {.argv = fd3, .dir = "/tmp", .input = "abc\n", .input_len = 4, .wall_s = 5, .cpu_s = 5,
                     .out_cap = 4096, .res_cap = 4096};
    CHECK(lab_run_child(&s3, &o, err, sizeof err) == 0 && o.exited && o.status == 0 &&
              !strcmp(o.res, "abc\n/tmp\n") && !strcmp(o.out, "hi\n"),
          "stdin, fd 3, working directory: res=\"%s\" out=\"%s\"", o.res, o.out);
    lab_run_out_free(&o);
    const char *none[] = {"/nonexistent/prog", NULL};
    LabRunSpec s4 = {.argv = none, .dir = "/", .input = NULL, .input_len = 0, .wall_s = 5, .cpu_s = 5,
                     .out_cap = 4096, .res_cap = 4096};
    CHECK(lab_run_child(&s4, &o, err, sizeof err) == 0 && o.exec_failed, "exec failure seen");
    lab_run_out_free(&o);
    const char *tty[] = {"/bin/sh", "-c",
                         "if (: </dev/tty) 2>/dev/null; then echo TTY; else echo NOTTY; fi", NULL};
    LabRunSpec s5 = {.argv = tty, .dir = "/", .input = NULL, .input_len = 0, .wall_s = 5, .cpu_s = 5,
                     .out_cap = 4096, .res_cap = 4096};
    CHECK(lab_run_child(&s5, &o, err, sizeof err) == 0 && strstr(o.out, "NOTTY"),
          "no controlling terminal: %s", o.out);
    lab_run_out_free(&o);
    /* a grandchild in its own session, orphaned: killed and reaped all the same */
    const char *esc[] = {"/bin/sh", "-c", "setsid sh -c 'trap \"\" TERM; sleep 60' & echo $! >&3", NULL};
    LabRunSpec s6 = {.argv = esc, .dir = "/", .wall_s = 5, .cpu_s = 5, .out_cap = 4096,
                     .res_cap = 4096};
    CHECK(lab_run_child(&s6, &o, err, sizeof err) == 0 && o.exited, "escape: %s", err);
    int gone = o.res_len > 0 && kill(atoi(o.res), 0) < 0 && errno == ESRCH;
    CHECK(gone && waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD,
          "the setsid grandchild (%s) is gone and reaped", o.res);
    lab_run_out_free(&o);
    /* the environment is clean */
    setenv("ATTEND_TEST_SECRET", "x", 1);
    const char *envp[] = {"/bin/sh", "-c", "env >&3", NULL};
    LabRunSpec s7 = {.argv = envp, .dir = "/", .wall_s = 5, .cpu_s = 5, .out_cap = 4096,
                     .res_cap = 4096, .tmp = "/nonexistent-tmp"};
    CHECK(lab_run_child(&s7, &o, err, sizeof err) == 0 && !strstr(o.res, "ATTEND_TEST_SECRET") &&
              strstr(o.res, "TMPDIR=/nonexistent-tmp") && strstr(o.res, "PATH=/usr"),
          "a clean environment: %s", o.res);
    lab_run_out_free(&o);
    unsetenv("ATTEND_TEST_SECRET");
}

static void test_progress_and_show(const char *dir)
{
    char path[512], err[600];
    snprintf(path, sizeof path, "%s/progress.json", dir);
    Progress a, b;
    CHECK(progress_load(&a, path, err, sizeof err) == 0, "load a");
    CHECK(progress_load(&b, path, err, sizeof err) == 0, "load b (the second window)");
    LabProgress pa = {3, 2, 1, 1, 100.0}, pb = {1, 1, 0, 0, 200.0}, got;
    char *ta = lab_progress_put(progress_slot_get(&a, "labs"), "attention", &pa);
    char *tb = lab_progress_put(progress_slot_get(&b, "labs"), "masks", &pb);
    CHECK(ta && tb && !progress_slot_set(&a, "labs", ta, err, sizeof err) &&
              !progress_slot_set(&b, "labs", tb, err, sizeof err),
          "slots set");
    CHECK(progress_save(&a, err, sizeof err) == 0 && progress_save(&b, err, sizeof err) == 0,
          "both windows save: %s", err);
    Progress c;
    CHECK(progress_load(&c, path, err, sizeof err) == 0, "reload");
    lab_progress_get(progress_slot_get(&c, "labs"), "attention", &got);
    CHECK(got.passed && got.checks == 3 && got.hints == 1, "window a's lab kept");
    lab_progress_get(progress_slot_get(&c, "labs"), "masks", &got);
    CHECK(!got.passed && got.checks == 1, "window b's lab kept");
    /* b, stale, records a failing attention check later: the pass survives ("best") */
    LabProgress stale = {1, 1, 0, 0, 300.0};
    free(tb);
    tb = lab_progress_put(progress_slot_get(&b, "labs"), "attention", &stale);
    progress_slot_set(&b, "labs", tb, err, sizeof err);
    progress_save(&b, err, sizeof err);
    Progress e;
    progress_load(&e, path, err, sizeof err);
    lab_progress_get(progress_slot_get(&e, "labs"), "attention", &got);
    CHECK(got.passed, "a pass is never lost to another window's later failure");
    free(ta);
    free(tb);
    progress_free(&a);
    progress_free(&b);
    progress_free(&c);
    progress_free(&e);

    /* the show file: a failing check's matrix round trip */
    const LabDef *d = lab_find("attention");
    LabCheck ck;
    memset(&ck, 0, sizeof ck);
    lab_cases_make(d, &ck.cases, err, sizeof err);
    static LabArray outs[LAB_MAX_CASES][LAB_MAX_OUTS];
    for (int i = 0; i < ck.cases.n_cases; i++)
        lab_way_run(d->name, &LAB_CATALOGUE[0].way, &ck.cases.cases[i], outs[i]); /* no-scale */
    char *text = answer(&ck.cases, outs);
    lab_result_parse(text, strlen(text), &ck.result, err, sizeof err);
    lab_diagnose(d, &ck.cases, &ck.result, &ck.verdict);
    ck.ran = 1;
    snprintf(path, sizeof path, "%s/state/attend/lab-attention.show", dir);
    CHECK(lab_show_write(path, d, "a.py", &ck, err, sizeof err) == 0, "show written: %s", err);
    LabShow sh;
    CHECK(lab_show_read(path, &sh, err, sizeof err) == 0 && sh.have &&
              !strcmp(sh.status, "fail") && sh.got.dim[0] == 4 && sh.got.dim[1] == 4 &&
              strstr(sh.what, "weights"),
          "show read back: %s %s", err, sh.what);
    CHECK(sh.have && fabs(sh.want.v[0] - ck.cases.cases[0].want[1].v[0]) < 1e-5,
          "the engine's weights kept");
    lab_show_free(&sh);
    free(text);
    for (int i = 0; i < ck.cases.n_cases; i++)
        for (int k = 0; k < 2; k++)
            lab_array_free(&outs[i][k]);
    lab_check_free(&ck);
    FILE *f = fopen(path, "w");
    fputs("attend-lab-show 1\nlab x\nstatus fail\nwhen 1\nfile f\nline l\nwhat w\ngot 99 99\n", f);
    fclose(f);
    CHECK(lab_show_read(path, &sh, err, sizeof err) == -1 && strstr(err, "not a lab show"),
          "a bad show file is refused");
}

/* The print a lab watch and a lab page compare (fileio_print): a rewrite of the same size within
 * one tick of the file clock (the mtime put back, the inode the same) is still a change; an
 * unchanged file, or two looks at an absent one, is not; a FIFO is refused without blocking. */
static void test_file_print(const char *dir)
{
    char path[256], fifo[256];
    snprintf(path, sizeof path, "%s/watched.py", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    FileioPrint a, b, c;
    CHECK(fileio_print(path, &a) == 0 && !a.ok, "an absent file has no print");
    CHECK(fileio_print(path, &b) == 0 && fileio_print_same(&a, &b), "absent twice: the same");
    FILE *f = fopen(path, "w");
    fputs("def attention(q, k, v):\n    return 1\n", f);
    fclose(f);
    CHECK(fileio_print(path, &a) == 1 && a.ok && a.size == 37, "a file's print: size %lld",
          a.size);
    CHECK(!fileio_print_same(&a, &b), "created: a change");
    CHECK(fileio_print(path, &b) == 1 && fileio_print_same(&a, &b), "unchanged: the same");
    f = fopen(path, "r+"); /* the same inode, the same size, one byte different */
    fputs("def attention(q, k, v):\n    return 2\n", f);
    fclose(f);
    struct timespec ts[2] = {{a.mtime_ns / 1000000000, a.mtime_ns % 1000000000},
                             {a.mtime_ns / 1000000000, a.mtime_ns % 1000000000}};
    CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0, "mtime put back: %s", strerror(errno));
    fileio_print(path, &c);
    CHECK(c.ok && c.size == a.size && c.mtime_ns == a.mtime_ns && c.ino == a.ino,
          "size, mtime and inode as before");
    CHECK(!fileio_print_same(&a, &c), "the contents changed: a change all the same");
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    CHECK(fileio_print(fifo, &c) == 0 && !c.ok, "a FIFO: no print, and no wait for a writer");
}

int main(void)
{
    char dir[] = "/tmp/attend-test-lab-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    test_labs();
    test_parse();
    test_run();
    test_progress_and_show(dir);
    test_file_print(dir);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd))
        return 1;
    return t_done("lab");
}
