/* cmd_lab.c - `attend lab`: list the labs with the learner's progress, write a starter, check
 * a learner's file against the engine (exit 0 pass, 1 fail), watch it, hints, the solution
 * (src/course/lab*.c do the work; docs/labs.md). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "datapath.h"
#include "fileio.h"
#include "lab.h"
#include "lesson.h"
#include "progress.h"

#define SOLUTION_AFTER 3 /* failed checks before the solution may be asked for */

static const char USAGE[] =
    "usage: attend lab [list]                      the labs and your progress\n"
    "       attend lab start NAME [DIR] [--lang c] [--force]\n"
    "                                              write the starter NAME.py (or NAME.c)\n"
    "       attend lab check NAME FILE [options]   check FILE: exit 0 pass, 1 wrong, 2 cannot run\n"
    "       attend lab watch NAME FILE [options]   check again on every save (Ctrl-C, Ctrl-D)\n"
    "       attend lab hint NAME                   the next hint\n"
    "       attend lab solution NAME [--lang c]    after a pass, or after 3 failed checks\n"
    "options: --timeout SECONDS (default 10)  --python PATH  --lang py|c  --no-torch\n"
    "Your code runs as a child process in FILE's directory, with time, memory and output\n"
    "limits; it is checked cell by cell against attend's engine (docs/labs.md).";

/* ---- progress ---- */

/* Loads the progress file (p->no_save when it cannot be saved; a warning on stderr). */
static void prog_load(Progress *p)
{
    char path[1024], err[600];
    memset(p, 0, sizeof *p);
    if (progress_default_path(path, sizeof path, err, sizeof err)) {
        fprintf(stderr, "attend lab: progress will not be saved: %s\n", err);
        p->no_save = 1;
        return;
    }
    int r = progress_load(p, path, err, sizeof err);
    if (r)
        fprintf(stderr, "attend lab: %s%s\n", r < 0 ? "progress will not be saved: " : "", err);
}

/* Saves the lab's record lp into the "labs" slot (merged with other windows). */
static void prog_put(Progress *p, const char *name, const LabProgress *lp)
{
    char err[600];
    char *text = lab_progress_put(progress_slot_get(p, "labs"), name, lp);
    if (!text || progress_slot_set(p, "labs", text, err, sizeof err) ||
        (!p->no_save && progress_save(p, err, sizeof err)))
        fprintf(stderr, "attend lab: progress not saved: %s\n", text ? err : "out of memory");
    free(text);
}

/* ---- options ---- */

typedef struct {
    const char *pos[3];
    int n_pos, force, no_torch;
    LabCheckOpts co;
} Args;

static int parse(int argc, char **argv, Args *a)
{
    memset(a, 0, sizeof *a);
    int no_torch = 0;
    a->co.timeout_s = 10.0;
    const Opt opts[] = {
        OPT_F("--force", &a->force), OPT_F("--no-torch", &no_torch),
        OPT_W("--lang", &a->co.lang, "py c"), OPT_S("--python", &a->co.python),
        OPT_R("--timeout", &a->co.timeout_s, 0.1, 600.0),
        OPT_A("NAME", &a->pos[0]), OPT_A("FILE", &a->pos[1]), OPT_A("DIR", &a->pos[2]),
    };
    int rc = opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc, argv, "attend lab",
                        USAGE);
    a->co.torch = !no_torch;
    while (a->n_pos < 3 && a->pos[a->n_pos])
        a->n_pos++;
    return rc < 0 ? 0 : rc;
}

static const LabDef *need_lab(const char *name)
{
    const LabDef *d = lab_find(name);
    if (!d) {
        fprintf(stderr, "attend lab: no lab named \"%s\"; the labs:", name ? name : "");
        for (int i = 0; i < lab_count(); i++)
            fprintf(stderr, " %s", lab_at(i)->name);
        fprintf(stderr, " (attend lab list)\n");
    }
    return d;
}

/* ---- list ---- */

