/* view_goto.c - the presenter's go-to-page prompt (G): a one-line box where the teacher
 * types a page number or lesson-id:number; enter goes there, ESC cancels. */
#include <curses.h>
#include <string.h>

#include "present.h"
#include "ui.h"

static void goto_draw(App *a, Rect full)
{
    Present *p = a->present;
    int w = 56 < full.w - 4 ? 56 : full.w - 4, y = full.h / 2 - 2, x = (full.w - w) / 2;
    attrset(A_NORMAL);
    for (int i = 0; i < 4; i++)
        ui_fill(y + i, x, w);
    ui_box(y, x, 4, w, "go to page (enter; ESC cancels)");
    ui_putf(y + 1, x + 2, w - 4, "page: %s_", p ? p->goto_buf : "");
    attron(A_DIM);
    ui_put(y + 2, x + 2, w - 4, "N in this lesson, or lesson-id:N");
    attroff(A_DIM);
}

static int goto_key(App *a, Request req, int k)
{
    Present *p = a->present;
    char err[300];
    if (!p)
        return 1;
    size_t l = strlen(p->goto_buf);
    switch (req) {
    case REQ_CLOSE:
        app_overlay_close(a);
        break;
    case REQ_EDIT_ERASE:
        if (l)
            p->goto_buf[l - 1] = '\0';
        break;
    case REQ_ACCEPT:
        app_overlay_close(a);
        if (present_goto(a, p->goto_buf, err, sizeof err))
            app_msg(a, 1, "%s", err);
        break;
    default:
        if (k > 32 && k < 127 && l + 1 < sizeof p->goto_buf) {
            p->goto_buf[l] = (char)k;
            p->goto_buf[l + 1] = '\0';
        }
        break;
    }
    return 1;
}

const ViewOps VIEW_GOTO = {
    .name = "go-to-page", .keymap = KM_GOTO, .overlay = 1, .draw = goto_draw, .key = goto_key,
};
