/* export.c - writing a figure: the format chosen (export_write over export_svg.c,
 * export_live.c and the CSV tables here), file names that never overwrite, and a page's
 * widget run at its start state (docs/export.md). What a figure shows is export_view.c. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "fileio.h"
#include "names.h"

static void csv_num(FILE *f, float x)
{
    if (isinf(x))
        fputs(x < 0 ? "-inf" : "inf", f);
    else if (isnan(x))
        fputs("nan", f);
    else
        fprintf(f, "%.9g", (double)x);
}

static int csv_heatmap(FILE *f, const ExportView *v, char *err, size_t errlen)
{
    const TraceEntry *mask, *e = export_matrix(v, &mask, err, errlen);
    char b[64];
    if (!e)
        return -1;
    export_csv_field(f, "query\\key");
    for (int j = 0; j < e->cols; j++) {
        fputc(',', f);
        export_csv_field(f, export_col_label(v, e, j, b, sizeof b));
    }
    fputc('\n', f);
    for (int i = 0; i < e->rows; i++) {
        export_csv_field(f, export_row_label(v, e, i, b, sizeof b));
        for (int j = 0; j < e->cols; j++) {
            fputc(',', f);
            csv_num(f, e->data[(size_t)i * e->cols + j]);
        }
        fputc('\n', f);
    }
    return 0;
}

static int csv_heads(FILE *f, const ExportView *v, char *err, size_t errlen)
{
    int nh = v->model ? v->model->cfg.n_heads : 1;
    const TraceEntry *mask, *e0 = export_weights(v, v->layer, 0, &mask);
    char a[64], b[64];
    if (!e0) {
        snprintf(err, errlen, "no attention weights at layer %d", v->layer);
        return -1;
    }
    fputs("layer,head,query,query_token,key,key_token,weight,masked\n", f);
    for (int h = 0; h < nh; h++) {
        const TraceEntry *e = export_weights(v, v->layer, h, NULL);
        for (int i = 0; e && i < e->rows; i++)
            for (int j = 0; j < e->cols; j++) {
                fprintf(f, "%d,%d,%d,", v->layer, h, i);
                export_csv_field(f, export_row_label(v, e, i, a, sizeof a));
                fprintf(f, ",%d,", j);
                export_csv_field(f, export_col_label(v, e, j, b, sizeof b));
                fputc(',', f);
                csv_num(f, e->data[(size_t)i * e->cols + j]);
                fprintf(f, ",%d\n", export_masked(e, mask, i, j));
            }
    }
    return 0;
}

static int csv_passport(FILE *f, const ExportView *v)
{
    fputs("step,name,symbol,rows,cols\n", f);
    for (int i = 0; i < v->trace->n_entries; i++) {
        const TraceEntry *e = trace_meta(v->trace, i); /* names and shapes: no map computed */
        fprintf(f, "%d,", i);
        export_csv_field(f, e->name);
        fputc(',', f);
        export_csv_field(f, trace_kind_symbol(e->kind));
        fprintf(f, ",%d,%d\n", e->rows, e->cols);
    }
    return 0;
}

static int csv_chips(FILE *f, const ExportView *v)
{
    const Trace *t = v->trace;
    char b[64];
    fputs("position,token,input_position,max_abs_diff\n", f);
    for (int i = 0; i < t->n; i++) {
        fprintf(f, "%d,", i);
        export_csv_field(f, export_token(v, i, b, sizeof b));
        fprintf(f, ",%d,", t->order[i]);
        if (v->equiv >= 0.0f)
            csv_num(f, v->equiv);
        fputc('\n', f);
    }
    return 0;
}

/* The tokens of v's run (the longer sequence). */
static int t_tokens(const ExportView *v)
{
    return v->trace ? (v->trace->n > v->trace->m ? v->trace->n : v->trace->m) : 0;
}

/* An upper estimate of the bytes export_write writes for v (from the run's tokens, layers and
 * heads; it computes nothing). */
static size_t export_estimate(const ExportView *v, ExportWhat what, ExportFormat fmt)
{
    const Trace *t = v->trace;
    if (what == EXPORT_SCALING || what == EXPORT_COST || what == EXPORT_PARAMS ||
        what == EXPORT_PROBE || !t || !v->model)
        return 64 << 10; /* a fixed-size figure or a hand-worked example */
    const ModelConfig *c = &v->model->cfg;
    double n = t->n > t->m ? t->n : t->m, cells, per;
    /* bytes per cell measured on the writers' output, rounded up */
    if (fmt == EXPORT_JSON || (what == EXPORT_PASSPORT && fmt == EXPORT_SVG)) {
        /* every traced number, at most: what the trace holds */
        cells = (double)trace_bytes(v->model, t->n, t->m) / sizeof(float);
        per = fmt == EXPORT_JSON ? 14 : 120;
    } else if (what == EXPORT_PASSPORT || what == EXPORT_CHIPS) { /* a row or two a token */
        cells = n;
        per = fmt == EXPORT_CSV ? 16 : 400;
    } else {
        double stacks = c->arch == ARCH_ENCDEC ? 3 : 1;
        cells = what == EXPORT_HEADS ? stacks * c->n_layers * c->n_heads * n * n : n * n;
        per = fmt == EXPORT_CSV ? (what == EXPORT_HEADS ? 32 : 10) : 240;
    }
    double bytes = cells * per + (64 << 10);
    return bytes > (double)SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)bytes;
}

