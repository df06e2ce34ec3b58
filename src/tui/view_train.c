/* view_train.c - the train widget: a small decoder (watch.c) trained live in slices between
 * keys, with its loss curves (train and held-out) as a terminal plot, step and tokens/s, the
 * heatmap of a chosen head on a fixed sentence, the best head's previous-token score, and
 * after training a greedy continuation of a fixed prompt and both runs' losses side by side.
 * Keys: t start/pause, m mask (before starting), h/l head and layer, r reset, w save. */
#include <curses.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app_views.h"
#include "datapath.h"
#include "ui.h"
#include "view_explain.h"
#include "view_train_repeat.h"
#include "watch.h"

#define TR_SENTENCE "the dog chased the cat ."
#define TR_PROMPT "the cat"
#define TR_MEASURE_EVERY 10   /* steps between two points of the curves */
#define TR_MAX_POINTS 256
#define TR_SAVE_FILE "attend-trained.json"

typedef struct {
    WatchRun *run;
    char err[300];
    int running, causal, layer, head, done;
    int measure;              /* due: 1 the training loss, 2 the held-out loss, 3 the head
                                 scores and heatmap (one slice each, ~30 ms at most) */
    double tl;                /* the training loss of the measurement under way */
    int n_pts;
    int pt_step[TR_MAX_POINTS];
    float pt_train[TR_MAX_POINTS], pt_held[TR_MAX_POINTS];
    double best_prev;
    int best_layer, best_head;
    double run_secs, t0;      /* seconds spent training; start of the current slice run */
    int ids[32], n_ids;
    Trace *trace;             /* the heatmap's run of the trained model (widget_run) */
    LiveWidget live;
    int hm_ok;
    char gen[200];            /* the continuation of TR_PROMPT after training */
    int have[2];              /* final losses of the cheating [0] and masked [1] runs */
    double fin_train[2], fin_held[2];
    TrainRepeat *rep;         /* a page whose model records a repeat-task recipe (the
                                 induction model): its replay and live run instead */
    const Model *rep_model;   /* the model rep was made for */
} TrainState;

static TrainState *st(const App *a)
{
    return app_view_state((App *)a, &VIEW_TRAIN);
}

