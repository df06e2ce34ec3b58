/* view_chips.c - the sentence as token chips: pick two to swap them, then read whether the
 * attention outputs are the same outputs permuted (max|Attn(PX) − P·Attn(X)| from the
 * engine's model_equivariance). Keys, or mouse clicks when --mouse is on. */
#include <curses.h>
#include <string.h>

#include "app.h"
#include "ui.h"

#define EQUIV_TOL 1e-4f /* float rounding of a reordered sum stays far below this */

/* Where chip i sits in r: its row and column (shared by draw and mouse clicks). */
static void chip_pos(App *a, Rect r, int i, int *y, int *x, int *w)
{
    int cx = r.x, cy = r.y + 2;
    for (int k = 0; k <= i; k++) {
        int cw = ui_width(vocab_word(&a->model->vocab, a->t->src[k])) + 4;
        if (cx + cw > r.x + r.w && cx > r.x) {
            cx = r.x;
            cy += 3;
        }
        if (k == i) {
            *y = cy;
            *x = cx;
            *w = cw;
            return;
        }
        cx += cw + 1;
    }
}

static int chips_rows(App *a, Rect r)
{
    int y, x, w;
    if (!a->ran || a->t->n == 0)
        return 0;
    chip_pos(a, r, a->t->n - 1, &y, &x, &w);
    return y - r.y + 2;
}

static void chips_draw(App *a, Rect r)
{
    if (!a->ran) {
        attron(COLOR_PAIR(UI_WARN));
        ui_put(r.y, r.x, r.w, a->run_err[0] ? a->run_err : "nothing to show");
        attroff(COLOR_PAIR(UI_WARN));
        return;
    }
    const Trace *t = a->t;
    char s[400];
    attron(COLOR_PAIR(UI_ACCENT));
    snprintf(s, sizeof s, "token chips  mask:%s  PE:%s  scale:%s",
             app_mask_name(a, a->model->cfg.arch == ARCH_DECODER ? STACK_DEC : STACK_ENC, SUB_SELF),
             model_pe_name(a->ctl.pe),
             a->ctl.scale ? "on" : "off");
    ui_put(r.y, r.x, r.w, s);
    attroff(COLOR_PAIR(UI_ACCENT));
    for (int i = 0; i < t->n; i++) {
        int y, x, w;
        chip_pos(a, r, i, &y, &x, &w);
        if (y + 1 >= r.y + r.h)
            break;
        attron(A_DIM);
        ui_putf(y - 1, x, w, "%d", i);
        attroff(A_DIM);
        int attr = COLOR_PAIR(i == a->chip_pick ? UI_CHIP_PICK : UI_CHIP);
        if (i == a->chip_pick)
            attr |= A_BOLD;
        if (ui.color == UI_COLOR_NONE && i == a->chip_pick)
            attr |= A_REVERSE;
        attron(attr);
        ui_putf(y, x, w, "[ %s ]", vocab_word(&a->model->vocab, t->src[i]));
        attroff(attr);
        if (i == a->chip_cur) {
            attron(A_BOLD);
            for (int q = 0; q < w; q++)
                ui_put(y + 1, x + q, 1, ui.utf8 ? "▔" : "^");
            attroff(A_BOLD);
        }
    }
    int y = r.y + 1 + chips_rows(a, r);
    if (y >= r.y + r.h)
        return;
    /* the current order: the original position of the token at each position */
    int n = snprintf(s, sizeof s, "order:");
    for (int i = 0; i < t->n && n < (int)sizeof s - 8; i++)
        n += snprintf(s + n, sizeof s - (size_t)n, " %d", t->order[i]);
    ui_put(y++, r.x, r.w, s);
    if (a->chip_pick >= 0 && y < r.y + r.h)
        ui_putf(y, r.x, r.w, "picked '%s' at %d: pick another chip to swap (ESC cancels)",
                vocab_word(&a->model->vocab, t->src[a->chip_pick]), a->chip_pick);
    y++;
    if (y >= r.y + r.h)
        return;
    if (a->equiv < 0.0f) {
        attron(COLOR_PAIR(UI_WARN));
        ui_put(y, r.x, r.w, a->run_err[0] ? a->run_err : "equivariance not computed");
        attroff(COLOR_PAIR(UI_WARN));
        return;
    }
    int match = a->equiv < EQUIV_TOL;
    attron(A_BOLD | (match ? COLOR_PAIR(UI_ACCENT) : COLOR_PAIR(UI_WARN)));
    if (ui.color == UI_COLOR_NONE && !match)
        attron(A_REVERSE);
    ui_putf(y++, r.x, r.w, "%s %s", match ? ui_glyph(G_CHECK) : ui_glyph(G_WARN),
            match ? "outputs match permutation" : "outputs do not match");
    attrset(A_NORMAL);
    if (y < r.y + r.h)
        ui_putf(y++, r.x, r.w, "max|Attn(PX) − P·Attn(X)| = %.3g", (double)a->equiv);
    int ident = 1;
    for (int i = 0; i < t->n; i++)
        if (t->order[i] != i)
            ident = 0;
    if (y < r.y + r.h) {
        attron(A_DIM);
        ui_put(y, r.x, r.w,
               ident ? "(original order: swap two chips to permute the input)"
               : match ? "same outputs, moved with their tokens: attention alone ignores order"
               : a->ctl.causal ? "changed, not just moved: the causal mask depends on position"
               : a->ctl.pe != PE_NONE ? "changed, not just moved: positional encoding is seen"
                                      : "the outputs changed, not just moved");
        attroff(A_DIM);
    }
}

