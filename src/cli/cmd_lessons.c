/* cmd_lessons.c - `attend check-lessons [DIR]`: validate a course and list every problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "safetext.h"
#include "lesson.h"
#include "lesson_check.h"
#include "lesson_walk.h"
#include "opts.h"
#include "tui.h"
#include "widget.h"

static const char CHECK_USAGE[] =
    "usage: attend check-lessons [--show] [--walk] [--samples N] [--size WxH] [--model PATH]\n"
    "                            [DIR]\n"
    "  DIR            a course's lessons directory (default: the course's lessons/)\n"
    "  --show         also print every page's prose with its placeholders expanded\n"
    "  --size WxH     the terminal every page must fit, keys and sentences included (default\n"
    "                 80x24, the smallest the player runs in)\n"
    "  --samples N    random sentences typed on each page with a sentence editor (default 20;\n"
    "                 0 skips them)\n"
    "  --model PATH   check the pages that run on an opened model (\"@opened\") on this one, as\n"
    "                 `attend --model PATH` opens it";
/* Prints each page's prose expanded on its starting state (an author's preview): the same
 * widget run as the placeholder check and the player (widget_run_start). */
static void show_course(const Course *c)
{
    for (int li = 0; li < c->n_lessons; li++) {
        const Lesson *L = &c->lessons[li];
        printf("== %s: %s%s\n", L->id, L->title, L->broken ? " (broken)" : "");
        for (int pi = 0; pi < L->n_pages; pi++) {
            const Page *P = &L->pages[pi];
            const Model *m = lesson_model(c, P);
            printf("-- page %d: %s [%s]\n", pi + 1, P->title, course_widget_name(P->widget.kind));
            if (!m)
                continue;
            WidgetRun r;
            char err[600];
            widget_run_start(&r, &P->widget, m, err, sizeof err); /* failed: sizes only */
            const char *prose = P->prose ? P->prose : "";
            size_t cap_out = strlen(prose) * 4 + 4096;
            char *out = malloc(cap_out);
            if (out) {
                placeholder_expand(prose, &r.ctx, out, cap_out, err, sizeof err);
                printf("%s\n", out);
            }
            free(out);
            widget_run_free(&r);
        }
    }
}

int cmd_check_lessons(int argc, char **argv)
{
    const char *dir = NULL, *size = NULL, *model = NULL;
    int show = 0, walk = 0, cols = 80, lines = 24;
    long samples = 20;
    const Opt opts[] = {
        OPT_F("--show", &show), OPT_F("--walk", &walk), OPT_I("--samples", &samples, 0, 10000), OPT_S("--size", &size),
        OPT_S("--model", &model), OPT_A("DIR", &dir),
    };
    int prc = opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc, argv,
                         "attend check-lessons", CHECK_USAGE);
    if (prc >= 0)
        return prc;
    int used = 0;
    if (size && (sscanf(size, "%dx%d%n", &cols, &lines, &used) != 2 || size[used] ||
                 cols < 80 || lines < 24 || cols > 1000 || lines > 500)) {
        char msg[300];
        snprintf(msg, sizeof msg, "--size takes WIDTHxHEIGHT from 80x24 to 1000x500, not \"%s\"",
                 size);
        return opts_usage_error("attend check-lessons", CHECK_USAGE, msg);
    }
    char path[1024], err[1024];
    if (!dir) {
        data_path("lessons", path, sizeof path);
        dir = path;
    }
    Course c;
    if (lesson_load_dir(&c, dir, err, sizeof err)) {
        fprintf(stderr, "attend check-lessons: %s\n", err);
        lesson_free_course(&c);
        return 1;
    }
    if (model) { /* before any page runs, as the player's --model */
        Model m;
        if (model_load(&m, model, err, sizeof err) || lesson_open_model(&c, &m, err, sizeof err)) {
            fprintf(stderr, "attend check-lessons: %s\n", err);
            model_free(&m);
            lesson_free_course(&c);
            return 1;
        }
    }
    if (lesson_check_placeholders(&c) < 0) {
        fprintf(stderr, "attend check-lessons: out of memory\n");
        lesson_free_course(&c);
        return 1;
    }
    /* every state a learner can reach on each page, below the player (lesson_walk.h) */
    LessonWalkStats ws;
    clock_t t0 = clock();
    if (lesson_walk(&c, &ws) < 0) {
        fprintf(stderr, "attend check-lessons: out of memory\n");
        lesson_free_course(&c);
        return 1;
    }
    double walk_s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    /* the player's walk: every page at 80x24 (or --size) after each key and on random
     * sentences (the lessons without a problem so far) */
    if (c.n_lessons && tui_check_pages(&c, dir, cols, lines, (int)samples) < 0) {
        fprintf(stderr, "attend check-lessons: the walk through the player failed (out of "
                "memory)\n");
        lesson_free_course(&c);
        return 1;
    }
    safetext_wrap(&stdout, 0); /* a lesson's text never reaches the terminal raw */
    if (show)
        show_course(&c);
    /* every problem, grouped by lesson file in course order (stable within a file) */
    for (int li = -1; li < c.n_lessons; li++)
        for (int i = 0; i < c.n_problems; i++)
            if (c.problems[i].lesson == li)
                printf("%s\n", c.problems[i].msg);
    if (walk)
        printf("walk: %ld states on %d pages, %ld engine runs, %.2f s CPU\n", ws.states,
               ws.pages, ws.runs, walk_s);
    if (ws.bound_pages)
        printf("note: the walk stopped at %d states on %d page%s: %s\n", LESSON_WALK_BOUND,
               ws.bound_pages, ws.bound_pages == 1 ? "" : "s", ws.bound_at);
    int broken = 0;
    for (int i = 0; i < c.n_lessons; i++)
        broken += c.lessons[i].broken;
    if (c.n_lessons == 0)
        printf("%s: no lesson files (NN-name.json)\n", dir);
    printf("%d lesson%s, %d page%s, %d problem%s", c.n_lessons, c.n_lessons == 1 ? "" : "s",
           c.n_pages, c.n_pages == 1 ? "" : "s", c.n_problems, c.n_problems == 1 ? "" : "s");
    if (broken)
        printf(" (%d lesson%s cannot be played)", broken, broken == 1 ? "" : "s");
    printf("\n");
    int rc = c.n_problems || c.n_lessons == 0 ? 1 : 0;
    lesson_free_course(&c);
    if (fflush(stdout))
        rc = 1;
    return rc;
}
