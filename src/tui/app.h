/* app.h - the player's state (App), shared by the loop and the views, and the view table.
 * A key changes state; the engine recomputes the Trace; every view redraws from the Trace. */
#ifndef ATTEND_APP_H
#define ATTEND_APP_H

#include <stddef.h>

#include "lesson.h"
#include "live.h"
#include "model.h"
#include "progress.h"
#include "tui.h"
#include "ui.h"
#include "widget.h"

#define APP_MAX_TOK 128     /* longest sequence the player runs (models cap it lower) */
#define APP_MAX_MODELS 16   /* models per course with their traces */
#define APP_MIN_COLS 80
#define APP_MIN_LINES 24
#define APP_PROSE_MAX 16384
/* Widest prose line (a readable measure on large terminals); at 80 columns it never binds. */
#define APP_MEASURE 90
/* Panes at least this tall / wide may draw bigger cells (heatmap, small multiples); 80x24
 * never reaches either, so its layout stays the compact one. */
#define APP_BIG_H 30
#define APP_BIG_W 96

/* Keys: curses function keys keep their KEY_* codes; characters above 0xFF carry this flag. */
#define APP_WCHAR UI_WCHAR
#define APP_CTRL(c) ((c) & 0x1f)

typedef struct {
    int y, x, h, w;
} Rect;

typedef struct App App;

/* One widget kind's view: draw paints r from state (never recomputes); key changes state
 * (never draws) and returns 1 if it used the key; keys appends the footer hints for the
 * controls allowed on this page; need says how many rows the widget wants at width w. */
typedef struct {
    WidgetKind kind;
    void (*draw)(App *a, Rect r);
    int (*key)(App *a, int key);
    void (*keys)(App *a, char *buf, size_t n);
    int (*need)(App *a, int w);
    int self_scroll;         /* 1: draw fits any height itself (scrolls or compacts and says
                                so); 0: the layout marks a widget cut short */
} ViewOps;

typedef enum { OV_NONE, OV_HELP, OV_MENU, OV_EDIT, OV_TENSOR, OV_NOTES } Overlay;

typedef struct {
    const Model *model;
    Trace *t, *eq_a, *eq_b;  /* the current run, and the two runs of the equivariance check */
} ModelTraces;

struct App {
    /* course and progress */
    Course course;
    Progress prog;
    int prog_ok;             /* 1: progress is saved on page changes */
    int lesson, page;        /* current (lesson index into course.lessons) */
    const char *only_lesson; /* --lesson ID: the menu and paging stay inside it */

    /* the engine */
    ModelTraces mt[APP_MAX_MODELS];
    int n_mt;
    const Model *model;      /* of the current page, NULL for prose only */
    Trace *t, *eq_a, *eq_b;  /* of that model */

    /* widget state: what the learner changed (Controls + view state) */
    const Widget *w;
    unsigned allowed;        /* C_* the page allows */
    char sentence[256], target[256];
    int src[APP_MAX_TOK], n_src, tgt[APP_MAX_TOK], n_tgt;
    Controls ctl;
    int order[APP_MAX_TOK];
    int layer, head, cross, scores, all_heads;
    int cur_r, cur_c;        /* heatmap cursor (query row, key column) */
    int step, scroll_r, scroll_c; /* passport / matrix */
    char tensor[40];         /* matrix widget */
    int chip_cur, chip_pick; /* chips: cursor, picked chip or -1 */
    int ran;                 /* 1: t holds a run of the current state */
    char run_err[256];
    float equiv;             /* max|Attn(PX) − P·Attn(X)|, < 0 when not computed */
    LiveWidget live;         /* explanation widgets (worked, scaling, kvcache, cost, params) */

    /* screen state */
    Rect wrect;              /* where the widget was last drawn (mouse clicks) */
    Overlay overlay;
    int menu_sel, tensor_sel, help_scroll, prose_scroll, prose_lines, prose_rows;
    int focus;               /* z: the widget takes the whole body */
    int prose_cut, widget_cut; /* last layout: prose or widget shown only in part */
    char edit[256];
    int edit_len, edit_cur, edit_target;
    char edit_msg[256];
    char msg[600];           /* one status message, shown until the next key */
    int msg_warn;
    char warn[600];          /* persistent warning (broken lessons, corrupt progress) */
    char prose[APP_PROSE_MAX];
    int quit;
};

