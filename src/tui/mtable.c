/* mtable.c - a traced matrix as a table: row labels (the tokens, when the tensor has one row
 * per token), column labels, values, scrolled, with a line saying what is out of view.
 * The matrix and shape-passport views draw their tensors with it. */
#include "mtable.h"

#include <curses.h>
#include <math.h>
#include <string.h>

#include "ui.h"

/* Columns per value: the widest "%.3f" of the tensor and a space, at least MCELL_MIN (so a
 * table keeps its shape as values change sign) and at most MCELL_MAX. */
#define MCELL_MIN 7
#define MCELL_MAX 10

int mtable_encdec_dec(const App *a, const TraceEntry *e)
{
    return e->stack == STACK_DEC && a->s->model && a->s->model->cfg.arch == ARCH_ENCDEC;
}

static int is_key_kind(TensorKind k)
{
    return k == T_K || k == T_V || k == T_K_ROT;
}

static int is_attention_kind(TensorKind k)
{
    return k == T_SCORES || k == T_SCALED || k == T_MASK || k == T_MASKED || k == T_WEIGHTS;
}

/* Row label: the token when the tensor has one row per token, else the row index; the PE
 * table's rows are positions ("pos 3"), since PE depends on the position only. A decoder
 * row of an encoder-decoder model is the word it produces (tgt); the keys and values of its
 * self-attention are what each position reads (tgt_in); cross-attention keys and values are
 * the source words. */
static void row_label(App *a, const TraceEntry *e, int i, char *out, size_t n)
{
    const Trace *t = a->s->t;
    const Vocab *v = &a->s->model->vocab;
    if (e->kind == T_PE) {
        snprintf(out, n, "pos %d", i);
        return;
    }
    if (mtable_encdec_dec(a, e)) {
        if (e->sub == SUB_CROSS && is_key_kind(e->kind) && e->rows == t->n)
            snprintf(out, n, "%s", vocab_word(v, t->src[i]));
        else if (e->rows == t->m && e->sub == SUB_SELF && is_key_kind(e->kind))
            snprintf(out, n, "%s", vocab_word(v, t->tgt_in[i]));
        else if (e->rows == t->m)
            snprintf(out, n, "%s", vocab_word(v, t->tgt[i]));
        else
            snprintf(out, n, "%d", i);
    } else if (e->rows == t->n && i < t->n) {
        snprintf(out, n, "%s", vocab_word(v, t->src[i]));
    } else {
        snprintf(out, n, "%d", i);
    }
}

/* Column label of an attention tensor (keys): "j:word"; NULL for other tensors. */
static const char *col_token(App *a, const TraceEntry *e, int j)
{
    const Trace *t = a->s->t;
    const Vocab *v = &a->s->model->vocab;
    if (!is_attention_kind(e->kind))
        return NULL;
    if (mtable_encdec_dec(a, e) && e->sub == SUB_SELF)
        return e->cols == t->m ? vocab_word(v, t->tgt_in[j]) : NULL;
    return e->cols == t->n ? vocab_word(v, t->src[j]) : NULL;
}

/* Row label column: the longest label and a space, at least 4 ("pos"/indices line up with
 * the column header) and at most 8 (7 characters of a token), 12 in a wide pane (80x24
 * never is). */
static int matrix_lw(App *a, const TraceEntry *e, int w)
{
    int max = w >= APP_BIG_W ? 12 : 8, lw = 4;
    for (int i = 0; i < e->rows && lw < max; i++) {
        char lab[64];
        row_label(a, e, i, lab, sizeof lab);
        if (ui_width(lab) + 1 > lw)
            lw = ui_width(lab) + 1;
    }
    return lw > max ? max : lw;
}

static int matrix_cw(App *a, const TraceEntry *e)
{
    int cw = MCELL_MIN;
    /* an attention tensor's column labels ("0:<bos>") count too: a label is not cut while
     * a value would leave it room */
    for (int j = 0; j < e->cols && cw < MCELL_MAX; j++) {
        const char *tok = col_token(a, e, j);
        char lab[96];
        if (!tok)
            break;
        snprintf(lab, sizeof lab, "%d:%s", j, tok);
        if (ui_width(lab) + 1 > cw)
            cw = ui_width(lab) + 1;
    }
    size_t n = (size_t)e->rows * e->cols;
    for (size_t k = 0; k < n && cw < MCELL_MAX; k++) {
        float v = e->data[k];
        if (isinf(v) || isnan(v))
            continue;
        char num[48];
        int len = snprintf(num, sizeof num, "%.3f", (double)v) + 1;
        if (len > cw)
            cw = len;
    }
    return cw > MCELL_MAX ? MCELL_MAX : cw;
}

