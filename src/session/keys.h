/* keys.h - the player's one key table: every key bound to a named request (REQ_*), grouped
 * in keymaps (one per view and overlay, the shared widget controls, the global keys), each
 * row with the text the `?` overlay shows and the footer hint. The footer and the help are
 * generated from it (keys.c), so a key cannot be bound without its row of documentation;
 * `attend --keys` prints the table for tests/e2e/test_keys.sh. */
#ifndef ATTEND_KEYS_H
#define ATTEND_KEYS_H

#include <stddef.h>
#include <stdio.h>

#include "live.h"

/* The requests: what a key asks for. A view receives the request, not the key. */
#define KEYS_REQUESTS(X)                                                                     \
    X(REQ_NONE)                                                                              \
    /* global */                                                                             \
    X(REQ_NEXT_PAGE) X(REQ_PREV_PAGE) X(REQ_LESSON_MENU) X(REQ_PROSE_DOWN) X(REQ_PROSE_UP)   \
    X(REQ_NOTES) X(REQ_QUIZ) X(REQ_FOCUS) X(REQ_HELP) X(REQ_CANCEL) X(REQ_QUIT)              \
    X(REQ_QUIT_NOW) X(REQ_EXPORT)                                                            \
    /* the go-to-page prompt (G) */                                                          \
    X(REQ_GOTO_PAGE)                                                                         \
    /* the shared widget controls (controls.c) and the views that handle them their way */  \
    X(REQ_TOGGLE_MASK) X(REQ_TOGGLE_PADDING) X(REQ_CYCLE_PE) X(REQ_TOGGLE_SCALE)             \
    X(REQ_NEXT_HEAD) X(REQ_PREV_HEAD) X(REQ_NEXT_LAYER) X(REQ_PREV_LAYER)                    \
    X(REQ_TOGGLE_ALL_HEADS) X(REQ_TOGGLE_SCORES) X(REQ_EDIT) X(REQ_EDIT_DECODER) X(REQ_RESET) \
    X(REQ_KNOCK_OUT)                                                                         \
    /* widgets */                                                                            \
    X(REQ_CURSOR_UP) X(REQ_CURSOR_DOWN) X(REQ_CURSOR_LEFT) X(REQ_CURSOR_RIGHT)               \
    X(REQ_CURSOR_HOME) X(REQ_CURSOR_END)                                                     \
    X(REQ_CHIP_LEFT) X(REQ_CHIP_RIGHT) X(REQ_CHIP_FIRST) X(REQ_CHIP_LAST) X(REQ_PICK)        \
    X(REQ_DROP_PICK) X(REQ_RESET_ORDER)                                                      \
    X(REQ_STEP_NEXT) X(REQ_STEP_PREV)                                                        \
    X(REQ_SCROLL_UP) X(REQ_SCROLL_DOWN) X(REQ_SCROLL_LEFT) X(REQ_SCROLL_RIGHT)               \
    X(REQ_PICK_TENSOR) X(REQ_INCREASE) X(REQ_DECREASE) X(REQ_TOGGLE_TIE) X(REQ_TOGGLE_GQA)   \
    X(REQ_TRAIN_RUN) X(REQ_SAVE) X(REQ_TOGGLE_SAMPLE) X(REQ_NEXT_SEED)                       \
    /* overlays: lists, the line editor, closing */                                          \
    X(REQ_SEL_UP) X(REQ_SEL_DOWN) X(REQ_SEL_PAGE_UP) X(REQ_SEL_PAGE_DOWN) X(REQ_SEL_FIRST)   \
    X(REQ_SEL_LAST) X(REQ_ACCEPT) X(REQ_CLOSE)                                               \
    X(REQ_EDIT_LEFT) X(REQ_EDIT_RIGHT) X(REQ_EDIT_HOME) X(REQ_EDIT_END) X(REQ_EDIT_ERASE)    \
    X(REQ_EDIT_DELETE) X(REQ_EDIT_CLEAR)                                                     \
    /* the presenter (attend present, attend demo) */                                        \
    X(REQ_BLANK) X(REQ_FREEZE) X(REQ_DEMO_PAUSE) X(REQ_REVEAL) X(REQ_OPEN_ROOM)             \
    /* the quiz (Q, attend quiz) */                                                          \
    X(REQ_HINT) X(REQ_SKIP) X(REQ_RETRY)

typedef enum {
#define KEYS_ENUM(name) name,
    KEYS_REQUESTS(KEYS_ENUM)
#undef KEYS_ENUM
    REQ__COUNT
} Request;

/* Keymaps: whose keys a row binds. */
#define KEYS_MAPS(X)                                                                          \
    X(KM_NONE, "none") X(KM_GLOBAL, "global") X(KM_COMMON, "controls")                        \
    X(KM_HEATMAP, "heatmap") X(KM_CHIPS, "chips") X(KM_PASSPORT, "passport")                  \
    X(KM_MATRIX, "matrix") X(KM_WORKED, "worked") X(KM_SCALING, "scaling")                    \
    X(KM_KVCACHE, "kvcache") X(KM_COST, "cost") X(KM_PARAMS, "params") X(KM_MENU, "menu")     \
    X(KM_EDIT, "editor") X(KM_HELP, "help") X(KM_NOTES, "notes") X(KM_TENSOR, "tensor-picker") \
    X(KM_TRAIN, "train") X(KM_GOTO, "go-to-page")              \
    X(KM_GENERATE, "generate") X(KM_PROBE, "probe") X(KM_PRESENT, "presenter") X(KM_QUIZ, "quiz")                 \
    X(KM_CLASS_QUIZ, "class-quiz") X(KM_NOTES_SCREEN, "notes-screen")

