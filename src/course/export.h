/* export.h - figures and tables of one run, written without a terminal (docs/export.md):
 * SVG (heatmap, all heads as small multiples, the shape passport's matrices, the chips
 * verdict), CSV and JSON; file names that say what a figure is; the static HTML handout.
 * No curses, no exit(); writers report errors through an error buffer. */
#ifndef ATTEND_EXPORT_H
#define ATTEND_EXPORT_H

#include <stdio.h>

#include "describe.h"
#include "lesson.h"
#include "quiz.h"
#include "widget.h"

typedef enum { EXPORT_SVG, EXPORT_CSV, EXPORT_JSON, EXPORT__FORMATS } ExportFormat;
typedef enum { EXPORT_HEATMAP, EXPORT_HEADS, EXPORT_PASSPORT, EXPORT_CHIPS,
               EXPORT_SCALING, EXPORT_COST, EXPORT_PARAMS, /* explanation widgets (live) */
               EXPORT_PROBE, /* the probe widgets: their table (export_probe.c) */
               EXPORT__WHATS } ExportWhat;

/* Below this max|Attn(PX) − P·Attn(X)| the outputs match the permutation (float rounding of
 * a reordered sum stays far below it); the player's chips view uses the same bound. */
#define EXPORT_EQUIV_TOL 1e-4f

/* What one figure shows: a run and where to look in it. Borrowed pointers only. */
typedef struct {
    const Model *model;     /* the run's model; NULL for a hand-worked trace (model_worked) */
    const Trace *trace;     /* the run (every tensor) */
    int layer, head;        /* heatmap: which attention; passport: which layer and head */
    int cross;              /* 1: cross-attention of an encoder-decoder */
    int scores;             /* heatmap: scaled scores + mask (pre-softmax) instead of weights */
    const char *tensor;     /* heatmap of this trace entry by name instead (matrix widget) */
    float equiv;            /* chips: max|Attn(PX) − P·Attn(X)|; negative: not computed */
    const char (*labels)[16]; /* worked traces: the position names (n_labels), else NULL */
    int n_labels;
    const int *input_ids;   /* json: the tokens as given (n_input); NULL: as run */
    int n_input;
    int id;                 /* SVG element ids are made unique with it (several SVGs inline
                               in one HTML page); 0 is fine for a file of its own */
    const LiveWidget *live; /* scaling, cost, params: the explanation widget's numbers (its
                               state as shown); the cost curve also reads model's config */
    const char *live_name;  /* params: the configuration's name ("" or NULL: the model) */
    const GenStep *gen;     /* generate widget: its step (JSON writes its numbers beside the
                               run), NULL otherwise */
    float gen_temp;         /* generate: 0 greedy, else the sampling temperature */
    int gen_seed;           /* generate: the sampler's seed */
    int step;               /* probe widgets: the position shown (their numbers: live->probe) */
} ExportView;

/* Names, as the command line spells them ("svg", "heatmap", ...); parse returns -1 when
 * unknown. */
const char *export_format_name(ExportFormat f);
int export_format_parse(const char *s);
const char *export_what_name(ExportWhat w);
int export_what_parse(const char *s);

/* The figure a page's widget shows at its start: heads for a heatmap starting with all
 * heads, chips for chips, passport for passport, heatmap for heatmap, matrix, worked and
 * kvcache; scaling, cost and params their own figure (export_live.c). Returns -1 for the
 * widgets with no exportable figure (none, train). */
int export_what_for_widget(const Widget *w);
/* The one mapping from a widget to its figure, for attend export (a page at its start) and the
 * player's x (the Session as it stands): io is the run (widget, model, trace, layer, head,
 * cross, the explanation widget's numbers, the sentence), shown what the front end shows of
 * it (scores, every head, the tensor, the equivariance gap). Fills v (pointers borrowed from
 * io and shown) and returns its ExportWhat, or -1 when the widget has no figure or did not
 * run. */
int export_view_of(const WidgetIO *io, const DescribeView *shown, ExportView *v);

/* The most bytes attend writes for one export (a figure, a table, a dump), checked before
 * writing from export_estimate: a 4096-token heatmap would be gigabytes. */
#define EXPORT_MAX_BYTES ((size_t)64 << 20)
/* Writes the figure `what` of v to f as fmt. JSON is every traced tensor, the keys of
 * `attend dump --format json` (what is ignored); for a generate widget (v->gen) it is
 * {"generate": the widget's numbers, "run": that JSON} (docs/export.md). Returns 0, or -1 with a message in err
 * (no such layer/head/tensor in the trace, JSON of a trace without a model, a write error:
 * f may then hold part of the output). */
int export_write(FILE *f, const ExportView *v, ExportWhat what, ExportFormat fmt, char *err,
                 size_t errlen);

/* A file name that says what the figure is: "heatmap-L0-h1-the-cat-sat.svg" (what, layer,
 * head, then the first tokens of the run as lower-case ASCII words). out always ends in the
 * format's extension and is NUL-terminated. */
void export_file_name(const ExportView *v, ExportWhat what, ExportFormat fmt, char *out,
                      size_t outlen);

/* For a key handler: writes the figure into dir (NULL or "": the current directory) under
 * export_file_name, or under "NAME-2.EXT", "NAME-3.EXT", ... when that exists; an existing
 * file is never overwritten (created with O_EXCL). Returns 0 with the path written in path,
 * or -1 with a message in err (and no file left behind). */
int export_write_current(const ExportView *v, ExportWhat what, ExportFormat fmt,
                         const char *dir, char *path, size_t pathlen, char *err,
                         size_t errlen);

/* The chips verdict for a run and its equivariance gap: a headline ("outputs match
 * permutation") and why (one sentence). Static strings. */
