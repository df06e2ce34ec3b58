/* ui.h - every ncurses detail of the player: start/stop, the colour table and ramps, glyphs
 * with an ASCII fallback, UTF-8 aware clipped text, wrapping and boxes (the curses-free text
 * helpers and the UI mode are ui_text.h, which it includes). Views draw through
 * these helpers so that colour, NO_COLOR and ASCII modes stay in one place. */
#ifndef ATTEND_UI_H
#define ATTEND_UI_H

#include <stddef.h>
#include <stdio.h>

#include "ui_text.h"

/* Colour pairs of the player: one X-macro table (name, 256-colour fg/bg, 8-colour fg/bg).
 * -1 is the terminal's default colour. */
#define UI_PAIRS(X)                                                  \
    X(UI_HEADER, 231, 24, COLOR_WHITE, COLOR_BLUE)                   \
    X(UI_FOOTER, 252, 236, COLOR_WHITE, COLOR_BLACK)                 \
    X(UI_KEY, 220, 236, COLOR_YELLOW, COLOR_BLACK)                   \
    X(UI_WARN, 16, 214, COLOR_BLACK, COLOR_YELLOW)                   \
    X(UI_ACCENT, 75, -1, COLOR_CYAN, -1)                             \
    X(UI_DIM, 244, -1, COLOR_WHITE, -1)                              \
    X(UI_CHIP, 16, 153, COLOR_BLACK, COLOR_CYAN)                     \
    X(UI_CHIP_PICK, 16, 220, COLOR_BLACK, COLOR_YELLOW)              \
    X(UI_SEL, 16, 153, COLOR_BLACK, COLOR_CYAN)

enum {
    UI_PAIR_NONE,
#define UI_ENUM(name, f256, b256, f8, b8) name,
    UI_PAIRS(UI_ENUM)
#undef UI_ENUM
    UI_PAIR_RAMP0 /* ramp pairs follow: UI_PAIR_RAMP0 + level */
};

#define UI_RAMP_MAX 8


/* Themes (ui_theme.c): dark is the player's default look; light for white-background
 * terminals; projector: high contrast on black. AUTO is resolved by ui_theme_auto. */
enum { UI_THEME_AUTO = -1, UI_THEME_DARK = 0, UI_THEME_LIGHT = 1, UI_THEME_PROJECTOR = 2 };

/* The theme named s ("dark", "light", "projector"; "auto" -> UI_THEME_AUTO); -2 for an
 * unknown name. */
int ui_theme_parse(const char *s);
/* Resolves auto: UI_THEME_LIGHT when COLORFGBG (colorfgbg, may be NULL) names a light
 * background, else dark_theme. */
int ui_theme_auto(const char *colorfgbg, int dark_theme);
/* Initialises the colour pairs and ramp of theme (colours already started); c256: 256
 * colours, else 8. A theme with its own base colours paints the screen's background.
 * Returns the number of ramp levels it set up (for ui.ramp_n). */
int ui_theme_colors(int theme, int c256);
/* Prints every theme's base colours and 256-colour ramp for `attend --themes`. */
void ui_theme_dump(FILE *f);

typedef struct {
    int ascii;          /* force the ASCII fallback */
    int theme;          /* UI_THEME_DARK (0, the default), LIGHT or PROJECTOR */
    int mouse;          /* enable mouse clicks */
    FILE *out, *in;     /* terminal streams; NULL = stdout/stdin */
    const char *term;   /* terminal type; NULL = $TERM */
    int offscreen;      /* 1: draw into out with no terminal check (bench/tui_bench.c only) */
} UiOpts;

/* Refuses to start without a terminal (its input and output: stdin/stdout by default; not
 * when o->offscreen), with a message saying which is not one. Decides UTF-8 from the locale
 * (call setlocale first) unless o->ascii; starts curses with newterm (never exits on
 * failure), raw keys, no echo, keypad, ESC delay 25 ms, colours unless NO_COLOR is set, and
 * installs the one crash handler of every curses screen: on SIGSEGV, SIGABRT, SIGBUS, SIGFPE
 * or SIGILL it restores the terminal, removes the file of ui_crash_unlink, says so and dies
 * of the signal. Returns 0, or -1 with a message. */
int ui_start(const UiOpts *o, char *err, size_t errlen);
/* The file the crash handler removes (the presenter's state); NULL or "" for none. */
void ui_crash_unlink(const char *path);
/* Restores the terminal (idempotent; safe from any exit path). */
void ui_end(void);

/* Attribute for a value in [0,1] on the ramp (colour modes), A_NORMAL without colour. The
 * companion foreground keeps printed numbers readable on that background. */
int ui_ramp_level(float v01);
int ui_ramp_attr(int level);
/* Shade glyph for a value in [0, 1]: " ░▒▓█" in UTF-8, " .:;=o#%@" in ASCII (no sign
 * characters: the glyph stands right before a cell's number). */
const char *ui_shade(float v01);
/* How many shade glyphs ui_shade has (the no-colour legend shows each once). */
int ui_shade_levels(void);

/* Glyphs with their ASCII fallbacks. */
typedef enum {
    G_MASKED, G_NEG_INF, G_ARROW, G_TIMES, G_HLINE, G_VLINE, G_ELLIPSIS, G_CHECK, G_BULLET,
    G_SQRT, G_WARN, G__COUNT
} Glyph;
const char *ui_glyph(Glyph g);

/* The next key: a curses key code, an ASCII byte, or a wide character | UI_WCHAR; -1 when
 * none arrived (timeout). When the terminal has gone away (hung up, input ended) it sets
 * ui.gone and raises SIGHUP once, so the screen's loop saves and ends as on a hangup. */
int ui_read_key(void);
/* Prints s at (y, x) within w columns, transliterated in ASCII mode. Text that does not fit
 * ends in "…" ("..." in ASCII) so that nothing is cut silently. Returns columns used. */
int ui_put(int y, int x, int w, const char *s);
/* ui_put for a status line whose fields are set apart by two spaces: when it does not fit,
 * the gaps shrink to one space before anything is cut. */
int ui_put_tight(int y, int x, int w, const char *s);
/* printf then ui_put. */
int ui_putf(int y, int x, int w, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Fills w columns at (y, x) with spaces in the current attribute. */
void ui_fill(int y, int x, int w);
/* A box (line drawing, '+-|' in ASCII) with an optional title. */
void ui_box(int y, int x, int h, int w, const char *title);

/* Word-wraps text into at most maxl lines of width w at (y, x); the last line ends in "…"
 * when text is left over. Returns the lines used; ui_wrap_lines only counts them. */
int ui_wrap_put(int y, int x, int w, const char *text, int maxl);
int ui_wrap_lines(const char *text, int w, int maxl);


#endif