typedef enum {
#define KEYS_MAP_ENUM(name, str) name,
    KEYS_MAPS(KEYS_MAP_ENUM)
#undef KEYS_MAP_ENUM
    KM__COUNT
} Keymap;

/* What the table's conditions and footer labels read of the player: a snapshot the player
 * fills (app_key_state) before a lookup or a footer, so the table knows nothing of the App. */
typedef struct {
    unsigned allowed;          /* C_* the current page allows */
    int causal, padding, pe, scale, scores; /* the model controls (pe: a PeKind) */
    int live_causal, live_scale, live_tied, live_gqa, live_step; /* explanation widgets */
    int live_sample, live_seed; /* generate: sampling (1) or greedy; the sampler's seed */
    float live_temp;           /* generate: the temperature */
    int focus;                 /* 1: z gave the widget the screen */
    int encdec;                /* 1: the page's model is an encoder-decoder */
    int all_heads;             /* 1: small multiples are shown */
    int has_questions, has_notes; /* the current page has questions / speaker notes */
    int train_running, train_causal; /* the train widget: training now; its mask */
    int mode;                  /* the open overlay's mode (KeysMode): rows that name modes
                                  bind and hint only in those */
} KeyState;

/* Fills s from what every front end (the player's App, plain mode) holds alike: the page's
 * C_* bits, the model controls and scores, the explanation widgets' state, the model (NULL:
 * none) and the page (NULL: none); the rest of s zero, for the front end to add (focus, the
 * train widget's fields). */
void keys_state_fill(KeyState *s, unsigned allowed, const Controls *ctl, int scores,
                     int all_heads, const LiveState *live, const Model *m, const Page *pg);

/* The modes an overlay's rows may be limited to (KeyState.mode; 0: none). The quiz: asking
 * (a typed answer, or a cell question with its cursor), a wrong answer on screen, a verdict
 * to read (right, or the answer shown), the summary, a terminal too small. */
typedef enum {
    KMODE_NONE,
    KMODE_QUIZ_ASK, KMODE_QUIZ_CELL, KMODE_QUIZ_WRONG, KMODE_QUIZ_VERDICT, KMODE_QUIZ_DONE,
    KMODE_QUIZ_SMALL,
    KMODE_CLASS_ASK, KMODE_CLASS_REVEALED, /* attend quiz --class: the answer hidden / shown */
    KMODE_CLASS_ROOM, KMODE_CLASS_DIST, KMODE_CLASS_END, /* with a room of students: answers
                                open, closed (the distribution shown), the final scores */
    KMODE__COUNT
} KeysMode;

/* The request key is bound to in keymap km on the current page (a row whose C_*
 * conditions the page does not meet binds nothing); REQ_NONE when unbound. */
Request keys_lookup(const KeyState *s, Keymap km, int key);

/* Appends the footer hints ("key\x1flabel\x1e", see keys_hint_append) of keymap km for the
 * current page, then those of the shared controls whose C_* bit is in common. */
void keys_hints(const KeyState *s, Keymap km, unsigned common, char *buf, size_t n);
/* Appends the global hints, in the footer's order; with_z: offer z (widget focus). */
void keys_global_hints(const KeyState *s, int with_z, char *buf, size_t n);
/* Appends one footer hint, "key\x1flabel\x1e", to buf (n bytes; cut when full). */
void keys_hint_append(char *buf, size_t n, const char *key, const char *label);
/* The hints as one line of text, "key label  key label", in out (n bytes). */
const char *keys_hints_text(const char *hints, char *out, size_t n);

/* The `?` overlay's lines, generated from the table (a line starting with '#' is a section
 * title), each description word-wrapped under itself to fit width columns (transliterated
 * to ASCII in ASCII mode). Returns the number of lines; line i is in *lines[i], static
 * storage (valid until the next call with another width). */
int keys_help(int width, const char *const **lines);
/* The text width of the `?` overlay on an 80-column screen (what `attend --keys` prints). */
#define KEYS_HELP_WIDTH 72


/* The name of key k as the help spells it ("m", "space", "←"), in buf (n bytes). */
const char *keys_key_name(int k, char *buf, size_t n);
/* The first help line of the row binding key in keymap km on the current page ("causal
 * mask on/off"; an undocumented alias: the row above it), in buf; NULL when unbound. */
const char *keys_key_help(const KeyState *s, Keymap km, int key, char *buf, size_t n);

/* Says the keys bound on the current page in maps[0..n_maps-1] (a key under the first map
 * that binds it, as a lookup finds it): emit(keys, help, ctx) once per documented row, keys
 * the names keys_parse_name reads ("b, j, left"), help the row's first help line. Plain
 * mode's help is this list. */
void keys_page_help(const KeyState *s, const Keymap *maps, int n_maps,
                    void (*emit)(const char *keys, const char *help, void *ctx), void *ctx);

/* The key a demo script names ("m", "space", "enter", "esc", "tab", "backspace", "up",
 * "down", "left", "right", "home", "end", "pgup", "pgdn", "del", "ctrl-u"); -1 if unknown.
 * keys_demo_name is its inverse (NULL for a key a script cannot name). */
int keys_parse_name(const char *name);
const char *keys_demo_name(int k, char *buf, size_t n);

/* Prints the table (keymaps, help lines, bindings with the names the help uses, footer
 * hints with every label they can show) for `attend --keys`. */
void keys_dump(FILE *f);

/* The name of a request ("REQ_NEXT_PAGE"). */
const char *keys_request_name(Request r);

#endif
