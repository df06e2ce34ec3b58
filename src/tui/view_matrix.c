/* view_matrix.c - any traced tensor by name (the matrix widget), and the tensor picker
 * overlay t opens on it: every entry of the trace with its shape. */
#include <curses.h>
#include <string.h>

#include "app_views.h"
#include "view_matrix.h"
#include "mtable.h"
#include "ui.h"

/* The matrix's own state: its scroll (the tensor shown is the Session's). */
typedef struct {
    int scroll_r, scroll_c;
} Matrix;

static Matrix *mx(App *a)
{
    return app_view_state(a, &VIEW_MATRIX);
}

const char *matrix_view_tensor(const App *a)
{
    return a->s->tensor;
}

int matrix_head_rows(App *a, const TraceEntry *e, int w)
{
    return 1 + ui_wrap_lines(trace_kind_formula(e->kind), w, 2) + mtable_encdec_dec(a, e);
}

/* Why a tensor the page names is not in the trace, when the controls explain it (the PE
 * control decides whether pe, x_pe, q_rot and k_rot exist); NULL otherwise. */
static const char *absent_reason(const App *a, const char *name, char *buf, size_t n)
{
    const char *dot = strrchr(name, '.');
    const char *base = dot ? dot + 1 : name;
    int pe = a->s->t->ctl.pe;
    if ((!strcmp(base, "pe") || !strcmp(base, "x_pe")) && pe == PE_NONE)
        snprintf(buf, n, "PE is none: nothing is added to the embeddings, so there is no %s "
                 "(p switches the encoding)", base);
    else if ((!strcmp(base, "pe") || !strcmp(base, "x_pe")) && pe == PE_ROPE)
        snprintf(buf, n, "PE is rope: nothing is added to the embeddings, so there is no %s; "
                 "RoPE rotates q and k inside attention (q_rot, k_rot)", base);
    else if ((!strcmp(base, "q_rot") || !strcmp(base, "k_rot")) && pe != PE_ROPE)
        snprintf(buf, n, "%s exists only with RoPE (PE is %s; p switches it)", base,
                 model_pe_name(pe));
    else
        return NULL;
    return buf;
}

static void matrix_draw(App *a, Rect r)
{
    if (!a->s->ran) {
        attron(COLOR_PAIR(UI_WARN));
        ui_put(r.y, r.x, r.w, a->s->run_err[0] ? a->s->run_err : "nothing to show");
        attroff(COLOR_PAIR(UI_WARN));
        return;
    }
    const TraceEntry *e = trace_find_name(a->s->t, a->s->tensor);
    char why[200];
    if (!e && absent_reason(a, a->s->tensor, why, sizeof why)) {
        ui_wrap_put(r.y, r.x, r.w, why, r.h);
        return;
    }
    if (!e) {
        attron(COLOR_PAIR(UI_WARN));
        ui_putf(r.y, r.x, r.w, "no tensor \"%s\" in this trace%s", a->s->tensor,
                a->s->allowed & C_TENSOR ? " - t picks one" : "");
        attroff(COLOR_PAIR(UI_WARN));
        return;
    }
    mtable_clamp(e, &mx(a)->scroll_r, &mx(a)->scroll_c);
    attron(A_BOLD);
    ui_putf(r.y, r.x, r.w, "%s  %s  [%d%s%d]", e->name, trace_kind_symbol(e->kind), e->rows,
            ui_glyph(G_TIMES), e->cols);
    attroff(A_BOLD);
    attron(COLOR_PAIR(UI_ACCENT));
    int y = r.y + 1;
    y += ui_wrap_put(y, r.x, r.w, trace_kind_formula(e->kind), 2);
    attroff(COLOR_PAIR(UI_ACCENT));
    if (mtable_encdec_dec(a, e)) {
        attron(A_DIM);
        ui_put(y++, r.x, r.w, APP_DEC_ROW_NOTE);
        attroff(A_DIM);
    } else if (r.y + r.h - y > mtable_need(a, e, r.w)) {
        y++; /* a blank line when there is room */
    }
    Rect m = {y, r.x, r.y + r.h - y, r.w};
    mtable_draw(a, m, e, mx(a)->scroll_r, mx(a)->scroll_c);
}

static int matrix_key(App *a, Request req, int k)
{
    (void)k;
    if (req == REQ_PICK_TENSOR)
        return a->s->ran && app_overlay_open(a, &VIEW_TENSOR, 0) == 0;
    if (mtable_scroll(req, &mx(a)->scroll_r, &mx(a)->scroll_c)) {
        mtable_clamp(a->s->ran ? trace_find_name(a->s->t, a->s->tensor) : NULL, &mx(a)->scroll_r,
                     &mx(a)->scroll_c);
        return 1;
    }
    return 0;
}

