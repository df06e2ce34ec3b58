/* demo_check.c - attend demo --check: a demo script run headless against the course and the
 * key table, every step through demo_run_step with the player's own dispatch (app_key); each
 * problem printed as FILE:LINE:COL. */
#include <stdio.h>

#include "app_key.h"
#include "app_views.h"
#include "demo_play.h"
#include "tui.h"

static void press_plain(App *a, int k)
{
    app_key(a, k);
}

int tui_demo_check(const char *path, const char *lessons_dir, int quiet)
{
    static Demo d;
    char err[1200];
    int bad = 0;
    if (demo_load(&d, path, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    App *a = app_new();
    if (!a || lesson_load_dir(&a->s->course, lessons_dir, err, sizeof err)) {
        fprintf(stderr, "attend demo: %s\n", a ? err : "out of memory");
        app_delete(a);
        return 1;
    }
    a->s->prog_ok = 0; /* checking never touches the learner's progress */
    for (int i = 0; i < d.n_steps; i++)
        if (demo_run_step(a, &d, i, press_plain, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            bad++;
        }
    app_delete(a);
    if (!bad && !quiet)
        printf("%s: %d steps, every lesson, page and key checked\n", path, d.n_steps);
    return bad ? 1 : 0;
}
