/* view_quiz.c - the quiz screen: one question at a time, typed answers (a cursor for cell
 * questions), hints on request, ✓/✗ verdicts with the expected answer beside the given one,
 * retry and skip. `attend quiz` (src/cli/cmd_quiz.c) and the player's Q key run it. Draw paints from the state (starting with erase()); key changes it. */
#include "app_views.h"
#include "view_quiz.h"

#include <curses.h>
#include <limits.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "ui.h"
#include "utf8.h"

typedef enum { ST_ASK, ST_WRONG, ST_SHOWN, ST_RIGHT, ST_DONE } Stage;
typedef enum { FB_NONE, FB_INVALID, FB_RIGHT, FB_WRONG, FB_INFO } Feedback;

typedef struct {
    QuizSession qs;           /* the run: question, hints, tries, results, tally (below both
                                 quiz screens: quiz_session.h) */
    Stage st;
    char input[256];
    char given[256];          /* the last answer judged wrong (or right) */
    char msg[400];
    Feedback fb;
    int cell_col;             /* cell questions: cursor column */
    int scroll;               /* lines of the question's body scrolled up (↑/↓) */
    int quit;
} QV;

static const char *glyph_right(void) { return ui.utf8 ? "✓" : "[ok]"; }
static const char *glyph_wrong(void) { return ui.utf8 ? "✗" : "[x]"; }

static const QuizItem *cur_item(const QV *q)
{
    return quiz_session_item(&q->qs);
}

/* ---- drawing ---- */

/* The question's body scrolls (↑/↓) when it does not fit: it is laid out on virtual rows
 * from 2, shown from row 2 + off on, on the rows top..bot-1; dry lays out without drawing
 * (to measure). */
static struct {
    int off, top, bot, dry;
} vw = {0, 2, 1 << 20, 0};

/* The screen row of virtual row y, or -1 when it is out of sight (or measuring). */
static int vrow(int y)
{
    int r = y - vw.off;
    return !vw.dry && r >= vw.top && r < vw.bot ? r : -1;
}

typedef struct {
    int y, x, w, maxy, attr;
    int skip;                 /* lines not drawn first (scrolled up) */
} WrapCtx;

static void wrap_line(const char *s, int len, void *vctx)
{
    WrapCtx *c = vctx;
    if (c->skip > 0) {
        c->skip--;
        return;
    }
    int r = vrow(c->y++);
    if (r < 0)
        return;
    char line[1024], tl[1200];
    if (len >= (int)sizeof line)
        len = (int)sizeof line - 1;
    memcpy(line, s, (size_t)len);
    line[len] = 0;
    ui_text(line, tl, sizeof tl);
    attron(c->attr);
    ui_put(r, c->x, c->w, tl);
    attroff(c->attr);
}

/* ui_put on virtual row y (nothing when out of sight); the columns used. */
static int vput(int y, int x, int w, int attr, const char *text)
{
    int r = vrow(y), used = 0;
    if (r < 0)
        return ui_width(text) < w ? ui_width(text) : w;
    attron(attr);
    used = ui_put(r, x, w, text);
    attroff(attr);
    return used;
}

/* Wraps text at virtual row y, x in w columns (shown where vw shows it); returns the next
 * row. (maxy is kept for the summary's callers: the rows stop there.) */
static int put_wrapped(int y, int x, int w, int maxy, int attr, const char *text)
{
    char tmp[4096];
    ui_text(text, tmp, sizeof tmp); /* transliterate first so widths are right */
    WrapCtx c = {y, x, w, maxy, attr, 0};
    int bot = vw.bot;
    if (maxy > 0 && maxy < vw.bot)
        vw.bot = maxy;
    ui_wrap(tmp, w, wrap_line, &c);
    vw.bot = bot;
    return c.y;
}

