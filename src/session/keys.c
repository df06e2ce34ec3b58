/* keys.c - the player's key table: each row binds keys to requests in one keymap and
 * carries the `?` overlay's line for them and the footer hint (with the C_* control bits
 * that make them available). The footer, the help and `attend --keys` read it; nothing
 * else binds a key. */
#include "keys.h"

#include <string.h>

#include "lesson.h"
#include "model.h"
#include "ui_text.h"

typedef struct {
    int key;
    Request req;
    int alias; /* 1: bound but not spelled out in its help line; the pinned help screen
                  predates the table (Home/End, ',' '.', '=' '_', ^A ^E and the like) */
} KeyBind;

typedef struct {
    Keymap map;
    const char *help_key;   /* the help line's key column; NULL: the row above documents it */
    const char *help;       /* the description (the overlay word-wraps it); '\n' starts a line */
    const char *hint_key;   /* footer key; NULL: no hint */
    const char *hint_ascii; /* footer key in ASCII mode; NULL: hint_key */
    const char *hint;       /* footer label; with label(): every label it can show, '|'
                               between them, %s for a word (what --keys prints) */
    const char *(*label)(const KeyState *a, char *buf, size_t n);
    const char *(*key_fn)(const KeyState *a); /* footer key chosen by state; NULL: hint_key */
    unsigned need, unless;  /* C_* the page must allow / must not allow, for keys and hint */
    int (*when)(const KeyState *a, int with_z); /* the hint's extra condition; NULL: none */
    int rank;               /* the global hints' footer position (the help keeps table order) */
    unsigned modes;         /* bits 1 << KeysMode: the row binds and hints only in those
                               modes of its overlay; 0: in every mode */
    KeyBind keys[12];       /* ended by key 0 */
} KeyRow;

#define K(k, r) {(k), (r), 0}
#define KA(k, r) {(k), (r), 1}

/* ---- footer labels and conditions (they read the KeyState snapshot of the player) ---- */
static const char *on_off(int v, const char *on, const char *off) { return v ? on : off; }
static const char *l_mask(const KeyState *a, char *b, size_t n)
{
    (void)b, (void)n;
    return on_off(a->causal, "mask:on", "mask:off");
}
static const char *l_train_run(const KeyState *a, char *b, size_t n)
{
    (void)b, (void)n;
    return on_off(a->train_running, "pause", "train");
}
static const char *l_train_mask(const KeyState *a, char *b, size_t n)
{
    (void)b, (void)n;
    return on_off(a->train_causal, "mask:on", "mask:off");
}
static const char *l_pad(const KeyState *a, char *b, size_t n)
{
    (void)b, (void)n;
    return on_off(a->padding, "pad:on", "pad:off");
}
static const char *l_pe(const KeyState *a, char *b, size_t n)
{
    snprintf(b, n, "PE:%s", model_pe_name(a->pe));
    return b;
}
static const char *l_scale(const KeyState *a, char *b, size_t n)
{
    (void)b, (void)n;
    return on_off(a->scale, "scale:on", "scale:off");
}
static const char *l_scores(const KeyState *a, char *b, size_t n)
{
    (void)b, (void)n;
    return on_off(a->scores, "weights", "scores");
}
static const char *l_live_mask(const KeyState *a, char *b, size_t n)
{
    (void)b, (void)n;
    return a->live_causal == 2 ? "mask:late" : on_off(a->live_causal, "mask:on", "mask:off");
}
static const char *l_live_scale(const KeyState *a, char *b, size_t n)
{
    (void)b, (void)n;
    return on_off(a->live_scale, "scale:on", "scale:off");
}
static const char *l_tied(const KeyState *a, char *b, size_t n)
{
    (void)b, (void)n;
    return on_off(a->live_tied, "tied:yes", "tied:no");
}
static const char *l_gqa(const KeyState *a, char *b, size_t n)
{
    (void)b, (void)n;
    return on_off(a->live_gqa, "GQA:on", "GQA:off");
}
static const char *l_gen_mode(const KeyState *a, char *b, size_t n)
{
    if (!a->live_sample)
        return "greedy";
    snprintf(b, n, "T=%g", (double)a->live_temp);
    return b;
}
static const char *l_gen_seed(const KeyState *a, char *b, size_t n)
{
    snprintf(b, n, "seed %d", a->live_seed);
    return b;
}
static int w_sample(const KeyState *a, int z)
{
    (void)z;
    return a->live_sample;
}
static const char *l_pick(const KeyState *a, char *b, size_t n)
{
    (void)a, (void)b, (void)n;
    return ui.mouse ? "pick/click" : "pick";
}
static const char *l_focus(const KeyState *a, char *b, size_t n)
{
    (void)b, (void)n;
    return a->focus ? "prose" : "widget";
}
static const char *k_worked_step(const KeyState *a)
{
    return (a->allowed & C_CURSOR) || !ui.utf8 ? "n/N" : "n/N ←→";
}
static int w_encdec(const KeyState *a, int z)
{
    (void)z;
    return a->encdec;
}
static int w_not_all_heads(const KeyState *a, int z)
{
    (void)z;
    return !a->all_heads;
}
static int w_swap(const KeyState *a, int z)
{
    (void)z;
    return (a->allowed & C_SWAP) != 0;
}
static int w_live_step(const KeyState *a, int z)
{
    (void)z;
    return a->live_step >= 1;
}
static int w_z(const KeyState *a, int z)
{
    (void)a;
    return z;
}
static int w_questions(const KeyState *a, int z)
{
    (void)z;
    return a->has_questions;
}
static int w_notes(const KeyState *a, int z)
{
    (void)z;
    return a->has_notes;
}
static int w_no_gqa(const KeyState *a, int z)
{
    (void)z;
    return !(a->allowed & C_GQA);
}
static int w_gqa(const KeyState *a, int z)
{
    return !w_no_gqa(a, z);
}

#define ARROWS4 "←↑↓→"
#define SCROLL_KEYS                                                                           \
    {K(UI_KEY_UP, REQ_SCROLL_UP), K('k', REQ_SCROLL_UP), K(UI_KEY_DOWN, REQ_SCROLL_DOWN),           \
     K('j', REQ_SCROLL_DOWN), K('<', REQ_SCROLL_LEFT), KA(',', REQ_SCROLL_LEFT),              \
     K('>', REQ_SCROLL_RIGHT), KA('.', REQ_SCROLL_RIGHT)}
#define CURSOR_KEYS                                                                           \
    K(UI_KEY_UP, REQ_CURSOR_UP), K('k', REQ_CURSOR_UP), K(UI_KEY_DOWN, REQ_CURSOR_DOWN),            \
        K('j', REQ_CURSOR_DOWN), K(UI_KEY_LEFT, REQ_CURSOR_LEFT), K('b', REQ_CURSOR_LEFT),       \
        K(UI_KEY_RIGHT, REQ_CURSOR_RIGHT), K('w', REQ_CURSOR_RIGHT)
#define PLUS_MINUS_KEYS                                                                       \
    {K('+', REQ_INCREASE), KA('=', REQ_INCREASE), KA(UI_KEY_UP, REQ_INCREASE),                   \
     K('-', REQ_DECREASE), KA('_', REQ_DECREASE), KA(UI_KEY_DOWN, REQ_DECREASE)}
