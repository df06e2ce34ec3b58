/* view_scaling.c - the √d_k experiment: one query's scores against 8 random keys and their
 * softmax, unscaled beside scaled, with var(q·k) and the entropy (explain_scaling). + and -
 * double and halve d_k; s says which side the model uses. */
#include <curses.h>
#include <string.h>

#include "app_views.h"
#include "ui.h"
#include "view_explain.h"

/* One side: title, 8 rows "k0  score bar weight", max weight and entropy. */
static void side(App *a, int y, int x, int w, const char *title, const float *score,
                 const float *weight, float maxw, double entropy, int in_use)
{
    char t[96];
    snprintf(t, sizeof t, "%s%s", title, !in_use ? "" : ui.utf8 ? "  ◂ in use" : "  < in use");
    attron(A_BOLD | (in_use ? A_UNDERLINE : 0));
    ui_put(y, x, w, t);
    attroff(A_BOLD | A_UNDERLINE);
    int bw = w - 3 - 8 - 6;
    if (bw < 4)
        bw = 4;
    for (int j = 0; j < SCALING_KEYS; j++) {
        int yy = y + 1 + j;
        ui_putf(yy, x, 11, "k%d %7.2f", j, (double)score[j]);
        int at = weight[j] >= maxw && ui.color != UI_COLOR_NONE ? COLOR_PAIR(UI_ACCENT) : 0;
        attron(at);
        ex_bar(yy, x + 12, bw, weight[j]);
        attroff(at);
        ui_putf(yy, x + 12 + bw, 6, " %.2f", (double)weight[j]);
    }
    (void)a;
    ui_putf(y + 1 + SCALING_KEYS, x, w, "max weight %.2f", (double)maxw);
    ui_putf(y + 2 + SCALING_KEYS, x, w, "entropy %.2f bits", entropy);
}

static void scaling_draw(App *a, Rect r)
{
    if (ex_not_ran(a, r))
        return;
    const ScalingDemo *d = &a->s->live.scaling;
    attron(COLOR_PAIR(UI_ACCENT));
    ui_putf(r.y, r.x, r.w, "√d_k experiment  d_k = %d  scaling:%s  (q, k ~ N(0,1))", d->d_k,
            a->s->live.s.scale ? "on" : "off");
    attroff(COLOR_PAIR(UI_ACCENT));
    ui_putf(r.y + 1, r.x, r.w, "var(q·k) = %.2f (≈ d_k)   var(q·k/√d_k) = %.2f (≈ 1)",
            d->var_raw, d->var_scaled);
    int half = (r.w - 2) / 2;
    side(a, r.y + 3, r.x, half, "unscaled q·k", d->raw, d->w_raw, d->max_raw, d->entropy_raw,
         !a->s->live.s.scale);
    char t[64];
    snprintf(t, sizeof t, ui.utf8 ? "scaled q·k/√%d" : "scaled q*k/sqrt(%d)", d->d_k);
    side(a, r.y + 3, r.x + half + 2, r.w - half - 2, t, d->scaled, d->w_scaled, d->max_scaled,
         d->entropy_scaled, a->s->live.s.scale);
    int y = r.y + 6 + SCALING_KEYS;
    if (y < r.y + r.h) {
        attron(A_DIM);
        ui_putf(y, r.x, r.w, "uniform over %d keys: weight %.3f, entropy %.2f bits", SCALING_KEYS,
                1.0 / SCALING_KEYS, 3.0);
        attroff(A_DIM);
    }
}


static int scaling_need(App *a, int w)
{
    (void)a;
    (void)w;
    return SCALING_KEYS + 7;
}

const ViewOps VIEW_SCALING = {
    .name = "scaling", .kind = W_SCALING,
    .draw = scaling_draw, .need = scaling_need,
};
