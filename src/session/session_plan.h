/* session_plan.h - a lecture plan (demo.h, docs/demos.md) as a sequence of Session steps:
 * the one step runner (open a page, type a sentence, press keys, a nested demo, a class
 * quiz, a caption), the state a step declares it expects ("expect": page, mask, PE, layer,
 * head, sentence) checked after it runs, and the mark a caption is bound to (a digest of the
 * Session's state on screen). A front end hands hooks for what it does its own way (the
 * presenter presses keys through its dispatch, opens overlays, asks a class quiz with a
 * room); without them the runner drives the Session alone, headless (attend demo --plain,
 * the tests). No curses, no printing. */
#ifndef ATTEND_SESSION_PLAN_H
#define ATTEND_SESSION_PLAN_H

#include <stddef.h>

#include "demo.h"
#include "session.h"

/* Where a plan's step left the screen: the page and a digest of the state on it. */
typedef struct {
    int lesson, page;
    unsigned long long sig;
} SessionMark;

/* The Session's mark now: the page and a digest of the controls, order, layer/head, cross,
 * scores, every-head view, knock-outs, sentence and target, the explanation widget's state. */
void session_mark(const Session *s, SessionMark *m);
/* Mixes a front end's own part of the screen (v: the player's focused pane) into m. */
void session_mark_mix(SessionMark *m, long long v);
/* 1 when two marks are the same screen. */
int session_mark_same(const SessionMark *x, const SessionMark *y);

/* What a front end does its own way while a step runs; a NULL hook: the Session's own. */
typedef struct {
    void *ctx;
    /* opens page of lesson (0-based), closing what covers it */
    void (*open)(void *ctx, int lesson, int page);
    /* types sentence into the page's sentence editor (its keys: the badge, the notes) */
    void (*type)(void *ctx, const char *sentence);
    /* presses key k where the screen is now */
    void (*press)(void *ctx, int k);
    /* 1 when k means something where it would be pressed (overlay, widget, controls,
     * global keys, the presenter's B, F, R) */
    int (*used)(void *ctx, int k);
    /* 1 when k would end the session where it is pressed (q, Ctrl-C) */
    int (*quits)(void *ctx, int k);
    /* 1 when the front end has quit (a key ended it) */
    int (*ended)(void *ctx);
    /* 1 when an overlay covers the page (for a key's message) */
    int (*overlay)(void *ctx);
    /* a "quiz" step (st; where: "FILE:LINE:COL: step N"); now: 0 when a replay passes it
     * (a class quiz is an event: asked once, never again in a replay). 0, or -1 with err */
    int (*quiz)(void *ctx, const DemoStep *st, int now, const char *where, char *err, size_t n);
    /* the mark with the front end's own part (session_mark_mix) */
    void (*mark)(void *ctx, SessionMark *m);
    /* closes what covers the page (an overlay the teacher opened) before a step runs */
    void (*uncover)(void *ctx);
    /* 1 when the widget has the whole screen (z), for "expect": "focus" */
    int (*focus)(void *ctx);
} PlanHooks;

/* A plan's state between steps: the current step's caption and the screen it was left on. */
typedef struct {
    char caption[300];     /* the caption of the step that set one ("" none) */
    int cap_on;            /* 1: it belongs to the current step */
    SessionMark mark;      /* where the last step (or replay) left the screen */
    int replaying;         /* 1: a replay (b, back to the plan): no class quiz is asked */
    int focus;             /* headless: z gave the widget the screen (the player's pane) */
} PlanState;

/* A plan played (the one plan machine of the presenter, plain mode and the headless run):
 * the script, how far it got, the current step's caption and mark, --auto's schedule. */
typedef struct SessionPlanS {
    Demo *demo;            /* the script (owned: session_plan_load / _free); NULL: none */
    int pos;               /* steps run so far (the current step is pos, from 1) */
    PlanState st;          /* the current step's caption and where it left the screen */
    double auto_s;         /* --auto: a step every auto_s seconds (plus a step's pause); 0 */
    int paused;            /* 1: --auto holds its steps (P) */
    long long next_ms;     /* when --auto runs the next step (the front end's clock, ms) */
    char name[300];        /* how a recording names it: a shipped plan's name, else its path */
} SessionPlan;