#define ENTER_KEYS(r) K('\r', r), K('\n', r), K(UI_KEY_ENTER, r)
#define MODE(m) (1u << (m))
#define QUIZ_ASKING (MODE(KMODE_QUIZ_ASK) | MODE(KMODE_QUIZ_CELL))
#define QUIZ_ANY (QUIZ_ASKING | MODE(KMODE_QUIZ_WRONG) | MODE(KMODE_QUIZ_VERDICT) |              \
                  MODE(KMODE_QUIZ_DONE) | MODE(KMODE_QUIZ_SMALL))

/* The table, in the help's order (sections below). */
static const KeyRow ROWS[] = {
    /* ---- everywhere ---- */
    {.map = KM_GLOBAL, .help_key = "space, PgDn",
     .help = "next page (continues into the next lesson)", .hint_key = "spc", .hint = "next",
     .rank = 4, .keys = {K(' ', REQ_NEXT_PAGE), K(UI_KEY_NPAGE, REQ_NEXT_PAGE)}},
    {.map = KM_GLOBAL, .help_key = "backspace, PgUp", .help = "previous page",
     .hint_key = "bksp", .hint = "back", .rank = 5,
     .keys = {K(UI_KEY_PPAGE, REQ_PREV_PAGE), K(UI_KEY_BACKSPACE, REQ_PREV_PAGE),
              K(KEY_ASCII_DEL, REQ_PREV_PAGE), K(KEY_CTRL_H, REQ_PREV_PAGE)}},
    {.map = KM_GLOBAL, .help_key = "g, Tab", .help = "lesson menu with completion marks",
     .hint_key = "g", .hint = "lessons", .when = w_no_gqa, .rank = 6,
     .keys = {K('g', REQ_LESSON_MENU), K('\t', REQ_LESSON_MENU)}},
    /* on a GQA page g is the params widget's: the footer names Tab (the help says so there) */
    {.map = KM_GLOBAL, .hint_key = "Tab", .hint = "lessons", .when = w_gqa, .rank = 6},
    {.map = KM_GLOBAL, .help_key = "G",
     .help = "go to a page: type its number (in this lesson) or lesson-id:number; enter",
     .keys = {K('G', REQ_GOTO_PAGE)}},
    {.map = KM_GLOBAL, .help_key = "J / K",
     .help = "scroll the prose down / up when it does not fit",
     .keys = {K('J', REQ_PROSE_DOWN), K('K', REQ_PROSE_UP)}},
    {.map = KM_GLOBAL, .help_key = "o", .help = "speaker notes of the page (when it has some)",
     .hint_key = "o", .hint = "notes", .when = w_notes, .rank = 3,
     .keys = {K('o', REQ_NOTES)}},
    {.map = KM_GLOBAL, .help_key = "Q",
     .help = "this lesson's questions (a quiz; the footer shows Q on pages that have questions)",
     .hint_key = "Q", .hint = "questions", .when = w_questions, .rank = 2,
     .keys = {K('Q', REQ_QUIZ)}},
    {.map = KM_GLOBAL, .help_key = "x",
     .help = "export the widget: an SVG figure (and a heatmap's or a table's CSV) in . or $ATTEND_EXPORT_DIR, never over a file",
     .keys = {K('x', REQ_EXPORT)}},
    {.map = KM_GLOBAL, .help_key = "z",
     .help = "widget focus: the widget takes the whole screen (z again: prose and widget); the "
             "footer offers it when prose is cut",
     .hint_key = "z", .hint = "prose|widget", .label = l_focus, .when = w_z, .rank = 1,
     .keys = {K('z', REQ_FOCUS)}},
    {.map = KM_GLOBAL, .help_key = "?, F1", .help = "this help;  ESC or q closes it",
     .hint_key = "?", .hint = "help", .rank = 7,
     .keys = {K('?', REQ_HELP), K(UI_KEY_F1, REQ_HELP)}},
    /* ESC on a page: nothing to close, and no "key not used" either */
    {.map = KM_GLOBAL, .keys = {K(KEY_ESCAPE, REQ_CANCEL)}},
    {.map = KM_GLOBAL, .help_key = "q, Ctrl-C",
     .help = "quit (progress is saved on every page change)", .hint_key = "q", .hint = "quit",
     .rank = 8, .keys = {K('q', REQ_QUIT), K(KEY_CTRL('c'), REQ_QUIT_NOW)}},

    /* ---- heatmap; then the shared controls, documented under it ---- */
    {.map = KM_HEATMAP, .help_key = "arrows, j/k, b/w",
     .help = "move the cell cursor: q_i·k_j, ÷√d_k, mask, weight", .hint_key = ARROWS4,
     .hint_ascii = "arrows", .hint = "cell", .need = C_CURSOR, .when = w_not_all_heads,
     .keys = {CURSOR_KEYS, KA(UI_KEY_HOME, REQ_CURSOR_HOME), KA(UI_KEY_END, REQ_CURSOR_END)}},
    {.map = KM_COMMON, .help_key = "m", .help = "causal mask on/off", .hint_key = "m",
     .hint = "mask:on|mask:off", .label = l_mask, .need = C_MASK,
     .keys = {K('m', REQ_TOGGLE_MASK)}},
    {.map = KM_COMMON, .help_key = "d", .help = "padding mask on/off", .hint_key = "d",
     .hint = "pad:on|pad:off", .label = l_pad, .need = C_PADDING,
     .keys = {K('d', REQ_TOGGLE_PADDING)}},
    {.map = KM_COMMON, .help_key = "p",
     .help = "positional encoding: none → sinusoidal → learned → rope", .hint_key = "p",
     .hint = "PE:%s", .label = l_pe, .need = C_PE, .keys = {K('p', REQ_CYCLE_PE)}},
    {.map = KM_COMMON, .help_key = "s", .help = "scaling by 1/√d_k on/off", .hint_key = "s",
     .hint = "scale:on|scale:off", .label = l_scale, .need = C_SCALE,
     .keys = {K('s', REQ_TOGGLE_SCALE)}},
    {.map = KM_COMMON, .help_key = "] or h / [ or H", .help = "next / previous head",
     .hint_key = "[ ]", .hint = "head", .need = C_HEAD,
     .keys = {K(']', REQ_NEXT_HEAD), K('h', REQ_NEXT_HEAD), K('[', REQ_PREV_HEAD),
              K('H', REQ_PREV_HEAD)}},
    {.map = KM_COMMON, .help_key = "l / L", .help = "next / previous layer", .hint_key = "l",
     .hint = "layer", .need = C_LAYER,
     .keys = {K('l', REQ_NEXT_LAYER), K('L', REQ_PREV_LAYER)}},
    {.map = KM_COMMON, .help_key = "X",
     .help = "knock the current head out (its output zeroed) / back in; says what changed",
     .hint_key = "X", .hint = "knock out", .need = C_HEAD, .keys = {K('X', REQ_KNOCK_OUT)}},
    {.map = KM_COMMON, .help_key = "a", .help = "all heads of the layer as small multiples",
     .hint_key = "a", .hint = "all heads", .need = C_ALL_HEADS,
     .keys = {K('a', REQ_TOGGLE_ALL_HEADS)}},
    {.map = KM_COMMON, .help_key = "v", .help = "weights ↔ pre-softmax scores (−∞ where masked)",
     .hint_key = "v", .hint = "weights|scores", .label = l_scores, .need = C_SCORES,
     .keys = {K('v', REQ_TOGGLE_SCORES)}},
    {.map = KM_COMMON, .help_key = "e", .help = "edit the sentence; ESC cancels",
     .hint_key = "e", .hint = "edit", .need = C_EDIT, .keys = {K('e', REQ_EDIT)}},
    /* E on a decoder-only model edits the one sentence, as e does */
    {.map = KM_COMMON, .help_key = "E",
     .help = "edit the decoder's sentence (encoder-decoder models)", .hint_key = "E",
     .hint = "edit decoder", .need = C_EDIT, .when = w_encdec,
     .keys = {K('E', REQ_EDIT_DECODER)}},
    {.map = KM_COMMON, .help_key = "r", .help = "reset the controls to the page's start",
     .hint_key = "r", .hint = "reset", .need = C_RESET, .keys = {K('r', REQ_RESET)}},

    /* ---- chips ---- */
    {.map = KM_CHIPS, .help_key = "←/→ (h/l)", .help = "move between chips", .hint_key = "←→",
     .hint_ascii = "left/right", .hint = "chip",
     .keys = {K(UI_KEY_LEFT, REQ_CHIP_LEFT), K(UI_KEY_RIGHT, REQ_CHIP_RIGHT),
              KA(UI_KEY_HOME, REQ_CHIP_FIRST), KA(UI_KEY_END, REQ_CHIP_LAST)}},
    /* h and l are head and layer where the page allows those */
    {.map = KM_CHIPS, .unless = C_HEAD | C_LAYER,
     .keys = {K('h', REQ_CHIP_LEFT), K('l', REQ_CHIP_RIGHT)}},
    /* without C_SWAP enter still answers, saying swapping is not part of the page */
    {.map = KM_CHIPS, .help_key = "enter", .help = "pick a chip; pick a second one to swap them",
     .hint_key = "enter", .hint = "pick/click|pick", .label = l_pick, .when = w_swap,
     .keys = {ENTER_KEYS(REQ_PICK), KA(KEY_ESCAPE, REQ_DROP_PICK)}},
    {.map = KM_CHIPS, .help_key = "mouse click", .help = "pick a chip (only with attend --mouse)"},
    {.map = KM_CHIPS, .help_key = "r", .help = "original order", .hint_key = "r",
     .hint = "reset order", .need = C_RESET, .keys = {K('r', REQ_RESET_ORDER)}},

    /* ---- shape passport ---- */
    {.map = KM_PASSPORT, .help_key = "n or →, N or ←", .help = "next / previous step of the block",
     .hint_key = "n/N ←→", .hint_ascii = "n/N", .hint = "step", .need = C_STEP,
     .keys = {K('n', REQ_STEP_NEXT), K(UI_KEY_RIGHT, REQ_STEP_NEXT), K('N', REQ_STEP_PREV),
              K(UI_KEY_LEFT, REQ_STEP_PREV)}},
    {.map = KM_PASSPORT, .help_key = "↑/↓ j/k, < >", .help = "scroll the matrix",
     .hint_key = "↑↓ < >", .hint_ascii = "up/down < >", .hint = "scroll", .keys = SCROLL_KEYS},

    /* ---- matrix ---- */
    {.map = KM_MATRIX, .help_key = "t", .help = "pick any traced tensor by name", .hint_key = "t",
     .hint = "pick tensor", .need = C_TENSOR, .keys = {K('t', REQ_PICK_TENSOR)}},
    {.map = KM_MATRIX, .help_key = "↑/↓ j/k, < >", .help = "scroll the matrix",
     .hint_key = "↑↓ < >", .hint_ascii = "up/down < >", .hint = "scroll", .keys = SCROLL_KEYS},

    /* ---- worked example ---- */
    {.map = KM_WORKED, .help_key = "n / N",
     .help = "next / previous step: Q K V, QKᵀ, ÷√d_k, +M, softmax, ·V (→ / ← too when the "
             "page has no cell cursor)",
     .hint_key = "n/N ←→", .hint_ascii = "n/N", .hint = "step", .key_fn = k_worked_step,
     .need = C_STEP, .keys = {K('n', REQ_STEP_NEXT), K('N', REQ_STEP_PREV)}},
    {.map = KM_WORKED, .need = C_STEP, .unless = C_CURSOR,
     .keys = {K(UI_KEY_RIGHT, REQ_STEP_NEXT), K(UI_KEY_LEFT, REQ_STEP_PREV)}},
    {.map = KM_WORKED, .help_key = "arrows, j/k, b/w",
     .help = "a cell, written out: q·k term by term, ÷√d_k, mask, softmax", .hint_key = ARROWS4,
     .hint_ascii = "arrows", .hint = "cell", .need = C_CURSOR, .when = w_live_step,
     .keys = {CURSOR_KEYS}},
    {.map = KM_WORKED, .help_key = "m, s", .help = "causal mask: off, before softmax, after softmax (the\ncommon mistake, shown live); scaling by 1/√d_k",
     .hint_key = "m", .hint = "mask:on|mask:off|mask:late", .label = l_live_mask, .need = C_MASK,
     .keys = {K('m', REQ_TOGGLE_MASK)}},
    {.map = KM_WORKED, .hint_key = "s", .hint = "scale:on|scale:off", .label = l_live_scale,
     .need = C_SCALE, .keys = {K('s', REQ_TOGGLE_SCALE)}},

    /* ---- √d_k experiment ---- */
    {.map = KM_SCALING, .help_key = "+ / -", .help = "double / halve d_k (1..1024)",
     .hint_key = "+/-", .hint = "d_k", .need = C_DK, .keys = PLUS_MINUS_KEYS},
    {.map = KM_SCALING, .help_key = "s", .help = "which scores the model uses: unscaled or ÷√d_k",
     .hint_key = "s", .hint = "scale:on|scale:off", .label = l_live_scale, .need = C_SCALE,
     .keys = {K('s', REQ_TOGGLE_SCALE)}},

    /* ---- KV cache ---- */
    {.map = KM_KVCACHE, .help_key = "n or →, N or ←", .help = "generate one more token / one fewer",
     .hint_key = "n/N ←→", .hint_ascii = "n/N", .hint = "step", .need = C_STEP,
     .keys = {K('n', REQ_STEP_NEXT), K(UI_KEY_RIGHT, REQ_STEP_NEXT), K('N', REQ_STEP_PREV),
              K(UI_KEY_LEFT, REQ_STEP_PREV)}},

    /* ---- generate (view_generate.c) ---- */
    {.map = KM_GENERATE, .help_key = "n or →, N or ←",
     .help = "append the next token / take the last one back", .hint_key = "n/N ←→",
     .hint_ascii = "n/N", .hint = "next token", .need = C_STEP,
     .keys = {K('n', REQ_STEP_NEXT), K(UI_KEY_RIGHT, REQ_STEP_NEXT), K('N', REQ_STEP_PREV),
              K(UI_KEY_LEFT, REQ_STEP_PREV)}},
    {.map = KM_GENERATE, .help_key = "t",
     .help = "greedy / sampling at a temperature, from a seed\n(the same seed, the same text)",
     .hint_key = "t", .hint = "greedy|T=%s", .label = l_gen_mode, .need = C_SAMPLE,
     .keys = {K('t', REQ_TOGGLE_SAMPLE)}},
    {.map = KM_GENERATE, .help_key = "+ / -", .help = "raise / lower the temperature (sampling)",
     .hint_key = "+/-", .hint = "temperature", .need = C_SAMPLE, .when = w_sample,
     .keys = PLUS_MINUS_KEYS},
    {.map = KM_GENERATE, .help_key = "s", .help = "the next seed: another draw (sampling)",
     .hint_key = "s", .hint = "seed %s", .label = l_gen_seed, .need = C_SAMPLE,
     .when = w_sample, .keys = {K('s', REQ_NEXT_SEED)}},

    /* ---- the probe widgets: lens, attribution, effect (view_probe.c) ---- */
    {.map = KM_PROBE, .help_key = "n or →, N or ←",
     .help = "the next / previous position: the row the numbers are of", .hint_key = "n/N ←→",
     .hint_ascii = "n/N", .hint = "position", .need = C_STEP,
     .keys = {K('n', REQ_STEP_NEXT), K(UI_KEY_RIGHT, REQ_STEP_NEXT), K('N', REQ_STEP_PREV),
              K(UI_KEY_LEFT, REQ_STEP_PREV)}},

    /* ---- cost ---- */
    {.map = KM_COST, .help_key = "+ / -", .help = "double / halve N (1..8192)", .hint_key = "+/-",
     .hint = "N", .need = C_N, .keys = PLUS_MINUS_KEYS},

    /* ---- parameters ---- */
    {.map = KM_PARAMS, .help_key = "t",
     .help = "tied embeddings on/off (the LM head reuses the embedding)", .hint_key = "t",
     .hint = "tied:yes|tied:no", .label = l_tied, .need = C_TIE,
     .keys = {K('t', REQ_TOGGLE_TIE)}},
    {.map = KM_PARAMS, .help_key = "g",
     .help = "grouped-query attention on/off; Tab opens the lesson menu there", .hint_key = "g",
     .hint = "GQA:on|GQA:off", .label = l_gqa, .need = C_GQA, .keys = {K('g', REQ_TOGGLE_GQA)}},

    /* ---- train (view_train.c) ---- */
    {.map = KM_TRAIN, .help_key = "t", .help = "start / pause training (in slices: keys answer)",
     .hint_key = "t", .hint = "train|pause", .label = l_train_run,
     .keys = {K('t', REQ_TRAIN_RUN)}},
    {.map = KM_TRAIN, .help_key = "m",
     .help = "causal mask while training, set before starting (off: the cheating run)",
     .hint_key = "m", .hint = "mask:on|mask:off", .label = l_train_mask, .need = C_MASK,
     .keys = {K('m', REQ_TOGGLE_MASK)}},
    {.map = KM_TRAIN, .help_key = "] or h / [ or H", .help = "the heatmap's next / previous head",
     .hint_key = "h/l", .hint = "head", .need = C_HEAD,
     .keys = {K(']', REQ_NEXT_HEAD), K('h', REQ_NEXT_HEAD), K('[', REQ_PREV_HEAD),
              K('H', REQ_PREV_HEAD)}},
    {.map = KM_TRAIN, .help_key = "l / L", .help = "the heatmap's next / previous layer",
     .need = C_LAYER, .keys = {K('l', REQ_NEXT_LAYER), K('L', REQ_PREV_LAYER)}},
    {.map = KM_TRAIN, .help_key = "r",
     .help = "reset: fresh weights, step 0 (a replay page: back to the replay)",
     .hint_key = "r", .hint = "reset", .need = C_RESET, .keys = {K('r', REQ_RESET)}},
    {.map = KM_TRAIN, .help_key = "w", .help = "write the trained model to a model file",
     .hint_key = "w", .hint = "save", .keys = {K('w', REQ_SAVE)}},

    /* ---- overlays ---- */
    {.map = KM_MENU, .help_key = "↑/↓ j/k, enter", .help = "choose and open a lesson;  ESC closes",
     .keys = {K(UI_KEY_UP, REQ_SEL_UP), K('k', REQ_SEL_UP), K(UI_KEY_DOWN, REQ_SEL_DOWN),
              K('j', REQ_SEL_DOWN), KA(UI_KEY_HOME, REQ_SEL_FIRST), KA(UI_KEY_END, REQ_SEL_LAST),
              ENTER_KEYS(REQ_ACCEPT), K(KEY_ESCAPE, REQ_CLOSE)}},
    {.map = KM_MENU, .keys = {KA('q', REQ_CLOSE), KA('g', REQ_CLOSE), KA('\t', REQ_CLOSE)}},
    {.map = KM_EDIT, .help_key = "←/→ Home/End",
     .help = "move;  backspace/Del erase;  Ctrl-U clears",
     .keys = {K(UI_KEY_LEFT, REQ_EDIT_LEFT), K(UI_KEY_RIGHT, REQ_EDIT_RIGHT),
              K(UI_KEY_HOME, REQ_EDIT_HOME), KA(KEY_CTRL('a'), REQ_EDIT_HOME),
              K(UI_KEY_END, REQ_EDIT_END), KA(KEY_CTRL('e'), REQ_EDIT_END),
              K(UI_KEY_BACKSPACE, REQ_EDIT_ERASE), K(KEY_ASCII_DEL, REQ_EDIT_ERASE),
              K(KEY_CTRL_H, REQ_EDIT_ERASE), K(UI_KEY_DC, REQ_EDIT_DELETE),
              K(KEY_CTRL('u'), REQ_EDIT_CLEAR)}},
    {.map = KM_EDIT, .help_key = "enter", .help = "use the sentence;  ESC cancels",
     .keys = {ENTER_KEYS(REQ_ACCEPT), K(KEY_ESCAPE, REQ_CLOSE)}},
    /* not in `?`: these overlays name their keys on their own box (title, scroll sign) */
    {.map = KM_HELP, .help_key = "↑/↓ j/k, PgUp/PgDn",
     .help = "scroll this help; any other key closes it",
     .keys = {K(UI_KEY_UP, REQ_SEL_UP), K('k', REQ_SEL_UP), K(UI_KEY_DOWN, REQ_SEL_DOWN),
              K('j', REQ_SEL_DOWN), K(UI_KEY_NPAGE, REQ_SEL_PAGE_DOWN),
              KA(' ', REQ_SEL_PAGE_DOWN), K(UI_KEY_PPAGE, REQ_SEL_PAGE_UP)}},
    {.map = KM_NOTES, .help_key = "ESC, q, o, enter", .help = "close the speaker notes",
     .keys = {K(KEY_ESCAPE, REQ_CLOSE), K('q', REQ_CLOSE), KA('N', REQ_CLOSE),
              K('\r', REQ_CLOSE), K('\n', REQ_CLOSE), K('o', REQ_CLOSE)}},
    {.map = KM_TENSOR, .help_key = "↑/↓ j/k, PgUp/PgDn, Home/End, enter",
     .help = "choose a tensor and show it;  ESC, q or t closes",
     .keys = {K(UI_KEY_UP, REQ_SEL_UP), K('k', REQ_SEL_UP), K(UI_KEY_DOWN, REQ_SEL_DOWN),
              K('j', REQ_SEL_DOWN), K(UI_KEY_NPAGE, REQ_SEL_PAGE_DOWN),
              K(UI_KEY_PPAGE, REQ_SEL_PAGE_UP), K(UI_KEY_HOME, REQ_SEL_FIRST),
              K(UI_KEY_END, REQ_SEL_LAST), ENTER_KEYS(REQ_ACCEPT)}},
    {.map = KM_TENSOR, .keys = {K(KEY_ESCAPE, REQ_CLOSE), K('q', REQ_CLOSE), K('t', REQ_CLOSE)}},

    /* ---- the quiz (view_quiz.c: Q in the player, attend quiz): each row in its stages;
     * while asking, an unbound key is typed into the answer ---- */
    {.map = KM_QUIZ, .help_key = "enter",
     .help = "check the answer typed (a cell question: the cell under the cursor)",
     .hint_key = "enter", .hint = "check", .modes = QUIZ_ASKING, .keys = {ENTER_KEYS(REQ_ACCEPT)}},
    {.map = KM_QUIZ, .help_key = "←/→", .help = "a cell question: the cursor along the row",
     .hint_key = "←/→", .hint = "column", .modes = MODE(KMODE_QUIZ_CELL),
     .keys = {K(UI_KEY_LEFT, REQ_CURSOR_LEFT), K(UI_KEY_RIGHT, REQ_CURSOR_RIGHT)}},
    {.map = KM_QUIZ, .help_key = "backspace, Ctrl-U", .help = "erase a character / the answer",
     .modes = QUIZ_ASKING,
     .keys = {K(UI_KEY_BACKSPACE, REQ_EDIT_ERASE), K(KEY_ASCII_DEL, REQ_EDIT_ERASE),
              K(KEY_CTRL_H, REQ_EDIT_ERASE), K(KEY_CTRL('u'), REQ_EDIT_CLEAR)}},
    {.map = KM_QUIZ, .help_key = "r", .help = "after a wrong answer: try again",
     .hint_key = "r", .hint = "retry", .modes = MODE(KMODE_QUIZ_WRONG),
     .keys = {K('r', REQ_RETRY)}},
    {.map = KM_QUIZ, .help_key = "?, F1", .help = "a hint (counted; each question has a few)",
     .hint_key = "?", .hint = "hint", .modes = QUIZ_ASKING | MODE(KMODE_QUIZ_WRONG),
     .keys = {K('?', REQ_HINT), K(UI_KEY_F1, REQ_HINT)}},
    {.map = KM_QUIZ, .help_key = "enter, space, n",
     .help = "after a wrong answer: show the expected answer and why",
     .hint_key = "enter", .hint = "show the answer", .modes = MODE(KMODE_QUIZ_WRONG),
     .keys = {ENTER_KEYS(REQ_ACCEPT), K(' ', REQ_ACCEPT), K('n', REQ_ACCEPT)}},
    {.map = KM_QUIZ, .help_key = "Tab", .help = "skip the question (it is due again at once)",
     .hint_key = "tab", .hint = "skip", .modes = QUIZ_ASKING | MODE(KMODE_QUIZ_WRONG),
     .keys = {K('\t', REQ_SKIP)}},
    {.map = KM_QUIZ, .modes = MODE(KMODE_QUIZ_VERDICT), .keys = {K('\t', REQ_SKIP)}},
    {.map = KM_QUIZ, .help_key = "ESC", .help = "while asking: leave the quiz (q is typed)",
     .hint_key = "esc", .hint = "quit", .modes = QUIZ_ASKING, .keys = {K(KEY_ESCAPE, REQ_CLOSE)}},
    {.map = KM_QUIZ, .help_key = "enter, space, n", .help = "after a verdict: the next question",
     .hint_key = "enter", .hint = "next", .modes = MODE(KMODE_QUIZ_VERDICT),
     .keys = {ENTER_KEYS(REQ_STEP_NEXT), K(' ', REQ_STEP_NEXT), K('n', REQ_STEP_NEXT)}},
    {.map = KM_QUIZ, .help_key = "↑/↓, k/j", .help = "scroll the question, the answer and why "
     "when they do not fit (a mark says how many lines are out of sight; k/j after an answer)",
     .modes = MODE(KMODE_QUIZ_WRONG) | MODE(KMODE_QUIZ_VERDICT),
     .keys = {K(UI_KEY_UP, REQ_CURSOR_UP), K(UI_KEY_DOWN, REQ_CURSOR_DOWN), K('k', REQ_CURSOR_UP),
              K('j', REQ_CURSOR_DOWN)}},
    {.map = KM_QUIZ, .modes = QUIZ_ASKING,
     .keys = {K(UI_KEY_UP, REQ_CURSOR_UP), K(UI_KEY_DOWN, REQ_CURSOR_DOWN)}},
    {.map = KM_QUIZ, .help_key = "q, ESC",
     .help = "after a verdict, or in a terminal too small: leave the quiz", .hint_key = "q",
     .hint = "quit", .modes = MODE(KMODE_QUIZ_WRONG) | MODE(KMODE_QUIZ_VERDICT),
     .keys = {K('q', REQ_CLOSE), K(KEY_ESCAPE, REQ_CLOSE)}},
    {.map = KM_QUIZ, .modes = MODE(KMODE_QUIZ_SMALL),
     .keys = {K('q', REQ_CLOSE), K(KEY_ESCAPE, REQ_CLOSE)}},
    {.map = KM_QUIZ, .help_key = "enter, q, ESC, space", .help = "the summary: close it",
     .hint_key = "enter or q", .hint = "close", .modes = MODE(KMODE_QUIZ_DONE),
     .keys = {ENTER_KEYS(REQ_CLOSE), K('q', REQ_CLOSE), K(KEY_ESCAPE, REQ_CLOSE),
              K(' ', REQ_CLOSE)}},
    {.map = KM_QUIZ, .help_key = "Ctrl-C", .help = "leave the quiz at once (scores so far are kept)",
     .modes = QUIZ_ANY, .keys = {K(KEY_CTRL('c'), REQ_CLOSE)}},

    /* ---- the class quiz (view_class_quiz.c: attend quiz --class, attend class serve) ---- */
    {.map = KM_CLASS_QUIZ, .help_key = "r", .help = "reveal the answer and why to the room",
     .hint_key = "r", .hint = "reveal the answer",
     .modes = MODE(KMODE_CLASS_ASK) | MODE(KMODE_CLASS_DIST), .keys = {K('r', REQ_REVEAL)}},
    {.map = KM_CLASS_QUIZ, .help_key = "r",
     .help = "with students in a room: close the answers and show their distribution",
     .hint_key = "r", .hint = "close the answers", .modes = MODE(KMODE_CLASS_ROOM),
     .keys = {K('r', REQ_REVEAL)}},
    {.map = KM_CLASS_QUIZ, .help_key = "n, space",
     .help = "the next question (its countdown starts); after the last: the end",
     .hint_key = "n", .hint = "next",
     .modes = MODE(KMODE_CLASS_ASK) | MODE(KMODE_CLASS_ROOM) | MODE(KMODE_CLASS_DIST),
     .keys = {K('n', REQ_STEP_NEXT), K(' ', REQ_STEP_NEXT)}},
    {.map = KM_CLASS_QUIZ, .hint_key = "n", .hint = "next question",
     .modes = MODE(KMODE_CLASS_REVEALED), .keys = {K('n', REQ_STEP_NEXT), K(' ', REQ_STEP_NEXT)}},
    {.map = KM_CLASS_QUIZ, .help_key = "n, space", .help = "the final scores: end the class quiz",
     .hint_key = "n", .hint = "end", .modes = MODE(KMODE_CLASS_END),
     .keys = {K('n', REQ_CLOSE), K(' ', REQ_CLOSE)}},
    {.map = KM_CLASS_QUIZ, .help_key = "q, Ctrl-C", .help = "end the class quiz", .hint_key = "q",
     .hint = "quit", .keys = {K('q', REQ_CLOSE), K(KEY_CTRL('c'), REQ_CLOSE)}},
    {.map = KM_CLASS_QUIZ, .help_key = "o",
     .help = "open a room: students answer from their own terminals (attend class join)",
     .hint_key = "o", .hint = "open a room", .modes = MODE(KMODE_CLASS_ASK),
     .keys = {K('o', REQ_OPEN_ROOM)}},

    /* ---- attend notes (view_notes_screen.c): the teacher's second terminal ---- */
    {.map = KM_NOTES_SCREEN, .help_key = "q, Ctrl-C", .help = "leave (the presenter goes on)",
     .keys = {K('q', REQ_CLOSE), K(KEY_CTRL('c'), REQ_CLOSE)}},

    /* ---- the presenter: asked before the page's keys, in attend present only ---- */
    {.map = KM_PRESENT, .help_key = "B",
     .help = "blank the room's screen (B again: back); keys still work, unseen",
     .keys = {K('B', REQ_BLANK)}},
    {.map = KM_PRESENT, .help_key = "F",
     .help = "freeze the room's screen on what it shows (F again: the screen as it is now); "
             "keys still work, unseen",
     .keys = {K('F', REQ_FREEZE)}},
    {.map = KM_PRESENT, .help_key = "R",
     .help = "reveal the prose a paragraph at a time: space shows the next paragraph before "
             "it turns the page (R again: whole pages)",
     .keys = {K('R', REQ_REVEAL)}},
    {.map = KM_PRESENT, .help_key = "P",
     .help = "attend demo --auto: pause the steps (P again: resume)",
     .keys = {K('P', REQ_DEMO_PAUSE)}},
    {.map = KM_PRESENT, .help_key = "space / b",
     .help = "a plan or demo: the next step / back one step (replayed from the start); "
             "after G or a page turn, space first returns to the plan's step"},
    {.map = KM_PRESENT, .help_key = "o",
     .help = "speaker notes stay off the room's screen: attend notes shows them"},

    /* ---- the go-to-page prompt (G) ---- */
    {.map = KM_GOTO, .help_key = "enter, ESC", .help = "go to the page typed;  ESC cancels",
     .keys = {ENTER_KEYS(REQ_ACCEPT), K(KEY_ESCAPE, REQ_CLOSE), K(UI_KEY_BACKSPACE, REQ_EDIT_ERASE),
              K(KEY_ASCII_DEL, REQ_EDIT_ERASE), K(KEY_CTRL_H, REQ_EDIT_ERASE)}},
};

