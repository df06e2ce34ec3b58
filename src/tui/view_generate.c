/* view_generate.c - a prompt continued token by token with the page's decoder (gen_run): the
 * text so far, the K and V cache of one head growing by a row per step (the rows reused from
 * the step before dimmed, the new one reversed) with the new query's weight on each key, the
 * most likely next tokens, and the work so far with and without the cache. n/N step, t
 * switches greedy and sampling, + / - the temperature, s the seed. Reads a->s->live.gen and the
 * last run in a->s->t. */
#include <curses.h>
#include <string.h>

#include "app_views.h"
#include "ui.h"
#include "view_explain.h"

#define GEN_CELL 7   /* a K or V entry: "%6.2f " */
#define GEN_LABEL 7  /* a row's token */
#define GEN_WCOL 6   /* the new query's weight on the row's key */
#define GEN_NEXT_LABEL 10 /* "next, p" / "at T=0.25" */
#define GEN_NEXT_CELL 15  /* a candidate: "%-7.7s %.3f" and a space */

/* The temperatures + and - step through. */

static const TraceEntry *gen_entry(App *a, TensorKind k)
{
    if (k == T_K && a->s->t->ctl.pe == PE_ROPE)
        k = T_K_ROT;
    return trace_find(a->s->t, STACK_DEC, a->s->w->start.layer, SUB_SELF, a->s->w->start.head, k);
}

static const char *word(App *a, int id)
{
    return vocab_word(&a->s->model->vocab, id);
}

/* The text so far on one line: the prompt plain, the generated tokens bold, the newest
 * reversed; when it is too long the earliest words give way to "...". */
static void draw_text(App *a, int y, int x, int w)
{
    const GenStep *g = &a->s->live.gen;
    const int *ids = a->s->live.gen_ids;
    int first = 0, len = 0;
    for (int i = g->n - 1; i >= 0; i--) {
        len += ui_width(word(a, ids[i])) + 1;
        if (len > w - 4) {
            first = i + 1;
            break;
        }
    }
    int xx = x;
    if (first > 0)
        xx += ui_put(y, xx, w, ui.utf8 ? "… " : "... ");
    for (int i = first; i < g->n && xx < x + w; i++) {
        int at = i < g->n_prompt ? 0 : i == g->n - 1 && g->step > 0 ? (A_REVERSE | A_BOLD) : A_BOLD;
        attron(at);
        xx += ui_put(y, xx, x + w - xx, word(a, ids[i]));
        attroff(at);
        xx += ui_put(y, xx, x + w - xx, " ");
    }
}

/* One cache table (K with the new query's weights, or V): a title, then the rows, the
 * earliest folded into one line when there are more than max_rows. */
static void draw_cache(App *a, int y, int x, int w, const TraceEntry *e, const TraceEntry *wt,
                       const char *name, int max_rows)
{
    const GenStep *g = &a->s->live.gen;
    int lw = GEN_LABEL + (wt ? GEN_WCOL : 0);
    int nc = (w - lw) / GEN_CELL;
    nc = nc > e->cols ? e->cols : nc < 0 ? 0 : nc;
    int reused = g->step > 0 ? e->rows - 1 : 0;
    attron(A_BOLD);
    if (g->step > 0)
        ui_putf(y, x, w, "%s cache: %d reused, 1 new%s%s", name, reused, wt ? "  (w: weight)" : "",
                nc < e->cols ? (ui.utf8 ? " …" : " ...") : "");
    else
        ui_putf(y, x, w, "%s cache: %d new (the prompt)%s", name, e->rows,
                nc < e->cols ? (ui.utf8 ? " …" : " ...") : "");
    attroff(A_BOLD);
    if (max_rows < 2)
        max_rows = 2;
    int first = 0, yy = y + 1;
    if (e->rows > max_rows) {
        first = e->rows - (max_rows - 1);
        double sum = 0.0;
        for (int i = 0; wt && i < first; i++)
            sum += wt->data[(size_t)(e->rows - 1) * wt->cols + i];
        attron(A_DIM);
        if (wt)
            ui_putf(yy++, x, w, "%s %d earlier row%s, w %.2f", ui.utf8 ? "…" : "...", first,
                    first == 1 ? "" : "s", sum);
        else
            ui_putf(yy++, x, w, "%s %d earlier row%s", ui.utf8 ? "…" : "...", first,
                    first == 1 ? "" : "s");
        attroff(A_DIM);
    }
    for (int i = first; i < e->rows; i++, yy++) {
        int isnew = g->step > 0 ? i == e->rows - 1 : 1;
        int at = isnew ? A_REVERSE : A_DIM;
        attron(at);
        ui_put(yy, x, GEN_LABEL - 1, word(a, a->s->live.gen_ids[i]));
        if (wt)
            ui_putf(yy, x + GEN_LABEL, GEN_WCOL, "%.2f",
                    (double)wt->data[(size_t)(e->rows - 1) * wt->cols + i]);
        for (int j = 0; j < nc; j++)
            ui_putf(yy, x + lw + j * GEN_CELL, GEN_CELL, "%6.2f",
                    (double)e->data[(size_t)i * e->cols + j]);
        attroff(at);
    }
}