static void draw_header(const QV *q)
{
    char left[300], right[100];
    snprintf(left, sizeof left, " attend %s quiz: %s", ui.utf8 ? "│" : "|", q->qs.set->title);
    if (q->st == ST_DONE)
        snprintf(right, sizeof right, "done  seed %llu ", (unsigned long long)q->qs.set->seed);
    else
        snprintf(right, sizeof right, "question %d/%d  seed %llu ", q->qs.cur + 1, q->qs.set->n,
                 (unsigned long long)q->qs.set->seed);
    attron(COLOR_PAIR(UI_HEADER) | A_BOLD);
    if (ui.color == UI_COLOR_NONE)
        attron(A_REVERSE);
    ui_fill(0, 0, COLS);
    int rw = ui_width(right);
    ui_put(0, 0, COLS - rw - 1, left);
    ui_put(0, COLS - rw, rw, right);
    attrset(A_NORMAL);
}

/* One weight in a cell of cw columns (5..7): "0.23" when there is room, else ".23"; a cell
 * the mask took is "·" ("x" in ASCII: G_MASKED, as the player's heatmap shows it). */
static void cell_text(float v, int masked, int cw, char *out, size_t outlen)
{
    char num[16];
    if (masked) {
        snprintf(out, outlen, "%s", ui_glyph(G_MASKED));
        return;
    }
    snprintf(num, sizeof num, "%.2f", (double)v);
    if (cw < 7 && num[0] == '0' && num[1] == '.')
        memmove(num, num + 1, strlen(num));
    else if (cw < 7 && !strcmp(num, "1.00"))
        snprintf(num, sizeof num, "1.0");
    snprintf(out, outlen, "%s", num);
}

/* The weights of a cell question: the question's row is marked '>' (and bold), the cursor
 * column bracketed (and reversed). The columns narrow (7, 6, then 5 wide, labels cut to
 * fit) until the row fits in w; when even 5 is too wide the grid scrolls with the cursor,
 * with arrows at the cut edges; rows that do not fit above the answer are cut to a window
 * around the question's row; a line says which rows and columns are shown. Returns the
 * next free row. */
int view_quiz_draw_grid(const QuizItem *it, int y, int x, int w, int maxy, int cursor,
                        int keep)
{
    if (!it->grid_n)
        return y;
    int m = it->grid_m, cw = 7, lw = 8;
    if (lw + 1 + m * cw > w)
        cw = 6, lw = 6;
    if (lw + 1 + m * cw > w)
        cw = 5, lw = 5;
    int vis = m, first = 0;
    if (lw + 1 + m * cw > w) { /* scroll: leave a column each side for the arrows */
        vis = (w - lw - 3) / cw;
        if (vis < 1)
            vis = 1;
        first = cursor - vis / 2;
        if (first > m - vis)
            first = m - vis;
        if (first < 0)
            first = 0;
    }
    int x0 = x + lw + 1 + (vis < m ? 1 : 0); /* the first cell's column */
    const char *left = ui.utf8 ? "◀" : "<", *right = ui.utf8 ? "▶" : ">";
    for (int j = first; j < first + vis; j++)
        ui_put(y, x0 + (j - first) * cw + 1, cw - 1, it->grid_cols[j]);
    if (vis < m) {
        if (first > 0)
            ui_put(y, x0 - 1, 1, left);
        if (first + vis < m)
            ui_put(y, x0 + vis * cw, 1, right);
    }
    y++;
    /* rows: all of them when they fit with `keep` lines left below for the info line, the
     * answer, the verdict (and after it the expected answer), else a window around the
     * question's row */
    int room = maxy - keep - y, r0 = 0, nr = it->grid_n;
    if (room < 3)
        room = 3;
    if (nr > room) {
        nr = room;
        r0 = it->row - nr / 2;
        if (r0 > it->grid_n - nr)
            r0 = it->grid_n - nr;
        if (r0 < 0)
            r0 = 0;
    }
    for (int i = r0; i < r0 + nr && y < maxy; i++, y++) {
        int on_row = i == it->row;
        if (on_row)
            attron(A_BOLD);
        ui_put(y, x, 1, on_row ? ">" : " ");
        ui_put(y, x + 1, lw - 1, it->grid_rows[i]);
        if (vis < m && first > 0)
            ui_put(y, x0 - 1, 1, left);
        for (int j = first; j < first + vis; j++) {
            int sel = on_row && j == cursor;
            char num[16];
            cell_text(it->grid[i * m + j], it->grid_masked[i * m + j], cw, num, sizeof num);
            if (sel)
                attron(A_REVERSE);
            /* brackets mark the cursor as well as the reverse video (no colour alone) */
            int pad = cw - 2 - ui_width(num); /* "·" is one column, two bytes */
            ui_putf(y, x0 + (j - first) * cw, cw, "%c%*s%s%c", sel ? '[' : ' ', pad > 0 ? pad : 0,
                    "", num, sel ? ']' : ' ');
            if (sel)
                attroff(A_REVERSE);
        }
        if (vis < m && first + vis < m)
            ui_put(y, x0 + vis * cw, 1, right);
        if (on_row)
            attroff(A_BOLD);
    }
    if ((vis < m || nr < it->grid_n) && y < maxy) {
        /* "rows 2–6 of 7": the indices shown (from 0, as the labels count) and the total */
        char info[200] = "";
        const char *dash = ui.utf8 ? "–" : "-";
        if (nr < it->grid_n)
            snprintf(info, sizeof info, "rows %d%s%d of %d", r0, dash, r0 + nr - 1, it->grid_n);
        if (vis < m)
            snprintf(info + strlen(info), sizeof info - strlen(info), "%scolumns %d%s%d of %d",
                     info[0] ? ", " : "", first, dash, first + vis - 1, m);
        snprintf(info + strlen(info), sizeof info - strlen(info), " shown");
        if (vis < m)
            snprintf(info + strlen(info), sizeof info - strlen(info), " (%s/%s scroll)",
                     ui.utf8 ? "←" : "<-", ui.utf8 ? "→" : "->");
        attron(A_DIM);
        ui_put(y++, x, w, info);
        attroff(A_DIM);
    }
    return y;
}

