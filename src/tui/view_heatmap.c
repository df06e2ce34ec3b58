/* view_heatmap.c - attention weights (or pre-softmax scores) of one layer and head as a
 * heatmap with row sums, a cell cursor that inspects q_i·k_j, the scaled score, the mask and
 * the weight; or every head of the layer as small multiples. Draws only from the Trace. */
#include <curses.h>
#include <math.h>
#include <string.h>

#include "app.h"
#include "ui.h"

static int is_masked(const TraceEntry *mask, int i, int j)
{
    if (!mask)
        return 0;
    float v = mask->data[(size_t)i * mask->cols + j];
    return isinf(v) && v < 0;
}

static void clamp_cursor(App *a)
{
    int nr = app_rows(a), nc = app_cols(a);
    if (a->cur_r >= nr)
        a->cur_r = nr - 1;
    if (a->cur_c >= nc)
        a->cur_c = nc - 1;
    if (a->cur_r < 0)
        a->cur_r = 0;
    if (a->cur_c < 0)
        a->cur_c = 0;
}

/* The status line: which attention, and the toggles. */
static void draw_status(App *a, int y, int x, int w)
{
    const ModelConfig *c = &a->model->cfg;
    char s[300];
    snprintf(s, sizeof s, "%slayer %d/%d  head %d/%d  mask:%s  PE:%s  scale:%s  %s",
             app_sub(a) == SUB_CROSS ? "cross  " : "", a->layer + 1,
             c->n_layers, a->head + 1, c->n_heads, lesson_mask_name(a->ctl.causal, a->ctl.padding),
             model_pe_name(a->ctl.pe), a->ctl.scale ? "on" : "off",
             a->scores ? "[scores]" : "[weights]");
    attron(COLOR_PAIR(UI_ACCENT));
    ui_put(y, x, w, s);
    attroff(COLOR_PAIR(UI_ACCENT));
}

/* One cell of width cw: colour ramp (or shade glyph) with the value when it fits. */
static void draw_cell(int y, int x, int cw, float v, float v01, int masked, int scores, int cur)
{
    char num[32] = "";
    int show = 0;
    if (masked) {
        snprintf(num, sizeof num, "%s", scores ? ui_glyph(G_NEG_INF) : ui_glyph(G_MASKED));
        show = ui_width(num) <= cw - 1;
    } else if (scores) {
        snprintf(num, sizeof num, cw >= 7 ? "%.2f" : "%.1f", (double)v);
        show = (int)strlen(num) <= cw - 1;
    } else {
        snprintf(num, sizeof num, "%.2f", (double)v);
        show = cw >= 5;
    }
    int attr = A_NORMAL;
    if (masked)
        attr = A_DIM;
    else if (ui.color != UI_COLOR_NONE)
        attr = ui_ramp_attr(ui_ramp_level(v01));
    if (cur)
        attr |= A_REVERSE | A_BOLD;
    attron(attr);
    ui_fill(y, x, cw);
    if (masked) {
        if (show)
            ui_put(y, x + cw - 1 - ui_width(num), ui_width(num), num);
        else
            ui_put(y, x + (cw - 1) / 2, 1, ui_glyph(G_MASKED));
    } else if (ui.color == UI_COLOR_NONE) {
        /* no colour: a shade glyph, then the number */
        if (show) {
            ui_put(y, x + cw - 1 - (int)strlen(num) - 1, 1, ui_shade(v01));
            ui_put(y, x + cw - 1 - (int)strlen(num), (int)strlen(num), num);
        } else {
            for (int i = 0; i < (cw > 1 ? cw - 1 : 1); i++)
                ui_put(y, x + i, 1, ui_shade(v01));
        }
    } else if (show) {
        ui_put(y, x + cw - 1 - (int)strlen(num), (int)strlen(num), num);
    }
    attroff(attr);
    if (cw > 1 && ui.color != UI_COLOR_NONE && !masked)
        mvaddch(y, x + cw - 1, ' '); /* a gap between columns keeps numbers apart */
}

