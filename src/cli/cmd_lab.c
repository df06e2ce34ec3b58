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
    "usage: attend lab                             check the current lab again (or list them)\n"
    "       attend lab list                        the labs and your progress\n"
    "       attend lab next                        start the next lab beside the current one\n"
    "       attend lab reset [NAME [DIR]]          the starter again; your file kept as .bak\n"
    "       attend lab start NAME [DIR] [--lang c] [--force]\n"
    "                                              write the starter NAME.py (or NAME.c);\n"
    "                                              --force keeps an old file as a backup\n"
    "       attend lab check NAME FILE [options]   check FILE: exit 0 pass, 1 wrong, 2 cannot run\n"
    "       attend lab watch NAME FILE [options]   check again on every save (Ctrl-C, Ctrl-D)\n"
    "       attend lab hint NAME                   the next hint\n"
    "       attend lab solution NAME [--lang c]    after a pass, or after 3 failed checks\n"
    "       attend lab mistakes [NAME]             the misconceptions a check names\n"
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

/* ---- the current lab ---- */

/* Remembers lab d's file (made absolute) as the one `attend lab` alone continues. */
static void remember(const LabDef *d, const char *file)
{
    char abs[2048], cwd[1024];
    if (file[0] == '/')
        snprintf(abs, sizeof abs, "%s", file);
    else if (getcwd(cwd, sizeof cwd))
        snprintf(abs, sizeof abs, "%s/%s", cwd, file);
    else
        return;
    Progress p;
    char err[600];
    prog_load(&p);
    char *text = lab_current_put(d->name, abs, (double)time(NULL));
    if (!text || progress_slot_set(&p, "lab_current", text, err, sizeof err) ||
        (!p.no_save && progress_save(&p, err, sizeof err)))
        fprintf(stderr, "attend lab: the current lab not saved: %s\n", text ? err : "memory");
    free(text);
    progress_free(&p);
}

/* The lab after d that is not passed yet (wrapping round), or NULL when every other one is. */
static const LabDef *next_lab(const LabDef *d, Progress *p)
{
    int at = 0;
    for (int i = 0; i < lab_count(); i++)
        at = lab_at(i) == d ? i : at;
    for (int k = 1; k < lab_count(); k++) {
        const LabDef *n = lab_at((at + k) % lab_count());
        LabProgress lp;
        lab_progress_get(progress_slot_get(p, "labs"), n->name, &lp);
        if (!lp.passed)
            return n;
    }
    return NULL;
}

/* ---- start, reset ---- */

/* A name for a backup of path that is not taken: path.bak, path.bak2, ... 0 or -1. */
static int backup_name(const char *path, char *out, size_t n)
{
    struct stat st;
    for (int i = 1; i < 1000; i++) {
        int k = i == 1 ? snprintf(out, n, "%s.bak", path) : snprintf(out, n, "%s.bak%d", path, i);
        if (k < 0 || (size_t)k >= n)
            return -1;
        if (lstat(out, &st) && errno == ENOENT)
            return 0;
    }
    return -1;
}

/* Writes d's starter in lang at DIR/NAME.lang. An existing regular file is kept: with
 * keep_old (reset, start --force) it is renamed to a backup first, never lost; without, it
 * stays and nothing is written (status 1). */
static int write_starter(const LabDef *d, const char *lang, const char *dir, int keep_old,
                         char *path, size_t plen)
{
    char err[1200], bak[1100];
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
    snprintf(path, plen, "%s/%s.%s", dir, d->name, lang);
    char *text = lab_starter_text(d, lang, err, sizeof err);
    if (!text) {
        fprintf(stderr, "attend lab: %s\n", err);
        return 1;
    }
    if (!lstat(path, &st)) {
        if (!keep_old || !S_ISREG(st.st_mode)) {
            fprintf(stderr, "attend lab: %s exists%s\n", path,
                    S_ISREG(st.st_mode) ? "; it is kept (attend lab reset writes the starter, "
                                          "keeping it as a backup)"
                                        : " and is not a regular file: nothing written");
            free(text);
            return 1;
        }
        if (backup_name(path, bak, sizeof bak) || rename(path, bak)) {
            fprintf(stderr, "attend lab: %s: no backup could be made (%s): nothing written\n",
                    path, strerror(errno));
            free(text);
            return 1;
        }
        printf("kept your file as %s\n", bak);
    }
    int bad = fileio_write_file(path, 0644, text, strlen(text), err, sizeof err);
    free(text);
    if (bad) {
        fprintf(stderr, "attend lab: %s\n", err);
        return 1;
    }
    remember(d, path);
    return 0;
}

