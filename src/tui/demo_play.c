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
#include "session_plan.h"
#include "ui.h"
#include "view_quiz.h"

void present_mark(const App *a, PlanMark *m)
{
    session_mark(a->s, m);
    session_mark_mix(m, a->scr.focus); /* the player's focused pane is part of the screen */
}

int present_mark_same(const PlanMark *x, const PlanMark *y)
{
    return session_mark_same(x, y);
}

const char *present_caption(const App *a)
{
    const Present *p = a->present;
    PlanMark now;
    if (!p)
        return NULL;
    present_mark(a, &now);
    return session_plan_caption(&p->plan, &now);
}

int demo_key_used(App *a, int k)
{
    /* the key must mean something where it is pressed: the open overlay's keymap, the page's
     * widget, the shared controls the page allows, the global keys, the presenter's B, F, R */
    KeyState ks;
    app_key_state(a, &ks);
    if (a->overlay)
        return a->overlay->keymap == KM_EDIT ||
               keys_lookup(&ks, a->overlay->keymap, k) != REQ_NONE;
    Keymap km[3];
    int n = session_keymaps(a->s, km); /* the widget's, the shared controls', the global */
    for (int i = 0; i < n; i++)
        if (keys_lookup(&ks, km[i], k) != REQ_NONE)
            return 1;
    Request pr = keys_lookup(&ks, KM_PRESENT, k); /* the presenter's own */
    return pr == REQ_BLANK || pr == REQ_FREEZE || pr == REQ_REVEAL;
}

/* The runner's hooks (session_plan.h) for the player: ctx is a Press. */
typedef struct {
    App *a;
    void (*press)(App *a, int k);
} Press;

/* 1 when k would end the session where it is pressed (q, Ctrl-C): a plan never quits. */
static int h_quits(void *ctx, int k)
{
    App *a = ((Press *)ctx)->a;
    KeyState ks;
    app_key_state(a, &ks);
    if (a->overlay)
        return 0;
    Request r = keys_lookup(&ks, KM_GLOBAL, k);
    return r == REQ_QUIT || r == REQ_QUIT_NOW;
}

/* A "quiz" step: the class quiz on a lesson's questions (with a room of students when the
 * step says so), over the page; closing it returns to the plan. Checking only builds it; a
 * replay (now 0) passes it in the presenter. */
static int h_quiz(void *ctx, const DemoStep *s, int now, const char *where, char *err, size_t n)
{
    App *a = ((Press *)ctx)->a;
    Present *p = a->present;
    if (!now && p && p->presenter)
        return 0;
    char qerr[600];
    QuizSet *q = calloc(1, sizeof *q);
    if (!q || quiz_build(q, &a->s->course, s->quiz, s->quiz_count, s->quiz_seed, qerr,
                         sizeof qerr)) {
        snprintf(err, n, "%s: \"quiz\": %s", where, q ? qerr : "out of memory");
        free(q);
        return -1;
    }
    if (!p || p->plan_checking || !p->presenter) {
        quiz_set_free(q);
        free(q);
        return 0;
    }
    if (p->quiz) {
        quiz_set_free(p->quiz);
        free(p->quiz);
    }
    p->quiz = q;
    memset(&p->room, 0, sizeof p->room);
    p->room.open = s->quiz_room;
    p->room.o.port = s->quiz_port;
    p->room.o.bind = s->quiz_bind[0] ? s->quiz_bind : NULL;
    if (a->overlay)
        app_overlay_close(a);
    if (view_class_quiz_start(a, q, 0, &p->room, &p->quiz_shown)) {
        char re[900];
        snprintf(err, n, "%s: the class quiz: %s", where,
                 p->room.err[0] ? demo_room_error(p->room.err, re, sizeof re) : a->msg);
        return -1;
    }
    return 0;
}

static void h_open(void *ctx, int lesson, int page)
{
    App *a = ((Press *)ctx)->a;
    if (a->overlay)
        app_overlay_close(a);
    app_open(a, lesson, page);
}

static void h_type(void *ctx, const char *sentence)
{
    Press *x = ctx;
    x->press(x->a, 'e');
    x->press(x->a, KEY_CTRL('u'));
    for (const char *c = sentence; *c; c++)
        x->press(x->a, (unsigned char)*c);
    x->press(x->a, '\r');
}

static void h_press(void *ctx, int k)
{
    Press *x = ctx;
    x->press(x->a, k);
}

static int h_used(void *ctx, int k)
{
    return demo_key_used(((Press *)ctx)->a, k);
}

static int h_ended(void *ctx)
{
    return ((Press *)ctx)->a->quit;
}

static int h_overlay(void *ctx)
{
    return ((Press *)ctx)->a->overlay != NULL;
}

