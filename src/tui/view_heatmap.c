/* view_heatmap.c - attention weights (or pre-softmax scores) of one layer and head as a
 * heatmap with row sums, a cell cursor that inspects q_i·k_j, the scaled score, the mask and
 * the weight; or every head of the layer as small multiples. Draws only from the Trace. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app_views.h"
#include "head_stat.h"
#include "lesson.h"
#include "ui.h"


static int is_masked(const TraceEntry *mask, int i, int j)
{
    if (!mask)
        return 0;
    float v = mask->data[(size_t)i * mask->cols + j];
    return isinf(v) && v < 0;
}


/* The status line: which attention, and the toggles. */
static void draw_status(App *a, int y, int x, int w)
{
    char s[300], lh[80];
    app_layer_head(a, a->s->layer, a->s->head, lh, sizeof lh);
    snprintf(s, sizeof s, "%s%s  mask:%s  PE:%s  scale:%s  %s",
             app_sub(a) == SUB_CROSS ? "cross  " : "", lh,
             app_mask_name(a, app_stack(a), app_sub(a)), model_pe_name(a->s->ctl.pe),
             a->s->ctl.scale ? "on" : "off", a->s->scores ? "[scores]" : "[weights]");
    attron(COLOR_PAIR(UI_ACCENT));
    ui_put_tight(y, x, w, s);
    attroff(COLOR_PAIR(UI_ACCENT));
}

/* Where a value of display width nw starts in a cell of width cw (its last column is a gap):
 * right-aligned in compact cells, centred in the wide cells of large panes. */
static int value_x(int x, int cw, int nw)
{
    return cw > 7 ? x + (cw - nw) / 2 : x + cw - 1 - nw;
}

/* One cell of width cw and rh rows: colour ramp (or shade glyphs) with the value, when it
 * fits, on the middle row (the first of two). */
static void draw_cell(int y, int x, int cw, int rh, float v, float v01, int masked, int scores,
                      int cur)
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
    int vy = y + (rh - 1) / 2, nw = ui_width(num), nx = value_x(x, cw, nw);
    /* the cursor keeps the cell's colour (reverse video would turn a projected cell black
     * behind its number): bold and underlined, the value in brackets when they fit; only a
     * cell too small for its value is reversed */
    int brackets = cur && show && nx - 1 >= x && nx + nw <= x + cw - 1;
    if (cur)
        attr |= A_BOLD | (show ? A_UNDERLINE : A_REVERSE);
    attron(attr);
    for (int r = 0; r < rh; r++)
        ui_fill(y + r, x, cw);
    if (masked) {
        if (show)
            ui_put(vy, nx, nw, num);
        else
            ui_put(vy, x + (cw - 1) / 2, 1, ui_glyph(G_MASKED));
    } else if (ui.color == UI_COLOR_NONE) {
        /* no colour: shade glyphs, then the number after its own glyph; a tall cell is
         * shaded whole and its number set in a space either side */
        for (int r = 0; r < rh; r++) {
            if (r == vy - y && show && rh == 1)
                continue;
            for (int i = 0; i < (cw > 1 ? cw - 1 : 1); i++)
                ui_put(y + r, x + i, 1, ui_shade(v01));
        }
        if (show) {
            ui_put(vy, nx - 1, 1, rh == 1 ? ui_shade(v01) : " ");
            ui_put(vy, nx, nw, num);
            if (rh > 1 && nx + nw < x + cw - 1)
                ui_put(vy, nx + nw, 1, " ");
        }
    } else if (show) {
        ui_put(vy, nx, nw, num);
    }
    attroff(attr);
    if (cw > 1 && ui.color != UI_COLOR_NONE && !masked)
        for (int r = 0; r < rh; r++)
            mvaddch(y + r, x + cw - 1, ' '); /* a gap between columns keeps numbers apart */
    if (brackets) {
        attron(attr & ~A_UNDERLINE);
        ui_put(vy, nx - 1, 1, "[");
        ui_put(vy, nx + nw, 1, "]");
        attroff(attr & ~A_UNDERLINE);
    }
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

/* How many steps the legend draws: eight of the colour ramp, or every shade glyph once. */
static int legend_steps(void) { return ui.color != UI_COLOR_NONE ? 8 : ui_shade_levels(); }