#define N_ROWS (int)(sizeof ROWS / sizeof ROWS[0])

/* The `?` overlay's sections in order; title NULL continues the section above (the shared
 * controls are documented under the heatmap). Keymaps not listed (help, notes, tensor
 * picker) are documented on their own overlay's box. */
static const struct {
    Keymap map;
    const char *title;
} SECTIONS[] = {
    {KM_GLOBAL, "Everywhere"},  {KM_HEATMAP, "Heatmap"},       {KM_COMMON, NULL},
    {KM_CHIPS, "Chips"},        {KM_PASSPORT, "Shape passport"}, {KM_MATRIX, "Matrix"},
    {KM_WORKED, "Worked example"}, {KM_SCALING, "√d_k experiment"}, {KM_KVCACHE, "KV cache"},
    {KM_COST, "Cost"},          {KM_PARAMS, "Parameters"},     {KM_MENU, "Lesson menu"},
    {KM_EDIT, "Sentence editor"}, {KM_TRAIN, "Train"}, {KM_GENERATE, "Generate"},
    {KM_PROBE, "Lens, attribution, effect"},
    {KM_QUIZ, "Quiz (Q, attend quiz)"}, {KM_CLASS_QUIZ, "Class quiz (attend quiz --class)"},
    {KM_PRESENT, "Presenter (attend present, attend demo)"},
    {KM_NOTES_SCREEN, "Speaker notes (attend notes)"},
};

