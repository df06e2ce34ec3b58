/* app_key.c - one key through the player: the key table (keys.h) gives its request, sent to
 * the open overlay (every key is its own), else the page's view (its viewport, its overlays),
 * then the Session (session_request: the one rule both front ends share; its Change worded
 * by app_words.c), then the global requests here (paging, scrolling, focus, overlays by the
 * request they register for, export, quitting). A mouse click goes to the view's click hook. */
#include <curses.h>

#include "app_export.h"
#include "app_key.h"
#include "ui.h"

/* The request k is bound to in keymap km, given the player's state now. */
static Request lookup(const App *a, Keymap km, int k)
{
    KeyState ks;
    app_key_state(a, &ks);
    return keys_lookup(&ks, km, k);
}


Request app_key_route(const App *a, int k, Keymap *km)
{
    KeyState ks;
    app_key_state(a, &ks);
    Keymap c[3];
    int n = a->overlay ? 1 : session_keymaps(a->s, c); /* the widget's, controls', global */
    if (a->overlay)
        c[0] = a->overlay->keymap;
    Request r = REQ_NONE;
    for (int i = 0; i < n && r == REQ_NONE; i++)
        r = keys_lookup(&ks, *km = c[i], k);
    return r;
}

/* A click goes to the page view's click hook, with the rect the widget was drawn in. */
static void mouse_key(App *a)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return;
    if (!(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
        return;
    const ViewOps *vo = app_cur_view(a);
    if (!a->overlay && vo->click)
        vo->click(a, a->scr.wrect, ev.y, ev.x);
}

/* The global requests: paging, prose scrolling, focus, the overlays, quitting. */
static void global_request(App *a, Request req)
{
    switch (req) {
    case REQ_QUIT:
    case REQ_QUIT_NOW:
        a->quit = 1;
        break;
    case REQ_HELP:        /* the overlays, each registered for the request that opens it: */
    case REQ_LESSON_MENU: /* help, the lesson menu, the lesson's quiz, the speaker notes, */
    case REQ_QUIZ:        /* the go-to-page prompt */
    case REQ_NOTES:
    case REQ_GOTO_PAGE:
        app_overlay_request(a, req, 0);
        break;
    case REQ_NEXT_PAGE:
        app_turn(a, 1);
        break;
    case REQ_PREV_PAGE:
        app_turn(a, -1);
        break;
    case REQ_PROSE_DOWN:
        a->scr.prose_scroll++;
        break;
    case REQ_PROSE_UP:
        if (a->scr.prose_scroll > 0)
            a->scr.prose_scroll--;
        break;
    case REQ_FOCUS:
        if (app_cur_view(a)->kind == W_NONE) {
            app_msg(a, 0, "this page has no widget to focus on");
            break;
        }
        a->scr.focus = !a->scr.focus;
        app_msg(a, 0, a->scr.focus ? "widget focus: z brings the prose back"
                                   : "prose and widget");
        break;
    case REQ_EXPORT: /* the widget as a figure (app_export.c) */
        app_export(a);
        break;
    case REQ_CANCEL:
        break;
    default:
        app_msg(a, 0, "key not used on this page - ? lists every key");
        break;
    }
}

/* A key goes to the open overlay (every key is its own); else to the page's view, then the
 * shared controls (widget pages), then the global keys: the first that uses it. */
void app_key(App *a, int k)
{
    if (k == KEY_RESIZE)
        return;
    a->msg[0] = '\0';
    if (a->overlay && a->overlay->screen) {
        a->overlay->key(a, lookup(a, a->overlay->keymap, k), k);
        return;
    }
    Request g = lookup(a, KM_GLOBAL, k);
    if (g == REQ_QUIT_NOW) {
        a->quit = 1;
        return;
    }
    if (ui.started && (COLS < APP_MIN_COLS || LINES < APP_MIN_LINES)) {
        if (g == REQ_QUIT)
            a->quit = 1;
        return;
    }
    if (a->overlay) {
        a->overlay->key(a, lookup(a, a->overlay->keymap, k), k);
        return;
    }
    if (k == KEY_MOUSE) {
        mouse_key(a);
        return;
    }
    const ViewOps *vo = app_cur_view(a);
    Keymap km[3];
    int n = session_keymaps(a->s, km); /* the widget kind's, the controls', the global */
    for (int i = 0; i + 1 < n; i++) { /* the widget's keys, then the shared controls */
        Request r = lookup(a, km[i], k);
        if (r == REQ_NONE)
            continue;
        if (i == 0 && vo->key && vo->key(a, r, k)) /* the view's own: viewport, overlays */
            return;
        if (app_request(a, r, NULL))
            return;
        if (r == REQ_EDIT || r == REQ_EDIT_DECODER) { /* the Session takes the typed text */
            app_overlay_request(a, REQ_EDIT, r == REQ_EDIT_DECODER &&
                                                 a->s->model->cfg.arch == ARCH_ENCDEC);
            return;
        }
    }
    global_request(a, g);
}
