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

/* The revealed answer as the room reads it: a choice question's letters with their text
 * ("b) Exactly one"), else the engine's answer. */
static void room_answer(const QuizItem *it, char *out, size_t n)
{
    if (!it->n_choices) {
        snprintf(out, n, "%s", it->answer);
        return;
    }
    size_t o = 0;
    out[0] = '\0';
    for (int c = 0; c < it->n_choices && o + 1 < n; c++)
        if (it->correct >> c & 1)
            o += (size_t)snprintf(out + o, n - o, "%s%c) %s", o ? "; " : "", 'a' + c,
                                  it->choices[c]);
}

/* The question for the room: the prompt, the setup the engine answered on (sentence, mask,
 * layer and head), a cell question's weights, the choices whole (wrapped, never cut), and
 * once revealed the answer by letter and why. At 0:00 the header and a line say the time is
 * up. */
static void draw(const QuizSet *s, int i, int revealed, long left)
{
    const QuizItem *it = &s->items[i];
    static char tr[4096];
    char line[1400];
    erase();
    attron(COLOR_PAIR(UI_HEADER) | A_BOLD);
    if (ui.color == UI_COLOR_NONE)
        attron(A_REVERSE);
    ui_fill(0, 0, COLS);
    char right[40];
    if (left > 0)
        snprintf(right, sizeof right, "%ld:%02ld ", left / 60, left % 60);
    else if (left == 0)
        snprintf(right, sizeof right, "0:00 time is up ");
    else
        snprintf(right, sizeof right, "time ");
    ui_putf(0, 1, COLS - ui_width(right) - 2, "class quiz: %s  question %d of %d", s->title,
            i + 1, s->n);
    ui_put(0, COLS - ui_width(right), ui_width(right), right);
    attrset(A_NORMAL);
    int w = COLS - 6, y = 2, bottom = LINES - 2;
    if (left == 0 && !revealed) {
        attron(COLOR_PAIR(UI_WARN) | A_BOLD);
        ui_put(y++, 3, w, "Time is up: pens down.");
        attrset(A_NORMAL);
    }
    attron(A_BOLD);
    ui_text(it->prompt, tr, sizeof tr);
    y += ui_wrap_put(y, 3, w, tr, bottom - y) + 1;
    attrset(A_NORMAL);
    if (it->context[0] && y < bottom) {
        snprintf(line, sizeof line, "Setup: %s", it->context);
        ui_text(line, tr, sizeof tr);
        attron(COLOR_PAIR(UI_ACCENT));
        y += ui_wrap_put(y, 3, w, tr, bottom - y > 3 ? 3 : bottom - y) + 1;
        attrset(A_NORMAL);
    }
    if (it->grid_n && y < bottom)
        y = view_quiz_draw_grid(it, y, 3, w, bottom, -1, revealed ? 3 : 1) + 1;
    for (int c = 0; c < it->n_choices && y < bottom; c++) {
        int right_c = revealed && (it->correct >> c & 1);
        if (right_c)
            attron(A_BOLD | COLOR_PAIR(UI_ACCENT));
        snprintf(line, sizeof line, "%c) %s%s", 'a' + c, it->choices[c],
                 right_c ? (ui.utf8 ? "  ✓" : "  [ok]") : "");
        ui_text(line, tr, sizeof tr);
        y += ui_wrap_put(y, 5, w - 2, tr, bottom - y);
        attrset(A_NORMAL);
    }
    y++;
    if (revealed && y < bottom) {
        char ans[1400];
        room_answer(it, ans, sizeof ans);
        snprintf(line, sizeof line, "Answer: %s", ans);
        ui_text(line, tr, sizeof tr);
        attron(COLOR_PAIR(UI_ACCENT) | A_BOLD);
        y += ui_wrap_put(y, 3, w, tr, bottom - y);
        attrset(A_NORMAL);
        ui_text(it->explain, tr, sizeof tr);
        if (y < bottom)
            ui_wrap_put(y, 3, w, tr, bottom - y);
    }
    attron(A_DIM);
    ui_put(LINES - 1, 1, COLS - 2, revealed ? "n next question  q quit" : "r reveal the answer  n next  q quit");
    attrset(A_NORMAL);
    refresh();
}

/* The room's state for attend notes: the countdown and whether the answer is out. */
static void publish_room(PresentState *st, const char *dir, long left, int revealed)
{
    char err[600];
    if (left > 0)
        snprintf(st->room, sizeof st->room, "%ld:%02ld left; answer %s", left / 60, left % 60,
                 revealed ? "revealed" : "not revealed");
    else
        snprintf(st->room, sizeof st->room, "%sanswer %s", left == 0 ? "time is up; " : "",
                 revealed ? "revealed" : "not revealed");
    st->seq++;
    if (dir[0])
        present_state_write(dir, st, err, sizeof err);
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
        if (left != last_left) {
            dirty = 1;
            publish_room(&st, dir, left, revealed);
        }
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
            publish_room(&st, dir, left, revealed);
        } else if (k == 'n' || k == ' ') {
            if (i + 1 >= s->n)
                break;
            i++;
            revealed = 0;
            qstart = time(NULL);
            last_left = -2;
            publish(s, i, dir, &st);
        }
    }
    if (dir[0])
        present_state_remove(dir, st.session);
    ui_crash_unlink(NULL);
    return shown;
}
