/* demo_play.c - attend demo: plays a demo script (demo.h, docs/demos.md) in presenter mode.
 * Space runs the next step, b goes back one step by replaying the script from the start
 * (each open step resets the page's widget, so the replay is deterministic), --auto S runs
 * a step every S seconds (plus a step's pause). Keys are pressed through the presenter's
 * dispatch, so the badge and the notes follow. (demo_check.c validates a script without a
 * terminal, step by step through demo_run_step.) */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_play.h"
#include "ui.h"

int demo_key_used(App *a, int k)
{
    /* the key must mean something where it is pressed: the open overlay's keymap, the page's
     * widget, the shared controls the page allows, the global keys */
    KeyState ks;
    app_key_state(a, &ks);
    if (a->overlay)
        return a->overlay->keymap == KM_EDIT ||
               keys_lookup(&ks, a->overlay->keymap, k) != REQ_NONE;
    const ViewOps *vo = app_cur_view(a);
    return keys_lookup(&ks, vo->keymap, k) != REQ_NONE ||
           (vo->kind != W_NONE && keys_lookup(&ks, KM_COMMON, k) != REQ_NONE) ||
           keys_lookup(&ks, KM_GLOBAL, k) != REQ_NONE;
}

int demo_run_step(App *a, const Demo *d, int i, void (*press)(App *a, int k), char *err, size_t n)
{
    const DemoStep *s = &d->steps[i];
    char where[700];
    snprintf(where, sizeof where, "%s:%d:%d: step %d", d->path, s->line, s->col, i + 1);
    if (s->lesson[0]) {
        int li = lesson_find(&a->s->course, s->lesson);
        if (li < 0) {
            snprintf(err, n, "%s: no lesson \"%s\" in the course", where, s->lesson);
            return -1;
        }
        const Lesson *l = &a->s->course.lessons[li];
        if (l->broken || s->page > l->n_pages) {
            snprintf(err, n, "%s: lesson %s has no page %d (1..%d)%s", where, s->lesson, s->page,
                     l->n_pages, l->broken ? "; it is broken" : "");
            return -1;
        }
        if (a->overlay)
            app_overlay_close(a);
        app_open(a, li, s->page - 1);
    }
    if (s->type[0]) {
        if (!app_page(a) || !(a->s->allowed & C_EDIT)) {
            snprintf(err, n, "%s: \"type\": this page's widget takes no sentence (no e key)",
                     where);
            return -1;
        }
        press(a, 'e');
        press(a, KEY_CTRL('u'));
        for (const char *c = s->type; *c; c++)
            press(a, (unsigned char)*c);
        press(a, '\r');
    }
    char keys[256];
    snprintf(keys, sizeof keys, "%s", s->keys);
    for (char *save = NULL, *t = strtok_r(keys, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        int k = keys_parse_name(t);
        if (k < 0) {
            snprintf(err, n, "%s: unknown key \"%s\" (a character, space, enter, esc, tab, "
                     "backspace, up, down, left, right, home, end, pgup, pgdn, del, ctrl-x)",
                     where, t);
            return -1;
        }
        if (!demo_key_used(a, k)) {
            const Page *p = app_page(a);
            snprintf(err, n, "%s: key \"%s\" does nothing on %s page %d (%s)%s", where, t,
                     p ? a->s->course.lessons[a->s->lesson].id : "this", a->s->page + 1,
                     p ? p->title : "no page", a->overlay ? " with an overlay open" : "");
            return -1;
        }
        press(a, k);
    }
    if (s->caption[0] && a->present)
        snprintf(a->present->caption, sizeof a->present->caption, "%s", s->caption);
    return 0;
}

static void schedule(App *a)
{
    Present *p = a->present;
    if (p->demo_auto > 0 && p->demo_pos > 0)
        p->demo_next = ui_now_ms() +
                       (long long)((p->demo_auto + p->demo->steps[p->demo_pos - 1].pause) * 1000);
}

static int next_step(App *a)
{
    Present *p = a->present;
    char err[1024];
    if (p->demo_pos >= p->demo->n_steps) {
        app_msg(a, 0, "end of the demo (b goes back, q quits)");
        return 0;
    }
    if (demo_run_step(a, p->demo, p->demo_pos, p->demo_press, err, sizeof err))
        app_msg(a, 1, "%s", err);
    p->demo_pos++;
    schedule(a);
    return 1;
}

int demo_start(App *a, const char *path, double auto_s, void (*press)(App *a, int k), char *err,
               size_t n)
{
    Present *p = a->present;
    Demo *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    if (demo_load(d, path, err, n)) {
        free(d);
        return -1;
    }
    p->demo = d;
    p->demo_press = press;
    p->demo_auto = auto_s;
    p->demo_pos = 0;
    next_step(a);
    return 0;
}

/* Replays steps 0..to-1 from a fresh start. */
static void replay(App *a, int to)
{
    Present *p = a->present;
    char err[1024];
    p->caption[0] = '\0';
    if (a->overlay)
        app_overlay_close(a);
    for (int i = 0; i < to; i++)
        if (demo_run_step(a, p->demo, i, p->demo_press, err, sizeof err))
            app_msg(a, 1, "%s", err);
    p->demo_pos = to;
    schedule(a);
}

int demo_key(App *a, int k)
{
    Present *p = a->present;
    if (!p->demo || (a->overlay && a->overlay->keymap == KM_EDIT))
        return 0;
    KeyState ks;
    app_key_state(a, &ks);
    if (!a->overlay && keys_lookup(&ks, KM_PRESENT, k) == REQ_DEMO_PAUSE) {
        if (p->demo_auto <= 0) {
            app_msg(a, 0, "P pauses attend demo --auto; this demo steps with space");
            return 1;
        }
        p->demo_paused = !p->demo_paused;
        if (!p->demo_paused)
            schedule(a);
        snprintf(p->echo, sizeof p->echo, "P  %s", p->demo_paused ? "demo paused (P resumes)"
                                                                   : "demo resumed");
        p->echo_until = ui_now_ms() + 2000;
        return 1;
    }
    if (k == ' ') {
        a->msg[0] = '\0';
        next_step(a);
        return 1;
    }
    if (k == 'b') {
        a->msg[0] = '\0';
        if (p->demo_pos <= 1) {
            app_msg(a, 0, "this is the first step");
            return 1;
        }
        replay(a, p->demo_pos - 1);
        snprintf(p->echo, sizeof p->echo, "b  back to step %d/%d", p->demo_pos, p->demo->n_steps);
        p->echo_until = ui_now_ms() + 2000;
        return 1;
    }
    return 0;
}

int demo_tick(App *a)
{
    Present *p = a->present;
    /* paused (P), or an overlay open (help, the go-to box): no step fires; it comes once
     * the overlay is closed */
    if (!p->demo || p->demo_auto <= 0 || p->demo_paused || a->overlay ||
        p->demo_pos >= p->demo->n_steps || ui_now_ms() < p->demo_next)
        return 0;
    return next_step(a);
}

const char *demo_status(const App *a, char *buf, size_t n)
{
    const Present *p = a->present;
    if (!p || !p->demo)
        return NULL;
    snprintf(buf, n, "step %d/%d", p->demo_pos, p->demo->n_steps);
    return buf;
}

void demo_free(App *a)
{
    if (a->present) {
        free(a->present->demo);
        a->present->demo = NULL;
    }
}