/* The `?` overlay's closing paragraph (after a blank line), wrapped like the rows. */
static const char HELP_TRAILER[] =
    "Only the keys the page's widget allows are active; the footer lists them. Colour: "
    "NO_COLOR=1 turns it off (shades and numbers remain); --ascii for ASCII glyphs; --mouse "
    "enables clicks (it blocks the terminal's copy/paste).";

#define HELP_KEY_COLS 19 /* the key column of a help line */

static const char *const REQ_NAMES[] = {
#define KEYS_NAME(name) #name,
    KEYS_REQUESTS(KEYS_NAME)
#undef KEYS_NAME
};

static const char *const MAP_NAMES[] = {
#define KEYS_MAP_NAME(name, str) str,
    KEYS_MAPS(KEYS_MAP_NAME)
#undef KEYS_MAP_NAME
};

void keys_hint_append(char *buf, size_t n, const char *key, const char *label)
{
    size_t l = strlen(buf);
    if (l < n)
        snprintf(buf + l, n - l, "%s\x1f%s\x1e", key, label);
}

const char *keys_hints_text(const char *h, char *out, size_t n)
{
    size_t o = 0;
    if (!n)
        return out;
    for (const char *s = h; *s && o + 3 < n; s++) {
        if (*s == '\x1f')
            out[o++] = ' ';
        else if (*s == '\x1e') {
            out[o++] = ' ';
            out[o++] = ' ';
        } else
            out[o++] = *s;
    }
    if (o >= 2 && out[o - 1] == ' ' && out[o - 2] == ' ')
        o -= 2;
    out[o] = '\0';
    return out;
}

