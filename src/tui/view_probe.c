/* view_probe.c - the probe widgets (probe.h), each drawn from the numbers the Session's run
 * left in a->s->live.probe: the logit lens (each block's best guesses at one position), direct
 * logit attribution (the top guess's logit in parts), attention vs effect (per head: where it
 * looks, its push, the loss knocked out), activation patching (per head and FFN: how much of
 * a corrupted word's damage its clean output puts back) and attention rollout (R_l). n/N
 * move the position, l the layer. Nothing is computed here. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app_views.h"
#include "probe.h"
#include "ui.h"
#include "view_explain.h"

#define PROBE_LABEL 9 /* the row label column */

static const Probe *probe_of(App *a, Rect r)
{
    if (ex_not_ran(a, r))
        return NULL;
    const Probe *p = a->s->live.probe;
    if (!p || p->n < 1) {
        ui_put(r.y, r.x, r.w, "nothing to show");
        return NULL;
    }
    return p;
}

static const char *word(App *a, int id)
{
    return vocab_word(&a->s->model->vocab, id);
}

static int pos_of(App *a, const Probe *p)
{
    int i = a->s->step;
    return i < 0 ? 0 : i >= p->n ? p->n - 1 : i;
}

static void title(Rect r, int y, const char *s)
{
    attron(COLOR_PAIR(UI_ACCENT) | A_BOLD);
    ui_put(y, r.x, r.w, s);
    attroff(COLOR_PAIR(UI_ACCENT) | A_BOLD);
}

static void dim(Rect r, int y, const char *s)
{
    attron(A_DIM);
    ui_put(y, r.x, r.w, s);
    attroff(A_DIM);
}

/* text in a cell of w columns coloured on the ramp by v (clamped to [0, 1]). */
static void cell_text(int y, int x, int w, double v, const char *text)
{
    float v01 = (float)(v < 0 ? 0 : v > 1 ? 1 : v);
    int at = ui.color != UI_COLOR_NONE ? ui_ramp_attr(ui_ramp_level(v01)) : 0;
    attron(at);
    ui_fill(y, x, w);
    ui_put(y, x, w, text);
    attroff(at);
}

/* A value as a ramp cell of w columns with its number (fmt takes the double). */
static void cell(int y, int x, int w, double v, const char *fmt)
{
    char b[32];
    snprintf(b, sizeof b, fmt, v);
    cell_text(y, x, w, v, b);
}

/* The rows of blocks 0..L shown in h lines: all, or evenly spaced with the first and the last. */
static int lens_rows(int L, int h, int *rows)
{
    int n = L + 1;
    if (h < 2)
        h = 2;
    if (n <= h) {
        for (int l = 0; l < n; l++)
            rows[l] = l;
        return n;
    }
    for (int j = 0; j < h; j++)
        rows[j] = (int)((double)j * L / (h - 1) + 0.5);
    return h;
}

static void lens_draw(App *a, Rect r)
{
    const Probe *p = probe_of(a, r);
    if (!p)
        return;
    int i = pos_of(a, p), y = r.y, k = (r.w - PROBE_LABEL) / 14;
    char b[300];
    k = k < 1 ? 1 : k > PROBE_TOP ? PROBE_TOP : k;
    int cw = (r.w - PROBE_LABEL) / k;
    snprintf(b, sizeof b, "logit lens after \"%s\" (position %d of 0..%d)",
             word(a, a->s->t->src[i]), i, p->n - 1);
    title(r, y++, b);
    int rows[ATTEND_MAX_LAYERS + 1];
    int nr = lens_rows(p->L, r.h - 2, rows);
    snprintf(b, sizeof b, "%-*s%s", PROBE_LABEL, nr < p->L + 1 ? "block*" : "block",
             "best guesses for the next token, with p (the output's in bold)");
    dim(r, y++, b);
    int out = p->top[((size_t)p->L * p->n + i) * PROBE_TOP].id;
    for (int j = 0; j < nr && y < r.y + r.h; j++, y++) {
        int l = rows[j];
        if (l == 0)
            snprintf(b, sizeof b, "embed");
        else if (l == p->L)
            snprintf(b, sizeof b, "output");
        else
            snprintf(b, sizeof b, "after L%d", l - 1);
        ui_put(y, r.x, PROBE_LABEL, b);
        for (int c = 0; c < k; c++) {
            const LensTop *t = &p->top[((size_t)l * p->n + i) * PROBE_TOP + c];
            int bold = t->id == out ? A_BOLD : 0;
            attron(bold);
            snprintf(b, sizeof b, "%.*s %.2f", cw - 6 > 1 ? cw - 6 : 1, word(a, t->id), t->p);
            cell_text(y, r.x + PROBE_LABEL + c * cw, cw - 1, t->p, b);
            attroff(bold);
        }
    }
}

