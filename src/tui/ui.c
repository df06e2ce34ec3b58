/* ui.c - ncurses setup and teardown, colour table and ramps, glyphs, ASCII transliteration,
 * clipped UTF-8 text, word wrapping and boxes. The only file that decides how things look. */
#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#include "ui.h"
#include "safetensors.h"

/* The key table (keys.c) binds curses' function keys by value, without curses: */
_Static_assert(UI_KEY_DOWN == KEY_DOWN && UI_KEY_UP == KEY_UP && UI_KEY_LEFT == KEY_LEFT &&
                   UI_KEY_RIGHT == KEY_RIGHT && UI_KEY_HOME == KEY_HOME &&
                   UI_KEY_BACKSPACE == KEY_BACKSPACE && UI_KEY_F1 == KEY_F(1) &&
                   UI_KEY_DC == KEY_DC && UI_KEY_NPAGE == KEY_NPAGE &&
                   UI_KEY_PPAGE == KEY_PPAGE && UI_KEY_ENTER == KEY_ENTER &&
                   UI_KEY_END == KEY_END,
               "ui_text.h's UI_KEY_* are curses' KEY_* codes");

static SCREEN *ui_screen;

/* Ramps: colour-blind-safe, lightness strictly rising. Background index, readable foreground. */
static const short RAMP256_BG[] = {53, 61, 31, 36, 113, 220}; /* viridis */
static const short RAMP256_FG[] = {231, 231, 231, 16, 16, 16};
static const short RAMP8_BG[] = {COLOR_BLACK, COLOR_BLUE, COLOR_CYAN, COLOR_WHITE};
static const short RAMP8_FG[] = {COLOR_WHITE, COLOR_WHITE, COLOR_BLACK, COLOR_BLACK};

static const char *const SHADE_UTF8[] = {" ", "░", "▒", "▓", "█"};
/* No sign characters ('-' before a weight read "-0.36" for 0.36), no '*' (the small multiples'
 * strongest-key marker) and no 'x' (the ASCII masked glyph). */
static const char *const SHADE_ASCII[] = {" ", ".", ":", ";", "=", "o", "#", "%", "@"};
#define SHADE_ASCII_N ((int)(sizeof SHADE_ASCII / sizeof SHADE_ASCII[0]))

static void init_colors(int theme)
{
    ui.color = UI_COLOR_NONE;
    ui.ramp_n = 0;
    const char *nc = getenv("NO_COLOR");
    if ((nc && *nc) || !has_colors() || start_color() == ERR)
        return;
    use_default_colors();
    int c256 = COLORS >= 256 && COLOR_PAIRS >= 32;
    ui.color = c256 ? UI_COLOR_256 : UI_COLOR_8;
    if (theme != UI_THEME_DARK) { /* light, projector (ui_theme.c) */
        ui.ramp_n = ui_theme_colors(theme, c256);
        return;
    }
#define UI_INIT(name, f256, b256, f8, b8) \
    init_pair(name, (short)(c256 ? (f256) : (f8)), (short)(c256 ? (b256) : (b8)));
    UI_PAIRS(UI_INIT)
#undef UI_INIT
    if (c256) {
        ui.ramp_n = (int)(sizeof RAMP256_BG / sizeof RAMP256_BG[0]);
        for (int i = 0; i < ui.ramp_n; i++)
            init_pair((short)(UI_PAIR_RAMP0 + i), RAMP256_FG[i], RAMP256_BG[i]);
    } else {
        ui.ramp_n = (int)(sizeof RAMP8_BG / sizeof RAMP8_BG[0]);
        for (int i = 0; i < ui.ramp_n; i++)
            init_pair((short)(UI_PAIR_RAMP0 + i), RAMP8_FG[i], RAMP8_BG[i]);
    }
}

/* ---- the terminal's life: no terminal, a terminal that goes away, a crash ---- */
static int ui_in_fd = -1;             /* the keyboard's descriptor while curses runs */
static char crash_unlink_path[1024];  /* a file to remove if attend crashes ("" none) */

/* 0 when o's input and output (stdin/stdout by default) are terminals, else -1 with a
 * message saying which is not. */
static int ui_check_terminal(const UiOpts *o, char *err, size_t errlen)
{
    int in = fileno(o->in ? o->in : stdin), out = fileno(o->out ? o->out : stdout);
    const char *which = !isatty(in) ? "standard input" : !isatty(out) ? "standard output" : NULL;
    if (!which)
        return 0;
    snprintf(err, errlen, "this screen is interactive and needs a terminal, but %s is not "
             "one (run it in a terminal; see attend --help for the commands that run without "
             "one)", which);
    return -1;
}

static void ui_end_fatal(void);

/* A crash (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL) in any curses screen restores the
 * terminal, removes the registered file, says so, and dies of the same signal (SA_RESETHAND:
 * the re-raise gets the default action, core dump included). Only async-signal-safe calls
 * besides endwin, which is the point. */
static void on_crash(int sig)
{
    static const char msg[] = "attend: crashed (a bug; please report it); terminal restored\n";
    ui_end_fatal();
    if (crash_unlink_path[0])
        unlink(crash_unlink_path);
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    raise(sig);
}

