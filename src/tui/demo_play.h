/* demo_play.h - attend demo (demo_play.c): a demo script played in presenter mode, its keys
 * pressed through the function the presenter hands it. */
#ifndef ATTEND_DEMO_PLAY_H
#define ATTEND_DEMO_PLAY_H

#include <stddef.h>

#include "present.h"

/* Loads the script at path and runs its first step, pressing each key of a step with press
 * (the presenter's dispatch, so the badge and the notes follow); 0, or -1 with a message. */
int demo_start(App *a, const char *path, double auto_s, void (*press)(App *a, int k), char *err,
               size_t n);
/* 1 when key k means something where it would be pressed now (the open overlay's keymap,
 * the page's widget, the controls the page allows, the global keys): what a plan step
 * accepts in the presenter and --record records. */
int demo_key_used(App *a, int k);
/* Space runs the next step, b goes back one (replaying from the start); 1 if k was one. */
int demo_key(App *a, int k);
/* --auto: runs the next step when its time has come; 1 if the screen changed. */
int demo_tick(App *a);
/* "step 3/11" in buf while a demo is played, else NULL. */
const char *demo_status(const App *a, char *buf, size_t n);
/* Runs step i of demo d on a (no screen needed), pressing its keys with press: opens its
 * page, types its sentence, presses its keys, checking each means something where it is
 * pressed. 0, or -1 with a message (FILE:LINE:COL: step N: ...) in err. */
int demo_run_step(App *a, const Demo *d, int i, void (*press)(App *a, int k), char *err, size_t n);
/* 1 when a plan plays and the screen is no longer where its last step left it (G, a page
 * turn, keys): space returns to the plan's step first. */
int demo_suspended(const App *a);
/* What space does next, for the notes ("back to the plan: step 3/11", the next step's
 * words), in buf; NULL when no plan plays. */
const char *demo_next_words(const App *a, char *buf, size_t n);
/* Frees the demo a->present plays (none: nothing). */
void demo_free(App *a);

#endif
