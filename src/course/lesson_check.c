/* lesson_check.c - check-lessons' placeholder check (lesson_check.h): every page's widget and
 * every question run on their starting state through widget_run_start, their prose, prompts
 * and computed answers expanded on that run, each failure reported at file:line:col. No
 * curses, no printing, no exit(). */
#include "lesson_guard.h"
#include "lesson_check.h"
#include "lesson_claims.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "lesson_json.h"
#include "widget.h"

/* The byte offset in the file text of byte off of the JSON string whose value starts at
 * value_off (its opening quote): escapes are walked, so a placeholder with quotes or a
 * \u escape before it is still found where it is. */
static size_t string_offset(const char *text, size_t value_off, size_t off)
{
    const char *p = text + value_off;
    if (*p != '"')
        return value_off;
    p++;
    size_t got = 0;
    while (*p && *p != '"' && got < off) {
        if (*p == '\\' && p[1] == 'u') {
            unsigned v = (unsigned)strtoul((char[5]){p[2], p[3], p[4], p[5], 0}, NULL, 16);
            got += v < 0x80 ? 1 : v < 0x800 ? 2 : (v >= 0xD800 && v < 0xDC00) ? 4
                 : (v >= 0xDC00 && v < 0xE000) ? 0 : 3;
            p += 6;
        } else if (*p == '\\' && p[1]) {
            got++;
            p += 2;
        } else {
            got++;
            p++;
        }
    }
    return (size_t)(p - text);
}

/* Reports a problem at byte off of the string at path (its position in the file). */
static void prob_in_string(LjCtx *x, const char *path, size_t off, const char *msg)
{
    if (!x->text) {
        lj_prob(x, path, "%s", msg);
        return;
    }
    size_t base = lj_locate(x->text, path, 0);
    lj_prob_at(x, string_offset(x->text, base, off), path, "%s", msg);
}

#define CHECK_MAX_FAILS 16

/* Reports the syntax problem of s, else every placeholder, block or guard of s that does
 * not resolve on ctx; path names the string; when (may be "") says in which state. */
static void check_string(LjCtx *x, const char *path, const char *s, const PlaceholderCtx *ctx)
{
    PlaceholderFail f[CHECK_MAX_FAILS], syn;
    /* the syntax problem first (it may sit in a branch the run does not show), then what
     * the run finds elsewhere */
    int bad_syntax = placeholder_syntax(s, &syn) != 0;
    if (bad_syntax)
        prob_in_string(x, path, syn.off, syn.msg);
    size_t cap = strlen(s) * 4 + 4096;
    char *out = malloc(cap);
    int n = 0;
    if (!out) {
        x->oom = 1;
        return;
    }
    placeholder_expand_fails(s, ctx, out, cap, f, CHECK_MAX_FAILS, &n);
    for (int i = 0; i < n && i < CHECK_MAX_FAILS; i++)
        if (!bad_syntax || f[i].off != syn.off)
            prob_in_string(x, path, f[i].off, f[i].msg);
    free(out);
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
    /* the setup is the engine's: a prompt that types the sentence it runs goes stale when the
     * page's sentence changes */
    const char *typed[2] = {pw->start.sentence, pw->start.target};
    for (int i = 0; i < 2; i++) {
        char q[300];
        snprintf(q, sizeof q, "\"%s\"", typed[i]);
        if (typed[i][0] && strstr(Q->prompt, q)) {
            lj_prob(x, kp, "types the %s the engine runs (\"%s\"): write {{%s}}, computed from "
                    "the question's state", i ? "target" : "sentence", typed[i],
                    i ? "target" : "sentence");
            break;
        }
    }
    /* the quiz says how to answer; a class quiz is read by a room, without a keyboard */
    if (strstr(Q->prompt, "press ") || strstr(Q->prompt, "Press ") || strstr(Q->prompt, "Enter"))
        lj_prob(x, kp, "tells the keys to press: the quiz screen says how to answer, and the "
                "class quiz has no keyboard");
    for (int i = 0; i < Q->n_choices; i++)
        if (Q->why[i][0]) {
            char wp[32];
            snprintf(wp, sizeof wp, "why[%d]", i);
            lj_pjoin(kp, sizeof kp, qpath, wp);
            check_string(x, kp, Q->why[i], ctx);
        }
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
            r.io.opened = r.ctx.opened = lesson_model_opened(c, P); /* {{opened}}, as the player */
            lj_pjoin(kp, sizeof kp, path, "prose");
            if (P->prose) {
                check_string(&x, kp, P->prose, &r.ctx);
                PlaceholderFail gf[CHECK_MAX_FAILS];
                int ng = lesson_guard_keys(P->prose, P->widget.kind, P->widget.controls, gf,
                                           CHECK_MAX_FAILS);
                for (int i = 0; i < ng && i < CHECK_MAX_FAILS; i++)
                    prob_in_string(&x, kp, gf[i].off, gf[i].msg);
                ng = claims_lint(L->id, P->prose, P->widget.kind, gf, CHECK_MAX_FAILS);
                for (int i = 0; i < ng && i < CHECK_MAX_FAILS; i++)
                    prob_in_string(&x, kp, gf[i].off, gf[i].msg);
            }
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

/* The LjCtx of lesson li, with its text read (the caller frees x->text). */
static LjCtx page_ctx(Course *c, int li)
{
    Lesson *L = &c->lessons[li];
    LjCtx x = {c, li, L->file, lj_read_text(L->file), 0, 0};
    return x;
}

int lesson_check_page_problem(Course *c, int li, int pi, const char *msg)
{
    if (li < 0 || li >= c->n_lessons)
        return -1;
    LjCtx x = page_ctx(c, li);
    char path[64];
    lj_pindex(path, sizeof path, "pages", pi);
    lj_prob(&x, path, "%s", msg);
    free((char *)x.text);
    return x.oom ? -1 : 0;
}

int lesson_check_prose_problem(Course *c, int li, int pi, size_t off, const char *msg)
{
    if (li < 0 || li >= c->n_lessons)
        return -1;
    LjCtx x = page_ctx(c, li);
    char path[64], kp[96];
    lj_pindex(path, sizeof path, "pages", pi);
    lj_pjoin(kp, sizeof kp, path, "prose");
    prob_in_string(&x, kp, off, msg);
    free((char *)x.text);
    return x.oom ? -1 : 0;
}