static void draw_done(const QV *q)
{
    int y = 3, x = 2, w = COLS - 4;
    attron(A_BOLD);
    ui_putf(y++, x, w, "%s: %d of %d right at the first try", q->qs.tally.quit ? "Stopped"
                                                                            : "Done",
            q->qs.tally.right, q->qs.tally.asked);
    attroff(A_BOLD);
    y++;
    ui_putf(y++, x, w, "hints used: %d   skipped: %d", q->qs.tally.hints, q->qs.tally.skipped);
    int missed = q->qs.tally.asked - q->qs.tally.right;
    if (missed > 0)
        y = put_wrapped(y + 1, x, w, LINES - 2, A_NORMAL,
                        "Questions you missed or skipped are due again at once: "
                        "attend quiz --review brings them back.");
    if (q->qs.prog)
        put_wrapped(y + 1, x, w, LINES - 2, A_DIM,
                    q->qs.save_err[0] ? q->qs.save_err : "Scores and the review schedule are saved.");
    else
        put_wrapped(y + 1, x, w, LINES - 2, A_DIM, "Progress is not saved in this session.");
}

/* The question's body on virtual rows from 2 (vw says which are shown): the prompt, setup,
 * choices, the answer, the verdict with the "why not" of the learner's pick, the hints, and
 * once shown the answer and explanation (quiz_verdict_text). Returns the row after it. */
