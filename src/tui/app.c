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
    return view_of(a, a->w && a->model ? a->w->kind : W_NONE);
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
    keys_state_fill(s, a->allowed, &a->ctl, a->scores, a->all_heads, &a->live.s, a->model,
                    app_page(a));
    s->focus = a->scr.focus;
    const ViewOps *v = app_cur_view(a);
    if (v->key_state)
        v->key_state(a, s);
    if (a->overlay && a->overlay->key_state) /* its mode (the quiz's stage) */
        a->overlay->key_state(a, s);
}

/* ---- the engine side ---- */
Stack app_stack(const App *a)
{
    return model_view_stack(a->model, a->cross);
}

Sublayer app_sub(const App *a)
{
    return model_view_sub(a->model, a->cross);
}

int app_rows(const App *a)
{
    return trace_view_rows(a->t, a->cross, NULL);
}

int app_cols(const App *a)
{
    return a->t->n;
}

const char *app_mask_name(const App *a, Stack st, Sublayer sub)
{
    return names_sublayer_mask(a->model, st, sub, a->ctl.causal, a->ctl.padding);
}

void app_layer_head(const App *a, int layer, int head, char *out, size_t n)
{
    const ModelConfig *c = &a->model->cfg;
    int out_now = layer >= 0 && layer < ATTEND_MAX_LAYERS && head >= 0 && head < 64 &&
                  ((a->ctl.ablate[layer] >> head) & 1u);
    int any = 0;
    for (int l = 0; l < ATTEND_MAX_LAYERS; l++)
        any |= a->ctl.ablate[l] != 0;
    snprintf(out, n, "layer %d of %d  head %d of %d%s", layer, c->n_layers, head, c->n_heads,
             out_now ? "  KNOCKED OUT" : any ? "  (heads knocked out: X)" : "");
}

/* Rows and columns by word (trace_view_rows: the words a decoder's rows produce). */
const char *app_row_token(const App *a, int i)
{
    ATTEND_ASSERT(i >= 0 && i < app_rows(a));
    const int *ids;
    trace_view_rows(a->t, a->cross, &ids);
    return vocab_word(&a->model->vocab, ids[i]);
}

const char *app_col_token(const App *a, int j)
{
    ATTEND_ASSERT(j >= 0 && j < app_cols(a));
    return vocab_word(&a->model->vocab, a->t->src[j]);
}

/* Traces for a model, allocated the first time it is used (forward never allocates). */
static int traces_for(App *a, const Model *m)
{
    for (int i = 0; i < a->n_mt; i++)
        if (a->mt[i].model == m) {
            a->t = a->mt[i].t;
            a->eq_a = a->mt[i].eq_a;
            a->eq_b = a->mt[i].eq_b;
            return 0;
        }
    if (a->n_mt >= APP_MAX_MODELS)
        return -1;
    int cap = widget_token_cap(m, APP_MAX_TOK, NULL, 0);
    WidgetTraces tr;
    if (widget_traces_new(&tr, m, cap, m->cfg.arch == ARCH_ENCDEC ? cap : 0))
        return -1;
    ModelTraces *mt = &a->mt[a->n_mt++];
    mt->model = m;
    a->t = mt->t = tr.t;
    a->eq_a = mt->eq_a = tr.eq_a;
    a->eq_b = mt->eq_b = tr.eq_b;
    return 0;
}

static const Page *cur_page(const App *a)
{
    if (a->lesson < 0 || a->lesson >= a->course.n_lessons)
        return NULL;
    const Lesson *l = &a->course.lessons[a->lesson];
    if (l->broken || a->page < 0 || a->page >= l->n_pages)
        return NULL;
    return &l->pages[a->page];
}