static int cmd_list(void)
{
    Progress p;
    prog_load(&p);
    printf("%-10s %-5s %-14s %s\n", "lab", "lang", "progress", "what you write");
    int passed = 0;
    for (int i = 0; i < lab_count(); i++) {
        const LabDef *d = lab_at(i);
        LabProgress lp;
        lab_progress_get(progress_slot_get(&p, "labs"), d->name, &lp);
        char st[32];
        if (lp.passed)
            snprintf(st, sizeof st, "passed");
        else if (lp.checks)
            snprintf(st, sizeof st, "%d check%s", lp.checks, lp.checks == 1 ? "" : "s");
        else
            snprintf(st, sizeof st, "not started");
        passed += lp.passed;
        printf("%-10s %-5s %-14s %s\n", d->name, strcmp(d->langs, "py") ? "py, c" : "py", st,
               d->title);
    }
    printf("\n%d of %d passed. Start one: attend lab start NAME [DIR]\n", passed, lab_count());
    progress_free(&p);
    return 0;
}

/* ---- start ---- */

static int cmd_start(const Args *a)
{
    const LabDef *d = need_lab(a->pos[0]);
    if (!d)
        return 2;
    const char *lang = a->co.lang ? a->co.lang : "py";
    char err[1200], path[1024];
    if (!lab_has_lang(d, lang)) {
        fprintf(stderr, "attend lab: lab %s has no C starter (C: softmax, attention)\n", d->name);
        return 2;
    }
    const char *dir = a->n_pos > 1 ? a->pos[1] : ".";
    struct stat st;
    int sr = stat(dir, &st);
    if (sr && errno == ENOENT && mkdir(dir, 0755) == 0) {
        printf("made the directory %s\n", dir);
        sr = stat(dir, &st);
    }
    if (sr || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "attend lab: %s: %s\n", dir, sr ? strerror(errno) : "not a directory");
        return 1;
    }
    snprintf(path, sizeof path, "%s/%s.%s", dir, d->name, lang);
    if (!lstat(path, &st)) {
        if (!a->force || !S_ISREG(st.st_mode)) {
            fprintf(stderr, "attend lab: %s exists%s\n", path,
                    S_ISREG(st.st_mode) ? "; it is kept (--force writes the starter over it)"
                                        : " and is not a regular file: nothing written");
            return 1;
        }
    }
    char *text = lab_starter_text(d, lang, err, sizeof err);
    int bad = !text || fileio_write_file(path, 0644, text, strlen(text), err, sizeof err);
    free(text);
    if (bad) {
        fprintf(stderr, "attend lab: %s\n", err);
        return 1;
    }
    printf("wrote %s: %s\nfill in its TODOs, then: attend lab check %s %s\n"
           "or, to check on every save: attend lab watch %s %s\n",
           path, d->title, d->name, path, d->name, path);
    return 0;
}

/* ---- check ---- */

/* Ctrl-C, SIGTERM, SIGHUP (a closed terminal): the run in progress is killed with every
 * process it started (LabCheckOpts.stop), then attend stops. */