static int matrix_need(App *a, int w)
{
    const TraceEntry *e = a->s->ran ? trace_find_name(a->s->t, a->s->tensor) : NULL;
    if (!e)
        return 3;
    return matrix_head_rows(a, e, w) + mtable_need(a, e, w);
}

/* Table rows out of sight in a w x h pane (columns scroll sideways by design: a d_model-wide
 * tensor never fits 80 columns). */
static int matrix_hidden(App *a, int w, int h)
{
    const TraceEntry *e = a->s->ran ? trace_find_name(a->s->t, a->s->tensor) : NULL;
    if (!e)
        return 0;
    int vr, vc;
    mtable_visible(a, e, w, h - matrix_head_rows(a, e, w), &vr, &vc);
    return e->rows > vr ? e->rows - (vr > 0 ? vr : 0) : 0;
}

static void matrix_reset(App *a)
{
    mx(a)->scroll_r = mx(a)->scroll_c = 0;
}

/* A new sentence: the matrix from its top left. */
static void matrix_edited(App *a, int target)
{
    (void)target;
    mx(a)->scroll_r = mx(a)->scroll_c = 0;
}

const ViewOps VIEW_MATRIX = {
    .name = "matrix", .kind = W_MATRIX,
    .draw = matrix_draw, .key = matrix_key, .need = matrix_need, .self_scroll = 1,
    .hidden = matrix_hidden,
    .state_size = sizeof(Matrix), .reset = matrix_reset, .edited = matrix_edited,
};

/* ---- the tensor picker overlay ---- */
typedef struct {
    int sel; /* the highlighted entry of the trace */
} TensorPick;

static int tensor_open(App *a, int arg)
{
    TensorPick *p = app_view_state(a, &VIEW_TENSOR);
    (void)arg;
    p->sel = 0;
    for (int i = 0; i < a->s->t->n_entries; i++)
        if (!strcmp(trace_meta(a->s->t, i)->name, a->s->tensor))
            p->sel = i;
    return 0;
}

static void tensor_draw(App *a, Rect full)
{
    TensorPick *p = app_view_state(a, &VIEW_TENSOR);
    (void)full;
    int h = LINES - 4, w = 56;
    if (w > COLS - 4)
        w = COLS - 4;
    int y0 = 2, x0 = (COLS - w) / 2;
    attrset(A_NORMAL);
    for (int y = y0; y < y0 + h; y++)
        ui_fill(y, x0, w);
    ui_box(y0, x0, h, w, "pick a tensor (enter: show, esc: close)");
    int rows = h - 2, n = a->s->t->n_entries;
    int top = p->sel - rows / 2;
    if (top > n - rows)
        top = n - rows;
    if (top < 0)
        top = 0;
    for (int i = top; i < n && i < top + rows; i++) {
        const TraceEntry *e = trace_meta(a->s->t, i); /* names and shapes: no map computed */
        if (i == p->sel)
            attron(A_REVERSE);
        ui_putf(y0 + 1 + i - top, x0 + 2, w - 4, "%-26s [%d%s%d]  %s", e->name, e->rows,
                ui_glyph(G_TIMES), e->cols, trace_kind_symbol(e->kind));
        if (i == p->sel)
            attroff(A_REVERSE);
    }
}

static int tensor_key(App *a, Request req, int k)
{
    TensorPick *p = app_view_state(a, &VIEW_TENSOR);
    int n = a->s->t->n_entries;
    (void)k;
    switch (req) {
    case REQ_SEL_UP:
        if (p->sel > 0)
            p->sel--;
        break;
    case REQ_SEL_DOWN:
        if (p->sel < n - 1)
            p->sel++;
        break;
    case REQ_SEL_PAGE_DOWN:
        p->sel = p->sel + 10 < n ? p->sel + 10 : n - 1;
        break;
    case REQ_SEL_PAGE_UP:
        p->sel = p->sel > 10 ? p->sel - 10 : 0;
        break;
    case REQ_SEL_FIRST:
        p->sel = 0;
        break;
    case REQ_SEL_LAST:
        p->sel = n - 1;
        break;
    case REQ_ACCEPT:
        app_overlay_close(a);
        if (p->sel >= 0 && p->sel < n) {
            app_request(a, REQ_PICK_TENSOR, trace_meta(a->s->t, p->sel)->name);
            mx(a)->scroll_r = mx(a)->scroll_c = 0;
        }
        break;
    case REQ_CLOSE:
        app_overlay_close(a);
        break;
    default:
        break;
    }
    return 1;
}

const ViewOps VIEW_TENSOR = {
    .name = "tensor picker", .keymap = KM_TENSOR, .overlay = 1,
    .state_size = sizeof(TensorPick), .open = tensor_open, .draw = tensor_draw, .key = tensor_key,
};
