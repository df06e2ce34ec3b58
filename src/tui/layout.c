/* layout.c - the player's screen: header, message line, the prose and widget panes (side by
 * side from 120 columns, stacked below), the footer generated from the key table, the
 * "need 80x24" screen, and the open overlay on top. Draws from state; never recomputes. */
#include <curses.h>
#include <string.h>

#include "demo_play.h"
#include "layout.h"
#include "present.h"
#include "ui.h"

typedef struct {
    App *a;
    int y, x, w, top, row, rows;
} ProseCtx;

static void prose_line(const char *s, int len, void *vctx)
{
    ProseCtx *c = vctx;
    int r = c->row++;
    if (r < c->top || r >= c->top + c->rows)
        return;
    char line[1024];
    if (len >= (int)sizeof line)
        len = (int)sizeof line - 1;
    memcpy(line, s, (size_t)len);
    line[len] = '\0';
    int y = c->y + r - c->top, x = c->x;
    /* bad placeholders "[?...]" are highlighted in place */
    char *p = line;
    while (*p) {
        char *bad = strstr(p, PLACEHOLDER_BAD_OPEN);
        if (!bad) {
            x += ui_put(y, x, c->x + c->w - x, p);
            break;
        }
        *bad = '\0';
        x += ui_put(y, x, c->x + c->w - x, p);
        *bad = '[';
        char *end = strchr(bad, ']');
        char save = 0;
        if (end) {
            save = end[1];
            end[1] = '\0';
        }
        attron(COLOR_PAIR(UI_WARN) | A_BOLD);
        x += ui_put(y, x, c->x + c->w - x, bad);
        attroff(COLOR_PAIR(UI_WARN) | A_BOLD);
        if (!end)
            break;
        end[1] = save;
        p = end + 1;
    }
}

static void count_line(const char *s, int len, void *ctx)
{
    (void)s;
    (void)len;
    (void)ctx;
}

static int prose_height(App *a, int w)
{
    return ui_wrap(a->s->prose, w, count_line, NULL);
}

static void draw_prose(App *a, Rect r)
{
    const Page *p = app_page(a);
    if (!p || r.h < 1)
        return;
    attron(A_BOLD);
    ui_put(r.y, r.x, r.w, p->title);
    attroff(A_BOLD);
    Rect t = {r.y + 1, r.x, r.h - 1, r.w};
    if (t.h < 1)
        return;
    int cut = present_prose_cut(a);
    char keep = 0;
    if (cut >= 0) { /* R: the paragraphs revealed so far */
        keep = a->s->prose[cut];
        a->s->prose[cut] = '\0';
    }
    int total = prose_height(a, t.w);
    if (a->scr.prose_scroll > total - t.h)
        a->scr.prose_scroll = total - t.h;
    if (a->scr.prose_scroll < 0)
        a->scr.prose_scroll = 0;
    int more = total > t.h;
    a->scr.prose_cut = more;
    ProseCtx c = {a, t.y, t.x, t.w, a->scr.prose_scroll, 0, more ? t.h - 1 : t.h};
    if (more && a->scr.prose_scroll + c.rows >= total)
        c.rows = t.h; /* at the end: the last row shows text */
    ui_wrap(a->s->prose, t.w, prose_line, &c);
    if (cut >= 0)
        a->s->prose[cut] = keep;
    if (more && c.rows < t.h) {
        attron(A_DIM);
        ui_putf(t.y + t.h - 1, t.x, t.w, "%s more below: J scrolls down, K up (%d/%d)",
                ui.utf8 ? "▼" : "v", a->scr.prose_scroll + c.rows, total);
        attroff(A_DIM);
    } else if (more) {
        attron(A_DIM);
        ui_putf(t.y + t.h - 1, t.x + t.w - 12 > t.x ? t.x + t.w - 12 : t.x, 12, " K: scroll up");
        attroff(A_DIM);
    }
}

static void draw_header(App *a)
{
    char left[400] = " attend", right[64] = "";
    if (a->s->lesson >= 0 && a->s->lesson < a->s->course.n_lessons) {
        const Lesson *l = &a->s->course.lessons[a->s->lesson];
        snprintf(left, sizeof left, " attend %s lesson %d/%d: %s", ui.utf8 ? "│" : "|",
                 a->s->lesson + 1, a->s->course.n_lessons, l->title);
        snprintf(right, sizeof right, "page %d/%d ", a->s->page + 1, l->n_pages);
    }
    attron(COLOR_PAIR(UI_HEADER) | A_BOLD);
    if (ui.color == UI_COLOR_NONE)
        attron(A_REVERSE);
    ui_fill(0, 0, COLS);
    int rw = ui_width(right);
    ui_put(0, 0, COLS - rw - 1, left); /* a long title ends in "…" */
    ui_put(0, COLS - rw, rw, right);
    attrset(A_NORMAL);
}

