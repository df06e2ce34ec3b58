/* keys.c - the player's key table: each row binds keys to requests in one keymap and
 * carries the `?` overlay's line for them and the footer hint (with the C_* control bits
 * that make them available). The footer, the help and `attend --keys` read it; nothing
 * else binds a key. */
#include "keys_table.h"

#include <string.h>

#include "lesson.h"
#include "model.h"
#include "ui_text.h"

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
const KeyRow keys_rows[] = {
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

const int keys_n_rows = (int)(sizeof keys_rows / sizeof keys_rows[0]);

/* The `?` overlay's sections in order; title NULL continues the section above (the shared
 * controls are documented under the heatmap). Keymaps not listed (help, notes, tensor
 * picker) are documented on their own overlay's box. */
const KeysSection keys_sections[] = {
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
const int keys_n_sections = (int)(sizeof keys_sections / sizeof keys_sections[0]);

/* The `?` overlay's closing paragraph (after a blank line), wrapped like the rows. */
const char keys_help_trailer[] =
    "Only the keys the page's widget allows are active; the footer lists them. Colour: "
    "NO_COLOR=1 turns it off (shades and numbers remain); --ascii for ASCII glyphs; --mouse "
    "enables clicks (it blocks the terminal's copy/paste).";

static const char *const REQ_NAMES[] = {
#define KEYS_NAME(name) #name,
    KEYS_REQUESTS(KEYS_NAME)
#undef KEYS_NAME
};

static const char *const MAP_NAMES[KM__COUNT] = {
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

const char *keys_map_name(Keymap km)
{
    return km >= 0 && km < KM__COUNT ? MAP_NAMES[km] : "?";
}

int keys_row_allowed(const KeyState *a, const KeyRow *r)
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
    for (int i = 0; i < keys_n_rows; i++) {
        const KeyRow *r = &keys_rows[i];
        if (r->map != km || !keys_row_allowed(a, r))
            continue;
        for (const KeyBind *b = r->keys; b->key; b++)
            if (b->key == key)
                return b->req;
    }
    return REQ_NONE;
}

/* 1 when buf's hints ("key\x1flabel\x1e"...) already hint key. */
static int hinted(const char *buf, const char *key)
{
    size_t kl = strlen(key);
    for (const char *h = buf; *h; h = strchr(h, '\x1e') ? strchr(h, '\x1e') + 1 : "")
        if (!strncmp(h, key, kl) && h[kl] == '\x1f')
            return 1;
    return 0;
}

/* Appends row r's hint to buf when the page allows it and no earlier row hinted its key (a
 * widget's key that the shared controls also hint is listed once). */
static void row_hint(const KeyState *a, const KeyRow *r, int with_z, char *buf, size_t n)
{
    char lb[64];
    if (!r->hint_key || !keys_row_allowed(a, r) || (r->when && !r->when(a, with_z)))
        return;
    const char *key = r->key_fn ? r->key_fn(a)
                    : !ui.utf8 && r->hint_ascii ? r->hint_ascii : r->hint_key;
    if (hinted(buf, key))
        return;
    keys_hint_append(buf, n, key, r->label ? r->label(a, lb, sizeof lb) : r->hint);
}

void keys_hints(const KeyState *a, Keymap km, unsigned common, char *buf, size_t n)
{
    for (int i = 0; i < keys_n_rows; i++)
        if (keys_rows[i].map == km)
            row_hint(a, &keys_rows[i], 0, buf, n);
    for (int i = 0; i < keys_n_rows; i++)
        if (keys_rows[i].map == KM_COMMON && (keys_rows[i].need & common))
            row_hint(a, &keys_rows[i], 0, buf, n);
}

void keys_global_hints(const KeyState *a, int with_z, char *buf, size_t n)
{
    int max = 0;
    for (int i = 0; i < keys_n_rows; i++)
        if (keys_rows[i].map == KM_GLOBAL && keys_rows[i].rank > max)
            max = keys_rows[i].rank;
    for (int rank = 1; rank <= max; rank++)
        for (int i = 0; i < keys_n_rows; i++)
            if (keys_rows[i].map == KM_GLOBAL && keys_rows[i].rank == rank)
                row_hint(a, &keys_rows[i], with_z, buf, n);
}
