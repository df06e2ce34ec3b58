/* cmd_demo.c - `attend demo NAME|FILE [--auto S] [player options]` validates a demo script
 * and plays it in the presenter (src/tui/demo_play.c); `attend demo --check NAME|FILE`
 * validates it; `attend demo --list` names the demos of the data directory (docs/demos.md). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "datapath.h"
#include "demo.h"
#include "safetext.h"
#include "session_plan.h"
#include "tui.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: attend demo NAME|FILE [--auto SECONDS] [--lessons DIR] [--theme T] [--ascii]\n"
               "       attend demo --check NAME|FILE [--lessons DIR]\n"
               "       attend demo --plain NAME|FILE [--lessons DIR]\n"
               "       attend demo --list\n"
               "  Checks a demo script (docs/demos.md), then plays it in the presenter: space\n"
               "  runs the next step, b goes back one step, p pauses --auto, q quits. A NAME\n"
               "  (causal-mask) is a shipped demo, demos/NAME.json in the data directory.\n"
               "  --auto SECONDS  run a step every SECONDS (plus a step's pause)\n"
               "  --check         validate the script against the course: FILE:LINE:COL\n"
               "  --plain         run it without a terminal, step by step on the Session: each\n"
               "                  step, the state it left (page, mask, PE, layer, head,\n"
               "                  sentence) and its caption as lines; a step's problem or an\n"
               "                  \"expect\" that does not hold as FILE:LINE:COL on stderr\n"
               "  --list          the shipped demos' names\n"
               "  --lessons DIR   the course (default: the shipped lessons/)\n");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Prints the names of the shipped demos, one a line after indent, sorted; the number
 * found. */
static int list_demos(FILE *f, const char *indent)
{
    char dir[1024];
    data_path("demos", dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char *names[256];
    int k = 0;
    for (struct dirent *e; (e = readdir(d)) && k < 256;) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] != '.' && l > 5 && !strcmp(e->d_name + l - 5, ".json") &&
            (names[k] = strdup(e->d_name)))
            names[k++][l - 5] = '\0';
    }
    closedir(d);
    qsort(names, (size_t)k, sizeof names[0], cmp_str);
    for (int i = 0; i < k; i++) {
        fprintf(f, "%s%s\n", indent, names[i]);
        free(names[i]);
    }
    return k;
}

/* What --plain prints after each step: the step, its problem, the state it left, its
 * caption (session_plan_run_all's every). */
static void say_step(void *arg, const Session *s, const Demo *d, int i, const PlanState *ps,
                     const char *problem)
{
    char line[1200], words[700];
    (void)arg;
    demo_step_words(d, i, words, sizeof words);
    printf("%s\n", words);
    if (problem[0])
        fprintf(stderr, "%s\n", problem);
    for (const char *p = problem; *p;) { /* each of the step's problems, without the path */
        char one[1200];
        size_t l = strcspn(p, "\n");
        snprintf(one, sizeof one, "%.*s", (int)l, p);
        printf("  problem: %s\n", demo_room_error(one, line, sizeof line));
        p += l + (p[l] == '\n');
    }
    printf("  now: %s\n", session_plan_state_words(s, line, sizeof line));
    SessionMark now;
    session_mark(s, &now);
    const char *cap = session_plan_caption(ps, &now);
    if (cap)
        printf("  caption: %s\n", cap);
}

/* What --check prints after each step: its problem. */
static void check_step(void *arg, const Session *s, const Demo *d, int i, const PlanState *ps,
                       const char *problem)
{
    (void)arg, (void)s, (void)d, (void)i, (void)ps;
    if (problem[0])
        fprintf(stderr, "%s\n", problem);
}

/* attend demo --plain (plain 1) and --check (plain 0): the plan's steps on a Session without
 * a terminal (session_plan.h), the same run both ways: --plain says each step and the state
 * it left, --check only its problems, every one at FILE:LINE:COL (quiet: no line when it
 * passes). No file written, no room opened, the learner's progress untouched. 0, or 1 when a
 * step failed or the plan did not load. */
static int run_headless(const char *path, const char *dir, int plain, int quiet)
{
    static Demo d;
    static char err[16384];
    int bad = 0;
    if (plain)
        safetext_wrap(&stdout, 0);
    if (demo_load(&d, path, err, sizeof err)) { /* every step that did not load; the others run */
        fprintf(stderr, "%s\n", err);
        bad++;
        if (d.n_steps == 0)
            return 1;
    }
    Session *s = session_new();
    if (!s || session_load(s, dir, NULL, 0, err, sizeof err)) {
        fprintf(stderr, "attend demo: %s\n", s ? err : "out of memory");
        session_delete(s);
        return 1;
    }
    s->prog_ok = 0; /* a run never touches the learner's progress */
    PlanState ps;
    memset(&ps, 0, sizeof ps);
    int failed = session_plan_run_all(s, &d, &ps, plain ? say_step : check_step, NULL, err,
                                      sizeof err);
    bad += failed;
    if (plain)
        printf("%s: %d steps run, %d problem%s\n", path, d.n_steps, bad, bad == 1 ? "" : "s");
    else if (!bad && !quiet)
        printf("%s: %d steps, every lesson, page and key checked\n", path, d.n_steps);
    session_delete(s);
    return bad ? 1 : 0;
}

int cmd_demo(int argc, char **argv)
{
    const char *file = NULL, *dir = NULL;
    int check = 0, plain = 0;
    char *pass[64];
    int np = 0;
    char dirbuf[1024], path[1024];
    pass[np++] = "demo";
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--list")) {
            return list_demos(stdout, "") ? 0 : 1;
        } else if (!strcmp(argv[i], "--check")) {
            check = 1;
        } else if (!strcmp(argv[i], "--plain")) {
            plain = 1;
        } else if (argv[i][0] != '-' && !file) {
            file = argv[i];
        } else if (np < 60) {
            if (!strcmp(argv[i], "--lessons") && i + 1 < argc)
                dir = argv[i + 1];
            pass[np++] = argv[i];
        }
    }
    if (!file) {
        fprintf(stderr, "attend demo: which demo? a name (attend demo --list) or a script\n");
        usage(stderr);
        return 2;
    }
    if (demo_resolve(file, path, sizeof path)) {
        fprintf(stderr, "attend demo: no demo \"%s\": not a file, and no demos/%s.json in the "
                "data directory; the shipped demos:\n", file, file);
        if (!list_demos(stderr, "  "))
            fprintf(stderr, "  (none found)\n");
        return 1;
    }
    if (!dir) {
        data_path("lessons", dirbuf, sizeof dirbuf);
        dir = dirbuf;
    }
    if (check || plain)
        return run_headless(path, dir, plain, 0);
    /* a script that does not check is not played: its errors go to the terminal, not to
     * the room's screen */
    if (run_headless(path, dir, 0, 1)) {
        fprintf(stderr, "attend demo: %s does not check (the problems above); not played\n",
                path);
        return 1;
    }
    pass[np++] = "--demo";
    pass[np++] = path;
    pass[np] = NULL;
    return tui_present_main(np, pass);
}