static int lens_need(App *a, int w)
{
    (void)w;
    const Probe *p = a->s->live.probe;
    int L = p ? p->L : a->s->model ? a->s->model->cfg.n_layers : 2;
    return (L + 1 < 9 ? L + 1 : 9) + 2;
}

#define ATTRIB_ROWS 12
static void attrib_draw(App *a, Rect r)
{
    const Probe *p = probe_of(a, r);
    if (!p || !p->attr)
        return;
    int i = pos_of(a, p), y = r.y;
    const LensAttribution *at = &p->attr[i];
    char b[300];
    snprintf(b, sizeof b, "the logit of \"%s\", the top guess after \"%s\" (position %d), in parts",
             word(a, at->token), word(a, a->s->t->src[i]), i);
    title(r, y++, b);
    int idx[ATTRIB_ROWS + 1]; /* room + 1 when every part fits without a "rest" row */
    int room = r.h - 3 < ATTRIB_ROWS ? r.h - 3 : ATTRIB_ROWS;
    if (room < 1)
        room = 1;
    int k = probe_parts_order(p, i, idx, at->n_parts <= room + 1 ? at->n_parts : room);
    double mx = 1e-12, rest = 0.0;
    for (int j = 0; j < k; j++)
        mx = fmax(mx, fabs(at->parts[idx[j]].value));
    for (int x = 0; x < at->n_parts; x++) {
        int shown = 0;
        for (int j = 0; j < k; j++)
            shown |= idx[j] == x;
        if (!shown)
            rest += at->parts[x].value;
    }
    int bw = r.w - 22 - 26;
    bw = bw < 4 ? 4 : bw > 40 ? 40 : bw;
    for (int j = 0; j < k && y < r.y + r.h; j++, y++) {
        const LensPart *q = &at->parts[idx[j]];
        ui_putf(y, r.x, 13, "%-12s", q->name);
        ui_putf(y, r.x + 13, 8, "%+7.2f", q->value);
        int neg = q->value < 0;
        attron(neg ? A_DIM : COLOR_PAIR(UI_ACCENT));
        ex_bar(y, r.x + 21, bw, fabs(q->value) / mx);
        attroff(neg ? A_DIM : COLOR_PAIR(UI_ACCENT));
        if (q->key >= 0)
            ui_putf(y, r.x + 22 + bw, r.w - 22 - bw, "looks at \"%s\" %.2f",
                    word(a, a->s->t->src[q->key]), q->peak);
    }
    if (k < at->n_parts && y < r.y + r.h) {
        snprintf(b, sizeof b, "the other %d parts %+.2f", at->n_parts - k, rest);
        dim(r, y++, b);
    }
    if (y < r.y + r.h) {
        attron(A_BOLD);
        ui_putf(y, r.x, r.w, "%-12s %+7.2f = the model's logit (final norm's scale %.3g frozen)",
                "sum", at->logit, at->scale);
        attroff(A_BOLD);
    }
}

static int attrib_need(App *a, int w)
{
    (void)w;
    const Probe *p = a->s->live.probe;
    int np = p && p->attr ? p->attr[0].n_parts : 8;
    return (np < ATTRIB_ROWS ? np : ATTRIB_ROWS) + 3;
}