static void h_mark(void *ctx, SessionMark *m)
{
    present_mark(((Press *)ctx)->a, m);
}

int demo_run_step(App *a, const Demo *d, int i, void (*press)(App *a, int k), char *err, size_t n)
{
    Press x = {a, press};
    const PlanHooks h = {
        .ctx = &x, .open = h_open, .type = h_type, .press = h_press, .used = h_used,
        .quits = h_quits, .ended = h_ended, .overlay = h_overlay, .quiz = h_quiz,
        .mark = h_mark,
    };
    return session_plan_step(a->s, d, i, &h, a->present ? &a->present->plan : NULL, err, n);
}

static void schedule(App *a)
{
    Present *p = a->present;
    if (p->demo_auto > 0 && p->demo_pos > 0)
        p->demo_next = ui_now_ms() +
                       (long long)((p->demo_auto + p->demo->steps[p->demo_pos - 1].pause) * 1000);
}

/* Runs the plan's steps from..to-1 (its keys not recorded: the plan's position is); a step's
 * problem goes on the screen without the file's path. */
static void run_steps(App *a, int from, int to)
{
    Present *p = a->present;
    char err[1024], room[1100];
    p->rec_mute++;
    for (int i = from; i < to; i++)
        if (demo_run_step(a, p->demo, i, p->demo_press, err, sizeof err))
            app_msg(a, 1, "%s", demo_room_error(err, room, sizeof room));
    p->rec_mute--;
    p->demo_pos = to;
    present_mark(a, &p->plan.mark);
    if (p->demo_moved)
        p->demo_moved(a, to);
}

static int next_step(App *a)
{
    Present *p = a->present;
    if (p->demo_pos >= p->demo->n_steps) {
        app_msg(a, 0, "end of the demo (b goes back, q quits)");
        return 0;
    }
    run_steps(a, p->demo_pos, p->demo_pos + 1);
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
    /* a recording names a shipped plan by its name, any other by its path */
    const char *slash = strrchr(path, '/');
    char name[300], again[1024];
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : path);
    size_t l = strlen(name);
    if (l > 5 && !strcmp(name + l - 5, ".json"))
        name[l - 5] = '\0';
    int shipped = slash && !demo_resolve(name, again, sizeof again) && !strcmp(again, path) &&
                  strcmp(name, path);
    snprintf(p->plan_name, sizeof p->plan_name, "%s", shipped ? name : path);
    next_step(a);
    return 0;
}

/* Replays steps 0..to-1 from a fresh start. */
static void replay(App *a, int to)
{
    Present *p = a->present;
    p->plan.cap_on = 0;
    if (a->overlay)
        app_overlay_close(a);
    p->plan.replaying = 1;
    run_steps(a, 0, to);
    p->plan.replaying = 0;
    schedule(a);
}

int demo_suspended(const App *a)
{
    const Present *p = a->present;
    PlanMark now;
    if (!p || !p->demo || p->demo_pos == 0)
        return 0;
    present_mark(a, &now);
    return !present_mark_same(&now, &p->plan.mark);
}

int demo_key(App *a, int k)
{
    Present *p = a->present;
    /* the sentence editor, and a screen of its own (a plan's class quiz), take every key */
    if (!p->demo || (a->overlay && (a->overlay->keymap == KM_EDIT || a->overlay->screen)))
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
        if (demo_suspended(a)) { /* the plan was left (G, a page, keys): back to its step */
            replay(a, p->demo_pos);
            snprintf(p->echo, sizeof p->echo, "space  back to the plan: step %d/%d",
                     p->demo_pos, p->demo->n_steps);
            p->echo_until = ui_now_ms() + 2000;
            return 1;
        }
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
    /* paused (P), an overlay open (help, the go-to box), or the plan left: no step fires;
     * it comes once the overlay is closed */
    if (!p->demo || p->demo_auto <= 0 || p->demo_paused || a->overlay ||
        p->demo_pos >= p->demo->n_steps || ui_now_ms() < p->demo_next || demo_suspended(a))
        return 0;
    return next_step(a);
}

const char *demo_status(const App *a, char *buf, size_t n)
{
    const Present *p = a->present;
    if (!p || !p->demo)
        return NULL;
    snprintf(buf, n, "step %d/%d%s", p->demo_pos, p->demo->n_steps,
             demo_suspended(a) ? " (left: space returns)" : "");
    return buf;
}

void demo_free(App *a)
{
    Present *p = a->present;
    if (!p)
        return;
    free(p->demo);
    p->demo = NULL;
    if (p->quiz) {
        quiz_set_free(p->quiz);
        free(p->quiz);
        p->quiz = NULL;
    }
}
