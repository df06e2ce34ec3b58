/* session.c - the Session (session.h): the course and progress loaded, pages opened and
 * turned, the page's widget started and run (one widget_run), its prose expanded, what the
 * heatmap shows. The requests and their Change are session_req.c. */
#include "session.h"

#include <stdlib.h>
#include <string.h>

#include "ui_text.h"

Session *session_new(void)
{
    Session *s = calloc(1, sizeof *s);
    if (s && !(s->snap = calloc(1, sizeof *s->snap))) {
        free(s);
        return NULL;
    }
    if (s)
        s->chip_pick = -1;
    return s;
}

void session_delete(Session *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n_mt; i++) {
        trace_free(s->mt[i].t);
        trace_free(s->mt[i].eq_a);
        trace_free(s->mt[i].eq_b);
    }
    live_free(&s->live);
    session_train_free(s);
    session_lab_free(s);
    lesson_free_course(&s->course);
    progress_free(&s->prog);
    free(s->snap);
    free(s);
}

/* ---- what the heatmap shows ---- */
Stack session_stack(const Session *s)
{
    return model_view_stack(s->model, s->cross);
}

Sublayer session_sub(const Session *s)
{
    return model_view_sub(s->model, s->cross);
}

int session_rows(const Session *s)
{
    return trace_view_rows(s->t, s->cross, NULL);
}

int session_cols(const Session *s)
{
    return s->t->n;
}

const char *session_row_token(const Session *s, int i)
{
    ATTEND_ASSERT(i >= 0 && i < session_rows(s));
    const int *ids;
    trace_view_rows(s->t, s->cross, &ids);
    return vocab_word(&s->model->vocab, ids[i]);
}

const char *session_col_token(const Session *s, int j)
{
    ATTEND_ASSERT(j >= 0 && j < session_cols(s));
    return vocab_word(&s->model->vocab, s->t->src[j]);
}

/* ---- the widget run ---- */
const Page *session_page(const Session *s)
{
    if (s->lesson < 0 || s->lesson >= s->course.n_lessons)
        return NULL;
    const Lesson *l = &s->course.lessons[s->lesson];
    if (l->broken || s->page < 0 || s->page >= l->n_pages)
        return NULL;
    return &l->pages[s->page];
}

WidgetKind session_kind(const Session *s)
{
    return s->w && s->model ? s->w->kind : W_NONE;
}

void session_io(const Session *s, WidgetIO *io)
{
    const Page *p = session_page(s);
    memset(io, 0, sizeof *io);
    io->w = s->w;
    io->m = s->model;
    io->src = s->src;
    io->n_src = s->n_src;
    io->tgt = s->tgt;
    io->n_tgt = s->n_tgt;
    io->ctl = &s->ctl;
    io->layer = s->layer;
    io->head = s->head;
    io->cross = s->model && session_sub(s) == SUB_CROSS;
    io->live = (LiveWidget *)&s->live; /* widget_run writes the numbers, never the state */
    io->tr.t = s->t;
    io->tr.eq_a = s->eq_a;
    io->tr.eq_b = s->eq_b;
    /* chips show the equivariance verdict; prose may quote it */
    io->opened = p && lesson_model_opened(&s->course, p);
    io->equiv = (s->w && s->w->kind == W_CHIPS) ||
                (p && p->prose && strstr(p->prose, "{{equivariance"));
}

void session_view(const Session *s, DescribeView *v)
{
    memset(v, 0, sizeof *v);
    v->ran = s->ran;
    v->run_err = s->run_err;
    v->equiv = s->equiv;
    v->scores = s->scores;
    v->all_heads = s->all_heads;
    v->step = s->step;
    v->tensor = s->tensor;
    v->cur_r = s->inspected ? s->cur_r : -1;
    v->cur_c = s->inspected ? s->cur_c : -1;
}

void session_snap(Session *s)
{
    WidgetIO io;
    DescribeView v;
    session_io(s, &io);
    session_view(s, &v);
    describe_snap(&io, &v, s->snap);
}

