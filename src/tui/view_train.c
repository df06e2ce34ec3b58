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

/* The view's own: the curves it measured, the heatmap's run and the continuation it shows;
 * the run itself, its mask, start and pause and the heatmap's head are the Session's
 * (a->s->train, session_train.c). */
typedef struct {
    int fresh;                /* the Session's train.fresh the curves are of */
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
    s->rep = trr_new(a->s->model, &a->s->train, err, sizeof err);
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

/* The Session's run. */
static WatchRun *run_of(const App *a)
{
    return a->s->train.run;
}

/* The heatmap: the trained model on the fixed sentence, through the one widget run. */
static void tr_heatmap(App *a, TrainState *s)
{
    WidgetIO io;
    memset(&io, 0, sizeof io);
    io.w = a->s->w;
    io.m = watch_model(run_of(a));
    io.src = s->ids;
    io.n_src = s->n_ids;
    io.live = &s->live;
    io.layer = a->s->train.layer;
    io.head = a->s->train.head;
    io.tr.t = s->trace;
    char err[256];
    s->hm_ok = widget_run(&io, NULL, err, sizeof err) == 0;
}

/* The curves start again for a run the Session opened or reset (train.fresh moved). */
static void tr_follow(App *a, TrainState *s)
{
    WatchRun *run = run_of(a);
    if (!run || s->fresh == a->s->train.fresh)
        return;
    s->fresh = a->s->train.fresh;
    if (!s->trace) { /* the heatmap's run of the model being trained, once */
        const Model *m = watch_model(run);
        s->n_ids = vocab_tokenize(&m->vocab, TR_SENTENCE, s->ids, 32, NULL);
        s->trace = trace_new(m, s->n_ids, 1);
        live_start(&s->live, a->s->w, m);
    }
    s->n_pts = 0;
    s->run_secs = 0;
    s->gen[0] = 0;
    s->measure = 1;
}

static void tr_measure(App *a, TrainState *s)
{
    WatchRun *run = run_of(a);
    if (s->measure == 1) {
        if (watch_loss(run, 0, &s->tl))
            s->tl = -1;
        s->measure = 2;
        return;
    }
    if (s->measure == 2) {
        double hl;
        if (s->tl >= 0 && !watch_loss(run, 1, &hl) && s->n_pts < TR_MAX_POINTS) {
            s->pt_step[s->n_pts] = watch_steps_done(run);
            s->pt_train[s->n_pts] = (float)s->tl;
            s->pt_held[s->n_pts++] = (float)hl;
        }
        s->measure = 3;
        return;
    }
    watch_best_head(run, &s->best_prev, &s->best_layer, &s->best_head);
    tr_heatmap(a, s);
    s->measure = 0;
    if (a->s->train.done && s->n_pts) {
        int c = a->s->train.causal ? 1 : 0;
        s->have[c] = 1;
        s->fin_train[c] = s->pt_train[s->n_pts - 1];
        s->fin_held[c] = s->pt_held[s->n_pts - 1];
        if (watch_generate(run, TR_PROMPT, 12, s->gen, sizeof s->gen) < 0)
            snprintf(s->gen, sizeof s->gen, "(generation failed)");
    }
}

/* One slice: a pending measurement, or one optimisation step of the Session's run (~30 ms
 * at this size). */
static int train_tick(App *a)
{
    TrainState *s = st(a);
    TrainRepeat *rp = rep(a);
    if (rp)
        return trr_tick(a, rp);
    if (!s)
        return 0;
    tr_follow(a, s);
    if (!run_of(a) || (!a->s->train.running && !s->measure))
        return 0;
    if (s->measure) {
        tr_measure(a, s);
        return 1;
    }
    double t = now_s();
    int rc = session_train_step(a->s);
    s->run_secs += now_s() - t;
    if (a->s->train.done) {
        s->measure = 1;
        if (rc < 0)
            app_msg(a, 1, "training stopped: %s", a->s->train.err);
        else /* "training..." would outlive the run */
            app_msg(a, 0, "trained %d steps: w saves the model, r resets",
                    watch_steps_done(run_of(a)));
    } else if (watch_steps_done(run_of(a)) % TR_MEASURE_EVERY == 0) {
        s->measure = 1;
    }
    return 1;
}

/* t, m, r, h/l, w are the Session's (session_train.c): a run opened or reset restarts the
 * curves, another head redraws the heatmap; a replay page follows its live run. */
static void train_changed(App *a, const Change *ch)
{
    TrainState *s = st(a);
    TrainRepeat *rp = s ? rep(a) : NULL;
    if (rp) {
        trr_changed(a, rp, ch);
        return;
    }
    if (!s || ch->kind != CH_TRAIN)
        return;
    tr_follow(a, s);
    if (run_of(a) && (ch->req == REQ_NEXT_HEAD || ch->req == REQ_PREV_HEAD ||
                      ch->req == REQ_NEXT_LAYER || ch->req == REQ_PREV_LAYER))
        tr_heatmap(a, s);
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
static void tr_heat(App *a, TrainState *s, int y, int x, int h, int w)
{
    const Model *m = watch_model(run_of(a));
    int layer = a->s->train.layer, head = a->s->train.head;
    ui_putf(y, x, w, "L%d.h%d on \"%s\"", layer, head, TR_SENTENCE);
    const TraceEntry *e = s->hm_ok ? trace_find(s->trace, STACK_DEC, layer, SUB_SELF, head,
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
    o.steps = live_train_steps(a->s->w);
    int y = r.y, causal = session_train_causal(a->s);
    attron(COLOR_PAIR(UI_ACCENT));
    WatchRun *run = run_of(a);
    int step = run ? watch_steps_done(run) : 0;
    double tps = run && s->run_secs > 0 ? (double)watch_tokens_done(run) / s->run_secs : 0;
    ui_putf(y++, r.x, r.w, "train  step %d/%d  %.0f tokens/s  causal mask %s  %s", step,
            o.steps, tps, causal ? "on" : "OFF (cheating)",
            a->s->train.running ? "[training]" : a->s->train.done ? "[done]"
                                : step ? "[paused]" : "[t starts]");
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
    if (run)
        tr_heat(a, s, y, r.x + pw + 1, rows, r.w - pw - 1);
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
    if (!s || !run_of(a))
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
    trr_free(s->rep);
    s->rep = NULL;
    s->rep_model = NULL;
    trace_free(s->trace);
    live_free(&s->live);
    s->trace = NULL;
}

const ViewOps VIEW_TRAIN = {
    .name = "train", .kind = W_TRAIN,
    .state_size = sizeof(TrainState), .draw = train_draw, .need = train_need,
    .tick = train_tick, .release = train_release, .self_scroll = 1, .hidden = train_hidden,
    .changed = train_changed, /* its key state is the Session's */
};
