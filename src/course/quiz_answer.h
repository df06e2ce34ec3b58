/* quiz_answer.h - answer checking for every question kind: reading what a learner types
 * (numbers, fractions, shapes, choices, free text), judging it against a QuizItem, hints,
 * and the expected number written with the precision the question implies. No engine. */
#ifndef ATTEND_QUIZ_ANSWER_H
#define ATTEND_QUIZ_ANSWER_H

#include <stddef.h>

#include "quiz_item.h"

typedef enum { QV_RIGHT, QV_WRONG, QV_INVALID } QuizVerdict;

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
 * (a wrong choice ruled out, with the author's "why" when given; how many choices are right, the tolerance, the rank of a
 * shape, the first letter). NULL when there are no more. Written to out. */
const char *quiz_hint(const QuizItem *it, int h, char *out, size_t outlen);
/* Number of hints quiz_hint can give for it. */
int quiz_hint_count(const QuizItem *it);
/* The choice (0-based) a typed answer picks on a choice question ("2", "b"), -1 when it
 * picks none (another kind, not one choice). */
int quiz_choice_picked(const QuizItem *it, const char *answer);
/* quiz_hint once the learner has answered given: after a wrong choice, the first hint rules
 * out that very choice with its "why", then come the author's hints and the other wrong
 * choices (never the right one, never all of the wrong ones: the same count as quiz_hint).
 * given "" or a right answer: quiz_hint. NULL when there are no more. */
const char *quiz_hint_after(const QuizItem *it, int h, const char *given, char *out,
                            size_t outlen);
/* What the learner reads once the answer is shown (after a verdict): "Expected: X    Yours:
 * Y", on a wrong choice the line "Why not N: <its why>", then the explanation; lines split by
 * '\n'. Written to out; returns its length. */
int quiz_verdict_text(const QuizItem *it, const char *given, char *out, size_t outlen);
/* Writes an expected number for display (the quiz screen and --answers) with the precision
 * the question implies: prec decimals when prec >= 0 (a placeholder's .N), else as many
 * decimals as the tolerance resolves (0.005 -> 2, 0.05 -> 1, 0.0011 -> 3), else (an exact
 * answer) the value itself without trailing zeros. A value too small for those decimals
 * prints in plain decimals and says it is essentially 0 when the tolerance covers it. */
void quiz_format_number(double v, double tol, int prec, char *out, size_t outlen);

#endif
