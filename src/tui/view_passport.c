/* view_passport.c - the shape passport: step through one block in computation order (X, +PE,
 * Q, K, V, QKᵀ, ÷√d_k, M, +M, softmax, ·V, concat, ·W_O, +residual, norm, FFN, +residual),
 * showing the formula, the chain of shapes so far with the current step highlighted, and the
 * matrix itself, scrollable. Steps are read from the Trace of the current layer and head. */
#include <curses.h>
#include <string.h>

#include "app_views.h"
#include "mtable.h"
#include "ui.h"

/* The passport's own state: the matrix's scroll, and the step it scrolled (the step is the
 * Session's: a new step shows its matrix from the top left). */
typedef struct {
    int scroll_r, scroll_c, scroll_step;
} Passport;

static Passport *ps(App *a)
{
    Passport *p = app_view_state(a, &VIEW_PASSPORT);
    if (p->scroll_step != a->s->step) {
        p->scroll_r = p->scroll_c = 0;
        p->scroll_step = a->s->step;
    }
    return p;
}

#define MAX_STEPS 64

/* Indices into t->entries of the steps, in the order shown (widget_passport_steps: a layer
 * after the first starts from the previous layer's output). Never allocates. */
static int passport_steps(const App *a, int *idx)
{
    return widget_passport_steps(a->s->t, session_stack(a->s), a->s->layer, a->s->head, idx,
                                 MAX_STEPS);
}

static void shape(const TraceEntry *e, char *out, size_t n)
{
    snprintf(out, n, "[%d%s%d]", e->rows, ui_glyph(G_TIMES), e->cols);
}

/* A step of the chain: "QKᵀ [6×6]", or "L0 out [6×32]" for the previous layer's output. */
static void step_seg(const App *a, int i, const char *sh, char *seg, size_t n)
{
    char sym[32];
    snprintf(seg, n, "%s %s", widget_passport_symbol(trace_entry(a->s->t, i), a->s->layer, sym, sizeof sym),
             sh);
}

/* Lines the chain up to step cur takes at width w. */
static int chain_lines(App *a, const int *idx, int cur, int w)
{
    const char *arrow = ui_glyph(G_ARROW);
    int aw = ui_width(arrow) + 2, x = 0, line = 0;
    for (int s = 0; s <= cur; s++) {
        char seg[96], sh[32], tr[128];
        shape(trace_entry(a->s->t, idx[s]), sh, sizeof sh);
        step_seg(a, idx[s], sh, seg, sizeof seg);
        int sw = ui_width(ui_text(seg, tr, sizeof tr));
        int need = (s ? aw : 0) + sw;
        if (x + need > w && x > 0) {
            line++;
            x = 0;
            need = sw;
        }
        x += need;
    }
    return line + 1;
}

/* The chain "X [6×32] → +PE [6×32] → ..." up to the current step, wrapped; only the last
 * `maxl` lines are shown. Returns the rows used. */
static int draw_chain(App *a, Rect r, const int *idx, int cur, int maxl)
{
    int lines_x[MAX_STEPS], lines_y[MAX_STEPS];
    int x = 0, line = 0;
    const char *arrow = ui_glyph(G_ARROW);
    int aw = ui_width(arrow) + 2;
    /* lay out first, to know how many lines there are */
    for (int s = 0; s <= cur; s++) {
        char seg[96], sh[32];
        shape(trace_entry(a->s->t, idx[s]), sh, sizeof sh);
        step_seg(a, idx[s], sh, seg, sizeof seg);
        char tr[128];
        int w = ui_width(ui_text(seg, tr, sizeof tr));
        int need = (s ? aw : 0) + w;
        if (x + need > r.w && x > 0) {
            line++;
            x = 0;
            need = w;
        }
        lines_x[s] = x + (need - w);
        lines_y[s] = line;
        x += need;
    }
    int first = line - maxl + 1;
    if (first < 0)
        first = 0;
    for (int s = 0; s <= cur; s++) {
        if (lines_y[s] < first)
            continue;
        int y = r.y + lines_y[s] - first, xx = r.x + lines_x[s];
        char seg[96], sh[32];
        shape(trace_entry(a->s->t, idx[s]), sh, sizeof sh);
        step_seg(a, idx[s], sh, seg, sizeof seg);
        if (lines_x[s] > 0) {
            attron(A_DIM);
            ui_putf(y, xx - aw, aw, " %s ", arrow);
            attroff(A_DIM);
        }
        if (s == cur)
            attron(A_REVERSE | A_BOLD);
        ui_put(y, xx, r.x + r.w - xx, seg);
        if (s == cur)
            attroff(A_REVERSE | A_BOLD);
    }
    if (first > 0) {
        attron(A_DIM);
        ui_putf(r.y, r.x + r.w - 12, 12, "(%d earlier)", first);
        attroff(A_DIM);
    }
    return line - first + 1;
}

/* The chain's lines above e's table in a w x h pane whose first head rows are taken: up to
 * three (its latest), fewer when the table would not show all its rows, down to one: the
 * table's rows are the data, the chain's earlier steps only their history; *roomy: blank
 * lines around it. */
static int fit_chain(App *a, const int *idx, const TraceEntry *e, int w, int h, int head,
                     int *roomy)
{
    int chain = chain_lines(a, idx, a->s->step, w);
    if (chain > 3)
        chain = 3;
    int mneed = mtable_need(a, e, w);
    *roomy = h >= head + 2 + chain + mneed;
    if (!*roomy && h - head - mneed < chain)
        chain = h - head - mneed > 1 ? h - head - mneed : 1;
    return chain;
}

