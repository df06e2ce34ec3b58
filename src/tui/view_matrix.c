/* view_matrix.c - any traced tensor by name (t picks one from the trace), and the scrollable
 * matrix drawing the passport shares. */
#include <curses.h>
#include <math.h>
#include <string.h>

#include "app.h"
#include "ui.h"

#define MCELL 8 /* columns per value: "%7.3f " */

static int is_encdec_dec(const App *a, const TraceEntry *e)
{
    return e->stack == STACK_DEC && a->model && a->model->cfg.arch == ARCH_ENCDEC;
}

static int is_key_kind(TensorKind k)
{
    return k == T_K || k == T_V || k == T_K_ROT;
}

static int is_attention_kind(TensorKind k)
{
    return k == T_SCORES || k == T_SCALED || k == T_MASK || k == T_MASKED || k == T_WEIGHTS;
}

/* Row label: the token when the tensor has one row per token, else the row index. A decoder
 * row of an encoder-decoder model is the word it produces (tgt); the keys and values of its
 * self-attention are what each position reads (tgt_in); cross-attention keys and values are
 * the source words. */
static void row_label(App *a, const TraceEntry *e, int i, char *out, size_t n)
{
    const Trace *t = a->t;
    const Vocab *v = &a->model->vocab;
    if (is_encdec_dec(a, e)) {
        if (e->sub == SUB_CROSS && is_key_kind(e->kind) && e->rows == t->n)
            snprintf(out, n, "%s", vocab_word(v, t->src[i]));
        else if (e->rows == t->m && e->sub == SUB_SELF && is_key_kind(e->kind))
            snprintf(out, n, "%s", vocab_word(v, t->tgt_in[i]));
        else if (e->rows == t->m)
            snprintf(out, n, "%s", vocab_word(v, t->tgt[i]));
        else
            snprintf(out, n, "%d", i);
    } else if (e->rows == t->n && i < t->n) {
        snprintf(out, n, "%s", vocab_word(v, t->src[i]));
    } else {
        snprintf(out, n, "%d", i);
    }
}

/* Column label of an attention tensor (keys): "j:word"; NULL for other tensors. */
static const char *col_token(App *a, const TraceEntry *e, int j)
{
    const Trace *t = a->t;
    const Vocab *v = &a->model->vocab;
    if (!is_attention_kind(e->kind))
        return NULL;
    if (is_encdec_dec(a, e) && e->sub == SUB_SELF)
        return e->cols == t->m ? vocab_word(v, t->tgt_in[j]) : NULL;
    return e->cols == t->n ? vocab_word(v, t->src[j]) : NULL;
}

/* Row label column: 8 (7 characters of a token), 12 in a wide pane (80x24 never is). */
static int matrix_lw(int w)
{
    return w >= APP_BIG_W ? 12 : 8;
}

int app_matrix_need(const TraceEntry *e, int w)
{
    int vis_c = (w - matrix_lw(w)) / MCELL;
    return e ? 1 + e->rows + (e->cols > vis_c ? 1 : 0) : 1;
}

typedef struct {
    int y, x, w, maxl, n;
    int draw;
} WrapCtx;

static void wrap_line(const char *s, int len, void *vctx)
{
    WrapCtx *c = vctx;
    int i = c->n++;
    if (!c->draw || i >= c->maxl)
        return;
    char line[1024];
    snprintf(line, sizeof line, "%.*s", len, s);
    if (i == c->maxl - 1) {
        /* the last line allowed: the rest of the text follows on it, cut with "…" */
        char rest[1024];
        snprintf(rest, sizeof rest, "%s", s);
        for (char *q = rest; *q; q++)
            if (*q == '\n')
                *q = ' ';
        ui_put(c->y + i, c->x, c->w, rest);
        return;
    }
    ui_put(c->y + i, c->x, c->w, line);
}

int app_wrap_lines(const char *text, int w, int maxl)
{
    WrapCtx c = {0, 0, w, maxl, 0, 0};
    ui_wrap(text, w, wrap_line, &c);
    return c.n < maxl ? c.n : maxl;
}

int app_wrap_put(int y, int x, int w, const char *text, int maxl)
{
    WrapCtx c = {y, x, w, maxl, 0, 1};
    ui_wrap(text, w, wrap_line, &c);
    return c.n < maxl ? c.n : maxl;
}

