/* plain.h - attend --plain: the course as lines of text for screen readers, braille displays,
 * pipes and TERM=dumb. No curses, no alternate screen, no glyphs, no colour, no escape bytes:
 * a page's prose, then its widget in words (src/course/describe.c), then commands read as
 * lines from stdin with the key table's names (src/tui/keys.c), each answered by what
 * changed, first. plain.c holds the state and the loop, plain_cmd.c the commands,
 * plain_quiz.c the quiz. */
#ifndef ATTEND_PLAIN_H
#define ATTEND_PLAIN_H

#include <stdio.h>

#include "describe.h"
#include "keys.h"
#include "lesson.h"
#include "progress.h"
#include "widget.h"

#define PLAIN_MAX_TOK 128   /* longest sequence plain mode runs (models cap it lower) */
#define PLAIN_MAX_MODELS 16
#define PLAIN_PROSE_MAX 16384
#define PLAIN_WORDS_MAX 65536

typedef struct {
    const Model *m;
    WidgetTraces tr;
} PlainTraces;

/* The state of the course and of the current page's widget (what the player's App holds). */
typedef struct {
    Course course;
    Progress prog;
    int prog_ok;
    int lesson, page;
    const char *only;          /* --lesson ID: paging stays in it */
    const Widget *w;           /* the page's widget, NULL for none */
    const Model *model;        /* its model, NULL when the page runs nothing */
    unsigned allowed;          /* C_* the page allows */
    PlainTraces mt[PLAIN_MAX_MODELS];
    int n_mt;
    WidgetTraces tr;           /* of the current model (borrowed from mt) */
    char sentence[256], target[256];
    int src[PLAIN_MAX_TOK], n_src, tgt[PLAIN_MAX_TOK], n_tgt, order[PLAIN_MAX_TOK];
    Controls ctl;
    int layer, head, cross, scores, all_heads, step;
    int cur_r, cur_c;          /* the inspected cell, -1 when none */
    int chip_cur, chip_pick;
    char tensor[40];
    LiveWidget live;
    int ran;
    float equiv;
    char run_err[256];
    int quit;
    FILE *out;
    char prose[PLAIN_PROSE_MAX]; /* the current page's prose, placeholders resolved */
    DescribeSnap *snap;        /* the run before the last command (owned) */
} Plain;

/* attend --plain [--lessons DIR] [--lesson ID] [--page N] [--ascii]: the course in plain
 * mode, commands from stdin, text on stdout. Returns the exit status (0 at q or end of
 * input, progress saved; 1 when the course does not load; 2 for a bad option). */
int plain_main(int argc, char **argv);

/* ---- plain.c, for the commands ---- */
/* Writes text as plain mode does: transliterated in ASCII mode, with any escape byte, control
 * character, box drawing, block or shade glyph replaced, and a newline at the end if missing. */
void plain_say(Plain *p, const char *text);
void plain_sayf(Plain *p, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The widget run io of the current state. */
void plain_io(Plain *p, WidgetIO *io);
/* The describe view of the current state. */
void plain_view(const Plain *p, DescribeView *v);
/* Runs the widget on the current state and expands the prose. */
void plain_run(Plain *p);
/* Starts the page's widget from its start state (and runs it). */
void plain_reset_widget(Plain *p);
/* Opens a page (saving progress) and says it: title, prose, widget, keys. */
void plain_open(Plain *p, int lesson, int page);
/* Next (+1) or previous (-1) page, across lessons unless --lesson; says where it went. */
void plain_turn(Plain *p, int dir);
/* Says the widget in words. */
void plain_say_widget(Plain *p);
/* Says the prose and the widget of the current page again. */
void plain_say_page(Plain *p);
/* The current page, NULL when none. */
const Page *plain_page(const Plain *p);

/* ---- plain_cmd.c ---- */
/* Handles one line of input. */
void plain_command(Plain *p, char *line);
/* Frees what the commands hold (the train widget's run). */
void plain_commands_end(void);

/* ---- plain.c: the key table's view of the page ---- */
/* The one-line list of the keys that matter on this page ("m mask, v scores, next, ..."). */
void plain_keys_line(Plain *p, char *out, size_t n);
/* The keymap of widget kind k (KM_NONE for a prose page). */
Keymap plain_keymap(WidgetKind k);
/* The kind of the current page's widget (W_NONE without a widget or model). */
WidgetKind plain_kind(const Plain *p);
/* What the key table's conditions read, from the plain front end's state. */
void plain_key_state(const Plain *p, KeyState *s);

/* ---- plain_quiz.c ---- */
/* The current lesson's questions, asked and answered as lines (practice: start at the
 * question with that id, "" for the first). Returns 1 when input ended inside the quiz. */
int plain_quiz(Plain *p, const char *start_id);

#endif
