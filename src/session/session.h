/* session.h - the one Session below both front ends (the player in src/tui, plain mode in
 * src/cli): the course and progress, the lesson and page, the models and their traces, the
 * sentence, target and order, the Controls, layer/head/cross, knock-outs, the explanation
 * widgets' live state, and the selection both front ends read (the inspected cell, the
 * step, the chip cursor and pick, the tensor shown). A key's request changes the Session
 * through session_request (session_req.c), which returns a Change as data: what changed,
 * with its numbers, and what the widget's numbers did (describe_diff). Each front end only
 * words the Change (the player's status line, plain mode's announcement) and draws; neither
 * keeps a copy of this state (tests/ref/house.py checks). No curses, no printing. */
#ifndef ATTEND_SESSION_H
#define ATTEND_SESSION_H

#include <stddef.h>

#include "attend_assert.h"
#include "describe.h"
#include "fileio.h"
#include "heads.h"
#include "keys.h"
#include "lab.h"
#include "lesson.h"
#include "live.h"
#include "model.h"
#include "progress.h"
#include "widget.h"

#define SESSION_MAX_TOK 1024   /* longest sequence a front end runs (GPT-2's context; models
                                  and memory cap it lower: widget_token_cap) */
#define SESSION_MAX_MODELS 16  /* models per course with their traces */
#define SESSION_PROSE_MAX 16384
#define SESSION_DETAIL_MAX 600
#define SESSION_TRAIN_FILE "attend-trained.json" /* where w writes the train widget's model */
#define SESSION_REPEAT_FILE "attend-induction.json" /* ... and a replay page's fresh model */

struct WatchRun;
struct RepeatRun;

/* The train widget's run (session_train.c): the model being trained, its mask, the head its
 * heatmap shows. */
typedef struct {
    struct WatchRun *run;    /* NULL before the first t (and after a page change) */
    int running, done;       /* training between keys / all its steps done */
    int causal, set;         /* the mask it trains with; set: m chose it before a run */
    int layer, head;         /* the heatmap's head */
    int fresh;               /* counts the runs started over (a view's curves restart) */
    struct {                 /* a replay page (the induction model): a fresh model trained
                                live by the recipe it records, instead of the replay */
        struct RepeatRun *run; /* NULL: the replay */
        int running, done;
    } rep;
    char err[300];
} SessionTrain;

/* A lab page's last check (session_lab.c): the lab's show file as last read. */
typedef struct {
    int read;                /* 1: the file was looked for (lab and print say which) */
    char lab[16];            /* the lab it was read for */
    FileioPrint print;       /* the file as read (fileio.h; print.ok 0: there was none) */
    int have;                /* 1: show holds the file's contents */
    LabShow show;
    char err[200];           /* why there is nothing to show ("no check yet", a bad file) */
} SessionLab;

typedef struct {
    const Model *model;
    Trace *t, *eq_a, *eq_b;
} SessionTraces;

/* Why a request changed nothing (Change.why). */
typedef enum {
    WHY_NONE,
    WHY_FIRST_STEP,      /* a step back from the first step */
    WHY_LAST_STEP,       /* a step on from the last step */
    WHY_TEXT_DONE,       /* generate: the text is finished (Change.to: the GenEnd reason) */
    WHY_TOKEN_CAP,       /* generate: the front end runs at most Change.to tokens */
    WHY_RANGE,           /* an increase or decrease at its limit (Change.to: the limit) */
    WHY_NO_SWAP,         /* the page does not allow swapping */
    WHY_BAD_SWAP,        /* a swap of positions that are not two different tokens */
    WHY_NO_CELL,         /* a cell outside the attention shown */
    WHY_NO_CURSOR,       /* a cell named on a page without a cell to inspect */
    WHY_ALL_HEADS,       /* the cell cursor while every head is shown (a shows one) */
    WHY_EMPTY,           /* an edited sentence without a token */
    WHY_TOO_LONG,        /* an edited sentence of Change.from tokens over the cap Change.to
                            (Change.a 1: more than Change.to, the tokenizer stopped counting) */
    WHY_TOKENIZER,       /* the tokenizer refused the text: a limit it names in Change.detail */
    WHY_NO_TENSOR,       /* a tensor name the run does not have */
    WHY_GREEDY,          /* generate: a temperature or seed while greedy (t samples) */
    WHY_BROKEN,          /* a page of a lesson that did not load (detail: file: why) */
    WHY_FIRST_PAGE,      /* back from the first page (of the course, or of --lesson) */
    WHY_LAST_PAGE,       /* on from the last page of --lesson */
    WHY_END,             /* on from the last page of the course (detail: broken lessons
                            skipped on the way) */
    WHY_NO_LESSON,       /* a page address naming no lesson (detail: the name) */
    WHY_NO_PAGE,         /* a page address naming no page of lesson a (detail: what) */
    WHY_ONLY_LESSON,     /* another lesson while --lesson keeps to one (detail: its id) */
    WHY_TRAIN_DONE,      /* t after every step is done (r resets, m first for the other mask) */
    WHY_TRAIN_STARTED,   /* m once training started (the mask is set before it) */
    WHY_NOTHING_TRAINED, /* w before a step */
    WHY_TRAIN_ERROR,     /* the run could not start or save (detail: why) */
} ChangeWhy;

