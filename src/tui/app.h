/* app.h - the player's shared state (App), the view table (ViewOps) every widget and overlay
 * fills in, and the interface the views call (app.c), below every view: app.c names no view,
 * it reaches them through the table App.views (app_views.c registers them). A key is looked
 * up in the key table (keys.h) and dispatched by app_key.c: the open overlay, else the page's
 * view, the shared controls (controls.c), the global keys. The engine recomputes the Trace;
 * every view redraws from it (layout.c lays out the panes; app_main.c runs the loop). */
#ifndef ATTEND_APP_H
#define ATTEND_APP_H

#include <stddef.h>

#include "attend_assert.h"
#include "keys.h"
#include "lesson.h"
#include "live.h"
#include "model.h"
#include "progress.h"
#include "tui.h"
#include "ui.h"
#include "session.h"
#include "widget.h"

#define APP_MAX_TOK SESSION_MAX_TOK /* longest sequence the player runs */
#define APP_MAX_VIEWS 32    /* views and overlays with private state */
#define APP_MIN_COLS 80
#define APP_MIN_LINES 24
/* Widest prose line (a readable measure on large terminals); at 80 columns it never binds. */
#define APP_MEASURE 90
/* Panes at least this tall / wide may draw bigger cells (heatmap, small multiples); 80x24
 * never reaches either, so its layout stays the compact one. */
#define APP_BIG_H 30
#define APP_BIG_W 96

/* Keys: curses function keys keep their KEY_* codes; characters above 0xFF carry this flag. */
#define APP_WCHAR UI_WCHAR

typedef struct {
    int y, x, h, w;
} Rect;

typedef struct App App;

/* One view: a widget kind's view, or an overlay (help, notes, lesson menu, sentence editor,
 * tensor picker, quiz). draw paints r from state (never recomputes; an overlay gets the
 * whole screen); key receives the request its keymap binds the key to (REQ_NONE when
 * unbound; the key itself for text input), changes state (never draws) and returns 1 if it
 * used it; need says how many rows a widget wants at width w. A view's private state is
 * state_size bytes per App, zeroed, reached with app_view_state. */
typedef struct ViewOps {
    const char *name;
    WidgetKind kind;         /* the widget it draws; W_NONE for overlays and prose pages */
    Keymap keymap;           /* an overlay's rows in the key table; a widget view sets none:
                                its keys are its kind's (session_keymap), for every front end */
    int overlay;             /* 1: an overlay, every key is its own (modal) */
    int screen;              /* 1: owns the whole screen and every key, Ctrl-C and a too
                                small terminal included (the quiz) */
    size_t state_size;
    /* overlays: open (arg: what to open on) returns 0, or -1 when it cannot open (it says
     * why with app_msg); close tears down (may be NULL) */
    int (*open)(App *a, int arg);
    void (*close)(App *a);
    void (*draw)(App *a, Rect r);
    int (*key)(App *a, Request req, int key);
    int (*need)(App *a, int w);
    int self_scroll;         /* 1: draw fits any height itself (scrolls or compacts and says
                                so); 0: the layout marks a widget cut short */
    /* self-scrolling views: how many rows of its content (token rows, table rows, heads' rows,
     * lines below) draw leaves out of sight in a w x h rect, for the learner to scroll to;
     * 0 when everything shows, compacted or not (a fold that names the unchanged rows it
     * summarises, as the KV cache's "… 3 earlier rows, unchanged", is a compact form).
     * check-lessons reports a page whose widget hides rows at 80x24. */
    int (*hidden)(App *a, int w, int h);
    /* work between keys (may be NULL): runs one bounded slice (a few tens of ms at most) and
     * returns 1 while it has more to do (the loop then polls keys instead of waiting) */
    int (*tick)(App *a);
    /* a screen that changes with no key (a countdown, a file it follows: the class quiz, the
     * notes screen, the lab page): the open overlay's, else the page view's, called each time
     * round the loop, before the draw, the loop waiting at most poll_ms for a key; returns 1
     * when the screen must be redrawn (may be NULL) */
    int (*poll)(App *a);
    int poll_ms;
    /* frees what the view's private state holds when the App goes (may be NULL) */
    void (*release)(App *a);
    /* overlays: the request (a global key, or a shared control's) that opens it with
     * app_overlay_request; REQ_NONE when only its own view opens it */
    Request opens;
    /* a mouse click at (y, x) in the widget's rect r: 1 if it used it (may be NULL) */
    int (*click)(App *a, Rect r, int y, int x);
    /* fills the view's part of the key table's state, read by conditions and footer labels;
     * an open overlay's runs after the page view's (its mode: KeyState.mode) (may be NULL) */
    void (*key_state)(const App *a, KeyState *s);
    /* the page's widget starts (app_reset_widget): the view sets its private state (cursor,
     * scroll, picks) from a->s->w's start state (may be NULL: zeroed state is its start) */
    void (*reset)(App *a);
    /* the learner typed a new sentence (target 0) or decoder sentence (1): the view drops
     * what pointed into the old one (may be NULL) */
    void (*edited)(App *a, int target);
    /* the Session answered a request with ch (app_request): the view follows what it keeps
     * of its own (the train widget's curves and heatmap) (may be NULL) */
    void (*changed)(App *a, const Change *ch);
} ViewOps;

