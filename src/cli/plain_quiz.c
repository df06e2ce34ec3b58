/* plain_quiz.c - the quiz in plain mode (plain.h): the current lesson's questions (quiz.h,
 * answers computed by the engine) run by the one quiz session the player's quiz screen runs
 * too (quiz_session.h: hints, tries, results recorded once and saved, the tally, the
 * lesson's score), asked and answered as lines. */
#include <stdlib.h>
#include <string.h>

#include "plain.h"
#include "quiz.h"
#include "quiz_session.h"

static void say_item(Plain *p, const QuizItem *it, int i, int n)
{
    plain_sayf(p, "Question %d of %d (%s):", i + 1, n, quiz_kind_name(it->kind));
    if (it->lead[0])
        plain_say(p, it->lead);
    plain_say(p, it->prompt);
    if (it->context[0])
        plain_sayf(p, "Setup: %s", it->context);
    for (int c = 0; c < it->n_choices; c++)
        plain_sayf(p, "%d) %s", c + 1, it->choices[c]);
    if (it->kind == QK_CELL && it->grid_n) {
        plain_sayf(p, "Weights of the question's run; row %d (%s) is asked, answer with a key "
                      "position from 0:", it->row, it->grid_rows[it->row]);
        for (int r = 0; r < it->grid_n; r++) {
            char line[1200];
            size_t k = (size_t)snprintf(line, sizeof line, "row %d, %s:", r, it->grid_rows[r]);
            for (int c = 0; c < it->grid_m && k < sizeof line; c++)
                k += (size_t)snprintf(line + k, sizeof line - k, it->grid_masked[r * it->grid_m + c]
                                      ? " %d %s masked," : " %d %s %.2f,", c, it->grid_cols[c],
                                      (double)it->grid[r * it->grid_m + c]);
            plain_say(p, line);
        }
    }
    plain_say(p, "Type your answer, ? for a hint, skip, or q to leave the questions.");
}

static void say_answer(Plain *p, const QuizItem *it)
{
    plain_sayf(p, "The answer: %s", it->answer);
    if (it->explain[0])
        plain_sayf(p, "Why: %s", it->explain);
}

/* Asks the question of the run q. Returns 0 to go on, 1 when the learner left, 2 at the end
 * of input. */
static int ask(Plain *p, QuizSession *q)
{
    const QuizItem *it = quiz_session_item(q);
    char *line = NULL, msg[700], hint[700];
    size_t cap = 0;
    int rc = 0;
    say_item(p, it, q->cur, q->set->n);
    for (;;) {
        if (getline(&line, &cap, stdin) < 0) {
            rc = 2;
            break;
        }
        line[strcspn(line, "\r\n")] = '\0';
        char *a = line;
        while (*a == ' ')
            a++;
        if (!strcmp(a, "q") || !strcmp(a, "quit")) {
            rc = 1;
            break;
        }
        if (!strcmp(a, "?") || !strcmp(a, "hint")) {
            if (quiz_session_hint(q, hint, sizeof hint))
                plain_sayf(p, "Hint %d: %s", q->hints, hint);
            else
                plain_say(p, "No more hints for this question.");
            continue;
        }
        if (!strcmp(a, "skip") || !strcmp(a, "tab") || (q->tries && !strcmp(a, "show"))) {
            if (!strcmp(a, "show"))
                say_answer(p, it);
            else
                plain_say(p, "Skipped.");
            quiz_session_skip(q);
            break;
        }
        QuizVerdict v = quiz_session_answer(q, a, msg, sizeof msg);
        if (v == QV_INVALID) {
            plain_sayf(p, "%s Try again.", msg);
            continue;
        }
        if (v == QV_RIGHT) {
            plain_sayf(p, strncmp(msg, "Right", 5) ? "Right. %s" : "%s", msg);
            if (it->explain[0])
                plain_sayf(p, "Why: %s", it->explain);
            quiz_session_next(q);
            break;
        }
        plain_sayf(p, "Not right: %s Type another answer to try again, ? for a hint, show for "
                      "the answer, or skip.", msg);
    }
    free(line);
    return rc;
}

int plain_quiz(Plain *p, const char *start_id)
{
    QuizSet set;
    QuizSession q;
    QuizTally t;
    char err[600];
    int rc = quiz_session_lesson(&q, &set, p->s, start_id, err, sizeof err);
    if (rc < 0) {
        plain_sayf(p, "No questions: %s", err);
        return 0;
    }
    if (rc == 1)
        plain_sayf(p, "No question \"%s\" in this lesson; starting at the first.", start_id);
    plain_sayf(p, "Questions of %s: %d.", p->s->course.lessons[p->s->lesson].title, set.n);
    rc = 0;
    while (!rc && quiz_session_item(&q))
        rc = ask(p, &q);
    quiz_session_end(&q, &t);
    if (q.save_err[0])
        plain_sayf(p, "Results not saved: %s", q.save_err);
    plain_sayf(p, "Questions done: %d right of %d answered, %d hint%s. Back on page %d.",
               t.right, t.asked, t.hints, t.hints == 1 ? "" : "s", p->s->page + 1);
    quiz_set_free(&set);
    if (rc == 2)
        plain_say(p, session_progress_saved(p->s) ? "End of input. Progress is saved."
                                                  : "End of input.");
    return rc == 2;
}