const char *keys_request_name(Request r)
{
    return r >= 0 && r < REQ__COUNT ? REQ_NAMES[r] : "REQ_?";
}

static int row_allowed(const KeyState *a, const KeyRow *r)
{
    unsigned al = a->allowed;
    if (r->modes && !(a->mode >= 0 && a->mode < KMODE__COUNT && (r->modes >> a->mode & 1u)))
        return 0;
    return (al & r->need) == r->need && !(al & r->unless);
}

void keys_state_fill(KeyState *s, unsigned allowed, const Controls *ctl, int scores,
                     int all_heads, const LiveState *live, const Model *m, const Page *pg)
{
    memset(s, 0, sizeof *s);
    s->allowed = allowed;
    s->causal = ctl->causal;
    s->padding = ctl->padding;
    s->pe = ctl->pe;
    s->scale = ctl->scale;
    s->scores = scores;
    s->live_causal = live->causal;
    s->live_scale = live->scale;
    s->live_tied = live->tied;
    s->live_gqa = live->gqa;
    s->live_step = live->step;
    s->live_sample = live->sample;
    s->live_temp = live->temp;
    s->live_seed = live->seed;
    s->encdec = m && m->cfg.arch == ARCH_ENCDEC;
    s->all_heads = all_heads;
    s->has_questions = pg && pg->n_questions > 0;
    s->has_notes = pg && pg->notes;
}