/* The player's state as the one widget run (widget.c) reads it. */
static void app_io(App *a, WidgetIO *io)
{
    memset(io, 0, sizeof *io);
    io->w = a->w;
    io->m = a->model;
    io->src = a->src;
    io->n_src = a->n_src;
    io->tgt = a->tgt;
    io->n_tgt = a->n_tgt;
    io->ctl = &a->ctl;
    io->layer = a->layer;
    io->head = a->head;
    io->cross = app_sub(a) == SUB_CROSS;
    io->live = &a->live;
    io->tr.t = a->t;
    io->tr.eq_a = a->eq_a;
    io->tr.eq_b = a->eq_b;
    /* chips show the equivariance verdict; prose may quote it */
    const Page *p = cur_page(a);
    io->opened = p && lesson_model_opened(&a->course, p);
    io->equiv = (a->w && a->w->kind == W_CHIPS) ||
                (p && p->prose && strstr(p->prose, "{{equivariance"));
}

const Page *app_page(const App *a)
{
    return cur_page(a);
}

static void expand_prose(App *a)
{
    const Page *p = cur_page(a);
    static char tmp[APP_PROSE_MAX];
    char err[256] = "";
    if (!p) {
        a->prose[0] = '\0';
        return;
    }
    const char *src = p->prose ? p->prose : "";
    if (a->model && a->ran) {
        WidgetIO io;
        PlaceholderCtx ctx;
        app_io(a, &io);
        widget_ctx(&io, 1, &ctx);
        placeholder_expand(src, &ctx, tmp, sizeof tmp, err, sizeof err);
        /* equivariance runs reuse eq_a/eq_b; the main trace stays the current state */
    } else {
        snprintf(tmp, sizeof tmp, "%s", src);
    }
    ui_text(tmp, a->prose, sizeof a->prose);
}

int app_prose_fails(App *a, PlaceholderFail *f, int max)
{
    const Page *p = cur_page(a);
    static char tmp[APP_PROSE_MAX];
    int n = 0;
    if (!p || !p->prose || !a->model || !a->ran)
        return 0;
    WidgetIO io;
    PlaceholderCtx ctx;
    app_io(a, &io);
    widget_ctx(&io, 1, &ctx);
    placeholder_expand_fails(p->prose, &ctx, tmp, sizeof tmp, f, max, &n);
    return n;
}

void app_run(App *a)
{
    a->ran = 0;
    a->equiv = -1.0f;
    a->run_err[0] = '\0';
    if (a->model && a->w && (course_kind_is_explain(a->w->kind) || a->t)) {
        WidgetIO io;
        if (!course_kind_is_explain(a->w->kind))
            a->ctl.order = a->order;
        app_io(a, &io);
        a->ran = widget_run(&io, &a->equiv, a->run_err, sizeof a->run_err) == 0;
    }
    expand_prose(a);
}

void app_reset_widget(App *a)
{
    const Widget *w = a->w;
    char err[256] = "";
    a->ran = 0;
    a->n_src = a->n_tgt = 0;
    a->layer = a->head = a->cross = a->scores = a->all_heads = 0;
    a->sentence[0] = a->target[0] = '\0';
    a->allowed = w ? w->controls : 0;
    if (!w || !a->model) {
        app_run(a);
        return;
    }
    if (traces_for(a, a->model)) {
        app_msg(a, 1, "out of memory for the model's traces");
        a->model = NULL;
        app_run(a);
        return;
    }
    int cap = a->t->max_n;
    if ((course_kind_needs_sentence(w->kind) || (w->kind == W_NONE && w->start.sentence[0])) &&
        widget_state(w, a->model, &a->ctl, a->src, &a->n_src, a->tgt, &a->n_tgt, cap, err,
                     sizeof err))
        app_msg(a, 1, "%s", err);
    live_free(&a->live);
    if (course_kind_is_explain(w->kind))
        live_start(&a->live, w, a->model);
    for (int i = 0; i < APP_MAX_TOK; i++)
        a->order[i] = i;
    if (a->ctl.order)
        for (int i = 0; i < a->n_src && i < w->start.n_order; i++)
            a->order[i] = a->ctl.order[i];
    a->ctl.order = a->order;
    snprintf(a->sentence, sizeof a->sentence, "%s", w->start.sentence);
    snprintf(a->target, sizeof a->target, "%s", w->start.target);
    widget_view_start(w, a->model, &a->layer, &a->head, &a->cross);
    ATTEND_ASSERT(app_view_ok(a) && a->n_src <= cap);
    a->scores = w->start.scores;
    a->all_heads = w->start.all_heads;
    const ViewOps *v = app_cur_view(a);
    if (v->reset)
        v->reset(a);
    app_run(a);
}