static void expand_prose(Session *s)
{
    const Page *p = session_page(s);
    static char tmp[SESSION_PROSE_MAX];
    char err[256] = "";
    if (!p) {
        s->prose[0] = '\0';
        return;
    }
    const char *src = p->prose ? p->prose : "";
    if (s->model && s->ran) {
        WidgetIO io;
        PlaceholderCtx ctx;
        session_io(s, &io);
        widget_ctx(&io, 1, &ctx);
        placeholder_expand(src, &ctx, tmp, sizeof tmp, err, sizeof err);
    } else {
        snprintf(tmp, sizeof tmp, "%s", src);
    }
    ui_text(tmp, s->prose, sizeof s->prose);
}

int session_prose_fails(Session *s, PlaceholderFail *f, int max)
{
    const Page *p = session_page(s);
    static char tmp[SESSION_PROSE_MAX];
    int n = 0;
    if (!p || !p->prose || !s->model || !s->ran)
        return 0;
    WidgetIO io;
    PlaceholderCtx ctx;
    session_io(s, &io);
    widget_ctx(&io, 1, &ctx);
    placeholder_expand_fails(p->prose, &ctx, tmp, sizeof tmp, f, max, &n);
    return n;
}

/* The selection kept inside what the run shows (a shorter sentence, a layer with fewer
 * steps): the cell, the chip cursor, the passport's step. */
static void clamp_selection(Session *s)
{
    WidgetKind k = session_kind(s);
    if (!s->ran)
        return;
    int rows = 0, cols = 0;
    if (k == W_HEATMAP) {
        rows = session_rows(s);
        cols = session_cols(s);
    } else if (k == W_WORKED) {
        rows = s->w->worked.nq;
        cols = s->w->worked.nk;
    }
    if (rows > 0 && cols > 0) {
        s->cur_r = s->cur_r >= rows ? rows - 1 : s->cur_r < 0 ? 0 : s->cur_r;
        s->cur_c = s->cur_c >= cols ? cols - 1 : s->cur_c < 0 ? 0 : s->cur_c;
    }
    if (k == W_CHIPS && s->t->n > 0) {
        if (s->chip_cur >= s->t->n)
            s->chip_cur = s->t->n - 1;
        if (s->chip_pick >= s->t->n)
            s->chip_pick = -1;
    }
    if (course_kind_is_probe(k) && s->step >= s->t->n) /* the position the numbers are of */
        s->step = s->t->n > 0 ? s->t->n - 1 : 0;
    if (k == W_PASSPORT) {
        int idx[128];
        int n = widget_passport_steps(s->t, session_stack(s), s->layer, s->head, idx, 128);
        if (s->step >= n)
            s->step = n > 0 ? n - 1 : 0;
    }
}

/* The run's inputs as the key of session_run's memo: the model, widget and trace, the tokens,
 * the controls (the order's entries, not its pointer), and the layer when the equivariance
 * verdict (the gap of the layer shown) is part of the run. */
static void run_key(const Session *s, const WidgetIO *io, struct SessionRunKey *k)
{
    memset(k, 0, sizeof *k);
    k->m = io->m;
    k->w = io->w;
    k->t = io->tr.t;
    k->n_src = io->n_src;
    k->n_tgt = io->n_tgt;
    k->equiv = io->equiv;
    k->layer = io->equiv ? io->layer : 0;
    k->causal = s->ctl.causal;
    k->padding = s->ctl.padding;
    k->scale = s->ctl.scale;
    k->pe = s->ctl.pe;
    memcpy(k->ablate, s->ctl.ablate, sizeof k->ablate);
    k->patch = s->ctl.patch;
    for (int i = 0; i < io->n_src && i < SESSION_MAX_TOK; i++) {
        k->src[i] = io->src[i];
        k->order[i] = s->ctl.order ? s->ctl.order[i] : i;
    }
    for (int i = 0; i < io->n_tgt && i < SESSION_MAX_TOK; i++)
        k->tgt[i] = io->tgt[i];
}

