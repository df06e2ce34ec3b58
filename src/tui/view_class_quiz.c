/* view_class_quiz.c - attend quiz --class and attend class serve (VIEW_CLASS_QUIZ, a screen
 * overlay on the one loop): one question at a time for a room, large, with a countdown; r
 * reveals the engine's answer and why, n moves on, q quits (keys: KM_CLASS_QUIZ). The answer
 * is published with the presenter's state (present_state.h) before it is revealed, so the
 * teacher's `attend notes` shows it. With a room of students (o, or attend class serve:
 * class_net.h) the screen shows the room code and how to join, how many answered, r closes
 * the answers and shows their distribution, r again reveals; the scores at the end. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app_views.h"
#include "class_net.h"
#include "tui.h"
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

/* ---- the view's state ---- */

typedef struct {
    QuizSet *s;         /* NULL when closed */
    int time_s;         /* seconds per question (0: no countdown) */
    int i, revealed, shown;
    time_t qstart;      /* when question i was shown */
    long left, last_left; /* seconds left (-1: no countdown), when last published */
    int *shown_out;
    char dir[512];      /* where the state is published ("" nowhere) */
    PresentState st;
    /* the students' room (attend class serve, o) */
    TuiClassRoom *room; /* the caller's options and report (NULL: o opens one on defaults) */
    TuiClassRoom own;   /* the options o uses without a caller's */
    ClassServer *srv;   /* NULL: no room */
    char join[160];     /* "attend class join HOST CODE" */
    long seen_events;
    int last_answered;
} ClassQuiz;

/* The per-choice bars packed in rows ("a) ███ 3   b) █ 1 ✓   c) 0"): bars of at most 8 cells,
 * the counts and the right choice's mark always whole, a choice never split across rows.
 * Drawn from row y at column x (draw 0: only counted); returns the rows used. */
static int packed_bars(const QuizItem *it, const ClassTally *t, int revealed, int y, int x,
                       int w, int draw)
{
    int max = 1, rows = 0, used = 0;
    for (int c = 0; c < it->n_choices; c++)
        max = t->choice[c] > max ? t->choice[c] : max;
    char line[600] = "";
    for (int c = 0; c < it->n_choices; c++) {
        char item[120];
        int bar = t->choice[c] * 8 / max, o;
        o = snprintf(item, sizeof item, "%c) ", 'a' + c);
        for (int k = 0; k < bar; k++)
            o += snprintf(item + o, sizeof item - (size_t)o, "%s", ui.utf8 ? "█" : "#");
        snprintf(item + o, sizeof item - (size_t)o, "%s%d%s", bar ? " " : "", t->choice[c],
                 revealed && (it->correct >> c & 1) ? (ui.utf8 ? " ✓" : " [ok]") : "");
        int iw = ui_width(item);
        if (used && used + 3 + iw > w) { /* the next row */
            if (draw)
                ui_put(y + rows, x, w, line);
            rows++;
            line[0] = '\0';
            used = 0;
        }
        size_t l = strlen(line);
        snprintf(line + l, sizeof line - l, "%s%s", used ? "   " : "", item);
        used += (used ? 3 : 0) + iw;
    }
    if (used) {
        if (draw)
            ui_put(y + rows, x, w, line);
        rows++;
    }
    return rows;
}

/* The room's counts on the projector: how many answered; once the answers are closed, the
 * distribution (a bar per choice, or packed in fewer rows when the rows below bottom are too
 * few for a row each; or right / wrong and the most given answers). Returns the next row. */
