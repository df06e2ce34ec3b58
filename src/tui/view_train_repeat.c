/* view_train_repeat.c - the train widget on a model trained on the repeated-sequence task
 * (the induction model): by default the replay of its recorded training (both copies' losses
 * and every head's score over the steps, the phase change marked), with t a fresh model trained
 * live by the same recipe (repeat_run.c) in slices between keys; below, the layer-0
 * previous-token head and the last layer's induction head side by side on a repeated
 * sequence, of the model the curves end with. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repeat_run.h"
#include "safetext.h"
#include "ui.h"
#include "view_train_repeat.h"

#define TRR_SEG 4              /* the shown sequence: R R, R this many words (a length the
                                  shipped model never trained on: its segments are 6..20) */
#define TRR_SEED 7             /* the words of R */
#define TRR_CHART_MIN 12       /* narrowest chart worth drawing */

/* The page's own: the replay of the recorded training, the heatmaps' run, the live run's
 * clock; the live run itself is the Session's (a->s->train.rep, session_train.c). */
struct TrainRepeat {
    const Model *shipped;
    HeadsHistory rec;          /* the recorded training (the replay) */
    const SessionTrain *t;     /* the Session's: t->rep.run is the live run, NULL replaying */
    double secs;               /* seconds spent in live steps */
    int ids[2 * TRR_SEG + 1], n_ids;
    RepeatSpan span;
    Trace *trace;              /* the shown model on ids */
    int traced;                /* the heatmaps are of the current model */
};

int trr_applies(const Model *m)
{
    return session_train_repeat_page(m); /* the one rule, plain mode's too */
}

static void retrace(TrainRepeat *r);

TrainRepeat *trr_new(const Model *m, const SessionTrain *t, char *err, size_t errlen)
{
    TrainRepeat *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->shipped = m;
    r->t = t;
    if (heads_history_read(m, &r->rec, err, errlen)) {
        free(r);
        return NULL;
    }
    int pool[4096];
    int n_pool = repeat_pool(&m->vocab, pool, 4096);
    CorpusRng rng;
    corpus_rng_seed(&rng, TRR_SEED);
    r->n_ids = repeat_probe(&rng, pool, n_pool, vocab_id(&m->vocab, "<bos>"), TRR_SEG, 0, r->ids,
                            &r->span);
    r->trace = trace_new(m, r->n_ids, 1);
    if (!r->trace || n_pool < TRR_SEG) {
        snprintf(err, errlen, r->trace ? "the vocabulary has too few words" : "out of memory");
        trr_free(r);
        return NULL;
    }
    retrace(r);
    return r;
}

static const HeadsHistory *shown(const TrainRepeat *r)
{
    return r->t->rep.run ? repeat_run_history(r->t->rep.run) : &r->rec;
}

static const Model *shown_model(const TrainRepeat *r)
{
    return r->t->rep.run ? repeat_run_model(r->t->rep.run) : r->shipped;
}

static int total_steps(const TrainRepeat *r)
{
    if (r->t->rep.run)
        return repeat_run_opts(r->t->rep.run)->steps;
    return r->rec.n ? r->rec.step[r->rec.n - 1] : 0;
}

/* The head of layer l with the largest last score s (session_history_best: plain mode names
 * the same head). */
static int best_head(const TrainRepeat *r, int l, int s)
{
    return session_history_best(shown(r), r->shipped->cfg.n_heads, l, s);
}

static void retrace(TrainRepeat *r)
{
    Controls c;
    const Model *m = shown_model(r);
    model_default_controls(m, &c);
    char err[256];
    r->traced = model_forward(m, r->ids, r->n_ids, NULL, 0, &c, r->trace, err, sizeof err) == 0;
}

int trr_tick(App *a, TrainRepeat *r)
{
    long long t0 = ui_now_ms();
    int rc = session_train_repeat_step(a->s);
    if (rc == 1)
        r->secs += (double)(ui_now_ms() - t0) / 1000.0;
    if (rc < 0)
        app_msg(a, 1, "training stopped: %s", a->s->train.err);
    else if (rc == 2)
        retrace(r); /* the heatmaps follow the curves' last point */
    else if (rc == 3)
        app_msg(a, 0, "trained %d steps in %.0f s: r goes back to the replay, w saves it",
                repeat_run_steps_done(r->t->rep.run), r->secs);
    return rc != 0;
}

