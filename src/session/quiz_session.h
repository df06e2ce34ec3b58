/* quiz_session.h - one run through a set of questions, below both quiz screens (the player's
 * quiz overlay, src/tui/view_quiz.c, and plain mode's, src/cli/plain_quiz.c): the question
 * asked, its hints and tries, each question's result recorded once (at its first answer or
 * skip) into the progress file and saved, the tally, and the per-lesson scores at the end.
 * The screens only show it and read answers. No curses, no printing. */
#ifndef ATTEND_QUIZ_SESSION_H
#define ATTEND_QUIZ_SESSION_H

#include <stddef.h>

#include "progress.h"
#include "quiz.h"
#include "quiz_answer.h"

/* How a quiz went (attend quiz, Q in the player, plain mode's quiz). */
typedef struct {
    int asked;       /* questions answered or skipped */
    int right;       /* right at the first try (hints allowed) */
    int hints;       /* hints shown */
    int skipped;
    int quit;        /* 1: left before the end */
} QuizTally;

typedef struct {
    const QuizSet *set;
    Progress *prog;           /* NULL: nothing is saved */
    int scores;               /* 1: each lesson's score is recorded at the end */
    int cur;                  /* the question asked (set->n: done) */
    int hints;                /* hints shown for it */
    int tries;                /* wrong answers to it */
    int recorded;             /* its result is recorded */
    char last[256];           /* the last answer judged wrong ("" none): the hints speak to
                                 a wrong choice first (quiz_hint_after) */
    QuizTally tally;
    QuizResult *res;          /* (set->n) how each question went */
    int *done;                /* (set->n) 1 once recorded */
    char save_err[300];       /* the first save that failed, "" when none */
} QuizSession;

/* Starts a run through set (which must outlive q) at its first question. 0, or -1 when out
 * of memory. */
int quiz_session_start(QuizSession *q, const QuizSet *set, Progress *prog, int scores);
/* The question asked, NULL after the last. */
const QuizItem *quiz_session_item(const QuizSession *q);
/* The next hint of the question in buf (n bytes), after a wrong choice that choice ruled out
 * first (quiz_hint_after): 1, or 0 when it has no more. */
int quiz_session_hint(QuizSession *q, char *buf, size_t n);
/* Judges answer: QV_INVALID (not counted: msg says why), QV_RIGHT or QV_WRONG; the first
 * answer counted is recorded (right, right with hints, or wrong). msg: quiz_check's words. */
QuizVerdict quiz_session_answer(QuizSession *q, const char *answer, char *msg, size_t n);
/* Skips the question (recorded as skipped unless already answered) and moves on. */
void quiz_session_skip(QuizSession *q);
/* Moves on to the next question. */
void quiz_session_next(QuizSession *q);
struct Session;
/* Q on a page (the player's quiz overlay, plain mode's quiz): the current lesson's questions
 * built into set (a fresh seed) and a run q started through them, at the question start_id
 * names, else at the page's first question (a practice page names them), with the
 * Session's progress when it is kept. 0; 1 when start_id names no question of the lesson
 * (started at the first); -1 with a message in err (no questions, out of memory: nothing
 * to free). On 0 or 1, quiz_session_end(q) then quiz_set_free(set). */
int quiz_session_lesson(QuizSession *q, QuizSet *set, struct Session *s, const char *start_id,
                        char *err, size_t n);
/* Ends the run: the tally (quit when questions were left), the per-lesson scores recorded
 * and saved; frees what q holds. */
void quiz_session_end(QuizSession *q, QuizTally *t);

#endif