/* The next-token candidates: "next, p" and the most likely tokens with their probability,
 * the chosen one reversed (in the last cell when it is not among them); sampling adds a line
 * with the same tokens' probability at the temperature. Returns the rows drawn. */
static int draw_next(App *a, int y, int x, int w, int rows)
{
    const GenStep *g = &a->s->live.gen;
    int sample = a->s->live.s.sample && rows >= 2;
    int cells = (w - GEN_NEXT_LABEL) / GEN_NEXT_CELL;
    cells = cells > g->n_top ? g->n_top : cells < 1 ? 1 : cells;
    int ids[GEN_TOP_K];
    double p[GEN_TOP_K], pt[GEN_TOP_K];
    int listed = 0;
    for (int k = 0; k < cells; k++) {
        ids[k] = g->top_id[k];
        p[k] = g->top_p[k];
        pt[k] = g->top_pt[k];
        listed |= ids[k] == g->next;
    }
    if (!listed) { /* a draw from further down the list */
        ids[cells - 1] = g->next;
        p[cells - 1] = g->next_p;
        pt[cells - 1] = g->next_pt;
    }
    char lab[32];
    snprintf(lab, sizeof lab, "at T=%g", (double)a->s->live.s.temp);
    for (int line = 0; line < 1 + sample; line++) {
        attron(A_BOLD);
        ui_put(y + line, x, GEN_NEXT_LABEL, line ? lab : "next, p");
        attroff(A_BOLD);
        for (int k = 0; k < cells; k++) {
            int cx = x + GEN_NEXT_LABEL + k * GEN_NEXT_CELL;
            int at = ids[k] == g->next ? A_REVERSE : 0;
            attron(at);
            ui_putf(y + line, cx, GEN_NEXT_CELL - 1, "%-7.7s %.3f", word(a, ids[k]),
                    line ? pt[k] : p[k]);
            attroff(at);
        }
    }
    return 1 + sample;
}

/* Tall panes: the candidates one a line with bars (and their probability at the
 * temperature when sampling). Returns the rows drawn. */
static int draw_next_list(App *a, int y, int x, int w)
{
    const GenStep *g = &a->s->live.gen;
    int sample = a->s->live.s.sample, bw = (w - 24) / (sample ? 2 : 1) - 2;
    bw = bw > 30 ? 30 : bw;
    attron(A_BOLD);
    if (sample)
        ui_putf(y, x, w, "next token: p, and p at T=%g (seed %d)", (double)a->s->live.s.temp,
                a->s->live.s.seed);
    else
        ui_put(y, x, w, "next token: p");
    attroff(A_BOLD);
    int listed = 0, yy = y + 1;
    for (int k = 0; k <= g->n_top; k++) {
        int id;
        double p, pt;
        if (k < g->n_top) {
            id = g->top_id[k], p = g->top_p[k], pt = g->top_pt[k];
            listed |= id == g->next;
        } else if (!listed) { /* a draw from further down the list */
            id = g->next, p = g->next_p, pt = g->next_pt;
        } else {
            break;
        }
        int at = id == g->next ? A_REVERSE : 0;
        attron(at);
        ui_putf(yy, x + 2, 16, "%-9.9s %.3f", word(a, id), p);
        attroff(at);
        ex_bar(yy, x + 19, bw, p);
        if (sample) {
            ui_putf(yy, x + 21 + bw, 6, "%.3f", pt);
            ex_bar(yy, x + 27 + bw, bw, pt);
        }
        yy++;
    }
    return yy - y;
}

/* The work so far with and without the cache, and the measured reuse: up to 3 rows. */
static void draw_work(App *a, int y, int x, int w, int bottom)
{
    const GenStep *g = &a->s->live.gen;
    char g1[48], g2[48];
    if (y < bottom)
        ui_putf(y++, x, w, "so far with the cache: %lld K,V rows, %s multiply-adds",
                g->rows_cached, ex_group(g->macs_cached, g1, sizeof g1));
    if (y < bottom) {
        attron(A_BOLD);
        ui_putf(y++, x, w, "rerunning every step:  %lld K,V rows, %s multiply-adds (%.2fx)",
                g->rows_full, ex_group(g->macs_full, g2, sizeof g2),
                (double)g->macs_full / (double)(g->macs_cached ? g->macs_cached : 1));
        attroff(A_BOLD);
    }
    if (y < bottom) {
        attron(A_DIM);
        if (g->step > 0)
            ui_putf(y, x, w, "reused rows against the step before: max |diff| %.2g, every "
                             "layer and head", (double)g->reuse_drift);
        else
            ui_put(y, x, w, "step 0 runs the prompt (prefill); n appends the reversed token");
        attroff(A_DIM);
    }
}

