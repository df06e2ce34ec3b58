/* app.c - the player's state under every view: course and progress, paging, the page's
 * widget and its runs (one widget_run), overlays opened and closed, the views reached
 * through the table App.views (never by name), messages, and what the key table's
 * conditions read. The loop is app_main.c; keys are dispatched by app_key.c. */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "names.h"
#include "ui.h"

/* ---- views: the table App.views, filled by app_views.c ---- */
/* The page view for widget kind k: the first non-overlay view of that kind, else the prose
 * view (the first non-overlay view of kind W_NONE). */
static const ViewOps *view_of(const App *a, WidgetKind k)
{
    const ViewOps *prose = NULL;
    for (int i = 0; i < a->n_views; i++) {
        const ViewOps *v = a->views[i];
        if (v->overlay)
            continue;
        if (v->kind == k)
            return v;
        if (!prose && v->kind == W_NONE)
            prose = v;
    }
    assert(prose); /* app_views.c registers the prose view */
    return prose;
}

const ViewOps *app_cur_view(const App *a)
{
    return view_of(a, a->s ? session_kind(a->s) : W_NONE);
}

void *app_view_state(App *a, const ViewOps *v)
{
    for (int i = 0; i < a->n_views; i++)
        if (a->views[i] == v)
            return a->vstate[i];
    return NULL;
}

int app_overlay_request(App *a, Request req, int arg)
{
    for (int i = 0; req != REQ_NONE && i < a->n_views; i++)
        if (a->views[i]->overlay && a->views[i]->opens == req)
            return app_overlay_open(a, a->views[i], arg);
    return -1;
}

int app_overlay_open(App *a, const ViewOps *v, int arg)
{
    ATTEND_ASSERT(v && v->overlay && v->key); /* only a registered overlay opens */
    if (a->overlay)
        app_overlay_close(a);
    if (v->open && v->open(a, arg))
        return -1;
    ATTEND_ASSERT(!a->overlay); /* open hooks open no other overlay */
    a->overlay = v;
    return 0;
}

void app_overlay_close(App *a)
{
    const ViewOps *v = a->overlay;
    a->overlay = NULL;
    if (v && v->close)
        v->close(a);
    if (v && a->solo) /* attend quiz, attend notes: the screen was the whole program */
        a->quit = 1;
}

void app_msg(App *a, int warn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    a->msg_warn = warn;
}

void app_key_state(const App *a, KeyState *s)
{
    session_key_state(a->s, s);
    s->focus = a->scr.focus;
    const ViewOps *v = app_cur_view(a);
    if (v->key_state)
        v->key_state(a, s);
    if (a->overlay && a->overlay->key_state) /* its mode (the quiz's stage) */
        a->overlay->key_state(a, s);
}

/* ---- the engine side: the Session's ---- */
Stack app_stack(const App *a)
{
    return session_stack(a->s);
}

Sublayer app_sub(const App *a)
{
    return session_sub(a->s);
}

int app_rows(const App *a)
{
    return session_rows(a->s);
}

int app_cols(const App *a)
{
    return session_cols(a->s);
}

const char *app_mask_name(const App *a, Stack st, Sublayer sub)
{
    return names_sublayer_mask(a->s->model, st, sub, a->s->ctl.causal, a->s->ctl.padding);
}

void app_layer_head(const App *a, int layer, int head, char *out, size_t n)
{
    const ModelConfig *c = &a->s->model->cfg;
    int out_now = layer >= 0 && layer < ATTEND_MAX_LAYERS && head >= 0 && head < 64 &&
                  ((a->s->ctl.ablate[layer] >> head) & 1u);
    int any = 0;
    for (int l = 0; l < ATTEND_MAX_LAYERS; l++)
        any |= a->s->ctl.ablate[l] != 0;
    snprintf(out, n, "layer %d of %d  head %d of %d%s", layer, c->n_layers, head, c->n_heads,
             out_now ? "  KNOCKED OUT" : any ? "  (heads knocked out: X)" : "");
}

const char *app_row_token(const App *a, int i)
{
    return session_row_token(a->s, i);
}

const char *app_col_token(const App *a, int j)
{
    return session_col_token(a->s, j);
}

const Page *app_page(const App *a)
{
    return session_page(a->s);
}

int app_prose_fails(App *a, PlaceholderFail *f, int max)
{
    return session_prose_fails(a->s, f, max);
}

void app_run(App *a)
{
    session_run(a->s);
}

/* The page's view starts its viewport (scroll) as the Session starts the widget. */
static void view_reset(App *a)
{
    const ViewOps *v = app_cur_view(a);
    if (v->reset)
        v->reset(a);
}