static int draw_tally(const QuizItem *it, ClassRoom *r, int y, int w, int bottom)
{
    ClassTally t;
    char line[400];
    class_room_tally(r, &t);
    ClassPhase ph = class_room_phase(r);
    attron(A_BOLD);
    ui_putf(y++, 3, w, "answered %d of %d student%s (%d connected)", t.answered, t.students,
            t.students == 1 ? "" : "s", t.connected);
    attrset(A_NORMAL);
    if (ph == CLASS_ASKING)
        return y;
    if (it->n_choices) {
        int max = 1;
        for (int c = 0; c < it->n_choices; c++)
            max = t.choice[c] > max ? t.choice[c] : max;
        if (bottom - y < it->n_choices) /* too few rows for a bar each: packed */
            return y + packed_bars(it, &t, ph == CLASS_REVEALED, y, 5, w - 2, 1);
        for (int c = 0; c < it->n_choices && y < bottom; c++) {
            int bar = t.choice[c] * 30 / max, o = 0;
            o += snprintf(line + o, sizeof line - (size_t)o, "%c) ", 'a' + c);
            for (int k = 0; k < bar && o < (int)sizeof line - 8; k++)
                o += snprintf(line + o, sizeof line - (size_t)o, "%s", ui.utf8 ? "█" : "#");
            snprintf(line + o, sizeof line - (size_t)o, "%s%d%s", bar ? " " : "", t.choice[c],
                     ph == CLASS_REVEALED && (it->correct >> c & 1) ? (ui.utf8 ? " ✓" : " [ok]")
                                                                    : "");
            ui_put(y++, 5, w - 2, line);
        }
        return y;
    }
    int o = snprintf(line, sizeof line, "right %d, wrong %d", t.right, t.wrong);
    for (int k = 0; k < t.n_top; k++)
        o += snprintf(line + o, sizeof line - (size_t)o, "%s\"%s\" %d", k ? ", " : "; most given: ",
                      t.top[k], t.top_n[k]);
    char tr[800];
    ui_text(line, tr, sizeof tr);
    if (y < bottom)
        ui_put(y++, 5, w - 2, tr);
    return y;
}

/* The scores so far: how many students have each score (anonymous), or with names on, the
 * best few by name. */
static int draw_scores(ClassRoom *r, int y, int w, int bottom, int full)
{
    int counts[CLASS_MAX_QUESTIONS + 1];
    int n = class_room_score_counts(r, counts, CLASS_MAX_QUESTIONS + 1), o;
    char line[600];
    class_room_scores_text(r, line, sizeof line);
    if (y < bottom)
        y += ui_wrap_put(y, 3, w, line, bottom - y);
    if (!class_room_names(r))
        return y;
    int shown = 0, want = full ? bottom - y : 1;
    for (int k = n; k >= 0 && shown < want; k--) {
        o = snprintf(line, sizeof line, "%d: ", k);
        int any = 0;
        for (int i = 0; i < class_room_n_students(r) && o < (int)sizeof line - 50; i++) {
            const ClassStudent *st = class_room_student(r, i);
            if (st->score == k) {
                o += snprintf(line + o, sizeof line - (size_t)o, "%s%s", any ? ", " : "", st->name);
                any = 1;
            }
        }
        if (!any)
            continue;
        char tr[1200];
        ui_text(line, tr, sizeof tr);
        ui_put(y++, 5, w - 2, tr);
        shown++;
    }
    return y;
}

/* The rows a question's screen keeps below the question, so that nothing a teacher needs
 * scrolls away: the room's count, its distribution (a row per choice, or packed in fewer rows
 * when the rows are short), the answer and its explanation whole, the scores; the blank rows
 * between them go first when rows are short. The question (its grid first) gets the rest. */
typedef struct {
    int ans_h, why_h, dist_h, score_h, gap, gap_s, keep;
    char ansline[1500];  /* "Answer: ..." as shown */
} Rows;

static void plan_rows(const QuizItem *it, ClassRoom *room, int revealed, int y, int w,
                      int bottom, Rows *L)
{
    static char tr[4096];
    char line[1800], ans[1400];
    ClassPhase ph = room ? class_room_phase(room) : CLASS_ASKING;
    int ans_h = 0, why_h = 0;
    L->ansline[0] = '\0';
    if (revealed) {
        class_room_answer_text(it, ans, sizeof ans);
        snprintf(line, sizeof line, "Answer: %s", ans);
        ui_text(line, L->ansline, sizeof L->ansline);
        ans_h = ui_wrap_lines(L->ansline, w, 4);
        ui_text(it->explain, tr, sizeof tr);
        why_h = it->explain[0] ? ui_wrap_lines(tr, w, 6) : 0;
    }
    int dist_full = room && ph != CLASS_ASKING ? (it->n_choices ? it->n_choices : 1) : 0;
    int dist_min = dist_full;
    if (dist_full > 1) {
        ClassTally t;
        class_room_tally(room, &t);
        dist_min = packed_bars(it, &t, ph == CLASS_REVEALED, 0, 0, w - 2, 0);
    }
    int score_h = room && revealed ? 1 + (class_room_names(room) ? 1 : 0) : 0;
    int below = (room ? 1 : 0) + (revealed ? 1 + ans_h + why_h : 0) + (score_h ? 1 + score_h : 0);
    int q_h = 1 + ui_wrap_lines(ui_text(it->prompt, tr, sizeof tr), w, 8) + 1 +
              (it->context[0] ? 3 : 0) + (it->grid_n ? it->grid_n + 2 : 0);
    for (int c = 0; c < it->n_choices; c++) {
        snprintf(line, sizeof line, "%c) %s  [ok]", 'a' + c, it->choices[c]);
        q_h += ui_wrap_lines(ui_text(line, tr, sizeof tr), w - 2, 4);
    }
    int dist_h = y + q_h + below + dist_full <= bottom ? dist_full : dist_min;
    /* short of rows: no blank row above the scores, then none after the counts */
    int gap_s = score_h && y + q_h + below + dist_h > bottom ? 0 : 1;
    below -= score_h && !gap_s ? 1 : 0;
    int gap = room && revealed && y + q_h + below + dist_h > bottom ? 0 : 1;
    below -= room && revealed && !gap ? 1 : 0;
    L->ans_h = ans_h, L->why_h = why_h, L->dist_h = dist_h, L->score_h = score_h;
    L->gap = gap, L->gap_s = gap_s;
    L->keep = below + dist_h + 1; /* and the blank row below the question */
}