int app_draw_matrix(App *a, Rect r, const TraceEntry *e, int sr, int sc)
{
    if (r.h < 2 || !e)
        return 0;
    int lw = matrix_lw(r.w);
    int vis_c = (r.w - lw) / MCELL;
    int vis_r = r.h - 1;
    if (e->rows > vis_r || e->cols > vis_c)
        vis_r = r.h - 2; /* a line says what is out of view */
    if (vis_c < 1 || vis_r < 1)
        return 0;
    if (sc > e->cols - vis_c)
        sc = e->cols - vis_c;
    if (sc < 0)
        sc = 0;
    if (sr > e->rows - vis_r)
        sr = e->rows - vis_r;
    if (sr < 0)
        sr = 0;
    attron(A_DIM);
    for (int j = sc; j < e->cols && j < sc + vis_c; j++) {
        const char *tok = col_token(a, e, j);
        char lab[96];
        if (tok)
            snprintf(lab, sizeof lab, "%d:%s", j, tok);
        else
            snprintf(lab, sizeof lab, "%d", j);
        int lw2 = ui_width(lab) < MCELL - 1 ? ui_width(lab) : MCELL - 1;
        ui_put(r.y, r.x + lw + (j - sc) * MCELL + (MCELL - 1 - lw2), MCELL - 1, lab);
    }
    attroff(A_DIM);
    int y = r.y + 1;
    for (int i = sr; i < e->rows && i < sr + vis_r; i++, y++) {
        char lab[64];
        row_label(a, e, i, lab, sizeof lab);
        ui_put(y, r.x, lw - 1, lab);
        for (int j = sc; j < e->cols && j < sc + vis_c; j++) {
            float v = e->data[(size_t)i * e->cols + j];
            int x = r.x + lw + (j - sc) * MCELL;
            if (isinf(v)) {
                attron(A_DIM);
                ui_putf(y, x, MCELL, "%*s%s", 7 - ui_width(ui_glyph(G_NEG_INF)), "",
                        v < 0 ? ui_glyph(G_NEG_INF) : "inf");
                attroff(A_DIM);
            } else {
                ui_putf(y, x, MCELL, "%7.3f", (double)v);
            }
        }
    }
    int more_r = e->rows > vis_r, more_c = e->cols > vis_c;
    if (more_r || more_c) {
        attron(A_DIM);
        ui_putf(y, r.x, r.w, "rows %d-%d of %d, cols %d-%d of %d  (%s scroll)", sr + 1,
                sr + (vis_r < e->rows ? vis_r : e->rows), e->rows, sc + 1,
                sc + (vis_c < e->cols ? vis_c : e->cols), e->cols,
                ui.utf8 ? "↑↓ < >" : "up/down < >");
        attroff(A_DIM);
        y++;
    }
    return y - r.y;
}

/* Scroll keys shared with the passport. Returns 1 if used. */
int app_scroll_key(App *a, int k)
{
    switch (k) {
    case KEY_UP:
    case 'k':
        if (a->scroll_r > 0)
            a->scroll_r--;
        return 1;
    case KEY_DOWN:
    case 'j':
        a->scroll_r++;
        return 1;
    case '<':
    case ',':
        if (a->scroll_c > 0)
            a->scroll_c--;
        return 1;
    case '>':
    case '.':
        a->scroll_c++;
        return 1;
    default:
        return 0;
    }
}

/* Clamps scrolling to the tensor so that keys never scroll into emptiness. */
void app_clamp_scroll(App *a, const TraceEntry *e)
{
    if (!e)
        return;
    if (a->scroll_r > e->rows - 1)
        a->scroll_r = e->rows - 1;
    if (a->scroll_c > e->cols - 1)
        a->scroll_c = e->cols - 1;
    if (a->scroll_r < 0)
        a->scroll_r = 0;
    if (a->scroll_c < 0)
        a->scroll_c = 0;
}

static void matrix_draw(App *a, Rect r)
{
    if (!a->ran) {
        attron(COLOR_PAIR(UI_WARN));
        ui_put(r.y, r.x, r.w, a->run_err[0] ? a->run_err : "nothing to show");
        attroff(COLOR_PAIR(UI_WARN));
        return;
    }
    const TraceEntry *e = trace_find_name(a->t, a->tensor);
    if (!e) {
        attron(COLOR_PAIR(UI_WARN));
        ui_putf(r.y, r.x, r.w, "no tensor \"%s\" in this trace%s", a->tensor,
                a->allowed & C_TENSOR ? " - t picks one" : "");
        attroff(COLOR_PAIR(UI_WARN));
        return;
    }
    app_clamp_scroll(a, e);
    attron(A_BOLD);
    ui_putf(r.y, r.x, r.w, "%s  %s  [%d%s%d]", e->name, trace_kind_symbol(e->kind), e->rows,
            ui_glyph(G_TIMES), e->cols);
    attroff(A_BOLD);
    attron(COLOR_PAIR(UI_ACCENT));
    int y = r.y + 1;
    y += app_wrap_put(y, r.x, r.w, trace_kind_formula(e->kind), 2);
    attroff(COLOR_PAIR(UI_ACCENT));
    if (is_encdec_dec(a, e)) {
        attron(A_DIM);
        ui_put(y++, r.x, r.w, APP_DEC_ROW_NOTE);
        attroff(A_DIM);
    } else if (r.y + r.h - y > app_matrix_need(e, r.w)) {
        y++; /* a blank line when there is room */
    }
    Rect m = {y, r.x, r.y + r.h - y, r.w};
    app_draw_matrix(a, m, e, a->scroll_r, a->scroll_c);
}