/* The screen's layout state, shared by the loop (keys J K z, mouse) and layout.c. */
typedef struct {
    Rect wrect;              /* where the widget was last drawn (mouse clicks) */
    int prose_scroll;        /* first prose line shown */
    int focus;               /* z: the widget takes the whole body */
    int prose_cut, widget_cut; /* last layout: prose or widget shown only in part */
} AppScreen;

struct App {
    /* the course, the page, its widget and what the learner changed: the one Session both
     * front ends run on (session.h) */
    Session *s;

    /* screen */
    AppScreen scr;
    const ViewOps *overlay;  /* the open overlay, NULL when none */
    void *vstate[APP_MAX_VIEWS]; /* each view's private state (app_view_state) */
    char msg[600];           /* one status message, shown until the next key */
    int msg_warn;
    char warn[600];          /* persistent warning (broken lessons, corrupt progress) */
    int quit;
    int solo;                /* 1: the App shows one screen overlay and nothing else (attend
                                quiz, attend notes): closing it ends the loop */
    struct Present *present; /* presenter mode (present.c); NULL in the player */
    const ViewOps *const *views; /* every view, widget or overlay (app_views.c), n_views */
    int n_views;
};

/* ---- the views' interface (app.c) ---- */
/* The view of the current page's widget (the prose view, kind W_NONE, without a widget or
 * model, or for a kind no view draws). */
const ViewOps *app_cur_view(const App *a);
/* The private state of view v in a (state_size bytes, zeroed by app_new); NULL if v has
 * none. Owned by a. */
void *app_view_state(App *a, const ViewOps *v);
/* Opens overlay v (v->open decides; arg is passed on); 0, or -1 when it did not open. */
int app_overlay_open(App *a, const ViewOps *v, int arg);
/* Opens the overlay whose ViewOps.opens is req (arg passed on); 0, or -1 when none is
 * registered for req or it did not open. */
int app_overlay_request(App *a, Request req, int arg);
/* Closes the open overlay (its close runs first). */
void app_overlay_close(App *a);
/* The current page, NULL when none (a course-less App, a broken lesson). */
const Page *app_page(const App *a);
/* Recomputes the trace (and the equivariance when the page needs it), or an explanation
 * widget's numbers, from the state: one widget_run (widget.c), the run check-lessons and the
 * quiz use too. */
void app_run(App *a);
/* The placeholders, blocks and guards of the current page's prose that do not resolve on the
 * current run (up to max in f, each with its offset in the page's prose); how many. */
int app_prose_fails(App *a, PlaceholderFail *f, int max);
/* Sets a one-line status message. */
void app_msg(App *a, int warn, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Fills s with what the key table's conditions and footer labels read (keys.h). */
void app_key_state(const App *a, KeyState *s);
/* The stack and sublayer the heatmap reads. */
Stack app_stack(const App *a);
Sublayer app_sub(const App *a);
/* The mask the engine applies to one attention sublayer with the current controls ("none",
 * "causal", "padding", "both"): the causal mask never reaches an encoder-decoder model's
 * encoder or its cross-attention, whatever the m toggle says. */
const char *app_mask_name(const App *a, Stack st, Sublayer sub);
/* "layer 0 of 2  head 1 of 4": counted from 0, as trace names and placeholders are. */
void app_layer_head(const App *a, int layer, int head, char *out, size_t n);
/* The player's view invariant (ATTEND_ASSERT after every change of page, widget or control):
 * with a model, the layer and head shown are the model's. */
static inline int app_view_ok(const App *a)
{
    return session_view_ok(a->s);
}
/* The note shown above decoder rows of an encoder-decoder model (what a row stands for). */
#define APP_DEC_ROW_NOTE "row = the word being produced (it reads the word before it)"
/* Token text of row i / column j of the current attention (queries, keys). */
const char *app_row_token(const App *a, int i);
const char *app_col_token(const App *a, int j);
/* Number of (query) rows and (key) columns of the current attention. */
int app_rows(const App *a);
int app_cols(const App *a);

/* ---- the loop's pieces (app.c), also used by the benchmark ---- */
/* A new App with the n views of the table views (which must outlive it), each view's
 * private state allocated; NULL when out of memory. app_new (app_views.c) passes every
 * registered view. */
App *app_alloc(const ViewOps *const *views, int n);
/* Frees a and everything it holds (a->present must be ended first: present_end). */
void app_delete(App *a);
int app_load(App *a, const char *dir, const char *only, char *err, size_t errlen);
/* Shows widget w on model m outside any course (m and w must outlive a). 0, or -1. */
int app_use(App *a, const Model *m, const Widget *w);
/* Page navigation: opens page of lesson (clamped), resets its widget, saves progress. */
void app_open(App *a, int lesson, int page);
/* Next (dir +1) or previous (-1) page, across lessons, skipping broken ones with a warning. */
void app_turn(App *a, int dir);
/* After the Session opened a page, or refused to (ch): the player's words for it, and the
 * view's viewport starts again when a page opened. */
void app_open_done(App *a, const Change *ch);
/* Starts the widget of the current page from its start state. */
void app_reset_widget(App *a);
/* Words a Change of the Session into the status line (app_words.c): the player's wording
 * of what plain mode announces at length. */
void app_change(App *a, const Change *ch);
/* Sends request req to the Session (arg: typed text, NULL for none) and words its Change;
 * 1 when the Session handled it. */
int app_request(App *a, Request req, const char *arg);

#endif