/* Range of the finite values (scores mode). */
static void finite_range(const TraceEntry *e, float *lo, float *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int i = 0; i < e->rows * e->cols; i++) {
        float v = e->data[i];
        if (isfinite(v)) {
            if (v < *lo)
                *lo = v;
            if (v > *hi)
                *hi = v;
        }
    }
    if (!(*hi > *lo)) {
        *lo = 0.0f;
        *hi = *lo + 1.0f;
    }
}

static void draw_legend(int y, int x, int w, float lo, float hi, int scores)
{
    char a[32], b[32];
    snprintf(a, sizeof a, scores ? "%.1f " : "%.0f ", (double)lo);
    snprintf(b, sizeof b, scores ? " %.1f" : " %.0f", (double)hi);
    int cx = x;
    cx += ui_put(y, cx, w, "legend ");
    cx += ui_put(y, cx, x + w - cx, a);
    int steps = 8;
    for (int i = 0; i < steps; i++) {
        float v = ((float)i + 0.5f) / (float)steps;
        if (ui.color != UI_COLOR_NONE) {
            attron(ui_ramp_attr(ui_ramp_level(v)));
            ui_fill(y, cx, 2);
            attroff(ui_ramp_attr(ui_ramp_level(v)));
            cx += 2;
        } else {
            cx += ui_put(y, cx, 1, ui_shade(v));
        }
    }
    cx += ui_put(y, cx, x + w - cx, b);
    attron(A_DIM);
    cx += ui_put(y, cx, x + w - cx, "   ");
    cx += ui_put(y, cx, x + w - cx, scores ? ui_glyph(G_NEG_INF) : ui_glyph(G_MASKED));
    attroff(A_DIM);
    ui_put(y, cx, x + w - cx, scores ? " masked (weight 0)" : " masked (score −∞)");
}

static int label_width(App *a, int rows)
{
    int lw = 4;
    for (int i = 0; i < rows; i++) {
        int w = ui_width(app_row_token(a, i)) + 1;
        if (w > lw)
            lw = w;
    }
    return lw > 10 ? 10 : lw;
}