static int matrix_key(App *a, int k)
{
    if (k == 't' && (a->allowed & C_TENSOR) && a->ran) {
        a->overlay = OV_TENSOR;
        a->tensor_sel = 0;
        for (int i = 0; i < a->t->n_entries; i++)
            if (!strcmp(a->t->entries[i].name, a->tensor))
                a->tensor_sel = i;
        return 1;
    }
    if (app_scroll_key(a, k)) {
        app_clamp_scroll(a, a->ran ? trace_find_name(a->t, a->tensor) : NULL);
        return 1;
    }
    return app_common_key(a, k);
}

static void matrix_keys(App *a, char *b, size_t n)
{
    if (a->allowed & C_TENSOR)
        app_hint(b, n, "t", "pick tensor");
    app_hint(b, n, ui.utf8 ? "↑↓ < >" : "up/down < >", "scroll");
    app_common_hints(a, b, n);
}

static int matrix_need(App *a, int w)
{
    const TraceEntry *e = a->ran ? trace_find_name(a->t, a->tensor) : NULL;
    if (!e)
        return 3;
    return 1 + app_wrap_lines(trace_kind_formula(e->kind), w, 2) + (is_encdec_dec(a, e) ? 1 : 0) +
           app_matrix_need(e, w);
}

const ViewOps VIEW_MATRIX = {W_MATRIX, matrix_draw, matrix_key, matrix_keys, matrix_need, 1};

/* The tensor picker overlay: every entry of the trace with its shape. */
void tensor_pick_draw(App *a)
{
    int h = LINES - 4, w = 56;
    if (w > COLS - 4)
        w = COLS - 4;
    int y0 = 2, x0 = (COLS - w) / 2;
    attrset(A_NORMAL);
    for (int y = y0; y < y0 + h; y++)
        ui_fill(y, x0, w);
    ui_box(y0, x0, h, w, "pick a tensor (enter: show, esc: close)");
    int rows = h - 2, n = a->t->n_entries;
    int top = a->tensor_sel - rows / 2;
    if (top > n - rows)
        top = n - rows;
    if (top < 0)
        top = 0;
    for (int i = top; i < n && i < top + rows; i++) {
        const TraceEntry *e = &a->t->entries[i];
        if (i == a->tensor_sel)
            attron(A_REVERSE);
        ui_putf(y0 + 1 + i - top, x0 + 2, w - 4, "%-26s [%d%s%d]  %s", e->name, e->rows,
                ui_glyph(G_TIMES), e->cols, trace_kind_symbol(e->kind));
        if (i == a->tensor_sel)
            attroff(A_REVERSE);
    }
}

int tensor_pick_key(App *a, int k)
{
    int n = a->t->n_entries;
    switch (k) {
    case KEY_UP:
    case 'k':
        if (a->tensor_sel > 0)
            a->tensor_sel--;
        break;
    case KEY_DOWN:
    case 'j':
        if (a->tensor_sel < n - 1)
            a->tensor_sel++;
        break;
    case KEY_NPAGE:
        a->tensor_sel = a->tensor_sel + 10 < n ? a->tensor_sel + 10 : n - 1;
        break;
    case KEY_PPAGE:
        a->tensor_sel = a->tensor_sel > 10 ? a->tensor_sel - 10 : 0;
        break;
    case KEY_HOME:
        a->tensor_sel = 0;
        break;
    case KEY_END:
        a->tensor_sel = n - 1;
        break;
    case '\r':
    case '\n':
    case KEY_ENTER:
        if (a->tensor_sel >= 0 && a->tensor_sel < n) {
            snprintf(a->tensor, sizeof a->tensor, "%s", a->t->entries[a->tensor_sel].name);
            a->scroll_r = a->scroll_c = 0;
        }
        a->overlay = OV_NONE;
        break;
    case 27:
    case 'q':
    case 't':
        a->overlay = OV_NONE;
        break;
    default:
        break;
    }
    return 1;
}
