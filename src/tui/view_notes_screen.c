/* view_notes_screen.c - `attend notes` (VIEW_NOTES_SCREEN, a screen overlay on the one
 * loop): the speaker-notes screen for a second terminal. It follows the presenter's
 * published state (present_state.h), polling the file's mtime every 100 ms so a page change
 * shows within 300 ms, and shows the time since the presentation began; with no presenter it
 * says so and waits. q or Ctrl-C quits (KM_NOTES_SCREEN). */
#include <curses.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app_views.h"
#include "view_notes_screen.h"
#include "present_state.h"
#include "ui.h"

static void draw_state(const PresentState *s, int have, const char *dir)
{
    static char tr[8192];
    erase();
    attron(COLOR_PAIR(UI_HEADER) | A_BOLD);
    if (ui.color == UI_COLOR_NONE)
        attron(A_REVERSE);
    ui_fill(0, 0, COLS);
    if (!have) {
        ui_put(0, 1, COLS - 2, "attend notes");
        attrset(A_NORMAL);
        ui_putf(2, 1, COLS - 2, "No presenter is running. Waiting for attend present...");
        attron(A_DIM);
        ui_putf(3, 1, COLS - 2, "(watching %s; q quits)", dir);
        attrset(A_NORMAL);
        return;
    }
    long el = (long)time(NULL) - s->started;
    if (el < 0)
        el = 0;
    char right[40];
    snprintf(right, sizeof right, "%ld:%02ld:%02ld ", el / 3600, el / 60 % 60, el % 60);
    int rw = ui_width(right);
    ui_putf(0, 1, COLS - rw - 2, "lesson %d/%d: %s", s->lesson_no, s->n_lessons, s->lesson_title);
    ui_put(0, COLS - rw, rw, right);
    attrset(A_NORMAL);
    attron(A_BOLD);
    ui_putf(1, 1, COLS - 2, "page %d/%d: %s", s->page, s->n_pages, s->page_title);
    attrset(A_NORMAL);
    attron(COLOR_PAIR(UI_ACCENT));
    ui_putf(2, 1, COLS - 2, "space next: %s", s->next_title[0] ? s->next_title : "(the end)");
    attrset(A_NORMAL);
    int y = 4, bottom = LINES - 3;
    if (s->room[0]) { /* the room's screen: blank, frozen, the class quiz's countdown */
        attron(COLOR_PAIR(UI_WARN) | A_BOLD);
        ui_putf(3, 1, COLS - 2, "room: %s", s->room);
        attrset(A_NORMAL);
    }
    if (s->answer[0]) {
        attron(COLOR_PAIR(UI_WARN) | A_BOLD);
        ui_put(y++, 1, COLS - 2, strstr(s->room, "revealed") && !strstr(s->room, "not revealed")
                                     ? "answer (revealed to the room):"
                                     : "answer (not yet revealed):");
        attrset(A_NORMAL);
        ui_text(s->answer, tr, sizeof tr);
        y += ui_wrap_put(y, 1, COLS - 2, tr, bottom - y > 4 ? 4 : bottom - y) + 1;
    }
    ui_text(s->notes[0] ? s->notes : "(this page has no speaker notes)", tr, sizeof tr);
    if (bottom > y)
        ui_wrap_put(y, 1, COLS - 2, tr, bottom - y);
    attron(A_DIM);
    ui_put(LINES - 2, 1, COLS - 2, "keys the page invites:");
    attrset(A_NORMAL);
    ui_text(s->keys, tr, sizeof tr);
    ui_put(LINES - 1, 1, COLS - 2, tr);
}

/* ---- the view ---- */

typedef struct {
    int on;                  /* 1 while open */
    char dir[512];           /* the presenters' state directory */
    char session[64];        /* the one to follow; "" the most recent */
    char path[1024];         /* the state file followed ("" none yet) */
    int have;                /* 1: st holds a live presenter's state */
    time_t shown;            /* the second the clock last showed */
    PresentState st;
} NotesScreen;

static NotesScreen *ns(const App *a)
{
    return app_view_state((App *)a, &VIEW_NOTES_SCREEN);
}

int view_notes_screen_start(App *a, const char *dir, const char *session)
{
    NotesScreen *n = ns(a);
    memset(n, 0, sizeof *n);
    snprintf(n->dir, sizeof n->dir, "%s", dir);
    snprintf(n->session, sizeof n->session, "%s", session ? session : "");
    n->on = 1;
    return app_overlay_open(a, &VIEW_NOTES_SCREEN, 0);
}

/* The presenter to follow: found again while none is, when its file went or its process
 * ended, and (following the most recent) when another one wrote last; its state read again
 * when its file changed; the clock each second. 1 when the screen must be redrawn. */
static int notes_poll(App *a)
{
    NotesScreen *n = ns(a);
    const char *session = n->session[0] ? n->session : NULL;
    char newest[1024], err[600];
    struct stat sb;
    int dirty = 0;
    if (!n->on)
        return 0;
    int moved = !session && n->have &&
                present_state_find(n->dir, NULL, newest, sizeof newest) == 0 &&
                strcmp(newest, n->path) != 0;
    if (!n->have || moved || stat(n->path, &sb) || !present_state_live(&n->st)) {
        int was = n->have;
        n->have = present_state_find(n->dir, session, n->path, sizeof n->path) == 0 &&
                  !present_state_read(n->path, &n->st, err, sizeof err);
        dirty = was != n->have;
    } else {
        /* Read again at every poll, and redrawn when what it says changed. The file's mtime
         * and inode cannot tell: every publish renames a new file over it, so on ext4 its inode
         * alternates between two numbers, and two publishes within one tick of a coarse file
         * clock share an mtime; a third publish then looks like the first (CI: the notes never
         * showed a class quiz's answer). The file is a few KB, read ten times a second while
         * this screen is open; a read zeroes the whole state first, so memcmp compares text. */
        static PresentState t;
        if (present_state_read(n->path, &t, err, sizeof err)) {
            n->have = 0;
            dirty = 1;
        } else if (memcmp(&t, &n->st, sizeof t)) {
            n->st = t;
            dirty = 1;
        }
    }
    if (n->have && time(NULL) != n->shown) /* the clock */
        dirty = 1;
    return dirty;
}

static void notes_draw(App *a, Rect full)
{
    NotesScreen *n = ns(a);
    (void)full;
    draw_state(&n->st, n->have, n->dir);
    n->shown = time(NULL);
}

static int notes_key(App *a, Request r, int k)
{
    (void)k;
    if (r == REQ_CLOSE)
        app_overlay_close(a);
    return 1;
}

static void notes_close(App *a)
{
    ns(a)->on = 0;
}

const ViewOps VIEW_NOTES_SCREEN = {
    .name = "notes-screen", .keymap = KM_NOTES_SCREEN, .overlay = 1, .screen = 1,
    .state_size = sizeof(NotesScreen), .close = notes_close, .draw = notes_draw,
    .key = notes_key, .poll = notes_poll, .poll_ms = 100,
};
