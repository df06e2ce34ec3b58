/* ui_theme.c - the colour themes of the player and presenter (dark, light, projector): each
 * one's colour pairs and heatmap ramp for 256 and 8 colours, `auto` from COLORFGBG, and the
 * table `attend --themes` prints for the contrast test (tests/ref/test_contrast.py). The
 * dark theme is the player's default look, whose pairs stay in ui.h's UI_PAIRS. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "ui.h"

#define RAMP_N 6
#define RAMP8_N 4

/* A theme: the colours it paints the screen with (base; -1 keeps the terminal's), its
 * pairs in UI_PAIRS order (-1 in a pair: the base colour), its ramps. */
typedef struct {
    const char *name;
    short base256[2], base8[2];          /* fg, bg */
    short pairs256[UI_PAIR_RAMP0 - 1][2];
    short pairs8[UI_PAIR_RAMP0 - 1][2];
    short ramp256[RAMP_N], ramp256_fg[RAMP_N];
    short ramp8[RAMP8_N], ramp8_fg[RAMP8_N];
} Theme;

/* Ramps keep the viridis order (purple, blue, teal, green, yellow-green, yellow: safe for
 * the common colour-vision deficiencies) with luminance strictly rising. Projector: every
 * step at least 3:1 against the black background (WCAG 2.1 non-text contrast), the numbers
 * on a step at least 4.5:1 (WCAG AA text), neighbouring steps at least 1.24:1. Light: at
 * least 2:1 against white (yellow cannot reach more and stay yellow), numbers 4.5:1,
 * neighbours 1.1:1. The 8-colour ramps rise in lightness too (xterm's default colours).
 * tests/ref/contrast.py measures these from the xterm palette. */
static const Theme THEMES[] = {
    {.name = "dark",
     .base256 = {-1, -1}, .base8 = {-1, -1},
#define UI_T256(name, f256, b256, f8, b8) {f256, b256},
#define UI_T8(name, f256, b256, f8, b8) {f8, b8},
     .pairs256 = {UI_PAIRS(UI_T256)}, .pairs8 = {UI_PAIRS(UI_T8)},
     .ramp256 = {53, 61, 31, 36, 113, 220}, .ramp256_fg = {231, 231, 231, 16, 16, 16},
     .ramp8 = {COLOR_BLACK, COLOR_BLUE, COLOR_CYAN, COLOR_WHITE},
     .ramp8_fg = {COLOR_WHITE, COLOR_WHITE, COLOR_BLACK, COLOR_BLACK}},
    {.name = "light",
     .base256 = {16, 231}, .base8 = {COLOR_BLACK, COLOR_WHITE},
     /* header footer key warn accent dim chip chip-pick sel */
     .pairs256 = {{231, 24}, {16, 252}, {18, 252}, {16, 214}, {25, -1}, {240, -1},
                  {16, 153}, {16, 220}, {16, 153}},
     .pairs8 = {{COLOR_WHITE, COLOR_BLUE}, {COLOR_BLACK, COLOR_CYAN}, {COLOR_BLUE, COLOR_CYAN},
                {COLOR_BLACK, COLOR_YELLOW}, {COLOR_BLUE, -1}, {COLOR_BLACK, -1},
                {COLOR_BLACK, COLOR_CYAN}, {COLOR_BLACK, COLOR_YELLOW},
                {COLOR_BLACK, COLOR_CYAN}},
     .ramp256 = {53, 24, 31, 35, 107, 179}, .ramp256_fg = {231, 231, 16, 16, 16, 16},
     .ramp8 = {COLOR_BLUE, COLOR_MAGENTA, COLOR_GREEN, COLOR_YELLOW},
     .ramp8_fg = {COLOR_WHITE, COLOR_WHITE, COLOR_BLACK, COLOR_BLACK}},
    {.name = "projector",
     .base256 = {231, 16}, .base8 = {COLOR_WHITE, COLOR_BLACK},
     .pairs256 = {{231, 24}, {231, 238}, {226, 238}, {16, 214}, {81, -1}, {250, -1},
                  {16, 153}, {16, 220}, {16, 153}},
     .pairs8 = {{COLOR_WHITE, COLOR_BLUE}, {COLOR_WHITE, COLOR_BLUE}, {COLOR_YELLOW, COLOR_BLUE},
                {COLOR_BLACK, COLOR_YELLOW}, {COLOR_CYAN, -1}, {COLOR_WHITE, -1},
                {COLOR_BLACK, COLOR_CYAN}, {COLOR_BLACK, COLOR_YELLOW},
                {COLOR_BLACK, COLOR_CYAN}},
     /* the xterm-256 colours in viridis hue order that keep the smallest step between
      * neighbours largest (1.24:1; the numbers 4.5:1, every step 3:1 on black) */
     .ramp256 = {92, 27, 36, 40, 82, 227}, .ramp256_fg = {231, 231, 16, 16, 16, 16},
     /* no black or blue step: they vanish into a projected black background */
     .ramp8 = {COLOR_MAGENTA, COLOR_GREEN, COLOR_YELLOW, COLOR_WHITE},
     .ramp8_fg = {COLOR_WHITE, COLOR_BLACK, COLOR_BLACK, COLOR_BLACK}},
};
#define N_THEMES (int)(sizeof THEMES / sizeof THEMES[0])