/* ---- progress and paging ---- */
static void save_progress(App *a)
{
    const Lesson *l = &a->course.lessons[a->lesson];
    char err[600];
    if (!a->prog_ok)
        return;
    progress_set_current(&a->prog, l->id, a->page);
    progress_mark_seen(&a->prog, l->id, a->page);
    if (!progress_completed(&a->prog, l->id) && progress_count_seen(&a->prog, l->id) >= l->n_pages)
        progress_set_completed(&a->prog, l->id, 1);
    if (progress_save(&a->prog, err, sizeof err))
        app_msg(a, 1, "progress not saved: %s", err);
}

void app_open(App *a, int lesson, int page)
{
    if (lesson < 0 || lesson >= a->course.n_lessons)
        return;
    const Lesson *l = &a->course.lessons[lesson];
    if (l->broken) {
        app_msg(a, 1, "lesson %d (%s) is broken and was skipped: %s", lesson + 1, l->file,
                l->error);
        return;
    }
    if (page < 0)
        page = 0;
    if (page >= l->n_pages)
        page = l->n_pages - 1;
    ATTEND_ASSERT(page >= 0 && page < l->n_pages); /* a lesson that loads has pages */
    a->lesson = lesson;
    a->page = page;
    a->scr.prose_scroll = 0;
    a->scr.focus = 0;
    const Page *p = &l->pages[page];
    a->w = &p->widget;
    /* a page without a widget still runs its sentence, if it gives one, so that its prose
     * placeholders are filled in as check-lessons --show fills them */
    int runs = p->widget.kind != W_NONE || p->widget.start.sentence[0];
    a->model = runs ? lesson_model(&a->course, p) : NULL;
    if (runs && !a->model)
        app_msg(a, 1, "the model of this page did not load (see attend check-lessons)");
    app_reset_widget(a);
    save_progress(a);
}

int app_resume_page(const App *a, int lesson)
{
    if (lesson < 0 || lesson >= a->course.n_lessons || !a->prog_ok)
        return 0;
    const Lesson *l = &a->course.lessons[lesson];
    if (a->prog.current_lesson[0] && !strcmp(a->prog.current_lesson, l->id) &&
        a->prog.current_page >= 0 && a->prog.current_page < l->n_pages)
        return a->prog.current_page;
    for (int i = 0; i < l->n_pages; i++)
        if (!progress_seen(&a->prog, l->id, i))
            return i;
    return 0; /* every page seen: start again from the top */
}

void app_turn(App *a, int dir)
{
    ATTEND_ASSERT(dir == 1 || dir == -1);
    if (a->lesson < 0 || a->lesson >= a->course.n_lessons)
        return;
    const Lesson *l = &a->course.lessons[a->lesson];
    int np = a->page + dir;
    if (np >= 0 && np < l->n_pages) {
        app_open(a, a->lesson, np);
        return;
    }
    if (a->only_lesson) {
        app_msg(a, 0, dir > 0 ? "last page of this lesson (q quits)" : "first page");
        return;
    }
    char skipped[600] = "";
    for (int i = a->lesson + dir; i >= 0 && i < a->course.n_lessons; i += dir) {
        const Lesson *nl = &a->course.lessons[i];
        if (nl->broken) {
            size_t k = strlen(skipped);
            snprintf(skipped + k, sizeof skipped - k, "%s%.120s", k ? ", " : "", nl->file);
            continue;
        }
        app_open(a, i, dir > 0 ? 0 : nl->n_pages - 1);
        if (skipped[0])
            app_msg(a, 1, "skipped broken lesson %s (attend check-lessons says why)", skipped);
        return;
    }
    if (dir > 0)
        app_msg(a, 0, "end of the course%s%s - g opens the lesson menu, q quits",
                skipped[0] ? "; skipped broken " : "", skipped);
    else
        app_msg(a, 0, "this is the first page");
}