static void swap_with(App *a, int i)
{
    if (a->chip_pick < 0) {
        a->chip_pick = i;
        return;
    }
    if (a->chip_pick != i) {
        int tmp = a->order[a->chip_pick];
        a->order[a->chip_pick] = a->order[i];
        a->order[i] = tmp;
        app_msg(a, 0, "swapped positions %d and %d", a->chip_pick, i);
        app_run(a);
    }
    a->chip_pick = -1;
}

static int chips_key(App *a, Request req, int k)
{
    (void)k;
    if (!a->ran)
        return 0;
    int n = a->t->n;
    switch (req) {
    case REQ_CHIP_LEFT:
        a->chip_cur = a->chip_cur > 0 ? a->chip_cur - 1 : 0;
        return 1;
    case REQ_CHIP_RIGHT:
        a->chip_cur = a->chip_cur < n - 1 ? a->chip_cur + 1 : n - 1;
        return 1;
    case REQ_CHIP_FIRST:
        a->chip_cur = 0;
        return 1;
    case REQ_CHIP_LAST:
        a->chip_cur = n - 1;
        return 1;
    case REQ_PICK:
        if (!(a->allowed & C_SWAP)) {
            app_msg(a, 0, "swapping is not part of this page");
            return 1;
        }
        swap_with(a, a->chip_cur);
        return 1;
    case REQ_DROP_PICK:
        if (a->chip_pick >= 0) {
            a->chip_pick = -1;
            return 1;
        }
        return 0;
    case REQ_RESET_ORDER:
        for (int i = 0; i < APP_MAX_TOK; i++)
            a->order[i] = i;
        a->chip_pick = -1;
        app_run(a);
        app_msg(a, 0, "original order");
        return 1;
    default:
        return 0;
    }
}

/* A mouse click at (y, x) in the widget rect: picks the chip under it. */
int chips_click(App *a, Rect r, int y, int x)
{
    if (!a->ran || !(a->allowed & C_SWAP))
        return 0;
    for (int i = 0; i < a->t->n; i++) {
        int cy, cx, cw;
        chip_pos(a, r, i, &cy, &cx, &cw);
        if (y == cy && x >= cx && x < cx + cw) {
            a->chip_cur = i;
            swap_with(a, i);
            return 1;
        }
    }
    return 0;
}

static int chips_need(App *a, int w)
{
    Rect r = {0, 0, 100, w};
    if (!a->ran)
        return 2;
    return chips_rows(a, r) + 7;
}

/* The footer lists the shared controls but r: here it is the chips' own reset of the order. */
const ViewOps VIEW_CHIPS = {
    .name = "chips", .kind = W_CHIPS, .keymap = KM_CHIPS, .common = ~(unsigned)C_RESET,
    .draw = chips_draw, .key = chips_key, .need = chips_need,
};