static void generate_draw(App *a, Rect r)
{
    if (ex_not_ran(a, r))
        return;
    const GenStep *g = &a->s->live.gen;
    char lh[80], mode[48];
    int y = r.y, bottom = r.y + r.h;
    app_layer_head(a, a->s->w->start.layer, a->s->w->start.head, lh, sizeof lh);
    if (a->s->live.s.sample)
        snprintf(mode, sizeof mode, "sampling T=%g seed %d", (double)a->s->live.s.temp,
                 a->s->live.s.seed);
    else
        snprintf(mode, sizeof mode, "greedy");
    attron(COLOR_PAIR(UI_ACCENT));
    ui_putf(y++, r.x, r.w, "Generate  step %d, %d token%s%s  %s  %s", g->step, g->n,
            g->n == 1 ? "" : "s", g->end ? " (the end)" : "", mode, lh);
    attroff(COLOR_PAIR(UI_ACCENT));
    draw_text(a, y++, r.x, r.w);
    const TraceEntry *K = gen_entry(a, T_K), *V = gen_entry(a, T_V), *W = gen_entry(a, T_WEIGHTS);
    if (!K || !V || !W) {
        ui_put(y, r.x, r.w, "keys and values are not in the trace");
        return;
    }
    /* Tall panes (wide terminals): K over V, each whole, the candidates as bars. */
    int list_rows = g->n_top + 2;
    if (r.h >= 2 + 2 * (g->n + 2) + list_rows + 1 + 3) {
        y++;
        draw_cache(a, y, r.x, r.w, K, W, "K", g->n + 1);
        y += g->n + 2;
        draw_cache(a, y, r.x, r.w, V, NULL, "V", g->n + 1);
        y += g->n + 2;
        y += draw_next_list(a, y, r.x, r.w) + 1;
        draw_work(a, y, r.x, r.w, bottom);
        return;
    }
    /* below the tables: next tokens (two lines when sampling), two lines of work, the
     * measured reuse; a blank line around the tables when the pane has room for it */
    int below = 4 + a->s->live.s.sample;
    int gap = r.h >= g->n + 1 + below + 4 ? 1 : 0;
    int max_rows = bottom - (y + gap + 1) - below - gap;
    int half = (r.w - 2) * 3 / 5;
    y += gap;
    draw_cache(a, y, r.x, half, K, W, "K", max_rows);
    draw_cache(a, y, r.x + half + 2, r.w - half - 2, V, NULL, "V", max_rows);
    int shown = K->rows > max_rows ? (max_rows < 2 ? 2 : max_rows) : K->rows;
    y += 1 + shown + gap;
    if (y < bottom)
        y += draw_next(a, y, r.x, r.w, bottom - y);
    draw_work(a, y, r.x, r.w, bottom);
}




static int generate_need(App *a, int w)
{
    (void)w;
    return (a->s->ran ? a->s->live.gen.n : 4) + 8;
}

/* Lines out of sight in a w x h pane: those below the cache tables that do not fit once the
 * tables are folded to their newest two rows (the fold is the compact form). Mirrors
 * generate_draw's short-pane layout (the tall one is chosen only when everything fits). */
static int generate_hidden(App *a, int w, int h)
{
    (void)w;
    const GenStep *g = &a->s->live.gen;
    const TraceEntry *K = a->s->ran ? gen_entry(a, T_K) : NULL;
    if (!K)
        return 0;
    int below = 4 + a->s->live.s.sample;
    int gap = h >= g->n + 1 + below + 4 ? 1 : 0;
    int max_rows = h - (2 + gap + 1) - below - gap;
    int shown = K->rows > max_rows ? (max_rows < 2 ? 2 : max_rows) : K->rows;
    int used = 2 + gap + 1 + shown + gap + below;
    return used > h ? used - h : 0;
}

const ViewOps VIEW_GENERATE = {
    .name = "generate", .kind = W_GENERATE,
    .draw = generate_draw, .need = generate_need,
    .self_scroll = 1, /* folds its earliest cache rows to fit */
    .hidden = generate_hidden,
};