void session_run(Session *s)
{
    /* the model widgets' run depends on nothing but its key: when t already holds this
     * state's run, only the view changed (another layer, head, scores or the selection) */
    int model_widget = s->model && s->w && !course_kind_is_explain(s->w->kind) && s->t;
    if (model_widget) {
        WidgetIO io;
        s->ctl.order = s->order;
        session_io(s, &io);
        static struct SessionRunKey k; /* 12 KB: not on the stack */
        run_key(s, &io, &k);
        if (s->ran && !memcmp(&k, &s->run_key, sizeof k)) {
            clamp_selection(s);
            expand_prose(s);
            return;
        }
        memcpy(&s->run_key, &k, sizeof k); /* padding too: compared with memcmp */
    }
    s->ran = 0;
    s->equiv = -1.0f;
    s->run_err[0] = '\0';
    if (s->model && s->w && (course_kind_is_explain(s->w->kind) || s->t)) {
        WidgetIO io;
        if (!course_kind_is_explain(s->w->kind))
            s->ctl.order = s->order;
        session_io(s, &io);
        s->ran = widget_run(&io, &s->equiv, s->run_err, sizeof s->run_err) == 0;
        s->runs++;
    }
    clamp_selection(s);
    expand_prose(s);
}

/* Traces for a model, allocated the first time it is used (forward never allocates). */
static int traces_for(Session *s, const Model *m)
{
    for (int i = 0; i < s->n_mt; i++)
        if (s->mt[i].model == m) {
            s->t = s->mt[i].t;
            s->eq_a = s->mt[i].eq_a;
            s->eq_b = s->mt[i].eq_b;
            return 0;
        }
    if (s->n_mt >= SESSION_MAX_MODELS)
        return -1;
    int cap = widget_token_cap(m, SESSION_MAX_TOK, NULL, 0);
    WidgetTraces tr;
    if (widget_traces_new(&tr, m, cap, m->cfg.arch == ARCH_ENCDEC ? cap : 0))
        return -1;
    SessionTraces *mt = &s->mt[s->n_mt++];
    mt->model = m;
    s->t = mt->t = tr.t;
    s->eq_a = mt->eq_a = tr.eq_a;
    s->eq_b = mt->eq_b = tr.eq_b;
    return 0;
}

/* The selection at the start of a page: the cell (0, 0), the first chip, nothing picked,
 * the widget's start step and tensor. */
static void select_start(Session *s)
{
    const Widget *w = s->w;
    s->cur_r = s->cur_c = 0;
    s->inspected = 0;
    s->chip_cur = 0;
    s->chip_pick = -1;
    s->step = w && w->start.step > 0 ? w->start.step : 0;
    if (w && w->start.step < 0) /* a probe widget's last position (clamped after the run) */
        s->step = SESSION_MAX_TOK;
    snprintf(s->tensor, sizeof s->tensor, "%s",
             w && w->start.tensor[0] ? w->start.tensor : "L0.h0.weights");
}

/* Notes issue i of the page being opened, with its offending value. */
static void page_issue(Session *s, PageIssue i, const char *value)
{
    s->issues.bits |= 1u << i;
    snprintf(s->issues.value[i], sizeof s->issues.value[i], "%.*s",
             (int)sizeof s->issues.value[i] - 1, value ? value : "");
}

void session_reset_widget(Session *s)
{
    const Widget *w = s->w;
    char err[256] = "";
    s->ran = 0;
    s->n_src = s->n_tgt = 0;
    s->layer = s->head = s->cross = s->scores = s->all_heads = 0;
    s->sentence[0] = s->target[0] = '\0';
    s->allowed = w ? w->controls : 0;
    select_start(s);
    live_free(&s->live);
    if (!s->train.run) /* the train widget's run outlives a page (come back to it) */
        s->train.set = 0;
    if (!w || !s->model) {
        session_run(s);
        return;
    }
    if (traces_for(s, s->model)) {
        page_issue(s, ISSUE_NO_MEMORY, s->model->path);
        s->model = NULL;
        session_run(s);
        return;
    }
    int cap = s->t->max_n;
    if ((course_kind_needs_sentence(w->kind) || (w->kind == W_NONE && w->start.sentence[0])) &&
        widget_state(w, s->model, &s->ctl, s->src, &s->n_src, s->tgt, &s->n_tgt, cap, err,
                     sizeof err))
        page_issue(s, ISSUE_BAD_START, err);
    if (course_kind_is_explain(w->kind))
        live_start(&s->live, w, s->model);
    for (int i = 0; i < SESSION_MAX_TOK; i++)
        s->order[i] = i;
    if (s->ctl.order)
        for (int i = 0; i < s->n_src && i < w->start.n_order; i++)
            s->order[i] = s->ctl.order[i];
    s->ctl.order = s->order;
    snprintf(s->sentence, sizeof s->sentence, "%s", w->start.sentence);
    snprintf(s->target, sizeof s->target, "%s", w->start.target);
    widget_view_start(w, s->model, &s->layer, &s->head, &s->cross);
    ATTEND_ASSERT(session_view_ok(s) && s->n_src <= cap);
    s->scores = w->start.scores;
    s->all_heads = w->start.all_heads;
    session_run(s);
}