/* The question for the room: the prompt, the setup the engine answered on (sentence, mask,
 * layer and head), a cell question's weights, the choices whole (wrapped, never cut), with a
 * room the counts, and once revealed the answer by letter and why. At 0:00 the header and a
 * line say the time is up. */
static void draw(const ClassQuiz *cqz, long left)
{
    const QuizSet *s = cqz->s;
    int i = cqz->i, revealed = cqz->revealed;
    ClassRoom *room = cqz->srv ? class_server_room(cqz->srv) : NULL;
    const QuizItem *it = &s->items[i];
    static char tr[4096];
    char line[1800];
    erase();
    attron(COLOR_PAIR(UI_HEADER) | A_BOLD);
    if (ui.color == UI_COLOR_NONE)
        attron(A_REVERSE);
    ui_fill(0, 0, COLS);
    char right[40];
    if (revealed || (room && class_room_phase(room) != CLASS_ASKING))
        left = -1; /* the answers are closed: the countdown is over */
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
    if (room) { /* how to join, on every screen of the room */
        attron(COLOR_PAIR(UI_ACCENT) | A_BOLD);
        ui_putf(1, 1, COLS - 2, "room %s: %s", class_room_code(room), cqz->join);
        attrset(A_NORMAL);
        const char *ev = class_room_event_at(room, 0);
        if (ev) {
            attron(A_DIM);
            ui_text(ev, tr, sizeof tr);
            ui_put(LINES - 2, 1, COLS - 2, tr);
            attrset(A_NORMAL);
        }
        bottom = LINES - 3;
        if (class_room_phase(room) == CLASS_ENDED) {
            attron(A_BOLD);
            ui_putf(y, 3, w, "The end: %d question%s, %d student%s.",
                    class_room_n_questions(room), class_room_n_questions(room) == 1 ? "" : "s",
                    class_room_n_students(room), class_room_n_students(room) == 1 ? "" : "s");
            attrset(A_NORMAL);
            draw_scores(room, y + 2, w, bottom, 1);
            return;
        }
    } else if (cqz->own.err[0]) {
        attron(COLOR_PAIR(UI_WARN));
        ui_text(cqz->own.err, tr, sizeof tr);
        ui_put(LINES - 2, 1, COLS - 2, tr);
        attrset(A_NORMAL);
    }
    Rows L;
    plan_rows(it, room, revealed, y, w, bottom, &L);
    ClassPhase ph = room ? class_room_phase(room) : CLASS_ASKING;
    int keep = L.keep, gap = L.gap, gap_s = L.gap_s, dist_h = L.dist_h, score_h = L.score_h;
    int ans_h = L.ans_h;
    const char *ansline = L.ansline;
    int qbottom = bottom - keep > y + 1 ? bottom - keep : y + 1;
    if (left == 0 && !revealed && ph == CLASS_ASKING) {
        attron(COLOR_PAIR(UI_WARN) | A_BOLD);
        ui_put(y++, 3, w, "Time is up: pens down.");
        attrset(A_NORMAL);
    }
    attron(A_BOLD);
    ui_text(it->prompt, tr, sizeof tr);
    if (y < qbottom)
        y += ui_wrap_put(y, 3, w, tr, qbottom - y) + 1;
    attrset(A_NORMAL);
    if (it->context[0] && y < qbottom) {
        snprintf(line, sizeof line, "Setup: %s", it->context);
        ui_text(line, tr, sizeof tr);
        attron(COLOR_PAIR(UI_ACCENT));
        y += ui_wrap_put(y, 3, w, tr, qbottom - y > 3 ? 3 : qbottom - y) + 1;
        attrset(A_NORMAL);
    }
    if (it->grid_n && y < qbottom)
        y = view_quiz_draw_grid(it, y, 3, w, qbottom, -1, room ? 1 : revealed ? 3 : 1) + 1;
    for (int c = 0; c < it->n_choices && y < qbottom; c++) {
        int right_c = revealed && (it->correct >> c & 1);
        if (right_c)
            attron(A_BOLD | COLOR_PAIR(UI_ACCENT));
        snprintf(line, sizeof line, "%c) %s%s", 'a' + c, it->choices[c],
                 right_c ? (ui.utf8 ? "  ✓" : "  [ok]") : "");
        ui_text(line, tr, sizeof tr);
        y += ui_wrap_put(y, 5, w - 2, tr, qbottom - y);
        attrset(A_NORMAL);
    }
    y++;
    if (y > bottom - keep + 1) { /* the grid keeps 3 rows at least: the kept rows go over it */
        y = bottom - keep + 1 > 2 ? bottom - keep + 1 : 2;
        for (int r = y; r < bottom; r++) {
            move(r, 0);
            clrtoeol();
        }
    }
    if (room && y < bottom) /* the count, then the distribution in dist_h rows */
        y = draw_tally(it, room, y, w, y + 1 + dist_h) + gap;
    int abottom = bottom - (score_h ? gap_s + score_h : 0);
    if (revealed && y < abottom) {
        attron(COLOR_PAIR(UI_ACCENT) | A_BOLD);
        y += ui_wrap_put(y, 3, w, ansline, abottom - y < ans_h ? abottom - y : ans_h);
        attrset(A_NORMAL);
        ui_text(it->explain, tr, sizeof tr);
        if (it->explain[0] && y < abottom)
            y += ui_wrap_put(y, 3, w, tr, abottom - y);
    }
    if (room && revealed)
        draw_scores(room, y + gap_s < bottom ? y + gap_s : bottom - 1, w, bottom, 0);
}