int mtable_need(App *a, const TraceEntry *e, int w)
{
    if (!e)
        return 1;
    int vis_c = (w - matrix_lw(a, e, w)) / matrix_cw(a, e);
    return 1 + e->rows + (e->cols > vis_c ? 1 : 0);
}

void mtable_visible(App *a, const TraceEntry *e, int w, int h, int *vis_r, int *vis_c)
{
    *vis_c = (w - matrix_lw(a, e, w)) / matrix_cw(a, e);
    *vis_r = h - 1;
    if (e->rows > *vis_r || e->cols > *vis_c)
        *vis_r = h - 2; /* a line says what is out of view */
}

int mtable_draw(App *a, Rect r, const TraceEntry *e, int sr, int sc)
{
    if (r.h < 2 || !e)
        return 0;
    int lw = matrix_lw(a, e, r.w), cw = matrix_cw(a, e);
    int vis_c = (r.w - lw) / cw;
    int vis_r = r.h - 1;
    if (e->rows > vis_r || e->cols > vis_c)
        vis_r = r.h - 2; /* a line says what is out of view */
    if (vis_c < 1 || vis_r < 1)
        return 0;
    if (sc > e->cols - vis_c)
        sc = e->cols - vis_c;
    if (sc < 0)
        sc = 0;
    if (sr > e->rows - vis_r)
        sr = e->rows - vis_r;
    if (sr < 0)
        sr = 0;
    attron(A_DIM);
    for (int j = sc; j < e->cols && j < sc + vis_c; j++) {
        const char *tok = col_token(a, e, j);
        char lab[96];
        if (tok)
            snprintf(lab, sizeof lab, "%d:%s", j, tok);
        else
            snprintf(lab, sizeof lab, "%d", j);
        int lw2 = ui_width(lab) < cw - 1 ? ui_width(lab) : cw - 1;
        ui_put(r.y, r.x + lw + (j - sc) * cw + (cw - 1 - lw2), cw - 1, lab);
    }
    attroff(A_DIM);
    int y = r.y + 1;
    for (int i = sr; i < e->rows && i < sr + vis_r; i++, y++) {
        char lab[64];
        row_label(a, e, i, lab, sizeof lab);
        ui_put(y, r.x, lw - 1, lab);
        for (int j = sc; j < e->cols && j < sc + vis_c; j++) {
            float v = e->data[(size_t)i * e->cols + j];
            int x = r.x + lw + (j - sc) * cw;
            if (isinf(v)) {
                attron(A_DIM);
                ui_putf(y, x, cw, "%*s%s", cw - 1 - ui_width(ui_glyph(G_NEG_INF)), "",
                        v < 0 ? ui_glyph(G_NEG_INF) : "inf");
                attroff(A_DIM);
            } else {
                ui_putf(y, x, cw, "%*.3f", cw - 1, (double)v);
            }
        }
    }
    int more_r = e->rows > vis_r, more_c = e->cols > vis_c;
    if (more_r || more_c) {
        attron(A_DIM);
        ui_putf(y, r.x, r.w, "rows %d-%d of %d, cols %d-%d of %d  (%s scroll)", sr + 1,
                sr + (vis_r < e->rows ? vis_r : e->rows), e->rows, sc + 1,
                sc + (vis_c < e->cols ? vis_c : e->cols), e->cols,
                ui.utf8 ? "↑↓ < >" : "up/down < >");
        attroff(A_DIM);
        y++;
    }
    return y - r.y;
}

int mtable_scroll(Request req, int *sr, int *sc)
{
    switch (req) {
    case REQ_SCROLL_UP:
        if (*sr > 0)
            (*sr)--;
        return 1;
    case REQ_SCROLL_DOWN:
        (*sr)++;
        return 1;
    case REQ_SCROLL_LEFT:
        if (*sc > 0)
            (*sc)--;
        return 1;
    case REQ_SCROLL_RIGHT:
        (*sc)++;
        return 1;
    default:
        return 0;
    }
}

void mtable_clamp(const TraceEntry *e, int *sr, int *sc)
{
    if (!e)
        return;
    if (*sr > e->rows - 1)
        *sr = e->rows - 1;
    if (*sc > e->cols - 1)
        *sc = e->cols - 1;
    if (*sr < 0)
        *sr = 0;
    if (*sc < 0)
        *sc = 0;
}
