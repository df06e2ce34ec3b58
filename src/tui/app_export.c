/* app_export.c - the player's x key: the current widget as a figure (SVG, and its matrix or
 * the explanation's table as CSV), written by the course's exporter (src/course/export.c) into the current directory or
 * $ATTEND_EXPORT_DIR under a name that says what it is, never over an existing file. */
#include <stdlib.h>
#include <string.h>

#include "app_export.h"
#include "view_matrix.h"
#include "export.h"

/* The figure of the current page as ExportView (what the screen shows now: layer, head,
 * scores, tensor, order, mask). -1 with a message when the widget has no figure. */
static int current_view(const App *a, ExportView *v, ExportWhat *what)
{
    memset(v, 0, sizeof *v);
    v->equiv = -1.0f;
    if (a->s->w && a->s->ran && a->s->live.ok &&
        (a->s->w->kind == W_SCALING || a->s->w->kind == W_COST || a->s->w->kind == W_PARAMS)) {
        /* an explanation widget: its numbers as shown (export_live.c) */
        v->model = a->s->model;
        v->live = &a->s->live;
        v->live_name = widget_params_name(a->s->w, a->s->model);
        *what = a->s->w->kind == W_SCALING ? EXPORT_SCALING
              : a->s->w->kind == W_COST    ? EXPORT_COST
                                        : EXPORT_PARAMS;
        return 0;
    }
    if (!a->s->w || !a->s->model || !a->s->ran || !a->s->t)
        return -1;
    v->model = a->s->model;
    v->trace = a->s->t;
    v->layer = a->s->layer;
    v->head = a->s->head;
    v->cross = a->s->cross;
    v->scores = a->s->scores;
    v->input_ids = a->s->src;
    v->n_input = a->s->n_src;
    switch (a->s->w->kind) {
    case W_HEATMAP:
        *what = a->s->all_heads ? EXPORT_HEADS : EXPORT_HEATMAP;
        return 0;
    case W_CHIPS:
        *what = EXPORT_CHIPS;
        v->equiv = a->s->equiv;
        return 0;
    case W_PASSPORT:
        *what = EXPORT_PASSPORT;
        return 0;
    case W_MATRIX:
        *what = EXPORT_HEATMAP;
        v->tensor = matrix_view_tensor(a);
        return 0;
    case W_KVCACHE:
        *what = EXPORT_HEATMAP; /* the prefix run: the cache as it stands */
        return 0;
    case W_GENERATE:
        *what = EXPORT_HEATMAP; /* the text so far: its last row is the new query's */
        v->layer = a->s->w->start.layer;
        v->head = a->s->w->start.head;
        v->input_ids = a->s->live.gen_ids;
        v->n_input = a->s->live.gen.n;
        v->gen = &a->s->live.gen;
        v->gen_temp = a->s->live.s.sample ? a->s->live.s.temp : 0.0f;
        v->gen_seed = a->s->live.s.seed;
        return 0;
    case W_WORKED:
        if (!a->s->live.worked)
            return -1;
        *what = EXPORT_HEATMAP;
        v->model = NULL; /* a hand-worked trace: positions, not tokens */
        v->trace = a->s->live.worked;
        v->layer = v->head = v->cross = 0;
        v->labels = a->s->w->worked.labels;
        v->n_labels = a->s->w->worked.nq > a->s->w->worked.nk ? a->s->w->worked.nq : a->s->w->worked.nk;
        v->input_ids = NULL;
        return 0;
    default:
        return -1;
    }
}

void app_export(App *a)
{
    ExportView v;
    ExportWhat what = EXPORT_HEATMAP;
    if (current_view(a, &v, &what)) {
        app_msg(a, 1, "this page's widget has no figure to export");
        return;
    }
    const char *dir = getenv("ATTEND_EXPORT_DIR");
    if (!dir || !*dir)
        dir = ".";
    char svg[1024], csv[1024], err[600];
    if (export_write_current(&v, what, EXPORT_SVG, dir, svg, sizeof svg, err, sizeof err)) {
        app_msg(a, 1, "export failed: %s", err);
        return;
    }
    /* a heatmap's numbers too, at full precision, for a spreadsheet or a notebook; the
     * explanation figures' tables too */
    if ((what == EXPORT_HEATMAP || what >= EXPORT_SCALING) &&
        export_write_current(&v, what, EXPORT_CSV, dir, csv, sizeof csv, err, sizeof err) == 0) {
        app_msg(a, 0, "exported %s and %s", svg, strrchr(csv, '/') ? strrchr(csv, '/') + 1 : csv);
        return;
    }
    app_msg(a, 0, "exported %s", svg);
}
