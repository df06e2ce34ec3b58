/* view_help.c - the overlays that are not widgets: `?` help listing every key, and the
 * speaker notes of a page (o). ESC closes them at once. */
#include <curses.h>
#include <string.h>

#include "app.h"
#include "ui.h"

/* Every key of the player. A line starting with '#' is a section title. */
static const char *const HELP[] = {
    "#Everywhere",
    "space, PgDn        next page (continues into the next lesson)",
    "backspace, PgUp    previous page",
    "g, Tab             lesson menu with completion marks",
    "J / K              scroll the prose down / up when it does not fit",
    "o                  speaker notes of the page (when it has some)",
    "Q                  this lesson's questions (a quiz; the footer shows Q on pages",
    "                   that have questions)",
    "z                  widget focus: the widget takes the whole screen (z again:",
    "                   prose and widget); the footer offers it when prose is cut",
    "?, F1              this help;  ESC or q closes it",
    "q, Ctrl-C          quit (progress is saved on every page change)",
    "#Heatmap",
    "arrows, j/k, b/w   move the cell cursor: q_i·k_j, ÷√d_k, mask, weight",
    "m                  causal mask on/off",
    "d                  padding mask on/off",
    "p                  positional encoding: none → sinusoidal → learned → rope",
    "s                  scaling by 1/√d_k on/off",
    "] or h / [ or H    next / previous head",
    "l / L              next / previous layer",
    "a                  all heads of the layer as small multiples",
    "v                  weights ↔ pre-softmax scores (−∞ where masked)",
    "e                  edit the sentence; ESC cancels",
    "E                  edit the decoder's sentence (encoder-decoder models)",
    "r                  reset the controls to the page's start",
    "#Chips",
    "←/→ (h/l)          move between chips",
    "enter or x         pick a chip; pick a second one to swap them",
    "mouse click        pick a chip (only with attend --mouse)",
    "r                  original order",
    "#Shape passport",
    "n or →, N or ←     next / previous step of the block",
    "↑/↓ j/k, < >       scroll the matrix",
    "#Matrix",
    "t                  pick any traced tensor by name",
    "↑/↓ j/k, < >       scroll the matrix",
    "#Worked example",
    "n / N              next / previous step: Q K V, QKᵀ, ÷√d_k, +M, softmax, ·V",
    "                   (→ / ← too when the page has no cell cursor)",
    "arrows, j/k, b/w   a cell, written out: q·k term by term, ÷√d_k, mask, softmax",
    "m, s               causal mask, scaling by 1/√d_k",
    "#√d_k experiment",
    "+ / -              double / halve d_k (1..1024)",
    "s                  which scores the model uses: unscaled or ÷√d_k",
    "#KV cache",
    "n or →, N or ←     generate one more token / one fewer",
    "#Cost",
    "+ / -              double / halve N (1..8192)",
    "#Parameters",
    "t                  tied embeddings on/off (the LM head reuses the embedding)",
    "g                  grouped-query attention on/off; Tab opens the lesson menu there",
    "#Lesson menu",
    "↑/↓ j/k, enter     choose and open a lesson;  ESC closes",
    "#Sentence editor",
    "←/→ Home/End       move;  backspace/Del erase;  Ctrl-U clears",
    "enter              use the sentence;  ESC cancels",
    "",
    "Only the keys the page's widget allows are active; the footer lists them.",
    "Colour: NO_COLOR=1 turns it off (shades and numbers remain); --ascii for",
    "ASCII glyphs; --mouse enables clicks (it blocks the terminal's copy/paste).",
};

#define N_HELP (int)(sizeof HELP / sizeof HELP[0])

static void overlay_box(int *y0, int *x0, int *h, int *w, int want_w, int want_h)
{
    *w = want_w < COLS - 4 ? want_w : COLS - 4;
    *h = want_h < LINES - 2 ? want_h : LINES - 2;
    *y0 = (LINES - *h) / 2;
    *x0 = (COLS - *w) / 2;
    attrset(A_NORMAL);
    for (int y = *y0; y < *y0 + *h; y++)
        ui_fill(y, *x0, *w);
}

void help_draw(App *a)
{
    int y0, x0, h, w;
    overlay_box(&y0, &x0, &h, &w, 80, N_HELP + 2);
    ui_box(y0, x0, h, w, "keys (ESC closes)");
    int rows = h - 2;
    if (a->help_scroll > N_HELP - rows)
        a->help_scroll = N_HELP - rows;
    if (a->help_scroll < 0)
        a->help_scroll = 0;
    for (int i = 0; i < rows && a->help_scroll + i < N_HELP; i++) {
        const char *s = HELP[a->help_scroll + i];
        if (s[0] == '#') {
            attron(A_BOLD | COLOR_PAIR(UI_ACCENT));
            ui_put(y0 + 1 + i, x0 + 2, w - 4, s + 1);
            attroff(A_BOLD | COLOR_PAIR(UI_ACCENT));
        } else {
            ui_put(y0 + 1 + i, x0 + 2, w - 4, s);
        }
    }
    if (N_HELP > rows) {
        attron(A_DIM);
        ui_putf(y0 + h - 1, x0 + w - 22, 20, " %s more (%d/%d) ", ui.utf8 ? "↑↓" : "j/k",
                a->help_scroll + rows, N_HELP);
        attroff(A_DIM);
    }
}

int help_key(App *a, int k)
{
    switch (k) {
    case KEY_UP:
    case 'k':
        a->help_scroll--;
        break;
    case KEY_DOWN:
    case 'j':
        a->help_scroll++;
        break;
    case KEY_NPAGE:
    case ' ':
        a->help_scroll += 10;
        break;
    case KEY_PPAGE:
        a->help_scroll -= 10;
        break;
    default:
        a->overlay = OV_NONE; /* ESC, q, ? and anything else close at once */
        break;
    }
    if (a->help_scroll < 0)
        a->help_scroll = 0;
    return 1;
}

typedef struct {
    int y, x, w, row, rows;
} NotesCtx;

static void notes_line(const char *s, int len, void *vctx)
{
    NotesCtx *c = vctx;
    char buf[512];
    if (c->row < c->rows) {
        snprintf(buf, sizeof buf, "%.*s", len, s);
        ui_put(c->y + c->row, c->x, c->w, buf);
    }
    c->row++;
}

void notes_draw(App *a)
{
    const Lesson *l = &a->course.lessons[a->lesson];
    const Page *p = &l->pages[a->page];
    if (!p->notes)
        return;
    static char tr[8192];
    ui_text(p->notes, tr, sizeof tr);
    int y0, x0, h, w;
    overlay_box(&y0, &x0, &h, &w, 72, LINES - 6);
    ui_box(y0, x0, h, w, "speaker notes (ESC closes)");
    NotesCtx c = {y0 + 1, x0 + 2, w - 4, 0, h - 2};
    ui_wrap(tr, w - 4, notes_line, &c);
}