/* Why generate's text ended (Change.to with WHY_TEXT_DONE). */
enum { GEN_END_MAX_LEN, GEN_END_STOP, GEN_END_EOS };

/* What went wrong opening a page that opened all the same (PageIssues.bits: 1 << the issue).
 * Each front end words it; value[issue] is the offending value. */
typedef enum {
    ISSUE_NO_MODEL,  /* the page's model did not load (value: its file) */
    ISSUE_NO_MEMORY, /* no memory for the model's traces (value: the model's file) */
    ISSUE_BAD_START, /* the widget's start does not run on its model (value: the course's
                        reason, naming the offending setting) */
    ISSUE_NOT_SAVED, /* progress was not saved (value: the file and the system's reason) */
    ISSUE__COUNT
} PageIssue;

typedef struct {
    unsigned bits;
    char value[ISSUE__COUNT][320];
} PageIssues;

/* A request's effect, as data. kind says which part of the Session changed; req is the
 * request that made it; from/to are the setting's old and new values (a mask, PE kind,
 * head, layer, step, d_k, N, seed; a temperature in fto), a and b two more numbers (swap:
 * the positions; pick: the chip; cell: row and column; knock-out: layer and head). diff says
 * what the widget's numbers did when the widget ran again (describe_diff). detail holds the
 * course's words for a knock-out (ablation.c) or the unknown words of an edit. */
typedef enum {
    CH_NONE,      /* not handled: the request means nothing here */
    CH_REFUSED,   /* handled, nothing changed: why */
    CH_CONTROL,   /* a model control: mask, padding, PE, scale, head, layer, heads, scores */
    CH_KNOCK,     /* a head knocked out or back in */
    CH_LIVE,      /* an explanation widget's setting */
    CH_STEP,      /* the step (passport, worked, kvcache, generate) */
    CH_SENTENCE,  /* the sentence (b=0) or decoder sentence (b=1) */
    CH_ORDER,     /* the order: a swap or the original order again */
    CH_PICK,      /* a chip picked (to: the chip) or the pick dropped (to: -1) */
    CH_CURSOR,    /* the chip cursor or the inspected cell moved */
    CH_TENSOR,    /* the matrix widget's tensor */
    CH_RESET,     /* the page's starting state */
    CH_PAGE,      /* another page: a lesson, b page (detail: broken lessons skipped on the
                     way, "" when none; issues: what went wrong opening it) */
    CH_TRAIN,     /* the train widget's run (req: t started/paused: to, a steps, b 1 for a
                     fresh run; m: to the mask; r: b fresh, a the seed; h/l: a layer, b
                     head; w: a steps, detail the file) */
} ChangeKind;

typedef struct {
    ChangeKind kind;
    Request req;
    ChangeWhy why;
    int from, to, a, b;
    float fto;
    int ran;                 /* 1: the widget ran again; diff holds what its numbers did */
    DescribeDiff diff;
    char detail[SESSION_DETAIL_MAX];
    PageIssues issues;       /* CH_PAGE: what went wrong on the way (bits 0: nothing) */
} Change;