/* Columns of one of the legend's ramp steps in a pane w wide: two in colour on a wide pane,
 * else one (the shade glyphs, and the compact 80-column legend that leaves the inspector's
 * first line room beside it). */
static int legend_step(int w)
{
    return ui.color != UI_COLOR_NONE && w >= APP_BIG_W ? 2 : 1;
}

/* The colour legend on one line from x; returns the columns used. */
static int draw_legend(int y, int x, int w, float lo, float hi, int scores)
{
    int sw = legend_step(w);
    char a[32], b[32];
    snprintf(a, sizeof a, scores ? "%.1f " : "%.0f ", (double)lo);
    snprintf(b, sizeof b, scores ? " %.1f" : " %.0f", (double)hi);
    int cx = x;
    cx += ui_put(y, cx, w, "legend ");
    cx += ui_put(y, cx, x + w - cx, a);
    /* colours: eight steps of the ramp; shade glyphs: each glyph once, so every glyph a cell
     * can show is in the legend */
    int steps = legend_steps();
    for (int i = 0; i < steps; i++) {
        float v = ((float)i + 0.5f) / (float)steps;
        if (ui.color != UI_COLOR_NONE) {
            attron(ui_ramp_attr(ui_ramp_level(v)));
            ui_fill(y, cx, sw);
            attroff(ui_ramp_attr(ui_ramp_level(v)));
            cx += sw;
        } else {
            cx += ui_put(y, cx, 1, ui_shade(v));
        }
    }
    cx += ui_put(y, cx, x + w - cx, b);
    attron(A_DIM);
    cx += ui_put(y, cx, x + w - cx, "  ");
    cx += ui_put(y, cx, x + w - cx, scores ? ui_glyph(G_NEG_INF) : ui_glyph(G_MASKED));
    attroff(A_DIM);
    cx += ui_put(y, cx, x + w - cx, scores ? " masked (weight 0)" : " masked (−∞)");
    return cx - x;
}

/* The columns draw_legend takes in a pane w wide (its text as the terminal shows it: "-inf"
 * for "−∞" in ASCII). */
static int legend_width(int w, float lo, float hi, int scores)
{
    char a[32], b[32], t[64];
    snprintf(a, sizeof a, scores ? "%.1f " : "%.0f ", (double)lo);
    snprintf(b, sizeof b, scores ? " %.1f" : " %.0f", (double)hi);
    return 7 + ui_width(a) + legend_steps() * legend_step(w) + ui_width(b) + 2 +
           ui_width(scores ? ui_glyph(G_NEG_INF) : ui_glyph(G_MASKED)) +
           ui_width(ui_text(scores ? " masked (weight 0)" : " masked (−∞)", t, sizeof t));
}

/* The inspector's first line: "query i 'tok' → key j 'tok'". */
static void inspector_title(App *a, char *out, size_t n)
{
    snprintf(out, n, "query %d '%s' %s key %d '%s'", a->s->cur_r, app_row_token(a, a->s->cur_r),
             ui_glyph(G_ARROW), a->s->cur_c, app_col_token(a, a->s->cur_c));
}

/* Display width of the widest "query i 'tok'" part over n tokens of row (1) or column (0). */
static int widest_end(App *a, int n, int row)
{
    int best = 0;
    for (int i = 0; i < n; i++) {
        char s[160];
        snprintf(s, sizeof s, "%d '%s'", i, row ? app_row_token(a, i) : app_col_token(a, i));
        if (ui_width(s) > best)
            best = ui_width(s);
    }
    return best;
}

/* 1: the inspector's first line does not fit beside the legend at width w for some cell: the
 * layout is the same wherever the cursor goes, so moving it never makes the grid scroll. */
static int inspector_own_line(App *a, int w)
{
    if (!(a->s->allowed & C_CURSOR))
        return 0;
    float lo = 0.0f, hi = 1.0f;
    const TraceEntry *S = trace_find(a->s->t, app_stack(a), a->s->layer, app_sub(a), a->s->head, T_MASKED);
    if (a->s->scores && S)
        finite_range(S, &lo, &hi);
    char fixed[64];
    snprintf(fixed, sizeof fixed, "query  %s key ", ui_glyph(G_ARROW));
    int qk = ui_width(fixed) + widest_end(a, app_rows(a), 1) + widest_end(a, app_cols(a), 0);
    return legend_width(w, lo, hi, a->s->scores) + 3 + qk > w;
}

