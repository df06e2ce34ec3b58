/* view_kvcache.c - generation one token at a time (explain_kvcache): the cached K and V rows
 * of one head, the newest query's weights, the work of this step and of every step so far
 * with and without the cache, the cache size, and the measured drift of cached keys. n/N
 * (→/←) move the step. Reads the prefix run in a->s->t. */
#include <curses.h>
#include <string.h>

#include "app_views.h"
#include "ui.h"
#include "view_explain.h"

#define KV_CELL 7

static const TraceEntry *kv_entry(App *a, TensorKind k)
{
    int layer = a->s->w->start.layer, head = a->s->w->start.head;
    if (k == T_K && a->s->t->ctl.pe == PE_ROPE)
        k = T_K_ROT;
    return trace_find(a->s->t, STACK_DEC, layer, SUB_SELF, head, k);
}

/* Rows 0..t-1 of a (t, d) matrix, the last one marked as new; cols limited to w; at most
 * max_rows lines under the title: beyond that the earliest rows fold into one line saying how
 * many (they are the unchanged ones). */
static void kv_rows(App *a, int y, int x, int w, const TraceEntry *e, const char *title,
                    int max_rows)
{
    int lw = 6;
    int nc = (w - lw) / KV_CELL;
    if (nc > e->cols)
        nc = e->cols;
    attron(A_BOLD);
    ui_putf(y, x, w, "%s (%d row%s)%s", title, e->rows, e->rows == 1 ? "" : "s",
            nc < e->cols ? (ui.utf8 ? " …" : " ...") : "");
    attroff(A_BOLD);
    int first = 0, yy = y + 1;
    if (max_rows < 2)
        max_rows = 2;
    if (e->rows > max_rows) {
        first = e->rows - (max_rows - 1);
        attron(A_DIM);
        ui_putf(yy++, x, w, "%s %d earlier row%s, unchanged", ui.utf8 ? "…" : "...", first,
                first == 1 ? "" : "s");
        attroff(A_DIM);
    }
    for (int i = first; i < e->rows; i++, yy++) {
        int isnew = i == e->rows - 1;
        if (isnew)
            attron(A_REVERSE);
        ui_put(yy, x, lw - 1, vocab_word(&a->s->model->vocab, a->s->t->src[i]));
        for (int j = 0; j < nc; j++)
            ui_putf(yy, x + lw + j * KV_CELL, KV_CELL, "%6.2f", (double)e->data[i * e->cols + j]);
        if (isnew)
            attroff(A_REVERSE);
    }
}

static void kvcache_draw(App *a, Rect r)
{
    if (ex_not_ran(a, r))
        return;
    const KvCacheStep *k = &a->s->live.kv;
    const ModelConfig *c = &a->s->model->cfg;
    int n = a->s->live.n_tokens, t = k->step;
    char g1[48], g2[48];
    int y = r.y;
    attron(COLOR_PAIR(UI_ACCENT));
    char lh[80];
    app_layer_head(a, a->s->w->start.layer, a->s->w->start.head, lh, sizeof lh);
    ui_putf(y++, r.x, r.w, "KV cache  step %d/%d  %s  (newest token at position %d)", t, n, lh,
            t - 1);
    attroff(COLOR_PAIR(UI_ACCENT));
    /* the sentence: generated so far, the newest, the future */
    int x = r.x;
    for (int i = 0; i < n && x < r.x + r.w; i++) {
        const char *wd = vocab_word(&a->s->model->vocab, a->s->src[i]);
        int at = i == t - 1 ? (A_REVERSE | A_BOLD) : i >= t ? A_DIM : 0;
        attron(at);
        x += ui_put(y, x, r.x + r.w - x, wd);
        attroff(at);
        x += ui_put(y, x, r.x + r.w - x, " ");
    }
    y += 2;
    const TraceEntry *K = kv_entry(a, T_K), *V = kv_entry(a, T_V), *W = kv_entry(a, T_WEIGHTS);
    if (!K || !V || !W) {
        ui_put(y, r.x, r.w, "keys and values are not in the trace");
        return;
    }
    int half = (r.w - 2) / 2;
    /* the rows get what the five lines below leave of the pane */
    int max_rows = r.y + r.h - (y + 1) - 6;
    kv_rows(a, y, r.x, half, K, "cached K", max_rows);
    kv_rows(a, y, r.x + half + 2, r.w - half - 2, V, "cached V", max_rows);
    int shown = K->rows > max_rows ? (max_rows < 2 ? 2 : max_rows) : K->rows;
    y += 2 + shown;
    if (y < r.y + r.h) {
        x = r.x;
        x += ui_putf(y, x, r.w, "new query '%s' weights:",
                     vocab_word(&a->s->model->vocab, a->s->t->src[t - 1]));
        for (int j = 0; j < W->cols && x < r.x + r.w; j++)
            x += ui_putf(y, x, r.x + r.w - x, " %s %.2f", vocab_word(&a->s->model->vocab, a->s->t->src[j]),
                         (double)W->data[(size_t)(t - 1) * W->cols + j]);
        y++;
    }
    if (y < r.y + r.h)
        ui_putf(y++, r.x, r.w, "this step: %s multiply-adds with the cache, %s without", 
                ex_group(k->work_cached, g1, sizeof g1), ex_group(k->work_full, g2, sizeof g2));
    if (y < r.y + r.h) {
        attron(A_BOLD);
        ui_putf(y++, r.x, r.w, "steps 1-%d: %s with the cache, %s without (%.2fx)", t,
                ex_group(k->total_cached, g1, sizeof g1), ex_group(k->total_full, g2, sizeof g2),
                (double)k->total_full / (double)(k->total_cached ? k->total_cached : 1));
        attroff(A_BOLD);
    }
    if (y < r.y + r.h)
        ui_putf(y++, r.x, r.w, "cache: 2 (K,V) × %d layers × %d row%s × %d heads × %d = %s floats",
                c->n_layers, t, t == 1 ? "" : "s", c->n_heads, c->d_head,
                ex_group(k->cache_floats, g1, sizeof g1));
    if (y < r.y + r.h) {
        attron(A_DIM);
        ui_putf(y++, r.x, r.w, "cached keys drift %.2g, newest row drift %.2g (prefix run vs "
                               "full run)", (double)k->k_drift, (double)k->row_drift);
        attroff(A_DIM);
    }
}


static int kvcache_need(App *a, int w)
{
    (void)w;
    return (a->s->ran ? a->s->live.kv.step : 4) + 10;
}

/* Lines out of sight in a w x h pane: those of the five below the cache tables that do not
 * fit once the tables are folded to their newest two rows (the fold itself is the compact
 * form: the rows it summarises are unchanged). Mirrors kvcache_draw's layout. */
static int kvcache_hidden(App *a, int w, int h)
{
    (void)w;
    const TraceEntry *K = a->s->ran ? kv_entry(a, T_K) : NULL;
    if (!K)
        return 0;
    int max_rows = h - 10; /* status, sentence, blank, table title; five lines below */
    int shown = K->rows > max_rows ? (max_rows < 2 ? 2 : max_rows) : K->rows;
    return 10 + shown > h ? 10 + shown - h : 0;
}

const ViewOps VIEW_KVCACHE = {
    .name = "kvcache", .kind = W_KVCACHE,
    .draw = kvcache_draw, .need = kvcache_need,
    .self_scroll = 1, /* folds its earliest cache rows to fit */
    .hidden = kvcache_hidden,
};