/* ---- shared by the views (app.c) ---- */
const ViewOps *app_view(WidgetKind k);
/* Recomputes the trace (and the equivariance when the page needs it), or an explanation
 * widget's numbers, from the state: one widget_run (widget.c), the run check-lessons and the
 * quiz use too. */
void app_run(App *a);
/* Sets a one-line status message. */
void app_msg(App *a, int warn, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The stack and sublayer the heatmap reads. */
Stack app_stack(const App *a);
Sublayer app_sub(const App *a);
/* The mask the engine applies to one attention sublayer with the current controls ("none",
 * "causal", "padding", "both"): the causal mask never reaches an encoder-decoder model's
 * encoder or its cross-attention, whatever the m toggle says. */
const char *app_mask_name(const App *a, Stack st, Sublayer sub);
/* "layer 0 of 2  head 1 of 4": counted from 0, as trace names and placeholders are. */
void app_layer_head(const App *a, int layer, int head, char *out, size_t n);
/* The note shown above decoder rows of an encoder-decoder model (what a row stands for). */
#define APP_DEC_ROW_NOTE "row = the word being produced (it reads the word before it)"
/* Token text of row i / column j of the current attention (queries, keys). */
const char *app_row_token(const App *a, int i);
const char *app_col_token(const App *a, int j);
/* Number of (query) rows and (key) columns of the current attention. */
int app_rows(const App *a);
int app_cols(const App *a);
/* Appends "key label" hint pairs to a footer buffer. */
void app_hint(char *buf, size_t n, const char *key, const char *label);
/* Word-wraps text into at most maxl lines of width w at (y, x); the last line ends in "…"
 * when text is left over. Returns the lines used; app_wrap_lines only counts them. */
int app_wrap_put(int y, int x, int w, const char *text, int maxl);
int app_wrap_lines(const char *text, int w, int maxl);
/* Rows a traced matrix needs drawn whole by app_draw_matrix (column header, rows, and the
 * "cols ... of" line when not every column fits in w). */
int app_matrix_need(const TraceEntry *e, int w);
/* Draws a traced matrix in r with row labels, scrolled by (sr, sc); returns rows used. */
int app_draw_matrix(App *a, Rect r, const TraceEntry *e, int sr, int sc);
/* Scroll keys of a matrix (up/down/j/k rows, < > columns); 1 if used. Clamp after. */
int app_scroll_key(App *a, int key);
void app_clamp_scroll(App *a, const TraceEntry *e);
/* Mouse click in the chips widget rect r; 1 if it hit a chip. */
int chips_click(App *a, Rect r, int y, int x);
/* The loop's pieces (app.c), also used by the benchmark. */
App *app_new(void);
void app_delete(App *a);
int app_load(App *a, const char *dir, const char *only, char *err, size_t errlen);
/* Shows widget w on model m outside any course (m and w must outlive a). 0, or -1. */
int app_use(App *a, const Model *m, const Widget *w);
void app_draw(App *a);
void app_key(App *a, int key);
/* Handles the toggles shared by heatmap/chips/passport (m p s d [ ] h H l L a v e r).
 * Returns 1 if used. */
int app_common_key(App *a, int key);
void app_common_hints(App *a, char *buf, size_t n);
/* Starts the line editor on the sentence (target = 1: the decoder's sentence). */
void app_edit_start(App *a, int target);

extern const ViewOps VIEW_HEATMAP, VIEW_CHIPS, VIEW_PASSPORT, VIEW_MATRIX, VIEW_NONE;
extern const ViewOps VIEW_WORKED, VIEW_SCALING, VIEW_KVCACHE, VIEW_COST, VIEW_PARAMS;

/* Overlays (view_help.c, view_menu.c, view_edit.c). */
void help_draw(App *a);
int help_key(App *a, int key);
void menu_draw(App *a);
int menu_key(App *a, int key);   /* may open another lesson */
void edit_draw(App *a);
int edit_key(App *a, int key);
void tensor_pick_draw(App *a);
int tensor_pick_key(App *a, int key);
void notes_draw(App *a);

/* Page navigation (app.c). */
void app_open(App *a, int lesson, int page);
/* The page the lesson menu opens a lesson at: the saved page when it is the lesson the
 * progress file was left in, else its first page not yet seen, else 0. */
int app_resume_page(const App *a, int lesson);
/* Starts the widget of the current page from its start state. */
void app_reset_widget(App *a);

#endif
