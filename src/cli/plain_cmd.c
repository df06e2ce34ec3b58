/* plain_cmd.c - the commands of attend --plain (plain.h): a line is a word command (next,
 * back, read, edit TEXT, cell R C, swap I J, goto N, lesson ID, ...) or a key named as the
 * key table names it (m, p, s, v, space, left, ...), looked up in the page's keymap, the
 * shared controls and the global keys as the player looks it up (keys_lookup), so the names
 * cannot drift apart. A command that changes the widget is answered by what changed first,
 * then the widget in words, then the sentences of the page that changed. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "plain.h"
#include "plain_train.h"
#include "ui_text.h"

static void plain_help(Plain *p);

/* The tensors of the run, for the matrix widget's t. */
static void list_tensors(Plain *p)
{
    const Trace *t = p->s->t;
    char line[PLAIN_WORDS_MAX];
    size_t k = 0;
    k += (size_t)snprintf(line, sizeof line, "Tensors of this run (type t NAME to show one):");
    for (int i = 0; t && i < t->n_entries && k < sizeof line - 80; i++) {
        const TraceEntry *e = trace_meta(t, i); /* names and shapes: no map computed */
        k += (size_t)snprintf(line + k, sizeof line - k, "%s %s %d by %d", i ? "," : "",
                              e->name, e->rows, e->cols);
    }
    plain_say(p, line);
}

/* The requests that are plain mode's own, before the Session's: an edit or a tensor without
 * its text (plain mode asks for it), scrolling (a line says everything), the train widget's
 * run. 1 when it used req. */
static int plain_own(Plain *p, Request req, const char *arg)
{
    Session *s = p->s;
    switch (req) {
    case REQ_EDIT:
    case REQ_EDIT_DECODER: {
        if (arg && arg[0])
            return 0;
        int target = req == REQ_EDIT_DECODER && s->model->cfg.arch == ARCH_ENCDEC;
        plain_sayf(p, "Type %s followed by the new sentence, for example: %s %s",
                   target ? "E" : "edit", target ? "E" : "edit",
                   target ? s->target : s->sentence);
        return 1;
    }
    case REQ_PICK_TENSOR:
        if (arg && arg[0])
            return 0;
        list_tensors(p);
        return 1;
    case REQ_SCROLL_UP: case REQ_SCROLL_DOWN: case REQ_SCROLL_LEFT: case REQ_SCROLL_RIGHT:
        plain_say(p, "Plain mode says the first rows and columns; t NAME shows another tensor.");
        return 1;
    case REQ_TRAIN_RUN: case REQ_SAVE: /* t trains to the end at once; a replay page's own */
        return plain_train(p, req);
    default:
        return 0;
    }
}

/* ---- the global keys and the word commands ---- */

static void list_lessons(Plain *p)
{
    plain_say(p, "Lessons (type lesson ID to open one):");
    for (int i = 0; i < p->s->course.n_lessons; i++) {
        const Lesson *l = &p->s->course.lessons[i];
        int seen = p->s->prog_ok ? progress_count_seen(&p->s->prog, l->id) : 0;
        if (l->broken)
            plain_sayf(p, "%d. %s: broken (%s)", i + 1, l->file, l->error);
        else
            plain_sayf(p, "%d. %s: %s, %d pages, %s%s", i + 1, l->id, l->title, l->n_pages,
                       p->s->prog_ok && progress_completed(&p->s->prog, l->id) ? "done"
                       : seen ? "started" : "not started", i == p->s->lesson ? " (current)" : "");
    }
}

/* goto N (a page of this lesson) or goto ID:N (session_goto, the player's G too). */
static void goto_page(Plain *p, const char *arg)
{
    Change ch;
    session_goto(p->s, arg ? arg : "", 0, &ch);
    plain_page_change(p, &ch);
}