int ui_theme_parse(const char *s)
{
    if (!strcmp(s, "auto"))
        return UI_THEME_AUTO;
    for (int i = 0; i < N_THEMES; i++)
        if (!strcmp(s, THEMES[i].name))
            return i;
    return -2;
}

int ui_theme_auto(const char *colorfgbg, int dark_theme)
{
    /* COLORFGBG is "fg;bg" or "fg;default;bg" (rxvt, konsole, some xterms): the background
     * is the last field; 7 and 9..15 are light colours, 0..6 and 8 dark */
    if (colorfgbg && *colorfgbg) {
        const char *last = strrchr(colorfgbg, ';');
        const char *f = last ? last + 1 : colorfgbg;
        char *end;
        long bg = strtol(f, &end, 10);
        if (end != f && *end == '\0' && bg >= 0 && bg <= 255)
            return bg == 7 || (bg >= 9 && bg <= 15) ? UI_THEME_LIGHT : dark_theme;
    }
    return dark_theme;
}

/* The base colour for -1 in a pair: the theme's, or the terminal's default (-1). */
static short pick(short c, short base)
{
    return c == -1 ? base : c;
}

int ui_theme_colors(int theme, int c256)
{
    if (theme < 0 || theme >= N_THEMES)
        theme = UI_THEME_DARK;
    const Theme *t = &THEMES[theme];
    const short *base = c256 ? t->base256 : t->base8;
    for (int p = 1; p < UI_PAIR_RAMP0; p++) {
        const short *pr = c256 ? t->pairs256[p - 1] : t->pairs8[p - 1];
        init_pair((short)p, pick(pr[0], base[0]), pick(pr[1], base[1]));
    }
    int n = c256 ? RAMP_N : RAMP8_N;
    for (int i = 0; i < n; i++)
        init_pair((short)(UI_PAIR_RAMP0 + i), c256 ? t->ramp256_fg[i] : t->ramp8_fg[i],
                  c256 ? t->ramp256[i] : t->ramp8[i]);
    /* the base pair paints the whole screen: text without a pair of its own takes it */
    short bp = (short)(UI_PAIR_RAMP0 + RAMP_N);
    if (base[0] != -1 || base[1] != -1) {
        init_pair(bp, base[0], base[1]);
        bkgdset(COLOR_PAIR(bp));
        bkgd(COLOR_PAIR(bp));
    }
    return n;
}

void ui_theme_dump(FILE *f)
{
    fprintf(f, "# attend --themes: each theme's 256-colour palette indices (src/tui/ui_theme.c)\n"
               "# theme NAME BG TEXT       (BG -1: the terminal's own background)\n"
               "# ramp NAME STEP BG FG     (a heatmap step: cell colour, its numbers' colour)\n"
               "# ramp8 NAME STEP BG FG    (the same in 8 colours: curses colour numbers 0-7)\n"
               "# min NAME BG TEXT ADJ     (the contrast each step holds: against BG, its\n"
               "#                           numbers, and the step before it)\n");
    for (int i = 0; i < N_THEMES; i++) {
        const Theme *t = &THEMES[i];
        fprintf(f, "theme\t%s\t%d\t%d\n", t->name, t->base256[1], t->base256[0]);
        for (int s = 0; s < RAMP_N; s++)
            fprintf(f, "ramp\t%s\t%d\t%d\t%d\n", t->name, s, t->ramp256[s], t->ramp256_fg[s]);
        for (int s = 0; s < RAMP8_N; s++)
            fprintf(f, "ramp8\t%s\t%d\t%d\t%d\n", t->name, s, t->ramp8[s], t->ramp8_fg[s]);
    }
    fprintf(f, "min\tprojector\t3.0\t4.5\t1.24\n");
    fprintf(f, "min\tlight\t2.0\t4.5\t1.1\n");
}
