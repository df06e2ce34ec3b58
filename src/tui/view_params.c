/* view_params.c - the parameter count of a configuration (explain_params): one row per
 * component with its formula, count and share, and the total. t ties / unties the
 * embeddings, g switches grouped-query attention (n_kv_heads) on and off. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app_views.h"
#include "ui.h"
#include "view_explain.h"

/* The sizes line and the choices line of p (the choices: FFN kind, norm, biases). */
static void params_header(const ParamConfig *p, char *sizes, size_t ns, char *choices, size_t nc)
{
    snprintf(sizes, ns, "d_model %lld  h %lld  kv_h %lld  d_head %lld  L %lld  d_ff %lld  "
             "vocab %lld", p->d_model, p->n_heads, p->n_kv_heads, p->d_head, p->n_layers,
             p->d_ff, p->vocab);
    snprintf(choices, nc, "%s  %s%s", p->attn_only ? "no FFN (attention only)"
             : p->swiglu ? "SwiGLU FFN (3 matrices)" : "FFN of 2 matrices",
             p->rmsnorm ? "RMSNorm" : "LayerNorm", p->bias ? "  biases" : "");
}

static void params_draw(App *a, Rect r)
{
    if (ex_not_ran(a, r))
        return;
    const LiveWidget *l = &a->s->live;
    const ParamConfig *p = &l->pc;
    char g[48], tr[128], sizes[160], choices[96];
    int y = r.y;
    attron(COLOR_PAIR(UI_ACCENT));
    /* a page's "config" names it; else the page's model (the learner's, when opened) */
    const char *name = widget_params_name(a->s->w, a->s->model);
    ui_putf(y++, r.x, r.w, "parameters of %s", name[0] ? name : "the model");
    attroff(COLOR_PAIR(UI_ACCENT));
    params_header(p, sizes, sizeof sizes, choices, sizeof choices);
    if (ui_width(sizes) + 2 + ui_width(choices) <= r.w) {
        ui_putf(y++, r.x, r.w, "%s  %s", sizes, choices);
        y++;
    } else { /* two lines instead of one and the blank line: the same height */
        ui_put(y++, r.x, r.w, sizes);
        ui_put(y++, r.x, r.w, choices);
    }
    /* columns: name, formula (when it fits), count, share; name and count as wide as the
     * widest entry, the formula gets the rest */
    int nw = ui_width("component") + 1, cw = ui_width("count") + 1, sw = 7;
    ex_group(l->total, g, sizeof g);
    if (ui_width(g) + 1 > cw)
        cw = ui_width(g) + 1;
    for (int i = 0; i < l->n_rows; i++)
        if (ui_width(l->rows[i].name) + 1 > nw)
            nw = ui_width(l->rows[i].name) + 1;
    int fw = r.w - nw - cw - sw;
    int show_f = fw >= 24;
    if (!show_f)
        nw = r.w - cw - sw;
    attron(A_BOLD | A_UNDERLINE);
    ui_put(y, r.x, nw, "component");
    if (show_f)
        ui_put(y, r.x + nw, fw, "formula");
    int xc = r.x + nw + (show_f ? fw : 0);
    ui_putf(y, xc, cw, "%*s", cw - 1, "count");
    ui_putf(y, xc + cw, sw, "%*s", sw, "share");
    attroff(A_BOLD | A_UNDERLINE);
    y++;
    for (int i = 0; i < l->n_rows && y < r.y + r.h - 1; i++, y++) {
        const ParamRow *row = &l->rows[i];
        ui_put(y, r.x, nw - 1, row->name);
        if (show_f)
            ui_put(y, r.x + nw, fw - 1, ui_text(row->formula, tr, sizeof tr));
        ex_group(row->count, g, sizeof g);
        ui_putf(y, xc, cw, "%*s%s", cw - 1 - ui_width(g), "", g);
        ui_putf(y, xc + cw, sw, "%6.1f%%", l->total ? 100.0 * (double)row->count / (double)l->total
                                                     : 0.0);
    }
    if (y < r.y + r.h) {
        attron(A_BOLD);
        double t = (double)l->total;
        ui_putf(y, r.x, nw + (show_f ? fw : 0), "total (%.2f %s)",
                t >= 1e9 ? t / 1e9 : t >= 1e6 ? t / 1e6 : t / 1e3,
                t >= 1e9 ? "B" : t >= 1e6 ? "M" : "K");
        ex_group(l->total, g, sizeof g);
        ui_putf(y, xc, cw, "%*s%s", cw - 1 - ui_width(g), "", g);
        ui_putf(y, xc + cw, sw, "%6.1f%%", 100.0);
        attroff(A_BOLD);
        y++;
    }
    if (y < r.y + r.h) {
        attron(A_DIM);
        ui_putf(y, r.x, r.w, "embeddings %s; %lld query heads share %lld KV head%s",
                p->tied ? "tied (LM head = embeddingᵀ)" : "untied (own LM head)", p->n_heads,
                p->n_kv_heads, p->n_kv_heads == 1 ? "" : "s");
        attroff(A_DIM);
    }
}


static int params_need(App *a, int w)
{
    (void)w;
    return a->s->live.n_rows + 6;
}

const ViewOps VIEW_PARAMS = {
    .name = "params", .kind = W_PARAMS,
    .draw = params_draw, .need = params_need,
};