/* ---- progress and paging ---- */
static void save_progress(Session *s)
{
    const Lesson *l = &s->course.lessons[s->lesson];
    char err[500];
    if (!s->prog_ok)
        return;
    progress_set_current(&s->prog, l->id, s->page);
    progress_mark_seen(&s->prog, l->id, s->page);
    if (!progress_completed(&s->prog, l->id) && progress_count_seen(&s->prog, l->id) >= l->n_pages)
        progress_set_completed(&s->prog, l->id, 1);
    if (progress_save(&s->prog, err, sizeof err))
        page_issue(s, ISSUE_NOT_SAVED, err);
}

/* A page Change (or a refusal) into ch, when the caller wants one; the Session's last. */
static int page_change(Session *s, Change *ch, ChangeKind kind, ChangeWhy why, const char *detail)
{
    Change c;
    memset(&c, 0, sizeof c);
    c.req = REQ_NONE;
    c.kind = kind;
    c.why = why;
    c.a = s->lesson;
    c.b = s->page;
    snprintf(c.detail, sizeof c.detail, "%s", detail ? detail : "");
    if (kind == CH_PAGE)
        c.issues = s->issues;
    s->last = c;
    if (ch)
        *ch = c;
    return kind == CH_PAGE;
}

int session_open(Session *s, int lesson, int page, Change *ch)
{
    char why[SESSION_DETAIL_MAX];
    memset(&s->issues, 0, sizeof s->issues);
    if (lesson < 0 || lesson >= s->course.n_lessons)
        return page_change(s, ch, CH_REFUSED, WHY_BROKEN, "no such lesson");
    const Lesson *l = &s->course.lessons[lesson];
    if (l->broken) { /* a: the broken lesson; detail: why it did not load */
        snprintf(why, sizeof why, "%s", l->error);
        page_change(s, ch, CH_REFUSED, WHY_BROKEN, why);
        s->last.a = lesson;
        if (ch)
            ch->a = lesson;
        return 0;
    }
    page = page < 0 ? 0 : page >= l->n_pages ? l->n_pages - 1 : page;
    ATTEND_ASSERT(page >= 0 && page < l->n_pages); /* a lesson that loads has pages */
    s->lesson = lesson;
    s->page = page;
    const Page *p = &l->pages[page];
    s->w = &p->widget;
    /* a page without a widget still runs its sentence, if it gives one, so that its prose
     * placeholders are filled in as check-lessons --show fills them */
    int runs = p->widget.kind != W_NONE || p->widget.start.sentence[0];
    s->model = runs ? lesson_model(&s->course, p) : NULL;
    if (runs && !s->model) {
        int mi = p->widget.model_index;
        page_issue(s, ISSUE_NO_MODEL, mi >= 0 && mi < s->course.n_models
                                          ? s->course.models[mi]->path : "");
    }
    session_reset_widget(s);
    session_lab_poll(s); /* a lab page: its last check, read as it opens */
    save_progress(s);
    session_snap(s);
    return page_change(s, ch, CH_PAGE, WHY_NONE, NULL);
}

