/* plain.h - attend --plain: the course as lines of text for screen readers, braille displays,
 * pipes and TERM=dumb. No curses, no alternate screen, no glyphs, no colour, no escape bytes:
 * a page's prose, then its widget in words (src/course/describe.c), then commands read as
 * lines from stdin with the key table's names (src/session/keys.c), each answered by what
 * changed, first. The state is the one Session the player runs on too (session.h): plain
 * mode only words its Changes (plain_say.c) and reads lines. plain.c says pages, plain_cmd.c
 * the commands, plain_quiz.c the quiz, plain_train.c the train widget. */
#ifndef ATTEND_PLAIN_H
#define ATTEND_PLAIN_H

#include <stdio.h>

#include "session.h"

#define PLAIN_WORDS_MAX 65536

/* The front end: the Session, and where the words go. */
typedef struct {
    Session *s;
    int quit;
    FILE *out;
    char before_prose[SESSION_PROSE_MAX]; /* the prose before the last command */
    struct SessionPlanS *plan; /* --plan: the lecture plan presented (plain_plan.c), or NULL */
    int plan_busy;       /* 1: the plan's own step runs (its keys are plain commands) */
} Plain;

/* attend --plain [--lessons DIR] [--lesson ID] [--page N] [--ascii]: the course in plain
 * mode, commands from stdin, text on stdout. Returns the exit status (0 at q or end of
 * input, progress saved; 1 when the course does not load; 2 for a bad option). */
int plain_main(int argc, char **argv);

/* ---- plain.c ---- */
/* Writes text as plain mode does: transliterated in ASCII mode, with any escape byte, control
 * character, box drawing, block or shade glyph replaced, and a newline at the end if missing. */
void plain_say(Plain *p, const char *text);
void plain_sayf(Plain *p, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Says the widget in words. */
void plain_say_widget(Plain *p);
/* A lab page's last check, as the Session last read it (the player's lab view shows it). */
void plain_say_lab(Plain *p);
/* Says the prose and the widget of the current page again. */
void plain_say_page(Plain *p);
/* Opens a page (saving progress) and says it: title, prose, widget, keys. */
void plain_open(Plain *p, int lesson, int page);
/* Says a page Change: the page that opened (what went wrong on the way first), or why none
 * did. */
void plain_page_change(Plain *p, const Change *ch);
/* Next (+1) or previous (-1) page, across lessons unless --lesson; says where it went. */
void plain_turn(Plain *p, int dir);
/* The one-line list of the keys that matter on this page ("m mask, v scores, next, ..."). */
void plain_keys_line(Plain *p, char *out, size_t n);

/* ---- plain_say.c ---- */
/* Says a Change of the Session: what changed, first, with what the widget's numbers did;
 * then the widget in words and the sentences of the page that changed. */
void plain_change(Plain *p, const Change *ch);

/* ---- plain_cmd.c ---- */
/* Handles one line of input. */
void plain_command(Plain *p, char *line);

/* ---- plain_plan.c ---- */
/* --plan NAME|FILE: loads the plan, says it and runs its first step. 0, or -1 with a message
 * (no such plan, or it does not load: every problem). */
int plain_plan_start(Plain *p, const char *arg, char *err, size_t n);
/* One line of input: the plan's space / next, b, plan while a plan is presented (a line of
 * that one word), else plain_command's. */
void plain_plan_line(Plain *p, char *line);
/* Frees the plan (none: nothing). */
void plain_plan_end(Plain *p);

/* ---- plain_quiz.c ---- */
/* The current lesson's questions, asked and answered as lines (practice: start at the
 * question with that id, "" for the first). Returns 1 when input ended inside the quiz. */
int plain_quiz(Plain *p, const char *start_id);

#endif
