/* quiz.h - the quiz engine: question checking (docs/lessons.md "Questions"), answers
 * computed by the engine on each question's own state, seeded drills, answer checking for
 * every kind, and the Leitner review schedule and scores kept in a progress slot
 * (docs/quiz.md). No curses, no printing, no exit(). */
#ifndef ATTEND_QUIZ_H
#define ATTEND_QUIZ_H

#include <stddef.h>
#include <stdint.h>

#include "lesson.h"
#include "progress.h"

typedef enum { QK_CHOICE, QK_MULTI, QK_NUMBER, QK_SHAPE, QK_CELL, QK_TEXT, QK_DRILL,
               QK__COUNT } QuizKind;

#define QUIZ_MAX_CHOICES 8
#define QUIZ_MAX_HINTS 4
#define QUIZ_MAX_TEXT 6      /* accepted free-text answers */
#define QUIZ_MAX_RANK 4
#define QUIZ_GRID_MAX 16     /* cell questions: the weights shown are at most 16×16 */
#define QUIZ_SLOT "quiz"     /* the progress slot holding scores and the schedule */

/* One question ready to ask: prompt expanded, answer computed. Plain data, no pointers. */
typedef struct {
    char key[100];           /* "lessonid/questionid": scores and the schedule use it */
    char lesson[48];         /* lesson id ("" for a stand-alone drill) */
    int lesson_index;        /* into Course.lessons, -1 for none */
    QuizKind kind;           /* never QK_DRILL: a drill becomes the kind it generates */
    char drill[32];          /* the drill's name when generated, else "" */
    char lead[1200];          /* a drill question's own prompt, shown above the drill */
    char prompt[1200];       /* expanded, UTF-8 */
    char context[400];       /* the setup the engine answered on, one line ("" when the answer
                                is not computed): "Sentence \"the cat sat\"; mask causal; PE
                                none; layer 0 of 2, head 1 of 4" (layers and heads from 0) */
    char explain[800];
    int n_hints;
    char hints[QUIZ_MAX_HINTS][300];
    int n_choices;
    char choices[QUIZ_MAX_CHOICES][200];
    unsigned correct;        /* choice / multi: bit i set when choice i is right */
    double number;           /* number: the expected value (may be ±inf for masked scores) */
    double tol;              /* number: absolute tolerance */
    int rank, dims[QUIZ_MAX_RANK]; /* shape */
    int row, col, n_cols;    /* cell: the query row, the right key column, columns */
    int n_text;
    char text[QUIZ_MAX_TEXT][100]; /* text: accepted answers, already normalised */
    char answer[200];        /* the expected answer as shown to the learner */
    /* cell questions: the weights of the question's state, for the grid */
    int grid_n, grid_m;
    float grid[QUIZ_GRID_MAX * QUIZ_GRID_MAX];
    char grid_rows[QUIZ_GRID_MAX][24], grid_cols[QUIZ_GRID_MAX][24];
} QuizItem;

typedef enum { QV_RIGHT, QV_WRONG, QV_INVALID } QuizVerdict;

/* ---- question schema (the loader's hook) ---- */

/* Name of a kind ("choice", ...) and the reverse (-1 if unknown). */
const char *quiz_kind_name(QuizKind k);
int quiz_kind_parse(const char *s);
/* Checks one question object (JSON text) against docs/lessons.md "Questions": the keys
 * each kind needs and allows, their types and ranges, known drill names. Answers that need
 * the engine are checked by check-lessons through the placeholders. 0, or -1 with a
 * message in err. */
int quiz_check_question(const char *json, char *err, size_t errlen);

/* ---- answers ---- */

/* Normalises free text the way text answers are compared: ASCII letters lowercased,
 * leading/trailing spaces, quotes and final . ! ? removed, inner runs of spaces (and - _)
 * turned into one space. Returns out. */
const char *quiz_normalise(const char *in, char *out, size_t outlen);
/* Parses a number as a learner types it: "0.25", "-1e-3", ".5", "1/3", "−0.5", and for
 * expected infinities "-inf" / "−∞". Returns 0, or -1 with a message saying what is wrong
 * (empty, not a number, NaN, infinite, too large). */
int quiz_parse_number(const char *s, int allow_inf, double *out, char *msg, size_t msglen);
/* Parses a shape: "6x64", "6×64", "6 x 64", "[6, 64]", "(6, 64)", "6,64". Returns the rank
 * (1..QUIZ_MAX_RANK) with dims filled, or -1 with a message. */
int quiz_parse_shape(const char *s, int *dims, char *msg, size_t msglen);
/* Judges an answer. QV_INVALID means it could not be read (empty, garbage, NaN, a shape of
 * the wrong rank, a choice out of range): msg says why and the learner should try again;
 * it is never counted. QV_RIGHT / QV_WRONG come with a short msg. */
QuizVerdict quiz_check(const QuizItem *it, const char *answer, char *msg, size_t msglen);
/* The hint number h (0-based) for an item: the author's hints first, then automatic ones
 * (a wrong choice ruled out, how many choices are right, the tolerance, the rank of a
 * shape, the first letter). NULL when there are no more. Written to out. */
const char *quiz_hint(const QuizItem *it, int h, char *out, size_t outlen);
/* Number of hints quiz_hint can give for it. */
int quiz_hint_count(const QuizItem *it);

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

/* ---- building quizzes ---- */

/* Fills it from question qi of page pi of lesson li: parses the JSON, runs the engine on the
 * page's state with the question's "state" overrides, evaluates "compute" and the prompt's
 * placeholders. A drill question generates its drill from seed (the same seed and key give
 * the same drill). 0, or -1 with a message. */
int quiz_item_from_question(QuizItem *it, const Course *c, int li, int pi, int qi,
                            uint64_t seed, char *err, size_t errlen);
/* Names of the drills (NULL-terminated) and one line describing each. */
extern const char *const QUIZ_DRILLS[];
const char *quiz_drill_about(const char *name);
/* Generates drill name with parameters drawn from seed; c supplies sentences and the model
 * for the drills that run the engine (the first decoder model of a course page with a
 * sentence). 0, or -1 with a message. */
int quiz_drill(QuizItem *it, const char *name, const Course *c, uint64_t seed, char *err,
               size_t errlen);

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
/* The expected answer of it as the teacher's key states it (quiz_key.c): with a number's
 * tolerance, a cell's row, a text's other accepted answers. Written to out; returns out. */
const char *quiz_key_answer(const QuizItem *it, char *out, size_t outlen);

/* ---- scores and the Leitner schedule (progress slot QUIZ_SLOT) ---- */

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

#endif