/* Rows a single heatmap needs around its grid: column labels, legend, inspector (its first
 * line shares the legend's line when both fit), the decoder note. */
static int single_overhead(App *a)
{
    int o = 2 + ((a->s->allowed & C_CURSOR) ? 1 : 0);
    if (app_sub(a) == SUB_CROSS)
        o++;
    return o;
}

static int label_width(App *a, int rows, int max)
{
    int lw = 4;
    for (int i = 0; i < rows; i++) {
        int w = ui_width(app_row_token(a, i)) + 1;
        if (w > lw)
            lw = w;
    }
    return lw > max ? max : lw;
}

/* Cell geometry of a single heatmap in a pane of w columns and h rows (h 0: unknown, the
 * compact form). Compact cells are at most 7 columns and 1 row (every 80x24 layout); a pane
 * at least APP_BIG_W wide allows 10 columns and longer row labels; one at least APP_BIG_H
 * tall allows 10 columns too and gives each token up to (cw+1)/2 rows (2 for narrow cells)
 * when the whole grid fits. */
typedef struct {
    int lw, cw, rh, sumw;
    int topw;  /* the "strongest" column (each row's largest value and its key) when the cells
                  are too narrow for numbers (14 tokens and more at 80 columns), else 0 */
} Geom;

#define TOP_COL_W 12 /* "  0.55 word" */

static Geom single_geom(App *a, int nr, int nc, int w, int h, int over)
{
    Geom g;
    int wide = w >= APP_BIG_W, tall = h >= APP_BIG_H;
    g.lw = label_width(a, nr, wide ? 12 : 10);
    g.sumw = a->s->scores ? 0 : 6;
    g.topw = 0;
    g.cw = (w - g.lw - g.sumw) / (nc > 0 ? nc : 1);
    /* cells too narrow for their numbers (weights need 5 columns, scores about 6): each row
     * then names its strongest value in a column of its own, so the numbers stay readable */
    if (g.cw < (a->s->scores ? 6 : 5)) {
        g.topw = TOP_COL_W;
        g.cw = (w - g.lw - g.sumw - g.topw) / (nc > 0 ? nc : 1);
    }
    if (g.cw > (wide || tall ? 10 : 7))
        g.cw = wide || tall ? 10 : 7;
    if (g.cw < 1)
        g.cw = 1;
    g.rh = 1;
    /* a tall pane: each token as many rows as fit, up to a square-looking cell (a terminal
     * cell is about twice as tall as wide), so the grid fills the pane on a projector */
    if (tall)
        for (int k = g.cw >= 7 ? (g.cw + 1) / 2 : 2; k > 1; k--)
            if (nr * k <= h - over) {
                g.rh = k;
                break;
            }
    return g;
}

/* The inspector at row y of r, under the legend (legw columns): "query i 'tok' → key j
 * 'tok'" (after the legend when both fit), then q_i·k_j, the scaled score, the mask and the
 * weight of the cursor's cell. grid_w: the grid's width with big cells, 0 when compact. */
static void draw_inspector(App *a, Rect r, int y, int legw, int grid_w, const TraceEntry *W,
                           const TraceEntry *R, const TraceEntry *SC, const TraceEntry *M)
{
    int own = inspector_own_line(a, r.w);
    int i = a->s->cur_r, j = a->s->cur_c;
    size_t k = (size_t)i * W->cols + j;
    float mv = M ? M->data[(size_t)i * M->cols + j] : 0.0f;
    char mask[16], qk[200];
    snprintf(mask, sizeof mask, "%s", isinf(mv) ? ui_glyph(G_NEG_INF) : "0");
    inspector_title(a, qk, sizeof qk);
    /* compact: at the pane's right edge; big cells: at the grid's, so the line stays with
     * the heatmap instead of stretching across a wide pane */
    int edge = r.w;
    if (grid_w) {
        edge = grid_w;
        if (edge < legw + 3 + ui_width(qk))
            edge = legw + 3 + ui_width(qk);
        if (edge > r.w)
            edge = r.w;
    }
    if (!own && legw + 3 + ui_width(qk) <= edge) {
        ui_put(y++, r.x + edge - ui_width(qk), ui_width(qk), qk);
    } else {
        y++;
        if (y >= r.y + r.h)
            return;
        ui_put(y++, r.x, r.w, qk);
    }
    if (y < r.y + r.h) {
        char scaled[32];
        if (SC)
            snprintf(scaled, sizeof scaled, "%.3f", (double)SC->data[k]);
        else
            snprintf(scaled, sizeof scaled, "?");
        attron(A_BOLD);
        ui_putf(y, r.x, r.w, "q%d·k%d = %.3f  %s %s  mask %s  weight %.3f", i, j,
                R ? (double)R->data[k] : 0.0, a->s->ctl.scale ? "÷√d_k =" : "unscaled:", scaled,
                mask, (double)W->data[k]);
        attroff(A_BOLD);
    }
}

