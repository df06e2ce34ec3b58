/* describe.c - the words for the model widgets (describe.h): heatmap rows, small multiples,
 * a cell's steps, chips and their verdict, the passport's steps, a traced tensor; and what
 * changed between two runs. The shared wording is in describe_text.c, the explanation
 * widgets' words in describe_live.c. */
#include "describe.h"
#include "describe_probe.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "describe_live.h"
#include "head_stat.h"
#include "names.h"

#define EQUIV_TOL 1e-4f      /* the chips' verdict: outputs match below this gap */

/* Every head of the layer: each row's strongest key. */
static void heads_words(const WidgetIO *io, const Trace *t, const DescribeView *v, DBuf *b)
{
    Stack st = describe_stack(io);
    Sublayer sub = describe_sub(io);
    const TraceEntry *M = trace_find(t, st, io->layer, sub, -1, T_MASK);
    dbuf_put(b, "All %d heads of layer %d, each row's strongest key%s:\n", io->m->cfg.n_heads,
             io->layer, v->scores ? " by score" : "");
    for (int h = 0; h < io->m->cfg.n_heads; h++) {
        const TraceEntry *E = trace_find(t, st, io->layer, sub, h, v->scores ? T_MASKED
                                                                              : T_WEIGHTS);
        if (!E)
            continue;
        HeadStat hs; /* the learner's model: what the head does on the sentence */
        if (io->opened && sub == SUB_SELF &&
            !head_stat_read(t, st, io->layer, h, !(t->ctl.causal && st == STACK_DEC), &hs))
            dbuf_put(b, hs.best > 0 ? "head %d (mostly %s, %.2f):" : "head %d (%s):", h,
                     hs.what, hs.best);
        else
            dbuf_put(b, "head %d:", h);
        for (int i = 0; i < E->rows; i++) {
            int best = -1;
            for (int j = 0; j < E->cols; j++)
                if (!dcell_masked(M, i, j) &&
                    (best < 0 || E->data[(size_t)i * E->cols + j] >
                                     E->data[(size_t)i * E->cols + best]))
                    best = j;
            if (best >= 0)
                dbuf_put(b, "%s %s to %s %.2f", i ? "," : "", dword_row(io, t, i),
                         dword_col(io, t, best), (double)E->data[(size_t)i * E->cols + best]);
        }
        dbuf_put(b, ".\n");
    }
}

static void heatmap_words(const WidgetIO *io, const DescribeView *v, DBuf *b)
{
    const Trace *t = io->tr.t;
    const ModelConfig *c = &io->m->cfg;
    Stack st = describe_stack(io);
    Sublayer sub = describe_sub(io);
    const char *what = v->scores ? "scores before softmax" : "weights";
    dbuf_put(b, "Heatmap of attention %s%s, layer %d of %d, head %d of %d.\n", what,
             sub == SUB_CROSS ? " (cross-attention)" : "", io->layer, c->n_layers, io->head,
             c->n_heads);
    dbuf_put(b, "Mask: %s; positional encoding: %s; scaling by 1/sqrt(d_k): %s.\n",
             names_sublayer_mask(io->m, st, sub, t->ctl.causal, t->ctl.padding),
             model_pe_name(t->ctl.pe), t->ctl.scale ? "on" : "off");
    if (v->all_heads) {
        heads_words(io, t, v, b);
        return;
    }
    const TraceEntry *E = trace_find(t, st, io->layer, sub, io->head,
                                     v->scores ? T_MASKED : T_WEIGHTS);
    const TraceEntry *M = trace_find(t, st, io->layer, sub, -1, T_MASK);
    if (!E) {
        dbuf_put(b, "This run has no such attention.\n");
        return;
    }
    dbuf_put(b, "%d row%s (queries, the tokens reading) by %d column%s (keys, the tokens "
                "read):\n", E->rows, E->rows == 1 ? "" : "s", E->cols, E->cols == 1 ? "" : "s");
    drows(io, t, E, M, v->scores, b);
    int nm = dcount_masked(M, E->rows, E->cols);
    dbuf_put(b, "Masked cells: %d.\n", nm);
    if (v->cur_r >= 0 && v->cur_c >= 0) {
        char cell[400];
        if (describe_cell(io, v->cur_r, v->cur_c, cell, sizeof cell))
            dbuf_put(b, "%s\n", cell);
    }
}

