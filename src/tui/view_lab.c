/* view_lab.c - a lab's page: the commands that start and watch it, and, once `attend lab
 * check` or `watch` has run (in another terminal), the verdict and one case's matrix as three
 * heatmaps: the learner's, the engine's, and their difference, as the Session last read the
 * show file (session_lab.c; lab_show.c writes it). */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app_views.h"
#include "lab.h"
#include "ui.h"

static const LabDef *page_lab(const App *a)
{
    return a->s->w && a->s->w->kind == W_LAB ? lab_find(a->s->w->lab) : NULL;
}

/* The poll hook (as the notes screen follows its file): the Session reads the show file
 * again when it changed (or the page's lab did). 1 when something new, to draw. */
static int lab_poll(App *a)
{
    return session_lab_poll(a->s);
}

/* One matrix as shaded cells: values over [lo, hi] on the ramp; NaN '?', −∞ the mask glyph. */
static void draw_matrix(int y, int x, int rows, int cols, int cw, const LabArray *m, double lo,
                        double hi, const char *title, int tw)
{
    attron(A_BOLD);
    ui_put(y, x, tw, title);
    attroff(A_BOLD);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            double v = m->v[(size_t)i * m->dim[1] + j];
            int cx = x + j * cw, cy = y + 1 + i;
            if (isnan(v) || isinf(v)) {
                attron(A_DIM);
                ui_fill(cy, cx, cw);
                ui_put(cy, cx, cw, isnan(v) ? "?" : v < 0 ? ui_glyph(G_MASKED) : "+");
                attroff(A_DIM);
                continue;
            }
            float v01 = hi > lo ? (float)((v - lo) / (hi - lo)) : 0.5f;
            if (ui.color != UI_COLOR_NONE) {
                int at = ui_ramp_attr(ui_ramp_level(v01));
                attron(at);
                ui_fill(cy, cx, cw);
                attroff(at);
            } else {
                for (int k = 0; k < cw; k++)
                    ui_put(cy, cx + k, 1, ui_shade(v01));
            }
        }
}

/* The three heatmaps side by side in r from row y. */
static void draw_three(const LabShow *sh, Rect r, int y)
{
    const LabArray *g = &sh->got, *w = &sh->want;
    int R = w->dim[0], C = w->dim[1], gap = 2;
    int cw = (r.w - 2 * gap) / (3 * (C ? C : 1));
    cw = cw > 4 ? 4 : cw;
    int cols = cw >= 1 ? C : (r.w - 2 * gap) / 3, rows = r.y + r.h - y - 2;
    cw = cw < 1 ? 1 : cw;
    cols = cols > C ? C : cols;
    rows = rows > R ? R : rows;
    if (rows < 1 || cols < 1)
        return;
    LabArray diff;
    if (lab_array_alloc(&diff, "diff", 2, R, C, 0))
        return;
    double lo = INFINITY, hi = -INFINITY, dmax = 0;
    for (size_t i = 0; i < w->len; i++) {
        double vs[2] = {g->v[i], w->v[i]};
        for (int k = 0; k < 2; k++)
            if (isfinite(vs[k])) {
                lo = vs[k] < lo ? vs[k] : lo;
                hi = vs[k] > hi ? vs[k] : hi;
            }
        diff.v[i] = isfinite(g->v[i]) && isfinite(w->v[i]) ? fabs(g->v[i] - w->v[i])
                    : g->v[i] == w->v[i]                 ? 0.0
                                                         : NAN;
        if (diff.v[i] > dmax)
            dmax = diff.v[i];
    }
    int mw = cols * cw;
    char t[64];
    draw_matrix(y, r.x, rows, cols, cw, g, lo, hi, "yours", mw + gap);
    draw_matrix(y, r.x + mw + gap, rows, cols, cw, w, lo, hi, "attend's engine", mw + gap);
    snprintf(t, sizeof t, "|difference| (max %.2g)", dmax);
    draw_matrix(y, r.x + 2 * (mw + gap), rows, cols, cw, &diff, 0, dmax > 0 ? dmax : 1, t,
                r.w - 2 * (mw + gap));
    if (rows < R || cols < C) {
        attron(A_DIM);
        ui_putf(y + 1 + rows, r.x, r.w, "(the first %d×%d of %d×%d)", rows, cols, R, C);
        attroff(A_DIM);
    }
    lab_array_free(&diff);
}