/* ---- start and stop ---- */
static void app_free(App *a)
{
    assert(!a->present); /* present_end first: it publishes through the App */
    app_overlay_close(a); /* a quiz left open by a signal records its scores */
    for (int i = 0; i < a->n_views; i++)
        if (a->views[i]->release)
            a->views[i]->release(a);
    for (int i = 0; i < a->n_mt; i++) {
        trace_free(a->mt[i].t);
        trace_free(a->mt[i].eq_a);
        trace_free(a->mt[i].eq_b);
    }
    a->n_mt = 0;
    live_free(&a->live);
    lesson_free_course(&a->course);
    progress_free(&a->prog);
}

/* Loads the course and progress, and picks where to start. 0, or -1 with a message. */
int app_load(App *a, const char *dir, const char *only, char *err, size_t errlen)
{
    char path[1024], perr[600] = "";
    if (lesson_load_dir(&a->course, dir, err, errlen))
        return -1;
    int n_good = 0, first = -1;
    char broken[400] = "";
    for (int i = 0; i < a->course.n_lessons; i++) {
        if (!a->course.lessons[i].broken) {
            n_good++;
            if (first < 0)
                first = i;
        } else {
            size_t k = strlen(broken);
            snprintf(broken + k, sizeof broken - k, "%s%.120s", k ? ", " : "",
                     a->course.lessons[i].file);
        }
    }
    if (broken[0])
        snprintf(a->warn, sizeof a->warn, "skipped broken lesson(s): %s (run attend check-lessons)",
                 broken);
    if (!n_good) {
        snprintf(err, errlen, "no playable lesson in %s%s%s", dir, broken[0] ? "; broken: " : "",
                 broken);
        return -1;
    }
    a->prog_ok = 0;
    if (progress_default_path(path, sizeof path, perr, sizeof perr) == 0) {
        int r = progress_load(&a->prog, path, perr, sizeof perr);
        if (r == 0)
            a->prog_ok = 1;
        else if (r == 1) {
            a->prog_ok = 1;
            snprintf(a->warn, sizeof a->warn, "%s", perr);
        } else
            snprintf(a->warn, sizeof a->warn, "progress will not be saved: %.500s", perr);
    } else {
        snprintf(a->warn, sizeof a->warn, "progress will not be saved: %.500s", perr);
    }
    int lesson = first, page = 0;
    if (only) {
        lesson = lesson_find(&a->course, only);
        if (lesson < 0) {
            snprintf(err, errlen, "no lesson with id \"%s\" in %s", only, dir);
            return -1;
        }
        if (a->course.lessons[lesson].broken) {
            snprintf(err, errlen, "lesson \"%s\" is broken: %s", only,
                     a->course.lessons[lesson].error);
            return -1;
        }
        a->only_lesson = a->course.lessons[lesson].id;
        if (a->prog.current_lesson[0] && !strcmp(a->prog.current_lesson, only))
            page = a->prog.current_page;
    } else if (a->prog.current_lesson[0]) {
        int i = lesson_find(&a->course, a->prog.current_lesson);
        if (i >= 0 && !a->course.lessons[i].broken) {
            lesson = i;
            page = a->prog.current_page;
        }
    }
    a->lesson = lesson;
    app_open(a, lesson, page);
    return 0;
}

/* Shows widget w on model m outside any course (the benchmark; a course-less player). */
int app_use(App *a, const Model *m, const Widget *w)
{
    a->lesson = -1;
    a->page = 0;
    a->w = w;
    a->model = m;
    app_reset_widget(a);
    return a->model ? 0 : -1;
}

App *app_alloc(const ViewOps *const *views, int n)
{
    assert(n > 0 && n <= APP_MAX_VIEWS);
    App *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
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