/* The room's state for attend notes: the countdown, whether the answer is out, the room's
 * count. */
static void publish_room(ClassQuiz *c)
{
    char err[600], count[100] = "";
    PresentState *st = &c->st;
    long left = c->left;
    if (c->srv) {
        ClassTally t;
        ClassRoom *r = class_server_room(c->srv);
        class_room_tally(r, &t);
        snprintf(count, sizeof count, "; room %s: %d of %d answered", class_room_code(r),
                 t.answered, t.students);
    }
    const char *rev = c->revealed ? "revealed" : "not revealed";
    if (left > 0)
        snprintf(st->room, sizeof st->room, "%ld:%02ld left; answer %s%s", left / 60, left % 60,
                 rev, count);
    else
        snprintf(st->room, sizeof st->room, "%sanswer %s%s", left == 0 ? "time is up; " : "",
                 rev, count);
    st->seq++;
    if (c->dir[0])
        present_state_write(c->dir, st, err, sizeof err);
}

/* ---- the view ---- */

static ClassQuiz *cq(const App *a)
{
    return app_view_state((App *)a, &VIEW_CLASS_QUIZ);
}

/* Opens the students' room as t says; 0, or -1 with t->err set. */
static int room_open(ClassQuiz *c, TuiClassRoom *t)
{
    char host[80];
    c->srv = class_server_open(c->s, &t->o, t->err, sizeof t->err);
    if (!c->srv)
        return -1;
    class_server_host(c->srv, host, sizeof host);
    ClassRoom *r = class_server_room(c->srv);
    class_room_set_results(r, t->results); /* written as each question's answers close */
    int port = class_server_port(c->srv);
    if (port == CLASS_DEFAULT_PORT)
        snprintf(c->join, sizeof c->join, "attend class join %s %s", host, class_room_code(r));
    else
        snprintf(c->join, sizeof c->join, "attend class join %s:%d %s", host, port,
                 class_room_code(r));
    snprintf(t->join, sizeof t->join, "%s", c->join);
    t->opened = 1;
    return 0;
}

