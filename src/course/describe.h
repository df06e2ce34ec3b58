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
    int row_id[DESCRIBE_MAX_TOK], col_id[DESCRIBE_MAX_TOK]; /* each row's / column's token by
                                                   its place in the sentence as typed */
    int tok[DESCRIBE_MAX_TOK], n_tok;  /* the sentence as typed (token ids, unpermuted) */
    int tgt[DESCRIBE_MAX_TOK], n_tgt;  /* the decoder's sentence */
    float equiv;
    char tensor[40];
    NamedValues nv;       /* explanation widgets */
} DescribeSnap;

#define DESCRIBE_LIVE_CHANGES 4
enum { DIFF_VIEW_HEAD = 1, DIFF_VIEW_SCORES = 2, DIFF_VIEW_HEADS = 4 };

/* What the numbers did between two runs, as data (describe_diff); describe_diff_words says
 * it. Rows and columns are positions in the after run; by token: a row or column of the
 * before run is matched to the after run's by its token's place in the sentence as typed,
 * so a swap compares a token with itself, never a position with a position. */
typedef struct {
    int ok;               /* 0: nothing to compare (no run before, another widget) */
    int ran;              /* 1: the after run succeeded */
    int fresh;            /* 1: another sentence: after's own facts, nothing compared */
    int fresh_tgt;        /* fresh by the decoder's sentence alone (E): n_tgt counts it */
    int n_tgt;            /* the decoder's tokens of the after run */
    int view;             /* what else is shown: DIFF_VIEW_HEAD | DIFF_VIEW_SCORES | _HEADS */
    int layer, head, scores, all_heads;
    int n_tok;            /* tokens of the after run */
    int cells;            /* 1: the cells were compared (same sentence and view) */
    int moved;            /* 1: a cell's printed value (2 decimals) changed */
    int row, col;         /* moved: the cell that moved most; else the row that moved most by
                             position and its strongest key; fresh: the strongest cell */
    float from, to;       /* its value before (by token) and after */
    int self;             /* 1: row and col are the same token (self-attention) */
    float max_delta;      /* the largest change of a cell by token */
    int reordered;        /* 1: tokens changed places */
    int key_from, key_to; /* reordered: the places of col's token before and after */
    int masked_before, masked_after;
    int equiv_shown;      /* chips: the verdict */
    float equiv;
    int verdict_changed;
    int step_changed, step; /* passport */
    int tensor_changed;   /* matrix */
    int n_live;           /* explanation widgets: numbers that changed */
    struct {
        char name[32];
        double from, to;
        int integer;
    } live[DESCRIBE_LIVE_CHANGES];
} DescribeDiff;

/* Keeps what io's run shows (v as for describe_widget). */
void describe_snap(const WidgetIO *io, const DescribeView *v, DescribeSnap *s);
/* What changed from before to after (the run of io, after the change), as data. */
void describe_diff(const DescribeSnap *before, const DescribeSnap *after, const WidgetIO *io,
                   DescribeDiff *d);
/* The diff as one line: "'.' still gives dog 0.76; dog moved from place 1 to 2", "row 0
 * (the) changed most: its weight on cat is now 0.55 (was 0.40)", "no weight moved by 0.01 or
 * more", "the new sentence: 5 tokens; ...". "nothing in the widget changed" when nothing
 * did. io is the after run. Returns the length written. */
size_t describe_diff_words(const DescribeDiff *d, const WidgetIO *io, char *out, size_t n);

#endif
