/* quiz.h - the quiz session: QuizItems built from a course's questions (answers computed by
 * the engine on each question's own state, through widget_run_start), quiz sets in course
 * order or seeded, the review of what the schedule says is due (docs/quiz.md). Includes the
 * quiz's other headers so a user of the quiz needs this one: quiz_question.h (the schema),
 * quiz_answer.h (checking), quiz_drill.h (drills), quiz_schedule.h (scores, Leitner boxes).
 * No curses, no printing, no exit(). */
#ifndef ATTEND_QUIZ_H
#define ATTEND_QUIZ_H

#include <stddef.h>
#include <stdint.h>

#include "course.h"
#include "progress.h"
#include "quiz_answer.h"
#include "quiz_drill.h"
#include "quiz_item.h"
#include "quiz_question.h"
#include "quiz_schedule.h"

/* Fills it from question qi of page pi of lesson li: runs the engine on the page's state
 * with the question's "state" laid over it, evaluates "compute" and the prompt's
 * placeholders. A drill question generates its drill from seed (the same seed and key give
 * the same drill). 0, or -1 with a message. */
int quiz_item_from_question(QuizItem *it, const Course *c, int li, int pi, int qi,
                            uint64_t seed, char *err, size_t errlen);

/* A list of items to ask. */
typedef struct {
    int n, cap;
    QuizItem *items;         /* owned */
    uint64_t seed;
    char title[160];         /* "Causal mask", "review", "all lessons" */
    int n_skipped;           /* questions that could not be built (see skipped) */
    char skipped[600];       /* the first such problem */
} QuizSet;

/* Builds the quiz `attend quiz` asks: every question of lesson `lesson` (an id; NULL or ""
 * for every lesson) in course order, then, when count > 0, a seeded selection of count of
 * them (a drill question may appear again with fresh numbers when count exceeds the
 * questions). Same course, lesson, count and seed: the same items in the same order. 0, or
 * -1 with a message (unknown lesson, no questions). Free with quiz_set_free. */
int quiz_build(QuizSet *s, const Course *c, const char *lesson, int count, uint64_t seed,
               char *err, size_t errlen);
/* Builds the review: every scheduled question (key lesson-id/question-id) due at `now`
 * (seconds since the epoch), most overdue first, at most count (0: all). 0 (possibly with
 * s->n == 0: nothing due), or -1 with a message. */
int quiz_build_review(QuizSet *s, const Course *c, const Progress *p, long now, int count,
                      uint64_t seed, char *err, size_t errlen);
void quiz_set_free(QuizSet *s);
/* Starts s at the question with id in lesson (the page's question, when the learner asks
 * from that page): the items are rotated so that it comes first and every other item is
 * still asked, in course order after it. 0, or -1 when s has no such question (s unchanged). */
int quiz_set_start_at(QuizSet *s, const char *lesson, const char *id);
/* The expected answer of it as the teacher's key states it (quiz_key.c): with a number's
 * tolerance, a cell's row, a text's other accepted answers. Written to out; returns out. */
const char *quiz_key_answer(const QuizItem *it, char *out, size_t outlen);

#endif