static void install_crash_handlers(void)
{
    static const int sigs[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = (int)(SA_RESETHAND | SA_NODEFER);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
    st_guard_install(); /* a mapped model file truncated while open: not a crash (safetensors.c) */
}

void ui_crash_unlink(const char *path)
{
    snprintf(crash_unlink_path, sizeof crash_unlink_path, "%s", path ? path : "");
}

/* 1 when the keyboard is gone: the terminal hung up (a closed tmux pane, a dropped ssh
 * connection: POLLHUP, EIO) or its input ended. */
static int terminal_gone(void)
{
    if (ui_in_fd < 0)
        return 0;
    struct pollfd p = {ui_in_fd, POLLIN, 0};
    int r = poll(&p, 1, 0);
    if (r < 0)
        return errno != EINTR && errno != EAGAIN;
    if (r == 0)
        return 0;
    if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
        return 1;
    /* readable, yet curses read nothing and nothing is waiting: the end of the input */
    int avail = 0;
    return ioctl(ui_in_fd, FIONREAD, &avail) == 0 && avail == 0;
}

int ui_start(const UiOpts *o, char *err, size_t errlen)
{
    if (!o->offscreen && ui_check_terminal(o, err, errlen))
        return -1;
    const char *cs = nl_langinfo(CODESET);
    ui.utf8 = !o->ascii && cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
    ui_screen = newterm(o->term, o->out ? o->out : stdout, o->in ? o->in : stdin);
    if (!ui_screen) {
        snprintf(err, errlen, "cannot start the terminal (TERM=%s)",
                 o->term ? o->term : getenv("TERM") ? getenv("TERM") : "unset");
        return -1;
    }
    set_term(ui_screen);
    ui.started = 1;
    ui.gone = 0;
    ui_in_fd = fileno(o->in ? o->in : stdin);
    install_crash_handlers();
    raw();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    init_colors(o->theme);
    ui.mouse = 0;
    if (o->mouse) {
        mmask_t got = mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
        ui.mouse = got != 0;
        mouseinterval(0);
    }
    return 0;
}

void ui_end(void)
{
    if (!ui.started)
        return;
    ui.started = 0;
    if (ui.mouse)
        mousemask(0, NULL);
    curs_set(1);
    endwin();
    if (ui_screen) {
        delscreen(ui_screen);
        ui_screen = NULL;
    }
}

/* Restores the terminal from a crash handler: endwin only, frees nothing. */
static void ui_end_fatal(void)
{
    if (!ui.started)
        return;
    ui.started = 0;
    if (ui.mouse)
        mousemask(0, NULL);
    curs_set(1);
    endwin(); /* no delscreen: the heap may be what broke */
}

int ui_ramp_level(float v)
{
    if (!(v > 0.0f))
        v = 0.0f;
    if (v > 1.0f)
        v = 1.0f;
    int n = ui.ramp_n ? ui.ramp_n : 5;
    int l = (int)(v * (float)n);
    return l >= n ? n - 1 : l;
}

int ui_ramp_attr(int level)
{
    if (ui.color == UI_COLOR_NONE)
        return A_NORMAL;
    if (level < 0)
        level = 0;
    if (level >= ui.ramp_n)
        level = ui.ramp_n - 1;
    return (int)COLOR_PAIR(UI_PAIR_RAMP0 + level);
}

const char *ui_shade(float v)
{
    if (!(v > 0.0f))
        v = 0.0f;
    if (v > 1.0f)
        v = 1.0f;
    if (ui.utf8) {
        int l = (int)(v * 5.0f);
        return SHADE_UTF8[l > 4 ? 4 : l];
    }
    int l = (int)(v * (float)SHADE_ASCII_N);
    return SHADE_ASCII[l > SHADE_ASCII_N - 1 ? SHADE_ASCII_N - 1 : l];
}

int ui_shade_levels(void) { return ui.utf8 ? 5 : SHADE_ASCII_N; }

static const char *const GLYPH_UTF8[G__COUNT] = {"·", "−∞", "→", "×", "─", "│", "…", "✓", "•",
                                                 "√", "!"};
static const char *const GLYPH_ASCII[G__COUNT] = {"x", "-inf", "->", "x", "-", "|", "~", "*",
                                                  "*", "sqrt", "!"};

const char *ui_glyph(Glyph g)
{
    return ui.utf8 ? GLYPH_UTF8[g] : GLYPH_ASCII[g];
}



int ui_read_key(void)
{
    wint_t ch;
    int r = get_wch(&ch);
    if (r == ERR) {
        /* No key: a timeout, or the terminal is gone, when every read fails at once. A gone
         * terminal is a hangup: SIGHUP makes each screen's loop save and end cleanly. */
        if (!ui.gone && terminal_gone()) {
            ui.gone = 1;
            raise(SIGHUP);
        }
        return -1;
    }
    if (r == KEY_CODE_YES)
        return (int)ch;
    if (ch > 0xFF)
        return (int)ch | UI_WCHAR;
    return (int)ch;
}


int ui_put(int y, int x, int w, const char *s)
{
    char buf[1024];
    if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
        return 0;
    if (x + w > COLS)
        w = COLS - x;
    if (!ui.utf8)
        s = ui_text(s, buf, sizeof buf);
    int used = 0, cw;
    const char *p = s;
    while (*p) {
        int len = ui_char(p, &cw);
        if (used + cw > w)
            break;
        p += len;
        used += cw;
    }
    /* Never cut silently: text that does not fit ends in "…" ("..." in ASCII), unless all
     * that is lost is blanks or the room is too small for the sign to mean anything. */
    const char *ell = NULL;
    if (*p && p[strspn(p, " ")]) {
        int ew = ui.utf8 ? 1 : 3;
        if (w > ew) {
            ell = ui.utf8 ? "…" : "...";
            used = 0;
            p = s;
            while (*p) {
                int len = ui_char(p, &cw);
                if (used + cw > w - ew)
                    break;
                p += len;
                used += cw;
            }
            while (p > s && p[-1] == ' ') { /* "word …" reads worse than "word…" */
                p--;
                used--;
            }
        }
    }
    if (!ui.utf8) { /* anything still non-ASCII prints as '?' */
        move(y, x);
        for (const char *q = s; q < p; q++)
            addch((unsigned char)*q < 0x80 ? (chtype)(unsigned char)*q : '?');
    } else {
        mvaddnstr(y, x, s, (int)(p - s));
    }
    if (ell) {
        addstr(ell);
        used += ui.utf8 ? 1 : 3;
    }
    return used;
}

int ui_put_tight(int y, int x, int w, const char *s)
{
    char buf[1024];
    if (ui_width(s) <= w)
        return ui_put(y, x, w, s);
    size_t o = 0;
    for (const char *p = s; *p && o + 1 < sizeof buf; p++)
        if (!(p[0] == ' ' && p[1] == ' '))
            buf[o++] = *p;
    buf[o] = '\0';
    return ui_put(y, x, w, buf);
}

int ui_putf(int y, int x, int w, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return ui_put(y, x, w, buf);
}

void ui_fill(int y, int x, int w)
{
    if (y < 0 || y >= LINES)
        return;
    if (x + w > COLS)
        w = COLS - x;
    if (w > 0)
        mvhline(y, x, ' ', w);
}

void ui_box(int y, int x, int h, int w, const char *title)
{
    if (h < 2 || w < 2)
        return;
    if (ui.utf8) {
        mvhline(y, x + 1, ACS_HLINE, w - 2);
        mvhline(y + h - 1, x + 1, ACS_HLINE, w - 2);
        mvvline(y + 1, x, ACS_VLINE, h - 2);
        mvvline(y + 1, x + w - 1, ACS_VLINE, h - 2);
        mvaddch(y, x, ACS_ULCORNER);
        mvaddch(y, x + w - 1, ACS_URCORNER);
        mvaddch(y + h - 1, x, ACS_LLCORNER);
        mvaddch(y + h - 1, x + w - 1, ACS_LRCORNER);
    } else {
        mvhline(y, x + 1, '-', w - 2);
        mvhline(y + h - 1, x + 1, '-', w - 2);
        mvvline(y + 1, x, '|', h - 2);
        mvvline(y + 1, x + w - 1, '|', h - 2);
        mvaddch(y, x, '+');
        mvaddch(y, x + w - 1, '+');
        mvaddch(y + h - 1, x, '+');
        mvaddch(y + h - 1, x + w - 1, '+');
    }
    if (title && *title) {
        attron(A_BOLD);
        ui_putf(y, x + 2, w - 4, " %s ", title);
        attroff(A_BOLD);
    }
}


typedef struct {
    int y, x, w, maxl, n;
    int draw;
} WrapPutCtx;

static void wrap_put_line(const char *s, int len, void *vctx)
{
    WrapPutCtx *c = vctx;
    int i = c->n++;
    if (!c->draw || i >= c->maxl)
        return;
    char line[1024];
    snprintf(line, sizeof line, "%.*s", len, s);
    if (i == c->maxl - 1) {
        /* the last line allowed: the rest of the text follows on it, cut with "…" */
        char rest[1024];
        snprintf(rest, sizeof rest, "%s", s);
        for (char *q = rest; *q; q++)
            if (*q == '\n')
                *q = ' ';
        ui_put(c->y + i, c->x, c->w, rest);
        return;
    }
    ui_put(c->y + i, c->x, c->w, line);
}

int ui_wrap_lines(const char *text, int w, int maxl)
{
    WrapPutCtx c = {0, 0, w, maxl, 0, 0};
    ui_wrap(text, w, wrap_put_line, &c);
    return c.n < maxl ? c.n : maxl;
}

int ui_wrap_put(int y, int x, int w, const char *text, int maxl)
{
    WrapPutCtx c = {y, x, w, maxl, 0, 1};
    ui_wrap(text, w, wrap_put_line, &c);
    return c.n < maxl ? c.n : maxl;
}