/* Token rows a single heatmap shows at once in h rows, over of them taken around its grid
 * (rh is 1 unless all of them fit): fewer than nr, and it scrolls with the cursor. */
static int single_body(int nr, int h, int over)
{
    int body = h - over;
    if (nr > body)
        body--; /* the "rows i-j of n" line */
    return body < 1 ? 1 : body;
}

static void draw_single(App *a, Rect r)
{
    Stack st = app_stack(a);
    Sublayer sub = app_sub(a);
    const Trace *t = a->s->t;
    const TraceEntry *W = trace_find(t, st, a->s->layer, sub, a->s->head, T_WEIGHTS);
    const TraceEntry *S = trace_find(t, st, a->s->layer, sub, a->s->head, T_MASKED);
    const TraceEntry *R = trace_find(t, st, a->s->layer, sub, a->s->head, T_SCORES);
    const TraceEntry *SC = trace_find(t, st, a->s->layer, sub, a->s->head, T_SCALED);
    const TraceEntry *M = trace_find(t, st, a->s->layer, sub, -1, T_MASK);
    if (!W || !S) {
        ui_put(r.y, r.x, r.w, "this attention is not in the trace");
        return;
    }
    const TraceEntry *V = a->s->scores ? S : W;
    int nr = W->rows, nc = W->cols;
    int over = single_overhead(a) + inspector_own_line(a, r.w);
    if (app_sub(a) == SUB_CROSS) {
        attron(A_DIM);
        ui_put(r.y, r.x, r.w, APP_DEC_ROW_NOTE);
        attroff(A_DIM);
        r.h--;
        r.y++;
        over--; /* the note is drawn */
    }
    Geom g = single_geom(a, nr, nc, r.w, r.h, over);
    int lw = g.lw, cw = g.cw, rh = g.rh, sumw = g.sumw, topw = g.topw;
    int big = cw > 7 || rh > 1;
    int gridw = lw + cw * nc;
    int body = single_body(nr, r.h, over);
    int top = 0;
    if (nr > body) {
        top = a->s->cur_r - body / 2;
        if (top > nr - body)
            top = nr - body;
        if (top < 0)
            top = 0;
    }
    float lo = 0.0f, hi = 1.0f;
    if (a->s->scores)
        finite_range(S, &lo, &hi);
    /* column labels: keys */
    int y = r.y;
    for (int j = 0; j < nc; j++) {
        int cur = (a->s->allowed & C_CURSOR) && j == a->s->cur_c;
        if (cur)
            attron(A_BOLD | A_UNDERLINE);
        if (cw >= 3) {
            const char *tok = app_col_token(a, j);
            int tw = ui_width(tok) < cw - 1 ? ui_width(tok) : cw - 1;
            ui_put(y, value_x(r.x + lw + j * cw, cw, tw), cw - 1, tok);
        }
        else if (cw >= 1)
            ui_putf(y, r.x + lw + j * cw, cw, "%d", j % 10);
        if (cur)
            attroff(A_BOLD | A_UNDERLINE);
    }
    if (sumw)
        ui_put(y, r.x + gridw, sumw, "   sum");
    if (topw)
        ui_put(y, r.x + gridw + sumw, topw, "  strongest");
    y++;
    for (int i = top; i < nr && i < top + body; i++, y += rh) {
        int cur_row = (a->s->allowed & C_CURSOR) && i == a->s->cur_r;
        int vy = y + (rh - 1) / 2; /* the row with the label, the values and the sum */
        if (cur_row)
            attron(A_BOLD | A_UNDERLINE);
        ui_put(vy, r.x, lw - 1, app_row_token(a, i));
        if (cur_row)
            attroff(A_BOLD | A_UNDERLINE);
        float sum = 0.0f;
        for (int j = 0; j < nc; j++) {
            float v = V->data[(size_t)i * nc + j];
            float v01 = a->s->scores ? (v - lo) / (hi - lo) : v;
            sum += W->data[(size_t)i * nc + j];
            int cur = (a->s->allowed & C_CURSOR) && i == a->s->cur_r && j == a->s->cur_c;
            draw_cell(y, r.x + lw + j * cw, cw, rh, v, v01, is_masked(M, i, j), a->s->scores, cur);
        }
        if (sumw)
            ui_putf(vy, r.x + gridw, sumw, "  %.2f", (double)sum);
        if (topw) {
            int best = -1;
            for (int j = 0; j < nc; j++)
                if (!is_masked(M, i, j) && (best < 0 || V->data[(size_t)i * nc + j] >
                                                            V->data[(size_t)i * nc + best]))
                    best = j;
            if (best >= 0)
                ui_putf(vy, r.x + gridw + sumw, topw, "  %.2f %s",
                        (double)V->data[(size_t)i * nc + best], app_col_token(a, best));
        }
    }
    if (nr > body) {
        attron(A_DIM);
        ui_putf(y, r.x, r.w, "rows %d-%d of %d (%s moves)", top + 1, top + body, nr,
                ui.utf8 ? "↑↓" : "up/down");
        attroff(A_DIM);
    }
    y = r.y + 1 + (nr < body ? nr : body) * rh + (nr > body ? 1 : 0);
    int legw = 0;
    if (y < r.y + r.h)
        legw = draw_legend(y, r.x, r.w, lo, hi, a->s->scores);
    if (!(a->s->allowed & C_CURSOR) || y >= r.y + r.h)
        return;
    draw_inspector(a, r, y, legw, big ? gridw + sumw : 0, W, R, SC, M);
}

