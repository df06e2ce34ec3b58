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
} PlanHooks;

/* A plan's state between steps: the current step's caption and the screen it was left on. */
typedef struct {
    char caption[300];     /* the caption of the step that set one ("" none) */
    int cap_on;            /* 1: it belongs to the current step */
    SessionMark mark;      /* where the last step (or replay) left the screen */
    int replaying;         /* 1: a replay (b, back to the plan): no class quiz is asked */
} PlanState;

/* Runs step i of d on s through h (NULL: headless, every hook the Session's own): a nested
 * demo's steps, a class quiz, its page, its sentence, its keys (each checked to mean
 * something where it is pressed, none quitting), then its caption and mark in ps (NULL:
 * none kept) and the state it declares it expects. 0, or -1 with one message in err
 * ("FILE:LINE:COL: step N: ..."): the first problem; a step that did not load is skipped. */
int session_plan_step(Session *s, const Demo *d, int i, const PlanHooks *h, PlanState *ps,
                      char *err, size_t n);
/* Checks the state step i of d declares it expects against s. 0 (or nothing declared), or
 * -1 with "FILE:LINE:COL: step N: expect: ..." in err naming the field's position, what
 * was expected and what the screen has, every field that differs. */
int session_plan_expect(const Session *s, const Demo *d, int i, char *err, size_t n);
/* The caption to show: ps's, while the screen (now) is still the one its step left; NULL. */
const char *session_plan_caption(const PlanState *ps, const SessionMark *now);
/* The state a step is compared on, in words ("page causal-mask:2, mask causal, PE learned,
 * layer 0, head 0, sentence \"the cat sat\""), as --plain prints it. Returns out. */
const char *session_plan_state_words(const Session *s, char *out, size_t n);

#endif