Request keys_lookup(const KeyState *a, Keymap km, int key)
{
    for (int i = 0; i < N_ROWS; i++) {
        const KeyRow *r = &ROWS[i];
        if (r->map != km || !row_allowed(a, r))
            continue;
        for (const KeyBind *b = r->keys; b->key; b++)
            if (b->key == key)
                return b->req;
    }
    return REQ_NONE;
}

static void row_hint(const KeyState *a, const KeyRow *r, int with_z, char *buf, size_t n)
{
    char lb[64];
    if (!r->hint_key || !row_allowed(a, r) || (r->when && !r->when(a, with_z)))
        return;
    const char *key = r->key_fn ? r->key_fn(a)
                    : !ui.utf8 && r->hint_ascii ? r->hint_ascii : r->hint_key;
    keys_hint_append(buf, n, key, r->label ? r->label(a, lb, sizeof lb) : r->hint);
}

void keys_hints(const KeyState *a, Keymap km, unsigned common, char *buf, size_t n)
{
    for (int i = 0; i < N_ROWS; i++)
        if (ROWS[i].map == km)
            row_hint(a, &ROWS[i], 0, buf, n);
    for (int i = 0; i < N_ROWS; i++)
        if (ROWS[i].map == KM_COMMON && (ROWS[i].need & common))
            row_hint(a, &ROWS[i], 0, buf, n);
}