int view_class_quiz_start(App *a, QuizSet *s, int time_s, TuiClassRoom *room, int *shown)
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
    c->room = room;
    if (room && room->open && room_open(c, room)) {
        app_msg(a, 1, "%s", room->err);
        return -1;
    }
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

/* The countdown: the room's state is published, and the screen redrawn, each second; the
 * students' room: what came from the network. */
static int class_poll(App *a)
{
    ClassQuiz *c = cq(a);
    if (!c->s)
        return 0;
    int dirty = 0;
    if (c->srv) {
        ClassRoom *r = class_server_room(c->srv);
        dirty = class_server_step(c->srv, 0) > 0 || class_room_events(r) != c->seen_events;
        c->seen_events = class_room_events(r);
        ClassTally t;
        class_room_tally(r, &t);
        if (t.answered != c->last_answered) {
            c->last_answered = t.answered;
            publish_room(c);
        }
    }
    long left = c->time_s > 0 ? c->time_s - (long)(time(NULL) - c->qstart) : -1;
    if (c->time_s > 0 && left < 0)
        left = 0;
    c->left = left;
    if (left == c->last_left)
        return dirty;
    c->last_left = left;
    publish_room(c);
    return 1;
}

static void class_draw(App *a, Rect full)
{
    ClassQuiz *c = cq(a);
    (void)full;
    if (c->s)
        draw(c, c->left);
}

static int class_key(App *a, Request r, int k)
{
    ClassQuiz *c = cq(a);
    ClassRoom *room = c->srv ? class_server_room(c->srv) : NULL;
    (void)k;
    if (!c->s)
        return 0;
    switch (r) {
    case REQ_CLOSE:
        app_overlay_close(a);
        break;
    case REQ_OPEN_ROOM:
        if (!c->srv) {
            TuiClassRoom *t = c->room ? c->room : &c->own;
            c->own.err[0] = '\0';
            if (room_open(c, t) && t != &c->own)
                snprintf(c->own.err, sizeof c->own.err, "%s", t->err);
            publish_room(c);
        }
        break;
    case REQ_REVEAL:
        if (room && class_room_phase(room) == CLASS_ASKING) {
            class_room_close(room); /* first the distribution, then the answer */
            break;
        }
        if (room)
            class_room_reveal(room);
        c->revealed = 1;
        c->shown++;
        publish_room(c);
        break;
    case REQ_STEP_NEXT:
        if (c->i + 1 >= c->s->n) {
            if (room) {
                class_room_end(room); /* the final scores, then n or q ends */
                break;
            }
            app_overlay_close(a);
            break;
        }
        c->i++;
        c->revealed = 0;
        c->qstart = time(NULL);
        c->last_left = -2;
        if (room)
            class_room_next(room);
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
    TuiClassRoom *t = c->room ? c->room : &c->own;
    if (c->srv) {
        ClassRoom *r = class_server_room(c->srv);
        class_room_end(r); /* writes --results a last time */
        t->students = class_room_n_students(r);
        if (class_room_results_error(r)) {
            snprintf(t->err, sizeof t->err, "%s", class_room_results_error(r));
            t->results_failed = 1;
        }
        class_server_free(c->srv);
        c->srv = NULL;
    }
    c->s = NULL;
}

static void class_key_state(const App *a, KeyState *s)
{
    const ClassQuiz *c = cq(a);
    if (!c->srv) {
        s->mode = c->revealed ? KMODE_CLASS_REVEALED : KMODE_CLASS_ASK;
        return;
    }
    switch (class_room_phase(class_server_room(c->srv))) {
    case CLASS_ASKING: s->mode = KMODE_CLASS_ROOM; break;
    case CLASS_CLOSED: s->mode = KMODE_CLASS_DIST; break;
    case CLASS_REVEALED: s->mode = KMODE_CLASS_REVEALED; break;
    default: s->mode = KMODE_CLASS_END; break;
    }
}

const ViewOps VIEW_CLASS_QUIZ = {
    .name = "class-quiz", .keymap = KM_CLASS_QUIZ, .overlay = 1, .screen = 1,
    .state_size = sizeof(ClassQuiz), .close = class_close, .draw = class_draw,
    .key = class_key, .key_state = class_key_state, .poll = class_poll, .poll_ms = 50,
};
