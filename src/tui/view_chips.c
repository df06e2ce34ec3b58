/* view_chips.c - the sentence as token chips: pick two to swap them, then read whether the
 * attention outputs are the same outputs permuted (max|Attn(PX) − P·Attn(X)| from the
 * engine's model_equivariance), and see them: the output rows of the original order beside
 * those of the current one, each tagged "moved from i" or "changed". Keys, or mouse clicks
 * when --mouse is on. */
#include <curses.h>
#include <string.h>

#include "app_views.h"
#include "ui.h"

#define EQUIV_TOL 1e-4f /* float rounding of a reordered sum stays far below this */

/* The widget, top to bottom: the title; the chips (each line of chips under a row of
 * position numbers when there is room, over the cursor's row); the output rows before and
 * after the reordering side by side (header, then one row per token); the verdict; a line
 * saying why, when there is room. The position numbers and the why line are the extras a
 * short pane leaves out (chips_need counts without them). */
typedef struct {
    int idx_row; /* 1: position numbers over the chips */
    int why;     /* 1: the line saying why under the verdict */
} ChipsFit;

/* Where chip i sits in r: its row and column (shared by draw and mouse clicks). */
static void chip_pos(App *a, Rect r, int idx_row, int i, int *y, int *x, int *w)
{
    int cx = r.x, cy = r.y + 1 + idx_row;
    for (int k = 0; k <= i; k++) {
        int cw = ui_width(vocab_word(&a->s->model->vocab, a->s->t->src[k])) + 4;
        if (cx + cw > r.x + r.w && cx > r.x) {
            cx = r.x;
            cy += 2 + idx_row;
        }
        if (k == i) {
            *y = cy;
            *x = cx;
            *w = cw;
            return;
        }
        cx += cw + 1;
    }
}

/* Rows from r.y to the cursor's row under the last line of chips, inclusive. */
static int chips_rows(App *a, Rect r, int idx_row)
{
    int y, x, w;
    if (!a->s->ran || a->s->t->n == 0)
        return 1;
    chip_pos(a, r, idx_row, a->s->t->n - 1, &y, &x, &w);
    return y - r.y + 2;
}

/* Rows the widget needs without its extras: chips, the output table, the verdict. */
static int chips_min_rows(App *a, Rect r)
{
    return chips_rows(a, r, 0) + 1 + a->s->t->n + 1;
}

static ChipsFit chips_fit(App *a, Rect r)
{
    ChipsFit f = {0, 0};
    if (!a->s->ran)
        return f;
    int spare = r.h - chips_min_rows(a, r);
    f.idx_row = spare >= chips_rows(a, r, 1) - chips_rows(a, r, 0);
    if (f.idx_row)
        spare -= chips_rows(a, r, 1) - chips_rows(a, r, 0);
    f.why = spare >= 1;
    return f;
}

#define CHIPS_VAL_W 7  /* " -12.34" */
#define CHIPS_TAG_W 9 /* "  from 13", "  changed" */

/* Row i of tensor kind T_ATTN_OUT (self-attention of layer) of trace t, or NULL. */
static const TraceEntry *attn_out(const App *a, const Trace *t)
{
    Stack st = model_self_stack(a->s->model);
    return t ? trace_find(t, st, a->s->layer, SUB_SELF, -1, T_ATTN_OUT) : NULL;
}

/* One output row at (y, x): position, word, the first k values, "…" when there are more. */
static void out_row(int y, int x, int wl, const char *word, int pos, const float *v, int k,
                    int cols)
{
    char b[400];
    int pad = wl - ui_width(word);
    int n = snprintf(b, sizeof b, "%2d %.64s%*s", pos, word, pad > 0 ? pad : 0, "");
    if (n < 0 || n >= (int)sizeof b - 16) /* a word is short; never past the buffer */
        n = (int)sizeof b - 16;
    for (int j = 0; j < k && n < (int)sizeof b - 16; j++)
        n += snprintf(b + n, sizeof b - (size_t)n, "%*.2f", CHIPS_VAL_W, (double)v[j]);
    if (k < cols)
        snprintf(b + n, sizeof b - (size_t)n, " %s", ui_glyph(G_ELLIPSIS));
    ui_put(y, x, 3 + wl + k * CHIPS_VAL_W + 2, b);
}

/* The output rows (layer a->s->layer's attention output, as model_equivariance compares them)
 * of the original order on the left, of the current order on the right, each right row
 * tagged with the row it moved from when its values are that row's, else "changed".
 * Draws rows y.. (header first); returns the rows used. */