static void say_notes(Plain *p)
{
    const Page *pg = session_page(p->s);
    if (pg && pg->notes)
        plain_sayf(p, "Speaker notes: %s", pg->notes);
    else
        plain_say(p, "This page has no speaker notes.");
}

static int global_request(Plain *p, Request req, const char *arg)
{
    switch (req) {
    case REQ_QUIT: case REQ_QUIT_NOW:
        p->quit = 1;
        plain_say(p, session_progress_saved(p->s) ? "Bye. Progress is saved." : "Bye.");
        return 1;
    case REQ_NEXT_PAGE: plain_turn(p, 1); return 1;
    case REQ_PREV_PAGE: plain_turn(p, -1); return 1;
    case REQ_HELP: plain_help(p); return 1;
    case REQ_LESSON_MENU: list_lessons(p); return 1;
    case REQ_GOTO_PAGE: goto_page(p, arg); return 1;
    case REQ_NOTES: say_notes(p); return 1;
    case REQ_QUIZ:
        if (plain_quiz(p, arg ? arg : ""))
            p->quit = 1;
        return 1;
    case REQ_PROSE_DOWN: case REQ_PROSE_UP: case REQ_FOCUS:
        plain_say(p, "Plain mode says the whole page; read says it again.");
        return 1;
    case REQ_EXPORT: {
        const Lesson *l = &p->s->course.lessons[p->s->lesson];
        plain_sayf(p, "To write this widget's figure: attend export --lesson %s --page %d",
                   l->id, p->s->page + 1);
        return 1;
    }
    case REQ_CANCEL:
        return 1;
    default:
        return 0;
    }
}

/* A key as the key table names it ("m", "space", "left"), or -1. */
static int key_of(const char *word)
{
    if (!word[0])
        return -1;
    return keys_parse_name(word);
}

/* Dispatches key k (with the rest of the line as its argument) as the player does: the
 * page's keymaps (plain mode's own requests, then the Session's), then the global keys. 1
 * when something used it. */
static int key_command(Plain *p, int k, const char *arg)
{
    KeyState ks;
    Keymap km[3];
    Change ch;
    session_key_state(p->s, &ks);
    int n = session_keymaps(p->s, km);
    for (int i = 0; i + 1 < n; i++) {
        Request r = keys_lookup(&ks, km[i], k);
        if (r == REQ_NONE)
            continue;
        if (plain_own(p, r, arg))
            return 1;
        if (session_request(p->s, r, arg, &ch)) {
            plain_change(p, &ch);
            return 1;
        }
    }
    Request r = keys_lookup(&ks, KM_GLOBAL, k);
    return r != REQ_NONE && global_request(p, r, arg);
}

