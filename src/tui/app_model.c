/* app_model.c - attend --model PATH in the player: the model read with a progress bar on the
 * screen, handed to the course's "@opened" pages (lesson_open_model), the player opened on the
 * first of them. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app_model.h"
#include "demo.h"
#include "present.h"
#include "lesson.h"

typedef struct {
    const char *path;
    int last;  /* last percentage drawn */
} LoadBar;

/* The loading screen: what is read, a bar, the megabytes done. */
static void load_draw(LoadBar *b, size_t done, size_t total)
{
    int w = COLS > 4 ? COLS - 4 : COLS, y = LINES / 2 - 2;
    int pct = total ? (int)(done * 100 / total) : 0;
    int bw = w - 10 > 50 ? 50 : w - 10;
    char bar[64];
    if (bw < 10)
        bw = 10;
    for (int i = 0; i < bw; i++)
        bar[i] = i < pct * bw / 100 ? '#' : '.';
    bar[bw] = 0;
    erase();
    ui_putf(y, 2, w, "opening %s", b->path);
    ui_putf(y + 2, 2, w, "[%s] %3d%%", bar, pct);
    if (total)
        ui_putf(y + 3, 2, w, "%zu of %zu MB of weights read", done >> 20, total >> 20);
    refresh();
}

static void load_progress(void *ctx, size_t done, size_t total)
{
    LoadBar *b = ctx;
    int pct = total ? (int)(done * 100 / total) : 0;
    if (pct == b->last)
        return;
    b->last = pct;
    load_draw(b, done, total);
}

int app_model_open(App *a, const char *path, int jump, char *err, size_t errlen)
{
    char shown[1024]; /* the room sees the model's name, never a machine's path */
    if (a->present && a->present->presenter)
        demo_room_path(path, shown, sizeof shown);
    else
        snprintf(shown, sizeof shown, "%s", path);
    LoadBar b = {shown, -1};
    load_draw(&b, 0, 0);
    if (session_open_model(a->s, path, load_progress, &b, jump, err, errlen))
        return -1;
    const Model *om = session_opened_model(a->s);
    app_open(a, a->s->lesson, a->s->page);
    app_msg(a, 0, "opened %.300s: %d layers, %d heads, d_model %d", shown, om->cfg.n_layers,
            om->cfg.n_heads, om->cfg.d_model);
    return 0;
}