static int body(const QV *q, const QuizItem *it, int x, int w)
{
    int y = 2;
    char top[300], hu[32] = "";
    if (q->qs.hints)
        snprintf(hu, sizeof hu, "  hints used: %d", q->qs.hints);
    snprintf(top, sizeof top, "%s  %s%s%s", it->key, quiz_kind_name(it->kind),
             it->drill[0] ? " (drill: fresh numbers each time)" : "", hu);
    vput(y++, x, w, A_DIM, top);
    y++;
    if (it->lead[0])
        y = put_wrapped(y, x, w, 0, A_DIM, it->lead);
    y = put_wrapped(y, x, w, 0, A_BOLD, it->prompt);
    if (it->context[0]) {
        char setup[500];
        snprintf(setup, sizeof setup, "Setup: %s", it->context);
        y = put_wrapped(y, x, w, 0, A_DIM, setup);
    }
    y++;
    for (int c = 0; c < it->n_choices; c++) {
        char line[300];
        snprintf(line, sizeof line, "%d) %s", c + 1, it->choices[c]);
        y = put_wrapped(y, x + 2, w - 2, 0, A_NORMAL, line);
    }
    if (it->n_choices)
        vput(y++, x + 2, w - 2, A_DIM, it->kind == QK_MULTI
                                         ? "type the numbers of every right choice, e.g. 1 3"
                                         : "type the number of your choice");
    if (it->kind == QK_CELL && it->grid_n) {
        /* the grid fits itself to the rows left (a window around the question's row): it is
         * drawn (also when measuring: draw erases first) unless scrolled away */
        int r = y - vw.off;
        if (r >= vw.top)
            y = view_quiz_draw_grid(it, r, x, w, vw.bot < LINES - 2 ? vw.bot : LINES - 2,
                                    q->cell_col, q->st == ST_ASK ? 6 : 8) - r + y + 1;
        else
            y += (it->grid_n < 3 ? it->grid_n : 3) + 3;
    }
    if (it->kind == QK_SHAPE)
        vput(y++, x + 2, w - 2, A_DIM, "shapes: 6x64, 6×64, [6, 64] or (6, 64)");
    if (it->kind == QK_TEXT)
        vput(y++, x + 2, w - 2, A_DIM, "case, extra spaces, quotes and a final period are ignored");
    y++;
    int used = vput(y, x, w, A_BOLD, "Your answer: ");
    char shown[300];
    snprintf(shown, sizeof shown, "%s%s", q->st == ST_ASK ? q->input : q->given,
             q->st == ST_ASK ? "_" : "");
    vput(y, x + used, w - used, A_NORMAL, shown);
    y += 2;
    if (q->fb != FB_NONE) {
        char line[600];
        const char *g = q->fb == FB_RIGHT ? glyph_right() : q->fb == FB_WRONG ? glyph_wrong()
                      : q->fb == FB_INVALID ? ui_glyph(G_WARN) : "";
        snprintf(line, sizeof line, "%s %s", g, q->msg);
        int attr = A_BOLD;
        if (q->fb == FB_INVALID)
            attr |= (int)COLOR_PAIR(UI_WARN);
        else if (q->fb != FB_INFO)
            attr |= (int)COLOR_PAIR(UI_ACCENT);
        y = put_wrapped(y, x, w, 0, attr, line);
    }
    for (int h = 0; h < q->qs.hints; h++) {
        char hint[700], line[720];
        if (quiz_hint_after(it, h, q->qs.last, hint, sizeof hint)) {
            snprintf(line, sizeof line, "Hint %d: %s", h + 1, hint);
            y = put_wrapped(y, x, w, 0, A_NORMAL, line);
        }
    }
    if (q->st == ST_SHOWN || q->st == ST_RIGHT) {
        char text[3000], tmp[4096];
        quiz_verdict_text(it, q->given, text, sizeof text);
        ui_text(text, tmp, sizeof tmp);
        int attr = A_BOLD; /* "Expected: ... Yours: ..." in bold, the rest plain */
        y++;
        for (char *p = tmp, *e; p; p = e ? e + 1 : NULL) {
            e = strchr(p, '\n');
            if (e)
                *e = 0;
            y = put_wrapped(y, x, w, 0, attr, p);
            attr = A_NORMAL;
        }
    }
    return y;
}

/* How far the body of the question can scroll at this size: its rows past the last one
 * shown (one row is kept for the mark then). */
static int scroll_max(const QV *q)
{
    const QuizItem *it = cur_item(q);
    if (!it)
        return 0;
    vw.dry = 1;
    vw.off = 0;
    int end = body(q, it, 2, COLS - 4);
    vw.dry = 0;
    int maxy = LINES - 2;
    return end > maxy ? end - (maxy - 1) : 0;
}

