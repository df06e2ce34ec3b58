/* quiz_drill.h - seeded drills: deterministic random numbers and the drills a question of kind
 * "drill" (or `attend quiz`'s extra rounds) generates, answered by the engine where they read
 * a lesson sentence. No curses, no printing. */
#ifndef ATTEND_QUIZ_DRILL_H
#define ATTEND_QUIZ_DRILL_H

#include <stddef.h>
#include <stdint.h>

#include "course.h"
#include "quiz_item.h"
#include "quiz_question.h"

/* ---- deterministic random numbers (xorshift64*) ---- */
typedef struct {
    uint64_t s;
} QuizRng;
void quiz_rng_seed(QuizRng *r, uint64_t seed);
uint64_t quiz_rng_next(QuizRng *r);
/* Uniform integer in lo..hi (inclusive). */
int quiz_rng_range(QuizRng *r, int lo, int hi);
/* A stable 64-bit hash of a string mixed with a number (FNV-1a + splitmix). */
uint64_t quiz_hash(const char *s, uint64_t mix);

/* Generates drill name (QUIZ_DRILLS) with parameters drawn from seed; c supplies sentences and
 * the model for the drills that run the engine (the first decoder model of a course page with
 * a sentence). 0, or -1 with a message. */
int quiz_drill(QuizItem *it, const char *name, const Course *c, uint64_t seed, char *err,
               size_t errlen);

#endif