void keys_global_hints(const KeyState *a, int with_z, char *buf, size_t n)
{
    int max = 0;
    for (int i = 0; i < N_ROWS; i++)
        if (ROWS[i].map == KM_GLOBAL && ROWS[i].rank > max)
            max = ROWS[i].rank;
    for (int rank = 1; rank <= max; rank++)
        for (int i = 0; i < N_ROWS; i++)
            if (ROWS[i].map == KM_GLOBAL && ROWS[i].rank == rank)
                row_hint(a, &ROWS[i], with_z, buf, n);
}

/* ---- the help ---- */
static char help_text[16384];
static const char *help_lines[320];
static int n_help_lines;

static void help_add(const char *s, void *ctx)
{
    size_t *used = ctx, len = strlen(s);
    if (n_help_lines >= (int)(sizeof help_lines / sizeof help_lines[0]) ||
        *used + len + 1 > sizeof help_text)
        return;
    memcpy(help_text + *used, s, len + 1);
    help_lines[n_help_lines++] = help_text + *used;
    *used += len + 1;
}

typedef struct {
    void (*emit)(const char *line, void *ctx);
    void *ctx;
    const char *key; /* the key column of the next line; "" after the first */
    int key_cols;    /* width of the key column */
} HelpWrap;

static void help_wrapped(const char *s, int len, void *vctx)
{
    HelpWrap *hw = vctx;
    char line[400];
    int pad = hw->key_cols - ui_width(hw->key);
    snprintf(line, sizeof line, "%s%*s%.*s", hw->key, pad > 0 ? pad : 0, "", len, s);
    hw->emit(line, hw->ctx);
    hw->key = "";
}

/* Emits the help lines of row r for a box width columns wide (0: no wrapping): the key
 * column padded to HELP_KEY_COLS, then the description word-wrapped under itself; each '\n'
 * of it starts a line under the description. In ASCII mode the text is transliterated
 * first, so that it wraps at the width the overlay shows. */
static void help_row(const KeyRow *r, int width, void (*emit)(const char *line, void *ctx),
                     void *ctx)
{
    char key[64], desc[400];
    ui_text(r->help_key, key, sizeof key);
    ui_text(r->help, desc, sizeof desc);
    int kw = ui_width(key) + 1;
    HelpWrap hw = {emit, ctx, key, kw > HELP_KEY_COLS ? kw : HELP_KEY_COLS};
    ui_wrap(desc, width > 0 ? width - hw.key_cols : (int)sizeof desc, help_wrapped, &hw);
}

static void help_section(Keymap map, const char *title, int width, size_t *used)
{
    char t[80];
    if (title) {
        snprintf(t, sizeof t, "#%s", title);
        help_add(t, used);
    }
    for (int i = 0; i < N_ROWS; i++)
        if (ROWS[i].map == map && ROWS[i].help_key)
            help_row(&ROWS[i], width, help_add, used);
}

/* Builds the help for a box width columns wide, unless it is built so (in the same glyph
 * mode). */
static int help_build(int width, const char *const **lines)
{
    static int built_width = -1, built_utf8 = -1;
    if (built_width != width || built_utf8 != ui.utf8) {
        size_t used = 0;
        n_help_lines = 0;
        for (size_t s = 0; s < sizeof SECTIONS / sizeof SECTIONS[0]; s++)
            help_section(SECTIONS[s].map, SECTIONS[s].title, width, &used);
        HelpWrap hw = {help_add, &used, "", 0};
        help_add("", &used);
        ui_wrap(HELP_TRAILER, width > 0 ? width : (int)sizeof HELP_TRAILER, help_wrapped, &hw);
        built_width = width, built_utf8 = ui.utf8;
    }
    *lines = help_lines;
    return n_help_lines;
}

int keys_help(int width, const char *const **lines)
{
    return help_build(width, lines);
}

/* ---- attend --keys ---- */

/* How the help spells key k ('|' between spellings). */
static const char *key_spelling(int k, char *buf, size_t n)
{
    switch (k) {
    case UI_KEY_UP: return "↑|arrows";
    case UI_KEY_DOWN: return "↓|arrows";
    case UI_KEY_LEFT: return "←|arrows";
    case UI_KEY_RIGHT: return "→|arrows";
    case UI_KEY_HOME: return "Home";
    case UI_KEY_END: return "End";
    case UI_KEY_NPAGE: return "PgDn";
    case UI_KEY_PPAGE: return "PgUp";
    case UI_KEY_DC: return "Del";
    case UI_KEY_BACKSPACE: case KEY_ASCII_DEL: case KEY_CTRL_H: return "backspace";
    case UI_KEY_ENTER: case '\r': case '\n': return "enter";
    case '\t': return "Tab";
    case ' ': return "space";
    case KEY_ESCAPE: return "ESC";
    default: break;
    }
    if (k == UI_KEY_F1)
        return "F1";
    if (k > 0 && k < 0x20)
        snprintf(buf, n, "Ctrl-%c", 'A' + k - 1);
    else if (k >= 0x20 && k < 0x7f)
        snprintf(buf, n, "%c", k);
    else
        snprintf(buf, n, "key-%d", k);
    return buf;
}

const char *keys_key_name(int k, char *buf, size_t n)
{
    char tmp[32];
    const char *s = key_spelling(k, tmp, sizeof tmp);
    const char *bar = strchr(s, '|');
    snprintf(buf, n, "%.*s", bar ? (int)(bar - s) : (int)strlen(s), s);
    return buf;
}

int keys_parse_name(const char *name)
{
    static const struct { const char *n; int k; } NAMES[] = {
        {"space", ' '}, {"enter", '\r'}, {"esc", KEY_ESCAPE}, {"tab", '\t'},
        {"backspace", UI_KEY_BACKSPACE}, {"up", UI_KEY_UP}, {"down", UI_KEY_DOWN}, {"left", UI_KEY_LEFT},
        {"right", UI_KEY_RIGHT}, {"home", UI_KEY_HOME}, {"end", UI_KEY_END}, {"pgup", UI_KEY_PPAGE},
        {"pgdn", UI_KEY_NPAGE}, {"del", UI_KEY_DC},
    };
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (!strcmp(name, NAMES[i].n))
            return NAMES[i].k;
    if (!strncmp(name, "ctrl-", 5) && name[5] >= 'a' && name[5] <= 'z' && !name[6])
        return KEY_CTRL(name[5]);
    if (name[0] > ' ' && name[0] < 127 && !name[1])
        return (unsigned char)name[0];
    return -1;
}

