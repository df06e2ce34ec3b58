/* quiz_schedule.h - scores and the Leitner review schedule, kept in the progress slot
 * QUIZ_SLOT (docs/quiz.md): what a session records and what the review asks next. The slot's
 * JSON is read and written here only. No curses, no printing. */
#ifndef ATTEND_QUIZ_SCHEDULE_H
#define ATTEND_QUIZ_SCHEDULE_H

#include <stddef.h>

#include "progress.h"
#include "quiz_item.h"

#define QUIZ_BOXES 5
/* Days until a question in box b (1..QUIZ_BOXES) is due again: 0 1 3 7 21. */
extern const int QUIZ_BOX_DAYS[QUIZ_BOXES + 1];

/* How one question went in a session. */
typedef enum { QR_RIGHT, QR_RIGHT_HINTED, QR_WRONG, QR_SKIPPED } QuizResult;

/* Records one result: moves the question's Leitner box (right first time: up one box;
 * right with hints: same box; wrong or skipped: box 1, due at once) and sets its due time
 * from now. 0, or -1 with a message (p is unchanged then). */
int quiz_record(Progress *p, const char *key, QuizResult r, long now, char *err,
                size_t errlen);
/* Records a finished session's score for a lesson: right out of asked, with hints used. */
int quiz_record_score(Progress *p, const char *lesson, int right, int asked, int hints,
                      long now, char *err, size_t errlen);
/* The last score of a lesson: 0 with right and asked filled, -1 if none. */
int quiz_score(const Progress *p, const char *lesson, int *right, int *asked);
/* A question's box (1..QUIZ_BOXES) and due time: 0, or -1 if never scheduled. */
int quiz_schedule(const Progress *p, const char *key, int *box, long *due);
/* Number of scheduled questions due at now. */
int quiz_due_count(const Progress *p, long now);
/* Number of scheduled questions, with the soonest due time of all of them in *next (-1 when
 * none is scheduled). */
int quiz_scheduled(const Progress *p, long *next);

/* One scheduled question due for review. */
typedef struct {
    char key[100];           /* "lessonid/questionid" */
    long due;
} QuizDue;

/* Every scheduled question due at now, most overdue first (ties by key); *n set. The caller
 * frees the array; NULL when out of memory. */
QuizDue *quiz_due_list(const Progress *p, long now, int *n);

#endif
