/* quiz_question_json.h - private to the lesson loader: quiz_question.c's entry that takes the
 * parsed question object (cJSON stays in the loaders). */
#ifndef ATTEND_QUIZ_QUESTION_JSON_H
#define ATTEND_QUIZ_QUESTION_JSON_H

#include <stddef.h>

#include "course.h"
#include "json.h"

/* As quiz_question_from_text, on an already parsed object; q's id, kind_name and state are
 * left to the caller (the loader reads them with positions). On a problem, where gets the
 * path of the offending value inside the question ("why[2]"), or "" for the question. */
int quiz_question_parse(const cJSON *obj, Question *q, char *where, size_t wlen, char *err,
                        size_t errlen);

#endif