static void draw(const QV *q)
{
    erase();
    if (COLS < APP_MIN_COLS || LINES < APP_MIN_LINES) {
        char l1[80];
        snprintf(l1, sizeof l1, "need %d%s%d (now %dx%d) - esc quits", APP_MIN_COLS,
                 ui.utf8 ? "×" : "x", APP_MIN_LINES, COLS, LINES);
        ui_put(LINES / 2, 0, COLS, l1);
        return;
    }
    int max = q->st == ST_DONE ? 0 : scroll_max(q);
    erase(); /* what measuring drew */
    draw_header(q);
    if (q->st == ST_DONE) {
        draw_done(q);
        return;
    }
    const QuizItem *it = cur_item(q);
    int x = 2, w = COLS - 4, maxy = LINES - 2;
    /* scroll < 0 follows the end: the verdict, the newest hint, the explanation */
    int off = q->scroll < 0 || q->scroll > max ? max : q->scroll;
    vw.off = off;
    vw.top = 2;
    vw.bot = max ? maxy - 1 : maxy;
    body(q, it, x, w);
    vw.off = 0;
    vw.bot = 1 << 20;
    if (!max)
        return;
    char mark[120];
    const char *keys = ui.utf8 ? "↑/↓" : "up/down";
    if (off < max)
        snprintf(mark, sizeof mark, "%s %d more line%s below%s%s: %s scrolls",
                 ui.utf8 ? "▼" : "v", max - off, max - off == 1 ? "" : "s",
                 off ? ", " : "", off ? "more above" : "", keys);
    else
        snprintf(mark, sizeof mark, "%s %d line%s above: %s scrolls", ui.utf8 ? "▲" : "^", off,
                 off == 1 ? "" : "s", keys);
    attron(A_DIM | A_REVERSE);
    ui_put(maxy - 1, x, w, mark);
    attroff(A_DIM | A_REVERSE);
}

/* ---- keys ---- */

/* The screen for the question the run moved on to. */
static void shown_next(QV *q)
{
    q->input[0] = q->given[0] = q->msg[0] = 0;
    q->fb = FB_NONE;
    q->cell_col = q->scroll = 0;
    q->st = q->qs.cur >= q->qs.set->n ? ST_DONE : ST_ASK;
}

static void next_question(QV *q)
{
    quiz_session_next(&q->qs);
    shown_next(q);
}

static void show_hint(QV *q)
{
    char hint[700];
    if (!quiz_session_hint(&q->qs, hint, sizeof hint)) {
        snprintf(q->msg, sizeof q->msg, "No more hints for this question.");
        q->fb = FB_INFO;
    } else {
        q->scroll = -1; /* the new hint in sight */
    }
}

static void submit(QV *q)
{
    const QuizItem *it = cur_item(q);
    char ans[256];
    if (it->kind == QK_CELL && !q->input[0])
        snprintf(ans, sizeof ans, "%d", q->cell_col);
    else
        snprintf(ans, sizeof ans, "%s", q->input);
    QuizVerdict v = quiz_session_answer(&q->qs, ans, q->msg, sizeof q->msg);
    if (v == QV_INVALID) {
        q->fb = FB_INVALID; /* never counted: read the message, try again */
        return;
    }
    snprintf(q->given, sizeof q->given, "%s", ans);
    q->scroll = -1; /* the verdict in sight */
    q->fb = v == QV_RIGHT ? FB_RIGHT : FB_WRONG;
    q->st = v == QV_RIGHT ? ST_RIGHT : ST_WRONG;
}

static void input_add(QV *q, int k)
{
    char buf[MB_LEN_MAX + 1];
    int n;
    if (k & APP_WCHAR) {
        mbstate_t ms;
        memset(&ms, 0, sizeof ms);
        size_t r = wcrtomb(buf, (wchar_t)(k & ~APP_WCHAR), &ms);
        if (r == (size_t)-1)
            return;
        n = (int)r;
    } else {
        buf[0] = (char)k;
        n = 1;
    }
    size_t len = strlen(q->input);
    if (len + (size_t)n + 1 >= 200)
        return; /* the field holds a short answer; longer is refused by quiz_check anyway */
    memcpy(q->input + len, buf, (size_t)n);
    q->input[len + (size_t)n] = 0;
}

