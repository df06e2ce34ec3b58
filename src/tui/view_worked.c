/* view_worked.c - attention worked by hand on the lesson's own matrices (model_worked): step
 * through Q, K, V → QKᵀ → ÷√d_k → +M → softmax → ·V, each step showing its formula, the
 * matrices it reads and the one it makes, and the chain with the current step highlighted.
 * A cell cursor writes out one entry: q_i·k_j term by term, the scaling, the mask, the
 * softmax. Keys: n/N step (←/→ too without a cursor), arrows/jk/bw cursor, m mask, s scale. */
#include <curses.h>
#include <math.h>
#include <string.h>

#include "app_views.h"
#include "ui.h"
#include "view_explain.h"


#define WCELL 7

static const char *const FORMULA[LIVE_WORKED_STEPS] = {
    "the queries, keys and values, given by the lesson (one row per position)",
    "S = QKᵀ: entry (i, j) is q_i·k_j, how well query i matches key j",
    "S' = S / √d_k: keeps the scores' spread independent of d_k",
    "S' + M: M is 0 where allowed, −∞ where masked (j > i under the causal mask)",
    "A = softmax(S' + M) row by row: e^s / Σ e^s; every row sums to 1",
    "out = A·V: each output row is a weighted average of the value rows",
};

typedef enum { LAB_POS, LAB_DIM } LabKind;

typedef struct {
    const char *title;
    const TraceEntry *e;
    int transpose;     /* show eᵀ */
    LabKind rows, cols;
    int sums;          /* a row-sum column */
    int result;        /* the matrix this step makes: bold title, cursor */
    int weights;       /* colour ramp and · for masked cells */
} Mat;

static const char *label(App *a, LabKind k, int i, char *buf, size_t n)
{
    if (k == LAB_POS)
        return a->s->w->worked.labels[i];
    snprintf(buf, n, "d%d", i);
    return buf;
}

static int mat_rows(const Mat *m) { return m->transpose ? m->e->cols : m->e->rows; }
static int mat_cols(const Mat *m) { return m->transpose ? m->e->rows : m->e->cols; }

static int lab_width(App *a, const Mat *m)
{
    int lw = 3;
    char b[16];
    for (int i = 0; i < mat_rows(m); i++) {
        int w = ui_width(label(a, m->rows, i, b, sizeof b)) + 1;
        if (w > lw)
            lw = w;
    }
    return lw;
}

static int mat_width(App *a, const Mat *m)
{
    int w = lab_width(a, m) + mat_cols(m) * WCELL + (m->sums ? 7 : 0);
    int tw = ui_width(m->title) + 8;
    return w > tw ? w : tw;
}

static int is_masked(const TraceEntry *M, int i, int j)
{
    if (!M)
        return 0;
    float v = M->data[(size_t)i * M->cols + j];
    return isinf(v) && v < 0;
}