void trr_changed(App *a, TrainRepeat *r, const Change *ch)
{
    (void)a;
    if (ch->kind != CH_TRAIN)
        return;
    if (ch->b == 1) { /* a fresh live run */
        r->secs = 0;
        r->traced = 0;
    } else if (ch->b == 2) { /* the replay again */
        retrace(r);
    }
}

/* One series as a chart of w columns over steps 0..total (each column the mean of the points
 * in its steps; none yet: blank), scaled 0..top, into out. */
static void chart(const HeadsHistory *h, const float *v, size_t stride, int total, double top,
                  int w, char *out, size_t outlen)
{
    size_t k = 0;
    out[0] = 0;
    for (int c = 0; c < w; c++) {
        double lo = (double)c * total / w, hi = (double)(c + 1) * total / w, s = 0;
        int m = 0;
        for (int i = 0; i < h->n; i++) {
            float x = v[(size_t)i * stride];
            if (isfinite(x) && h->step[i] >= lo && (h->step[i] < hi || (c == w - 1 && h->step[i] <= hi))) {
                s += x;
                m++;
            }
        }
        const char *g = m ? safetext_level_glyph((int)lround(s / m / top * 7.0), 0) : " ";
        size_t gl = strlen(g);
        if (k + gl + 1 > outlen)
            break;
        memcpy(out + k, g, gl + 1);
        k += gl;
    }
}

/* A labelled chart with the series' last value at the end, in w columns. */
static void chart_line(const HeadsHistory *h, const float *v, size_t stride, int total, double top,
                       int y, int x, int w, const char *label, int accent)
{
    char buf[512];
    int lw = (int)strlen(label) + 1, cw = w - lw - 6;
    if (cw < TRR_CHART_MIN)
        return;
    chart(h, v, stride, total, top, cw, buf, sizeof buf);
    ui_put(y, x, lw, label);
    if (accent)
        attron(COLOR_PAIR(UI_ACCENT) | A_BOLD);
    ui_put(y, x + lw, cw, buf);
    if (accent)
        attroff(COLOR_PAIR(UI_ACCENT) | A_BOLD);
    float last = h->n ? v[(size_t)(h->n - 1) * stride] : NAN;
    if (isfinite(last))
        ui_putf(y, x + lw + cw + 1, 5, "%4.2f", (double)last);
}

/* One head's weights on the sequence, the cells it should attend to (want: the previous
 * token for s = prev, the token after the earlier occurrence for induction) underlined. */
static void heat(const TrainRepeat *r, int layer, int head, int s, int y, int x, int w, int h)
{
    const HeadsHistory *hist = shown(r);
    const Model *m = shown_model(r);
    double sc = session_history_last(hist, m->cfg.n_heads, layer, head, s);
    attron(A_BOLD);
    if (isfinite(sc))
        ui_putf(y, x, w, "L%d.h%d %s %.2f", layer, head, s == 0 ? "previous-token" : "induction",
                sc);
    else
        ui_putf(y, x, w, "L%d.h%d %s", layer, head, s == 0 ? "previous-token" : "induction");
    attroff(A_BOLD);
    const TraceEntry *e = r->traced ? trace_find(r->trace, STACK_DEC, layer, SUB_SELF, head,
                                                 T_WEIGHTS)
                                    : NULL;
    if (!e) {
        ui_put(y + 1, x, w, "(measuring)");
        return;
    }
    int n = r->span.n;
    for (int i = 0; i < e->rows && i + 1 < h; i++) {
        int cx = x;
        cx += ui_putf(y + 1 + i, cx, 7, "%-6.6s", vocab_word(&m->vocab, r->ids[i]));
        int want = s == 0 ? i - 1
                          : (i >= r->span.s2 && i < r->span.s2 + n - 1 ? i - n + 1 : -1);
        for (int j = 0; j < e->cols && j <= i && cx + 3 <= x + w; j++) {
            float v = e->data[(size_t)i * e->cols + j];
            int at = ui_ramp_attr(ui_ramp_level(v)) | (j == want ? A_UNDERLINE : 0);
            attron(at);
            ui_putf(y + 1 + i, cx, 3, "%3.0f", (double)(v * 100 > 99 ? 99 : v * 100));
            attroff(at);
            cx += 3;
        }
    }
}

