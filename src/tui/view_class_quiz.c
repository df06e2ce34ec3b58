/* view_class_quiz.c - attend quiz --class (VIEW_CLASS_QUIZ, a screen overlay on the one
 * loop): one question at a time for a room, large, with a countdown; r reveals the engine's
 * answer and why, n moves on, q quits (keys: KM_CLASS_QUIZ). The answer is published with
 * the presenter's state (present_state.h) before it is revealed, so the teacher's
 * `attend notes` shows it. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app_views.h"
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
    char h[256] = "";
    KeyState ks;
    memset(&ks, 0, sizeof ks);
    ks.mode = KMODE_CLASS_ASK; /* the keys of a question not yet revealed, from the table */
    keys_hints(&ks, KM_CLASS_QUIZ, 0, h, sizeof h);
    keys_hints_text(h, st->keys, sizeof st->keys);
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
        right[0] = 0; /* no countdown without --time: no word for it either */
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

/* ---- the view ---- */

typedef struct {
    QuizSet *s;         /* NULL when closed */
    int time_s;         /* seconds per question (0: no countdown) */
    int i, revealed, shown;
    time_t qstart;      /* when question i was shown */
    long left, last_left; /* seconds left (-1: no countdown), when last published */
    int *shown_out;
    char dir[512];      /* where the state is published ("" nowhere) */
    PresentState st;
} ClassQuiz;

static ClassQuiz *cq(const App *a)
{
    return app_view_state((App *)a, &VIEW_CLASS_QUIZ);
}

int view_class_quiz_start(App *a, QuizSet *s, int time_s, int *shown)
{
    ClassQuiz *c = cq(a);
    char err[600];
    *shown = 0;
    if (s->n < 1) {
        app_msg(a, 1, "the class quiz has no questions");
        return -1;
    }
    memset(c, 0, sizeof *c);
    c->s = s;
    c->time_s = time_s;
    c->shown_out = shown;
    if (present_state_dir(c->dir, sizeof c->dir, 1, err, sizeof err))
        c->dir[0] = '\0';
    c->st.pid = (long)getpid();
    c->st.started = (long)time(NULL);
    snprintf(c->st.session, sizeof c->st.session, "%ld-%ld", c->st.pid, c->st.started);
    if (c->dir[0]) { /* a crash removes the published state too */
        char path[1200];
        snprintf(path, sizeof path, "%s/%s.state", c->dir, c->st.session);
        ui_crash_unlink(path);
    }
    c->qstart = time(NULL);
    c->last_left = -2;
    publish(s, 0, c->dir, &c->st);
    return app_overlay_open(a, &VIEW_CLASS_QUIZ, 0);
}

/* The countdown: the room's state is published, and the screen redrawn, each second. */
static int class_poll(App *a)
{
    ClassQuiz *c = cq(a);
    if (!c->s)
        return 0;
    long left = c->time_s > 0 ? c->time_s - (long)(time(NULL) - c->qstart) : -1;
    if (c->time_s > 0 && left < 0)
        left = 0;
    c->left = left;
    if (left == c->last_left)
        return 0;
    c->last_left = left;
    publish_room(&c->st, c->dir, left, c->revealed);
    return 1;
}

static void class_draw(App *a, Rect full)
{
    ClassQuiz *c = cq(a);
    (void)full;
    if (c->s)
        draw(c->s, c->i, c->revealed, c->left);
}

static int class_key(App *a, Request r, int k)
{
    ClassQuiz *c = cq(a);
    (void)k;
    if (!c->s)
        return 0;
    switch (r) {
    case REQ_CLOSE:
        app_overlay_close(a);
        break;
    case REQ_REVEAL:
        c->revealed = 1;
        c->shown++;
        publish_room(&c->st, c->dir, c->left, c->revealed);
        break;
    case REQ_STEP_NEXT:
        if (c->i + 1 >= c->s->n) {
            app_overlay_close(a);
            break;
        }
        c->i++;
        c->revealed = 0;
        c->qstart = time(NULL);
        c->last_left = -2;
        publish(c->s, c->i, c->dir, &c->st);
        break;
    default:
        break;
    }
    return 1;
}

static void class_close(App *a)
{
    ClassQuiz *c = cq(a);
    if (!c->s)
        return;
    if (c->dir[0])
        present_state_remove(c->dir, c->st.session);
    ui_crash_unlink(NULL);
    *c->shown_out = c->shown;
    c->s = NULL;
}

static void class_key_state(const App *a, KeyState *s)
{
    s->mode = cq(a)->revealed ? KMODE_CLASS_REVEALED : KMODE_CLASS_ASK;
}

const ViewOps VIEW_CLASS_QUIZ = {
    .name = "class-quiz", .keymap = KM_CLASS_QUIZ, .overlay = 1, .screen = 1,
    .state_size = sizeof(ClassQuiz), .close = class_close, .draw = class_draw,
    .key = class_key, .key_state = class_key_state, .poll = class_poll, .poll_ms = 200,
};