size_t describe_cell(const WidgetIO *io, int row, int col, char *out, size_t n)
{
    DBuf b = {out, n, 0};
    const Trace *t = io->tr.t;
    out[0] = '\0';
    if (!t)
        return 0;
    Stack st = describe_stack(io);
    Sublayer sub = describe_sub(io);
    int layer = t->model ? io->layer : 0, head = t->model ? io->head : 0;
    const TraceEntry *R = trace_find(t, st, layer, sub, head, T_SCORES);
    const TraceEntry *S = trace_find(t, st, layer, sub, head, T_SCALED);
    const TraceEntry *W = trace_find(t, st, layer, sub, head, T_WEIGHTS);
    const TraceEntry *M = trace_find(t, st, layer, sub, -1, T_MASK);
    if (!R || !S || !W || row < 0 || col < 0 || row >= W->rows || col >= W->cols)
        return 0;
    size_t k = (size_t)row * W->cols + col;
    dbuf_put(&b, "Cell row %d (%s), key %d (%s): q.k = %.2f; ", row, dword_row(io, t, row), col,
             dword_col(io, t, col), (double)R->data[k]);
    if (t->ctl.scale)
        dbuf_put(&b, "divided by sqrt(d_k) = %.2f; ", (double)S->data[k]);
    else
        dbuf_put(&b, "not scaled; ");
    if (dcell_masked(M, row, col))
        dbuf_put(&b, "masked (minus infinity), so its weight is 0.");
    else
        dbuf_put(&b, "not masked; weight %.2f.", (double)W->data[k]);
    return b.len;
}

static void chips_words(const WidgetIO *io, const DescribeView *v, DBuf *b)
{
    const Trace *t = io->tr.t;
    int ident = 1;
    dbuf_put(b, "Chips, in the order run:");
    for (int i = 0; i < t->n; i++) {
        dbuf_put(b, " %d %s%s", i, vocab_word(&io->m->vocab, t->src[i]),
                 i + 1 < t->n ? "," : ".\n");
        if (t->order[i] != i)
            ident = 0;
    }
    dbuf_put(b, "%s Mask: %s; positional encoding: %s.\n",
             ident ? "Original order." : "Reordered.",
             names_sublayer_mask(io->m, STACK_DEC, SUB_SELF, t->ctl.causal, t->ctl.padding),
             model_pe_name(t->ctl.pe));
    if (v->equiv < 0) {
        dbuf_put(b, "Equivariance not computed%s%s.\n", v->run_err && v->run_err[0] ? ": " : "",
                 v->run_err ? v->run_err : "");
        return;
    }
    int match = v->equiv < EQUIV_TOL;
    dbuf_put(b, "Verdict: %s; layer %d: the largest gap |Attn(PX) - P.Attn(X)| over its "
                "output rows is %.3g.\n",
             match ? "outputs match the permutation" : "outputs do not match", io->layer,
             (double)v->equiv);
    dbuf_put(b, "%s\n",
             ident ? "Swap two chips to permute the input."
             : match ? "Same outputs, moved with their tokens: attention alone ignores order."
             : t->ctl.causal ? "Changed, not just moved: the causal mask depends on position."
             : t->ctl.pe != PE_NONE ? "Changed, not just moved: positional encoding is seen."
                                    : "The outputs changed, not just moved.");
}


static void matrix_words(const WidgetIO *io, const DescribeView *v, DBuf *b)
{
    const char *name = v->tensor && v->tensor[0] ? v->tensor : "L0.h0.weights";
    const TraceEntry *e = trace_find_name(io->tr.t, name);
    if (!e) {
        dbuf_put(b, "No tensor \"%s\" in this run (positional encoding %s).\n", name,
                 model_pe_name(io->tr.t->ctl.pe));
        return;
    }
    dbuf_put(b, "Matrix: ");
    dtable(io, io->tr.t, e, b);
}