/* Draws m at (y, x): title with shape, column labels, rows. */
static void draw_mat(App *a, int y, int x, const Mat *m, const TraceEntry *mask)
{
    int nr = mat_rows(m), nc = mat_cols(m), lw = lab_width(a, m);
    char b[16];
    attron(m->result ? A_BOLD | A_UNDERLINE : A_BOLD);
    ui_putf(y, x, mat_width(a, m), "%s [%d%s%d]", m->title, nr, ui_glyph(G_TIMES), nc);
    attroff(A_BOLD | A_UNDERLINE);
    attron(A_DIM);
    for (int j = 0; j < nc; j++) {
        const char *l = label(a, m->cols, j, b, sizeof b);
        int lwj = ui_width(l) < WCELL - 1 ? ui_width(l) : WCELL - 1;
        ui_put(y + 1, x + lw + j * WCELL + (WCELL - 1 - lwj), WCELL - 1, l);
    }
    if (m->sums)
        ui_put(y + 1, x + lw + nc * WCELL, 7, "   sum");
    attroff(A_DIM);
    for (int i = 0; i < nr; i++) {
        int yy = y + 2 + i;
        int cur_row = m->result && (a->s->allowed & C_CURSOR) && i == a->s->cur_r;
        attron(cur_row ? A_BOLD : 0);
        ui_put(yy, x, lw - 1, label(a, m->rows, i, b, sizeof b));
        attroff(A_BOLD);
        double sum = 0;
        for (int j = 0; j < nc; j++) {
            float v = m->transpose ? m->e->data[(size_t)j * m->e->cols + i]
                                   : m->e->data[(size_t)i * m->e->cols + j];
            sum += v;
            int cx = x + lw + j * WCELL;
            int cur = m->result && (a->s->allowed & C_CURSOR) && i == a->s->cur_r &&
                      (nc == a->s->w->worked.nk ? j == a->s->cur_c : 1);
            int at = cur ? A_REVERSE | A_BOLD : 0;
            int masked = m->weights && is_masked(mask, i, j);
            if (m->weights && !masked && !cur && ui.color != UI_COLOR_NONE)
                at |= ui_ramp_attr(ui_ramp_level(v));
            if (masked)
                at |= A_DIM;
            attron(at);
            if (masked)
                ui_putf(yy, cx, WCELL - 1, "%*s", WCELL - 1, ui_glyph(G_MASKED));
            else if (isinf(v))
                ui_putf(yy, cx, WCELL - 1, "%*s%s", WCELL - 1 - ui_width(ui_glyph(G_NEG_INF)), "",
                        v < 0 ? ui_glyph(G_NEG_INF) : "inf");
            else
                ui_putf(yy, cx, WCELL - 1, "%6.2f", (double)v);
            attroff(at);
        }
        if (m->sums)
            ui_putf(yy, x + lw + nc * WCELL, 7, "  %.2f", sum);
    }
}

/* The matrices of a step. Returns how many. */
static int step_mats(App *a, Mat *m)
{
    const Trace *t = a->s->live.worked;
#define E(k) trace_find(t, STACK_DEC, 0, SUB_SELF, (k) == T_MASK ? -1 : 0, (k))
    const TraceEntry *Q = E(T_Q), *K = E(T_K), *V = E(T_V), *S = E(T_SCORES),
                     *SS = E(T_SCALED), *M = E(T_MASK), *SM = E(T_MASKED), *A = E(T_WEIGHTS),
                     *O = E(T_HEAD_OUT);
#undef E
    if (!Q || !K || !V || !S || !SS || !M || !SM || !A || !O)
        return 0;
    int n = 0;
#define PUT(ti, en, tr, rl, cl, su, re, we) \
    m[n++] = (Mat){(ti), (en), (tr), (rl), (cl), (su), (re), (we)}
    switch (a->s->live.s.step) {
    case 0:
        PUT("Q", Q, 0, LAB_POS, LAB_DIM, 0, 0, 0);
        PUT("K", K, 0, LAB_POS, LAB_DIM, 0, 0, 0);
        PUT("V", V, 0, LAB_POS, LAB_DIM, 0, 0, 0);
        break;
    case 1:
        PUT("Q", Q, 0, LAB_POS, LAB_DIM, 0, 0, 0);
        PUT("Kᵀ", K, 1, LAB_DIM, LAB_POS, 0, 0, 0);
        PUT("S = QKᵀ", S, 0, LAB_POS, LAB_POS, 0, 1, 0);
        break;
    case 2:
        PUT("S = QKᵀ", S, 0, LAB_POS, LAB_POS, 0, 0, 0);
        PUT(a->s->live.s.scale ? "S' = S/√d_k" : "S' = S (unscaled)", SS, 0, LAB_POS, LAB_POS, 0, 1,
            0);
        break;
    case 3:
        PUT("S'", SS, 0, LAB_POS, LAB_POS, 0, 0, 0);
        PUT("M", M, 0, LAB_POS, LAB_POS, 0, 0, 0);
        PUT("S' + M", SM, 0, LAB_POS, LAB_POS, 0, 1, 0);
        break;
    case 4:
        PUT("S' + M", SM, 0, LAB_POS, LAB_POS, 0, 0, 0);
        PUT("A = softmax", A, 0, LAB_POS, LAB_POS, 1, 1, 1);
        break;
    default:
        PUT("A", A, 0, LAB_POS, LAB_POS, 0, 0, 1);
        PUT("V", V, 0, LAB_POS, LAB_DIM, 0, 0, 0);
        PUT("out = A·V", O, 0, LAB_POS, LAB_DIM, 0, 1, 0);
        break;
    }
#undef PUT
    return n;
}

