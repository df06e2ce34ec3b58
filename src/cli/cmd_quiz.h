/* cmd_quiz.h - the terminal-free half of `attend quiz` (cmd_quiz.c), shared with its curses
 * half (src/tui/view_quiz.c, which defines cmd_quiz itself). */
#ifndef ATTEND_CMD_QUIZ_H
#define ATTEND_CMD_QUIZ_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "lesson.h"
#include "progress.h"
#include "quiz.h"

extern const char QUIZ_USAGE[];

typedef struct {
    const char *lesson;      /* --lesson ID or NULL */
    const char *dir;         /* --lessons DIR or NULL (the course's lessons/) */
    int count;               /* --count N, 0 = every question */
    uint64_t seed;           /* --seed S, or drawn from the clock */
    int have_seed;
    int review, answers, ascii;
    int klass;               /* --class: one question at a time for a room */
    int time_s;              /* --time S: the countdown per question (class quiz) */
} QuizCmd;

/* Parses the options after "quiz" (opts.h). -1 to go on, 0 after --help, 2 on a usage error
 * (message and usage printed). */
int quiz_cmd_parse(QuizCmd *o, int argc, char **argv);
/* Loads the course (o->dir or the default) and checks o->lesson. 0, or -1 with a message;
 * c is the caller's to free either way. */
int quiz_cmd_load(const QuizCmd *o, Course *c, char *err, size_t errlen);
/* Loads the learner's progress. 0 (warn may still say a corrupt file was moved aside), or
 * -1 when it cannot be saved (warn says why; p is empty and safe to use read-only). */
int quiz_cmd_progress(Progress *p, char *warn, size_t warnlen);
/* The teacher's answer key for s (plain text). */
void quiz_print_key(FILE *f, const QuizSet *s, const QuizCmd *o);
/* "Nothing is due ..." with when the next question is due. */
void quiz_print_nothing_due(FILE *f, const Progress *p, long now);

#endif