static void passport_words(const WidgetIO *io, const DescribeView *v, DBuf *b)
{
    int idx[128];
    const Trace *t = io->tr.t;
    int n = widget_passport_steps(t, describe_stack(io), io->layer, io->head, idx, 128);
    if (n < 1) {
        dbuf_put(b, "The passport has no steps for this run.\n");
        return;
    }
    int cur = v->step < 0 ? 0 : v->step >= n ? n - 1 : v->step;
    dbuf_put(b, "Shape passport of layer %d, head %d: %d steps, %d token%s.\n", io->layer,
             io->head, n, t->n, t->n == 1 ? "" : "s");
    for (int s = 0; s < n; s++) {
        const TraceEntry *e = trace_entry(t, idx[s]);
        char sym[64];
        dbuf_put(b, "%s%s: %d by %d%s", s ? "; " : "",
                 widget_passport_symbol(e, io->layer, sym, sizeof sym), e->rows, e->cols,
                 s == n - 1 ? ".\n" : "");
    }
    const TraceEntry *e = trace_entry(t, idx[cur]);
    char sym[64], f[200];
    dbuf_put(b, "Step %d of %d: %s: %d by %d. %s\n", cur + 1, n,
             widget_passport_symbol(e, io->layer, sym, sizeof sym), e->rows, e->cols,
             widget_passport_formula(e, io->layer, f, sizeof f));
    char files[480]; /* a Hugging Face model: the weights of its files this step reads */
    if (widget_passport_weights(e, io->m, files, sizeof files)[0])
        dbuf_put(b, "%s.\n", files);
}

size_t describe_widget(const WidgetIO *io, const DescribeView *v, char *out, size_t n)
{
    DBuf b = {out, n, 0};
    assert(io && v && out && n > 0);
    out[0] = '\0';
    WidgetKind k = io->w ? io->w->kind : W_NONE;
    if (k == W_NONE)
        return 0;
    if (!v->ran) {
        dbuf_put(&b, "The %s widget could not run%s%s.\n", course_widget_name(k),
                 v->run_err && v->run_err[0] ? ": " : "", v->run_err ? v->run_err : "");
        return b.len;
    }
    if (course_kind_is_explain(k)) {
        describe_live(io, &b);
        return b.len;
    }
    switch (k) {
    case W_HEATMAP: heatmap_words(io, v, &b); break;
    case W_CHIPS: chips_words(io, v, &b); break;
    case W_PASSPORT: passport_words(io, v, &b); break;
    case W_MATRIX: matrix_words(io, v, &b); break;
    case W_LENS: case W_ATTRIB: case W_PATCH: case W_ROLLOUT: case W_EFFECT: case W_PAIR:
        describe_probe(io, v, &b);
        break;
    default: break;
    }
    return b.len;
}

/* ---- what changed ---- */

static const TraceEntry *shown_entry(const WidgetIO *io, const DescribeView *v)
{
    const Trace *t = io->tr.t;
    if (!t)
        return NULL;
    if (io->w->kind == W_WORKED)
        return trace_find(t, STACK_DEC, 0, SUB_SELF, 0, T_WEIGHTS);
    if (io->w->kind != W_HEATMAP && io->w->kind != W_CHIPS)
        return NULL;
    return trace_find(t, describe_stack(io), io->layer, describe_sub(io), io->head,
                      v->scores ? T_MASKED : T_WEIGHTS);
}

void describe_snap(const WidgetIO *io, const DescribeView *v, DescribeSnap *s)
{
    memset(s, 0, sizeof *s);
    if (!io->w || !v->ran)
        return;
    s->ok = 1;
    s->kind = io->w->kind;
    s->layer = io->layer;
    s->head = io->head;
    s->scores = v->scores;
    s->all_heads = v->all_heads;
    s->step = v->step;
    s->equiv = v->equiv;
    snprintf(s->tensor, sizeof s->tensor, "%s", v->tensor ? v->tensor : "");
    if (io->live && course_kind_is_explain(io->w->kind))
        s->nv = io->live->nv;
    for (int i = 0; io->src && i < io->n_src && i < DESCRIBE_MAX_TOK; i++)
        s->tok[s->n_tok++] = io->src[i];
    for (int i = 0; io->tgt && i < io->n_tgt && i < DESCRIBE_MAX_TOK; i++)
        s->tgt[s->n_tgt++] = io->tgt[i];
    const Trace *t = io->w->kind == W_WORKED && io->live ? io->live->worked : io->tr.t;
    WidgetIO wio = *io;
    wio.tr.t = (Trace *)t;
    const TraceEntry *E = t ? shown_entry(&wio, v) : NULL;
    if (!E || E->rows > DESCRIBE_MAX_TOK || E->cols > DESCRIBE_MAX_TOK)
        return;
    s->rows = E->rows;
    s->cols = E->cols;
    memcpy(s->cells, E->data, sizeof(float) * (size_t)E->rows * E->cols);
    const TraceEntry *M = trace_find(t, t->model ? describe_stack(io) : STACK_DEC,
                                     t->model ? io->layer : 0, t->model ? describe_sub(io)
                                                                        : SUB_SELF, -1, T_MASK);
    s->masked = dcount_masked(M, E->rows, E->cols);
    /* a token by its place in the sentence as typed: rows and keys of the source sentence are
     * permuted by the order; a decoder's rows are not */
    int src_rows = t->model && E->rows == t->n && describe_sub(io) == SUB_SELF &&
                   (describe_stack(io) != STACK_DEC || t->model->cfg.arch != ARCH_ENCDEC);
    for (int i = 0; i < E->rows; i++)
        s->row_id[i] = src_rows ? (t->order ? t->order[i] : i) : -1 - i;
    for (int j = 0; j < E->cols; j++)
        s->col_id[j] = t->model && t->order && E->cols == t->n ? t->order[j] : j;
}