/* The chain of steps, the current one highlighted. */
static void draw_chain(App *a, int y, int x, int w)
{
    int cx = x;
    for (int s = 0; s < LIVE_WORKED_STEPS; s++) {
        if (s) {
            attron(A_DIM);
            cx += ui_putf(y, cx, x + w - cx, " %s ", ui_glyph(G_ARROW));
            attroff(A_DIM);
        }
        int at = s == a->s->live.s.step ? A_REVERSE | A_BOLD : 0;
        attron(at);
        cx += ui_put(y, cx, x + w - cx, live_worked_step_name(s));
        attroff(at);
    }
}

/* The inspector: one entry of the current cell, written out. */
static void draw_inspector(App *a, int y, int x, int w, int rows)
{
    const Trace *t = a->s->live.worked;
    const WorkedSpec *ws = &a->s->w->worked;
    int i = a->s->cur_r, j = a->s->cur_c;
    const TraceEntry *S = trace_find(t, STACK_DEC, 0, SUB_SELF, 0, T_SCORES);
    const TraceEntry *SS = trace_find(t, STACK_DEC, 0, SUB_SELF, 0, T_SCALED);
    const TraceEntry *SM = trace_find(t, STACK_DEC, 0, SUB_SELF, 0, T_MASKED);
    const TraceEntry *A = trace_find(t, STACK_DEC, 0, SUB_SELF, 0, T_WEIGHTS);
    if (!S || !SS || !SM || !A || rows < 1)
        return;
    char line[512];
    size_t o = 0;
    o += (size_t)snprintf(line + o, sizeof line - o, "%s%s%s: q·k =", ws->labels[i],
                          ui_glyph(G_ARROW), ws->labels[j]);
    int terms = ws->dk <= 4 ? ws->dk : 3;
    for (int d = 0; d < terms && o < sizeof line; d++)
        o += (size_t)snprintf(line + o, sizeof line - o, "%s %g%s%g", d ? " +" : "",
                              (double)ws->q[i * ws->dk + d], ui_glyph(G_TIMES),
                              (double)ws->k[j * ws->dk + d]);
    if (terms < ws->dk && o < sizeof line)
        o += (size_t)snprintf(line + o, sizeof line - o, " + %s", ui_glyph(G_ELLIPSIS));
    if (o < sizeof line)
        snprintf(line + o, sizeof line - o, " = %.3f", (double)S->data[i * S->cols + j]);
    attron(A_BOLD);
    ui_put(y, x, w, line);
    attroff(A_BOLD);
    /* only what the steps so far have computed: the practice pages ask for the rest */
    int step = a->s->live.s.step;
    if (rows < 2 || step < 2)
        return;
    float sm = SM->data[i * SM->cols + j];
    double z = 0;
    for (int q = 0; q < SM->cols; q++)
        if (isfinite(SM->data[i * SM->cols + q]))
            z += exp((double)SM->data[i * SM->cols + q]);
    char sc[64], ms[64], wt[96];
    if (a->s->live.s.scale)
        snprintf(sc, sizeof sc, ui.utf8 ? "÷√%d = %.3f" : "/sqrt(%d) = %.3f", ws->dk,
                 (double)SS->data[i * SS->cols + j]);
    else
        snprintf(sc, sizeof sc, "unscaled %.3f", (double)SS->data[i * SS->cols + j]);
    if (isinf(sm)) {
        snprintf(ms, sizeof ms, "+M %s = %s", ui_glyph(G_NEG_INF), ui_glyph(G_NEG_INF));
        snprintf(wt, sizeof wt, "weight e^%s = 0", ui_glyph(G_NEG_INF));
    } else {
        snprintf(ms, sizeof ms, "+M 0 = %.3f", (double)sm);
        snprintf(wt, sizeof wt, "weight e^%.3f / %.3f = %.3f", (double)sm, z,
                 (double)A->data[i * A->cols + j]);
    }
    if (step < 3)
        ms[0] = '\0';
    if (step < 4)
        wt[0] = '\0';
    ui_putf(y + 1, x, w, "%s   %s   %s", sc, ms, wt);
}