static void input_backspace(QV *q)
{
    q->input[utf8_prev(q->input, strlen(q->input))] = 0;
}

/* The key table's mode for the quiz's stage (KeysMode): its rows bind in it. */
static int quiz_mode(const QV *q)
{
    const QuizItem *it = cur_item(q);
    if (COLS < APP_MIN_COLS || LINES < APP_MIN_LINES)
        return KMODE_QUIZ_SMALL;
    switch (q->st) {
    case ST_ASK:
        return it && it->kind == QK_CELL ? KMODE_QUIZ_CELL : KMODE_QUIZ_ASK;
    case ST_WRONG:
        return KMODE_QUIZ_WRONG;
    case ST_DONE:
        return KMODE_QUIZ_DONE;
    default:
        return KMODE_QUIZ_VERDICT;
    }
}

/* Request r (the key table's, in the quiz's mode) for key k: while asking, a key the table
 * does not bind is typed into the answer. */
static void key(QV *q, Request r, int k)
{
    const QuizItem *it = cur_item(q);
    switch (r) {
    case REQ_CLOSE:
        q->quit = 1;
        return;
    case REQ_ACCEPT:
        if (q->st == ST_ASK)
            submit(q);
        else if (q->st == ST_WRONG) {
            q->st = ST_SHOWN;
            q->scroll = -1; /* the answer and why in sight */
        }
        return;
    case REQ_STEP_NEXT:
        next_question(q);
        return;
    case REQ_HINT:
        show_hint(q);
        return;
    case REQ_SKIP:
        quiz_session_skip(&q->qs);
        shown_next(q);
        return;
    case REQ_RETRY: /* a fresh field, not the wrong answer to append to */
        q->st = ST_ASK;
        q->fb = FB_NONE;
        q->msg[0] = 0;
        q->input[0] = 0;
        q->scroll = 0;
        return;
    case REQ_EDIT_ERASE:
        input_backspace(q);
        return;
    case REQ_EDIT_CLEAR:
        q->input[0] = 0;
        return;
    case REQ_CURSOR_DOWN:
    case REQ_CURSOR_UP: { /* the question's body, when it does not fit */
        int max = scroll_max(q);
        if (q->scroll < 0 || q->scroll > max)
            q->scroll = max;
        q->scroll += r == REQ_CURSOR_DOWN ? 1 : -1;
        q->scroll = q->scroll < 0 ? 0 : q->scroll > max ? max : q->scroll;
        return;
    }
    case REQ_CURSOR_LEFT:
        if (q->cell_col > 0)
            q->cell_col--;
        return;
    case REQ_CURSOR_RIGHT:
        if (q->cell_col < it->n_cols - 1)
            q->cell_col++;
        return;
    case REQ_NONE:
        if (q->st == ST_ASK && quiz_mode(q) != KMODE_QUIZ_SMALL &&
            ((k >= 32 && k < KEY_ASCII_DEL) || (k & APP_WCHAR)))
            input_add(q, k);
        return;
    default:
        return;
    }
}

/* A quiz screen's state for the set s (see view_quiz_start); NULL when out of memory. */
static QV *qv_new(QuizSet *s, Progress *p, int scores)
{
    QV *q = calloc(1, sizeof *q);
    if (!q || quiz_session_start(&q->qs, s, p, scores)) {
        free(q);
        return NULL;
    }
    q->st = s->n ? ST_ASK : ST_DONE;
    return q;
}

/* Ends a quiz: records the per-lesson scores, fills t and save_err, frees q. */
static void qv_end(QV *q, QuizTally *t, char *save_err, size_t errlen)
{
    if (save_err && errlen)
        save_err[0] = '\0';
    quiz_session_end(&q->qs, t);
    if (save_err && errlen)
        snprintf(save_err, errlen, "%s", q->qs.save_err);
    free(q);
}