static int find_id(const int *ids, int n, int id)
{
    for (int i = 0; i < n; i++)
        if (ids[i] == id)
            return i;
    return -1;
}

/* 1: x and y print differently with two decimals (minus infinity included). */
static int printed_differs(float x, float y)
{
    if (isinf(x) || isinf(y))
        return isinf(x) != isinf(y) || (x < 0) != (y < 0);
    char a[32], b[32];
    snprintf(a, sizeof a, "%.2f", (double)x);
    snprintf(b, sizeof b, "%.2f", (double)y);
    return strcmp(a, b) != 0;
}

/* The strongest (largest, finite) cell of row i of s; -1 for none. */
static int strongest(const DescribeSnap *s, int i)
{
    const float *r = s->cells + (size_t)i * s->cols;
    int k = -1;
    for (int j = 0; j < s->cols; j++)
        if (!isinf(r[j]) && (k < 0 || r[j] > r[k]))
            k = j;
    return k;
}

/* Cells compared token by token: the cell that moved most, or (nothing moved beyond the
 * printed precision) the row that moved most by place, with its strongest key. */
static void cells_diff(const DescribeSnap *a, const DescribeSnap *b, DescribeDiff *d)
{
    int prow = -1;
    double pmost = -1;
    d->cells = 1;
    d->row = d->col = -1;
    for (int i = 0; i < b->rows; i++) {
        int ia = find_id(a->row_id, a->rows, b->row_id[i]);
        double pd = 0;
        for (int j = 0; j < b->cols; j++) {
            float y = b->cells[i * b->cols + j];
            float px = a->cells[i * a->cols + j]; /* by place */
            pd += isinf(px) || isinf(y) ? (isinf(px) && isinf(y) ? 0 : 1) : fabs((double)y - px);
            int ja = find_id(a->col_id, a->cols, b->col_id[j]);
            if (ia < 0 || ja < 0)
                continue;
            float x = a->cells[ia * a->cols + ja];
            if (a->row_id[ia] != b->row_id[i] || !printed_differs(x, y))
                continue;
            double delta = isinf(x) || isinf(y) ? 1e9 : fabs((double)y - x);
            if (!d->moved || delta > d->max_delta) {
                d->moved = 1;
                d->max_delta = (float)delta;
                d->row = i;
                d->col = j;
                d->from = x;
                d->to = y;
            }
        }
        if (pd > pmost) {
            pmost = pd;
            prow = i;
        }
    }
    for (int i = 0; i < b->cols; i++)
        if (a->col_id[i] != b->col_id[i])
            d->reordered = 1;
    if (!d->moved && prow >= 0) {
        int k = strongest(b, prow);
        if (k >= 0) {
            d->row = prow;
            d->col = k;
            d->from = d->to = b->cells[prow * b->cols + k];
        }
    }
    if (d->col >= 0) {
        d->self = b->row_id[d->row] == b->col_id[d->col];
        d->key_from = find_id(a->col_id, a->cols, b->col_id[d->col]);
        d->key_to = d->col;
    }
}

