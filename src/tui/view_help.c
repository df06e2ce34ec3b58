/* view_help.c - two overlays: `?` help listing every key (generated from the key table,
 * keys.c), and the speaker notes of a page (o). ESC closes them at once. */
#include <curses.h>
#include <string.h>

#include "app_views.h"
#include "ui.h"

static void overlay_box(int *y0, int *x0, int *h, int *w, int want_w, int want_h)
{
    *w = want_w < COLS - 4 ? want_w : COLS - 4;
    *h = want_h < LINES - 2 ? want_h : LINES - 2;
    *y0 = (LINES - *h) / 2;
    *x0 = (COLS - *w) / 2;
    attrset(A_NORMAL);
    for (int y = *y0; y < *y0 + *h; y++)
        ui_fill(y, *x0, *w);
}

typedef struct {
    int scroll; /* first help line shown */
} Help;

static int help_open(App *a, int arg)
{
    Help *h = app_view_state(a, &VIEW_HELP);
    (void)arg;
    h->scroll = 0;
    return 0;
}

static void help_draw(App *a, Rect full)
{
    Help *hs = app_view_state(a, &VIEW_HELP);
    const char *const *lines;
    /* the descriptions wrap to the box (never cut with …); the lines scroll when they do
     * not all fit (80x24 shows a screenful, ↑↓ or PgDn for the rest) */
    int tw = COLS - 8 < KEYS_HELP_WIDTH ? COLS - 8 : KEYS_HELP_WIDTH;
    int n_help = keys_help(tw, &lines);
    int y0, x0, h, w;
    (void)full;
    overlay_box(&y0, &x0, &h, &w, tw + 4, n_help + 2);
    ui_box(y0, x0, h, w, "keys (ESC closes)");
    int rows = h - 2;
    if (hs->scroll > n_help - rows)
        hs->scroll = n_help - rows;
    if (hs->scroll < 0)
        hs->scroll = 0;
    for (int i = 0; i < rows && hs->scroll + i < n_help; i++) {
        const char *s = lines[hs->scroll + i];
        if (s[0] == '#') {
            attron(A_BOLD | COLOR_PAIR(UI_ACCENT));
            ui_put(y0 + 1 + i, x0 + 2, w - 4, s + 1);
            attroff(A_BOLD | COLOR_PAIR(UI_ACCENT));
        } else {
            ui_put(y0 + 1 + i, x0 + 2, w - 4, s);
        }
    }
    if (n_help > rows) {
        attron(A_DIM);
        ui_putf(y0 + h - 1, x0 + w - 22, 20, " %s more (%d/%d) ", ui.utf8 ? "↑↓" : "j/k",
                hs->scroll + rows, n_help);
        attroff(A_DIM);
    }
}

static int help_key(App *a, Request req, int k)
{
    Help *h = app_view_state(a, &VIEW_HELP);
    (void)k;
    switch (req) {
    case REQ_SEL_UP:
        h->scroll--;
        break;
    case REQ_SEL_DOWN:
        h->scroll++;
        break;
    case REQ_SEL_PAGE_DOWN:
        h->scroll += 10;
        break;
    case REQ_SEL_PAGE_UP:
        h->scroll -= 10;
        break;
    default:
        app_overlay_close(a); /* ESC, q, ? and anything else close at once */
        break;
    }
    if (h->scroll < 0)
        h->scroll = 0;
    return 1;
}

const ViewOps VIEW_HELP = {
    .name = "help", .keymap = KM_HELP, .overlay = 1, .state_size = sizeof(Help),
    .open = help_open, .draw = help_draw, .key = help_key,
    .opens = REQ_HELP,
};

/* ---- speaker notes ---- */
typedef struct {
    int y, x, w, row, rows;
} NotesCtx;

static void notes_line(const char *s, int len, void *vctx)
{
    NotesCtx *c = vctx;
    char buf[512];
    if (c->row < c->rows) {
        snprintf(buf, sizeof buf, "%.*s", len, s);
        ui_put(c->y + c->row, c->x, c->w, buf);
    }
    c->row++;
}

static int notes_open(App *a, int arg)
{
    const Page *p = app_page(a);
    (void)arg;
    if (p && p->notes)
        return 0;
    app_msg(a, 0, "this page has no speaker notes");
    return -1;
}

static void notes_draw(App *a, Rect full)
{
    (void)full;
    const Lesson *l = &a->s->course.lessons[a->s->lesson];
    const Page *p = &l->pages[a->s->page];
    if (!p->notes)
        return;
    static char tr[8192];
    ui_text(p->notes, tr, sizeof tr);
    int y0, x0, h, w;
    overlay_box(&y0, &x0, &h, &w, 72, LINES - 6);
    ui_box(y0, x0, h, w, "speaker notes (ESC closes)");
    NotesCtx c = {y0 + 1, x0 + 2, w - 4, 0, h - 2};
    ui_wrap(tr, w - 4, notes_line, &c);
}

static int notes_key(App *a, Request req, int k)
{
    (void)k;
    if (req == REQ_CLOSE)
        app_overlay_close(a);
    return 1;
}

const ViewOps VIEW_NOTES = {
    .name = "notes", .keymap = KM_NOTES, .overlay = 1,
    .open = notes_open, .draw = notes_draw, .key = notes_key,
    .opens = REQ_NOTES,
};
