/* tui_bench.c - time from a key press to a finished redraw: the player's key handler
 * (changes controls, recomputes the trace) plus a full redraw into an off-screen terminal
 * (newterm on /dev/null). At lesson size (the shipped course's heatmap and chips pages) and
 * at 64 tokens with 8 heads (a model made in memory), and every head of that model drawn at
 * once at 200x60 (the longest sentence whose drawing shows them all). Prints µs per key press
 * and peak RSS.
 * Built and run by bench/tui_bench.sh (make bench). Not a test: it never fails on speed. */
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "app_key.h"
#include "app_views.h"
#include "layout.h"
#include "datapath.h"
#include "ui.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Presses each key of keys in turn, iters times, each followed by a full redraw. */
static double per_key(App *a, const char *keys, int iters)
{
    int nk = (int)strlen(keys);
    layout_draw(a);
    double t0 = now_us();
    for (int i = 0; i < iters; i++) {
        app_key(a, keys[i % nk]);
        layout_draw(a);
    }
    return (now_us() - t0) / iters;
}

/* The two halves separately: recompute only, draw only. */
static void split(App *a, int iters)
{
    double t0 = now_us();
    for (int i = 0; i < iters; i++)
        app_run(a);
    double t1 = now_us();
    for (int i = 0; i < iters; i++)
        layout_draw(a);
    double t2 = now_us();
    printf("  %-52s %8.1f us recompute + %.1f us draw\n", "  of which", (t1 - t0) / iters,
           (t2 - t1) / iters);
}

static void report(const char *what, double us, double target_us)
{
    printf("  %-52s %8.1f us per key press (target < %.0f us)%s\n", what, us, target_us,
           us < target_us ? "" : "  OVER TARGET");
}

/* 1 if any line of the screen contains s (what the last app_draw wrote). */
static int screen_has(const char *s)
{
    char line[512];
    for (int y = 0; y < LINES; y++) {
        mvinnstr(y, 0, line, COLS < 511 ? COLS : 511);
        if (strstr(line, s))
            return 1;
    }
    return 0;
}

/* Every head of the wide model at once (the small multiples) at 200x60: the longest sentence
 * (32 tokens down) whose drawing shows all heads, not the "more heads than fit" note. */
static void all_heads(App *b, const Model *m, Widget *w)
{
    char saved[sizeof w->start.sentence];
    memcpy(saved, w->start.sentence, sizeof saved);
    for (int n = 32; n >= 4; n -= 4) {
        char *end = w->start.sentence;
        for (int i = 0; i < n; i++)
            end = strchr(end + 1, ' ');
        if (end)
            *end = 0;
        app_use(b, m, w);
        b->s->all_heads = 1;
        layout_draw(b);
        int cut = screen_has("more heads than fit") || screen_has("too narrow");
        memcpy(w->start.sentence, saved, sizeof saved);
        if (cut && n > 4)
            continue;
        char what[80];
        snprintf(what, sizeof what, "%d tokens all %d heads, m (mask) at 200x60%s", b->s->n_src,
                 m->cfg.n_heads, cut ? " (CUT)" : "");
        report(what, per_key(b, "m", 300), 16000);
        split(b, 100);
        b->s->all_heads = 0;
        app_use(b, m, w);
        return;
    }
}

/* The wide model: d_model 128, 8 heads, 2 layers, up to 64 tokens, the course's vocabulary,
 * seeded random weights. 0 or -1 with a message. */
static int make_wide(Model *m, char *err, size_t errlen)
{
    ModelConfig cfg;
    model_config_defaults(&cfg);
    cfg.d_model = 128;
    cfg.n_heads = 8;
    cfg.d_head = 16;
    cfg.n_layers = 2;
    cfg.d_ff = 512;
    cfg.max_len = 64;
    Vocab v;
    char vpath[1024];
    data_path("data/vocab.txt", vpath, sizeof vpath);
    if (vocab_load_file(&v, vpath, err, errlen))
        return -1;
    cfg.vocab_size = v.n;
    if (model_new(m, &cfg, &v, err, errlen))
        return -1;
    model_init_random(m, 7);
    return 0;
}

