/* describe.h - the words for a widget: what a page's widget shows, said as sentences and
 * short tables (a heatmap row's strongest keys with their weights, masked cells named, row
 * sums; a passport step as "Q: 6 by 16"; the chips' verdict and its number; every
 * explanation widget's numbers), and what changed between two runs, said first. Computed
 * once here from the one widget run (widget.h), below the front ends, so the plain mode and
 * any announcement never disagree with the numbers on screen. Plain ASCII words: no glyphs,
 * no escapes. No curses, no printing. */
#ifndef ATTEND_DESCRIBE_H
#define ATTEND_DESCRIBE_H

#include <stddef.h>

#include "describe_text.h"
#include "widget.h"

/* Tokens a heatmap snapshot keeps (larger runs are described, their changes not). */
#define DESCRIBE_MAX_TOK 128

/* What a front end shows of a run beyond the run itself: the view's own choices. */
typedef struct {
    int ran;              /* 1: widget_run succeeded on io */
    const char *run_err;  /* why it did not ("" or NULL when it did) */
    float equiv;          /* chips: the equivariance gap widget_run gave, < 0 when none */
    int scores;           /* heatmap: pre-softmax scores instead of weights */
    int all_heads;        /* heatmap: every head of the layer */
    int step;             /* passport: the current step */
    const char *tensor;   /* matrix: the trace name shown */
    int cur_r, cur_c;     /* heatmap or worked: the inspected cell, -1 when none */
} DescribeView;

/* Writes the widget of io (its state after widget_run) as sentences and short tables into
 * out (n bytes, always NUL-terminated; cut with "..." when too small). Returns the length
 * written. */
size_t describe_widget(const WidgetIO *io, const DescribeView *v, char *out, size_t n);

/* One heatmap cell as words: q_i.k_j, the scaled score, the mask and the weight. Returns
 * the length written (0 when the cell is outside the run). */
size_t describe_cell(const WidgetIO *io, int row, int col, char *out, size_t n);

/* The numbers of one run, kept to say what the next run changed. */
typedef struct {
    int ok;               /* 1: a run was kept */
    WidgetKind kind;
    int layer, head, scores, all_heads, step, rows, cols, masked;
    float cells[DESCRIBE_MAX_TOK * DESCRIBE_MAX_TOK]; /* (rows, cols) weights or scores shown */
    float equiv;
    int order[DESCRIBE_MAX_TOK];
    char tensor[40];
    NamedValues nv;       /* explanation widgets */
} DescribeSnap;

/* Keeps what io's run shows (v as for describe_widget). */
void describe_snap(const WidgetIO *io, const DescribeView *v, DescribeSnap *s);
/* What changed from before to after (the run of io), as one line: "row 0 now gives itself
 * 1.00; masked cells: 15 (were 0)", "outputs do not match: gap 0.42", "d_k 64 -> 128; ...".
 * "nothing in the widget changed" when nothing did. Returns the length written. */
size_t describe_change(const DescribeSnap *before, const DescribeSnap *after,
                       const WidgetIO *io, char *out, size_t n);

#endif
