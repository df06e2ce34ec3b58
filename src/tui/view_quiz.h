/* view_quiz.h - the quiz screen (curses): asks a QuizSet one question at a time with hints,
 * verdicts (✓/✗ glyphs, never colour alone), retry and skip; records results in the
 * progress: VIEW_QUIZ, opened by the player's Q key and by `attend quiz` (tui_quiz). */
#ifndef ATTEND_VIEW_QUIZ_H
#define ATTEND_VIEW_QUIZ_H

#include "app.h"
#include "progress.h"
#include "quiz.h"
#include "tui.h"

/* attend quiz (tui_quiz, app_main.c): opens VIEW_QUIZ in a (an App of its own, a->solo)
 * on the set s, asked one question at a time; each result is recorded in p and saved at
 * once (p may be NULL: nothing saved); when scores is 1 the per-lesson scores are recorded
 * at the end. When the quiz closes (the learner finishes or quits, or the App goes), t holds
 * the tally and save_err the first failure to save ("" when none). s, t and save_err must
 * outlive the overlay. 0, or -1 (out of memory: save_err says so). */
int view_quiz_start(App *a, QuizSet *s, Progress *p, int scores, QuizTally *t, char *save_err,
                    size_t errlen);

/* attend quiz --class (tui_class_quiz, view_class_quiz.c): opens VIEW_CLASS_QUIZ in a (an
 * App of its own, a->solo) on s, one question at a time for a room, large, with a countdown
 * of time_s seconds per question (0: none); r reveals the engine's answer and why, n moves
 * on, q quits. Publishes each question's answer for `attend notes` before it is revealed.
 * With room (NULL: none until o opens one), a room of students (class_net.h) that answer
 * from their own terminals; its report is written to room when it closes. When it closes,
 * *shown is the number of answers revealed. s, room and shown must outlive it. 0, or -1 (no
 * questions, the room could not open: app_msg says so). */
int view_class_quiz_start(App *a, QuizSet *s, int time_s, TuiClassRoom *room, int *shown);

/* Draws a cell question's weights from row y at column x, w wide, above row maxy - keep
 * (the question's row marked '>', column cursor bracketed; -1: none). Returns the next
 * free row (y when the item has no grid). */
int view_quiz_draw_grid(const QuizItem *it, int y, int x, int w, int maxy, int cursor,
                        int keep);

/* The player's Q key opens VIEW_QUIZ (app_views.h): an overlay asking every question of the
 * current lesson on the whole screen, back to the page when the learner leaves it. */

#endif