int session_goto(Session *s, const char *spec, int keep_only, Change *ch)
{
    int lesson = s->lesson;
    const char *colon = strrchr(spec, ':');
    char *end, id[64], part[64];
    if (colon) {
        snprintf(id, sizeof id, "%.*s", (int)(colon - spec < 63 ? colon - spec : 63), spec);
        lesson = lesson_find(&s->course, id);
        long ln = strtol(id, &end, 10);
        if (lesson < 0 && end != id && !*end && ln >= 1 && ln <= s->course.n_lessons)
            lesson = (int)ln - 1;
        if (lesson < 0)
            return page_change(s, ch, CH_REFUSED, WHY_NO_LESSON, id);
        if (keep_only && s->only_lesson && lesson != s->lesson)
            return page_change(s, ch, CH_REFUSED, WHY_ONLY_LESSON, s->only_lesson);
        spec = colon + 1;
    }
    if (lesson < 0 || lesson >= s->course.n_lessons)
        return page_change(s, ch, CH_REFUSED, WHY_NO_LESSON, spec);
    const Lesson *l = &s->course.lessons[lesson];
    long pn = strtol(spec, &end, 10);
    if (end == spec || *end || pn < 1 || pn > l->n_pages) {
        snprintf(part, sizeof part, "%.60s", spec);
        page_change(s, ch, CH_REFUSED, WHY_NO_PAGE, part);
        s->last.a = lesson;
        if (ch)
            ch->a = lesson;
        return 0;
    }
    if (lesson != s->lesson && !keep_only) /* as the lesson menu: the course is whole again */
        s->only_lesson = NULL;
    return session_open(s, lesson, (int)pn - 1, ch);
}

int session_open_lesson(Session *s, int lesson, Change *ch)
{
    if (lesson >= 0 && lesson < s->course.n_lessons && lesson != s->lesson)
        s->only_lesson = NULL;
    return session_open(s, lesson, session_resume_page(s, lesson), ch);
}

int session_resume_page(const Session *s, int lesson)
{
    if (lesson < 0 || lesson >= s->course.n_lessons || !s->prog_ok)
        return 0;
    const Lesson *l = &s->course.lessons[lesson];
    if (s->prog.current_lesson[0] && !strcmp(s->prog.current_lesson, l->id) &&
        s->prog.current_page >= 0 && s->prog.current_page < l->n_pages)
        return s->prog.current_page;
    for (int i = 0; i < l->n_pages; i++)
        if (!progress_seen(&s->prog, l->id, i))
            return i;
    return 0; /* every page seen: start again from the top */
}

int session_turn(Session *s, int dir, Change *ch)
{
    ATTEND_ASSERT(dir == 1 || dir == -1);
    if (s->lesson < 0 || s->lesson >= s->course.n_lessons)
        return page_change(s, ch, CH_REFUSED, dir > 0 ? WHY_END : WHY_FIRST_PAGE, NULL);
    const Lesson *l = &s->course.lessons[s->lesson];
    int np = s->page + dir;
    if (np >= 0 && np < l->n_pages)
        return session_open(s, s->lesson, np, ch);
    if (s->only_lesson)
        return page_change(s, ch, CH_REFUSED, dir > 0 ? WHY_LAST_PAGE : WHY_FIRST_PAGE, NULL);
    char skipped[400] = "";
    for (int i = s->lesson + dir; i >= 0 && i < s->course.n_lessons; i += dir) {
        const Lesson *nl = &s->course.lessons[i];
        if (nl->broken) {
            size_t k = strlen(skipped);
            snprintf(skipped + k, sizeof skipped - k, "%s%.120s", k ? ", " : "", nl->file);
            continue;
        }
        session_open(s, i, dir > 0 ? 0 : nl->n_pages - 1, NULL);
        return page_change(s, ch, CH_PAGE, WHY_NONE, skipped);
    }
    return page_change(s, ch, CH_REFUSED, dir > 0 ? WHY_END : WHY_FIRST_PAGE, skipped);
}