/* Width of one "key label  " hint. */
static int hint_width(const char *h, const char **next)
{
    const char *sep = strchr(h, '\x1f'), *end = strchr(h, '\x1e');
    if (!sep || !end) {
        *next = NULL;
        return 0;
    }
    char tmp[200];
    snprintf(tmp, sizeof tmp, "%.*s %.*s  ", (int)(sep - h), h, (int)(end - sep - 1), sep + 1);
    *next = end + 1;
    return ui_width(tmp);
}

static int hints_width(const char *h)
{
    int w = 0;
    while (h && *h)
        w += hint_width(h, &h);
    return w;
}

/* Renders one hint at (y, x); returns the x reached. */
static int draw_hint(int y, int x, const char *h)
{
    const char *sep = strchr(h, '\x1f'), *end = strchr(h, '\x1e');
    char key[64], label[128];
    snprintf(key, sizeof key, "%.*s", (int)(sep - h), h);
    snprintf(label, sizeof label, "%.*s", (int)(end - sep - 1), sep + 1);
    attron(A_BOLD | COLOR_PAIR(UI_KEY));
    x += ui_put(y, x, COLS - x, key);
    attroff(A_BOLD | COLOR_PAIR(UI_KEY));
    attron(COLOR_PAIR(UI_FOOTER));
    x += ui_put(y, x, COLS - x, " ");
    x += ui_put(y, x, COLS - x, label);
    x += ui_put(y, x, COLS - x, "  ");
    return x;
}

/* Lays out the footer: the widget's hints wrap over as many rows as they need (never
 * dropped), the global hints go right-aligned on the last row. Returns the rows; draws them
 * when draw is 1. */
static int footer_layout(App *a, const ViewOps *vo, int cols, int with_z, int draw)
{
    char v[1024] = "", g[256] = "";
    KeyState ks;
    app_key_state(a, &ks);
    if (vo->overlay)
        keys_hints(&ks, vo->keymap, 0, v, sizeof v);
    else
        session_hints(a->s, &ks, v, sizeof v);
    if (!vo->overlay) /* a screen overlay's footer holds its own keys only */
        keys_global_hints(&ks, with_z, g, sizeof g);
    if (!v[0] && !g[0])
        return 0;
    int gw = hints_width(g);
    /* measure */
    int rows = 1, x = 1;
    for (const char *h = v, *nx; *h; h = nx) {
        int w = hint_width(h, &nx);
        if (!nx)
            break;
        if (x > 1 && x + w > cols) {
            rows++;
            x = 1;
        }
        x += w;
    }
    if (x > 1 && x + gw > cols)
        rows++;
    if (!draw)
        return rows;
    for (int i = 0; i < rows; i++) {
        attron(COLOR_PAIR(UI_FOOTER));
        if (ui.color == UI_COLOR_NONE)
            attron(A_REVERSE);
        ui_fill(LINES - 1 - i, 0, COLS);
    }
    int y = LINES - rows;
    x = 1;
    for (const char *h = v, *nx; *h; h = nx) {
        int w = hint_width(h, &nx);
        if (!nx)
            break;
        if (x > 1 && x + w > COLS) {
            y++;
            x = 1;
        }
        draw_hint(y, x, h);
        x += w;
    }
    x = COLS - gw > 0 ? COLS - gw : 0;
    for (const char *h = g, *nx; *h; h = nx) {
        int w = hint_width(h, &nx);
        if (!nx)
            break;
        draw_hint(LINES - 1, x, h);
        x += w;
    }
    attrset(A_NORMAL);
    return rows;
}

/* The presenter's quiet footer, one row that holds no data: the key echo badge on the
 * left (present.c sets it for about two seconds after each key), "? keys" on the right. */