/* Small multiples' geometry in a pane of w columns and h rows (h 0: unknown, the compact
 * form): row-label width (0: none), cell width and rows, panel width, panels per band, bands,
 * and whether each band has a line of column labels. Tried in order of preference, the first
 * that fits wins: a pane at least APP_BIG_H tall scales the cells up (2k columns by k rows,
 * values inside); then one band of 5-column cells with their values; then 2 and 1 column
 * cells. Each is tried with the tokens as row labels first, then without. */
typedef struct {
    int lw, cw, rh, pw, per, bands, collab;
} MGeom;

static int mgeom_try(App *a, int w, int h, int lw, int cw, int rh, MGeom *g)
{
    int nr = app_rows(a), nc = app_cols(a), nh = a->s->model->cfg.n_heads;
    int pw = nc * cw + 2, per = (w - lw + 2) / pw;
    if (per > nh)
        per = nh;
    if (per < 1)
        return 0;
    int bands = (nh + per - 1) / per;
    if ((rh > 1 || per < nh) && cw >= 4 && h <= 0)
        return 0; /* cells with values in bands, or tall: only in a pane known to hold them */
    /* bands of (title, rows, gap), the last gap holds the legend; a column-label line each
     * when the cells are wide enough to carry a label and the height allows */
    int need = bands * (nr * rh + 2);
    if (h > 0 && need > h)
        return 0;
    /* with column labels the bands need no gap between them (the next band's titles part
     * them): one line more in all, for the legend */
    g->collab = cw >= 4 && h > 0 && need + 1 <= h;
    g->lw = lw;
    g->cw = cw;
    g->rh = rh;
    g->pw = pw;
    g->per = (nh + bands - 1) / bands; /* bands evenly filled: 4 heads as 2+2, not 3+1 */
    g->bands = bands;
    return 1;
}

