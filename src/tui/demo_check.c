/* demo_check.c - attend demo --check: a demo script run headless against the course and the
 * key table, every step through demo_run_step with the player's own dispatch (app_key) but for
 * the keys that write files; every problem printed as FILE:LINE:COL, all of them at once. */
#include <stdio.h>

#include "app_key.h"
#include "app_views.h"
#include "demo_play.h"
#include "tui.h"

/* Presses k as the player would, but for the keys that write files (x exports a figure, w
 * saves a model): checking has no side effects, those keys are only looked up. */
static void press_plain(App *a, int k)
{
    Keymap km;
    Request r = app_key_route(a, k, &km);
    if (r == REQ_EXPORT || r == REQ_SAVE)
        return;
    app_key(a, k);
}

int tui_demo_check(const char *path, const char *lessons_dir, int quiet)
{
    static Demo d;
    char err[4200];
    int bad = 0;
    static char lerr[16384];
    if (demo_load(&d, path, lerr, sizeof lerr)) { /* every step that did not load; the others run */
        fprintf(stderr, "%s\n", lerr);
        bad += 1;
        if (d.n_steps == 0)
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
