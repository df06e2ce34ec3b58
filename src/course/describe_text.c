/* describe_text.c - the wording the words for a widget share (describe_text.h): a buffer
 * that marks a cut, the tokens of a run's rows and columns, a row of weights with its
 * strongest keys, masked keys and sum, and a tensor as a short table. */
#include "describe_text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TOP_KEYS 4           /* a heatmap row names at most this many keys */
#define TOP_MIN 0.05f        /* ... each at least this weight */
#define TABLE_COLS 8         /* a tensor's table shows this many columns */
#define TABLE_ROWS 16        /* ... and this many rows */

void dbuf_put(DBuf *b, const char *fmt, ...)
{
    if (!b->n || b->len + 1 >= b->n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p + b->len, b->n - b->len, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    if ((size_t)k >= b->n - b->len) { /* cut: say so */
        b->len = b->n - 1;
        if (b->n > 4)
            memcpy(b->p + b->n - 4, "...", 4);
        return;
    }
    b->len += (size_t)k;
}

Stack describe_stack(const WidgetIO *io)
{
    return model_view_stack(io->m, io->cross);
}

Sublayer describe_sub(const WidgetIO *io)
{
    return model_view_sub(io->m, io->cross);
}

/* Token text of row i / column j of the attention io shows (a worked trace: its labels). */
const char *dword_row(const WidgetIO *io, const Trace *t, int i)
{
    if (!t->model)
        return io->w->worked.labels[i];
    const int *ids;
    trace_view_rows(t, io->cross, &ids);
    return vocab_word(&t->model->vocab, ids[i]);
}

const char *dword_col(const WidgetIO *io, const Trace *t, int j)
{
    if (!t->model)
        return io->w->worked.labels[j];
    return vocab_word(&t->model->vocab, t->src[j]);
}

/* Key j's name, with its position when its word appears more than once among the keys. */
static void key_name(const WidgetIO *io, const Trace *t, int cols, int j, char *out, size_t n)
{
    const char *w = dword_col(io, t, j);
    int twice = 0;
    for (int k = 0; k < cols; k++)
        if (k != j && !strcmp(dword_col(io, t, k), w))
            twice = 1;
    if (twice)
        snprintf(out, n, "%s (key %d)", w, j);
    else
        snprintf(out, n, "%s", w);
}

int dcell_masked(const TraceEntry *M, int i, int j)
{
    if (!M)
        return 0;
    float v = M->data[(size_t)i * M->cols + j];
    return isinf(v) && v < 0;
}

/* The masked keys of row i: named when few, else counted with their range. */
static void masked_words(const WidgetIO *io, const Trace *t, const TraceEntry *M, int i,
                         int cols, DBuf *b)
{
    int cnt = 0, lo = -1, hi = -1;
    for (int j = 0; j < cols; j++)
        if (dcell_masked(M, i, j)) {
            cnt++;
            if (lo < 0)
                lo = j;
            hi = j;
        }
    if (!cnt)
        return;
    if (cnt <= 4) {
        dbuf_put(b, "; masked: ");
        for (int j = 0, k = 0; j < cols; j++)
            if (dcell_masked(M, i, j)) {
                char kn[80];
                key_name(io, t, cols, j, kn, sizeof kn);
                dbuf_put(b, "%s%s", k++ ? ", " : "", kn);
            }
    } else if (hi - lo + 1 == cnt) {
        dbuf_put(b, "; masked: %d keys, %d to %d", cnt, lo, hi);
    } else {
        dbuf_put(b, "; masked: %d keys", cnt);
    }
}

/* One row of weights (or scores): its strongest keys in order, the rest, the masked keys and
 * the sum (weights). */
static void row_words(const WidgetIO *io, const Trace *t, const TraceEntry *E,
                      const TraceEntry *M, int i, int scores, DBuf *b)
{
    int cols = E->cols, idx[1024], n = 0;
    const float *r = E->data + (size_t)i * cols;
    for (int j = 0; j < cols && n < (int)(sizeof idx / sizeof idx[0]); j++)
        if (!dcell_masked(M, i, j))
            idx[n++] = j;
    for (int a = 1; a < n; a++) /* by value, strongest first; ties in key order */
        for (int c = a; c > 0 && r[idx[c]] > r[idx[c - 1]]; c--) {
            int tmp = idx[c];
            idx[c] = idx[c - 1];
            idx[c - 1] = tmp;
        }
    dbuf_put(b, "row %d, %s: ", i, dword_row(io, t, i));
    if (scores)
        dbuf_put(b, "scores ");
    int shown = 0;
    for (; shown < n && shown < TOP_KEYS; shown++) {
        if (!scores && shown > 0 && r[idx[shown]] < TOP_MIN)
            break;
        char kn[80];
        key_name(io, t, cols, idx[shown], kn, sizeof kn);
        dbuf_put(b, "%s%s %.2f", shown ? ", " : "", kn, (double)r[idx[shown]]);
    }
    if (shown < n) {
        float rest = r[idx[shown]];
        if (!scores && rest < TOP_MIN)
            dbuf_put(b, "; the rest below %.2f", (double)TOP_MIN);
        else
            dbuf_put(b, "; the other %d %.2f or less", n - shown, (double)rest);
    }
    masked_words(io, t, M, i, cols, b);
    if (!scores) {
        double sum = 0;
        for (int j = 0; j < cols; j++)
            sum += r[j];
        dbuf_put(b, "; sum %.2f", sum);
    }
    dbuf_put(b, ".\n");
}

void drows(const WidgetIO *io, const Trace *t, const TraceEntry *E, const TraceEntry *M,
           int scores, DBuf *b)
{
    for (int i = 0; i < E->rows; i++)
        row_words(io, t, E, M, i, scores, b);
}

int dcount_masked(const TraceEntry *M, int rows, int cols)
{
    int c = 0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            c += dcell_masked(M, i, j);
    return c;
}
/* A tensor as a short table: its name, shape and formula, then its first rows and columns. */
void dtable(const WidgetIO *io, const Trace *t, const TraceEntry *e, DBuf *b)
{
    dbuf_put(b, "%s, %s: %d by %d. %s\n", e->name, trace_kind_symbol(e->kind), e->rows,
             e->cols, trace_kind_formula(e->kind));
    int rows = e->rows < TABLE_ROWS ? e->rows : TABLE_ROWS;
    int cols = e->cols < TABLE_COLS ? e->cols : TABLE_COLS;
    int tok = t->model && e->rows == t->n && e->stack == describe_stack(io) &&
              (e->stack == STACK_ENC || t->model->cfg.arch != ARCH_ENCDEC);
    for (int i = 0; i < rows; i++) {
        dbuf_put(b, "row %d%s%s:", i, tok ? ", " : "", tok ? dword_row(io, t, i) : "");
        for (int j = 0; j < cols; j++) {
            float x = e->data[(size_t)i * e->cols + j];
            if (isinf(x))
                dbuf_put(b, " %s", x < 0 ? "minus-infinity" : "infinity");
            else
                dbuf_put(b, " %.2f", (double)x);
        }
        dbuf_put(b, cols < e->cols ? " and %d more columns.\n" : ".\n", e->cols - cols);
    }
    if (rows < e->rows)
        dbuf_put(b, "and %d more rows.\n", e->rows - rows);
}