/* The settings of the explanation widgets: the request that changed one already says so. */
static int live_setting(const char *name)
{
    static const char *const SET[] = {"causal", "scale", "tied", "gqa", "step", "sample",
                                      "temp", "seed", "phase", "repeat"};
    for (size_t i = 0; i < sizeof SET / sizeof SET[0]; i++)
        if (!strcmp(name, SET[i]))
            return 1;
    return 0;
}

void describe_diff(const DescribeSnap *a, const DescribeSnap *b, const WidgetIO *io,
                   DescribeDiff *d)
{
    memset(d, 0, sizeof *d);
    d->ran = b->ok;
    d->row = d->col = -1;
    if (!b->ok || !a->ok || a->kind != b->kind)
        return;
    d->ok = 1;
    d->n_tok = b->n_tok;
    d->layer = b->layer;
    d->head = b->head;
    d->scores = b->scores;
    d->all_heads = b->all_heads;
    d->masked_before = a->masked;
    d->masked_after = b->masked;
    d->fresh = a->n_tok != b->n_tok || a->n_tgt != b->n_tgt ||
               memcmp(a->tok, b->tok, sizeof(int) * (size_t)b->n_tok) ||
               memcmp(a->tgt, b->tgt, sizeof(int) * (size_t)b->n_tgt);
    d->n_tgt = b->n_tgt;
    d->fresh_tgt = d->fresh && a->n_tok == b->n_tok &&
                   !memcmp(a->tok, b->tok, sizeof(int) * (size_t)b->n_tok);
    d->view = (a->layer != b->layer || a->head != b->head ? DIFF_VIEW_HEAD : 0) |
              (a->scores != b->scores ? DIFF_VIEW_SCORES : 0) |
              (a->all_heads != b->all_heads ? DIFF_VIEW_HEADS : 0);
    if (b->kind == W_CHIPS && b->equiv >= 0) {
        d->equiv_shown = 1;
        d->equiv = b->equiv;
        d->verdict_changed = a->equiv >= 0 && (a->equiv < EQUIV_TOL) != (b->equiv < EQUIV_TOL);
    }
    if ((b->kind == W_PASSPORT || course_kind_is_probe(b->kind)) && a->step != b->step) {
        d->step_changed = 1;
        d->step = b->step;
    }
    d->tensor_changed = b->kind == W_MATRIX && strcmp(a->tensor, b->tensor) != 0;
    if (d->fresh) {
        if (b->rows && !b->all_heads) { /* the new sentence's own strongest weight */
            float best = 0;
            for (int i = 0; i < b->rows; i++) {
                int k = strongest(b, i);
                if (k >= 0 && (d->row < 0 || b->cells[i * b->cols + k] > best)) {
                    best = b->cells[i * b->cols + k];
                    d->row = i;
                    d->col = k;
                }
            }
            d->to = best;
            if (d->row >= 0)
                d->self = b->row_id[d->row] == b->col_id[d->col];
        }
    } else if (b->rows && a->rows == b->rows && a->cols == b->cols && !d->view &&
               !b->all_heads) {
        cells_diff(a, b, d);
    }
    for (int i = 0; i < b->nv.n && d->n_live < DESCRIBE_LIVE_CHANGES; i++) {
        const NamedValue *y = &b->nv.v[i], *x = explain_get(&a->nv, y->name);
        if (!x || live_setting(y->name) || fabs(x->value - y->value) <= 1e-9 * (fabs(y->value) + 1))
            continue;
        snprintf(d->live[d->n_live].name, sizeof d->live[0].name, "%s", y->name);
        d->live[d->n_live].from = x->value;
        d->live[d->n_live].to = y->value;
        d->live[d->n_live++].integer = y->integer;
    }
    (void)io;
}

