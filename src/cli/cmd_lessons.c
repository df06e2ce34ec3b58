/* cmd_lessons.c - `attend check-lessons [DIR]`: validate a course and list every problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "lesson.h"

static const char CHECK_USAGE[] =
    "usage: attend check-lessons [--show] [DIR]   (default: the course's lessons/)\n"
    "  --show   also print every page's prose with its placeholders expanded";

/* Prints each page's prose expanded on its starting state (an author's preview). */
static void show_course(const Course *c)
{
    for (int li = 0; li < c->n_lessons; li++) {
        const Lesson *L = &c->lessons[li];
        printf("== %s: %s%s\n", L->id, L->title, L->broken ? " (broken)" : "");
        for (int pi = 0; pi < L->n_pages; pi++) {
            const Page *P = &L->pages[pi];
            const Model *m = lesson_model(c, P);
            printf("-- page %d: %s [%s]\n", pi + 1, P->title, lesson_widget_name(P->widget.kind));
            if (!m)
                continue;
            int cap = m->cfg.max_len, n = 0, mt = 0;
            int *src = malloc(sizeof(int) * (size_t)cap), *tgt = malloc(sizeof(int) * (size_t)cap);
            Trace *t = NULL, *a = NULL, *b = NULL;
            Controls ctl;
            char err[600];
            PlaceholderCtx ctx;
            memset(&ctx, 0, sizeof ctx);
            ctx.model = m;
            ctx.layer = P->widget.start.layer;
            ctx.head = P->widget.start.head;
            ctx.cross = P->widget.start.cross;
            LiveWidget live;
            memset(&live, 0, sizeof live);
            if (lesson_kind_is_explain(P->widget.kind) &&
                !lesson_kind_needs_sentence(P->widget.kind)) {
                live_start(&live, &P->widget, m);
                if (!live_run(&live, &P->widget, m, NULL, 0, NULL, NULL, err, sizeof err))
                    live_ctx(&live, &P->widget, m, NULL, &ctx);
            } else if (src && tgt && P->widget.start.sentence[0] &&
                !lesson_widget_state(&P->widget, m, &ctl, src, &n, tgt, &mt, cap, err, sizeof err)) {
                t = trace_new(m, n, mt > 0 ? mt : 1);
                a = trace_new(m, n, mt > 0 ? mt : 1);
                b = trace_new(m, n, mt > 0 ? mt : 1);
                if (P->widget.kind == W_KVCACHE && t && a) {
                    live_start(&live, &P->widget, m);
                    if (!live_run(&live, &P->widget, m, src, n, a, t, err, sizeof err))
                        live_ctx(&live, &P->widget, m, t, &ctx);
                } else if (t && a && b &&
                           !model_forward(m, src, n, tgt, mt, &ctl, t, err, sizeof err)) {
                    ctx.trace = t;
                    ctx.eq_a = a;
                    ctx.eq_b = b;
                }
            }
            size_t cap_out = strlen(P->prose ? P->prose : "") * 4 + 4096;
            char *out = malloc(cap_out);
            if (out) {
                placeholder_expand(P->prose ? P->prose : "", &ctx, out, cap_out, err, sizeof err);
                printf("%s\n", out);
            }
            free(out);
            live_free(&live);
            trace_free(t);
            trace_free(a);
            trace_free(b);
            free(src);
            free(tgt);
        }
    }
}

int cmd_check_lessons(int argc, char **argv)
{
    const char *dir = NULL;
    int show = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--show")) {
            show = 1;
            continue;
        }
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("%s\n", CHECK_USAGE);
            return 0;
        }
        if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "attend check-lessons: unexpected argument \"%s\"\n%s\n", argv[i],
                    CHECK_USAGE);
            return 2;
        }
        dir = argv[i];
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
    if (lesson_check_placeholders(&c) < 0) {
        fprintf(stderr, "attend check-lessons: out of memory\n");
        lesson_free_course(&c);
        return 1;
    }
    if (show)
        show_course(&c);
    /* every problem, grouped by lesson file in course order (stable within a file) */
    for (int li = -1; li < c.n_lessons; li++)
        for (int i = 0; i < c.n_problems; i++)
            if (c.problems[i].lesson == li)
                printf("%s\n", c.problems[i].msg);
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
