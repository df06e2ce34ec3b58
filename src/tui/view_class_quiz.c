/* view_class_quiz.c - attend quiz --class: one question at a time for a room, large, with a
 * countdown; r reveals the engine's answer and why, n moves on, q quits. The answer is
 * published with the presenter's state (present_state.h) before it is revealed, so the
 * teacher's `attend notes` shows it. */
#include <curses.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "present_state.h"
#include "ui.h"
#include "view_quiz.h"

static void publish(const QuizSet *s, int i, const char *dir, PresentState *st)
{
    const QuizItem *it = &s->items[i];
    char err[600];
    st->seq++;
    snprintf(st->lesson_id, sizeof st->lesson_id, "%s", it->lesson);
    snprintf(st->lesson_title, sizeof st->lesson_title, "class quiz: %s", s->title);
    st->lesson_no = 1;
    st->n_lessons = 1;
    st->page = i + 1;
    st->n_pages = s->n;
    snprintf(st->page_title, sizeof st->page_title, "question %d of %d", i + 1, s->n);
    snprintf(st->next_title, sizeof st->next_title, "%s",
             i + 1 < s->n ? "the next question" : "");
    snprintf(st->keys, sizeof st->keys, "r reveal  n next  q quit");
    snprintf(st->notes, sizeof st->notes, "%s", it->prompt);
    snprintf(st->answer, sizeof st->answer, "%s%s%s", it->answer, it->explain[0] ? " - " : "",
             it->explain);
    if (dir[0])
        present_state_write(dir, st, err, sizeof err);
}

static void draw(const QuizSet *s, int i, int revealed, long left)
{
    const QuizItem *it = &s->items[i];
    static char tr[4096];
    erase();
    attron(COLOR_PAIR(UI_HEADER) | A_BOLD);
    if (ui.color == UI_COLOR_NONE)
        attron(A_REVERSE);
    ui_fill(0, 0, COLS);
    char right[40];
    if (left >= 0)
        snprintf(right, sizeof right, "%ld:%02ld ", left / 60, left % 60);
    else
        snprintf(right, sizeof right, "time ");
    ui_putf(0, 1, COLS - 10, "class quiz: %s  question %d of %d", s->title, i + 1, s->n);
    ui_put(0, COLS - ui_width(right), ui_width(right), right);
    attrset(A_NORMAL);
    int w = COLS - 8, y = 3;
    attron(A_BOLD);
    ui_text(it->prompt, tr, sizeof tr);
    y += ui_wrap_put(y, 4, w, tr, LINES / 2) + 1;
    attrset(A_NORMAL);
    for (int c = 0; c < it->n_choices && y < LINES - 6; c++) {
        int right_c = revealed && (it->correct >> c & 1);
        if (right_c)
            attron(A_BOLD | A_REVERSE);
        ui_putf(y++, 6, w - 2, "%c) %s%s", 'a' + c, it->choices[c],
                right_c ? (ui.utf8 ? "  ✓" : "  *") : "");
        attrset(A_NORMAL);
    }
    y++;
    if (revealed && y < LINES - 2) {
        attron(COLOR_PAIR(UI_ACCENT) | A_BOLD);
        ui_putf(y++, 4, w, "answer: %s", it->answer);
        attrset(A_NORMAL);
        ui_text(it->explain, tr, sizeof tr);
        if (y < LINES - 2)
            ui_wrap_put(y, 4, w, tr, LINES - 2 - y);
    }
    attron(A_DIM);
    ui_put(LINES - 1, 1, COLS - 2, revealed ? "n next question  q quit" : "r reveal the answer  n next  q quit");
    attrset(A_NORMAL);
    refresh();
}

int view_class_quiz_run(QuizSet *s, int time_s, const volatile sig_atomic_t *stop)
{
    char dir[512] = "", err[600];
    static PresentState st;
    memset(&st, 0, sizeof st);
    if (present_state_dir(dir, sizeof dir, 1, err, sizeof err))
        dir[0] = '\0';
    st.pid = (long)getpid();
    st.started = (long)time(NULL);
    snprintf(st.session, sizeof st.session, "%ld-%ld", st.pid, st.started);
    if (dir[0]) { /* a crash removes the published state too */
        char path[1200];
        snprintf(path, sizeof path, "%s/%s.state", dir, st.session);
        ui_crash_unlink(path);
    }
    int i = 0, revealed = 0, shown = 0;
    time_t qstart = time(NULL);
    long last_left = -2;
    timeout(200);
    publish(s, i, dir, &st);
    int dirty = 1;
    while (!*stop && i < s->n) {
        long left = time_s > 0 ? time_s - (long)(time(NULL) - qstart) : -1;
        if (time_s > 0 && left < 0)
            left = 0;
        if (left != last_left)
            dirty = 1;
        if (dirty) {
            draw(s, i, revealed, left);
            last_left = left;
            dirty = 0;
        }
        int k = ui_read_key();
        if (k < 0)
            continue;
        dirty = 1;
        if (k == 'q' || k == KEY_CTRL('c'))
            break;
        if (k == 'r' && !revealed) {
            revealed = 1;
            shown++;
        } else if (k == 'n' || k == ' ') {
            if (i + 1 >= s->n)
                break;
            i++;
            revealed = 0;
            qstart = time(NULL);
            publish(s, i, dir, &st);
        }
    }
    if (dir[0])
        present_state_remove(dir, st.session);
    ui_crash_unlink(NULL);
    return shown;
}