/* The word commands: each maps to a key's request or is plain mode's own. */
static int word_command(Plain *p, const char *cmd, const char *arg)
{
    static const struct { const char *word; int key; } ALIAS[] = {
        {"next", ' '}, {"back", -2}, {"quit", 'q'}, {"exit", 'q'}, {"help", '?'},
        {"edit", 'e'}, {"lessons", -3}, {"menu", -3}, {"quiz", 'Q'}, {"notes", 'o'},
        {"goto", 'G'}, {"page", 'G'}, {"tensor", 't'},
    };
    for (size_t i = 0; i < sizeof ALIAS / sizeof ALIAS[0]; i++) {
        if (strcmp(cmd, ALIAS[i].word))
            continue;
        if (ALIAS[i].key == -2) {
            plain_turn(p, -1);
            return 1;
        }
        if (ALIAS[i].key == -3) {
            list_lessons(p);
            return 1;
        }
        if (ALIAS[i].key == 'G')
            return global_request(p, REQ_GOTO_PAGE, arg);
        if (ALIAS[i].key == 'Q')
            return global_request(p, REQ_QUIZ, arg);
        return key_command(p, ALIAS[i].key, arg);
    }
    if (!strcmp(cmd, "read")) {
        plain_say_page(p);
        return 1;
    }
    if (!strcmp(cmd, "widget")) {
        plain_say_widget(p);
        return 1;
    }
    if (!strcmp(cmd, "keys")) {
        char keys[1200];
        plain_keys_line(p, keys, sizeof keys);
        plain_say(p, keys);
        return 1;
    }
    if (!strcmp(cmd, "lesson")) {
        char why[300] = "name a lesson: its number or its id";
        int i = arg ? lesson_lookup(&p->s->course, arg, why, sizeof why) : -1;
        if (i < 0) {
            plain_sayf(p, "%s; lessons lists them.", why);
            return 1;
        }
        Change ch; /* as the player's lesson menu: at its resume page, the course whole again */
        session_open_lesson(p->s, i, &ch);
        plain_page_change(p, &ch);
        return 1;
    }
    if (!strcmp(cmd, "cell") || !strcmp(cmd, "swap")) {
        int a, b;
        Change ch;
        if (!arg || sscanf(arg, "%d %d", &a, &b) != 2) {
            plain_sayf(p, "Type %s and two numbers, for example: %s 1 2", cmd, cmd);
            return 1;
        }
        if (!strcmp(cmd, "swap"))
            session_swap(p->s, a, b, &ch);
        else
            session_select_cell(p->s, a, b, &ch);
        plain_change(p, &ch);
        return 1;
    }
    return 0;
}

void plain_command(Plain *p, char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
        line[--n] = '\0';
    char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s)
        return;
    memcpy(p->before_prose, p->s->prose, sizeof p->before_prose);
    if (session_kind(p->s) == W_LAB && session_lab_poll(p->s)) /* checked since the last line */
        plain_say_lab(p);
    char *arg = s;
    while (*arg && *arg != ' ' && *arg != '\t')
        arg++;
    if (*arg) {
        *arg++ = '\0';
        while (*arg == ' ' || *arg == '\t')
            arg++;
    }
    if (word_command(p, s, *arg ? arg : NULL))
        return;
    int k = key_of(s);
    if (k >= 0 && key_command(p, k, *arg ? arg : NULL))
        return;
    plain_sayf(p, "\"%s\" does nothing on this page; help lists the commands.", s);
}

/* ---- help ---- */

static void help_line(const char *keys, const char *help, void *p)
{
    plain_sayf(p, "%s: %s", keys, help);
}

/* Says the commands of the current page. */
static void plain_help(Plain *p)
{
    KeyState ks;
    session_key_state(p->s, &ks);
    WidgetKind kind = session_kind(p->s);
    plain_say(p, "Commands, one a line:\n"
                 "next, back: the next or previous page (also space, backspace).\n"
                 "read: the page again. widget: the widget again. keys: this page's keys.\n"
                 "lessons: the lessons. lesson ID: open one. goto N, or goto ID:N: a page.\n"
                 "quiz (or Q): this lesson's questions. notes (or o): speaker notes.\n"
                 "q or quit: quit; the end of input quits too. Progress is saved on every page.");
    if (p->plan)
        plain_say(p, "A lecture plan is presented: space or next takes its next step, b the one "
                     "before, plan says where it stands; back, goto and keys leave it.");
    if (kind != W_NONE && p->s->ran && (p->s->allowed & C_EDIT))
        plain_say(p, "edit TEXT (or e TEXT): run another sentence.");
    if (p->s->allowed & C_CURSOR)
        plain_say(p, "cell R C: inspect a cell (row R, key C, from 0).");
    if (kind == W_CHIPS && (p->s->allowed & C_SWAP))
        plain_say(p, "swap I J: swap the chips at positions I and J.");
    if (kind == W_MATRIX)
        plain_say(p, "t NAME: show another tensor; t alone lists them.");
    plain_say(p, "Keys of this page, as the player names them:");
    Keymap maps[3];
    keys_page_help(&ks, maps, session_keymaps(p->s, maps), help_line, p); /* key_command's */
}