int main(int argc, char **argv)
{
    char err[1024];
    const char *dir = argc > 1 ? argv[1] : "lessons";
    setlocale(LC_ALL, "");
    FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
    UiOpts uo;
    memset(&uo, 0, sizeof uo);
    uo.out = out;
    uo.in = in;
    uo.term = "xterm-256color";
    uo.offscreen = 1;
    if (ui_start(&uo, err, sizeof err)) {
        fprintf(stderr, "tui_bench: %s\n", err);
        return 1;
    }
    printf("== tui redraw (key press -> recompute -> full redraw to an off-screen %s, %s)\n",
           uo.term, ui.color == UI_COLOR_256 ? "256 colours" : "colours off");

    /* lesson size: the shipped course */
    resize_term(24, 80);
    App *a = app_new();
    if (!a || app_load(a, dir, NULL, err, sizeof err)) {
        ui_end();
        fprintf(stderr, "tui_bench: %s\n", err);
        return 1;
    }
    int heat = -1, chips = -1, heat_page = 0, chips_page = 0, real = -1, real_page = 0;
    for (int l = 0; l < a->s->course.n_lessons; l++)
        for (int p = 0; p < a->s->course.lessons[l].n_pages; p++) {
            const Widget *w = &a->s->course.lessons[l].pages[p].widget;
            if (real < 0 && w->kind == W_HEATMAP && (w->controls & C_HEAD) &&
                strstr(w->start.model, "wordnet")) { /* the real-English (WordPiece) model */
                real = l;
                real_page = p;
            }
            if (heat < 0 && w->kind == W_HEATMAP && (w->controls & C_MASK)) {
                heat = l;
                heat_page = p;
            }
            if (chips < 0 && w->kind == W_CHIPS && (w->controls & C_PE)) {
                chips = l;
                chips_page = p;
            }
        }
    if (heat >= 0) {
        app_open(a, heat, heat_page);
        report("lesson heatmap, m (mask) at 80x24", per_key(a, "m", 2000), 2000);
        split(a, 1000);
        resize_term(60, 200);
        report("lesson heatmap, m (mask) at 200x60", per_key(a, "m", 2000), 2000);
        resize_term(24, 80);
    }
    if (real >= 0) {
        app_open(a, real, real_page);
        char what[96];
        snprintf(what, sizeof what, "wordnet heatmap (%d tokens), ] (head) at 80x24",
                 a->s->model ? a->s->n_src : 0);
        report(what, per_key(a, "]", 2000), 2000);
    }
    if (chips >= 0) {
        app_open(a, chips, chips_page);
        report("lesson chips, p (PE) + equivariance at 80x24", per_key(a, "p", 2000), 2000);
    }

    /* 64 tokens, 8 heads: a model made in memory */
    Model m;
    if (make_wide(&m, err, sizeof err)) {
        ui_end();
        fprintf(stderr, "tui_bench: %s\n", err);
        return 1;
    }
    const ModelConfig cfg = m.cfg;
    Widget w;
    memset(&w, 0, sizeof w);
    w.kind = W_HEATMAP;
    w.start.causal = -1;
    w.start.padding = -1;
    w.start.pe = -1;
    w.start.scale = 1;
    const char *words[] = {"the", "cat", "sat", "on", "the", "mat", "and", "a", "dog"};
    for (int i = 0; i < 64; i++) {
        size_t k = strlen(w.start.sentence);
        snprintf(w.start.sentence + k, sizeof w.start.sentence - k, "%s%s", i ? " " : "",
                 words[i % 9]);
    }
    w.controls = C_MASK | C_PE | C_HEAD | C_ALL_HEADS | C_CURSOR | C_SCORES;
    App *b = app_new();
    if (!b || app_use(b, &m, &w)) {
        ui_end();
        fprintf(stderr, "tui_bench: cannot set up the 64-token widget\n");
        return 1;
    }
    resize_term(60, 200);
    printf("  (64 tokens: %d tokens, d_model %d, %d heads, %d layers)\n", b->s->n_src, cfg.d_model,
           cfg.n_heads, cfg.n_layers);
    report("64 tokens heatmap, m (mask) at 200x60", per_key(b, "m", 300), 16000);
    split(b, 100);
    all_heads(b, &m, &w);
    w.kind = W_PASSPORT;
    w.controls = C_STEP | C_MASK;
    app_use(b, &m, &w);
    report("64 tokens passport, n/N (step) at 200x60", per_key(b, "nnnnnNNNNN", 300), 16000);
    w.kind = W_CHIPS;
    w.controls = C_PE | C_SWAP;
    app_use(b, &m, &w);
    report("64 tokens chips, p (PE) + equivariance at 200x60", per_key(b, "p", 300), 16000);
    split(b, 100);

    ui_end();
    app_delete(a);
    app_delete(b);
    model_free(&m);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("  peak RSS %.1f MB (target < 16 MB)\n", (double)ru.ru_maxrss / 1024.0);
    fclose(out);
    fclose(in);
    return 0;
}