/* What space or b did (session_plan_space, session_plan_back). */
typedef enum {
    PLAN_STEPPED,  /* the next step ran */
    PLAN_RESUMED,  /* the plan had been left (G, a page, keys): its step was replayed */
    PLAN_BACK,     /* b: the steps before the current one were replayed */
    PLAN_AT_END,   /* space after the last step: nothing ran */
    PLAN_AT_FIRST, /* b on the first step: nothing ran */
} PlanMove;

/* Loads the plan at path (demo_load: every problem at once) into p, not run yet. auto_s:
 * --auto's seconds (0: space steps). 0, or -1 with the messages in err (p holds nothing). */
int session_plan_load(SessionPlan *p, const char *path, double auto_s, char *err, size_t n);
/* Frees what p holds (nothing held: nothing). */
void session_plan_free(SessionPlan *p);
/* 1 when the plan has run a step and the screen is no longer where it left it (G, a page
 * turn, keys): space returns to the plan's own step first. */
int session_plan_suspended(Session *s, const SessionPlan *p, const PlanHooks *h);
/* Space: back to the plan's step when it was left (replayed from the start), else its next
 * step. now_ms: the front end's clock, for --auto. Problems, one a line
 * ("FILE:LINE:COL: step N: ..."), in err ("" none). */
PlanMove session_plan_space(Session *s, SessionPlan *p, const PlanHooks *h, long long now_ms,
                            char *err, size_t n);
/* b: the plan one step back (steps 1..pos-1 replayed from the start; a class quiz is not
 * asked again). As session_plan_space. */
PlanMove session_plan_back(Session *s, SessionPlan *p, const PlanHooks *h, long long now_ms,
                           char *err, size_t n);
/* --auto: runs the next step when its time has come, the plan is neither paused nor left
 * and covered is 0 (an overlay is open); 1 when a step ran (problems in err). */
int session_plan_tick(Session *s, SessionPlan *p, const PlanHooks *h, long long now_ms,
                      int covered, char *err, size_t n);
/* P: pauses or resumes --auto; 1 when it is paused now, -1 when the plan has no --auto. */
int session_plan_pause(SessionPlan *p, long long now_ms);
/* "step 3/11", with " (left: space returns)" when suspended. Returns out. */
const char *session_plan_status(Session *s, const SessionPlan *p, const PlanHooks *h,
                                char *out, size_t n);
/* What space does next, for the teacher's notes: "back to the plan: step 3/11" when it was
 * left, else the next step's words (demo_step_words), "" after the last. Returns out. */
const char *session_plan_next_words(Session *s, const SessionPlan *p, const PlanHooks *h,
                                    char *out, size_t n);
/* Runs every step of d on s headless (no hooks: no overlay, no file written, no room, no
 * progress), as --check and demo --plain do. every: called after each step with its index,
 * its problem ("" none) and arg (NULL: none). The number of steps that failed. */
int session_plan_run_all(Session *s, const Demo *d, PlanState *ps,
                         void (*every)(void *arg, const Session *s, const Demo *d, int i,
                                       const PlanState *ps, const char *problem),
                         void *arg, char *err, size_t n);

/* Runs step i of d on s through h (NULL: headless, every hook the Session's own): a nested
 * demo's steps, a class quiz, its page, its sentence, its keys (each checked to mean
 * something where it is pressed, none quitting), then its caption and mark in ps (NULL:
 * none kept) and the state it declares it expects. 0, or -1 with one message in err
 * ("FILE:LINE:COL: step N: ..."): the first problem; a step that did not load is skipped. */
int session_plan_step(Session *s, const Demo *d, int i, const PlanHooks *h, PlanState *ps,
                      char *err, size_t n);
/* Checks the state step i of d declares it expects against s (focus: the front end's
 * focused pane, 1 when z gave the widget the screen; -1: it has none). 0 (or nothing
 * declared), or -1 with "FILE:LINE:COL: step N: expect: ..." in err naming the field's
 * position, what was expected and what the screen has, every field that differs. */
int session_plan_expect(const Session *s, const Demo *d, int i, int focus, char *err, size_t n);
/* The caption to show: ps's, while the screen (now) is still the one its step left; NULL. */
const char *session_plan_caption(const PlanState *ps, const SessionMark *now);
/* The state a step is compared on, in words ("page causal-mask:2, mask causal, PE learned,
 * layer 0, head 0, sentence \"the cat sat\""), as --plain prints it. Returns out. */
const char *session_plan_state_words(const Session *s, char *out, size_t n);

#endif
