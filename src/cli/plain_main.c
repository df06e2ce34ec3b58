/* plain_main.c - attend --plain: its options, the course loaded, the loop reading one
 * command a line (plain_cmd.c) until q or the end of input. */
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "datapath.h"
#include "opts.h"
#include "plain.h"
#include "ui_text.h"

/* ---- start and stop ---- */

static const char PLAIN_USAGE[] =
    "usage: attend --plain [--lessons DIR] [--lesson ID] [--page N] [--model DIR]\n"
    "                     [--plan NAME|FILE] [--ascii]\n"
    "  The course as plain text for screen readers, braille displays and pipes\n"
    "  (also when TERM=dumb): commands are read as lines from standard input\n"
    "  (help lists them), the answers written to standard output.\n"
    "  --lessons DIR  the course in DIR (default: lessons/)\n"
    "  --lesson ID    open that lesson: its id, number or the start of its id\n"
    "                 (paging stays in it)\n"
    "  --page N       open page N of it\n"
    "  --model DIR    a Hugging Face model directory (or a model JSON file): the\n"
    "                 pages on \"your model\" run on it (docs/models.md)\n"
    "  --plan PLAN    present a lecture plan (docs/demos.md): space takes its next\n"
    "                 step, b the one before, plan says where it stands\n"
    "  --ascii        ASCII text only";

/* Loads the course and progress (and the model of --model) and opens the page to start on
 * (quiet: without saying it). 0, or -1 with a message. */
static int plain_load(Plain *p, const char *dir, const char *only, int page, const char *model,
                      int quiet, char *err, size_t errlen)
{
    if (session_load(p->s, dir, only, page, err, errlen))
        return -1;
    if (p->s->warn[0])
        plain_sayf(p, "%c%s", p->s->warn[0] >= 'a' && p->s->warn[0] <= 'z'
                                  ? p->s->warn[0] - 'a' + 'A' : p->s->warn[0], p->s->warn + 1);
    /* before any page runs: the "@opened" pages take --model */
    if (model && session_open_model(p->s, model, cmd_load_progress, (void *)model, !only && !page,
                                    err, errlen))
        return -1;
    FILE *out = p->out, *none = quiet ? fopen("/dev/null", "w") : NULL;
    if (none) /* --plan: the plan's first step says its page, not the page before it */
        p->out = none;
    plain_open(p, p->s->lesson, p->s->page);
    p->out = out;
    if (none)
        fclose(none);
    return 0;
}

static void plain_free(Plain *p)
{
    session_delete(p->s);
}

/* Reads lines until q or the end of input. */
static void plain_loop(Plain *p)
{
    char *line = NULL;
    size_t cap = 0;
    int tty = isatty(STDIN_FILENO);
    while (!p->quit) {
        if (tty) {
            fputs("> ", p->out);
            fflush(p->out);
        }
        ssize_t n = getline(&line, &cap, stdin);
        if (n < 0) {
            plain_say(p, session_progress_saved(p->s) ? "End of input. Progress is saved." : "End of input.");
            break;
        }
        plain_plan_line(p, line); /* --plan: its words first */
    }
    free(line);
}

int plain_main(int argc, char **argv)
{
    const char *dir = NULL, *only = NULL, *model = NULL, *plan = NULL;
    char dirbuf[1024], err[1024] = "";
    int ascii = 0, plain = 0, mouse = 0, no_mouse = 0;
    long page = 0;
    const Opt opts[] = {
        OPT_S("--lessons", &dir), OPT_S("--lesson", &only), OPT_I("--page", &page, 1, 10000),
        OPT_S("--model", &model), OPT_S("--plan", &plan),
        OPT_F("--ascii", &ascii), OPT_F("--plain", &plain),
        OPT_F("--mouse", &mouse), OPT_F("--no-mouse", &no_mouse), /* the player's: no use here */
    };
    int prc = opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc - 1, argv + 1,
                         "attend --plain", PLAIN_USAGE);
    if (prc >= 0)
        return prc;
    setlocale(LC_ALL, "");
    const char *cs = nl_langinfo(CODESET);
    ui.utf8 = !ascii && cs && !strcmp(cs, "UTF-8");
    if (!dir) {
        data_path("lessons", dirbuf, sizeof dirbuf);
        dir = dirbuf;
    }
    Plain *p = calloc(1, sizeof *p);
    if (p && !(p->s = session_new())) {
        free(p);
        p = NULL;
    }
    if (!p) {
        fprintf(stderr, "attend: out of memory\n");
        free(p);
        return 1;
    }
    p->out = stdout;
    int rc = 0;
    static char perr[16384];
    if (plain_load(p, dir, only, (int)page, model, plan != NULL, err, sizeof err)) {
        fprintf(stderr, "attend: %s\n", err);
        rc = 1;
    } else if (plan && plain_plan_start(p, plan, perr, sizeof perr)) {
        fprintf(stderr, "attend: %s\n", perr);
        rc = 1;
    } else {
        plain_loop(p);
    }
    plain_plan_end(p);
    plain_free(p);
    free(p);
    return rc;
}
