/* cmd_export.c - `attend export`: one figure of a run (dump's options) or of a lesson page's
 * widget at its start state, as SVG, CSV or JSON; `attend handout`: the static HTML
 * handout of the course (docs/export.md). The writers live in src/course/export*.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "export.h"
#include "fileio.h"
#include "lesson.h"

static const char EXPORT_USAGE[] =
    "usage: attend export --sentence TEXT [--target TEXT] [--model FILE] "
    "[--mask none|causal|padding|both] [--pe none|sinusoidal|learned|rope] [--no-scale] "
    "[--order 1,0,2,...] [--layer L] [--head H] [--cross] [--scores] [--ablate L.H]\n"
    "                     [--what heatmap|heads|passport|chips] [--format svg|csv|json] "
    "[-o FILE]\n"
    "       attend export --lesson ID --page N [--lessons DIR] [--what ...] [--format ...] "
    "[-o FILE]";

static const char HANDOUT_USAGE[] =
    "usage: attend handout [--lessons DIR] [--lesson ID] [--answers] [--seed S] -o DIR";

/* export's own options, beside dump's. */
typedef struct {
    const char *lesson, *lessons, *what, *out;
    long page;       /* 1-based; 0: not given */
    int scores;
} ExportOpts;

/* The usage error: message and usage on stderr, exit status 2. */
static int usage_error(const char *msg)
{
    return opts_usage_error("attend export", EXPORT_USAGE, msg);
}

/* Writes the figure to out (or standard output): a file through an exclusive temp file
 * renamed over it only when the whole figure is written (fileio.h), so a failure leaves the
 * previous file as it was. 0 or 1 (message printed). */
/* -o's target checked before any work: absent, or a regular file. 0, or 1 (printed). */
static int check_out(const char *out)
{
    char err[1400];
    if (out && fileio_check_target(out, err, sizeof err)) {
        fprintf(stderr, "attend export: -o %s\n", err);
        return 1;
    }
    return 0;
}

static int write_figure(const ExportView *v, ExportWhat what, ExportFormat fmt,
                        const char *out)
{
    char err[1400];
    if (!out) {
        FileioSink s;
        FILE *f = fileio_sink_open(&s, 1, EXPORT_MAX_BYTES);
        int rc = f ? export_write(f, v, what, fmt, err, sizeof err) : -1;
        if (!f)
            snprintf(err, sizeof err, "out of memory");
        if (f && (fclose(f) || s.werr) && rc == 0) {
            snprintf(err, sizeof err, "standard output: write error: %s",
                     strerror(s.werr ? s.werr : EIO));
            rc = -1;
        }
        if (rc)
            fprintf(stderr, "attend export: %s\n", err);
        return rc ? 1 : 0;
    }
    FileioTmp t;
    if (fileio_tmp_open(&t, out, 0644, err, sizeof err)) {
        fprintf(stderr, "attend export: %s\n", err);
        return 1;
    }
    FILE *f = fileio_tmp_stream(&t, EXPORT_MAX_BYTES);
    if (!f) {
        fileio_tmp_abort(&t);
        fprintf(stderr, "attend export: out of memory\n");
        return 1;
    }
    if (export_write(f, v, what, fmt, err, sizeof err)) {
        if (t.sink.werr) /* the write itself failed: the path and the reason */
            fileio_tmp_finish(&t, err, sizeof err);
        else
            snprintf(err + strlen(err), sizeof err - strlen(err), " (%s not written)", out);
        fileio_tmp_abort(&t);
        fprintf(stderr, "attend export: %s\n", err);
        return 1;
    }
    if (fileio_tmp_commit(&t, err, sizeof err)) {
        fprintf(stderr, "attend export: %s\n", err);
        return 1;
    }
    return 0;
}

/* --lesson ID --page N: the page's widget at its start state. */
static int export_lesson(const ExportOpts *x, int what, ExportFormat fmt)
{
    char path[1024], err[1024];
    const char *dir = x->lessons;
    if (check_out(x->out))
        return 1;
    if (!dir) {
        data_path("lessons", path, sizeof path);
        dir = path;
    }
    Course c;
    if (lesson_load_dir(&c, dir, err, sizeof err)) {
        fprintf(stderr, "attend export: %s\n", err);
        lesson_free_course(&c);
        return 1;
    }
    char why[300];
    int rc = 1, li = lesson_lookup(&c, x->lesson, why, sizeof why);
    if (li < 0)
        fprintf(stderr, "attend export: --lesson: %s (lessons in %s)\n", why, dir);
    else if (c.lessons[li].broken)
        fprintf(stderr, "attend export: %s\n", c.lessons[li].error);
    else if (x->page > c.lessons[li].n_pages)
        fprintf(stderr, "attend export: lesson %s has pages 1..%d, not %ld\n", x->lesson,
                c.lessons[li].n_pages, x->page);
    else {
        const Page *p = &c.lessons[li].pages[x->page - 1];
        ExportPage e;
        if (export_page_start(&e, &c, p, err, sizeof err))
            fprintf(stderr, "attend export: %s page %ld: %s\n", x->lesson, x->page, err);
        else if (what < 0 && e.what < 0)
            fprintf(stderr, "attend export: %s page %ld: its %s widget has no figure to export\n",
                    x->lesson, x->page, course_widget_name(p->widget.kind));
        else {
            if (x->scores)
                e.view.scores = 1;
            rc = write_figure(&e.view, (ExportWhat)(what >= 0 ? what : e.what), fmt, x->out);
        }
        export_page_free(&e);
    }
    lesson_free_course(&c);
    return rc;
}