static void draw_quiet_footer(App *a)
{
    int y = LINES - 1;
    char st[64], hint[96];
    if (present_caption(a)) { /* attend demo: the caption row above it, while its step's */
        attrset(A_BOLD);
        ui_put(y - 1, 1, COLS - 2, present_caption(a));
        attrset(A_NORMAL);
    }
    if (demo_status(a, st, sizeof st))
        snprintf(hint, sizeof hint, "%s  ? keys ", st);
    else
        snprintf(hint, sizeof hint, "? keys  q quit ");
    int hw = ui_width(hint);
    attrset(A_DIM);
    ui_put(y, COLS - hw, hw, hint);
    attrset(A_NORMAL);
    const char *e = present_echo(a);
    if (e) {
        char badge[240];
        snprintf(badge, sizeof badge, " %s ", e);
        attron(COLOR_PAIR(UI_CHIP_PICK) | A_BOLD);
        if (ui.color == UI_COLOR_NONE)
            attron(A_REVERSE);
        ui_put(y, 1, COLS - hw - 2, badge);
        attrset(A_NORMAL);
    }
}

static void draw_too_small(void)
{
    char l1[80], l2[80];
    snprintf(l1, sizeof l1, "need %d%s%d", APP_MIN_COLS, ui.utf8 ? "×" : "x", APP_MIN_LINES);
    snprintf(l2, sizeof l2, "now %d%s%d - enlarge the terminal (q quits)", COLS,
             ui.utf8 ? "×" : "x", LINES);
    int y = LINES / 2 - 1;
    attron(A_BOLD);
    ui_put(y < 0 ? 0 : y, 0, COLS, l1);
    attroff(A_BOLD);
    ui_put(y + 1 < LINES ? y + 1 : 0, 0, COLS, l2);
}

static void draw_message(App *a, int y)
{
    const char *m = a->msg[0] ? a->msg : a->warn;
    int warn = a->msg[0] ? a->msg_warn : 1;
    if (warn) {
        attron(COLOR_PAIR(UI_WARN) | A_BOLD);
        if (ui.color == UI_COLOR_NONE)
            attron(A_REVERSE);
        ui_fill(y, 0, COLS);
        ui_putf(y, 1, COLS - 2, "%s %s", ui_glyph(G_WARN), m);
    } else {
        attron(COLOR_PAIR(UI_ACCENT));
        ui_put(y, 1, COLS - 2, m);
    }
    attrset(A_NORMAL);
}

/* Draws the widget in r; a widget that needs more rows than r has and does not scroll by
 * itself gets its last row replaced by a sign saying so. */
static void draw_widget(App *a, const ViewOps *vo, Rect r)
{
    int need = vo->need ? vo->need(a, r.w) : 0;
    if (need > r.h) {
        a->scr.widget_cut = 1;
        if (!vo->self_scroll && r.h > 2) {
            Rect in = {r.y, r.x, r.h - 1, r.w};
            vo->draw(a, in);
            move(r.y + r.h - 1, 0);
            clrtoeol();
            attron(A_DIM);
            ui_putf(r.y + r.h - 1, r.x, r.w, "%s %d more row%s of the widget: z shows it whole",
                    ui.utf8 ? "▼" : "v", need - r.h + 1, need - r.h + 1 == 1 ? "" : "s");
            attroff(A_DIM);
            return;
        }
    }
    vo->draw(a, r);
}

/* The prose pane's lines (title excluded) at width w. */
static int prose_lines(App *a, Rect pr)
{
    return pr.h > 1 ? prose_height(a, pr.w) : 0;
}