typedef struct Session {
    /* course and progress */
    Course course;
    Progress prog;
    int prog_ok;             /* 1: progress is saved on page changes */
    int lesson, page;        /* current (lesson index into course.lessons) */
    const char *only_lesson; /* --lesson ID: paging stays inside it (NULL once another opens) */
    char warn[600];          /* what loading said (broken lessons, progress not saved) */

    /* the engine */
    SessionTraces mt[SESSION_MAX_MODELS];
    int n_mt;
    const Model *model;      /* of the current page, NULL for prose only */
    Trace *t, *eq_a, *eq_b;  /* of that model */

    /* the page's widget: its start, the Controls and the learner's changes */
    const Widget *w;
    unsigned allowed;        /* C_* the page allows */
    char sentence[ATTEND_MAX_SENTENCE], target[ATTEND_MAX_SENTENCE];
    int src[SESSION_MAX_TOK], n_src, tgt[SESSION_MAX_TOK], n_tgt;
    Controls ctl;
    int order[SESSION_MAX_TOK];
    int layer, head, cross, scores, all_heads;
    int ran;                 /* 1: t holds a run of the current state */
    /* What t's run read (session_run runs the model again only when one of these changed: a
     * key that shows another layer or head re-reads the trace, as GPT-2's 1024 tokens take
     * seconds to run); runs counts the runs made. */
    struct SessionRunKey {
        const Model *m;
        const Widget *w;
        const Trace *t;
        int n_src, n_tgt, equiv, layer;
        int causal, padding, scale;
        PeKind pe;
        uint64_t ablate[ATTEND_MAX_LAYERS];
        const struct ModelPatch *patch;
        int src[SESSION_MAX_TOK], tgt[SESSION_MAX_TOK], order[SESSION_MAX_TOK];
    } run_key;
    unsigned long runs;
    char run_err[256];
    float equiv;             /* max|Attn(PX) − P·Attn(X)|, < 0 when not computed */
    LiveWidget live;         /* explanation widgets (worked, scaling, kvcache, cost, params) */
    SessionTrain train;      /* the train widget's run */
    SessionLab lab;          /* a lab page's last check */

    /* the selection both front ends show */
    int cur_r, cur_c;        /* the inspected cell (heatmap, worked) */
    int inspected;           /* 1: the learner moved to or named a cell since the page began */
    int chip_cur, chip_pick; /* the chips' cursor; the picked chip, -1 when none */
    int step;                /* the passport's step */
    char tensor[40];         /* the matrix widget's tensor */

    char prose[SESSION_PROSE_MAX]; /* the page's prose, placeholders resolved (UTF-8, or ASCII
                                      in ASCII mode: ui_text) */
    DescribeSnap *snap;      /* the numbers after the last change (owned) */
    Change last;             /* the last request's Change (the parity test compares them) */
    long n_requests;         /* requests the Session handled since it began */
    PageIssues issues;       /* what went wrong opening the last page (its Change's) */
} Session;

/* ---- session.c: course, pages, runs ---- */
/* A new Session (zeroed, its snapshot allocated); NULL when out of memory. */
Session *session_new(void);
/* Frees s and everything it holds (NULL is fine). */
void session_delete(Session *s);
/* Loads the course in dir and the progress, and picks the page to start on (only: a lesson
 * id, paging stays in it; page: 1-based, 0 for the saved one). Does not open it: the front
 * end calls session_open(s, s->lesson, s->page). 0, or -1 with a message in err. */
int session_load(Session *s, const char *dir, const char *only, int page, char *err,
                 size_t errlen);
/* Opens page of lesson (clamped), starts its widget, saves progress; a broken lesson is not
 * opened. ch (NULL: not wanted) gets CH_PAGE, or CH_REFUSED with WHY_BROKEN; ch->issues
 * (and s->issues) say what went wrong on the way (the page's model did not load, progress
 * not saved), bits 0 when nothing did. 1 when it opened. */
int session_open(Session *s, int lesson, int page, Change *ch);
/* Next (+1) or previous (-1) page, across lessons unless only_lesson, skipping broken
 * lessons. ch gets CH_PAGE (detail: the broken lessons skipped), or CH_REFUSED with
 * WHY_FIRST_PAGE, WHY_LAST_PAGE or WHY_END. 1 when a page opened. */
