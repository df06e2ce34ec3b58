/* tui.h - the terminal course player's entry point, called by main.c when attend runs with
 * no subcommand. */
#ifndef ATTEND_TUI_H
#define ATTEND_TUI_H

#include "class_net.h"
#include "course.h"
#include "progress.h"
#include "quiz.h"
#include "quiz_session.h"


/* Opens the course in the terminal. Options: --lessons DIR, --lesson ID, --page N, --theme T,
 * --ascii, --mouse, --no-mouse. Returns the process exit status; every error is printed after the terminal is
 * restored. */
int tui_main(int argc, char **argv);
/* attend present: the player in presenter mode (theme, key echo, quiet footer, state
 * published for attend notes); the player's options. Returns the exit status. */
int tui_present_main(int argc, char **argv);
/* attend quiz: asks the set s on the terminal (ASCII glyphs when ascii is 1), one question
 * at a time, on the player's loop (view_quiz.c); each result is recorded in p and saved at
 * once (p NULL: nothing saved), and with scores 1 the per-lesson scores at the end. Fills t
 * and save_err (the first failure to save, "" when none). Returns 0, 1 when the terminal
 * cannot start (err says why), or 128 + the signal that stopped it. */
int tui_quiz(QuizSet *s, Progress *p, int scores, int ascii, QuizTally *t, char *save_err,
             size_t save_errlen, char *err, size_t errlen);
/* A room of students for the class quiz (attend class serve, or o in attend quiz --class):
 * the options in, the report out. */
typedef struct {
    int open;                /* 1: open the room at the start (attend class serve) */
    ClassServerOpts o;       /* port, address, code, names */
    const char *results;     /* --results FILE: written as each question closes and at the end */
    /* filled by the class quiz */
    int opened;              /* 1: a room was opened */
    char join[160];          /* "attend class join HOST CODE", as the projector showed it */
    int students;            /* students who joined */
    int results_failed;      /* 1: --results could not be written (err says why) */
    char err[800];           /* why the room did not open, or the results were not written */
} TuiClassRoom;

/* attend quiz --class and attend class serve: asks s for a room on the terminal
 * (VIEW_CLASS_QUIZ on the player's loop), a countdown of time_s seconds per question (0:
 * none); room (NULL: none until o opens one on the defaults) opens the students' room and
 * receives its report; *shown receives the number of answers revealed. Returns 0, 1 when the
 * terminal or the room cannot start (err says why), or 128 + the signal that stopped it. */
int tui_class_quiz(QuizSet *s, int time_s, int ascii, TuiClassRoom *room, int *shown,
                   char *err, size_t errlen);
/* attend notes: follows the presenter of session (NULL: the most recent running one) until
 * q or a signal. Returns the exit status. */
int tui_notes_main(const char *session);
/* check-lessons' walk: opens every page of the course in dir (the one report was loaded
 * from) in a headless player at cols x lines, presses each control key, types `samples`
 * random sentences on pages with a sentence editor, and appends to report->problems every
 * page that does not fit (layout_plan: prose or widget cut) and every placeholder, block or
 * guard that does not resolve, with the keys that led there. Returns the number of problems
 * added, -1 on failure (out of memory, the course not loadable twice). */
int tui_check_pages(Course *report, const char *dir, int cols, int lines, int samples);

#endif