void app_reset_widget(App *a)
{
    session_reset_widget(a->s);
    session_snap(a->s);
    view_reset(a);
}

/* Words what went wrong opening the page (a CH_PAGE Change's issues) into the status line,
 * as a warning; nothing when nothing did. */
static void app_page_issues(App *a, const PageIssues *is)
{
    static const char *const SAY[ISSUE__COUNT] = {
        [ISSUE_NO_MODEL] = "this page's model (%s) did not load: attend check-lessons says why",
        [ISSUE_NO_MEMORY] = "no memory for the traces of %s",
        [ISSUE_BAD_START] = "the page's widget cannot start: %s",
        [ISSUE_NOT_SAVED] = "progress not saved: %s",
    };
    char line[1400] = "";
    for (int i = 0; i < ISSUE__COUNT; i++) {
        size_t l = strlen(line);
        if ((is->bits >> i & 1u) && l < sizeof line) {
            snprintf(line + l, sizeof line - l, "%s", l ? "; " : "");
            l = strlen(line);
            snprintf(line + l, sizeof line - l, SAY[i], is->value[i]);
        }
    }
    if (line[0])
        app_msg(a, 1, "%s", line);
}

/* ---- paging ---- */
void app_open_done(App *a, const Change *ch)
{
    const Course *c = &a->s->course;
    if (ch->kind == CH_REFUSED) {
        switch (ch->why) {
        case WHY_BROKEN:
            if (ch->a >= 0 && ch->a < c->n_lessons)
                app_msg(a, 1, "lesson %d (%s) is broken and was skipped: %s", ch->a + 1,
                        c->lessons[ch->a].file, ch->detail);
            break;
        case WHY_FIRST_PAGE:
            app_msg(a, 0, a->s->only_lesson ? "first page" : "this is the first page");
            break;
        case WHY_LAST_PAGE:
            app_msg(a, 0, "last page of this lesson (q quits)");
            break;
        case WHY_END:
            app_msg(a, 0, "end of the course%s%s - g opens the lesson menu, q quits",
                    ch->detail[0] ? "; skipped broken " : "", ch->detail);
            break;
        default:
            break;
        }
        return;
    }
    if (ch->detail[0])
        app_msg(a, 1, "skipped broken lesson %s (attend check-lessons says why)", ch->detail);
    app_page_issues(a, &ch->issues); /* the page's model did not load, progress not saved */
    a->scr.prose_scroll = 0;
    a->scr.focus = 0;
    view_reset(a);
}

void app_open(App *a, int lesson, int page)
{
    Change ch;
    session_open(a->s, lesson, page, &ch);
    app_open_done(a, &ch);
}

void app_turn(App *a, int dir)
{
    Change ch;
    ATTEND_ASSERT(dir == 1 || dir == -1);
    session_turn(a->s, dir, &ch);
    app_open_done(a, &ch);
}

/* ---- start and stop ---- */
static void app_free(App *a)
{
    assert(!a->present); /* present_end first: it publishes through the App */
    app_overlay_close(a); /* a quiz left open by a signal records its scores */
    for (int i = 0; i < a->n_views; i++)
        if (a->views[i]->release)
            a->views[i]->release(a);
    session_delete(a->s);
    a->s = NULL;
}

/* Loads the course and progress, and opens the page to start on. 0, or -1 with a message. */
int app_load(App *a, const char *dir, const char *only, char *err, size_t errlen)
{
    if (session_load(a->s, dir, only, 0, err, errlen))
        return -1;
    snprintf(a->warn, sizeof a->warn, "%s", a->s->warn);
    app_open(a, a->s->lesson, a->s->page);
    return 0;
}

/* Shows widget w on model m outside any course (the benchmark; a course-less player). */
int app_use(App *a, const Model *m, const Widget *w)
{
    int rc = session_use(a->s, m, w);
    view_reset(a);
    return rc;
}

App *app_alloc(const ViewOps *const *views, int n)
{
    assert(n > 0 && n <= APP_MAX_VIEWS);
    App *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    if (!(a->s = session_new())) {
        free(a);
        return NULL;
    }
    a->views = views;
    a->n_views = n;
    for (int i = 0; i < n; i++)
        if (views[i]->state_size && !(a->vstate[i] = calloc(1, views[i]->state_size))) {
            app_delete(a);
            return NULL;
        }
    return a;
}

void app_delete(App *a)
{
    if (!a)
        return;
    app_free(a);
    for (int i = 0; i < APP_MAX_VIEWS; i++)
        free(a->vstate[i]);
    free(a);
}