static MGeom multiples_geom(App *a, int w, int h)
{
    MGeom g = {0};
    int nr = app_rows(a), lab = label_width(a, nr, 8);
    for (int k = 4; h >= APP_BIG_H && k > 1; k--)
        if (mgeom_try(a, w, h, lab, 2 * k, k, &g))
            return g;
    static const int cws[] = {5, 2, 1};
    for (size_t i = 0; i < sizeof cws / sizeof cws[0]; i++)
        for (int l = 0; l < 2; l++)
            if (mgeom_try(a, w, h, l ? 0 : lab, cws[i], 1, &g))
                return g;
    /* too short for every band: the narrowest cells, as many bands as fit */
    if (!mgeom_try(a, w, 0, 0, 1, 1, &g))
        g.per = 0;
    return g;
}

static void draw_multiples(App *a, Rect r)
{
    Stack st = app_stack(a);
    Sublayer sub = app_sub(a);
    const ModelConfig *c = &a->s->model->cfg;
    const TraceEntry *M = trace_find(a->s->t, st, a->s->layer, sub, -1, T_MASK);
    int nr = app_rows(a), nc = app_cols(a);
    MGeom g = multiples_geom(a, r.w, r.h);
    if (g.per < 1) {
        ui_put(r.y, r.x, r.w, "too narrow for every head at once: press a");
        return;
    }
    int top = 1 + g.collab, ph = nr * g.rh + top;
    const Page *pg = app_page(a);
    int labels = sub == SUB_SELF && pg && lesson_model_opened(&a->s->course, pg);
    int bidir = !(a->s->ctl.causal && st == STACK_DEC);
    for (int h = 0; h < c->n_heads; h++) {
        int band = h / g.per;
        int py = r.y + band * (ph + !g.collab), px = r.x + g.lw + (h % g.per) * g.pw;
        if (py + ph > r.y + r.h) {
            ui_put(r.y + r.h - 1, r.x, r.w, a->scr.focus
                                                ? "(more heads than fit: enlarge the terminal)"
                                                : "(more heads than fit: z shows the widget "
                                                  "alone, or enlarge the terminal)");
            break;
        }
        const TraceEntry *W = trace_find(a->s->t, st, a->s->layer, sub, h, a->s->scores ? T_MASKED
                                                                               : T_WEIGHTS);
        if (!W)
            continue;
        if (g.lw > 0 && h % g.per == 0) /* the band's row labels: the query tokens */
            for (int i = 0; i < nr; i++)
                ui_put(py + top + i * g.rh + (g.rh - 1) / 2, r.x, g.lw - 1, app_row_token(a, i));
        float lo = 0.0f, hi = 1.0f;
        if (a->s->scores)
            finite_range(W, &lo, &hi);
        /* on the learner's model, what each head does on this sentence: "head 0 prev 0.58",
         * or "h0 prev" in a narrow panel (12 heads at 80 columns), whole or not at all */
        HeadStat hs;
        char tag[24] = "";
        int lab = labels && !head_stat_read(a->s->t, st, a->s->layer, h, bidir, &hs);
        if (lab)
            snprintf(tag, sizeof tag, hs.best > 0 ? "%s %.2f" : "%s", hs.tag, hs.best);
        char title[16];
        snprintf(title, sizeof title, "head %d", h);
        int compact = lab && ui_width(tag) > g.pw - 2 - ui_width(title) &&
                      (int)strlen(hs.tag) + 4 <= g.pw - 1;
        if (compact)
            snprintf(tag, sizeof tag, "%s", hs.tag);
        if (h == a->s->head)
            attron(A_REVERSE | A_BOLD);
        int tw = ui_putf(py, px, g.pw - 1, compact ? "h%d" : "head %d", h);
        if (h == a->s->head)
            attroff(A_REVERSE | A_BOLD);
        if (lab && ui_width(tag) <= g.pw - 2 - tw)
            ui_put(py, px + tw + 1, g.pw - 2 - tw, tag);
        if (g.collab) { /* the key tokens, cut to the cell */
            attron(A_DIM);
            for (int j = 0; j < nc; j++)
                ui_put(py + 1, px + j * g.cw, g.cw - 1, app_col_token(a, j));
            attroff(A_DIM);
        }
        for (int i = 0; i < nr; i++) {
            /* cells too narrow for a value: each row's strongest key gets a '*', so the
             * panel is not colour alone (80x24, 100x30) */
            int best = -1;
            for (int j = 0; j < nc; j++)
                if (!is_masked(M, i, j) && (best < 0 || W->data[(size_t)i * nc + j] >
                                                            W->data[(size_t)i * nc + best]))
                    best = j;
            for (int j = 0; j < nc; j++) {
                float v = W->data[(size_t)i * nc + j];
                float v01 = a->s->scores ? (v - lo) / (hi - lo) : v;
                int x = px + j * g.cw, y = py + top + i * g.rh;
                if (g.cw >= 4) { /* cells wide enough for a value: drawn like the single heatmap's */
                    draw_cell(y, x, g.cw, g.rh, v, v01, is_masked(M, i, j), a->s->scores, 0);
                } else if (is_masked(M, i, j)) {
                    attron(A_DIM);
                    ui_put(y, x, 1, ui_glyph(G_MASKED));
                    attroff(A_DIM);
                } else if (ui.color != UI_COLOR_NONE) {
                    int at = ui_ramp_attr(ui_ramp_level(v01));
                    attron(at);
                    ui_fill(y, x, g.cw);
                    if (j == best)
                        ui_put(y + (g.rh - 1) / 2, x + (g.cw - 1) / 2, 1, "*");
                    attroff(at);
                } else {
                    for (int q = 0; q < g.cw; q++)
                        ui_put(y, x + q, 1, j == best && q == (g.cw - 1) / 2 ? "*" : ui_shade(v01));
                }
            }
        }
    }
    int rows_used = g.collab ? g.bands * ph : g.bands * (ph + 1) - 1;
    if (rows_used < r.h) {
        int legw = draw_legend(r.y + rows_used, r.x, r.w, 0.0f, 1.0f, a->s->scores);
        if (g.cw < 4 && legw + 24 <= r.w)
            ui_put(r.y + rows_used, r.x + legw + 2, r.w - legw - 2, "* strongest key of the row");
    }
}

