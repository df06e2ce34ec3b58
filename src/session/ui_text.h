/* ui_text.h - the player's text without curses (ui_text.c): the UI mode (UTF-8 or ASCII,
 * colour, mouse), ASCII transliteration, display widths, word wrapping, key codes curses
 * leaves as bytes, a monotonic clock. The key table (keys.c) needs only this. */
#ifndef ATTEND_UI_TEXT_H
#define ATTEND_UI_TEXT_H

#include <stddef.h>

typedef enum { UI_COLOR_NONE, UI_COLOR_8, UI_COLOR_256 } UiColorMode;

typedef struct {
    int utf8;           /* 1: UTF-8 glyphs; 0: ASCII fallback */
    UiColorMode color;  /* what the terminal and NO_COLOR allow */
    int ramp_n;         /* levels of the ramp in use */
    int mouse;          /* 1: mouse clicks reported */
    int started;        /* 1 between ui_start and ui_end */
    int gone;           /* 1 once the terminal went away (ui_read_key raised SIGHUP) */
} Ui;

extern Ui ui;

/* Transliterates UTF-8 text into ASCII when the UI is in ASCII mode ("QKᵀ" -> "QK^T",
 * "÷√d_k" -> "/sqrt(d_k)", "−∞" -> "-inf"); copies it otherwise. Returns out. */
const char *ui_text(const char *s, char *out, size_t outlen);
/* Characters above 0xFF carry this flag in key codes (curses function keys keep KEY_*). */
#define UI_WCHAR 0x1000000
/* Key codes curses leaves as plain bytes (it names none of them): Escape, the DEL byte most
 * terminals send for Backspace, ^H (Backspace on others), and Ctrl+letter. */
#define KEY_ESCAPE 27
#define KEY_ASCII_DEL 127
#define KEY_CTRL_H 8
#define KEY_CTRL(c) ((c) & 0x1f)
/* The codes curses gives the function keys the key table binds (ncurses' values, which
 * ui.c checks against <curses.h> at compile time), so that keys.c needs no curses. */
#define UI_KEY_DOWN 0402
#define UI_KEY_UP 0403
#define UI_KEY_LEFT 0404
#define UI_KEY_RIGHT 0405
#define UI_KEY_HOME 0406
#define UI_KEY_BACKSPACE 0407
#define UI_KEY_F1 0411
#define UI_KEY_DC 0512
#define UI_KEY_NPAGE 0522
#define UI_KEY_PPAGE 0523
#define UI_KEY_ENTER 0527
#define UI_KEY_END 0550
/* Display width (columns) of UTF-8 text (of one character at s: ui_char). */
int ui_width(const char *s);
/* The byte length of the UTF-8 character at s (1 for an invalid byte); its columns in *width
 * (1 in ASCII mode). */
int ui_char(const char *s, int *width);

/* Word-wraps text (paragraphs separated by '\n') to width w; calls line(text, len, ctx) for
 * each output line (len in bytes), never at the space that groups a number's digits ("1 235
 * 814", the ASCII thin space). Returns the number of lines. Never allocates. */
int ui_wrap(const char *text, int w, void (*line)(const char *s, int len, void *ctx), void *ctx);

/* Monotonic milliseconds (the presenter's badge, a demo's --auto steps). */
long long ui_now_ms(void);

#endif
