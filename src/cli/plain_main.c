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
#include "ui.h"

/* ---- start and stop ---- */

static const char PLAIN_USAGE[] =
    "usage: attend --plain [--lessons DIR] [--lesson ID] [--page N] [--model DIR]\n"
    "                     [--ascii]\n"
    "  The course as plain text for screen readers, braille displays and pipes\n"
    "  (also when TERM=dumb): commands are read as lines from standard input\n"
    "  (help lists them), the answers written to standard output.\n"
    "  --lessons DIR  the course in DIR (default: lessons/)\n"
    "  --lesson ID    open that lesson (paging stays in it)\n"
    "  --page N       open page N of it\n"
    "  --model DIR    a Hugging Face model directory (or a model JSON file): the\n"
    "                 pages on \"your model\" run on it (docs/models.md)\n"
    "  --ascii        ASCII text only";

/* Loads the course and progress and chooses where to start. 0, or -1 with a message. */
static int plain_load(Plain *p, const char *dir, const char *only, int page_opt,
                      const char *model, char *err, size_t errlen)
{
    char path[1024], perr[600] = "";
    if (lesson_load_dir(&p->course, dir, err, errlen))
        return -1;
    if (model) { /* before any page runs: the "@opened" pages take it */
        Model m;
        if (model_load_progress(&m, model, cmd_load_progress, (void *)model, err, errlen))
            return -1;
        if (lesson_open_model(&p->course, &m, err, errlen)) {
            model_free(&m);
            return -1;
        }
    }
    int first = -1;
    for (int i = 0; i < p->course.n_lessons && first < 0; i++)
        if (!p->course.lessons[i].broken)
            first = i;
    if (first < 0) {
        snprintf(err, errlen, "no playable lesson in %.900s", dir);
        return -1;
    }
    if (progress_default_path(path, sizeof path, perr, sizeof perr) == 0) {
        int r = progress_load(&p->prog, path, perr, sizeof perr);
        p->prog_ok = r >= 0;
        if (r)
            plain_sayf(p, "%s%s", r < 0 ? "Progress will not be saved: " : "", perr);
    } else {
        plain_sayf(p, "Progress will not be saved: %s", perr);
    }
    int lesson = first, page = 0;
    if (only) {
        lesson = lesson_find(&p->course, only);
        if (lesson < 0 || p->course.lessons[lesson].broken) {
            snprintf(err, errlen, lesson < 0 ? "no lesson with id \"%.40s\" in %.900s"
                                             : "lesson \"%.40s\" in %.900s is broken", only, dir);
            return -1;
        }
        p->only = p->course.lessons[lesson].id;
        if (p->prog.current_lesson[0] && !strcmp(p->prog.current_lesson, only))
            page = p->prog.current_page;
    } else if (p->prog.current_lesson[0]) {
        int i = lesson_find(&p->course, p->prog.current_lesson);
        if (i >= 0 && !p->course.lessons[i].broken) {
            lesson = i;
            page = p->prog.current_page;
        }
    }
    for (int l = 0; model && !only && !page_opt && l < p->course.n_lessons; l++) {
        const Lesson *ls = &p->course.lessons[l]; /* the first page on the opened model */
        int pg = -1;
        for (int i = 0; !ls->broken && i < ls->n_pages && pg < 0; i++)
            if (lesson_model_opened(&p->course, &ls->pages[i]))
                pg = i;
        if (pg >= 0) {
            lesson = l, page = pg;
            break;
        }
    }
    if (page_opt > 0) {
        if (page_opt > p->course.lessons[lesson].n_pages) {
            snprintf(err, errlen, "--page %d: lesson \"%s\" has %d pages", page_opt,
                     p->course.lessons[lesson].id, p->course.lessons[lesson].n_pages);
            return -1;
        }
        page = page_opt - 1;
    }
    p->lesson = lesson;
    plain_open(p, lesson, page);
    return 0;
}

static void plain_free(Plain *p)
{
    for (int i = 0; i < p->n_mt; i++)
        widget_traces_free(&p->mt[i].tr);
    live_free(&p->live);
    lesson_free_course(&p->course);
    progress_free(&p->prog);
    free(p->snap);
    plain_commands_end();
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
            plain_say(p, p->prog_ok ? "End of input. Progress is saved." : "End of input.");
            break;
        }
        plain_command(p, line);
    }
    free(line);
}

int plain_main(int argc, char **argv)
{
    const char *dir = NULL, *only = NULL, *model = NULL;
    char dirbuf[1024], err[1024] = "";
    int ascii = 0, plain = 0, mouse = 0, no_mouse = 0;
    long page = 0;
    const Opt opts[] = {
        OPT_S("--lessons", &dir), OPT_S("--lesson", &only), OPT_I("--page", &page, 1, 10000),
        OPT_S("--model", &model),
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
    if (p)
        p->snap = calloc(1, sizeof *p->snap);
    if (!p || !p->snap) {
        fprintf(stderr, "attend: out of memory\n");
        free(p);
        return 1;
    }
    p->out = stdout;
    int rc = 0;
    if (plain_load(p, dir, only, (int)page, model, err, sizeof err)) {
        fprintf(stderr, "attend: %s\n", err);
        rc = 1;
    } else {
        plain_loop(p);
    }
    plain_free(p);
    free(p);
    return rc;
}