/* --sentence ...: dump's run, then the figure (chips get their equivariance gap). */
static int export_sentence(const DumpOpts *o, const ExportOpts *x, int what, ExportFormat fmt)
{
    DumpRun r;
    if (check_out(x->out) || dump_run(&r, o))
        return 1;
    ExportView v;
    memset(&v, 0, sizeof v);
    v.model = &r.m;
    v.trace = r.t;
    v.layer = o->layer;
    v.head = o->head;
    v.cross = o->cross;
    v.scores = x->scores;
    v.equiv = -1.0f;
    v.input_ids = r.ids;
    v.n_input = r.n;
    Trace *a = NULL, *b = NULL;
    int rc = 1;
    if (what == EXPORT_CHIPS) {
        char err[600];
        a = trace_new(&r.m, r.n, r.mt > 0 ? r.mt : 1);
        b = trace_new(&r.m, r.n, r.mt > 0 ? r.mt : 1);
        if (!a || !b) {
            fprintf(stderr, "attend export: out of memory\n");
            goto out;
        }
        v.equiv = model_equivariance(&r.m, r.ids, r.n, r.tids, r.mt, &r.ctl, a, b, err,
                                     sizeof err);
        if (v.equiv < 0.0f) {
            fprintf(stderr, "attend export: %s\n", err);
            goto out;
        }
    }
    rc = write_figure(&v, (ExportWhat)(what >= 0 ? what : EXPORT_HEATMAP), fmt, x->out);
out:
    trace_free(a);
    trace_free(b);
    dump_run_free(&r);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    DumpOpts o;
    ExportOpts x;
    memset(&x, 0, sizeof x);
    const Opt more[] = {
        OPT_S("--lesson", &x.lesson), OPT_S("--lessons", &x.lessons), OPT_S("--what", &x.what),
        OPT_S("-o", &x.out), OPT_S("--output", &x.out), OPT_I("--page", &x.page, 1, 100000),
        OPT_F("--scores", &x.scores),
    };
    int rc = dump_opts_parse(&o, argc, argv, "attend export", EXPORT_USAGE, "svg csv json", more,
                             (int)(sizeof more / sizeof more[0]));
    if (rc >= 0)
        return rc;
    int fmt = export_format_parse(strcmp(o.format, "text") ? o.format : "svg");
    int what = -1;
    if (x.what && (what = export_what_parse(x.what)) < 0) {
        fprintf(stderr, "attend export: --what must be heatmap, heads, passport, chips, "
                        "scaling, cost, params or probe, got \"%s\"\n", x.what);
        return 1;
    }
    if (o.heads_summary)
        return usage_error("--heads is dump's summary; use --what heads for every head");

    if (x.lesson || x.page) {
        if (!x.lesson || !x.page)
            return usage_error("--lesson and --page go together");
        if (o.sentence || o.target || o.model_path || o.mask || o.pe || o.order_s ||
            o.no_scale || o.cross || o.layer || o.head)
            return usage_error("--lesson takes the page's own sentence and controls; "
                               "give either --lesson ID --page N or --sentence");
        return export_lesson(&x, what, (ExportFormat)fmt);
    }
    if (!o.sentence)
        return usage_error("--sentence (or --lesson ID --page N) is required");
    return export_sentence(&o, &x, what, (ExportFormat)fmt);
}

int cmd_handout(int argc, char **argv)
{
    const char *dir = NULL, *lessons = NULL;
    HandoutOpts h;
    memset(&h, 0, sizeof h);
    h.seed = 1;
    const Opt opts[] = {
        OPT_S("-o", &dir), OPT_S("--output", &dir), OPT_S("--lesson", &h.lesson),
        OPT_S("--lessons", &lessons), OPT_U("--seed", &h.seed), OPT_F("--answers", &h.answers),
    };
    int prc = opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc, argv, "attend handout",
                         HANDOUT_USAGE);
    if (prc >= 0)
        return prc;
    if (!dir) {
        fprintf(stderr, "attend handout: -o DIR is required\n%s\n", HANDOUT_USAGE);
        return 2;
    }
    char path[1024], err[1024];
    if (!lessons) {
        data_path("lessons", path, sizeof path);
        lessons = path;
    }
    Course c;
    if (lesson_load_dir(&c, lessons, err, sizeof err)) {
        fprintf(stderr, "attend handout: %s\n", err);
        lesson_free_course(&c);
        return 1;
    }
    int n = handout_write(&c, &h, dir, err, sizeof err);
    int broken = 0; /* a lesson that did not load is written as a notice: say so, exit 1 */
    for (int li = 0; n >= 0 && li < c.n_lessons; li++)
        if (c.lessons[li].broken && (!h.lesson || !strcmp(h.lesson, c.lessons[li].id))) {
            fprintf(stderr, "attend handout: warning: %s\n", c.lessons[li].error);
            broken++;
        }
    lesson_free_course(&c);
    if (n < 0) {
        fprintf(stderr, "attend handout: %s\n", err);
        return 1;
    }
    printf("wrote %d files to %s (open %s/index.html; %s/all.html prints every lesson)\n", n,
           dir, dir, dir);
    if (broken)
        fprintf(stderr, "attend handout: %d lesson%s could not be loaded; the handout shows "
                "the error in %s place (check with attend check-lessons)\n", broken,
                broken == 1 ? "" : "s", broken == 1 ? "its" : "their");
    return fflush(stdout) || broken ? 1 : 0;
}
