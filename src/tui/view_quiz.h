/* view_quiz.h - the quiz screen (curses): asks a QuizSet one question at a time with hints,
 * verdicts (✓/✗ glyphs, never colour alone), retry and skip; records results in the
 * progress. Used by `attend quiz` (cmd_quiz) and by the player's Q key (VIEW_QUIZ). */
#ifndef ATTEND_VIEW_QUIZ_H
#define ATTEND_VIEW_QUIZ_H

#include <signal.h>

#include "app.h"
#include "progress.h"
#include "quiz.h"

typedef struct {
    int asked;       /* questions answered or skipped */
    int right;       /* right at the first try (hints allowed) */
    int hints;       /* hints shown */
    int skipped;
    int quit;        /* 1: left before the end */
} QuizTally;

/* Runs the quiz s on the curses screen (ui_start done). Each result is recorded in p and
 * saved at once (p may be NULL: nothing saved); when scores is 1 the per-lesson scores are
 * recorded at the end. Returns when the learner finishes or quits, or *stop becomes
 * nonzero (a signal). save_err receives the first failure to save ("" when none). */
void view_quiz_run(QuizSet *s, Progress *p, int scores, const volatile sig_atomic_t *stop,
                   QuizTally *t, char *save_err, size_t errlen);

/* attend quiz --class (view_class_quiz.c): asks s one question at a time for a room, large,
 * with a countdown of time_s seconds per question (0: none); r reveals the engine's answer
 * and why, n moves on, q quits. Publishes each question's answer for `attend notes`
 * before it is revealed. Returns the number of answers revealed. */
int view_class_quiz_run(QuizSet *s, int time_s, const volatile sig_atomic_t *stop);

/* Draws a cell question's weights from row y at column x, w wide, above row maxy - keep
 * (the question's row marked '>', column cursor bracketed; -1: none). Returns the next
 * free row (y when the item has no grid). */
int view_quiz_draw_grid(const QuizItem *it, int y, int x, int w, int maxy, int cursor,
                        int keep);

/* The player's Q key opens VIEW_QUIZ (app_views.h): an overlay asking every question of the
 * current lesson on the whole screen, back to the page when the learner leaves it. */

#endif