static void effect_draw(App *a, Rect r)
{
    const Probe *p = probe_of(a, r);
    if (!p || !p->heads)
        return;
    int i = pos_of(a, p), y = r.y, tg = p->target[i];
    char b[300];
    snprintf(b, sizeof b, "after \"%s\" (position %d) the top guess is \"%s\": loss %.2f "
             "(−log p)", word(a, a->s->t->src[i]), i, word(a, tg), p->loss[i]);
    title(r, y++, b);
    int ck = p->case_key[i];
    char on[40], lay[16];
    snprintf(on, sizeof on, "on \"%.5s\"", ck >= 0 ? word(a, a->s->t->src[ck]) : "?");
    snprintf(lay, sizeof lay, "L%d (l)", p->layer);
    /* one layer's heads: say which, and that l moves */
    snprintf(b, sizeof b, "%-8s%-10s%-21s%-12s%s", p->layer >= 0 ? lay : "head", on,
             "looks hardest at", "push", "loss change knocked out");
    dim(r, y++, b);
    const ProbeHead *hs = &p->heads[(size_t)i * p->n_heads];
    int bw = -1, bd = -1, bl = -1, bk = -1;
    for (int h = 0; h < p->n_heads; h++) {
        if (bw < 0 || hs[h].weight > hs[bw].weight)
            bw = h;
        if (bk < 0 || hs[h].on_key > hs[bk].on_key)
            bk = h;
        if (bd < 0 || fabs(hs[h].direct) > fabs(hs[bd].direct))
            bd = h;
        if (bl < 0 || fabs(hs[h].dloss) > fabs(hs[bl].dloss))
            bl = h;
    }
    for (int h = 0; h < p->n_heads && y < r.y + r.h; h++, y++) {
        const ProbeHead *q = &hs[h];
        ui_putf(y, r.x, 8, "L%d.h%d", q->layer, q->head);
        if (h == bk)
            attron(A_BOLD);
        cell(y, r.x + 8, 6, q->on_key, "%5.2f");
        attroff(A_BOLD);
        if (h == bw)
            attron(A_BOLD);
        char kw[40];
        snprintf(kw, sizeof kw, "\"%.12s\"", q->key >= 0 ? word(a, a->s->t->src[q->key]) : "?");
        ui_putf(y, r.x + 18, 15, "%-14s", kw);
        cell(y, r.x + 33, 6, q->weight, "%5.2f");
        attroff(A_BOLD);
        if (h == bd)
            attron(A_BOLD);
        ui_putf(y, r.x + 39, 12, "%+7.2f", q->direct);
        attroff(A_BOLD);
        if (h == bl)
            attron(A_BOLD);
        ui_putf(y, r.x + 51, r.w - 51, "%+7.2f", q->dloss);
        attroff(A_BOLD);
    }
}

static int effect_need(App *a, int w)
{
    (void)w;
    const Probe *p = a->s->live.probe;
    return (p ? p->n_heads : 4) + 2;
}

/* The heads' rows an h-row rect leaves out (the title and the header take two). */
static int effect_hidden(App *a, int w, int h)
{
    int need = effect_need(a, w);
    return need > h ? need - h : 0;
}

/* The lens and the attribution compact to any height (evenly spaced blocks; the smaller parts
 * summed on a line that says how many): nothing is left out of sight. */
static int compact_hidden(App *a, int w, int h)
{
    (void)a;
    (void)w;
    (void)h;
    return 0;
}

