/* app.c - the player: argument parsing, course and progress, the one loop (draw -> key ->
 * recompute), the layout (header, prose, widget, footer), paging and signals. */
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "datapath.h"
#include "names.h"
#include "ui.h"
#include "view_quiz.h"

/* ---- signals: the handler only sets a flag; the loop ends cleanly ---- */
static volatile sig_atomic_t app_signal;

static void on_signal(int sig)
{
    app_signal = sig;
}

/* A crash (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL) restores the terminal, says so, and
 * dies of the same signal (SA_RESETHAND: the re-raise gets the default action, core dump
 * included), so even a bug never leaves the terminal in raw mode. */
static void on_crash(int sig)
{
    static const char msg[] = "attend: crashed (a bug; please report it); terminal restored\n";
    ui_end_fatal();
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    raise(sig);
}

static void install_crash_handlers(void)
{
    static const int sigs[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = (int)(SA_RESETHAND | SA_NODEFER);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocked read returns so the loop sees the flag */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    install_crash_handlers();
}

/* ---- views ---- */
static const ViewOps *const VIEWS[] = {&VIEW_NONE, &VIEW_HEATMAP, &VIEW_CHIPS, &VIEW_PASSPORT,
                                       &VIEW_MATRIX, &VIEW_WORKED, &VIEW_SCALING,
                                       &VIEW_KVCACHE, &VIEW_COST, &VIEW_PARAMS};

const ViewOps *app_view(WidgetKind k)
{
    for (size_t i = 0; i < sizeof VIEWS / sizeof VIEWS[0]; i++)
        if (VIEWS[i]->kind == k)
            return VIEWS[i];
    return &VIEW_NONE;
}

static const ViewOps *cur_view(const App *a)
{
    return app_view(a->w && a->model ? a->w->kind : W_NONE);
}

void app_msg(App *a, int warn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    a->msg_warn = warn;
}

void app_hint(char *buf, size_t n, const char *key, const char *label)
{
    size_t l = strlen(buf);
    if (l < n)
        snprintf(buf + l, n - l, "%s\x1f%s\x1e", key, label);
}

/* ---- the engine side ---- */
Stack app_stack(const App *a)
{
    if (!a->model)
        return STACK_DEC;
    Arch ar = a->model->cfg.arch;
    if (ar == ARCH_DECODER)
        return STACK_DEC;
    if (ar == ARCH_ENCDEC && a->cross)
        return STACK_DEC;
    return STACK_ENC;
}

Sublayer app_sub(const App *a)
{
    return a->cross && a->model && a->model->cfg.arch == ARCH_ENCDEC ? SUB_CROSS : SUB_SELF;
}

int app_rows(const App *a)
{
    return app_stack(a) == STACK_DEC && a->model->cfg.arch == ARCH_ENCDEC ? a->t->m : a->t->n;
}

int app_cols(const App *a)
{
    return app_stack(a) == STACK_DEC && app_sub(a) == SUB_SELF &&
                   a->model->cfg.arch == ARCH_ENCDEC ? a->t->m : a->t->n;
}

const char *app_mask_name(const App *a, Stack st, Sublayer sub)
{
    return names_sublayer_mask(a->model, st, sub, a->ctl.causal, a->ctl.padding);
}

void app_layer_head(const App *a, int layer, int head, char *out, size_t n)
{
    const ModelConfig *c = &a->model->cfg;
    snprintf(out, n, "layer %d of %d  head %d of %d", layer, c->n_layers, head, c->n_heads);
}

/* Rows of a decoder (encoder-decoder) are labelled with the word each row produces (tgt);
 * the keys of its self-attention with what each position reads (tgt_in, "<bos>" first). */
const char *app_row_token(const App *a, int i)
{
    const Trace *t = a->t;
    if (app_stack(a) == STACK_DEC && a->model->cfg.arch == ARCH_ENCDEC)
        return vocab_word(&a->model->vocab, t->tgt[i]);
    return vocab_word(&a->model->vocab, t->src[i]);
}

const char *app_col_token(const App *a, int j)
{
    const Trace *t = a->t;
    if (app_stack(a) == STACK_DEC && app_sub(a) == SUB_SELF &&
        a->model->cfg.arch == ARCH_ENCDEC)
        return vocab_word(&a->model->vocab, t->tgt_in[j]);
    return vocab_word(&a->model->vocab, t->src[j]);
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
    int cap = m->cfg.max_len < APP_MAX_TOK ? m->cfg.max_len : APP_MAX_TOK;
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
    io->equiv = (a->w && a->w->kind == W_CHIPS) ||
                (p && p->prose && strstr(p->prose, "{{equivariance"));
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
    a->cur_r = a->cur_c = a->step = a->scroll_r = a->scroll_c = 0;
    a->chip_cur = 0;
    a->chip_pick = -1;
    a->tensor[0] = '\0';
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
    a->scores = w->start.scores;
    a->all_heads = w->start.all_heads;
    a->step = w->start.step > 0 ? w->start.step : 0;
    snprintf(a->tensor, sizeof a->tensor, "%s", w->start.tensor[0] ? w->start.tensor
                                                                    : "L0.h0.weights");
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
    a->lesson = lesson;
    a->page = page;
    a->prose_scroll = 0;
    a->focus = 0;
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

/* Next (dir +1) or previous (-1) page, across lessons, skipping broken ones with a warning. */
static void app_turn(App *a, int dir)
{
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

/* ---- shared widget keys ---- */
static void cycle(int *v, int n, int dir)
{
    *v = ((*v + dir) % n + n) % n;
}

int app_common_key(App *a, int k)
{
    unsigned al = a->allowed;
    const ModelConfig *c = &a->model->cfg;
    switch (k) {
    case 'm':
        if (!(al & C_MASK))
            return 0;
        a->ctl.causal = !a->ctl.causal;
        app_msg(a, 0, "causal mask %s", a->ctl.causal ? "on" : "off");
        break;
    case 'd':
        if (!(al & C_PADDING))
            return 0;
        a->ctl.padding = !a->ctl.padding;
        app_msg(a, 0, "padding mask %s", a->ctl.padding ? "on" : "off");
        break;
    case 'p': {
        if (!(al & C_PE))
            return 0;
        int pe = (int)a->ctl.pe;
        cycle(&pe, PE__COUNT, 1);
        a->ctl.pe = (PeKind)pe;
        app_msg(a, 0, "positional encoding: %s", model_pe_name(a->ctl.pe));
        break;
    }
    case 's':
        if (!(al & C_SCALE))
            return 0;
        a->ctl.scale = !a->ctl.scale;
        app_msg(a, 0, "scaling by 1/√d_k %s", a->ctl.scale ? "on" : "off");
        break;
    case ']':
    case 'h':
    case '[':
    case 'H':
        if (!(al & C_HEAD))
            return 0;
        cycle(&a->head, c->n_heads, k == ']' || k == 'h' ? 1 : -1);
        break;
    case 'l':
    case 'L':
        if (!(al & C_LAYER))
            return 0;
        cycle(&a->layer, c->n_layers, k == 'l' ? 1 : -1);
        break;
    case 'a':
        if (!(al & C_ALL_HEADS))
            return 0;
        a->all_heads = !a->all_heads;
        break;
    case 'v':
        if (!(al & C_SCORES))
            return 0;
        a->scores = !a->scores;
        break;
    case 'e':
    case 'E':
        if (!(al & C_EDIT))
            return 0;
        app_edit_start(a, k == 'E' && c->arch == ARCH_ENCDEC);
        return 1;
    case 'r':
        if (!(al & C_RESET))
            return 0;
        {
            int layer = a->layer, head = a->head;
            app_reset_widget(a);
            if (a->w->kind != W_CHIPS) { /* keep the view, reset the controls */
                a->layer = layer;
                a->head = head;
            }
            app_msg(a, 0, "reset to the page's starting state");
        }
        return 1;
    default:
        return 0;
    }
    app_run(a);
    return 1;
}

void app_common_hints(App *a, char *b, size_t n)
{
    unsigned al = a->allowed;
    if (al & C_MASK)
        app_hint(b, n, "m", a->ctl.causal ? "mask:on" : "mask:off");
    if (al & C_PADDING)
        app_hint(b, n, "d", a->ctl.padding ? "pad:on" : "pad:off");
    if (al & C_PE) {
        char l[32];
        snprintf(l, sizeof l, "PE:%s", model_pe_name(a->ctl.pe));
        app_hint(b, n, "p", l);
    }
    if (al & C_SCALE)
        app_hint(b, n, "s", a->ctl.scale ? "scale:on" : "scale:off");
    if (al & C_HEAD)
        app_hint(b, n, "[ ]", "head");
    if (al & C_LAYER)
        app_hint(b, n, "l", "layer");
    if (al & C_ALL_HEADS)
        app_hint(b, n, "a", "all heads");
    if (al & C_SCORES)
        app_hint(b, n, "v", a->scores ? "weights" : "scores");
    if (al & C_EDIT) {
        app_hint(b, n, "e", "edit");
        if (a->model && a->model->cfg.arch == ARCH_ENCDEC)
            app_hint(b, n, "E", "edit decoder");
    }
    if (al & C_RESET)
        app_hint(b, n, "r", "reset");
}

/* ---- drawing ---- */
typedef struct {
    App *a;
    int y, x, w, top, row, rows;
} ProseCtx;

static void prose_line(const char *s, int len, void *vctx)
{
    ProseCtx *c = vctx;
    int r = c->row++;
    if (r < c->top || r >= c->top + c->rows)
        return;
    char line[1024];
    if (len >= (int)sizeof line)
        len = (int)sizeof line - 1;
    memcpy(line, s, (size_t)len);
    line[len] = '\0';
    int y = c->y + r - c->top, x = c->x;
    /* bad placeholders "[?...]" are highlighted in place */
    char *p = line;
    while (*p) {
        char *bad = strstr(p, PLACEHOLDER_BAD_OPEN);
        if (!bad) {
            x += ui_put(y, x, c->x + c->w - x, p);
            break;
        }
        *bad = '\0';
        x += ui_put(y, x, c->x + c->w - x, p);
        *bad = '[';
        char *end = strchr(bad, ']');
        char save = 0;
        if (end) {
            save = end[1];
            end[1] = '\0';
        }
        attron(COLOR_PAIR(UI_WARN) | A_BOLD);
        x += ui_put(y, x, c->x + c->w - x, bad);
        attroff(COLOR_PAIR(UI_WARN) | A_BOLD);
        if (!end)
            break;
        end[1] = save;
        p = end + 1;
    }
}

static void count_line(const char *s, int len, void *ctx)
{
    (void)s;
    (void)len;
    (void)ctx;
}

static int prose_height(App *a, int w)
{
    return ui_wrap(a->prose, w, count_line, NULL);
}

static void draw_prose(App *a, Rect r)
{
    const Page *p = cur_page(a);
    if (!p || r.h < 1)
        return;
    attron(A_BOLD);
    ui_put(r.y, r.x, r.w, p->title);
    attroff(A_BOLD);
    Rect t = {r.y + 1, r.x, r.h - 1, r.w};
    if (t.h < 1)
        return;
    int total = prose_height(a, t.w);
    a->prose_lines = total;
    a->prose_rows = t.h;
    if (a->prose_scroll > total - t.h)
        a->prose_scroll = total - t.h;
    if (a->prose_scroll < 0)
        a->prose_scroll = 0;
    int more = total > t.h;
    a->prose_cut = more;
    ProseCtx c = {a, t.y, t.x, t.w, a->prose_scroll, 0, more ? t.h - 1 : t.h};
    if (more && a->prose_scroll + c.rows >= total)
        c.rows = t.h; /* at the end: the last row shows text */
    ui_wrap(a->prose, t.w, prose_line, &c);
    if (more && c.rows < t.h) {
        attron(A_DIM);
        ui_putf(t.y + t.h - 1, t.x, t.w, "%s more below: J scrolls down, K up (%d/%d)",
                ui.utf8 ? "▼" : "v", a->prose_scroll + c.rows, total);
        attroff(A_DIM);
    } else if (more) {
        attron(A_DIM);
        ui_putf(t.y + t.h - 1, t.x + t.w - 12 > t.x ? t.x + t.w - 12 : t.x, 12, " K: scroll up");
        attroff(A_DIM);
    }
}

static void draw_header(App *a)
{
    char left[400] = " attend", right[64] = "";
    if (a->lesson >= 0 && a->lesson < a->course.n_lessons) {
        const Lesson *l = &a->course.lessons[a->lesson];
        snprintf(left, sizeof left, " attend %s lesson %d/%d: %s", ui.utf8 ? "│" : "|",
                 a->lesson + 1, a->course.n_lessons, l->title);
        snprintf(right, sizeof right, "page %d/%d ", a->page + 1, l->n_pages);
    }
    attron(COLOR_PAIR(UI_HEADER) | A_BOLD);
    if (ui.color == UI_COLOR_NONE)
        attron(A_REVERSE);
    ui_fill(0, 0, COLS);
    int rw = ui_width(right);
    ui_put(0, 0, COLS - rw - 1, left); /* a long title ends in "…" */
    ui_put(0, COLS - rw, rw, right);
    attrset(A_NORMAL);
}

/* Width of one "key label  " hint. */
static int hint_width(const char *h, const char **next)
{
    const char *sep = strchr(h, '\x1f'), *end = strchr(h, '\x1e');
    if (!sep || !end) {
        *next = NULL;
        return 0;
    }
    char tmp[200];
    snprintf(tmp, sizeof tmp, "%.*s %.*s  ", (int)(sep - h), h, (int)(end - sep - 1), sep + 1);
    *next = end + 1;
    return ui_width(tmp);
}

static int hints_width(const char *h)
{
    int w = 0;
    while (h && *h)
        w += hint_width(h, &h);
    return w;
}

/* Renders one hint at (y, x); returns the x reached. */
static int draw_hint(int y, int x, const char *h)
{
    const char *sep = strchr(h, '\x1f'), *end = strchr(h, '\x1e');
    char key[64], label[128];
    snprintf(key, sizeof key, "%.*s", (int)(sep - h), h);
    snprintf(label, sizeof label, "%.*s", (int)(end - sep - 1), sep + 1);
    attron(A_BOLD | COLOR_PAIR(UI_KEY));
    x += ui_put(y, x, COLS - x, key);
    attroff(A_BOLD | COLOR_PAIR(UI_KEY));
    attron(COLOR_PAIR(UI_FOOTER));
    x += ui_put(y, x, COLS - x, " ");
    x += ui_put(y, x, COLS - x, label);
    x += ui_put(y, x, COLS - x, "  ");
    return x;
}

static void global_hints(App *a, char *g, size_t n, int with_z)
{
    const Page *p = cur_page(a);
    g[0] = '\0';
    if (with_z)
        app_hint(g, n, "z", a->focus ? "prose" : "widget");
    if (p && p->n_questions > 0)
        app_hint(g, n, "Q", "questions");
    if (p && p->notes)
        app_hint(g, n, "o", "notes");
    app_hint(g, n, "spc", "next");
    app_hint(g, n, "bksp", "back");
    app_hint(g, n, a->allowed & C_GQA ? "Tab" : "g", "lessons"); /* g is GQA there */
    app_hint(g, n, "?", "help");
    app_hint(g, n, "q", "quit");
}

/* Lays out the footer: the widget's hints wrap over as many rows as they need (never
 * dropped), the global hints go right-aligned on the last row. Returns the rows; draws them
 * when draw is 1. */
static int footer_layout(App *a, int with_z, int draw)
{
    char v[1024] = "", g[256];
    const ViewOps *vo = cur_view(a);
    if (vo->keys)
        vo->keys(a, v, sizeof v);
    global_hints(a, g, sizeof g, with_z);
    int gw = hints_width(g);
    /* measure */
    int rows = 1, x = 1;
    for (const char *h = v, *nx; *h; h = nx) {
        int w = hint_width(h, &nx);
        if (!nx)
            break;
        if (x > 1 && x + w > COLS) {
            rows++;
            x = 1;
        }
        x += w;
    }
    if (x > 1 && x + gw > COLS)
        rows++;
    if (!draw)
        return rows;
    for (int i = 0; i < rows; i++) {
        attron(COLOR_PAIR(UI_FOOTER));
        if (ui.color == UI_COLOR_NONE)
            attron(A_REVERSE);
        ui_fill(LINES - 1 - i, 0, COLS);
    }
    int y = LINES - rows;
    x = 1;
    for (const char *h = v, *nx; *h; h = nx) {
        int w = hint_width(h, &nx);
        if (!nx)
            break;
        if (x > 1 && x + w > COLS) {
            y++;
            x = 1;
        }
        draw_hint(y, x, h);
        x += w;
    }
    x = COLS - gw > 0 ? COLS - gw : 0;
    for (const char *h = g, *nx; *h; h = nx) {
        int w = hint_width(h, &nx);
        if (!nx)
            break;
        draw_hint(LINES - 1, x, h);
        x += w;
    }
    attrset(A_NORMAL);
    return rows;
}

static void draw_too_small(void)
{
    char l1[80], l2[80];
    snprintf(l1, sizeof l1, "need %d%s%d", APP_MIN_COLS, ui.utf8 ? "×" : "x", APP_MIN_LINES);
    snprintf(l2, sizeof l2, "now %dx%d - enlarge the terminal (q quits)", COLS, LINES);
    int y = LINES / 2 - 1;
    attron(A_BOLD);
    ui_put(y < 0 ? 0 : y, 0, COLS, l1);
    attroff(A_BOLD);
    ui_put(y + 1 < LINES ? y + 1 : 0, 0, COLS, l2);
}

static void draw_message(App *a, int y)
{
    const char *m = a->msg[0] ? a->msg : a->warn;
    int warn = a->msg[0] ? a->msg_warn : 1;
    if (warn) {
        attron(COLOR_PAIR(UI_WARN) | A_BOLD);
        if (ui.color == UI_COLOR_NONE)
            attron(A_REVERSE);
        ui_fill(y, 0, COLS);
        ui_putf(y, 1, COLS - 2, "%s %s", ui_glyph(G_WARN), m);
    } else {
        attron(COLOR_PAIR(UI_ACCENT));
        ui_put(y, 1, COLS - 2, m);
    }
    attrset(A_NORMAL);
}

/* Draws the widget in r; a widget that needs more rows than r has and does not scroll by
 * itself gets its last row replaced by a sign saying so. */
static void draw_widget(App *a, const ViewOps *vo, Rect r)
{
    int need = vo->need ? vo->need(a, r.w) : 0;
    if (need > r.h) {
        a->widget_cut = 1;
        if (!vo->self_scroll && r.h > 2) {
            Rect in = {r.y, r.x, r.h - 1, r.w};
            vo->draw(a, in);
            move(r.y + r.h - 1, 0);
            clrtoeol();
            attron(A_DIM);
            ui_putf(r.y + r.h - 1, r.x, r.w, "%s %d more row%s of the widget: z shows it whole",
                    ui.utf8 ? "▼" : "v", need - r.h + 1, need - r.h + 1 == 1 ? "" : "s");
            attroff(A_DIM);
            return;
        }
    }
    vo->draw(a, r);
}

void app_draw(App *a)
{
    erase();
    if (COLS < APP_MIN_COLS || LINES < APP_MIN_LINES) {
        draw_too_small();
        refresh();
        return;
    }
    draw_header(a);
    int top = 1;
    if (a->msg[0] || a->warn[0]) {
        draw_message(a, 1);
        top = 2;
    }
    const ViewOps *vo = cur_view(a);
    int has_widget = vo->kind != W_NONE;
    int fr = footer_layout(a, has_widget, 0);
    Rect body = {top, 1, LINES - fr - top, COLS - 2};
    a->prose_cut = a->widget_cut = 0;
    if (!has_widget) {
        /* a prose-only page: one column at the reading measure, centred on wide screens */
        Rect pr = body;
        if (pr.w > APP_MEASURE) {
            pr.x = body.x + (body.w - APP_MEASURE) / 2;
            pr.w = APP_MEASURE;
        }
        draw_prose(a, pr);
    } else if (a->focus) {
        a->wrect = body;
        draw_widget(a, vo, body);
    } else if (COLS >= 120) {
        int pw = COLS * 2 / 5; /* at most 64 < APP_MEASURE: the pane is the measure */
        if (pw > 64)
            pw = 64;
        Rect pr = {body.y, body.x, body.h, pw};
        Rect wr = {body.y, body.x + pw + 3, body.h, body.w - pw - 3};
        draw_prose(a, pr);
        attron(A_DIM);
        mvvline(body.y, body.x + pw + 1, ui.utf8 ? ACS_VLINE : '|', body.h);
        attroff(A_DIM);
        a->wrect = wr;
        draw_widget(a, vo, wr);
    } else {
        /* Stacked: the prose gets the lines it needs up to ~45% of the body (more when the
         * widget needs less), the widget the rest; a widget given fewer rows than it needs
         * scrolls or compacts, and z shows it alone. */
        int need = vo->need ? vo->need(a, body.w) : body.h / 2;
        int mw = body.w < APP_MEASURE ? body.w : APP_MEASURE; /* left-aligned over the widget */
        int want = prose_height(a, mw) + 1;
        int cap = body.h * 45 / 100;
        int ph = body.h - 1 - need;
        if (ph < cap)
            ph = cap;
        if (ph > want)
            ph = want;
        if (ph > body.h - 1 - 6)
            ph = body.h - 1 - 6;
        if (ph < 2)
            ph = 2;
        Rect pr = {body.y, body.x, ph, mw};
        Rect wr = {body.y + ph + 1, body.x, body.h - ph - 1, body.w};
        draw_prose(a, pr);
        attron(A_DIM);
        for (int x = 0; x < body.w; x++)
            ui_put(body.y + ph, body.x + x, 1, ui_glyph(G_HLINE));
        attroff(A_DIM);
        a->wrect = wr;
        draw_widget(a, vo, wr);
    }
    footer_layout(a, has_widget && (a->focus || a->prose_cut || a->widget_cut), 1);
    switch (a->overlay) {
    case OV_HELP: help_draw(a); break;
    case OV_MENU: menu_draw(a); break;
    case OV_EDIT: edit_draw(a); break;
    case OV_TENSOR: tensor_pick_draw(a); break;
    case OV_NOTES: notes_draw(a); break;
    case OV_NONE: break;
    }
    refresh();
}

/* ---- keys ---- */

static void mouse_key(App *a)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return;
    if (!(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
        return;
    if (a->overlay == OV_NONE && a->w && a->w->kind == W_CHIPS && a->model &&
        !chips_click(a, a->wrect, ev.y, ev.x))
        app_msg(a, 0, "click a chip to pick it");
}

void app_key(App *a, int k)
{
    if (k == KEY_RESIZE)
        return;
    a->msg[0] = '\0';
    if (k == APP_CTRL('c')) {
        a->quit = 1;
        return;
    }
    if (COLS < APP_MIN_COLS || LINES < APP_MIN_LINES) {
        if (k == 'q')
            a->quit = 1;
        return;
    }
    switch (a->overlay) {
    case OV_HELP:
        help_key(a, k);
        return;
    case OV_MENU:
        menu_key(a, k);
        return;
    case OV_EDIT:
        edit_key(a, k);
        return;
    case OV_TENSOR:
        tensor_pick_key(a, k);
        return;
    case OV_NOTES:
        if (k == 27 || k == 'q' || k == 'N' || k == '\r' || k == '\n' || k == 'o')
            a->overlay = OV_NONE;
        return;
    case OV_NONE:
        break;
    }
    const ViewOps *vo = cur_view(a);
    if (k == KEY_MOUSE) {
        mouse_key(a);
        return;
    }
    if (vo->key && vo->key(a, k))
        return;
    switch (k) {
    case 'q':
        a->quit = 1;
        break;
    case '?':
    case KEY_F(1):
        a->overlay = OV_HELP;
        a->help_scroll = 0;
        break;
    case 'g':
    case '\t':
        a->overlay = OV_MENU;
        a->menu_sel = a->lesson;
        break;
    case ' ':
    case KEY_NPAGE:
        app_turn(a, 1);
        break;
    case KEY_PPAGE:
    case KEY_BACKSPACE:
    case 127:
    case 8:
        app_turn(a, -1);
        break;
    case 'J':
        a->prose_scroll++;
        break;
    case 'z':
        if (cur_view(a)->kind == W_NONE) {
            app_msg(a, 0, "this page has no widget to focus on");
            break;
        }
        a->focus = !a->focus;
        app_msg(a, 0, a->focus ? "widget focus: z brings the prose back"
                               : "prose and widget");
        break;
    case 'K':
        if (a->prose_scroll > 0)
            a->prose_scroll--;
        break;
    case 'Q': /* the current lesson's questions (view_quiz.c) */
        quiz_open(a, &app_signal);
        break;
    case 'o': {
        const Page *p = cur_page(a);
        if (p && p->notes)
            a->overlay = OV_NOTES;
        else
            app_msg(a, 0, "this page has no speaker notes");
        break;
    }
    case 27:
        break;
    default:
        app_msg(a, 0, "key not used on this page - ? lists every key");
        break;
    }
}

/* ---- start and stop ---- */
static void usage(FILE *f)
{
    fprintf(f, "usage: attend [--lessons DIR] [--lesson ID] [--ascii] [--mouse|--no-mouse]\n"
               "  --lessons DIR  play the course in DIR (default: lessons/)\n"
               "  --lesson ID    open only that lesson\n"
               "  --ascii        ASCII glyphs instead of UTF-8 blocks\n"
               "  --mouse        click chips with the mouse (off by default: mouse capture\n"
               "                 stops the terminal's own copy and paste)\n"
               "Environment: NO_COLOR turns colour off; XDG_STATE_HOME for progress.\n");
}

static void app_free(App *a)
{
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

/* For the benchmark: the App behind a course directory, without a terminal loop. */
App *app_new(void)
{
    App *a = calloc(1, sizeof *a);
    return a;
}

void app_delete(App *a)
{
    if (!a)
        return;
    app_free(a);
    free(a);
}

int tui_main(int argc, char **argv)
{
    const char *dir = NULL, *only = NULL;
    char dirbuf[1024], err[1024] = "";
    UiOpts uo;
    memset(&uo, 0, sizeof uo);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--lessons") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--lesson") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--ascii"))
            uo.ascii = 1;
        else if (!strcmp(argv[i], "--mouse"))
            uo.mouse = 1;
        else if (!strcmp(argv[i], "--no-mouse"))
            uo.mouse = 0;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "attend: unknown option \"%s\"\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    setlocale(LC_ALL, "");
    if (!dir) {
        data_path("lessons", dirbuf, sizeof dirbuf);
        dir = dirbuf;
    }
    App *a = app_new();
    if (!a) {
        fprintf(stderr, "attend: out of memory\n");
        return 1;
    }
    /* ui.utf8 must be known before prose is transliterated: decide it from the locale now. */
    ui.utf8 = 0;
    {
        const char *cs = nl_langinfo(CODESET);
        ui.utf8 = !uo.ascii && cs && !strcmp(cs, "UTF-8");
    }
    if (app_load(a, dir, only, err, sizeof err)) {
        fprintf(stderr, "attend: %s\n", err);
        app_delete(a);
        return 1;
    }
    install_signals();
    atexit(ui_end);
    if (ui_start(&uo, err, sizeof err)) {
        fprintf(stderr, "attend: %s\n", err);
        app_delete(a);
        return 1;
    }
    timeout(250); /* wake up to notice signals even with no key */
    app_run(a);   /* prose is transliterated with the final ui mode */
    int dirty = 1;
    /* ATTEND_CRASH_TEST=segv|abort (undocumented, for tests/e2e): raise that signal after
     * the first draw, to prove the crash handler restores the terminal. It only raises a
     * signal; nothing is corrupted. */
    const char *crash = getenv("ATTEND_CRASH_TEST");
    while (!a->quit && !app_signal) {
        if (dirty)
            app_draw(a);
        if (crash && crash[0])
            raise(!strcmp(crash, "abort") ? SIGABRT : SIGSEGV);
        dirty = 0;
        int k = ui_read_key();
        if (k < 0)
            continue;
        app_key(a, k);
        dirty = 1;
    }
    ui_end();
    int rc = 0;
    if (app_signal) {
        fprintf(stderr, "attend: stopped by signal %d; progress is saved\n", (int)app_signal);
        rc = 128 + (int)app_signal;
    }
    app_delete(a);
    return rc;
}