static int cmd_start(const LabDef *d, const Args *a, const char *dir, int reset)
{
    const char *lang = a->co.lang ? a->co.lang : "py";
    char path[1100];
    if (!lab_has_lang(d, lang)) {
        fprintf(stderr, "attend lab: lab %s has no C starter (C: softmax, attention)\n", d->name);
        return 2;
    }
    int rc = write_starter(d, lang, dir, reset || a->force, path, sizeof path);
    if (rc)
        return rc;
    printf("wrote %s: %s\nfill in its TODOs, then: attend lab (checks it) or attend lab check "
           "%s %s\nor, to check on every save: attend lab watch %s %s\n",
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
    for (int i = 0; i < v->n_found; i++) {
        char ref[300];
        lesson_ref(v->found[i]->lesson, ref, sizeof ref);
        printf("Diagnosis (%s): %s\nSee %s.\n", v->found[i]->id, v->found[i]->words, ref);
    }
    if (!v->n_found && v->maybe[0])
        printf("It looks like one of these, each fitting as well: %s.\n", v->maybe);
}

/* The failing case: its inputs and the rows that hold the first wrong cell, and the whole
 * case written beside the show file (lab-NAME-case.json) for the learner to load. */
static void show_case(const LabDef *d, const LabCheck *c)
{
    char path[1024], err[600];
    int have_path = !lab_show_path(d->name, path, sizeof path, err, sizeof err) &&
                    strlen(path) > 5 && strlen(path) + 10 < sizeof path;
    if (have_path) {
        snprintf(path + strlen(path) - 5, 16, "-case.json"); /* lab-NAME.show -> -case.json */
        have_path = !lab_case_write(path, c, err, sizeof err);
    }
    char *text = lab_case_text(c, have_path ? path : NULL);
    if (text)
        printf("%s", text);
    free(text);
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
    remember(d, file);
    int pass = c.ran && c.verdict.pass && !c.torch_fail;
    if (!pass)
        show_case(d, &c);
    Progress p;
    prog_load(&p);
    LabProgress lp;
    lab_progress_get(progress_slot_get(&p, "labs"), d->name, &lp);
    lp.checks++;
    lp.fails += !pass;
    lp.passed |= pass;
    lp.last = (double)time(NULL);
    prog_put(&p, d->name, &lp);
    const LabDef *n = pass ? next_lab(d, &p) : NULL;
    progress_free(&p);
    if (n)
        printf("Next: lab %s, %s: attend lab next (writes its starter beside this file)\n",
               n->name, n->title);
    if (!pass && lp.fails >= SOLUTION_AFTER)
        printf("(after %d failed checks the solution is there if you want it: attend lab "
               "solution %s)\n", lp.fails, d->name);
    else if (!pass)
        printf("(a hint: attend lab hint %s)\n", d->name);
    if (show) {
        char path[1024];
        if (lab_show_path(d->name, path, sizeof path, err, sizeof err) ||
            lab_show_write(path, d, file, &c, err, sizeof err))
            fprintf(stderr, "attend lab: %s (the player's lab page will not show this check)\n",
                    err);
    }

    int rc = pass ? 0 : c.cannot_run ? 2 : 1;
    lab_check_free(&c);
    return rc;
}

/* ---- watch ---- */

static int cmd_watch(const LabDef *d, const char *file, const Args *a)
{
    int in_open = 1, last = 2;
    setvbuf(stdout, NULL, _IOLBF, 0); /* piped, too: its lines and stderr's stay in order */
    while (!stop_sig) {
        FileioPrint seen, now; /* its contents compared too: a save within one clock tick */
        fileio_print(file, &seen);
        printf("---- %s: checking %s\n", d->name, file);
        last = check_once(d, file, a, 1);
        printf("---- watching %s: save it to check again (Ctrl-C or Ctrl-D stops)\n", file);
        fflush(stdout);
        while (!stop_sig && (fileio_print(file, &now), fileio_print_same(&now, &seen))) {
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

/* ---- mistakes ---- */

/* The misconceptions the check names in each lab (or in one): every catalogue row that
 * applies there, one line per id: "LAB ID  words". */
static int cmd_mistakes(const char *name)
{
    int rc = 0;
    for (int i = 0; i < lab_count(); i++) {
        const LabDef *d = lab_at(i);
        if (name && strcmp(name, d->name))
            continue;
        LabCases lc;
        char err[256];
        if (lab_cases_make(d, &lc, err, sizeof err)) {
            fprintf(stderr, "attend lab: %s\n", err);
            return 2;
        }
        for (const LabMistake *mk = LAB_CATALOGUE; mk->id; mk++) {
            int dup = 0;
            for (const LabMistake *p = LAB_CATALOGUE; p < mk; p++)
                dup |= !strcmp(p->id, mk->id) && lab_mistake_applies(d, &lc, p) == 1;
            int a = dup ? 0 : lab_mistake_applies(d, &lc, mk);
            rc = a < 0 ? 2 : rc;
            if (a == 1)
                printf("%-10s %-20s %s\n", d->name, mk->id, mk->words);
        }
        lab_cases_free(&lc);
    }
    return rc;
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
    char err[600];
    char *text = lab_has_lang(d, lang) ? lab_solution_text(d, lang, err, sizeof err) : NULL;
    if (!text) {
        fprintf(stderr, "attend lab: lab %s has no %s solution\n", d->name, lang);
        return 2;
    }
    printf("The solution of lab %s (%s), code that passes the check:\n\n%s", d->name,
           !strcmp(lang, "c") ? "C" : "Python", text);
    free(text);
    return 0;
}

/* `attend lab` alone: the current lab's file checked again; once it passed, the next lab
 * offered; with no current lab, the list. */
static int cmd_continue(void)
{
    Progress p;
    prog_load(&p);
    char lab[64], file[2048];
    int have = !lab_current_get(progress_slot_get(&p, "lab_current"), lab, sizeof lab, file,
                                sizeof file);
    const LabDef *d = have ? lab_find(lab) : NULL;
    LabProgress lp;
    if (d)
        lab_progress_get(progress_slot_get(&p, "labs"), d->name, &lp);
    const LabDef *n = d ? next_lab(d, &p) : NULL;
    progress_free(&p);
    struct stat st;
    if (!d || stat(file, &st)) {
        if (d)
            printf("(the current lab's file %s is gone: attend lab reset %s writes it again)\n\n",
                   file, d->name);
        return cmd_list();
    }
    if (lp.passed) {
        printf("Lab %s is passed (%s).\n", d->name, file);
        if (n)
            printf("Next: lab %s, %s: attend lab next (writes its starter beside it)\n",
                   n->name, n->title);
        else
            printf("Every lab is passed.\n");
        return 0;
    }
    Args a;
    memset(&a, 0, sizeof a);
    a.co.timeout_s = 10.0;
    a.co.torch = 1;
    printf("lab %s: checking %s\n", d->name, file);
    catch_stop();
    return check_once(d, file, &a, 1);
}

/* `attend lab next`: the starter of the lab after the current one, in the same folder. */
static int cmd_next(const Args *a)
{
    Progress p;
    prog_load(&p);
    char lab[64], file[2048];
    int have = !lab_current_get(progress_slot_get(&p, "lab_current"), lab, sizeof lab, file,
                                sizeof file);
    const LabDef *d = have ? lab_find(lab) : lab_at(0);
    const LabDef *n = have ? next_lab(d, &p) : d;
    progress_free(&p);
    if (!n) {
        printf("Every lab is passed.\n");
        return 0;
    }
    char *slash = have ? strrchr(file, '/') : NULL;
    if (slash)
        *slash = '\0';
    return cmd_start(n, a, slash ? (file[0] ? file : "/") : ".", 0);
}

int cmd_lab(int argc, char **argv)
{
    if (argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
        printf("%s\n", USAGE);
        return 0;
    }
    if (argc == 0)
        return cmd_continue();
    if (!strcmp(argv[0], "list"))
        return argc > 1 ? (fprintf(stderr, "%s\n", USAGE), 2) : cmd_list();
    if (!strcmp(argv[0], "mistakes")) {
        if (argc > 2 || (argc == 2 && !need_lab(argv[1])))
            return argc > 2 ? (fprintf(stderr, "%s\n", USAGE), 2) : 2;
        return cmd_mistakes(argc == 2 ? argv[1] : NULL);
    }
    Args a;
    int rc = parse(argc - 1, argv + 1, &a);
    if (rc)
        return rc;
    const char *verb = argv[0];
    if (!strcmp(verb, "next"))
        return a.n_pos ? (fprintf(stderr, "attend lab next: no arguments\n%s\n", USAGE), 2)
                       : cmd_next(&a);
    if (!strcmp(verb, "reset") && a.n_pos == 0) { /* the current lab's file */
        Progress p;
        prog_load(&p);
        char lab[64], file[2048];
        int have = !lab_current_get(progress_slot_get(&p, "lab_current"), lab, sizeof lab,
                                    file, sizeof file);
        progress_free(&p);
        if (!have) {
            fprintf(stderr, "attend lab reset: no current lab; name one: attend lab reset NAME "
                    "[DIR]\n");
            return 2;
        }
        char *slash = strrchr(file, '/'), *dot = strrchr(file, '.');
        if (!a.co.lang && dot && !strcmp(dot, ".c"))
            a.co.lang = "c";
        *slash = '\0';
        return cmd_start(lab_find(lab), &a, file[0] ? file : "/", 1);
    }
    int want = !strcmp(verb, "check") || !strcmp(verb, "watch") ? 2 : 1;
    int two = !strcmp(verb, "start") || !strcmp(verb, "reset");
    int known = want == 2 || two || !strcmp(verb, "hint") || !strcmp(verb, "solution");
    if (!known || a.n_pos < want || a.n_pos > (two ? 2 : want)) {
        fprintf(stderr, known ? "attend lab %s: wrong number of arguments\n%s\n"
                              : "attend lab: unknown command \"%s\"\n%s\n", verb, USAGE);
        return 2;
    }
    const LabDef *d = need_lab(a.pos[0]);
    if (!d)
        return 2;
    if (two)
        return cmd_start(d, &a, a.n_pos > 1 ? a.pos[1] : ".", !strcmp(verb, "reset"));
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