static void heatmap_draw(App *a, Rect r)
{
    if (!a->s->ran) {
        attron(COLOR_PAIR(UI_WARN));
        ui_put(r.y, r.x, r.w, a->s->run_err[0] ? a->s->run_err : "nothing to show");
        attroff(COLOR_PAIR(UI_WARN));
        return;
    }
    draw_status(a, r.y, r.x, r.w);
    Rect b = {r.y + 1, r.x, r.h - 1, r.w};
    if (a->s->all_heads)
        draw_multiples(a, b);
    else
        draw_single(a, b);
}


static int heatmap_need(App *a, int w)
{
    if (!a->s->ran)
        return 2;
    int nr = app_rows(a);
    if (a->s->all_heads) {
        MGeom g = multiples_geom(a, w, 0);
        return 1 + g.bands * (nr + 2) - 1 + 1; /* status, bands with gaps, legend */
    }
    return 1 + nr + single_overhead(a) + inspector_own_line(a, w);
}

/* Rows out of sight in a w x h pane: the token rows a single heatmap scrolls to; with
 * every head, the rows of the bands that do not fit under the status line. */
static int heatmap_hidden(App *a, int w, int h)
{
    if (!a->s->ran)
        return 0;
    int nr = app_rows(a);
    if (a->s->all_heads) {
        MGeom g = multiples_geom(a, w, h - 1);
        if (g.per < 1)
            return nr * a->s->model->cfg.n_heads;
        /* as draw_multiples: a band is drawn only when all its rows fit */
        int ph = nr * g.rh + 1 + g.collab, out = 0;
        for (int b = 0; b < g.bands; b++)
            if (b * (ph + !g.collab) + ph > h - 1)
                out += nr;
        return out;
    }
    int body = single_body(nr, h - 1, single_overhead(a) + inspector_own_line(a, w));
    return nr > body ? nr - body : 0;
}


const ViewOps VIEW_HEATMAP = {
    .name = "heatmap", .kind = W_HEATMAP,
    .draw = heatmap_draw, .need = heatmap_need, .self_scroll = 1,
    .hidden = heatmap_hidden,
};

/* Prose-only pages: no widget. */
const ViewOps VIEW_NONE = {.name = "prose", .kind = W_NONE};
