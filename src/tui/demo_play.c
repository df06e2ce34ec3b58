/* demo_play.c - attend demo, attend present --plan: the presenter's side of the plan machine
 * (session_plan.h, which keeps where the plan stands, suspends it, replays it for b and
 * space back, schedules --auto): the hooks through which a step presses keys in the
 * presenter's dispatch (so the badge and the notes follow), opens pages, asks a class quiz
 * with a room; space, b and P mapped onto the machine. */
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
    return session_plan_caption(&p->plan.st, &now);
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
    if (!p || !p->presenter) {
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

/* h_uncover: closes the overlay the teacher opened (help, the go-to box) before a step. */
static void h_uncover(void *ctx)
{
    App *a = ((Press *)ctx)->a;
    if (a->overlay)
        app_overlay_close(a);
}

static int h_focus(void *ctx)
{
    return ((Press *)ctx)->a->scr.focus;
}

/* The player's hooks over x. */
static PlanHooks hooks(Press *x)
{
    const PlanHooks h = {
        .ctx = x, .open = h_open, .type = h_type, .press = h_press, .used = h_used,
        .quits = h_quits, .ended = h_ended, .overlay = h_overlay, .quiz = h_quiz,
        .mark = h_mark, .uncover = h_uncover, .focus = h_focus,
    };
    return h;
}

int demo_run_step(App *a, const Demo *d, int i, void (*press)(App *a, int k), char *err, size_t n)
{
    Press x = {a, press};
    const PlanHooks h = hooks(&x);
    return session_plan_step(a->s, d, i, &h, a->present ? &a->present->plan.st : NULL, err, n);
}

/* After the machine moved: a step's problem on the screen without the file's path (the
 * first one), the recorder told where the plan stands. */
static void moved(App *a, const char *err)
{
    Present *p = a->present;
    char room[1100], first[1024];
    if (err[0]) {
        snprintf(first, sizeof first, "%.*s", (int)strcspn(err, "\n"), err);
        app_msg(a, 1, "%s", demo_room_error(first, room, sizeof room));
    }
    if (p->demo_moved)
        p->demo_moved(a, p->plan.pos);
}

int demo_start(App *a, const char *path, double auto_s, void (*press)(App *a, int k), char *err,
               size_t n)
{
    Present *p = a->present;
    char e[4000];
    if (session_plan_load(&p->plan, path, auto_s, err, n))
        return -1;
    p->demo_press = press;
    Press x = {a, press};
    const PlanHooks h = hooks(&x);
    p->rec_mute++; /* a plan's own keys are not recorded: its position is */
    session_plan_space(a->s, &p->plan, &h, ui_now_ms(), e, sizeof e);
    p->rec_mute--;
    moved(a, e);
    return 0;
}

int demo_suspended(const App *a)
{
    const Present *p = a->present;
    if (!p || !p->plan.demo)
        return 0;
    Press x = {(App *)a, p->demo_press};
    const PlanHooks h = hooks(&x);
    return session_plan_suspended(a->s, &p->plan, &h);
}

/* The badge for 2 s. */
static void badge(Present *p, const char *fmt, int a, int b)
{
    snprintf(p->echo, sizeof p->echo, fmt, a, b);
    p->echo_until = ui_now_ms() + 2000;
}

int demo_key(App *a, int k)
{
    Present *p = a->present;
    /* the sentence editor, and a screen of its own (a plan's class quiz), take every key */
    if (!p->plan.demo || (a->overlay && (a->overlay->keymap == KM_EDIT || a->overlay->screen)))
        return 0;
    KeyState ks;
    app_key_state(a, &ks);
    if (!a->overlay && keys_lookup(&ks, KM_PRESENT, k) == REQ_DEMO_PAUSE) {
        int paused = session_plan_pause(&p->plan, ui_now_ms());
        if (paused < 0)
            app_msg(a, 0, "P pauses attend demo --auto; this demo steps with space");
        else
            badge(p, paused ? "P  demo paused (P resumes)" : "P  demo resumed", 0, 0);
        return 1;
    }
    if (k != ' ' && k != 'b')
        return 0;
    char err[4000];
    Press x = {a, p->demo_press};
    const PlanHooks h = hooks(&x);
    a->msg[0] = '\0';
    p->rec_mute++;
    PlanMove m = k == ' ' ? session_plan_space(a->s, &p->plan, &h, ui_now_ms(), err, sizeof err)
                          : session_plan_back(a->s, &p->plan, &h, ui_now_ms(), err, sizeof err);
    p->rec_mute--;
    int n = p->plan.demo->n_steps;
    switch (m) {
    case PLAN_AT_END:
        app_msg(a, 0, "that was the last step (%d/%d): b goes back, q quits", n, n);
        return 1;
    case PLAN_AT_FIRST:
        app_msg(a, 0, "this is the first step");
        return 1;
    case PLAN_RESUMED: /* the plan was left (G, a page, keys): back to its step */
        badge(p, "space  back to the plan: step %d/%d", p->plan.pos, n);
        break;
    case PLAN_BACK:
        badge(p, "b  back to step %d/%d", p->plan.pos, n);
        break;
    case PLAN_STEPPED:
        break;
    }
    moved(a, err);
    return 1;
}

int demo_tick(App *a)
{
    Present *p = a->present;
    char err[4000];
    if (!p->plan.demo)
        return 0;
    Press x = {a, p->demo_press};
    const PlanHooks h = hooks(&x);
    /* paused (P), an overlay open (help, the go-to box), or the plan left: no step fires;
     * it comes once the overlay is closed */
    p->rec_mute++;
    int ran = session_plan_tick(a->s, &p->plan, &h, ui_now_ms(), a->overlay != NULL, err,
                                sizeof err);
    p->rec_mute--;
    if (ran)
        moved(a, err);
    return ran;
}

const char *demo_status(const App *a, char *buf, size_t n)
{
    const Present *p = a->present;
    if (!p || !p->plan.demo)
        return NULL;
    Press x = {(App *)a, p->demo_press};
    const PlanHooks h = hooks(&x);
    return session_plan_status(a->s, &p->plan, &h, buf, n);
}

const char *demo_next_words(const App *a, char *buf, size_t n)
{
    const Present *p = a->present;
    if (!p || !p->plan.demo)
        return NULL;
    Press x = {(App *)a, p->demo_press};
    const PlanHooks h = hooks(&x);
    return session_plan_next_words(a->s, &p->plan, &h, buf, n);
}

void demo_free(App *a)
{
    Present *p = a->present;
    if (!p)
        return;
    session_plan_free(&p->plan);
    if (p->quiz) {
        quiz_set_free(p->quiz);
        free(p->quiz);
        p->quiz = NULL;
    }
}