int export_write(FILE *f, const ExportView *v, ExportWhat what, ExportFormat fmt, char *err,
                 size_t errlen)
{
    int rc = -1;
    err[0] = 0;
    size_t est = export_estimate(v, what, fmt);
    if (est > EXPORT_MAX_BYTES) {
        snprintf(err, errlen, "the %s %s would be about %zu MiB (%d tokens), over attend's "
                 "limit of %zu MiB for one export (docs/export.md): use a shorter sentence%s",
                 export_what_name(what), export_format_name(fmt), est >> 20,
                 t_tokens(v), EXPORT_MAX_BYTES >> 20,
                 what == EXPORT_HEATMAP ? "" : ", or one head (--what heatmap)");
        return -1;
    }
    if (what == EXPORT_SCALING || what == EXPORT_COST || what == EXPORT_PARAMS ||
        what == EXPORT_PROBE) {
        if (fmt == EXPORT_JSON) {
            snprintf(err, errlen, "the %s figure has SVG and CSV, no JSON", export_what_name(what));
            return -1;
        }
        if (what == EXPORT_PROBE)
            rc = fmt == EXPORT_CSV ? export_csv_probe(f, v, err, errlen)
                                   : export_svg_probe(f, v, err, errlen);
        else
            rc = fmt == EXPORT_CSV ? export_csv_live(f, v, what, err, errlen)
                                   : export_svg_live(f, v, what, err, errlen);
        if (rc == 0 && (fflush(f) || ferror(f))) {
            snprintf(err, errlen, "write error: %s", strerror(errno));
            rc = -1;
        }
        return rc;
    }
    if (!v->trace) {
        snprintf(err, errlen, "nothing ran: no figure to export");
        return -1;
    }
    if (fmt == EXPORT_JSON) {
        if (!v->model) {
            snprintf(err, errlen, "JSON needs a model's run (this is a worked example)");
            return -1;
        }
        const int *ids = v->input_ids ? v->input_ids : v->trace->src;
        if (v->gen) {
            fputs("{\"generate\":", f);
            export_generate_json(f, v);
            fputs(",\n\"run\":", f);
        }
        export_json(f, v->model, v->trace, ids, v->input_ids ? v->n_input : v->trace->n);
        if (v->gen)
            fputs("}\n", f);
        rc = 0;
    } else if (fmt == EXPORT_CSV) {
        rc = what == EXPORT_HEATMAP ? csv_heatmap(f, v, err, errlen)
           : what == EXPORT_HEADS ? csv_heads(f, v, err, errlen)
           : what == EXPORT_PASSPORT ? csv_passport(f, v) : csv_chips(f, v);
    } else {
        rc = what == EXPORT_HEATMAP ? export_svg_heatmap(f, v, err, errlen)
           : what == EXPORT_HEADS ? export_svg_heads(f, v, err, errlen)
           : what == EXPORT_PASSPORT ? export_svg_passport(f, v, err, errlen)
                                     : export_svg_chips(f, v, err, errlen);
    }
    if (rc == 0 && (fflush(f) || ferror(f))) {
        snprintf(err, errlen, "write error: %s", strerror(errno));
        rc = -1;
    }
    return rc;
}

/* ---- file names ---- */

void export_file_name(const ExportView *v, ExportWhat what, ExportFormat fmt, char *out,
                      size_t outlen)
{
    char slug[48] = "", b[64];
    size_t k = 0;
    const Trace *t = v->trace;
    for (int i = 0; t && i < t->n && k + 2 < sizeof slug; i++) {
        export_token(v, i, b, sizeof b);
        int wrote = 0;
        for (const char *p = b; *p && k + 2 < sizeof slug; p++) { /* room for '-', c, NUL */
            char c = *p;
            if (c >= 'A' && c <= 'Z')
                c = (char)(c - 'A' + 'a');
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
                if (!wrote && k)
                    slug[k++] = '-';
                slug[k++] = c;
                wrote = 1;
            }
        }
        slug[k] = 0;
    }
    char where[48] = "";
    if (what == EXPORT_HEATMAP && v->tensor && v->tensor[0]) {
        size_t w = 0;
        for (const char *p = v->tensor; *p && w + 1 < sizeof where; p++)
            where[w++] = (*p == '.' || *p == '/') ? '-' : *p;
        where[w] = 0;
    } else if (what == EXPORT_HEATMAP)
        snprintf(where, sizeof where, "L%d-h%d%s", v->layer, v->head, v->cross ? "-cross" : "");
    else if (what == EXPORT_HEADS)
        snprintf(where, sizeof where, "L%d", v->layer);
    else if (what == EXPORT_PASSPORT)
        snprintf(where, sizeof where, "L%d-h%d", v->layer, v->head);
    else if (what == EXPORT_SCALING && v->live)
        snprintf(where, sizeof where, "dk%d", v->live->s.d_k);
    else if (what == EXPORT_COST && v->live)
        snprintf(where, sizeof where, "N%lld", v->live->s.n);
    else if (what == EXPORT_PARAMS && v->live_name && v->live_name[0]) {
        size_t w = 0; /* the configuration's name, as a slug */
        for (const char *p = v->live_name; *p && w + 1 < sizeof where; p++) {
            char ch = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
            where[w++] = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ? ch : '-';
        }
        where[w] = 0;
    }
    const char *name = fmt == EXPORT_JSON ? "dump" : export_what_name(what);
    if (fmt == EXPORT_JSON)
        where[0] = 0;
    snprintf(out, outlen, "%s%s%s%s%s.%s", name, where[0] ? "-" : "", where, slug[0] ? "-" : "",
             slug, export_format_name(fmt));
}