static void passport_draw(App *a, Rect r)
{
    if (!a->s->ran) {
        attron(COLOR_PAIR(UI_WARN));
        ui_put(r.y, r.x, r.w, a->s->run_err[0] ? a->s->run_err : "nothing to show");
        attroff(COLOR_PAIR(UI_WARN));
        return;
    }
    int idx[MAX_STEPS];
    int n = passport_steps(a, idx);
    if (n == 0) {
        ui_put(r.y, r.x, r.w, "no tensors traced");
        return;
    }
    const TraceEntry *e = trace_entry(a->s->t, idx[a->s->step]);
    char sh[32];
    shape(e, sh, sizeof sh);
    attron(COLOR_PAIR(UI_ACCENT));
    char lh[80];
    app_layer_head(a, a->s->layer, a->s->head, lh, sizeof lh);
    ui_putf(r.y, r.x, r.w, "shape passport  %s  mask:%s  PE:%s", lh,
            app_mask_name(a, model_self_stack(a->s->model), SUB_SELF),
            model_pe_name(a->s->ctl.pe));
    attroff(COLOR_PAIR(UI_ACCENT));
    attron(A_BOLD);
    char sym[32], formula[200];
    ui_putf(r.y + 1, r.x, r.w, "step %d/%d: %s  %s  %s", a->s->step + 1, n,
            widget_passport_symbol(e, a->s->layer, sym, sizeof sym), sh, e->name);
    attroff(A_BOLD);
    int y = r.y + 2;
    y += ui_wrap_put(y, r.x, r.w, widget_passport_formula(e, a->s->layer, formula, sizeof formula), 2);
    char files[480];
    if (widget_passport_weights(e, a->s->model, files, sizeof files)[0]) {
        attron(COLOR_PAIR(UI_ACCENT));
        y += ui_wrap_put(y, r.x, r.w, files, 2);
        attroff(COLOR_PAIR(UI_ACCENT));
    }
    int roomy, chain = fit_chain(a, idx, e, r.w, r.h, y - r.y, &roomy);
    if (roomy)
        y++;
    Rect ch = {y, r.x, chain, r.w};
    y += draw_chain(a, ch, idx, a->s->step, chain);
    if (roomy)
        y++;
    Rect m = {y, r.x, r.y + r.h - y, r.w};
    mtable_clamp(e, &ps(a)->scroll_r, &ps(a)->scroll_c);
    mtable_draw(a, m, e, ps(a)->scroll_r, ps(a)->scroll_c);
}

static int passport_key(App *a, Request req, int k)
{
    int idx[MAX_STEPS];
    (void)k;
    if (!a->s->ran)
        return 0;
    int n = passport_steps(a, idx);
    if (mtable_scroll(req, &ps(a)->scroll_r, &ps(a)->scroll_c)) {
        if (a->s->step < n)
            mtable_clamp(trace_entry(a->s->t, idx[a->s->step]), &ps(a)->scroll_r, &ps(a)->scroll_c);
        return 1;
    }
    return 0;
}

static int passport_need(App *a, int w)
{
    int idx[MAX_STEPS];
    if (!a->s->ran)
        return 3;
    int n = passport_steps(a, idx);
    if (n == 0)
        return 3;
    int st = a->s->step < n ? a->s->step : n - 1;
    const TraceEntry *e = trace_entry(a->s->t, idx[st]);
    int chain = chain_lines(a, idx, st, w);
    char formula[200], files[480];
    int fl = widget_passport_weights(e, a->s->model, files, sizeof files)[0]
                 ? ui_wrap_lines(files, w, 2) : 0;
    return 2 + ui_wrap_lines(widget_passport_formula(e, a->s->layer, formula, sizeof formula), w, 2) +
           fl +
           1 + (chain > 3 ? 3 : chain) +
           1 + mtable_need(a, e, w);
}

/* Table rows out of sight in a w x h pane (columns scroll sideways by design). */
static int passport_hidden(App *a, int w, int h)
{
    int idx[MAX_STEPS];
    int n = a->s->ran ? passport_steps(a, idx) : 0;
    if (n == 0)
        return 0;
    const TraceEntry *e = trace_entry(a->s->t, idx[a->s->step]);
    char formula[200], files[480];
    int head = 2 + ui_wrap_lines(widget_passport_formula(e, a->s->layer, formula, sizeof formula), w, 2);
    if (widget_passport_weights(e, a->s->model, files, sizeof files)[0])
        head += ui_wrap_lines(files, w, 2);
    int roomy, chain = fit_chain(a, idx, e, w, h, head, &roomy);
    int vr, vc;
    mtable_visible(a, e, w, h - head - chain - 2 * roomy, &vr, &vc);
    return e->rows > vr ? e->rows - (vr > 0 ? vr : 0) : 0;
}

static void passport_reset(App *a)
{
    ps(a)->scroll_r = ps(a)->scroll_c = 0;
}

/* A new sentence: the matrix from its top left. */
static void passport_edited(App *a, int target)
{
    (void)target;
    ps(a)->scroll_r = ps(a)->scroll_c = 0;
}

const ViewOps VIEW_PASSPORT = {
    .name = "passport", .kind = W_PASSPORT,
    .draw = passport_draw, .key = passport_key, .need = passport_need, .self_scroll = 1,
    .hidden = passport_hidden,
    .state_size = sizeof(Passport), .reset = passport_reset, .edited = passport_edited,
};
