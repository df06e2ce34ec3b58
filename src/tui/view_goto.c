/* view_goto.c - the go-to-page prompt (G, in the player and the presenter): a one-line box
 * where the learner or teacher types a page number or lesson-id:number; enter goes there
 * (present_goto), ESC cancels. */
#include <curses.h>
#include <string.h>

#include "app_views.h"
#include "present.h"
#include "ui.h"

typedef struct {
    char buf[80]; /* what was typed */
} Goto;

static int goto_open(App *a, int arg)
{
    Goto *g = app_view_state(a, &VIEW_GOTO);
    (void)arg;
    g->buf[0] = '\0';
    return 0;
}

static void goto_draw(App *a, Rect full)
{
    Goto *g = app_view_state(a, &VIEW_GOTO);
    int w = 56 < full.w - 4 ? 56 : full.w - 4, y = full.h / 2 - 2, x = (full.w - w) / 2;
    attrset(A_NORMAL);
    for (int i = 0; i < 4; i++)
        ui_fill(y + i, x, w);
    ui_box(y, x, 4, w, "go to page (enter; ESC cancels)");
    ui_putf(y + 1, x + 2, w - 4, "page: %s_", g->buf);
    attron(A_DIM);
    ui_put(y + 2, x + 2, w - 4, "N in this lesson, or lesson-id:N");
    attroff(A_DIM);
}

static int goto_key(App *a, Request req, int k)
{
    Goto *g = app_view_state(a, &VIEW_GOTO);
    char err[300];
    size_t l = strlen(g->buf);
    switch (req) {
    case REQ_CLOSE:
        app_overlay_close(a);
        break;
    case REQ_EDIT_ERASE:
        if (l)
            g->buf[l - 1] = '\0';
        break;
    case REQ_ACCEPT:
        app_overlay_close(a);
        if (present_goto(a, g->buf, err, sizeof err))
            app_msg(a, 1, "%s", err);
        break;
    default:
        if (k > 32 && k < 127 && l + 1 < sizeof g->buf) {
            g->buf[l] = (char)k;
            g->buf[l + 1] = '\0';
        }
        break;
    }
    return 1;
}

const ViewOps VIEW_GOTO = {
    .name = "go-to-page", .keymap = KM_GOTO, .overlay = 1, .state_size = sizeof(Goto),
    .open = goto_open, .draw = goto_draw, .key = goto_key,
    .opens = REQ_GOTO_PAGE,
};
