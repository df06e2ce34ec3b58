/* quiz_key.c - a question's expected answer as a teacher's key states it (with the tolerance,
 * the row of a cell question, the other accepted texts): shared by `attend quiz --answers`
 * and the handout. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "quiz.h"

const char *quiz_key_answer(const QuizItem *it, char *ans, size_t n)
{
    size_t al = strlen(it->answer);
    if (it->kind == QK_NUMBER && it->tol > 0 && !isinf(it->number) && al &&
        it->answer[al - 1] == ')') /* "0.000004 (essentially 0; within 0.005)" */
        snprintf(ans, n, "%.*s; within %g)", (int)al - 1, it->answer, it->tol);
    else if (it->kind == QK_NUMBER && it->tol > 0 && !isinf(it->number))
        snprintf(ans, n, "%s (within %g)", it->answer, it->tol);
    else if (it->kind == QK_CELL)
        snprintf(ans, n, "%s of row %d", it->answer, it->row);
    else if (it->kind == QK_TEXT && it->n_text > 1) {
        size_t k = (size_t)snprintf(ans, n, "%s (also accepted:", it->answer);
        for (int t = 1; t < it->n_text && k < n; t++)
            k += (size_t)snprintf(ans + k, n - k, "%s \"%s\"", t > 1 ? "," : "", it->text[t]);
        if (k < n)
            snprintf(ans + k, n - k, ")");
    } else
        snprintf(ans, n, "%s", it->answer);
    return ans;
}