static int draw_outputs(App *a, Rect r, int y)
{
    /* the equivariance check leaves the identity run in eq_a and the current (permuted) run
     * in t; eq_b is scratch that {{equivariance}} in some other page's prose may have left */
    const TraceEntry *ea = attn_out(a, a->s->eq_a), *eb = attn_out(a, a->s->t);
    const Trace *t = a->s->t;
    if (!ea || !eb || !t || t->n != a->s->eq_a->n)
        return 0;
    int n = t->n, wl = 1;
    for (int i = 0; i < n; i++) {
        int ww = ui_width(vocab_word(&a->s->model->vocab, t->src[i]));
        wl = ww > wl ? ww : wl;
    }
    /* each side: "%2d word" and k values, " …", two spaces; the tag after the right side */
    int k = (r.w - 2 * (3 + wl + 4) + 2 - CHIPS_TAG_W) / (2 * CHIPS_VAL_W);
    if (k > ea->cols)
        k = ea->cols;
    if (k > 8)
        k = 8;
    if (k < 1)
        k = 1;
    int half = 3 + wl + k * CHIPS_VAL_W + 2 + 2, xr = r.x + half;
    int rows = 0;
    char b[200];
    attron(A_DIM);
    if (a->s->chip_pick >= 0) {
        ui_putf(y, r.x, r.w, "picked '%s' at %d: pick another chip to swap (ESC cancels)",
                vocab_word(&a->s->model->vocab, t->src[a->s->chip_pick]), a->s->chip_pick);
    } else {
        snprintf(b, sizeof b, "before: layer %d attention output", a->s->layer);
        if (ui_width(b) > half - 2)
            snprintf(b, sizeof b, "before: L%d attention out", a->s->layer);
        ui_put(y, r.x, half - 1, ui_width(b) <= half - 2 ? b : "before");
        int m = snprintf(b, sizeof b, "after, order:");
        for (int i = 0; i < n && m < (int)sizeof b - 8; i++)
            m += snprintf(b + m, sizeof b - (size_t)m, " %d", t->order[i]);
        ui_put(y, xr, r.x + r.w - xr, b);
    }
    attroff(A_DIM);
    rows++;
    for (int i = 0; i < n && y + rows < r.y + r.h; i++, rows++) {
        int from = t->order[i];
        out_row(y + rows, r.x, wl, vocab_word(&a->s->model->vocab, a->s->eq_a->src[i]), i,
                ea->data + (size_t)i * ea->cols, k, ea->cols);
        out_row(y + rows, xr, wl, vocab_word(&a->s->model->vocab, t->src[i]), i,
                eb->data + (size_t)i * eb->cols, k, eb->cols);
        float d = 0.0f;
        for (int j = 0; j < eb->cols; j++) {
            float dj = eb->data[(size_t)i * eb->cols + j] - ea->data[(size_t)from * ea->cols + j];
            d = dj > d ? dj : -dj > d ? -dj : d;
        }
        int same = d < EQUIV_TOL, tx = xr + 3 + wl + k * CHIPS_VAL_W + 2;
        if (same && from == i) {
            attron(A_DIM);
            ui_put(y + rows, tx, r.x + r.w - tx, "  same");
            attroff(A_DIM);
        } else if (same) {
            attron(COLOR_PAIR(UI_ACCENT));
            ui_putf(y + rows, tx, r.x + r.w - tx, "  from %d", from);
            attroff(COLOR_PAIR(UI_ACCENT));
        } else {
            attron(A_BOLD | COLOR_PAIR(UI_WARN));
            ui_put(y + rows, tx, r.x + r.w - tx, "  changed");
            attroff(A_BOLD | COLOR_PAIR(UI_WARN));
        }
    }
    return rows;
}