size_t describe_diff_words(const DescribeDiff *d, const WidgetIO *io, char *out, size_t n)
{
    DBuf o = {out, n, 0};
    out[0] = '\0';
    if (!d->ran) {
        dbuf_put(&o, "the widget did not run");
        return o.len;
    }
    if (!d->ok) {
        dbuf_put(&o, "the widget ran");
        return o.len;
    }
    const Trace *t = io->w && io->w->kind == W_WORKED && io->live ? io->live->worked : io->tr.t;
    const char *what = d->scores ? "score" : "weight";
    if (d->view & DIFF_VIEW_HEAD)
        dbuf_put(&o, "now layer %d, head %d; ", d->layer, d->head);
    if (d->view & DIFF_VIEW_SCORES)
        dbuf_put(&o, "now showing %s; ", d->scores ? "scores before softmax" : "weights");
    if (d->view & DIFF_VIEW_HEADS)
        dbuf_put(&o, "%s; ", d->all_heads ? "every head of the layer" : "one head");
    if (d->equiv_shown)
        dbuf_put(&o, "%s: gap %.3g%s; ", d->equiv < EQUIV_TOL ? "outputs match"
                                                              : "outputs do not match",
                 (double)d->equiv, d->verdict_changed ? " (the verdict changed)" : "");
    if (d->step_changed && io->tr.t && io->w && course_kind_is_probe(io->w->kind)) {
        int i = d->step < io->tr.t->n ? d->step : io->tr.t->n - 1; /* the probe's position */
        dbuf_put(&o, "now the numbers after \"%s\" (position %d); ",
                 vocab_word(&io->m->vocab, io->tr.t->src[i]), i);
    } else if (d->step_changed && io->tr.t) {
        int idx[128], ns = widget_passport_steps(io->tr.t, describe_stack(io), io->layer,
                                                 io->head, idx, 128);
        if (d->step >= 0 && d->step < ns) {
            const TraceEntry *e = trace_entry(io->tr.t, idx[d->step]);
            char sym[64];
            dbuf_put(&o, "now %s, %d by %d; ", widget_passport_symbol(e, io->layer, sym,
                                                                     sizeof sym), e->rows,
                     e->cols);
        }
    }
    if (d->tensor_changed)
        dbuf_put(&o, "tensor shown changed; ");
    if (d->fresh) {
        if (d->fresh_tgt) /* E: the decoder's sentence, not the encoder's (still n_tok) */
            dbuf_put(&o, "the new decoder sentence has %d token%s", d->n_tgt,
                     d->n_tgt == 1 ? "" : "s");
        else
            dbuf_put(&o, "the new sentence has %d token%s", d->n_tok, d->n_tok == 1 ? "" : "s");
        if (d->row >= 0 && t)
            dbuf_put(&o, "; its strongest %s: row %d (%s) gives %s %.2f", what, d->row,
                     dword_row(io, t, d->row), d->self ? "itself" : dword_col(io, t, d->col),
                     (double)d->to);
        dbuf_put(&o, "; masked cells: %d; ", d->masked_after);
    } else if (d->cells && t) {
        const char *rw = d->row >= 0 ? dword_row(io, t, d->row) : "";
        const char *kw = d->col >= 0 ? dword_col(io, t, d->col) : "";
        if (d->moved) {
            dbuf_put(&o, "row %d (%s) changed most: it now gives %s %.2f (was %.2f)", d->row, rw,
                     d->self ? "itself" : kw, (double)d->to, (double)d->from);
        } else {
            dbuf_put(&o, "no %s changed at the printed precision (2 decimals)", what);
            if (d->reordered && d->row >= 0)
                dbuf_put(&o, ": '%s' still gives %s %.2f", rw,
                         d->self ? "itself" : kw, (double)d->to);
        }
        if (d->reordered && d->col >= 0 && d->key_from >= 0 && d->key_from != d->key_to)
            dbuf_put(&o, "; '%s' moved from position %d to %d", kw, d->key_from, d->key_to);
        if (d->masked_before != d->masked_after)
            dbuf_put(&o, "; masked cells: %d (were %d); ", d->masked_after, d->masked_before);
        else
            dbuf_put(&o, "; masked cells: %d; ", d->masked_after);
    }
    for (int i = 0; i < d->n_live; i++) {
        if (d->live[i].integer)
            dbuf_put(&o, "%s %.0f -> %.0f; ", d->live[i].name, d->live[i].from, d->live[i].to);
        else
            dbuf_put(&o, "%s %.3g -> %.3g; ", d->live[i].name, d->live[i].from, d->live[i].to);
    }
    while (o.len >= 2 && !strcmp(out + o.len - 2, "; ")) /* no dangling separator */
        out[o.len -= 2] = '\0';
    if (!o.len)
        dbuf_put(&o, "nothing in the widget changed");
    return o.len;
}
