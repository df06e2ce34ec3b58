/* notes_screen.c - `attend notes`: the speaker-notes screen for a second terminal. It
 * follows the presenter's published state (present_state.h), polling the file's mtime every
 * 100 ms so a page change shows within 300 ms, and shows the time since the presentation
 * began; with no presenter it says so and waits. q or Ctrl-C quits. */
#include <curses.h>
#include <locale.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "present_state.h"
#include "tui.h"
#include "ui.h"

static volatile sig_atomic_t notes_signal;

static void on_signal(int sig)
{
    notes_signal = sig;
}

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
        refresh();
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
    refresh();
}

int tui_notes_main(const char *session)
{
    char dir[512], err[600], path[1024] = "";
    setlocale(LC_ALL, "");
    if (present_state_dir(dir, sizeof dir, 0, err, sizeof err) &&
        present_state_dir(dir, sizeof dir, 1, err, sizeof err)) {
        fprintf(stderr, "attend notes: %s\n", err);
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    UiOpts uo;
    memset(&uo, 0, sizeof uo);
    if (ui_start(&uo, err, sizeof err)) {
        fprintf(stderr, "attend notes: %s\n", err);
        return 1;
    }
    timeout(100);
    static PresentState st;
    struct timespec seen = {0, 0};
    int have = 0, dirty = 1;
    time_t shown = 0;
    while (!notes_signal) {
        struct stat sb;
        /* the presenter to follow: found again while none is, when its file went or its
         * process ended, and (following the most recent) when another one wrote last */
        char newest[1024];
        int moved = !session && have &&
                    present_state_find(dir, NULL, newest, sizeof newest) == 0 &&
                    strcmp(newest, path) != 0;
        if (!have || moved || stat(path, &sb) || !present_state_live(&st)) {
            int was = have;
            have = present_state_find(dir, session, path, sizeof path) == 0 &&
                   !stat(path, &sb) && !present_state_read(path, &st, err, sizeof err);
            if (have) {
                seen = sb.st_mtim;
            }
            dirty |= was != have;
        } else if (sb.st_mtim.tv_sec != seen.tv_sec || sb.st_mtim.tv_nsec != seen.tv_nsec) {
            seen = sb.st_mtim;
            have = !present_state_read(path, &st, err, sizeof err);
            dirty = 1;
        }
        if (have && time(NULL) != shown) /* the clock */
            dirty = 1;
        if (dirty) {
            draw_state(&st, have, dir);
            shown = time(NULL);
            dirty = 0;
        }
        int k = ui_read_key();
        if (k == 'q' || k == KEY_CTRL('c'))
            break;
        if (k == KEY_RESIZE)
            dirty = 1;
    }
    ui_end();
    return 0;
}