/* ---- the overlay: Q in the player (the current lesson's questions), attend quiz (a set
 * built by the command, view_quiz_start) ---- */

typedef struct {
    QuizSet set;        /* Q: built from the current lesson, freed on close */
    QV *q;              /* NULL when closed */
    int given;          /* 1: attend quiz's set (not freed here), results to the fields below */
    QuizTally *out;
    char *out_err;
    size_t out_errlen;
} QuizOverlay;

/* The current lesson's questions (Q on a page). */
static int quiz_open_lesson(App *a, QuizOverlay *o)
{
    char err[600] = "quiz: out of memory";
    o->q = calloc(1, sizeof *o->q);
    if (!o->q || quiz_session_lesson(&o->q->qs, &o->set, a->s, NULL, err, sizeof err) < 0) {
        free(o->q);
        o->q = NULL;
        app_msg(a, 0, "%s", err);
        return -1;
    }
    o->q->st = o->set.n ? ST_ASK : ST_DONE;
    return 0;
}

/* arg 0: the current lesson's questions; 1: the set view_quiz_start put in the state. */
static int quiz_open(App *a, int arg)
{
    QuizOverlay *o = app_view_state(a, &VIEW_QUIZ);
    if (!arg) {
        o->given = 0;
        if (quiz_open_lesson(a, o))
            return -1;
    }
    curs_set(0);
    return o->q ? 0 : -1;
}

static void quiz_close(App *a)
{
    QuizOverlay *o = app_view_state(a, &VIEW_QUIZ);
    QuizTally t;
    char serr[300];
    if (!o->q)
        return;
    qv_end(o->q, &t, serr, sizeof serr);
    o->q = NULL;
    if (o->given) { /* attend quiz prints them once the terminal is back */
        *o->out = t;
        snprintf(o->out_err, o->out_errlen, "%s", serr);
        o->given = 0;
        return;
    }
    if (serr[0])
        app_msg(a, 1, "quiz results not saved: %s", serr);
    else
        app_msg(a, 0, "quiz: %d of %d right at the first try%s", t.right, t.asked,
                o->set.n_skipped ? " (some questions could not be built: attend check-lessons)"
                                 : "");
    quiz_set_free(&o->set);
}

int view_quiz_start(App *a, QuizSet *s, Progress *p, int scores, QuizTally *t, char *save_err,
                    size_t errlen)
{
    QuizOverlay *o = app_view_state(a, &VIEW_QUIZ);
    memset(t, 0, sizeof *t);
    snprintf(save_err, errlen, "%s", "");
    o->q = qv_new(s, p, scores);
    if (!o->q) {
        snprintf(save_err, errlen, "out of memory");
        return -1;
    }
    o->given = 1;
    o->out = t;
    o->out_err = save_err;
    o->out_errlen = errlen;
    return app_overlay_open(a, &VIEW_QUIZ, 1);
}

static void quiz_draw(App *a, Rect full)
{
    QuizOverlay *o = app_view_state(a, &VIEW_QUIZ);
    (void)full;
    if (o->q)
        draw(o->q);
}

/* Every key is the quiz's own: req is its row's in the quiz's mode (REQ_NONE: typed). */
static int quiz_key(App *a, Request req, int k)
{
    QuizOverlay *o = app_view_state(a, &VIEW_QUIZ);
    if (!o->q)
        return 0;
    key(o->q, req, k);
    if (o->q->quit)
        app_overlay_close(a);
    return 1;
}

static void quiz_key_state(const App *a, KeyState *s)
{
    const QuizOverlay *o = app_view_state((App *)a, &VIEW_QUIZ);
    if (o->q)
        s->mode = quiz_mode(o->q);
}

const ViewOps VIEW_QUIZ = {
    .name = "quiz", .keymap = KM_QUIZ, .overlay = 1, .screen = 1,
    .state_size = sizeof(QuizOverlay), .open = quiz_open, .close = quiz_close,
    .draw = quiz_draw, .key = quiz_key, .key_state = quiz_key_state,
    .opens = REQ_QUIZ,
};
