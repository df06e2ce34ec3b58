/* view_menu.c - the lesson menu overlay (g or Tab): every lesson with completion marks and pages
 * seen; broken lessons listed with their error and not openable. */
#include <curses.h>
#include <string.h>

#include "app_views.h"
#include "quiz.h"
#include "ui.h"

typedef struct {
    int sel; /* the highlighted lesson */
} Menu;

static int menu_open(App *a, int arg)
{
    Menu *m = app_view_state(a, &VIEW_MENU);
    (void)arg;
    m->sel = a->s->lesson;
    return 0;
}

#define MENU_MAX 256 /* rows the menu draws at once (a screen's height) */

/* The status column of lesson i: pages seen, the last quiz score, "(here)". */
static void menu_status(const App *a, int i, char *buf, size_t n)
{
    const Lesson *l = &a->s->course.lessons[i];
    int seen = a->s->prog_ok ? progress_count_seen(&a->s->prog, l->id) : 0;
    char qs[32] = ""; /* the last quiz score of the lesson (quiz.c) */
    int qr, qa;
    if (a->s->prog_ok && quiz_score(&a->s->prog, l->id, &qr, &qa) == 0)
        snprintf(qs, sizeof qs, " quiz %d/%d", qr, qa);
    snprintf(buf, n, "%d/%d seen%s%s", seen, l->n_pages, qs, i == a->s->lesson ? "  (here)" : "");
}

static void menu_draw(App *a, Rect full)
{
    Menu *m = app_view_state(a, &VIEW_MENU);
    const Course *c = &a->s->course;
    (void)full;
    int w = COLS - 8 < 76 ? COLS - 8 : 76;
    int h = c->n_lessons + 4;
    if (h > LINES - 2)
        h = LINES - 2;
    int y0 = (LINES - h) / 2, x0 = (COLS - w) / 2;
    attrset(A_NORMAL);
    for (int y = y0; y < y0 + h; y++)
        ui_fill(y, x0, w);
    ui_box(y0, x0, h, w, "lessons (enter opens, ESC closes)");
    int rows = h - 3;
    int top = m->sel - rows / 2;
    if (top > c->n_lessons - rows)
        top = c->n_lessons - rows;
    if (top < 0)
        top = 0;
    /* Three columns placed by display width (a title with "N²" or "–" is wider in bytes
     * than on screen): the number, the title (cut with … when long), the status. */
    char status[MENU_MAX][96];
    int stat_w = 0;
    for (int i = top; i < c->n_lessons && i < top + rows && i - top < MENU_MAX; i++) {
        menu_status(a, i, status[i - top], sizeof status[0]);
        int sw = ui_width(status[i - top]);
        if (sw > stat_w)
            stat_w = sw;
    }
    int num_w = 5, tx = x0 + 2 + num_w + 1;          /* "✓ 12." then a space */
    int title_w = (x0 + w - 2) - tx - 1 - stat_w;    /* a space before the status */
    if (title_w < 8)
        title_w = 8;
    for (int i = top; i < c->n_lessons && i < top + rows && i - top < MENU_MAX; i++) {
        const Lesson *l = &c->lessons[i];
        int y = y0 + 1 + i - top;
        int attr = l->broken ? (int)(COLOR_PAIR(UI_WARN)) : A_NORMAL;
        if (i == m->sel)
            attr |= A_REVERSE;
        attron(attr);
        ui_fill(y, x0 + 1, w - 2);
        if (l->broken) {
            ui_putf(y, x0 + 2, w - 4, "%s %2d. %s - broken: %s", ui_glyph(G_WARN), i + 1,
                    l->file, l->error);
        } else {
            int done = a->s->prog_ok && progress_completed(&a->s->prog, l->id);
            ui_putf(y, x0 + 2, num_w, "%s %2d.", done ? ui_glyph(G_CHECK) : " ", i + 1);
            ui_put(y, tx, title_w, l->title);
            ui_put(y, tx + title_w + 1, x0 + w - 2 - (tx + title_w + 1), status[i - top]);
        }
        attroff(attr);
    }
    attron(A_DIM);
    ui_putf(y0 + h - 2, x0 + 2, w - 4, "%s completed  %s broken (attend check-lessons)",
            ui_glyph(G_CHECK), ui_glyph(G_WARN));
    attroff(A_DIM);
}

static int menu_key(App *a, Request req, int k)
{
    Menu *m = app_view_state(a, &VIEW_MENU);
    int n = a->s->course.n_lessons;
    (void)k;
    if (n == 0) {
        app_overlay_close(a);
        return 1;
    }
    switch (req) {
    case REQ_SEL_UP:
        if (m->sel > 0)
            m->sel--;
        break;
    case REQ_SEL_DOWN:
        if (m->sel < n - 1)
            m->sel++;
        break;
    case REQ_SEL_FIRST:
        m->sel = 0;
        break;
    case REQ_SEL_LAST:
        m->sel = n - 1;
        break;
    case REQ_ACCEPT: {
        const Lesson *l = &a->s->course.lessons[m->sel];
        if (l->broken) {
            app_msg(a, 1, "%s is broken: %s", l->file, l->error);
            break;
        }
        int sel = m->sel;
        app_overlay_close(a);
        if (sel != a->s->lesson) { /* the course is whole again (session_open_lesson) */
            Change ch;
            session_open_lesson(a->s, sel, &ch);
            app_open_done(a, &ch);
        }
        break;
    }
    case REQ_CLOSE:
        app_overlay_close(a);
        break;
    default:
        break;
    }
    return 1;
}

const ViewOps VIEW_MENU = {
    .name = "lesson menu", .keymap = KM_MENU, .overlay = 1, .state_size = sizeof(Menu),
    .open = menu_open, .draw = menu_draw, .key = menu_key,
    .opens = REQ_LESSON_MENU,
};