/* The repeat-task page of the current model, made on first use; NULL on a corpus page. */
static TrainRepeat *rep(const App *a)
{
    TrainState *s = st(a);
    if (!s || !a->s->model)
        return NULL;
    if (s->rep_model == a->s->model) /* made (or failed, said once) for this model */
        return s->rep;
    trr_free(s->rep);
    s->rep = NULL;
    s->rep_model = a->s->model;
    if (!trr_applies(a->s->model))
        return NULL;
    char err[300];
    s->rep = trr_new(a->s->model, err, sizeof err);
    if (!s->rep)
        app_msg((App *)a, 1, "%s", err);
    return s->rep;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The causal mask of the run: the running one's, else the page's start state. */
static int train_causal(const App *a)
{
    TrainState *s = st(a);
    return s && (s->run ? s->causal : (a->s->w ? a->s->w->start.causal != 0 : 1));
}

/* The heatmap: the trained model on the fixed sentence, through the one widget run. */
static void tr_heatmap(App *a, TrainState *s)
{
    WidgetIO io;
    memset(&io, 0, sizeof io);
    io.w = a->s->w;
    io.m = watch_model(s->run);
    io.src = s->ids;
    io.n_src = s->n_ids;
    io.live = &s->live;
    io.layer = s->layer;
    io.head = s->head;
    io.tr.t = s->trace;
    char err[256];
    s->hm_ok = widget_run(&io, NULL, err, sizeof err) == 0;
}

/* Opens the run (first use) or resets it to step 0 with the current mask. 0 or -1. */
static int tr_open(App *a, TrainState *s)
{
    if (!s->run) {
        char vp[1024], cp[1024], ep[1024];
        data_path("data/vocab.txt", vp, sizeof vp);
        data_path("data/corpus/english.txt", cp, sizeof cp);
        data_path("data/corpus/english-test.txt", ep, sizeof ep);
        WatchOpts o;
        watch_opts_defaults(&o);
        o.causal = s->causal;
        s->run = watch_new(vp, cp, ep, &o, s->err, sizeof s->err);
        if (!s->run)
            return -1;
        const Model *m = watch_model(s->run);
        s->n_ids = vocab_tokenize(&m->vocab, TR_SENTENCE, s->ids, 32, NULL);
        s->trace = trace_new(m, s->n_ids, 1);
        live_start(&s->live, a->s->w, m);
    } else if (watch_reset(s->run, s->causal, s->err, sizeof s->err)) {
        return -1;
    }
    s->n_pts = 0;
    s->run_secs = 0;
    s->done = 0;
    s->gen[0] = 0;
    s->measure = 1;
    return 0;
}

static void tr_measure(App *a, TrainState *s)
{
    if (s->measure == 1) {
        if (watch_loss(s->run, 0, &s->tl))
            s->tl = -1;
        s->measure = 2;
        return;
    }
    if (s->measure == 2) {
        double hl;
        if (s->tl >= 0 && !watch_loss(s->run, 1, &hl) && s->n_pts < TR_MAX_POINTS) {
            s->pt_step[s->n_pts] = watch_steps_done(s->run);
            s->pt_train[s->n_pts] = (float)s->tl;
            s->pt_held[s->n_pts++] = (float)hl;
        }
        s->measure = 3;
        return;
    }
    watch_best_head(s->run, &s->best_prev, &s->best_layer, &s->best_head);
    tr_heatmap(a, s);
    s->measure = 0;
    if (s->done && s->n_pts) {
        int c = s->causal ? 1 : 0;
        s->have[c] = 1;
        s->fin_train[c] = s->pt_train[s->n_pts - 1];
        s->fin_held[c] = s->pt_held[s->n_pts - 1];
        if (watch_generate(s->run, TR_PROMPT, 12, s->gen, sizeof s->gen) < 0)
            snprintf(s->gen, sizeof s->gen, "(generation failed)");
    }
}

/* One slice: a pending measurement, or one optimisation step (~30 ms at this size). */
static int train_tick(App *a)
{
    TrainState *s = st(a);
    TrainRepeat *rp = rep(a);
    if (rp)
        return trr_tick(a, rp);
    if (!s || !s->run || (!s->running && !s->measure))
        return 0;
    if (s->measure) {
        tr_measure(a, s);
        return 1;
    }
    double t = now_s();
    int rc = watch_step(s->run);
    s->run_secs += now_s() - t;
    int done = watch_steps_done(s->run);
    if (rc != 0 || done >= watch_opts(s->run)->steps) {
        s->running = 0;
        s->done = 1;
        s->measure = 1;
        if (rc < 0)
            app_msg(a, 1, "training stopped: %s", watch_error(s->run));
    } else if (done % TR_MEASURE_EVERY == 0) {
        s->measure = 1;
    }
    return 1;
}

static int train_key(App *a, Request req, int k)
{
    (void)k;
    TrainState *s = st(a);
    if (!s)
        return 0;
    TrainRepeat *rp = rep(a);
    if (rp)
        return trr_key(a, rp, req);
    if (!s->run && !s->running && req != REQ_TRAIN_RUN && req != REQ_TOGGLE_MASK &&
        req != REQ_RESET)
        s->causal = a->s->w->start.causal != 0;
    switch (req) {
    case REQ_TRAIN_RUN:
        if (!s->run) {
            s->causal = train_causal(a);
            if (tr_open(a, s)) {
                app_msg(a, 1, "cannot train: %s", s->err);
                return 1;
            }
        } else if (s->done) {
            app_msg(a, 0, "training is done: r resets, m switches the mask first");
            return 1;
        }
        s->running = !s->running;
        app_msg(a, 0, s->running ? "training..." : "paused at step %d", watch_steps_done(s->run));
        return 1;
    case REQ_TOGGLE_MASK:
        if (s->run && (watch_steps_done(s->run) > 0 || s->running)) {
            app_msg(a, 0, "the mask is set before training: r resets, then m");
            return 1;
        }
        s->causal = !train_causal(a);
        if (s->run && watch_reset(s->run, s->causal, s->err, sizeof s->err))
            app_msg(a, 1, "%s", s->err);
        app_msg(a, 0, "causal mask %s while training%s", s->causal ? "on" : "OFF",
                s->causal ? "" : ": the cheating run");
        return 1;
    case REQ_RESET:
        s->running = 0;
        if (!s->run) {
            s->causal = a->s->w->start.causal != 0;
            return 1;
        }
        if (tr_open(a, s))
            app_msg(a, 1, "%s", s->err);
        else
            app_msg(a, 0, "reset: fresh weights from seed %llu, step 0",
                    (unsigned long long)watch_opts(s->run)->seed);
        return 1;
    case REQ_NEXT_HEAD: case REQ_PREV_HEAD: case REQ_NEXT_LAYER: case REQ_PREV_LAYER: {
        WatchOpts o;
        watch_opts_defaults(&o);
        int dh = req == REQ_NEXT_HEAD ? 1 : req == REQ_PREV_HEAD ? -1 : 0;
        int dl = req == REQ_NEXT_LAYER ? 1 : req == REQ_PREV_LAYER ? -1 : 0;
        s->head = (s->head + dh + o.n_heads) % o.n_heads;
        s->layer = (s->layer + dl + o.n_layers) % o.n_layers;
        if (s->run)
            tr_heatmap(a, s);
        app_msg(a, 0, "heatmap: layer %d head %d", s->layer, s->head);
        return 1;
    }
    case REQ_SAVE: {
        if (!s->run || watch_steps_done(s->run) == 0) {
            app_msg(a, 0, "nothing trained yet: t starts training");
            return 1;
        }
        char err[600];
        if (watch_save(s->run, TR_SAVE_FILE, err, sizeof err))
            app_msg(a, 1, "cannot save: %s", err);
        else
            app_msg(a, 0, "saved %s (step %d): attend dump --model %s", TR_SAVE_FILE,
                    watch_steps_done(s->run), TR_SAVE_FILE);
        return 1;
    }
    default:
        return 0;
    }
}

/* The loss curves: train '*', held-out 'o', over steps 0..steps on a shared scale. */
static void tr_plot(TrainState *s, int y, int x, int h, int w, int steps)
{
    if (h < 3 || w < 12)
        return;
    if (!s->n_pts) { /* no scale without a measurement: no invented numbers */
        attron(A_DIM);
        ui_put(y, x, w, "(the curves start at step 0)");
        attroff(A_DIM);
        return;
    }
    float lo = 1e9f, hi = -1e9f;
    for (int i = 0; i < s->n_pts; i++) {
        float v[2] = {s->pt_train[i], s->pt_held[i]};
        for (int j = 0; j < 2; j++) {
            lo = v[j] < lo ? v[j] : lo;
            hi = v[j] > hi ? v[j] : hi;
        }
    }
    if (hi - lo < 0.1f)
        hi = lo + 0.1f;
    int lw = 6, pw = w - lw;
    attron(A_DIM);
    ui_putf(y, x, lw, "%5.2f", (double)hi);
    ui_putf(y + h - 1, x, lw, "%5.2f", (double)lo);
    for (int r = 0; r < h; r++)
        ui_put(y + r, x + lw - 1, 1, "|");
    attroff(A_DIM);
    for (int i = 0; i < s->n_pts; i++) {
        int cx = x + lw + (int)((long)s->pt_step[i] * (pw - 1) / (steps > 0 ? steps : 1));
        float v[2] = {s->pt_held[i], s->pt_train[i]};
        const char *g[2] = {"o", "*"};
        for (int j = 0; j < 2; j++) {
            int ry = (int)((hi - v[j]) / (hi - lo) * (float)(h - 1) + 0.5f);
            if (j == 1)
                attron(COLOR_PAIR(UI_ACCENT) | A_BOLD);
            ui_put(y + ry, cx, 1, g[j]);
            if (j == 1)
                attroff(COLOR_PAIR(UI_ACCENT) | A_BOLD);
        }
    }
}

/* The chosen head's weights on the fixed sentence, one shaded cell per weight. */
static void tr_heat(TrainState *s, int y, int x, int h, int w)
{
    const Model *m = watch_model(s->run);
    ui_putf(y, x, w, "L%d.h%d on \"%s\"", s->layer, s->head, TR_SENTENCE);
    const TraceEntry *e = s->hm_ok ? trace_find(s->trace, STACK_DEC, s->layer, SUB_SELF, s->head,
                                                T_WEIGHTS)
                                   : NULL;
    if (!e) {
        ui_put(y + 1, x, w, "(no run yet)");
        return;
    }
    for (int i = 0; i < e->rows && i + 1 < h; i++) {
        int cx = x;
        cx += ui_putf(y + 1 + i, cx, 8, "%-7.7s", vocab_word(&m->vocab, s->ids[i]));
        for (int j = 0; j < e->cols && cx + 3 <= x + w; j++) {
            float v = e->data[(size_t)i * e->cols + j];
            int at = ui_ramp_attr(ui_ramp_level(v));
            attron(at);
            ui_putf(y + 1 + i, cx, 3, j <= i ? "%3.0f" : "  .", (double)(v * 100 > 99 ? 99 : v * 100));
            attroff(at);
            cx += 3;
        }
    }
}

static void train_draw(App *a, Rect r)
{
    TrainState *s = st(a);
    if (!s)
        return;
    TrainRepeat *rp = rep(a);
    if (rp) {
        trr_draw(rp, r);
        return;
    }
    WatchOpts o;
    watch_opts_defaults(&o);
    int y = r.y, causal = train_causal(a);
    attron(COLOR_PAIR(UI_ACCENT));
    int step = s->run ? watch_steps_done(s->run) : 0;
    double tps = s->run && s->run_secs > 0 ? (double)watch_tokens_done(s->run) / s->run_secs : 0;
    ui_putf(y++, r.x, r.w, "train  step %d/%d  %.0f tokens/s  causal mask %s  %s", step,
            o.steps, tps, causal ? "on" : "OFF (cheating)",
            s->running ? "[training]" : s->done ? "[done]" : step ? "[paused]" : "[t starts]");
    attroff(COLOR_PAIR(UI_ACCENT));
    if (s->n_pts)
        ui_putf(y++, r.x, r.w, "loss: train %.3f  held-out %.3f   best previous-token head "
                "L%d.h%d %.2f", (double)s->pt_train[s->n_pts - 1],
                (double)s->pt_held[s->n_pts - 1], s->best_layer, s->best_head, s->best_prev);
    else
        ui_putf(y++, r.x, r.w, "a decoder of %d layers x %d heads, d_model %d, from seed %llu",
                o.n_layers, o.n_heads, o.d_model, (unsigned long long)o.seed);
    int rows = r.y + r.h - y - 2;
    if (rows < 3)
        rows = r.y + r.h - y;
    int pw = r.w / 2;
    attron(A_DIM);
    ui_put(y, r.x, pw, "loss  * train  o held-out (mask on)");
    attroff(A_DIM);
    tr_plot(s, y + 1, r.x, rows - 1, pw - 1, o.steps);
    if (s->run)
        tr_heat(s, y, r.x + pw + 1, rows, r.w - pw - 1);
    y += rows;
    if (y < r.y + r.h && s->gen[0])
        ui_putf(y++, r.x, r.w, "\"%s\" -> %s", TR_PROMPT, s->gen);
    if (y < r.y + r.h && (s->have[0] || s->have[1])) {
        char m1[64] = "masked run: not run", m0[64] = "cheating run: not run";
        if (s->have[1])
            snprintf(m1, sizeof m1, "masked run %.2f / %.2f", s->fin_train[1], s->fin_held[1]);
        if (s->have[0])
            snprintf(m0, sizeof m0, "cheating run %.2f / %.2f", s->fin_train[0], s->fin_held[0]);
        ui_putf(y++, r.x, r.w, "train / held-out: %s | %s", m1, m0);
    }
}

static int train_need(App *a, int w)
{
    TrainRepeat *rp = rep(a);
    return rp ? trr_need(rp, w) : 16;
}

/* Rows out of sight in a w x h pane: the heatmap's token rows beside the loss plot that do
 * not fit (the plot itself compacts to any height). Mirrors train_draw's layout. */
static int train_hidden(App *a, int w, int h)
{
    (void)w;
    TrainState *s = st(a);
    if (!s || !s->run)
        return 0;
    int rows = h - 2 - 2; /* status and a line above; the continuation and results below */
    if (rows < 3)
        rows = h - 2;
    return s->n_ids > rows - 1 ? s->n_ids - (rows - 1) : 0;
}

static void train_release(App *a)
{
    TrainState *s = st(a);
    if (!s)
        return;
    watch_free(s->run);
    trr_free(s->rep);
    s->rep = NULL;
    s->rep_model = NULL;
    trace_free(s->trace);
    live_free(&s->live);
    s->run = NULL;
    s->trace = NULL;
}

/* The key table's train_running and train_causal (the footer's labels). */
static void train_key_state(const App *a, KeyState *ks)
{
    TrainState *s = st(a);
    TrainRepeat *rp = s ? rep(a) : NULL;
    ks->train_running = rp ? trr_running(rp) : s && s->running;
    ks->train_causal = train_causal(a);
}

const ViewOps VIEW_TRAIN = {
    .name = "train", .kind = W_TRAIN, .keymap = KM_TRAIN, .common = 0,
    .state_size = sizeof(TrainState), .draw = train_draw, .key = train_key, .need = train_need,
    .tick = train_tick, .release = train_release, .self_scroll = 1, .hidden = train_hidden,
    .key_state = train_key_state,
};
