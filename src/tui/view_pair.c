/* view_pair.c - two models side by side on the induction task (the pair widget, probe.h): for
 * the page's model and its "model2", each copy's loss on fresh random repeats, every head's
 * previous-token and induction scores (heads.h) and OV copying score (circuits.h), and each
 * model's guess after the page's sentence (a model of more than 16 heads: its four best
 * induction heads). Drawn from a->s->live.probe; nothing computed but that order. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app_views.h"
#include "probe.h"
#include "ui.h"
#include "view_explain.h"

/* A model with more than PROBE_ALL_HEADS heads shows this many: its best induction heads. */
enum { PAIR_ROWS_BIG = 4 };

/* A score in [0, 1]: bold from one half, where the head does the thing. */
static void score(int y, int x, int w, double v)
{
    int at = v >= 0.5 ? A_BOLD : 0;
    attron(at);
    ui_putf(y, x, w, "%6.2f", v);
    attroff(at);
}

/* One model's column at x, w wide, from row y; returns the row after it. */
static int column(const ProbeModel *q, const ProbeModel *other, int y, int x, int w,
                  int bottom)
{
    char b[200];
    attron(COLOR_PAIR(UI_ACCENT) | A_BOLD);
    int nh = q->L * q->H, big = nh > PROBE_ALL_HEADS, order[PAIR_ROWS_BIG];
    int rows = big ? PAIR_ROWS_BIG : nh;
    int tl = snprintf(b, sizeof b, "%d layer%s: %s", q->L, q->L == 1 ? "" : "s",
                      q->m->cfg.name);
    ui_put(y, x, w, b);
    attroff(COLOR_PAIR(UI_ACCENT) | A_BOLD);
    if (big && tl < w) /* say the rows are a choice */
        ui_putf(y, x + tl, w - tl, " (best %d of %d)", rows, nh);
    y++;
    int lx = snprintf(b, sizeof b, "loss 1st copy %.2f  2nd ", q->first);
    ui_put(y, x, w, b);
    snprintf(b, sizeof b, "%.2f", q->second);
    int at = q->second < other->second ? A_BOLD | COLOR_PAIR(UI_ACCENT) : 0;
    attron(at);
    ui_put(y, x + lx, w - lx, b);
    attroff(at);
    y++;
    for (int k = 0; big && k < rows; k++) { /* a big model: its best induction heads */
        order[k] = -1;
        for (int i = 0; i < nh; i++) {
            int taken = 0;
            for (int j = 0; j < k; j++)
                taken |= order[j] == i;
            if (!taken && (order[k] < 0 || q->sc[i].induction > q->sc[order[k]].induction))
                order[k] = i;
        }
    }
    attron(A_DIM);
    ui_putf(y++, x, w, "%-7s%6s%8s%7s", "head", "prev", "induct", "copy");
    attroff(A_DIM);
    for (int k = 0; k < rows && y < bottom; k++, y++) {
        int i = big ? order[k] : k;
        ui_putf(y, x, 7, "L%d.h%d", i / q->H, i % q->H);
        score(y, x + 7, 6, q->sc[i].prev);
        score(y, x + 15, 6, q->sc[i].induction);
        score(y, x + 21, 7, q->hc[i].copy);
    }
    return y;
}

static void pair_draw(App *a, Rect r)
{
    if (ex_not_ran(a, r))
        return;
    const Probe *p = a->s->live.probe;
    if (!p || !p->pair[0].m || !p->pair[1].m) {
        ui_put(r.y, r.x, r.w, "nothing to show");
        return;
    }
    int cw = (r.w - 1) / 2, bottom = r.y + r.h - 3;
    int y0 = column(&p->pair[0], &p->pair[1], r.y, r.x, cw, bottom);
    int y1 = column(&p->pair[1], &p->pair[0], r.y, r.x + cw + 1, r.w - cw - 1, bottom);
    int y = y0 > y1 ? y0 : y1;
    for (int yy = r.y; yy < y && ui.utf8; yy++)
        ui_put(yy, r.x + cw - 1, 1, ui_glyph(G_VLINE));
    const Trace *t = a->s->t;
    const char *last = vocab_word(&a->s->model->vocab, t->src[t->n - 1]);
    for (int k = 0; k < 2 && y < r.y + r.h; k++) {
        const ProbeModel *q = &p->pair[k];
        int x = k ? r.x + cw + 1 : r.x, w = k ? r.w - cw - 1 : cw - 1;
        if (q->next >= 0)
            ui_putf(y, x, w, "after \"%s\": \"%s\" %.2f", last,
                    vocab_word(&q->m->vocab, q->next), q->p);
    }
    y++;
    attron(A_DIM);
    if (y < r.y + r.h)
        ui_put(y++, r.x, r.w, "loss: nats on fresh random repeats; prev, induct: mean weight on "
                              "the previous");
    if (y < r.y + r.h)
        ui_put(y++, r.x, r.w, "token, on the one after its earlier copy; copy: words OV maps to "
                              "themselves");
    attroff(A_DIM);
}

static int pair_need(App *a, int w)
{
    (void)w;
    const Probe *p = a->s->live.probe;
    int rows = 4;
    for (int k = 0; p && k < 2; k++) {
        int nh = p->pair[k].m ? p->pair[k].L * p->pair[k].H : 0;
        nh = nh > PROBE_ALL_HEADS ? PAIR_ROWS_BIG : nh;
        rows = nh > rows ? nh : rows;
    }
    return rows + 6;
}

const ViewOps VIEW_PAIR = {.name = "pair", .kind = W_PAIR,
                           .draw = pair_draw, .need = pair_need};