const char *keys_demo_name(int k, char *buf, size_t n)
{
    switch (k) {
    case ' ': return "space";
    case '\r': case '\n': case UI_KEY_ENTER: return "enter";
    case KEY_ESCAPE: return "esc";
    case '\t': return "tab";
    case UI_KEY_BACKSPACE: case KEY_ASCII_DEL: case KEY_CTRL_H: return "backspace";
    case UI_KEY_UP: return "up";
    case UI_KEY_DOWN: return "down";
    case UI_KEY_LEFT: return "left";
    case UI_KEY_RIGHT: return "right";
    case UI_KEY_HOME: return "home";
    case UI_KEY_END: return "end";
    case UI_KEY_PPAGE: return "pgup";
    case UI_KEY_NPAGE: return "pgdn";
    case UI_KEY_DC: return "del";
    default: break;
    }
    if (k >= 1 && k <= 26)
        snprintf(buf, n, "ctrl-%c", 'a' + k - 1);
    else if (k > ' ' && k < 127)
        snprintf(buf, n, "%c", k);
    else
        return NULL;
    return buf;
}

const char *keys_key_help(const KeyState *a, Keymap km, int key, char *buf, size_t n)
{
    int doc = -1;
    for (int i = 0; i < N_ROWS; i++) {
        const KeyRow *r = &ROWS[i];
        if (r->map != km)
            continue;
        if (r->help_key)
            doc = i;
        if (!row_allowed(a, r))
            continue;
        for (const KeyBind *b = r->keys; b->key; b++)
            if (b->key == key && doc >= 0) {
                const char *h = ROWS[doc].help, *nl = strchr(h, '\n');
                snprintf(buf, n, "%.*s", nl ? (int)(nl - h) : (int)strlen(h), h);
                return buf;
            }
    }
    return NULL;
}

/* The first row of km that binds key on the current page, or -1 (what keys_lookup reads). */
static int binding_row(const KeyState *a, Keymap km, int key)
{
    for (int i = 0; i < N_ROWS; i++)
        if (ROWS[i].map == km && row_allowed(a, &ROWS[i]))
            for (const KeyBind *b = ROWS[i].keys; b->key; b++)
                if (b->key == key)
                    return i;
    return -1;
}

/* Says one documented row's keys and its first help line (keys_page_help). */
static void page_help_say(int doc, const char *names,
                          void (*emit)(const char *keys, const char *help, void *ctx), void *ctx)
{
    char help[200];
    const char *h = ROWS[doc].help, *nl = strchr(h, '\n');
    snprintf(help, sizeof help, "%.*s", nl ? (int)(nl - h) : (int)strlen(h), h);
    emit(names, help, ctx);
}

void keys_page_help(const KeyState *a, const Keymap *maps, int n_maps,
                    void (*emit)(const char *keys, const char *help, void *ctx), void *ctx)
{
    for (int m = 0; m < n_maps; m++) {
        int doc = -1, shown = -1; /* the documenting row; the one whose keys names holds */
        char names[160] = "";
        for (int i = 0; i < N_ROWS; i++) {
            const KeyRow *r = &ROWS[i];
            if (r->map != maps[m])
                continue;
            if (r->help_key)
                doc = i;
            if (doc != shown && names[0])
                page_help_say(shown, names, emit, ctx);
            if (doc != shown)
                names[0] = '\0';
            shown = doc;
            if (doc < 0 || !row_allowed(a, r))
                continue;
            for (const KeyBind *b = r->keys; b->key; b++) {
                char nb[16], pad[20];
                const char *nm = keys_demo_name(b->key, nb, sizeof nb);
                int j = 0;
                while (j < m && binding_row(a, maps[j], b->key) < 0)
                    j++;
                if (!nm || j < m || binding_row(a, maps[m], b->key) != i)
                    continue; /* unnamed, or bound by an earlier keymap or row */
                snprintf(pad, sizeof pad, ", %s,", nm);
                char have[170];
                snprintf(have, sizeof have, ", %s,", names);
                if (strstr(have, pad)) /* another code of the same name (enter, backspace) */
                    continue;
                size_t l = strlen(names);
                snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "", nm);
            }
        }
        if (names[0])
            page_help_say(shown, names, emit, ctx);
    }
}

static const char *section_of(Keymap km)
{
    for (size_t s = 0; s < sizeof SECTIONS / sizeof SECTIONS[0]; s++)
        if (SECTIONS[s].map == km)
            return SECTIONS[s].title ? SECTIONS[s].title : "+";
    return "-";
}

typedef struct {
    FILE *f;
    const char *map;
    int row;
} DumpCtx;

static void dump_line(const char *line, void *ctx)
{
    DumpCtx *c = ctx;
    fprintf(c->f, "help\t%s\t%d\t%s\n", c->map, c->row, line);
}

void keys_dump(FILE *f)
{
    fprintf(f, "# attend --keys: the player's key table (src/tui/keys.c), tab-separated\n"
               "# map NAME SECTION         (SECTION: its title in ?; + under the one above; - "
               "not in ?: named on its own overlay)\n"
               "# help NAME ROW LINE       (the ? line(s) of row ROW)\n"
               "# bind NAME ROW CODE SPELLINGS REQUEST named|alias  (alias: not spelled out "
               "in its help line)\n"
               "# hint NAME KEY ASCII-KEY LABELS  (LABELS: '|' between them, %%s a word)\n"
               "# line TEXT                (the ? overlay, line by line; #: a section title)\n");
    for (int m = 0; m < KM__COUNT; m++)
        fprintf(f, "map\t%s\t%s\n", MAP_NAMES[m], section_of((Keymap)m));
    int doc = -1; /* the row whose help documents the rows below it */
    for (int i = 0; i < N_ROWS; i++) {
        const KeyRow *r = &ROWS[i];
        if (r->help_key)
            doc = i;
        if (r->help_key) {
            DumpCtx c = {f, MAP_NAMES[r->map], i};
            help_row(r, KEYS_HELP_WIDTH, dump_line, &c);
        }
        for (const KeyBind *b = r->keys; b->key; b++) {
            char nb[32];
            fprintf(f, "bind\t%s\t%d\t%d\t%s\t%s\t%s\n", MAP_NAMES[r->map],
                    r->help_key || doc < 0 || ROWS[doc].map != r->map ? i : doc, b->key,
                    key_spelling(b->key, nb, sizeof nb), keys_request_name(b->req),
                    b->alias ? "alias" : "named");
        }
        if (r->hint_key)
            fprintf(f, "hint\t%s\t%s\t%s\t%s\n", MAP_NAMES[r->map], r->hint_key,
                    r->hint_ascii ? r->hint_ascii : r->hint_key, r->hint);
    }
    const char *const *lines;
    int n = keys_help(KEYS_HELP_WIDTH, &lines);
    for (int i = 0; i < n; i++)
        fprintf(f, "line\t%s\n", lines[i]);
}