int export_write_current(const ExportView *v, ExportWhat what, ExportFormat fmt,
                         const char *dir, char *path, size_t pathlen, char *err,
                         size_t errlen)
{
    char name[160], stem[160];
    export_file_name(v, what, fmt, name, sizeof name);
    const char *ext = strrchr(name, '.');
    snprintf(stem, sizeof stem, "%.*s", (int)(ext - name), name);
    if (!dir || !dir[0])
        dir = ".";
    /* the whole figure to a temp file first, then linked to the first free name: a failure
     * or a kill never leaves a part of a figure under a figure's name */
    snprintf(path, pathlen, "%s/%s", dir, name);
    FileioTmp t;
    if (fileio_tmp_open(&t, path, 0644, err, errlen))
        return -1;
    FILE *f = fileio_tmp_stream(&t, EXPORT_MAX_BYTES);
    if (!f || export_write(f, v, what, fmt, err, errlen)) {
        if (!f)
            snprintf(err, errlen, "out of memory");
        else if (t.sink.werr) /* the write itself failed: the path and the reason */
            fileio_tmp_finish(&t, err, errlen);
        fileio_tmp_abort(&t);
        return -1;
    }
    int rc = 1;
    for (int k = 1; k < 1000 && rc == 1; k++) {
        int len = k == 1 ? snprintf(path, pathlen, "%s/%s", dir, name)
                         : snprintf(path, pathlen, "%s/%s-%d%s", dir, stem, k, ext);
        if (len < 0 || (size_t)len >= pathlen) {
            snprintf(err, errlen, "%s: path too long", dir);
            break;
        }
        rc = fileio_tmp_commit_new(&t, path, err, errlen);
    }
    if (rc == 1)
        snprintf(err, errlen, "%s: 999 exports of this name exist", path);
    if (rc)
        fileio_tmp_abort(&t);
    return rc ? -1 : 0;
}

/* ---- a page at its start state ---- */

/* The one call into the course's widget run (widget.c), as check-lessons and the quiz run a
 * page's start; ctx reads the run. */
static int page_run(WidgetRun *r, const Widget *w, const Model *m, PlaceholderCtx *ctx,
                    char *err, size_t errlen)
{
    int rc = widget_run_start(r, w, m, err, errlen);
    *ctx = r->ctx;
    return rc;
}

int export_page_start(ExportPage *e, const Course *c, const Page *p, char *err, size_t errlen)
{
    memset(e, 0, sizeof *e);
    e->what = -1;
    const Model *m = lesson_model(c, p);
    const Widget *w = &p->widget;
    if (!m) {
        snprintf(e->err, sizeof e->err, "the page has no model");
    } else if (page_run(&e->run, w, m, &e->ctx, e->err, sizeof e->err) == 0) {
        e->ran = 1;
        ExportView *v = &e->view;
        DescribeView shown = {.ran = 1, .equiv = -1.0f, .scores = w->start.scores,
                              .all_heads = w->start.all_heads,
                              .tensor = w->kind == W_MATRIX ? w->start.tensor : NULL,
                              /* a probe's position: -1 is its last (clamped by the figure) */
                              .step = w->start.step < 0 ? 1 << 20 : w->start.step};
        e->what = export_view_of(&e->run.io, &shown, v); /* the one mapping, as x's */
        if (e->what == EXPORT_CHIPS && e->run.io.tr.eq_a && e->run.io.tr.eq_b) {
            char eq_err[200];
            Controls ctl = v->trace->ctl;
            ctl.order = v->trace->order;
            v->equiv = model_equivariance(m, e->run.src, v->trace->n, e->run.tgt,
                                          v->trace->m, &ctl, e->run.io.tr.eq_a, e->run.io.tr.eq_b, eq_err,
                                          sizeof eq_err);
            if (v->equiv >= 0.0f) /* the layer the figure shows, as the player's verdict */
                v->equiv = model_equivariance_layer(m, e->run.io.tr.eq_a, e->run.io.tr.eq_b,
                                                    v->layer);
        }
    }
    snprintf(err, errlen, "%s", e->err);
    return e->ran ? 0 : -1;
}

void export_page_free(ExportPage *e)
{
    widget_run_free(&e->run);
    memset(e, 0, sizeof *e);
}
