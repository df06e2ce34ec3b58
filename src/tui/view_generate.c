/* view_generate.c - a prompt continued token by token with the page's decoder (gen_run): the
 * text so far, the K and V cache of one head growing by a row per step (the rows reused from
 * the step before dimmed, the new one reversed) with the new query's weight on each key, the
 * most likely next tokens, and the work so far with and without the cache. n/N step, t
 * switches greedy and sampling, + / - the temperature, s the seed. Reads a->live.gen and the
 * last run in a->t. */
#include <curses.h>
#include <string.h>

#include "ui.h"
#include "view_explain.h"

#define GEN_CELL 7   /* a K or V entry: "%6.2f " */
#define GEN_LABEL 7  /* a row's token */
#define GEN_WCOL 6   /* the new query's weight on the row's key */

/* The temperatures + and - step through. */
static const float TEMPS[] = {0.25f, 0.5f, 0.7f, 1.0f, 1.5f, 2.0f, 3.0f};
#define N_TEMPS (int)(sizeof TEMPS / sizeof TEMPS[0])

static const TraceEntry *gen_entry(App *a, TensorKind k)
{
    if (k == T_K && a->t->ctl.pe == PE_ROPE)
        k = T_K_ROT;
    return trace_find(a->t, STACK_DEC, a->w->start.layer, SUB_SELF, a->w->start.head, k);
}

static const char *word(App *a, int id)
{
    return vocab_word(&a->model->vocab, id);
}

/* The text so far on one line: the prompt plain, the generated tokens bold, the newest
 * reversed; when it is too long the earliest words give way to "...". */
static void draw_text(App *a, int y, int x, int w)
{
    const GenStep *g = &a->live.gen;
    const int *ids = a->live.gen_ids;
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
    const GenStep *g = &a->live.gen;
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
        ui_put(yy, x, GEN_LABEL - 1, word(a, a->live.gen_ids[i]));
        if (wt)
            ui_putf(yy, x + GEN_LABEL, GEN_WCOL, "%.2f",
                    (double)wt->data[(size_t)(e->rows - 1) * wt->cols + i]);
        for (int j = 0; j < nc; j++)
            ui_putf(yy, x + lw + j * GEN_CELL, GEN_CELL, "%6.2f",
                    (double)e->data[(size_t)i * e->cols + j]);
        attroff(at);
    }
}

/* The next-token candidates on one line: "next: sat 0.52  ran 0.11 ..." (sampling: the
 * probability at the temperature beside the model's), the chosen one reversed. */
static int draw_next(App *a, int y, int x, int w)
{
    const GenStep *g = &a->live.gen;
    int sample = a->live.s.sample, xx = x;
    attron(A_BOLD);
    if (sample)
        xx += ui_putf(y, xx, w, "next, p (p at T=%g):", (double)a->live.s.temp);
    else
        xx += ui_put(y, xx, w, "next token, p:");
    attroff(A_BOLD);
    for (int k = 0; k < g->n_top && xx < x + w; k++) {
        int at = g->top_id[k] == g->next ? A_REVERSE : 0;
        xx += ui_put(y, xx, x + w - xx, " ");
        attron(at);
        if (sample)
            xx += ui_putf(y, xx, x + w - xx, "%s %.3f (%.2f)", word(a, g->top_id[k]), g->top_p[k],
                          g->top_pt[k]);
        else
            xx += ui_putf(y, xx, x + w - xx, "%s %.3f", word(a, g->top_id[k]), g->top_p[k]);
        attroff(at);
    }
    int listed = 0;
    for (int k = 0; k < g->n_top; k++)
        listed |= g->top_id[k] == g->next;
    if (!listed && xx < x + w) { /* a sampled token outside the top list */
        xx += ui_put(y, xx, x + w - xx, " ");
        attron(A_REVERSE);
        ui_putf(y, xx, x + w - xx, "%s %.3f", word(a, g->next), g->next_p);
        attroff(A_REVERSE);
    }
    return 1;
}