static void worked_draw(App *a, Rect r)
{
    if (ex_not_ran(a, r))
        return;
    const WorkedSpec *ws = &a->s->w->worked;
    int y = r.y;
    attron(COLOR_PAIR(UI_ACCENT));
    ui_putf(y++, r.x, r.w, "worked attention  %d queries, %d keys, d_k %d, d_v %d  mask:%s  "
                           "scale:%s", ws->nq, ws->nk, ws->dk, ws->dv,
            a->s->live.s.causal == 2 ? "after softmax" : a->s->live.s.causal ? "causal" : "none",
            a->s->live.s.scale ? "on" : "off");
    attroff(COLOR_PAIR(UI_ACCENT));
    draw_chain(a, y++, r.x, r.w);
    attron(A_BOLD);
    ui_putf(y++, r.x, r.w, "step %d/%d: %s", a->s->live.s.step + 1, LIVE_WORKED_STEPS,
            live_worked_step_name(a->s->live.s.step));
    attroff(A_BOLD);
    /* the mistake (mask after softmax): nothing is added before softmax, and the future's
     * weights are zeroed after it, so the rows no longer sum to 1 */
    static const char *const LATE[LIVE_WORKED_STEPS] = {
        NULL, NULL, NULL,
        "S' + M: the mistake adds nothing here; the mask comes after softmax",
        "A = softmax(S'), then the future set to 0: rows no longer sum to 1",
        NULL,
    };
    int late = a->s->live.s.causal == 2 && LATE[a->s->live.s.step];
    ui_put(y++, r.x, r.w, late ? LATE[a->s->live.s.step] : FORMULA[a->s->live.s.step]);
    y++;
    Mat m[4];
    int n = step_mats(a, m);
    const TraceEntry *mask = trace_find(a->s->live.worked, STACK_DEC, 0, SUB_SELF, -1, T_MASK);
    int insp = (a->s->allowed & C_CURSOR) && a->s->live.s.step >= 1 ? 2 : 0;
    int x = r.x, band = 0;
    for (int i = 0; i < n; i++) {
        int mw = mat_width(a, &m[i]), mh = mat_rows(&m[i]) + 2;
        if (x > r.x && x + mw > r.x + r.w) {
            y += band + 1;
            x = r.x;
            band = 0;
        }
        if (y + mh > r.y + r.h - insp) {
            ui_put(r.y + r.h - 1 - insp, r.x, r.w, "(enlarge the terminal to see every matrix)");
            break;
        }
        draw_mat(a, y, x, &m[i], mask);
        if (mh > band)
            band = mh;
        x += mw + 3;
    }
    if (insp && y + band < r.y + r.h)
        draw_inspector(a, r.y + r.h - insp > y + band ? y + band + 1 : y + band, r.x, r.w,
                       r.y + r.h - (y + band + 1));
}


static int worked_need(App *a, int w)
{
    (void)w;
    const WorkedSpec *ws = &a->s->w->worked;
    int big = ws->nq > ws->nk ? ws->nq : ws->nk;
    if (ws->dk > big)
        big = ws->dk;
    return big + 10;
}


const ViewOps VIEW_WORKED = {
    .name = "worked", .kind = W_WORKED,
    .draw = worked_draw, .need = worked_need,
};