int session_turn(Session *s, int dir, Change *ch);
/* Loads the model at path (a Hugging Face directory or a model file; progress(ctx, ...) as
 * it reads, NULL for none) and gives it to the course's "@opened" pages (lesson_open_model:
 * the course takes it; the traces sized for the model that held its slot go). jump:
 * s->lesson and s->page become the first page on it. Does not open a page. 0, or -1 with a
 * message in err (nothing changed). */
int session_open_model(Session *s, const char *path, ModelProgress progress, void *ctx,
                       int jump, char *err, size_t errlen);
/* The model the learner opened (session_open_model), NULL when none. */
const Model *session_opened_model(const Session *s);
/* Opens the page a learner or teacher names (the G prompt, plain mode's goto): "N" in this
 * lesson, or "ID:N" (a lesson id or number). keep_only: --lesson stays (the presenter);
 * else going to another lesson makes the course whole again, as the lesson menu does. ch as
 * session_open's, or CH_REFUSED with WHY_NO_LESSON, WHY_NO_PAGE, WHY_BROKEN or
 * WHY_ONLY_LESSON. 1 when it opened. */
int session_goto(Session *s, const char *spec, int keep_only, Change *ch);
/* Shows widget w on model m outside any course (m and w must outlive s). 0, or -1. */
int session_use(Session *s, const Model *m, const Widget *w);
/* Opens lesson as the lesson menu and plain mode's "lesson ID" do: at session_resume_page;
 * another lesson than the current one makes the course whole again (--lesson no longer keeps
 * paging inside one). ch and the result as session_open's. */
int session_open_lesson(Session *s, int lesson, Change *ch);
/* The page the lesson menu opens a lesson at: the saved page when it is the lesson the
 * progress file was left in, else its first page not yet seen, else 0. */
int session_resume_page(const Session *s, int lesson);
/* The current page, NULL when none. */
const Page *session_page(const Session *s);
/* The kind of the current page's widget (W_NONE without a widget or a model). */
WidgetKind session_kind(const Session *s);
/* Starts the page's widget from its start state and runs it. */
void session_reset_widget(Session *s);
/* Recomputes the trace (or an explanation widget's numbers) from the state: one widget_run,
 * the run check-lessons and the quiz use too; then the prose. */
void session_run(Session *s);
/* The run io of the current state; the describe view of it. */
void session_io(const Session *s, WidgetIO *io);
void session_view(const Session *s, DescribeView *v);
/* Keeps the current run's numbers as the "before" of the next Change. */
void session_snap(Session *s);
/* The placeholders, blocks and guards of the current prose that do not resolve (up to max
 * in f); how many. */
int session_prose_fails(Session *s, PlaceholderFail *f, int max);
/* The stack and sublayer the heatmap shows; its rows and columns; their tokens. */
Stack session_stack(const Session *s);
Sublayer session_sub(const Session *s);
int session_rows(const Session *s);
int session_cols(const Session *s);
const char *session_row_token(const Session *s, int i);
const char *session_col_token(const Session *s, int j);
/* 1 when progress is saved: it is kept, and the last page opened saved it. */
static inline int session_progress_saved(const Session *s)
{
    return s->prog_ok && !(s->issues.bits >> ISSUE_NOT_SAVED & 1u);
}
/* The invariant after every change: with a model, the layer and head shown are the model's. */
static inline int session_view_ok(const Session *s)
{
    return !s->model || (s->layer >= 0 && s->layer < s->model->cfg.n_layers && s->head >= 0 &&
                         s->head < s->model->cfg.n_heads);
}

/* ---- session_train.c: the train widget's run ---- */
/* 1: a train page on model m replays the recipe the model records (the induction model):
 * its front end's own run, not this one. */
int session_train_repeat_page(const Model *m);
/* The mask the run trains (or will train) with: the run's, m's choice, else the page's. */
int session_train_causal(const Session *s);
/* t, m, r, h/l, w on a train page (session_request calls it). */
int session_train_request(Session *s, Request req, Change *ch);
/* One optimisation step of a running run: 1 when one ran (the run may be done after it:
 * train.done), 0 when none runs, -1 when it failed (train.err). */
