/* quiz_session.c - one run through a set of questions (quiz_session.h), written once for the
 * player's quiz screen and plain mode's. */
#include "quiz_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "session.h"

int quiz_session_start(QuizSession *q, const QuizSet *set, Progress *prog, int scores)
{
    memset(q, 0, sizeof *q);
    q->res = calloc((size_t)(set->n ? set->n : 1), sizeof *q->res);
    q->done = calloc((size_t)(set->n ? set->n : 1), sizeof *q->done);
    if (!q->res || !q->done) {
        free(q->res);
        free(q->done);
        q->res = NULL;
        q->done = NULL;
        return -1;
    }
    q->set = set;
    q->prog = prog;
    q->scores = scores;
    return 0;
}

const QuizItem *quiz_session_item(const QuizSession *q)
{
    return q->cur < q->set->n ? &q->set->items[q->cur] : NULL;
}

static void save_failed(QuizSession *q, const char *err)
{
    if (!q->save_err[0])
        snprintf(q->save_err, sizeof q->save_err, "%s", err);
}

/* The question's result, once: the tally, and the progress file saved. */
static void record(QuizSession *q, QuizResult r)
{
    const QuizItem *it = quiz_session_item(q);
    char err[300];
    if (!it || q->recorded)
        return;
    q->recorded = 1;
    q->done[q->cur] = 1;
    q->res[q->cur] = r;
    q->tally.asked++;
    if (r == QR_RIGHT || r == QR_RIGHT_HINTED)
        q->tally.right++;
    if (r == QR_SKIPPED)
        q->tally.skipped++;
    if (q->prog && (quiz_record(q->prog, it->key, r, (long)time(NULL), err, sizeof err) ||
                    progress_save(q->prog, err, sizeof err)))
        save_failed(q, err);
}

int quiz_session_hint(QuizSession *q, char *buf, size_t n)
{
    const QuizItem *it = quiz_session_item(q);
    if (!it || !quiz_hint_after(it, q->hints, q->last, buf, n))
        return 0;
    q->hints++;
    q->tally.hints++;
    return 1;
}

QuizVerdict quiz_session_answer(QuizSession *q, const char *answer, char *msg, size_t n)
{
    const QuizItem *it = quiz_session_item(q);
    if (!it) {
        snprintf(msg, n, "no question is asked");
        return QV_INVALID;
    }
    QuizVerdict v = quiz_check(it, answer, msg, n);
    if (v == QV_RIGHT && q->tries == 0)
        record(q, q->hints ? QR_RIGHT_HINTED : QR_RIGHT);
    if (v == QV_WRONG)
        snprintf(q->last, sizeof q->last, "%s", answer);
    if (v == QV_WRONG && q->tries++ == 0)
        record(q, QR_WRONG);
    return v;
}

void quiz_session_next(QuizSession *q)
{
    if (q->cur < q->set->n)
        q->cur++;
    q->hints = q->tries = q->recorded = 0;
    q->last[0] = 0;
}

void quiz_session_skip(QuizSession *q)
{
    record(q, QR_SKIPPED);
    quiz_session_next(q);
}

/* Each lesson's score over the questions recorded (a set may mix lessons: attend quiz). */
static void record_scores(QuizSession *q)
{
    enum { MAX_LESSONS = 64 };
    struct {
        char lesson[48];
        int right, asked;
    } ls[MAX_LESSONS];
    int n = 0;
    char err[300];
    if (!q->prog || !q->scores)
        return;
    for (int i = 0; i < q->set->n; i++) {
        const QuizItem *it = &q->set->items[i];
        if (!q->done[i] || !it->lesson[0])
            continue;
        int k = 0;
        while (k < n && strcmp(ls[k].lesson, it->lesson))
            k++;
        if (k == n) {
            if (n == MAX_LESSONS)
                continue;
            snprintf(ls[n].lesson, sizeof ls[n].lesson, "%s", it->lesson);
            ls[n].right = ls[n].asked = 0;
            n++;
        }
        ls[k].asked++;
        if (q->res[i] == QR_RIGHT || q->res[i] == QR_RIGHT_HINTED)
            ls[k].right++;
    }
    long now = (long)time(NULL);
    for (int k = 0; k < n; k++)
        if (quiz_record_score(q->prog, ls[k].lesson, ls[k].right, ls[k].asked, q->tally.hints,
                              now, err, sizeof err))
            save_failed(q, err);
    if (n && progress_save(q->prog, err, sizeof err))
        save_failed(q, err);
}

void quiz_session_end(QuizSession *q, QuizTally *t)
{
    q->tally.quit = q->cur < q->set->n;
    record_scores(q);
    if (t)
        *t = q->tally;
    free(q->res);
    free(q->done);
    q->res = NULL;
    q->done = NULL;
}

int quiz_session_lesson(QuizSession *q, QuizSet *set, Session *s, const char *start_id,
                        char *err, size_t n)
{
    if (s->lesson < 0 || s->lesson >= s->course.n_lessons) {
        snprintf(err, n, "no lesson is open");
        return -1;
    }
    const Lesson *L = &s->course.lessons[s->lesson];
    uint64_t seed = ((uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid()) % 1000000u;
    if (quiz_build(set, &s->course, L->id, 0, seed, err, n))
        return -1;
    const Page *pg = session_page(s);
    int named = start_id && start_id[0], rc = 0;
    const char *start = named ? start_id : pg && pg->n_questions ? pg->questions[0].id : NULL;
    if (start && quiz_set_start_at(set, L->id, start) && named)
        rc = 1;
    if (quiz_session_start(q, set, s->prog_ok ? &s->prog : NULL, 1)) {
        quiz_set_free(set);
        snprintf(err, n, "out of memory for the questions");
        return -1;
    }
    return rc;
}