static void draw_single(App *a, Rect r)
{
    Stack st = app_stack(a);
    Sublayer sub = app_sub(a);
    const Trace *t = a->t;
    const TraceEntry *W = trace_find(t, st, a->layer, sub, a->head, T_WEIGHTS);
    const TraceEntry *S = trace_find(t, st, a->layer, sub, a->head, T_MASKED);
    const TraceEntry *R = trace_find(t, st, a->layer, sub, a->head, T_SCORES);
    const TraceEntry *SC = trace_find(t, st, a->layer, sub, a->head, T_SCALED);
    const TraceEntry *M = trace_find(t, st, a->layer, sub, -1, T_MASK);
    if (!W || !S) {
        ui_put(r.y, r.x, r.w, "this attention is not in the trace");
        return;
    }
    clamp_cursor(a);
    const TraceEntry *V = a->scores ? S : W;
    int nr = W->rows, nc = W->cols;
    int lw = label_width(a, nr);
    int sumw = a->scores ? 0 : 6;
    int cw = (r.w - lw - sumw) / (nc > 0 ? nc : 1);
    if (cw > 7)
        cw = 7;
    if (cw < 1)
        cw = 1;
    int gridw = lw + cw * nc;
    int body = r.h - ((a->allowed & C_CURSOR) ? 4 : 2); /* header, legend, inspector */
    if (body < 1)
        body = 1;
    int top = 0;
    if (nr > body) {
        top = a->cur_r - body / 2;
        if (top > nr - body)
            top = nr - body;
        if (top < 0)
            top = 0;
    }
    float lo = 0.0f, hi = 1.0f;
    if (a->scores)
        finite_range(S, &lo, &hi);
    /* column labels: keys */
    int y = r.y;
    for (int j = 0; j < nc; j++) {
        int cur = (a->allowed & C_CURSOR) && j == a->cur_c;
        if (cur)
            attron(A_BOLD | A_UNDERLINE);
        if (cw >= 3) {
            const char *tok = app_col_token(a, j);
            int tw = ui_width(tok) < cw - 1 ? ui_width(tok) : cw - 1;
            ui_put(y, r.x + lw + j * cw + (cw - 1 - tw), cw - 1, tok);
        }
        else if (cw >= 1)
            ui_putf(y, r.x + lw + j * cw, cw, "%d", j % 10);
        if (cur)
            attroff(A_BOLD | A_UNDERLINE);
    }
    if (sumw)
        ui_put(y, r.x + gridw, sumw, "   sum");
    y++;
    for (int i = top; i < nr && i < top + body; i++, y++) {
        int cur_row = (a->allowed & C_CURSOR) && i == a->cur_r;
        if (cur_row)
            attron(A_BOLD | A_UNDERLINE);
        ui_put(y, r.x, lw - 1, app_row_token(a, i));
        if (cur_row)
            attroff(A_BOLD | A_UNDERLINE);
        float sum = 0.0f;
        for (int j = 0; j < nc; j++) {
            float v = V->data[(size_t)i * nc + j];
            float v01 = a->scores ? (v - lo) / (hi - lo) : v;
            sum += W->data[(size_t)i * nc + j];
            int cur = (a->allowed & C_CURSOR) && i == a->cur_r && j == a->cur_c;
            draw_cell(y, r.x + lw + j * cw, cw, v, v01, is_masked(M, i, j), a->scores, cur);
        }
        if (sumw)
            ui_putf(y, r.x + gridw, sumw, "  %.2f", (double)sum);
    }
    if (nr > body) {
        attron(A_DIM);
        ui_putf(y, r.x, r.w, "rows %d-%d of %d (%s moves)", top + 1, top + body, nr,
                ui.utf8 ? "↑↓" : "up/down");
        attroff(A_DIM);
    }
    y = r.y + 1 + (nr < body ? nr : body) + (nr > body ? 1 : 0);
    if (y < r.y + r.h)
        draw_legend(y++, r.x, r.w, lo, hi, a->scores);
    if (!(a->allowed & C_CURSOR) || y >= r.y + r.h)
        return;
    /* the inspector */
    int i = a->cur_r, j = a->cur_c;
    size_t k = (size_t)i * nc + j;
    float mv = M ? M->data[(size_t)i * M->cols + j] : 0.0f;
    char mask[16];
    snprintf(mask, sizeof mask, "%s", isinf(mv) ? ui_glyph(G_NEG_INF) : "0");
    ui_putf(y++, r.x, r.w, "query %d '%s' %s key %d '%s'", i, app_row_token(a, i),
            ui_glyph(G_ARROW), j, app_col_token(a, j));
    if (y < r.y + r.h) {
        char scaled[32];
        if (SC)
            snprintf(scaled, sizeof scaled, "%.3f", (double)SC->data[k]);
        else
            snprintf(scaled, sizeof scaled, "?");
        attron(A_BOLD);
        ui_putf(y, r.x, r.w, "q%d·k%d = %.3f  %s %s  mask %s  weight %.3f", i, j,
                R ? (double)R->data[k] : 0.0, a->ctl.scale ? "÷√d_k =" : "unscaled:", scaled,
                mask, (double)W->data[k]);
        attroff(A_BOLD);
    }
}

