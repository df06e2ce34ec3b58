/* quiz_question.h - the question schema (docs/lessons.md "Questions"): question kinds by name,
 * and a question object read into the typed Question of course.h. The lesson loader reads
 * every question once, through quiz_question_json.h; nothing re-parses JSON later. */
#ifndef ATTEND_QUIZ_QUESTION_H
#define ATTEND_QUIZ_QUESTION_H

#include <stddef.h>

#include "course.h"

/* Name of a kind ("choice", ...). */
const char *quiz_kind_name(QuizKind k);
/* Names of the drills (NULL-terminated) and one line describing each (NULL if unknown). */
extern const char *const QUIZ_DRILLS[];
const char *quiz_drill_about(const char *name);
/* Reads one question object given as JSON text into q (zeroed first) with the schema's
 * checks: the keys each kind needs and allows, their types and ranges, known drill names.
 * Answers that need the engine are checked by check-lessons through the placeholders; "state"
 * is read by the lesson loader (it knows the page's model). 0, or -1 with a message in err.
 * (The loader itself hands over the parsed object: quiz_question_json.h.) */
int quiz_question_from_text(Question *q, const char *json, char *err, size_t errlen);
/* Frees what a Question owns (its state problems); q stays usable (no problems). */
void quiz_question_free(Question *q);

#endif