static void lab_draw(App *a, Rect r)
{
    const SessionLab *s = &a->s->lab;
    const LabDef *d = page_lab(a);
    if (!d) {
        ui_put(r.y, r.x, r.w, "this page names no lab");
        return;
    }
    LabProgress lp;
    lab_progress_get(progress_slot_get(&a->s->prog, "labs"), d->name, &lp);
    int y = r.y, lim = r.y + r.h;
    attron(COLOR_PAIR(UI_ACCENT) | A_BOLD);
    ui_putf(y++, r.x, r.w, "Lab %s: %s", d->name, d->title);
    attroff(COLOR_PAIR(UI_ACCENT) | A_BOLD);
    ui_putf(y++, r.x, r.w, "start it:  attend lab start %s%s", d->name,
            lab_has_lang(d, "c") ? "   (C: --lang c)" : "");
    ui_putf(y++, r.x, r.w, "check it:  attend lab watch %s %s.py   (in another terminal)",
            d->name, d->name);
    if (lp.passed || lp.checks)
        ui_putf(y++, r.x, r.w, "so far: %s, %d check%s, hints %d (attend lab hint %s)",
                lp.passed ? "passed" : "not passed yet", lp.checks, lp.checks == 1 ? "" : "s",
                lp.hints, d->name);
    if (y >= lim)
        return;
    if (!s->have) {
        attron(A_DIM);
        ui_putf(++y, r.x, r.w, "%s%s%s: the last check shows here, updated on every save.",
                s->err[0] ? "" : "no check yet", s->err, "");
        attroff(A_DIM);
        return;
    }
    const LabShow *sh = &s->show;
    char when[16] = "";
    time_t tt = (time_t)sh->when;
    struct tm tmv;
    if (localtime_r(&tt, &tmv))
        strftime(when, sizeof when, "%H:%M:%S", &tmv);
    int pass = !strcmp(sh->status, "pass");
    attron(A_BOLD | (pass ? COLOR_PAIR(UI_ACCENT) : 0));
    y++;
    ui_putf(y++, r.x, r.w, "%s %s  %s", pass ? "PASS" : "FAIL", when, sh->line);
    attroff(A_BOLD | (pass ? COLOR_PAIR(UI_ACCENT) : 0));
    if (sh->diagnosis[0] && y < lim)
        ui_putf(y++, r.x, r.w, "Diagnosis %s", sh->diagnosis);
    if (sh->have && y + 2 < lim) {
        attron(A_DIM);
        ui_putf(y++, r.x, r.w, "%s", sh->what);
        attroff(A_DIM);
        draw_three(sh, r, y);
    }
}

static int lab_need(App *a, int w)
{
    (void)a;
    (void)w;
    return 12;
}

/* Lines out of sight in a w x h pane: the lines that say how to start and check the lab and
 * where its last check shows (the three matrices under it compact to the rows that fit and
 * say "the first r×c of R×C"). */
static int lab_hidden(App *a, int w, int h)
{
    (void)w;
    const LabDef *d = page_lab(a);
    if (!d)
        return 0;
    LabProgress lp;
    lab_progress_get(progress_slot_get(&a->s->prog, "labs"), d->name, &lp);
    int lines = 3 + (lp.passed || lp.checks) + 2; /* title, start, check; so far; gap, result */
    return lines > h ? lines - h : 0;
}

const ViewOps VIEW_LAB = {
    .name = "lab", .kind = W_LAB,
    .draw = lab_draw, .need = lab_need, .self_scroll = 1, .hidden = lab_hidden,
    .poll = lab_poll, .poll_ms = 250,
};