static void draw_multiples(App *a, Rect r)
{
    Stack st = app_stack(a);
    Sublayer sub = app_sub(a);
    const ModelConfig *c = &a->model->cfg;
    const TraceEntry *M = trace_find(a->t, st, a->layer, sub, -1, T_MASK);
    int nr = app_rows(a), nc = app_cols(a);
    int cw = 2;
    int pw = nc * cw + 2;
    int per = (r.w + 1) / pw;
    if (per < 1 || nr + 2 > r.h) {
        cw = 1;
        pw = nc + 2;
        per = (r.w + 1) / pw;
    }
    if (per < 1) {
        ui_put(r.y, r.x, r.w, "too narrow for every head at once: press a");
        return;
    }
    if (per > c->n_heads)
        per = c->n_heads;
    int ph = nr + 1;
    for (int h = 0; h < c->n_heads; h++) {
        int py = r.y + (h / per) * (ph + 1), px = r.x + (h % per) * pw;
        if (py + ph > r.y + r.h - 1) {
            ui_put(r.y + r.h - 1, r.x, r.w, "(more heads than fit: enlarge the terminal)");
            break;
        }
        const TraceEntry *W = trace_find(a->t, st, a->layer, sub, h, a->scores ? T_MASKED
                                                                               : T_WEIGHTS);
        if (!W)
            continue;
        float lo = 0.0f, hi = 1.0f;
        if (a->scores)
            finite_range(W, &lo, &hi);
        if (h == a->head)
            attron(A_REVERSE | A_BOLD);
        ui_putf(py, px, pw - 1, "head %d", h + 1);
        if (h == a->head)
            attroff(A_REVERSE | A_BOLD);
        for (int i = 0; i < nr; i++)
            for (int j = 0; j < nc; j++) {
                float v = W->data[(size_t)i * nc + j];
                float v01 = a->scores ? (v - lo) / (hi - lo) : v;
                int x = px + j * cw, y = py + 1 + i;
                if (is_masked(M, i, j)) {
                    attron(A_DIM);
                    ui_put(y, x, 1, ui_glyph(G_MASKED));
                    attroff(A_DIM);
                } else if (ui.color != UI_COLOR_NONE) {
                    int at = ui_ramp_attr(ui_ramp_level(v01));
                    attron(at);
                    ui_fill(y, x, cw);
                    attroff(at);
                } else {
                    for (int q = 0; q < cw; q++)
                        ui_put(y, x + q, 1, ui_shade(v01));
                }
            }
    }
    int rows_used = ((c->n_heads + per - 1) / per) * (ph + 1);
    if (rows_used < r.h)
        draw_legend(r.y + rows_used, r.x, r.w, 0.0f, 1.0f, a->scores);
}

static void heatmap_draw(App *a, Rect r)
{
    if (!a->ran) {
        attron(COLOR_PAIR(UI_WARN));
        ui_put(r.y, r.x, r.w, a->run_err[0] ? a->run_err : "nothing to show");
        attroff(COLOR_PAIR(UI_WARN));
        return;
    }
    draw_status(a, r.y, r.x, r.w);
    Rect b = {r.y + 1, r.x, r.h - 1, r.w};
    if (a->all_heads)
        draw_multiples(a, b);
    else
        draw_single(a, b);
}

static int heatmap_key(App *a, int k)
{
    if (a->allowed & C_CURSOR && a->ran && !a->all_heads) {
        switch (k) {
        case KEY_UP:
        case 'k':
            a->cur_r--;
            clamp_cursor(a);
            return 1;
        case KEY_DOWN:
        case 'j':
            a->cur_r++;
            clamp_cursor(a);
            return 1;
        case KEY_LEFT:
        case 'b':
            a->cur_c--;
            clamp_cursor(a);
            return 1;
        case KEY_RIGHT:
        case 'w':
            a->cur_c++;
            clamp_cursor(a);
            return 1;
        case KEY_HOME:
            a->cur_c = 0;
            return 1;
        case KEY_END:
            a->cur_c = app_cols(a) - 1;
            return 1;
        default:
            break;
        }
    }
    return app_common_key(a, k);
}

static void heatmap_keys(App *a, char *b, size_t n)
{
    if ((a->allowed & C_CURSOR) && !a->all_heads)
        app_hint(b, n, ui.utf8 ? "←↑↓→" : "arrows", "cell");
    app_common_hints(a, b, n);
}

static int heatmap_need(App *a, int w)
{
    (void)w;
    if (!a->ran)
        return 2;
    int nr = app_rows(a);
    if (a->all_heads)
        return (nr + 2) * 2 + 2;
    return nr + ((a->allowed & C_CURSOR) ? 5 : 3);
}

const ViewOps VIEW_HEATMAP = {W_HEATMAP, heatmap_draw, heatmap_key, heatmap_keys, heatmap_need};

/* Prose-only pages: no widget. */
const ViewOps VIEW_NONE = {W_NONE, NULL, NULL, NULL, NULL};