void layout_plan(App *a, int cols, int lines, LayoutPlan *p)
{
    memset(p, 0, sizeof *p);
    p->msg_y = -1;
    if (cols < APP_MIN_COLS || lines < APP_MIN_LINES) {
        p->too_small = 1;
        return;
    }
    const ViewOps *vo = app_cur_view(a);
    int has_widget = p->has_widget = vo->kind != W_NONE;
    /* The one-line message after a key: in the stacked layout it takes the rule between prose
     * and widget, so it never displaces a widget row or a line of prose; elsewhere (prose-only
     * pages, side by side, z) it takes the line under the header. */
    int has_msg = a->msg[0] || a->warn[0];
    int stacked = p->stacked = has_widget && !a->scr.focus && cols < 120;
    int top = 1;
    if (has_msg && !stacked) {
        p->msg_y = 1;
        top = 2;
    }
    /* the presenter: one quiet row, and a demo's caption row above it */
    int fr = app_presenting(a) ? 1 + (present_caption(a) != NULL)
                               : footer_layout(a, app_cur_view(a), cols, has_widget, 0);
    p->footer_rows = fr;
    Rect body = {top, 1, lines - fr - top, cols - 2};
    if (!has_widget) {
        /* a prose-only page: one column at the reading measure, centred on wide screens */
        Rect pr = body;
        if (pr.w > APP_MEASURE) {
            pr.x = body.x + (body.w - APP_MEASURE) / 2;
            pr.w = APP_MEASURE;
        }
        p->prose = pr;
    } else if (a->scr.focus) {
        p->widget = body;
    } else if (cols >= 120) {
        int pw = cols * 2 / 5; /* at most 64 < APP_MEASURE: the pane is the measure */
        if (pw > 64)
            pw = 64;
        p->prose = (Rect){body.y, body.x, body.h, pw};
        p->widget = (Rect){body.y, body.x + pw + 3, body.h, body.w - pw - 3};
        p->rule_x = body.x + pw + 1;
    } else {
        /* Stacked: the prose gets the lines it needs up to ~45% of the body (more when the
         * widget needs less), the widget the rest; a widget given fewer rows than it needs
         * scrolls or compacts, and z shows it alone. */
        int need = vo->need ? vo->need(a, body.w) : body.h / 2;
        int mw = body.w < APP_MEASURE ? body.w : APP_MEASURE; /* left-aligned over the widget */
        int want = prose_height(a, mw) + 1;
        int cap = body.h * 45 / 100;
        int ph = body.h - 1 - need;
        if (ph < cap)
            ph = cap;
        if (ph > want)
            ph = want;
        if (ph > body.h - 1 - 6)
            ph = body.h - 1 - 6;
        if (ph < 2)
            ph = 2;
        p->prose = (Rect){body.y, body.x, ph, mw};
        p->widget = (Rect){body.y + ph + 1, body.x, body.h - ph - 1, body.w};
        p->rule_y = body.y + ph;
        if (has_msg)
            p->msg_y = p->rule_y;
    }
    if (p->prose.h > 0 && app_page(a)) {
        p->prose_total = prose_lines(a, p->prose);
        int shown = p->prose.h - 1;
        p->prose_over = p->prose_total > shown ? p->prose_total - (shown > 0 ? shown - 1 : 0) : 0;
    }
    if (p->widget.h > 0) {
        p->widget_need = vo->need ? vo->need(a, p->widget.w) : 0;
        if (p->widget_need > p->widget.h && !vo->self_scroll)
            p->widget_over = p->widget_need - p->widget.h + 1;
        if (vo->self_scroll && vo->hidden)
            p->widget_hidden = vo->hidden(a, p->widget.w, p->widget.h);
    }
}

void layout_draw(App *a)
{
    if (app_presenting(a) && a->present->frozen)
        return; /* F: the room keeps the last frame (the keys still work, unseen) */
    if (app_presenting(a) && a->present->blank) { /* B: nothing for the room */
        erase();
        refresh();
        return;
    }
    if (a->overlay && a->overlay->screen) { /* the quiz, attend notes: the whole screen */
        Rect full = {0, 0, LINES, COLS};
        a->overlay->draw(a, full);
        footer_layout(a, a->overlay, COLS, 0, 1); /* its keys in its mode (none: no footer) */
        refresh();
        return;
    }
    erase();
    LayoutPlan lp;
    layout_plan(a, COLS, LINES, &lp);
    if (lp.too_small) {
        draw_too_small();
        refresh();
        return;
    }
    draw_header(a);
    const ViewOps *vo = app_cur_view(a);
    int has_widget = lp.has_widget;
    if (lp.msg_y == 1)
        draw_message(a, 1);
    a->scr.prose_cut = a->scr.widget_cut = 0;
    if (lp.prose.h > 0)
        draw_prose(a, lp.prose);
    if (lp.rule_x) {
        attron(A_DIM);
        mvvline(lp.prose.y, lp.rule_x, ui.utf8 ? ACS_VLINE : '|', lp.prose.h);
        attroff(A_DIM);
    }
    if (lp.stacked) {
        if (lp.msg_y == lp.rule_y) {
            draw_message(a, lp.rule_y);
        } else {
            attron(A_DIM);
            for (int x = 0; x < lp.widget.w; x++)
                ui_put(lp.rule_y, lp.widget.x + x, 1, ui_glyph(G_HLINE));
            attroff(A_DIM);
        }
    }
    if (lp.widget.h > 0) {
        a->scr.wrect = lp.widget;
        draw_widget(a, vo, lp.widget);
    }
    if (app_presenting(a))
        draw_quiet_footer(a);
    else
        footer_layout(a, vo, COLS,
                      has_widget && (a->scr.focus || a->scr.prose_cut || a->scr.widget_cut), 1);
    if (a->overlay) {
        Rect full = {0, 0, LINES, COLS};
        a->overlay->draw(a, full);
    }
    refresh();
}