static void status(const TrainRepeat *r, int y, int x, int w)
{
    attron(COLOR_PAIR(UI_ACCENT));
    if (!r->t->rep.run) {
        ui_putf(y, x, w, "replay: the recorded training of %s, %d steps  [t: train one live]",
                r->shipped->cfg.name, total_steps(r));
    } else {
        int s = repeat_run_steps_done(r->t->rep.run);
        ui_putf(y, x, w, "live: step %d/%d  %.0f steps/s  %s", s, total_steps(r),
                r->secs > 0 ? s / r->secs : 0.0,
                r->t->rep.running ? "[training]" : r->t->rep.done ? "[done]" : "[paused]");
    }
    attroff(COLOR_PAIR(UI_ACCENT));
}

void trr_draw(const TrainRepeat *r, Rect rc)
{
    const HeadsHistory *h = shown(r);
    const ModelConfig *mc = &r->shipped->cfg;
    int y = rc.y, total = total_steps(r) > 0 ? total_steps(r) : 1, half = rc.w / 2;
    status(r, y++, rc.x, rc.w);
    double top = 1.0;
    for (int i = 0; i < h->n; i++) {
        top = isfinite(h->loss_first[i]) && h->loss_first[i] > top ? h->loss_first[i] : top;
        top = isfinite(h->loss_second[i]) && h->loss_second[i] > top ? h->loss_second[i] : top;
    }
    /* the recorded top keeps a live run's scale the replay's */
    for (int i = 0; i < r->rec.n; i++)
        top = isfinite(r->rec.loss_first[i]) && r->rec.loss_first[i] > top ? r->rec.loss_first[i]
                                                                             : top;
    chart_line(h, h->loss_second, 1, total, top, y, rc.x, half, "2nd copy", 1);
    chart_line(h, h->loss_first, 1, total, top, y++, rc.x + half, rc.w - half, "1st copy", 0);
    size_t stride = (size_t)h->n_heads * HEADS_N_SCORES;
    for (int l = 0; l < mc->n_layers && y < rc.y + rc.h; l++)
        for (int hd = 0; hd < mc->n_heads && y < rc.y + rc.h; hd++) {
            int s = l == 0 ? 0 : 1; /* prev in layer 0, induction above */
            char label[40];
            snprintf(label, sizeof label, "L%d.h%d %s", l, hd, s == 0 ? "prev" : "ind ");
            int right = hd % 2;
            chart_line(h, h->scores + (size_t)(l * mc->n_heads + hd) * HEADS_N_SCORES + s,
                       stride, total, 1.0, y, rc.x + (right ? half : 0), right ? rc.w - half : half,
                       label, 0);
            if (right || hd == mc->n_heads - 1)
                y++;
        }
    int ph = heads_history_phase(h);
    attron(A_DIM);
    if (ph >= 0)
        ui_putf(y++, rc.x, rc.w, "steps 0..%d; losses 0..%.1f nats, scores 0..1; phase change "
                "at step %d", total, top, ph);
    else
        ui_putf(y++, rc.x, rc.w, "steps 0..%d; losses 0..%.1f nats, scores 0..1; no phase "
                "change yet", total, top);
    attroff(A_DIM);
    int hh = rc.y + rc.h - y;
    if (hh < 3)
        return;
    heat(r, 0, best_head(r, 0, 0), 0, y, rc.x, half - 1, hh);
    heat(r, mc->n_layers - 1, best_head(r, mc->n_layers - 1, 1), 1, y, rc.x + half, rc.w - half,
         hh);
    y += 1 + r->n_ids;
    if (y < rc.y + rc.h) { /* a spare row: what the underlines mean */
        attron(A_DIM);
        ui_put(y, rc.x, rc.w, "underlined: the previous word (left), the word after its first "
                              "copy (right)");
        attroff(A_DIM);
    }
}

int trr_need(const TrainRepeat *r, int w)
{
    (void)w;
    const ModelConfig *mc = &r->shipped->cfg;
    return 1 + 1 + mc->n_layers * ((mc->n_heads + 1) / 2) + 1 + 1 + r->n_ids;
}


void trr_free(TrainRepeat *r)
{
    if (!r)
        return;
    heads_history_free(&r->rec);
    trace_free(r->trace);
    free(r);
}