static void generate_draw(App *a, Rect r)
{
    if (ex_not_ran(a, r))
        return;
    const GenStep *g = &a->live.gen;
    char lh[80], g1[48], g2[48], mode[48];
    int y = r.y, bottom = r.y + r.h;
    app_layer_head(a, a->w->start.layer, a->w->start.head, lh, sizeof lh);
    if (a->live.s.sample)
        snprintf(mode, sizeof mode, "sampling T=%g seed %d", (double)a->live.s.temp,
                 a->live.s.seed);
    else
        snprintf(mode, sizeof mode, "greedy");
    attron(COLOR_PAIR(UI_ACCENT));
    ui_putf(y++, r.x, r.w, "Generate  step %d, %d tokens  %s  %s", g->step, g->n, mode, lh);
    attroff(COLOR_PAIR(UI_ACCENT));
    draw_text(a, y++, r.x, r.w);
    const TraceEntry *K = gen_entry(a, T_K), *V = gen_entry(a, T_V), *W = gen_entry(a, T_WEIGHTS);
    if (!K || !V || !W) {
        ui_put(y, r.x, r.w, "keys and values are not in the trace");
        return;
    }
    /* below the tables: next tokens, two lines of work, the measured reuse */
    int below = 4, gap = r.h >= 16 ? 1 : 0;
    int max_rows = bottom - (y + gap + 1) - below - gap;
    int half = (r.w - 2) * 3 / 5;
    y += gap;
    draw_cache(a, y, r.x, half, K, W, "K", max_rows);
    draw_cache(a, y, r.x + half + 2, r.w - half - 2, V, NULL, "V", max_rows);
    int shown = K->rows > max_rows ? (max_rows < 2 ? 2 : max_rows) : K->rows;
    y += 1 + shown + gap;
    if (y < bottom)
        y += draw_next(a, y, r.x, r.w);
    if (y < bottom)
        ui_putf(y++, r.x, r.w, "so far with the cache: %lld K,V rows, %s multiply-adds",
                g->rows_cached, ex_group(g->macs_cached, g1, sizeof g1));
    if (y < bottom) {
        attron(A_BOLD);
        ui_putf(y++, r.x, r.w, "rerunning every step:  %lld K,V rows, %s multiply-adds (%.2fx)",
                g->rows_full, ex_group(g->macs_full, g2, sizeof g2),
                (double)g->macs_full / (double)(g->macs_cached ? g->macs_cached : 1));
        attroff(A_BOLD);
    }
    if (y < bottom) {
        attron(A_DIM);
        if (g->step > 0)
            ui_putf(y++, r.x, r.w, "reused rows against the step before: max |diff| %.2g, every "
                                   "layer and head", (double)g->reuse_drift);
        else
            ui_put(y++, r.x, r.w, "step 0 runs the prompt (prefill); n appends the reversed token");
        attroff(A_DIM);
    }
}

static int temp_index(float t, int up)
{
    if (up) {
        for (int i = 0; i < N_TEMPS; i++)
            if (TEMPS[i] > t + 1e-6f)
                return i;
        return N_TEMPS - 1;
    }
    for (int i = N_TEMPS - 1; i >= 0; i--)
        if (TEMPS[i] < t - 1e-6f)
            return i;
    return 0;
}

/* A new sampling setting keeps the step when the new text reaches it, else its last step. */
static void rerun_keep_step(App *a)
{
    app_run(a);
    while (!a->ran && a->live.s.step > 0) {
        a->live.s.step--;
        app_run(a);
    }
}

static int generate_key(App *a, Request req, int k)
{
    (void)k;
    if (!a->ran && req != REQ_TOGGLE_SAMPLE)
        return 0;
    LiveState *s = &a->live.s;
    switch (req) {
    case REQ_STEP_NEXT:
        if (a->live.gen.end) {
            app_msg(a, 0, "the text is finished: %s", a->live.gen.n >= a->model->cfg.max_len
                        ? "the model reads no more tokens" : "it ended with a full stop");
            return 1;
        }
        if (a->live.gen.n >= a->t->max_n) {
            app_msg(a, 0, "the player runs at most %d tokens", a->t->max_n);
            return 1;
        }
        s->step++;
        break;
    case REQ_STEP_PREV:
        if (s->step == 0) {
            app_msg(a, 0, "step 0: the prompt alone");
            return 1;
        }
        s->step--;
        break;
    case REQ_TOGGLE_SAMPLE:
        s->sample = !s->sample;
        rerun_keep_step(a);
        if (s->sample)
            app_msg(a, 0, "sampling at T=%g, seed %d: the same seed gives the same text",
                    (double)s->temp, s->seed);
        else
            app_msg(a, 0, "greedy: always the most likely token");
        return 1;
    case REQ_INCREASE:
    case REQ_DECREASE:
        if (!s->sample)
            return 0;
        s->temp = TEMPS[temp_index(s->temp, req == REQ_INCREASE)];
        rerun_keep_step(a);
        return 1;
    case REQ_NEXT_SEED:
        if (!s->sample)
            return 0;
        s->seed = s->seed < 2147483647 ? s->seed + 1 : 0;
        rerun_keep_step(a);
        return 1;
    default:
        return 0;
    }
    app_run(a);
    return 1;
}

static int generate_need(App *a, int w)
{
    (void)w;
    return (a->ran ? a->live.gen.n : 4) + 8;
}

const ViewOps VIEW_GENERATE = {
    .name = "generate", .kind = W_GENERATE, .keymap = KM_GENERATE, .common = C_RESET,
    .draw = generate_draw, .key = generate_key, .need = generate_need,
    .self_scroll = 1, /* folds its earliest cache rows to fit */
};
