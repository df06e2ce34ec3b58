/* lesson_check.c - check-lessons' placeholder check (lesson_check.h): every page's widget and
 * every question run on their starting state through widget_run_start, their prose, prompts
 * and computed answers expanded on that run, each failure reported at file:line:col. No
 * curses, no printing, no exit(). */
#include "lesson_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "lesson_json.h"
#include "widget.h"

/* Reports every placeholder of s that does not resolve; path names the string. */
static void check_string(LjCtx *x, const char *path, const char *s, const PlaceholderCtx *ctx)
{
    size_t base = x->text ? lj_locate(x->text, path, 0) : 0;
    const char *p = s;
    while ((p = strstr(p, "{{"))) {
        const char *close = strstr(p + 2, "}}"), *nl = strchr(p + 2, '\n');
        char body[256], val[256], err[400];
        size_t blen = close ? (size_t)(close - p - 2) : 0;
        if (blen >= sizeof body)
            blen = sizeof body - 1;
        memcpy(body, p + 2, blen);
        body[blen] = 0;
        int bad = !close || (nl && nl < close);
        if (bad)
            snprintf(err, sizeof err, "{{ without a closing }} on the same line");
        else
            bad = placeholder_value(body, ctx, val, sizeof val, err, sizeof err) != 0;
        if (bad) {
            /* find this placeholder in the file text after the string's start */
            char needle[270];
            snprintf(needle, sizeof needle, "{{%s", body);
            const char *hit = x->text ? strstr(x->text + base, needle) : NULL;
            if (hit)
                lj_prob_at(x, (size_t)(hit - x->text), path, "%s", err);
            else
                lj_prob(x, path, "%s", err);
        }
        p = close && !(nl && nl < close) ? close + 2 : p + 2;
    }
}

static void check_question(LjCtx *x, const char *qpath, const Question *Q, const Widget *pw,
                           const Model *m, const PlaceholderCtx *page_ctx)
{
    const PlaceholderCtx *ctx = page_ctx;
    WidgetRun r;
    int own = 0;
    char kp[320], err[400];
    if (Q->has_state) {
        /* the problems the loader found in "state" (kept until now: they do not break the
         * lesson), else the question's own run */
        for (int i = 0; i < Q->n_state_problems; i++)
            lj_prob_msg(x, Q->state_problems[i].msg);
        if (Q->n_state_problems)
            return;
        Widget w = *pw;
        course_apply_delta(&w.start, &Q->state);
        lj_pjoin(kp, sizeof kp, qpath, "state");
        own = 1;
        if (widget_run_start(&r, &w, m, err, sizeof err)) {
            lj_prob(x, kp, "the engine cannot run this state: %s", err);
            widget_run_free(&r);
            return;
        }
        ctx = &r.ctx;
    }
    lj_pjoin(kp, sizeof kp, qpath, "prompt");
    check_string(x, kp, Q->prompt, ctx);
    if (Q->compute[0]) {
        lj_pjoin(kp, sizeof kp, qpath, "compute");
        char val[256];
        if (placeholder_value(Q->compute, ctx, val, sizeof val, err, sizeof err))
            lj_prob(x, kp, "%s", err);
    }
    if (own)
        widget_run_free(&r);
}

int lesson_check_placeholders(Course *c)
{
    int before = c->n_problems;
    for (int li = 0; li < c->n_lessons; li++) {
        Lesson *L = &c->lessons[li];
        if (L->broken)
            continue;
        char *text = lj_read_text(L->file); /* only the text is needed, for positions */
        LjCtx x = {c, li, L->file, text, 0, 0};
        for (int pi = 0; pi < L->n_pages; pi++) {
            Page *P = &L->pages[pi];
            const Model *m = lesson_model(c, P);
            char path[64], kp[96], err[600];
            lj_pindex(path, sizeof path, "pages", pi);
            if (!m)
                continue;
            WidgetRun r;
            if (widget_run_start(&r, &P->widget, m, err, sizeof err)) {
                lj_pjoin(kp, sizeof kp, path, "widget");
                lj_prob(&x, kp, "the engine cannot run this page: %s", err);
                widget_run_free(&r);
                continue;
            }
            lj_pjoin(kp, sizeof kp, path, "prose");
            if (P->prose)
                check_string(&x, kp, P->prose, &r.ctx);
            for (int qi = 0; qi < P->n_questions; qi++) {
                char qp[128];
                snprintf(qp, sizeof qp, "%s.questions[%d]", path, qi);
                check_question(&x, qp, &P->questions[qi], &P->widget, m, &r.ctx);
            }
            widget_run_free(&r);
        }
        free(text);
        if (x.oom)
            return -1;
    }
    return c->n_problems - before;
}
