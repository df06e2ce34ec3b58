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
#include "view_quiz.h"

/* FNV-1a over n bytes, from h. */
static unsigned long long fnv(unsigned long long h, const void *v, size_t n)
{
    const unsigned char *b = v;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

#define MIX(h, x) do { long long v_ = (long long)(x); h = fnv(h, &v_, sizeof v_); } while (0)

void present_mark(const App *a, PlanMark *m)
{
    unsigned long long h = 1469598103934665603ull;
    m->lesson = a->s->lesson;
    m->page = a->s->page;
    MIX(h, a->s->ctl.causal); MIX(h, a->s->ctl.padding); MIX(h, a->s->ctl.pe); MIX(h, a->s->ctl.scale);
    for (int l = 0; l < ATTEND_MAX_LAYERS; l++)
        MIX(h, a->s->ctl.ablate[l]);
    for (int i = 0; i < a->s->n_src && i < SESSION_MAX_TOK; i++)
        MIX(h, a->s->order[i]);
    MIX(h, a->s->layer); MIX(h, a->s->head); MIX(h, a->s->cross); MIX(h, a->s->scores);
    MIX(h, a->s->all_heads); MIX(h, a->scr.focus);
    h = fnv(h, a->s->sentence, strlen(a->s->sentence) + 1);
    h = fnv(h, a->s->target, strlen(a->s->target) + 1);
    const LiveState *l = &a->s->live.s;
    MIX(h, l->causal); MIX(h, l->scale); MIX(h, l->step); MIX(h, l->d_k); MIX(h, l->n);
    MIX(h, l->tied); MIX(h, l->gqa); MIX(h, l->sample); MIX(h, l->temp * 1000); MIX(h, l->seed);
    m->sig = h;
}

int present_mark_same(const PlanMark *x, const PlanMark *y)
{
    return x->lesson == y->lesson && x->page == y->page && x->sig == y->sig;
}

const char *present_caption(const App *a)
{
    const Present *p = a->present;
    PlanMark now;
    if (!p || !p->cap_on || !p->caption[0])
        return NULL;
    present_mark(a, &now);
    return present_mark_same(&now, &p->mark) ? p->caption : NULL;
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
    const ViewOps *vo = app_cur_view(a);
    Request pr = keys_lookup(&ks, KM_PRESENT, k);
    return keys_lookup(&ks, vo->keymap, k) != REQ_NONE ||
           (vo->kind != W_NONE && keys_lookup(&ks, KM_COMMON, k) != REQ_NONE) ||
           keys_lookup(&ks, KM_GLOBAL, k) != REQ_NONE || pr == REQ_BLANK || pr == REQ_FREEZE ||
           pr == REQ_REVEAL;
}

/* 1 when k would end the session where it is pressed (q, Ctrl-C): a plan never quits. */
static int quits(App *a, int k)
{
    KeyState ks;
    app_key_state(a, &ks);
    if (a->overlay)
        return 0;
    Request r = keys_lookup(&ks, KM_GLOBAL, k);
    return r == REQ_QUIT || r == REQ_QUIT_NOW;
}

/* A "quiz" step: the class quiz on a lesson's questions (with a room of students when the
 * step says so), over the page; closing it returns to the plan. Checking only builds it. */
static int run_quiz(App *a, const DemoStep *s, const char *where, char *err, size_t n)
{
    Present *p = a->present;
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

/* A "demo" step: another demo or plan by name, its first demo_to steps (all: 0) run here as
 * one step; depth counts the nesting (a demo that names itself ends). */
static int run_demo(App *a, const DemoStep *s, int depth, void (*press)(App *a, int k),
                    const char *where, char *err, size_t n);

static int run_step(App *a, const Demo *d, int i, int depth, void (*press)(App *a, int k),
                    char *err, size_t n)
{
    const DemoStep *s = &d->steps[i];
    Present *p = a->present;
    char where[700];
    snprintf(where, sizeof where, "%s:%d:%d: step %d", d->path, s->line, s->col, i + 1);
    if (s->bad) /* its problem was reported when the script loaded */
        return 0;
    if (s->demo[0] && run_demo(a, s, depth, press, where, err, n))
        return -1;
    /* a class quiz is an event, not a screen: it runs when its step is taken, never again
     * when a replay (b, space back to the plan, a recorded position) passes it */
    int quiz_now = !p || !p->presenter || (depth == 0 && !p->replaying);
    if (s->quiz[0] && quiz_now && run_quiz(a, s, where, err, n))
        return -1;
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
        if (quits(a, k)) {
            snprintf(err, n, "%s: key \"%s\" would end the lecture (the room would see a "
                     "shell); a plan never quits: q at the end is the teacher's", where, t);
            return -1;
        }
        if (!demo_key_used(a, k)) {
            const Page *pg = app_page(a);
            snprintf(err, n, "%s: key \"%s\" does nothing on %s page %d (%s)%s", where, t,
                     pg ? a->s->course.lessons[a->s->lesson].id : "this", a->s->page + 1,
                     pg ? pg->title : "no page", a->overlay ? " with an overlay open" : "");
            return -1;
        }
        press(a, k);
    }
    if (p) { /* the caption belongs to this step: it leaves with it */
        if (s->caption[0]) {
            snprintf(p->caption, sizeof p->caption, "%s", s->caption);
            p->cap_on = 1;
        } else if (!s->demo[0]) {
            p->cap_on = 0;
        }
        present_mark(a, &p->mark);
    }
    return 0;
}

static int run_demo(App *a, const DemoStep *s, int depth, void (*press)(App *a, int k),
                    const char *where, char *err, size_t n)
{
    char path[1024], e2[4000];
    if (depth >= 3) {
        snprintf(err, n, "%s: \"demo\": demos nested deeper than 3 (one plays itself?)", where);
        return -1;
    }
    if (demo_resolve(s->demo, path, sizeof path)) {
        snprintf(err, n, "%s: \"demo\": no demo \"%s\" (a file, or a shipped name: attend demo "
                 "--list)", where, s->demo);
        return -1;
    }
    Demo *d = malloc(sizeof *d);
    if (!d) {
        snprintf(err, n, "%s: out of memory", where);
        return -1;
    }
    if (demo_load(d, path, e2, sizeof e2)) {
        snprintf(err, n, "%s: \"demo\": %s does not load: %s", where, s->demo, e2);
        free(d);
        return -1;
    }
    int to = s->demo_to ? s->demo_to : d->n_steps, rc = 0;
    if (to > d->n_steps) {
        snprintf(err, n, "%s: \"to\": %s has %d steps, not %d", where, s->demo, d->n_steps, to);
        free(d);
        return -1;
    }
    if (a->present)
        a->present->cap_on = 0;
    for (int i = 0; i < to && !rc; i++)
        rc = run_step(a, d, i, depth + 1, press, err, n);
    free(d);
    return rc;
}

int demo_run_step(App *a, const Demo *d, int i, void (*press)(App *a, int k), char *err, size_t n)
{
    return run_step(a, d, i, 0, press, err, n);
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
    present_mark(a, &p->mark);
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
    p->cap_on = 0;
    if (a->overlay)
        app_overlay_close(a);
    p->replaying = 1;
    run_steps(a, 0, to);
    p->replaying = 0;
    schedule(a);
}

int demo_suspended(const App *a)
{
    const Present *p = a->present;
    PlanMark now;
    if (!p || !p->demo || p->demo_pos == 0)
        return 0;
    present_mark(a, &now);
    return !present_mark_same(&now, &p->mark);
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
