/* present.h - presenter mode (present.c): the options the player shares with it, the
 * presenter's state (the key echo badge, the state published for `attend notes`
 * (present_state.h), the demo played, --record), and the loop's hooks. */
#ifndef ATTEND_PRESENT_H
#define ATTEND_PRESENT_H

#include <stddef.h>

#include <stdio.h>

#include "app.h"
#include "demo.h"
#include "fileio.h"
#include "present_state.h"
#include "session_plan.h"
#include "quiz.h"
#include "tui.h"

typedef struct {
    int presenter;       /* 1: attend present */
    int theme;           /* UI_THEME_* or UI_THEME_AUTO */
    int page;            /* --page N (1-based); 0: where the player would start */
    const char *record;  /* --record FILE: write the session as a demo script */
    const char *demo;    /* attend demo FILE: play that script (presenter mode) */
    double auto_s;       /* attend demo --auto S: a step every S seconds; 0: Space steps */
} PresentOpts;

/* The theme to start curses with: auto resolved from COLORFGBG (projector for a presenter
 * on a dark or unknown background, dark for the player). */
int present_theme(const PresentOpts *o);
/* After app_load: jumps to --page, and in presenter mode allocates a->present and publishes
 * the first state. 0, or -1 with a message (a page that does not exist). */
int present_start(App *a, const PresentOpts *o, char *err, size_t n);
/* Handles one key as app_key does, then (presenter) sets the echo badge and publishes. */
void present_key(App *a, int k);
/* Handles key k as the presenter does (app_key, the badge, the notes, --record), without a
 * plan's space and b: a plan's steps press their keys through it. */
void present_press(App *a, int k);
/* Called when no key came: 1 if the screen must be redrawn (the badge expired). */
int present_tick(App *a);
/* 1 in presenter mode (attend present, attend demo). */
int app_presenting(const App *a);
/* --record: closes the script and renames it over FILE (fileio.h). 0 (or no recording),
 * or -1 with a message naming FILE: a write error, and FILE is left as it was. */
int present_record_end(App *a, char *err, size_t n);
/* Removes the published state, ends a recording (present_record_end) and frees a->present. */
void present_end(App *a);

/* Where a plan's step left the screen: the page and a signature of the state on it (the
 * controls, the sentence, layer and head...). A caption shows, and the plan goes on, only
 * while the screen is still there. */
typedef SessionMark PlanMark;

/* The screen's mark now (demo_play.c). */
void present_mark(const App *a, PlanMark *m);
/* 1 when two marks are the same screen. */
int present_mark_same(const PlanMark *x, const PlanMark *y);
/* The caption to show: the current step's, while the screen is still the one it left; NULL
 * when none. */
const char *present_caption(const App *a);
/* Publishes the presenter's state for attend notes again (after the page changed outside a
 * key: --model's first page). */
void present_publish(App *a);

/* 1 when R is on and the page has paragraphs not shown yet (space shows the next first). */
int present_reveal_pending(App *a);

/* The presenter's state, reached through App.present (NULL in the player). */
typedef struct Present {
    int presenter;       /* 1: attend present (0: the player recording with --record) */
    char echo[200];      /* the key echo badge ("m  causal mask on"), "" when none */
    long long echo_until; /* when it goes (monotonic ms) */
    char dir[512];       /* where the state is published; "" when it cannot be */
    PresentState st;
    /* attend demo, attend present --plan (demo_play.c over the plan machine) */
    SessionPlan plan;    /* the plan played (plan.demo NULL: none), where it stands */
    void (*demo_press)(App *a, int k); /* how a step presses a key (present_dispatch) */
    void (*demo_moved)(App *a, int to); /* the plan now stands at step to (--record) */
    QuizSet *quiz;       /* a plan's class quiz being asked (owned), NULL when none */
    int quiz_shown;
    TuiClassRoom room;   /* its room of students */
    int rec_mute;        /* >0: a plan's steps run: their keys are not recorded, its
                            position is (rec_plan_to) */
    int rec_plan_to;     /* a plan position to record before anything else (0: none) */
    /* the room's screen */
    int blank;           /* B: the room sees a blank screen */
    int frozen;          /* F: the room's screen keeps its last frame */
    int reveal;          /* R: space shows the prose a paragraph at a time */
    int shown, shown_lesson, shown_page; /* paragraphs shown of that page */
    /* --record FILE: written to an exclusive temp file renamed over FILE at the end */
    FileioTmp rec_tmp;
    FILE *rec;           /* rec_tmp's stream, NULL when not recording */
    int rec_steps, rec_lesson, rec_page;
    char rec_keys[256];  /* keys pressed on the recorded page since its open step */
    int rec_edit;        /* 1: the sentence editor is open (its keys become a type step) */
    char rec_sentence[ATTEND_MAX_SENTENCE]; /* the sentence when the editor opened */
} Present;


/* With R (reveal) on: the bytes of the prose to show (the paragraphs revealed so far);
 * -1: all of it. */
int present_prose_cut(const App *a);

/* The badge to show in the footer, NULL when none. */
const char *present_echo(const App *a);
/* Goes to page spec ("N" in the current lesson, "lesson-id:N" or "lesson-number:N"). 0, or
 * -1 with a message. */
int present_goto(App *a, const char *spec, char *err, size_t n);

#endif
