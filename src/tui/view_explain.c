/* view_explain.c - what the explanation views share: grouped numbers, byte sizes, horizontal
 * bars and the "not run" line (their numbers are recomputed by app_run through widget_run). */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "ui.h"
#include "view_explain.h"

const char *ex_group(long long v, char *out, size_t n)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%lld", v < 0 ? -v : v);
    const char *sep = ui.utf8 ? "\xe2\x80\x89" : " ";
    size_t nd = strlen(digits), o = 0;
    if (!n)
        return out;
    out[0] = '\0';
    if (v < 0 && o + 1 < n)
        out[o++] = '-';
    for (size_t i = 0; i < nd; i++) {
        if (i && (nd - i) % 3 == 0) {
            size_t sl = strlen(sep);
            if (o + sl + 1 >= n)
                break;
            memcpy(out + o, sep, sl);
            o += sl;
        }
        if (o + 2 > n)
            break;
        out[o++] = digits[i];
    }
    out[o] = '\0';
    return out;
}

const char *ex_bytes(long long v, char *out, size_t n)
{
    static const char *const U[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double d = (double)v;
    int u = 0;
    while (d >= 1024.0 && u < 4) {
        d /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(out, n, "%lld B", v);
    else
        snprintf(out, n, "%.1f %s", d, U[u]);
    return out;
}

void ex_bar(int y, int x, int w, double frac)
{
    static const char *const EIGHTHS[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    if (w < 1)
        return;
    if (frac < 0)
        frac = 0;
    if (frac > 1)
        frac = 1;
    int units = (int)(frac * w * 8 + 0.5);
    if (frac > 0 && units == 0)
        units = 1;
    int full = units / 8, part = units % 8;
    for (int i = 0; i < full; i++)
        ui_put(y, x + i, 1, ui.utf8 ? "█" : "#");
    if (part && full < w) {
        if (ui.utf8)
            ui_put(y, x + full, 1, EIGHTHS[part]);
        else if (full == 0)
            ui_put(y, x, 1, ".");
    }
}

int ex_not_ran(App *a, Rect r)
{
    if (a->s->ran)
        return 0;
    attron(COLOR_PAIR(UI_WARN));
    ui_put(r.y, r.x, r.w, a->s->run_err[0] ? a->s->run_err : "nothing to show");
    attroff(COLOR_PAIR(UI_WARN));
    return 1;
}