static volatile sig_atomic_t stop_sig;
static void on_stop(int sig) { stop_sig = sig; }
static void catch_stop(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* Says once per run how the learner's code is contained (lab_contain_mode). */
static void say_containment(void)
{
    static int said;
    char words[800];
    if (said++)
        return;
    lab_contain_mode(words, sizeof words);
    printf("(%s)\n", words);
}

/* "lesson N, “Title” (attend --lesson ID)" for the lesson id, from the installed course. */
static void lesson_ref(const char *id, char *out, size_t n)
{
    char dir[1024], err[256];
    Course c;
    memset(&c, 0, sizeof c);
    data_path("lessons", dir, sizeof dir);
    int i = lesson_load_dir(&c, dir, err, sizeof err) >= 0 ? lesson_find(&c, id) : -1;
    if (i >= 0)
        snprintf(out, n, "lesson %d, \"%s\" (attend --lesson %s)", i + 1,
                 c.lessons[i].title, id);
    else
        snprintf(out, n, "the lesson %s (attend --lesson %s)", id, id);
    lesson_free_course(&c);
}

static void print_verdict(const LabDef *d, const char *file, const LabCheck *c)
{
    const LabVerdict *v = &c->verdict;
    if (c->output[0])
        printf("your code printed:\n%s%s", c->output,
               c->output[strlen(c->output) - 1] == '\n' ? "" : "\n");
    if (!c->ran) {
        printf("FAIL %s: %s\n", file, c->problem);
        return;
    }
    if (v->pass) {
        printf("PASS %s: all %d cases of lab %s agree with attend's engine (%.2f s)\n", file,
               c->cases.n_cases, d->name, c->secs);
        char note[512] = "";
        if (d->note)
            d->note(&c->cases, &c->result, note, sizeof note);
        if (note[0])
            printf("%s\n", note);
        if (c->torch[0])
            printf("%s\n", c->torch);
        return;
    }
    printf("FAIL %s: %d of %d cases right\n%s\n", file, v->cases_ok, c->cases.n_cases,
           v->message);
    if (v->mistake) {
        char ref[300];
        lesson_ref(v->mistake->lesson, ref, sizeof ref);
        printf("Diagnosis (%s): %s\nSee %s.\n", v->mistake->id, v->mistake->words, ref);
    }
}

/* One check, printed and recorded. Returns the exit status (0 pass, 1 fail, 2 could not). */
static int check_once(const LabDef *d, const char *file, const Args *a, int show)
{
    LabCheck c;
    char err[1200];
    LabCheckOpts co = a->co;
    co.stop = &stop_sig;
    say_containment();
    if (lab_check(d, file, &co, &c, err, sizeof err)) {
        fprintf(stderr, "attend lab: %s\n", err);
        lab_check_free(&c);
        return 2;
    }
    if (c.interrupted) {
        printf("%s\n", c.problem);
        lab_check_free(&c);
        return 128 + (stop_sig > 0 ? stop_sig : SIGINT);
    }
    print_verdict(d, file, &c);
    int pass = c.ran && c.verdict.pass && !c.torch_fail;
    Progress p;
    prog_load(&p);
    LabProgress lp;
    lab_progress_get(progress_slot_get(&p, "labs"), d->name, &lp);
    lp.checks++;
    lp.fails += !pass;
    lp.passed |= pass;
    lp.last = (double)time(NULL);
    prog_put(&p, d->name, &lp);
    progress_free(&p);
    if (!pass && lp.fails >= SOLUTION_AFTER)
        printf("(after %d failed checks the solution is there if you want it: attend lab "
               "solution %s)\n", lp.fails, d->name);
    else if (!pass)
        printf("(a hint: attend lab hint %s)\n", d->name);
    if (show) {
        char path[1024];
        if (!lab_show_path(d->name, path, sizeof path, err, sizeof err))
            lab_show_write(path, d, file, &c, err, sizeof err);
    }
    int rc = pass ? 0 : c.cannot_run ? 2 : 1;
    lab_check_free(&c);
    return rc;
}

/* ---- watch ---- */

/* The file's modification time and size as one stamp (0 when it cannot be read). */
static double stamp(const char *file)
{
    struct stat st;
    if (stat(file, &st))
        return 0;
    return (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec * 1e-9 + (double)st.st_size;
}

static int cmd_watch(const LabDef *d, const char *file, const Args *a)
{
    int in_open = 1, last = 2;
    while (!stop_sig) {
        double seen = stamp(file);
        printf("---- %s: checking %s\n", d->name, file);
        last = check_once(d, file, a, 1);
        printf("---- watching %s: save it to check again (Ctrl-C or Ctrl-D stops)\n", file);
        fflush(stdout);
        while (!stop_sig && stamp(file) == seen) {
            struct pollfd pf = {0, POLLIN, 0};
            int r = poll(&pf, in_open ? 1 : 0, 300);
            if (r > 0 && (pf.revents & (POLLIN | POLLHUP))) {
                char buf[256];
                ssize_t n = read(0, buf, sizeof buf);
                if (n <= 0) /* EOF (Ctrl-D, a closed pipe) stops; an error stops listening */
                    stop_sig = n == 0 ? -1 : stop_sig;
                in_open = n > 0;
            } else if (r > 0 && (pf.revents & POLLNVAL)) {
                in_open = 0;
            }
        }
    }
    printf("stopped watching %s\n", file);
    return last == 2 ? 2 : 0;
}

/* ---- hint, solution ---- */

static int cmd_hint(const LabDef *d)
{
    Progress p;
    prog_load(&p);
    LabProgress lp;
    lab_progress_get(progress_slot_get(&p, "labs"), d->name, &lp);
    int n = 0;
    while (n < LAB_MAX_HINTS && d->hints[n])
        n++;
    int show = lp.hints < n ? lp.hints + 1 : n;
    for (int i = 0; i < show; i++)
        printf("Hint %d of %d: %s\n", i + 1, n, d->hints[i]);
    if (show < n)
        printf("(attend lab hint %s again for the next one)\n", d->name);
    else
        printf("(that was the last hint%s)\n",
               lp.passed || lp.fails >= SOLUTION_AFTER ? "; attend lab solution shows the rest"
                                                        : "");
    if (show > lp.hints) {
        lp.hints = show;
        prog_put(&p, d->name, &lp);
    }
    progress_free(&p);
    return 0;
}

static int cmd_solution(const LabDef *d, const Args *a)
{
    Progress p;
    prog_load(&p);
    LabProgress lp;
    lab_progress_get(progress_slot_get(&p, "labs"), d->name, &lp);
    progress_free(&p);
    if (!lp.passed && lp.fails < SOLUTION_AFTER) {
        printf("The solution of lab %s opens after a pass, or after %d failed checks (%d so "
               "far). Try attend lab hint %s.\n", d->name, SOLUTION_AFTER, lp.fails, d->name);
        return 1;
    }
    const char *lang = a->co.lang ? a->co.lang : "py";
    const char *text = lab_solution_text(d, lang);
    if (!text) {
        fprintf(stderr, "attend lab: lab %s has no %s version\n", d->name, lang);
        return 2;
    }
    printf("The engine's way, lab %s (%s):\n\n%s", d->name, lang, text);
    return 0;
}

int cmd_lab(int argc, char **argv)
{
    if (argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
        printf("%s\n", USAGE);
        return 0;
    }
    if (argc == 0 || !strcmp(argv[0], "list"))
        return argc > 1 ? (fprintf(stderr, "%s\n", USAGE), 2) : cmd_list();
    Args a;
    int rc = parse(argc - 1, argv + 1, &a);
    if (rc)
        return rc;
    const char *verb = argv[0];
    int want = !strcmp(verb, "check") || !strcmp(verb, "watch") ? 2 : 1;
    int known = want == 2 || !strcmp(verb, "start") || !strcmp(verb, "hint") ||
                !strcmp(verb, "solution");
    if (!known || a.n_pos < want || a.n_pos > (!strcmp(verb, "start") ? 2 : want)) {
        fprintf(stderr, known ? "attend lab %s: wrong number of arguments\n%s\n"
                              : "attend lab: unknown command \"%s\"\n%s\n", verb, USAGE);
        return 2;
    }
    const LabDef *d = need_lab(a.pos[0]);
    if (!d)
        return 2;
    if (!strcmp(verb, "start"))
        return cmd_start(&a);
    if (!strcmp(verb, "check")) {
        catch_stop();
        return check_once(d, a.pos[1], &a, 1);
    }
    if (!strcmp(verb, "watch")) {
        catch_stop();
        return cmd_watch(d, a.pos[1], &a);
    }
    if (!strcmp(verb, "hint"))
        return cmd_hint(d);
    return cmd_solution(d, &a);
}