void export_chips_verdict(const Trace *t, float equiv, const char **headline,
                          const char **why);

/* Every traced tensor of t as one JSON object (docs/dump-format.md); orig holds the n
 * tokens as given (before --order). Used by dump and export. */
void export_json(FILE *f, const Model *m, const Trace *t, const int *orig, int n);
/* The generate widget's numbers as one JSON object (docs/export.md): its tokens, the
 * candidates and their probabilities, the K and V cache rows and the new query's weights of
 * v's layer and head, the work so far. v->gen and v->trace must be set. */
void export_generate_json(FILE *f, const ExportView *v);

/* The SVG writers (export_svg.c); export_write dispatches to them. 0, or -1 with a message. */
int export_svg_heatmap(FILE *f, const ExportView *v, char *err, size_t errlen);
int export_svg_heads(FILE *f, const ExportView *v, char *err, size_t errlen);
int export_svg_passport(FILE *f, const ExportView *v, char *err, size_t errlen);
int export_svg_chips(FILE *f, const ExportView *v, char *err, size_t errlen);
/* The explanation widgets' figures and tables (export_live.c), from v->live: scaling (the
 * largest softmax weight against d_k, unscaled and scaled, a line plot), cost (N² against
 * N, a line plot), params (a table with a bar per component). 0, or -1 with a message (v has
 * no such widget's numbers). */
int export_svg_live(FILE *f, const ExportView *v, ExportWhat what, char *err, size_t errlen);
/* A probe widget's table (the numbers it shows at v->step and v->layer) as SVG or CSV
 * (export_probe.c). 0, or -1 with a message when v holds no probe's numbers. */
int export_svg_probe(FILE *f, const ExportView *v, char *err, size_t errlen);
int export_csv_probe(FILE *f, const ExportView *v, char *err, size_t errlen);
int export_csv_live(FILE *f, const ExportView *v, ExportWhat what, char *err, size_t errlen);
/* The SVG pieces every writer uses: the opening (size, title, hatch and ramp), a text line
 * (anchor "start", "middle" or "end"; extra attributes may be ""), the title and subtitle. */
void export_svg_open(FILE *f, const ExportView *v, int w, int h, const char *title);
void export_svg_text(FILE *f, double x, double y, int size, const char *anchor,
                     const char *extra, const char *s);
void export_svg_title(FILE *f, const char *title, const char *sub);
/* Text escaped for XML and HTML (& < > " '), written to f. */
void export_xml_escape(FILE *f, const char *s);
/* One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes
 * doubled. */
void export_csv_field(FILE *f, const char *s);

/* ---- shared by the writers (export.c) ---- */

/* The matrix a heatmap of v shows (weights, masked scores or the named tensor) and its mask
 * entry (NULL when none). NULL with a message when the trace has no such entry. */
const TraceEntry *export_matrix(const ExportView *v, const TraceEntry **mask, char *err,
                                size_t errlen);
/* The attention weights of (layer, head) on v's stack and sublayer, and its mask; NULL
 * when absent. */
const TraceEntry *export_weights(const ExportView *v, int layer, int head,
                                 const TraceEntry **mask);
/* Row i / column j label of entry e: the token (query rows, key columns of attention-shaped
 * tensors; decoder rows of an encoder-decoder are the words they produce), a worked
 * example's position name, or the column number. Written to buf. */
const char *export_row_label(const ExportView *v, const TraceEntry *e, int i, char *buf,
                             size_t n);
const char *export_col_label(const ExportView *v, const TraceEntry *e, int j, char *buf,
                             size_t n);
/* The run's i-th token as run (a worked example's position name). Written to buf. */
const char *export_token(const ExportView *v, int i, char *buf, size_t n);
/* The title line: sentence, model, layer/head, mask, PE and scaling (UTF-8, unescaped). */
void export_title(const ExportView *v, const char *what, char *out, size_t n);
/* 1: the cell (i, j) of e is masked (its mask is −∞, or e itself is −∞ there). */
int export_masked(const TraceEntry *e, const TraceEntry *mask, int i, int j);

/* ---- a page's widget at its start state ---- */

/* One page's widget run at its start state, ready to export (and its prose's context). */
typedef struct {
    WidgetRun run;          /* the course's one widget run (widget.c) */
    PlaceholderCtx ctx;     /* reads the run: placeholder_expand(prose, &ctx, ...) */
    ExportView view;        /* the page's figure (valid when what >= 0) */
    int what;               /* export_what_for_widget, -1: no figure */
    int ran;                /* 1: the run succeeded */
    char err[300];          /* why not, when ran is 0 */
} ExportPage;

/* Runs page p of course c at its start state into e (the model of the page, the sentence,
 * the controls; chips also get their equivariance gap). Returns 0, or -1 with the reason in
 * err and e->err (a page without a model); free e with export_page_free either way. */
int export_page_start(ExportPage *e, const Course *c, const Page *p, char *err, size_t errlen);
void export_page_free(ExportPage *e);

/* ---- the handout (handout.c) ---- */

typedef struct {
    const char *lesson;     /* one lesson's id, or NULL for every lesson */
    int answers;            /* 1: each question's answer and explanation too */
    unsigned long long seed;/* the seed of generated drill questions */
} HandoutOpts;

/* Writes the static HTML handout of course c into dir (created if missing): index.html,
 * one NN-ID.html per lesson and all.html (every lesson in one document, for printing).
 * Prose is expanded at each page's start state, each page's figure is inline SVG, and each
 * lesson's questions come from quiz_build (with their answers when o->answers). No
 * JavaScript, no network. Returns the number of files written, or -1 with a message. */
int handout_write(const Course *c, const HandoutOpts *o, const char *dir, char *err,
                  size_t errlen);

#endif
