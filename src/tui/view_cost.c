/* view_cost.c - the cost of attention as N grows (explain_cost): N², the bytes of every score
 * matrix of the page model's heads and layers, the QKᵀ multiply-adds, the whole forward, and
 * a bar per N showing the quadratic growth. + and - double and halve N. */
#include <curses.h>
#include <string.h>

#include "app_views.h"
#include "ui.h"
#include "view_explain.h"

static void cost_draw(App *a, Rect r)
{
    if (ex_not_ran(a, r))
        return;
    const CostPoint *c = &a->s->live.cost;
    const ModelConfig *mc = &a->s->model->cfg;
    char g1[48], g2[48], g3[48];
    int y = r.y;
    attron(COLOR_PAIR(UI_ACCENT));
    ui_putf(y++, r.x, r.w, "cost of attention  N = %lld token%s  model: %d heads, %d layers, d_k %d",
            c->n, c->n == 1 ? "" : "s", mc->n_heads, mc->n_layers, mc->d_head);
    attroff(COLOR_PAIR(UI_ACCENT));
    attron(A_BOLD);
    ui_putf(y++, r.x, r.w, "score matrix per head: N² = %s %s", ex_group(c->score_entries, g1,
                                                                       sizeof g1),
            c->score_entries == 1 ? "entry" : "entries");
    attroff(A_BOLD);
    ui_putf(y++, r.x, r.w, "scores of every head and layer: N²·h·L·4 B = %s B (%s)",
            ex_group(c->score_bytes, g1, sizeof g1), ex_bytes(c->score_bytes, g2, sizeof g2));
    ui_putf(y++, r.x, r.w, "QKᵀ multiply-adds: N²·d_k·h·L = %s", ex_group(c->qk_macs, g1,
                                                                            sizeof g1));
    ui_putf(y++, r.x, r.w, "whole forward: %s multiply-adds (QKᵀ %.1f%%)",
            ex_group(c->forward_macs, g3, sizeof g3),
            100.0 * (double)c->qk_macs / (double)(c->forward_macs ? c->forward_macs : 1));
    y++;
    /* a bar per N: N/8 .. 2N (in 1..LIVE_N_MAX), length ∝ N² */
    long long ns[8];
    int k = 0;
    for (long long v = c->n / 8 > 0 ? c->n / 8 : 1; v <= c->n * 2 && v <= LIVE_N_MAX && k < 8;
         v *= 2)
        if (k == 0 || v != ns[k - 1])
            ns[k++] = v;
    long long top = ns[k - 1] * ns[k - 1];
    int lw = 8, nw = 16;
    int bw = r.w - lw - nw;
    if (y < r.y + r.h) {
        attron(A_DIM);
        ui_put(y++, r.x, r.w, "N        N² (bar ∝ N²: doubling N quadruples it)");
        attroff(A_DIM);
    }
    for (int i = 0; i < k && y < r.y + r.h; i++, y++) {
        int cur = ns[i] == c->n;
        if (cur)
            attron(A_BOLD);
        ui_putf(y, r.x, lw, "%s%lld", cur ? (ui.utf8 ? "▸" : ">") : " ", ns[i]);
        int at = cur && ui.color != UI_COLOR_NONE ? COLOR_PAIR(UI_ACCENT) : 0;
        attron(at);
        ex_bar(y, r.x + lw, bw, (double)(ns[i] * ns[i]) / (double)top);
        attroff(at);
        ui_putf(y, r.x + lw + bw, nw, " %s", ex_group(ns[i] * ns[i], g1, sizeof g1));
        if (cur)
            attroff(A_BOLD);
    }
}


static int cost_need(App *a, int w)
{
    (void)a;
    (void)w;
    return 14;
}

const ViewOps VIEW_COST = {
    .name = "cost", .kind = W_COST,
    .draw = cost_draw, .need = cost_need,
};