int session_load(Session *s, const char *dir, const char *only, int page_opt, char *err,
                 size_t errlen)
{
    char path[1024], perr[500] = "";
    if (!s->course.n_lessons && lesson_load_dir(&s->course, dir, err, errlen))
        return -1;
    int n_good = 0, first = -1;
    char broken[400] = "";
    for (int i = 0; i < s->course.n_lessons; i++) {
        if (!s->course.lessons[i].broken) {
            n_good++;
            if (first < 0)
                first = i;
        } else {
            size_t k = strlen(broken);
            snprintf(broken + k, sizeof broken - k, "%s%.120s", k ? ", " : "",
                     s->course.lessons[i].file);
        }
    }
    if (broken[0])
        snprintf(s->warn, sizeof s->warn,
                 "skipped broken lesson(s): %s (run attend check-lessons)", broken);
    if (!n_good) {
        snprintf(err, errlen, "no playable lesson in %.600s%s%s", dir, broken[0] ? "; broken: " : "",
                 broken);
        return -1;
    }
    s->prog_ok = 0;
    if (progress_default_path(path, sizeof path, perr, sizeof perr) == 0) {
        int r = progress_load(&s->prog, path, perr, sizeof perr);
        if (r == 0)
            s->prog_ok = 1;
        else if (r == 1) {
            s->prog_ok = 1;
            snprintf(s->warn, sizeof s->warn, "%s", perr);
        } else
            snprintf(s->warn, sizeof s->warn, "progress will not be saved: %.500s", perr);
    } else {
        snprintf(s->warn, sizeof s->warn, "progress will not be saved: %.500s", perr);
    }
    int lesson = first, page = 0;
    if (only) {
        char why[300];
        lesson = lesson_lookup(&s->course, only, why, sizeof why);
        if (lesson < 0) {
            snprintf(err, errlen, "--lesson: %s (lessons in %.600s)", why, dir);
            return -1;
        }
        only = s->course.lessons[lesson].id;
        if (s->course.lessons[lesson].broken) {
            snprintf(err, errlen, "lesson \"%.40s\" is broken: %.600s", only,
                     s->course.lessons[lesson].error);
            return -1;
        }
        s->only_lesson = s->course.lessons[lesson].id;
        if (s->prog.current_lesson[0] && !strcmp(s->prog.current_lesson, only))
            page = s->prog.current_page;
    } else if (s->prog.current_lesson[0]) {
        int i = lesson_find(&s->course, s->prog.current_lesson);
        if (i >= 0 && !s->course.lessons[i].broken) {
            lesson = i;
            page = s->prog.current_page;
        }
    }
    if (page_opt > 0) {
        if (page_opt > s->course.lessons[lesson].n_pages) {
            snprintf(err, errlen, "--page %d: lesson \"%s\" has %d pages", page_opt,
                     s->course.lessons[lesson].id, s->course.lessons[lesson].n_pages);
            return -1;
        }
        page = page_opt - 1;
    }
    s->lesson = lesson;
    s->page = page;
    return 0;
}

int session_use(Session *s, const Model *m, const Widget *w)
{
    s->lesson = -1;
    s->page = 0;
    s->w = w;
    s->model = m;
    session_reset_widget(s);
    session_snap(s);
    return s->model ? 0 : -1;
}

const Model *session_opened_model(const Session *s)
{
    for (int i = 0; i < s->course.n_models; i++)
        if (s->course.models[i]->opened)
            return &s->course.models[i]->model;
    return NULL;
}

int session_open_model(Session *s, const char *path, ModelProgress progress, void *ctx,
                       int jump, char *err, size_t errlen)
{
    Model m;
    if (model_load_progress(&m, path, progress, ctx, err, errlen))
        return -1;
    if (lesson_open_model(&s->course, &m, err, errlen)) {
        model_free(&m);
        return -1;
    }
    const Model *om = session_opened_model(s);
    for (int i = 0; i < s->n_mt; i++) /* the slot's traces were sized for its old model */
        if (s->mt[i].model == om) {
            WidgetTraces tr = {s->mt[i].t, s->mt[i].eq_a, s->mt[i].eq_b};
            widget_traces_free(&tr);
            s->mt[i] = s->mt[--s->n_mt];
            s->t = s->eq_a = s->eq_b = NULL;
            break;
        }
    for (int l = 0; jump && l < s->course.n_lessons; l++) {
        const Lesson *ls = &s->course.lessons[l];
        for (int p = 0; !ls->broken && p < ls->n_pages; p++)
            if (lesson_model_opened(&s->course, &ls->pages[p])) {
                s->lesson = l, s->page = p;
                jump = 0;
                break;
            }
    }
    return 0;
}
