/* plain_quiz.c - the quiz in plain mode (plain.h): the current lesson's questions built by
 * the quiz session (quiz.h, answers computed by the engine), asked one at a time as lines;
 * answers typed as lines, judged by quiz_check; hints, retries, showing the answer, skipping;
 * results and the lesson's score recorded with the progress as the quiz screen records them. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plain.h"
#include "quiz.h"

typedef struct {
    int right, asked, hints;
} Tally;

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

static void record(Plain *p, const QuizItem *it, QuizResult r, Tally *t)
{
    char err[300];
    t->asked++;
    if (r == QR_RIGHT || r == QR_RIGHT_HINTED)
        t->right++;
    if (p->prog_ok && (quiz_record(&p->prog, it->key, r, (long)time(NULL), err, sizeof err) ||
                       progress_save(&p->prog, err, sizeof err)))
        plain_sayf(p, "Result not saved: %s", err);
}

static void say_answer(Plain *p, const QuizItem *it)
{
    plain_sayf(p, "The answer: %s", it->answer);
    if (it->explain[0])
        plain_sayf(p, "Why: %s", it->explain);
}

/* Asks one item. Returns 0 to go on, 1 when the learner left, 2 at the end of input. */
static int ask(Plain *p, const QuizItem *it, int i, int n, Tally *t)
{
    char *line = NULL, msg[700], hint[700], last[256] = "";
    size_t cap = 0;
    int hints = 0, tries = 0, rc = 0;
    say_item(p, it, i, n);
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
            if (quiz_hint_after(it, hints, last, hint, sizeof hint)) {
                hints++;
                t->hints++;
                plain_sayf(p, "Hint %d: %s", hints, hint);
            } else {
                plain_say(p, "No more hints for this question.");
            }
            continue;
        }
        if (!strcmp(a, "skip") || !strcmp(a, "tab") || (tries && !strcmp(a, "show"))) {
            if (!tries)
                record(p, it, QR_SKIPPED, t);
            if (!strcmp(a, "show"))
                say_answer(p, it);
            else
                plain_say(p, "Skipped.");
            break;
        }
        QuizVerdict v = quiz_check(it, a, msg, sizeof msg);
        if (v == QV_INVALID) {
            plain_sayf(p, "%s Try again.", msg);
            continue;
        }
        if (v == QV_RIGHT) {
            if (!tries)
                record(p, it, hints ? QR_RIGHT_HINTED : QR_RIGHT, t);
            plain_sayf(p, strncmp(msg, "Right", 5) ? "Right. %s" : "%s", msg);
            if (it->explain[0])
                plain_sayf(p, "Why: %s", it->explain);
            break;
        }
        snprintf(last, sizeof last, "%s", a); /* the hints speak to this pick */
        if (!tries++)
            record(p, it, QR_WRONG, t);
        plain_sayf(p, "Not right: %s Type another answer to try again, ? for a hint, show for "
                      "the answer, or skip.", msg);
    }
    free(line);
    return rc;
}

int plain_quiz(Plain *p, const char *start_id)
{
    const Lesson *l = &p->course.lessons[p->lesson];
    QuizSet set;
    char err[600];
    if (quiz_build(&set, &p->course, l->id, 0, (uint64_t)time(NULL), err, sizeof err)) {
        plain_sayf(p, "No questions: %s", err);
        return 0;
    }
    /* from a page with questions: its first comes first (or the one named: Q ID) */
    const Page *pg = plain_page(p);
    const char *start = start_id && start_id[0] ? start_id
                        : pg && pg->n_questions ? pg->questions[0].id : NULL;
    if (start && quiz_set_start_at(&set, l->id, start) && start_id && start_id[0])
        plain_sayf(p, "No question \"%s\" in this lesson; starting at the first.", start_id);
    plain_sayf(p, "Questions of %s: %d.", l->title, set.n);
    Tally t = {0, 0, 0};
    int rc = 0;
    for (int i = 0; i < set.n && !rc; i++)
        rc = ask(p, &set.items[i], i, set.n, &t);
    if (t.asked && p->prog_ok &&
        (quiz_record_score(&p->prog, l->id, t.right, t.asked, t.hints, (long)time(NULL), err,
                           sizeof err) || progress_save(&p->prog, err, sizeof err)))
        plain_sayf(p, "Score not saved: %s", err);
    plain_sayf(p, "Questions done: %d right of %d answered, %d hint%s. Back on page %d.",
               t.right, t.asked, t.hints, t.hints == 1 ? "" : "s", p->page + 1);
    quiz_set_free(&set);
    if (rc == 2)
        plain_say(p, p->prog_ok ? "End of input. Progress is saved." : "End of input.");
    return rc == 2;
}