static void chips_draw(App *a, Rect r)
{
    if (!a->s->ran) {
        attron(COLOR_PAIR(UI_WARN));
        ui_put(r.y, r.x, r.w, a->s->run_err[0] ? a->s->run_err : "nothing to show");
        attroff(COLOR_PAIR(UI_WARN));
        return;
    }
    const Trace *t = a->s->t;
    ChipsFit fit = chips_fit(a, r);
    char s[400];
    attron(COLOR_PAIR(UI_ACCENT));
    snprintf(s, sizeof s, "token chips  mask:%s  PE:%s  scale:%s",
             app_mask_name(a, model_self_stack(a->s->model), SUB_SELF),
             model_pe_name(a->s->ctl.pe),
             a->s->ctl.scale ? "on" : "off");
    ui_put(r.y, r.x, r.w, s);
    attroff(COLOR_PAIR(UI_ACCENT));
    for (int i = 0; i < t->n; i++) {
        int y, x, w;
        chip_pos(a, r, fit.idx_row, i, &y, &x, &w);
        if (y + 1 >= r.y + r.h)
            break;
        if (fit.idx_row) {
            attron(A_DIM);
            ui_putf(y - 1, x, w, "%d", i);
            attroff(A_DIM);
        }
        int attr = COLOR_PAIR(i == a->s->chip_pick ? UI_CHIP_PICK : UI_CHIP);
        if (i == a->s->chip_pick)
            attr |= A_BOLD;
        if (ui.color == UI_COLOR_NONE && i == a->s->chip_pick)
            attr |= A_REVERSE;
        attron(attr);
        ui_putf(y, x, w, "[ %s ]", vocab_word(&a->s->model->vocab, t->src[i]));
        attroff(attr);
        if (i == a->s->chip_cur) {
            attron(A_BOLD);
            for (int q = 0; q < w; q++)
                ui_put(y + 1, x + q, 1, ui.utf8 ? "▔" : "^");
            attroff(A_BOLD);
        }
    }
    int y = r.y + chips_rows(a, r, fit.idx_row);
    if (y >= r.y + r.h)
        return;
    if (a->s->equiv < 0.0f) {
        attron(COLOR_PAIR(UI_WARN));
        ui_put(y, r.x, r.w, a->s->run_err[0] ? a->s->run_err : "equivariance not computed");
        attroff(COLOR_PAIR(UI_WARN));
        return;
    }
    y += draw_outputs(a, r, y);
    if (y >= r.y + r.h)
        return;
    int match = a->s->equiv < EQUIV_TOL;
    attron(A_BOLD | (match ? COLOR_PAIR(UI_ACCENT) : COLOR_PAIR(UI_WARN)));
    if (ui.color == UI_COLOR_NONE && !match)
        attron(A_REVERSE);
    int used = ui_putf(y, r.x, r.w, "%s %s", match ? ui_glyph(G_CHECK) : ui_glyph(G_WARN),
                       match ? "outputs match permutation" : "outputs do not match");
    attrset(A_NORMAL);
    if (r.w - used - 2 > 0)
        ui_putf(y, r.x + used + 2, r.w - used - 2, "layer %d: max|Attn(PX) − P·Attn(X)| = %.3g",
                a->s->layer, (double)a->s->equiv);
    y++;
    int ident = 1;
    for (int i = 0; i < t->n; i++)
        if (t->order[i] != i)
            ident = 0;
    if (fit.why && y < r.y + r.h) {
        attron(A_DIM);
        ui_put(y, r.x, r.w,
               ident ? "(original order: swap two chips to permute the input)"
               : match ? "same outputs, moved with their tokens: attention alone ignores order"
               : a->s->ctl.causal ? "changed, not just moved: the causal mask depends on position"
               : a->s->ctl.pe != PE_NONE ? "changed, not just moved: positional encoding is seen"
                                      : "the outputs changed, not just moved");
        attroff(A_DIM);
    }
}

/* A mouse click at (y, x) in the widget rect: picks the chip under it. */
/* A click on a chip picks it (swaps, as Enter does); elsewhere it says what to click. */
static int chips_click(App *a, Rect r, int y, int x)
{
    if (!a->s->ran || !(a->s->allowed & C_SWAP)) {
        app_msg(a, 0, "click a chip to pick it");
        return 0;
    }
    ChipsFit fit = chips_fit(a, r);
    for (int i = 0; i < a->s->t->n; i++) {
        int cy, cx, cw;
        chip_pos(a, r, fit.idx_row, i, &cy, &cx, &cw);
        if (y == cy && x >= cx && x < cx + cw) { /* as moving to it and pressing Enter */
            Change c;
            session_pick_chip(a->s, i, &c);
            app_change(a, &c);
            return 1;
        }
    }
    app_msg(a, 0, "click a chip to pick it");
    return 0;
}

static int chips_need(App *a, int w)
{
    Rect r = {0, 0, 100, w};
    if (!a->s->ran)
        return 2;
    return chips_min_rows(a, r);
}

const ViewOps VIEW_CHIPS = {
    .name = "chips", .kind = W_CHIPS,
    .draw = chips_draw, .need = chips_need,
    .click = chips_click,
};