static void patch_draw(App *a, Rect r)
{
    const Probe *p = probe_of(a, r);
    if (!p)
        return;
    int y = r.y, last = p->n - 1, tg = p->target[last];
    char b[300];
    if (!p->patched) {
        snprintf(b, sizeof b, "patching: \"%s\" at position %d",
                 p->corrupt_tok >= 0 ? word(a, p->corrupt_tok) : a->s->w->start.corrupt,
                 p->corrupt_pos);
        title(r, y++, b);
        attron(COLOR_PAIR(UI_WARN));
        ui_wrap_put(y, r.x, r.w, p->patch_why, r.h - 1);
        attroff(COLOR_PAIR(UI_WARN));
        return;
    }
    const LensPatch *lp = &p->patch;
    snprintf(b, sizeof b, "\"%s\" (position %d) made \"%s\": logit of \"%s\" at the end "
             "%.2f %s %.2f", word(a, a->s->t->src[p->corrupt_pos]), p->corrupt_pos,
             word(a, p->corrupt_tok), word(a, tg), lp->clean, ui_glyph(G_ARROW), lp->corrupted);
    title(r, y++, b);
    dim(r, y++, "the share of that change put back by one part's output from the real run");
    int per = p->H + (lp->n_parts > (p->layer >= 0 ? 1 : p->L) * p->H);
    int cw = (r.w - 6) / per;
    cw = cw > 7 ? 7 : cw;
    const char *fmt = cw >= 6 ? "%5.2f" : "%4.1f";
    ui_put(y, r.x, 6, "");
    for (int h = 0; h < per; h++) {
        snprintf(b, sizeof b, h < p->H ? "h%d" : "FFN", h);
        attron(A_DIM);
        ui_putf(y, r.x + 6 + h * cw, cw, "%*s", cw - 1, b);
        attroff(A_DIM);
    }
    y++;
    for (int x = 0; x < lp->n_parts && y < r.y + r.h; x += per, y++) {
        ui_putf(y, r.x, 6, "L%d", lp->parts[x].layer);
        for (int h = 0; h < per && x + h < lp->n_parts; h++)
            cell(y, r.x + 6 + h * cw, cw - 1, lp->parts[x + h].fraction, fmt);
    }
    if (p->layer >= 0 && y < r.y + r.h)
        dim(r, y, "one layer at a time on a model this size: l, the next layer");
}

static int patch_need(App *a, int w)
{
    (void)w;
    const Probe *p = a->s->live.probe;
    int rows = p && p->layer < 0 ? p->L : 1;
    return rows + 3 + (p && p->layer >= 0);
}

static void rollout_draw(App *a, Rect r)
{
    const Probe *p = probe_of(a, r);
    if (!p || !p->roll)
        return;
    int l = a->s->layer < 0 ? 0 : a->s->layer >= p->L ? p->L - 1 : a->s->layer;
    int n = p->n, y = r.y, lw = 9, cw = 6;
    char b[300];
    snprintf(b, sizeof b, "rollout through layer %d: each row's share of each input token", l);
    title(r, y++, b);
    int nc = (r.w - lw) / cw, nr = r.h - 2;
    nc = nc > n ? n : nc;
    int r0 = n > nr ? n - nr : 0; /* the last rows: the later positions read most */
    for (int j = 0; j < nc; j++) {
        attron(A_DIM);
        ui_putf(y, r.x + lw + j * cw, cw - 1, "%5.5s", word(a, a->s->t->src[j]));
        attroff(A_DIM);
    }
    y++;
    const double *R = p->roll + (size_t)l * n * n;
    for (int i = r0; i < n && y < r.y + r.h; i++, y++) {
        ui_putf(y, r.x, lw, "%d %.6s", i, word(a, a->s->t->src[i]));
        for (int j = 0; j < nc; j++)
            cell(y, r.x + lw + j * cw, cw - 1, R[(size_t)i * n + j], "%5.2f");
    }
}

static int rollout_need(App *a, int w)
{
    (void)w;
    return (a->s->t ? a->s->t->n : 6) + 2;
}

const ViewOps VIEW_LENS = {.name = "lens", .kind = W_LENS,
                           .draw = lens_draw, .need = lens_need, .self_scroll = 1,
                           .hidden = compact_hidden};
const ViewOps VIEW_ATTRIB = {.name = "attribution", .kind = W_ATTRIB,
                             .draw = attrib_draw, .need = attrib_need, .self_scroll = 1,
                             .hidden = compact_hidden};
const ViewOps VIEW_EFFECT = {.name = "effect", .kind = W_EFFECT,
                             .draw = effect_draw, .need = effect_need, .self_scroll = 1,
                             .hidden = effect_hidden};
const ViewOps VIEW_PATCH = {.name = "patching", .kind = W_PATCH,
                            .draw = patch_draw, .need = patch_need};
const ViewOps VIEW_ROLLOUT = {.name = "rollout", .kind = W_ROLLOUT,
                              .draw = rollout_draw, .need = rollout_need};
