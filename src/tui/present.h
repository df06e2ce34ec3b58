/* present.h - presenter mode's private state (present.c, view_goto.c, layout.c): the key
 * echo badge, the go-to-page prompt, the state published for `attend notes`
 * (present_state.h). The loop's hooks are declared in app.h (app.c does not include this
 * header, so that the module graph keeps no cycle). */
#ifndef ATTEND_PRESENT_H
#define ATTEND_PRESENT_H

#include <stddef.h>

#include <stdio.h>

#include "app.h"
#include "demo.h"
#include "fileio.h"
#include "present_state.h"

/* The presenter's state, reached through App.present (NULL in the player). */
typedef struct Present {
    int presenter;       /* 1: attend present (0: the player recording with --record) */
    char echo[200];      /* the key echo badge ("m  causal mask on"), "" when none */
    long long echo_until; /* when it goes (monotonic ms) */
    char dir[512];       /* where the state is published; "" when it cannot be */
    PresentState st;
    /* attend demo (demo_play.c) */
    Demo *demo;          /* the script played, NULL when none */
    int demo_pos;        /* steps run so far */
    double demo_auto;    /* --auto seconds, 0: Space steps */
    long long demo_next; /* when --auto runs the next step (monotonic ms) */
    char caption[300];   /* the caption row, "" when none */
    /* --record FILE: written to an exclusive temp file renamed over FILE at the end */
    FileioTmp rec_tmp;
    FILE *rec;           /* rec_tmp's stream, NULL when not recording */
    int rec_steps, rec_lesson, rec_page;
    char rec_keys[256];  /* keys pressed on the recorded page since its open step */
    int rec_edit;        /* 1: the sentence editor is open (its keys become a type step) */
    char rec_sentence[256]; /* the sentence when the editor opened */
} Present;

/* Handles key k as the presenter does (app_key, the badge, the notes), without the demo's
 * Space and b; demo steps press their keys through it. */
void present_dispatch(App *a, int k);
/* Monotonic milliseconds. */
long long present_now_ms(void);

/* ---- demo_play.c ---- */
/* Loads the script at path and runs its first step; 0, or -1 with a message. */
int demo_start(App *a, const char *path, double auto_s, char *err, size_t n);
/* 1 when key k means something where it would be pressed now (the open overlay's keymap,
 * the page's widget, the controls the page allows, the global keys): what --check accepts
 * and --record records. */
int demo_key_used(App *a, int k);
/* Space runs the next step, b goes back one (replaying from the start); 1 if k was one. */
int demo_key(App *a, int k);
/* --auto: runs the next step when its time has come; 1 if the screen changed. */
int demo_tick(App *a);
/* "step 3/11" in buf while a demo is played, else NULL. */
const char *demo_status(const App *a, char *buf, size_t n);
void demo_free(App *a);

/* The badge to show in the footer, NULL when none. */
const char *present_echo(const App *a);
/* Goes to page spec ("N" in the current lesson, "lesson-id:N" or "lesson-number:N"). 0, or
 * -1 with a message. */
int present_goto(App *a, const char *spec, char *err, size_t n);

#endif