int session_train_step(Session *s);
/* One slice of a replay page's running live run: 2 a measurement of its history (the
 * recipe's schedule), 1 an optimisation step, 3 it just finished (rep.done), 0 none runs,
 * -1 it failed (train.err). */
int session_train_repeat_step(Session *s);
/* Frees the run (a page change, the end). */
void session_train_free(Session *s);
/* The head of layer `layer` whose last score `score` in h (0 previous-token, 1 induction:
 * heads_scores) is the largest, on a model of n_heads heads per layer (0 without points):
 * the head a replay page shows and plain mode names. */
int session_history_best(const HeadsHistory *h, int n_heads, int layer, int score);
/* That score of head `head` of layer `layer` at h's last point, NAN without points. */
double session_history_last(const HeadsHistory *h, int n_heads, int layer, int head, int score);

/* ---- session_lab.c: a lab page's last check ---- */
/* Reads the page's lab show file again when it changed (or the page's lab did): 1 when
 * s->lab is new (to draw or say), 0 when not, or not a lab page. */
int session_lab_poll(Session *s);
/* Frees the show read (the end). */
void session_lab_free(Session *s);

/* ---- session_req.c: requests and their Change ---- */
/* The keymap of widget kind k (KM_NONE for a prose page). */
Keymap session_keymap(WidgetKind k);
/* The C_* bits of the shared controls whose hints a page of kind k lists (the player's
 * footer, plain mode's key line). */
unsigned session_common_hints(WidgetKind k);
/* Appends the page's footer hints (keys.h's "key\x1flabel\x1e"): its widget's, then the
 * shared controls' its kind lists, as ks allows them now: the player's footer and presenter
 * and plain mode's key line, one list. */
void session_hints(const Session *s, const KeyState *ks, char *buf, size_t n);
/* The keymaps a key is looked up in on the page, in order: the widget's, the shared
 * controls' (widget pages but the train widget's, whose keys are its run's), the global
 * keys'. Returns how many (at most 3). */
int session_keymaps(const Session *s, Keymap km[3]);
/* What the key table's conditions and footer labels read of the Session. */
void session_key_state(const Session *s, KeyState *ks);
/* Does req on the Session (arg: the text a front end typed for it, NULL for none: an edit's
 * sentence, a tensor's name) and fills ch. Returns 1 when the Session handled it (ch->kind
 * not CH_NONE, CH_REFUSED with why when nothing could change), 0 when req is not the
 * Session's (the front end's own: scrolling, overlays, paging, training). */
int session_request(Session *s, Request req, const char *arg, Change *ch);
/* The learner's sentence (target 0) or decoder sentence (1). 1 when handled (always). */
int session_set_sentence(Session *s, int target, const char *text, Change *ch);
/* Swaps the chips at positions i and j. */
int session_swap(Session *s, int i, int j, Change *ch);
/* Moves the chip cursor to chip i and picks it (a click: as moving there and pressing Enter). */
int session_pick_chip(Session *s, int i, Change *ch);
/* Inspects cell (row, col) of the attention shown. */
int session_select_cell(Session *s, int row, int col, Change *ch);
/* Shows tensor name on the matrix widget. */
int session_set_tensor(Session *s, const char *name, Change *ch);
/* Trains the page's run to its end at once, for a front end with no keys to answer between
 * slices (plain mode): t (again when it only paused a run), then every step. report(s,
 * step, total, every, ctx) is called with step -1 as it starts, then at the measurements a
 * tenth (1 / reports) of the run apart: step 0 before a run that had not begun, and total at
 * the end (a replay page: its recipe's measurements). ch gets t's Change. 1 when it trained
 * to the end, 0 when t was refused (ch says why), -1 when a step failed (train.err). */
int session_train_to_end(Session *s, int reports,
                         void (*report)(Session *s, int step, int total, int every, void *ctx),
                         void *ctx, Change *ch);
/* One line naming every field of the Session's state that a key may change (for the
 * parity test and its failure messages). Returns out. */
const char *session_state_line(const Session *s, char *out, size_t n);
/* One line of the Change's data (kind, request, numbers, diff), for the parity test. */
const char *session_change_line(const Change *ch, char *out, size_t n);

#endif
