/* test_widgets.c - the explanation widgets (worked, scaling, kvcache, cost, params): the
 * loader on good and broken fixtures (tests/fixtures/widgets-*), their live numbers and
 * {{x NAME}} placeholders against values recomputed here from the fixtures' own numbers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "lesson_check.h"
#include "names.h"
#include "widget.h"
#include "t.h"

#define GOOD "tests/fixtures/widgets-good"
#define BROKEN "tests/fixtures/widgets-broken"
#define THIN "\xe2\x80\x89"

static char out[4096], perr[512];

/* The placeholder context of an explanation widget's live state, as widget_ctx fills it for
 * a run that happened (kvcache: prefix is the run the placeholders read). */
static void live_ctx(const LiveWidget *l, const Widget *w, const Model *m, const Trace *prefix,
                     PlaceholderCtx *ctx)
{
    WidgetIO io;
    memset(&io, 0, sizeof io);
    io.w = w;
    io.m = m;
    io.live = (LiveWidget *)l;
    io.tr.t = (Trace *)prefix;
    widget_ctx(&io, 1, ctx);
}

/* Expands prose on a page's live state (kvcache: traces of the model). */
static const char *expand(const Page *p, const Model *m, LiveWidget *l, Trace *full,
                          Trace *prefix, int *ids, int n)
{
    PlaceholderCtx ctx;
    char err[300];
    if (live_run(l, &p->widget, m, ids, n, full, prefix, err, sizeof err)) {
        snprintf(out, sizeof out, "RUN ERROR %s", err);
        return out;
    }
    live_ctx(l, &p->widget, m, prefix, &ctx);
    perr[0] = 0;
    if (placeholder_expand(p->prose, &ctx, out, sizeof out, perr, sizeof perr))
        snprintf(out + strlen(out), sizeof out - strlen(out), " ERROR %s", perr);
    return out;
}

static const char *value(const char *body, const LiveWidget *l, const Widget *w, const Model *m,
                         const Trace *prefix)
{
    PlaceholderCtx ctx;
    live_ctx(l, w, m, prefix, &ctx);
    if (placeholder_value(body, &ctx, out, sizeof out, perr, sizeof perr))
        snprintf(out, sizeof out, "ERROR %s", perr);
    return out;
}

/* The number in s with thin spaces removed. */
static double ungroup(const char *s)
{
    char b[128];
    size_t o = 0;
    for (; *s && o + 1 < sizeof b; s++) {
        if (!strncmp(s, THIN, 3)) {
            s += 2;
            continue;
        }
        b[o++] = *s;
    }
    b[o] = 0;
    return strtod(b, NULL);
}

/* The parameter count by the textbook formula, written out independently of explain.c. */
static double params_formula(double d, double h, double kv, double dh, double L, double F,
                             double V, int swiglu, int rms, int tied)
{
    double per = d * h * dh + 2 * d * kv * dh + h * dh * d + (swiglu ? 3 : 2) * d * F +
                 2 * (rms ? d : 2 * d);
    return V * d + L * per + (rms ? d : 2 * d) + (tied ? 0 : d * V);
}

static void test_good(void)
{
    Course c;
    char err[512];
    CHECK(lesson_load_dir(&c, GOOD, err, sizeof err) == 0, "load: %s", err);
    CHECK(c.n_problems == 0, "good widgets: %d problems", c.n_problems);
    CHECK(lesson_check_placeholders(&c) == 0, "placeholders resolve");
    for (int i = 0; i < c.n_problems; i++)
        fprintf(stderr, "  problem: %s\n", c.problems[i].msg);
    if (c.n_lessons != 1 || c.lessons[0].n_pages != 7) {
        CHECK(0, "one lesson of 7 pages");
        lesson_free_course(&c);
        return;
    }
    const Page *P = c.lessons[0].pages;
    const Model *m = lesson_model(&c, &P[0]);
    CHECK(m != NULL, "every page has the default model");
    if (!m) {
        lesson_free_course(&c);
        return;
    }
    const ModelConfig *mc = &m->cfg;
    LiveWidget l;
    memset(&l, 0, sizeof l);

    /* worked, 2x2, causal, unscaled, step 4 */
    const Widget *w = &P[0].widget;
    const WorkedSpec *ws = &w->worked;
    CHECK(w->kind == W_WORKED && ws->nq == 2 && ws->nk == 2 && ws->dk == 2 && ws->dv == 2,
          "worked shapes");
    CHECK(ws->q[3] == 2.0f && ws->k[3] == 1.0f && ws->v[2] == 3.0f, "matrices row-major");
    CHECK(!strcmp(ws->labels[0], "a") && !strcmp(ws->labels[1], "b"), "labels");
    CHECK(w->start.causal == 1 && w->start.scale == 0 && w->start.step == 4, "worked start");
    CHECK(w->controls == (C_MASK | C_SCALE | C_STEP | C_CURSOR | C_RESET), "worked controls");
    live_start(&l, w, m);
    CHECK(l.s.causal == 1 && l.s.scale == 0 && l.s.step == 4, "live from start");
    /* row 1: q=(0,2), keys (1,0),(1,1): scores 0 and 2; weights 1/(1+e²), e²/(1+e²) */
    double w10 = 1.0 / (1.0 + exp(2.0)), w11 = 1.0 - w10;
    char want[256];
    snprintf(want, sizeof want, "b: 0.0000 2 %.3f causal unscaled", w10 * 1 + w11 * 3);
    CHECK(!strcmp(expand(&P[0], m, &l, NULL, NULL, NULL, 0), want), "worked prose: %s want %s",
          out, want);
    snprintf(want, sizeof want, "%.4f", w11);
    CHECK(!strcmp(value("weight 1 1 .4", &l, w, m, NULL), want), "weight 1 1: %s", out);
    CHECK(strstr(value("d_model", &l, w, m, NULL), "no model"), "sizes: %s", out);
    CHECK(strstr(value("token 2", &l, w, m, NULL), "out of range"), "token 2: %s", out);
    /* mask off and scaled: row 0 scores 1, 1 -> 0.5 each; row 1 scores 0, 2/sqrt2 */
    l.s.causal = 0;
    l.s.scale = 1;
    expand(&P[0], m, &l, NULL, NULL, NULL, 0);
    CHECK(!strcmp(value("weight 0 1 .4", &l, w, m, NULL), "0.5000"), "unmasked: %s", out);
    snprintf(want, sizeof want, "%.4f", 1.0 / (1.0 + exp(sqrt(2.0))));
    CHECK(!strcmp(value("weight 1 0 .4", &l, w, m, NULL), want), "scaled: %s want %s", out, want);
    snprintf(want, sizeof want, "%.3f", 2.0 / sqrt(2.0));
    CHECK(!strcmp(value("score 1 1 .3", &l, w, m, NULL), want), "score: %s", out);
    l.s.step = LIVE_WORKED_STEPS;
    CHECK(strstr(expand(&P[0], m, &l, NULL, NULL, NULL, 0), "RUN ERROR step 6"), "%s", out);
    live_free(&l);

    /* worked 1x3, default labels, mask none, scaled */
    w = &P[1].widget;
    ws = &w->worked;
    CHECK(ws->nq == 1 && ws->nk == 3 && ws->dk == 3 && ws->dv == 1, "1x3 shapes");
    CHECK(!strcmp(ws->labels[2], "t2"), "default label %s", ws->labels[2]);
    live_start(&l, w, m);
    CHECK(!strcmp(expand(&P[1], m, &l, NULL, NULL, NULL, 0), "t2 1x3"), "%s", out);
    double s[3] = {0.5 - 1 + 2, 1.0, 6.0}, z = 0, o = 0;
    for (int j = 0; j < 3; j++)
        z += exp(s[j] / sqrt(3.0));
    for (int j = 0; j < 3; j++)
        o += exp(s[j] / sqrt(3.0)) / z * (j + 1);
    snprintf(want, sizeof want, "%.4f", exp(6.0 / sqrt(3.0)) / z);
    CHECK(!strcmp(value("weight 0 2 .4", &l, w, m, NULL), want), "1x3 weight %s want %s", out,
          want);
    snprintf(want, sizeof want, "%.4f", o);
    CHECK(!strcmp(value("value L0.h0.out 0 0 .4", &l, w, m, NULL), want), "out %s want %s",
          out, want);
    live_free(&l);

    /* scaling: the variance of q·k is about d_k (a property of the maths, not a copy) */
    w = &P[2].widget;
    CHECK(w->kind == W_SCALING && w->start.d_k == 256 && w->start.scale == 0, "scaling start");
    live_start(&l, w, m);
    expand(&P[2], m, &l, NULL, NULL, NULL, 0);
    double var = strtod(strchr(out, ' ') + 1, NULL);
    CHECK(!strncmp(out, "256 ", 4) && fabs(var / 256 - 1) < 0.15 && !strcmp(out + strlen(out) - 2, " 0"),
          "scaling prose: %s", out);
    l.s.d_k = 2000;
    CHECK(strstr(expand(&P[2], m, &l, NULL, NULL, NULL, 0), "RUN ERROR d_k 2000"), "%s", out);
    live_free(&l);

    /* kvcache: cache floats 2·L·t·h·d_head from the model's config */
    w = &P[3].widget;
    int ids[64], tgt[64], n, nt;
    Controls ctl;
    CHECK(widget_state(w, m, &ctl, ids, &n, tgt, &nt, 64, err, sizeof err) == 0, "%s", err);
    Trace *full = trace_new(m, n, 1), *pre = trace_new(m, n, 1);
    live_start(&l, w, m);
    CHECK(l.s.step == 2, "kv step");
    snprintf(want, sizeof want, "2/%d %d 2 cat", n, 2 * mc->n_layers * 2 * mc->n_heads * mc->d_head);
    CHECK(!strcmp(expand(&P[3], m, &l, full, pre, ids, n), want), "kv prose %s want %s", out, want);
    l.s.step = n;
    expand(&P[3], m, &l, full, pre, ids, n);
    CHECK(atoi(value("x cached_rows", &l, w, m, pre)) == n, "cached rows %s", out);
    CHECK(atof(value("x k_drift", &l, w, m, pre)) == 0.0, "cached keys do not drift: %s", out);
    l.s.step = n + 1;
    CHECK(strstr(expand(&P[3], m, &l, full, pre, ids, n), "RUN ERROR"), "step past the end");
    live_free(&l);
    trace_free(full);
    trace_free(pre);

    /* cost: N² and bytes */
    w = &P[4].widget;
    live_start(&l, w, m);
    CHECK(l.s.n == 1024, "cost n");
    snprintf(want, sizeof want, "1024 1" THIN "048" THIN "576 %lld %d", 1024LL * 1024 * mc->n_heads * mc->n_layers * 4,
             mc->n_heads);
    CHECK(!strcmp(expand(&P[4], m, &l, NULL, NULL, NULL, 0), want), "cost %s want %s", out, want);
    l.s.n = 2048;
    expand(&P[4], m, &l, NULL, NULL, NULL, 0);
    CHECK(atof(value("x score_entries", &l, w, m, NULL)) == 2048.0 * 2048.0, "2N: %s", out);
    CHECK(strstr(value("x nope", &l, w, m, NULL), "unknown value \"nope\""), "%s", out);
    live_free(&l);

    /* params with a config, untied by its start */
    w = &P[5].widget;
    const ParamConfig *pc = &w->params;
    CHECK(w->has_params && pc->d_model == 2560 && pc->n_heads == 32 && pc->n_kv_heads == 8 &&
          pc->d_head == 128 && pc->n_layers == 36 && pc->d_ff == 9728 && pc->vocab == 151936 &&
          pc->swiglu && pc->tied && pc->rmsnorm && !pc->bias, "config read");
    CHECK(!strcmp(w->params_name, "Qwen3-4B") && w->start.tied == 0, "name, start.tied");
    live_start(&l, w, m);
    CHECK(l.s.tied == 0 && l.s.gqa == 1, "start untied, GQA from the config");
    expand(&P[5], m, &l, NULL, NULL, NULL, 0);
    double want_p = params_formula(2560, 32, 8, 128, 36, 9728, 151936, 1, 1, 0);
    CHECK(ungroup(out) == want_p, "untied total %s want %.0f", out, want_p);
    CHECK(strstr(out, THIN), "grouped with thin spaces: %s", out);
    l.s.tied = 1;
    expand(&P[5], m, &l, NULL, NULL, NULL, 0);
    CHECK(ungroup(out) == params_formula(2560, 32, 8, 128, 36, 9728, 151936, 1, 1, 1),
          "tied total %s", out);
    l.s.gqa = 0;
    expand(&P[5], m, &l, NULL, NULL, NULL, 0);
    CHECK(ungroup(out) == params_formula(2560, 32, 32, 128, 36, 9728, 151936, 1, 1, 1),
          "without GQA %s", out);
    live_free(&l);

    /* params of the page model */
    w = &P[6].widget;
    live_start(&l, w, m);
    expand(&P[6], m, &l, NULL, NULL, NULL, 0);
    /* the page model's count is the engine's own weight count (model_layout), which
     * includes its FFN biases and learned position table */
    double mp = (double)model_config_param_count(mc);
    CHECK(atof(out) == mp, "model params %s want %.0f", out, mp);
    l.s.gqa = 1;
    expand(&P[6], m, &l, NULL, NULL, NULL, 0);
    int kvg = mc->n_heads / 4 > 0 ? mc->n_heads / 4 : 1;
    CHECK(atoi(strchr(out, ' ') + 1) == kvg, "GQA on a model without: %s", out);
    live_free(&l);
    lesson_free_course(&c);
}

/* ---- the one widget run (widget.c): the context it fills, page by page ---- */

/* 1 when two traces hold the same entries (names, shapes, every float). */
static int same_trace(const Trace *a, const Trace *b)
{
    if (!a || !b || a->n != b->n || a->m != b->m || a->n_entries != b->n_entries)
        return 0;
    for (int i = 0; i < a->n_entries; i++) {
        const TraceEntry *x = trace_entry(a, i), *y = trace_entry(b, i);
        if (strcmp(x->name, y->name) || x->rows != y->rows || x->cols != y->cols ||
            memcmp(x->data, y->data, sizeof(float) * (size_t)(x->rows * x->cols)))
            return 0;
    }
    return 1;
}

/* A heatmap page: the context reads a model_forward of the start (run here by hand, as
 * lesson_run, check-lessons --show and the player did before widget.c), at the start's layer
 * and head; the player's path (its own traces of max_len, identity order, widget_run through
 * a WidgetIO) reads the same numbers, and so does the equivariance run the chips take. */
static void test_widget_heatmap(void)
{
    Course c;
    char err[512];
    lesson_load_dir(&c, "tests/fixtures/lessons-good", err, sizeof err);
    const Page *P = c.n_lessons ? &c.lessons[0].pages[0] : NULL;
    const Model *m = P ? lesson_model(&c, P) : NULL;
    CHECK(P && m && P->widget.kind == W_HEATMAP, "heatmap fixture: %s", err);
    if (!m) {
        lesson_free_course(&c);
        return;
    }
    WidgetRun r;
    CHECK(widget_run_start(&r, &P->widget, m, err, sizeof err) == 0 && r.ran, "run: %s", err);
    /* by hand */
    int src[64], tgt[64], n, nt;
    Controls ctl;
    CHECK(widget_state(&P->widget, m, &ctl, src, &n, tgt, &nt, 64, err, sizeof err) == 0, "%s",
          err);
    Trace *t = trace_new(m, n, 1);
    CHECK(t && model_forward(m, src, n, tgt, nt, &ctl, t, err, sizeof err) == 0, "%s", err);
    CHECK(r.ctx.model == m && r.ctx.trace == r.io.tr.t && r.ctx.eq_a && r.ctx.eq_b &&
          r.ctx.layer == 1 && r.ctx.head == 2 && r.ctx.cross == 0 && !r.ctx.nv &&
          !r.ctx.labels && !r.ctx.ascii, "ctx fields: layer %d head %d", r.ctx.layer,
          r.ctx.head);
    CHECK(same_trace(r.ctx.trace, t), "the context's trace is model_forward's");
    const TraceEntry *e = trace_find(t, STACK_DEC, 1, SUB_SELF, 2, T_WEIGHTS);
    char v[64];
    CHECK(e && placeholder_value("weight 2 1 .6", &r.ctx, v, sizeof v, err, sizeof err) == 0 &&
          fabs(strtod(v, NULL) - e->data[2 * e->cols + 1]) < 1e-6, "weight 2 1 = %s", v);
    /* the player's path: traces of max_len, the order as the identity, the same numbers */
    WidgetIO io;
    memset(&io, 0, sizeof io);
    int order[64];
    for (int i = 0; i < 64; i++)
        order[i] = i;
    Controls pctl = ctl;
    pctl.order = order;
    LiveWidget live;
    memset(&live, 0, sizeof live);
    io.w = &P->widget;
    io.m = m;
    io.src = src;
    io.n_src = n;
    io.tgt = tgt;
    io.n_tgt = nt;
    io.ctl = &pctl;
    widget_view_start(&P->widget, m, &io.layer, &io.head, &io.cross);
    io.live = &live;
    CHECK(widget_traces_new(&io.tr, m, m->cfg.max_len, 0) == 0, "player traces");
    float eq = 0;
    CHECK(widget_run(&io, &eq, err, sizeof err) == 0 && eq == -1.0f, "player run: %s", err);
    PlaceholderCtx pc;
    widget_ctx(&io, 1, &pc);
    char a[512], b[512];
    placeholder_expand(P->prose, &r.ctx, a, sizeof a, err, sizeof err);
    placeholder_expand(P->prose, &pc, b, sizeof b, err, sizeof err);
    CHECK(!strcmp(a, b) && !strstr(a, "[?"), "one run, one prose: \"%s\" vs \"%s\"", a, b);
    /* with the equivariance check (chips): the permuted run ends in t, the same numbers */
    io.equiv = 1;
    CHECK(widget_run(&io, &eq, err, sizeof err) == 0 && eq >= 0.0f, "equivariance run: %s",
          err);
    widget_ctx(&io, 1, &pc);
    placeholder_expand(P->prose, &pc, b, sizeof b, err, sizeof err);
    CHECK(!strcmp(a, b), "the equivariance run leaves the same state in t: \"%s\"", b);
    /* a failed run gives the model's sizes and nothing else */
    widget_ctx(&io, 0, &pc);
    CHECK(pc.model == m && !pc.trace && !pc.nv && pc.layer == 1 && pc.head == 2,
          "no trace when the run failed");
    CHECK(placeholder_value("weight 0 0", &pc, v, sizeof v, err, sizeof err) != 0 &&
          placeholder_value("d_model", &pc, v, sizeof v, err, sizeof err) == 0,
          "sizes only: d_model %s", v);
    widget_traces_free(&io.tr);
    trace_free(t);
    widget_run_free(&r);
    /* a page without a widget or a sentence runs nothing: its sizes resolve */
    const Page *P1 = &c.lessons[0].pages[1];
    CHECK(widget_run_start(&r, &P1->widget, m, err, sizeof err) == 0 && !r.ran &&
          !r.ctx.trace && r.ctx.model == m, "prose-only page: no run, no error");
    placeholder_expand(P1->prose, &r.ctx, a, sizeof a, err, sizeof err);
    char want[64];
    snprintf(want, sizeof want, "about %d dimensions", m->cfg.d_model);
    CHECK(strstr(a, want) != NULL, "{{d_model}} on a prose page: %s", a);
    widget_run_free(&r);
    lesson_free_course(&c);
}

/* A kvcache page: the context reads the prefix run (live_run's prefix trace), publishes the
 * live numbers, and keeps the start's layer and head; a worked page: its own trace, no model,
 * its labels, layer and head 0. The values are those live.c computes by hand here. */
static void test_widget_explain(void)
{
    Course c;
    char err[512];
    lesson_load_dir(&c, GOOD, err, sizeof err);
    if (c.n_lessons != 1 || c.lessons[0].n_pages != 7) {
        CHECK(0, "widgets fixture");
        lesson_free_course(&c);
        return;
    }
    const Page *P = c.lessons[0].pages;
    const Model *m = lesson_model(&c, &P[3]);
    WidgetRun r;
    CHECK(P[3].widget.kind == W_KVCACHE && m, "kvcache page");
    CHECK(widget_run_start(&r, &P[3].widget, m, err, sizeof err) == 0 && r.ran, "kv: %s", err);
    /* by hand: live_run on the prefix and the full run */
    int ids[64], tgt[64], n, nt;
    Controls ctl;
    widget_state(&P[3].widget, m, &ctl, ids, &n, tgt, &nt, 64, err, sizeof err);
    Trace *full = trace_new(m, n, 1), *prefix = trace_new(m, n, 1);
    LiveWidget l;
    memset(&l, 0, sizeof l);
    live_start(&l, &P[3].widget, m);
    CHECK(live_run(&l, &P[3].widget, m, ids, n, full, prefix, err, sizeof err) == 0, "%s", err);
    CHECK(r.ctx.trace == r.io.tr.t && same_trace(r.ctx.trace, prefix) && r.ctx.model == m &&
          r.ctx.nv == &r.live.nv && !r.ctx.eq_a && !r.ctx.labels && r.ctx.cross == 0 &&
          r.ctx.layer == P[3].widget.start.layer && r.ctx.head == P[3].widget.start.head,
          "kvcache ctx: the prefix run, the live numbers");
    CHECK(r.live.nv.n == l.nv.n && r.live.kv.step == 2 && r.live.kv.cache_floats ==
          l.kv.cache_floats && r.live.n_tokens == n, "the same live numbers (%d values)",
          r.live.nv.n);
    char a[256];
    CHECK(placeholder_value("n", &r.ctx, a, sizeof a, err, sizeof err) == 0 && atoi(a) == 2,
          "{{n}} reads the prefix of 2 tokens: %s", a);
    live_free(&l);
    trace_free(full);
    trace_free(prefix);
    widget_run_free(&r);

    /* worked */
    const Widget *w = &P[0].widget;
    CHECK(widget_run_start(&r, w, m, err, sizeof err) == 0 && r.ran, "worked: %s", err);
    Trace *wt = model_worked(w->worked.q, w->worked.k, w->worked.v, w->worked.nq, w->worked.nk,
                             w->worked.dk, w->worked.dv, 1, 0);
    CHECK(r.ctx.model == NULL && r.ctx.trace == r.live.worked && same_trace(r.ctx.trace, wt) &&
          r.ctx.layer == 0 && r.ctx.head == 0 && r.ctx.labels &&
          r.ctx.n_labels == (w->worked.nq > w->worked.nk ? w->worked.nq : w->worked.nk) &&
          r.ctx.nv == &r.live.nv, "worked ctx: its own trace (causal, unscaled), no model");
    CHECK(placeholder_value("token 1", &r.ctx, a, sizeof a, err, sizeof err) == 0 &&
          !strcmp(a, w->worked.labels[1]), "{{token 1}} is label %s: %s", w->worked.labels[1],
          a);
    CHECK(placeholder_value("d_model", &r.ctx, a, sizeof a, err, sizeof err) != 0,
          "no model sizes on a worked page");
    trace_free(wt);
    widget_run_free(&r);
    lesson_free_course(&c);
}

static void test_broken(void)
{
    Course c;
    char err[512];
    CHECK(lesson_load_dir(&c, BROKEN, err, sizeof err) == 0, "load: %s", err);
    int structural = c.n_problems;
    int added = lesson_check_placeholders(&c);
    CHECK(added == 3, "placeholder problems: %d", added);
    CHECK(c.n_problems == 18 && structural == 15, "one problem per file: %d", c.n_problems);
    /* Positions computed from the fixture text with Python (str.index), not by this program. */
    static const char *const want[] = {
        BROKEN "/01-dk-mismatch.json:20:14: pages[0].widget.k: k has 3 columns but q has 2",
        BROKEN "/02-ragged.json:15:11: pages[0].widget.q[1]: row 1 has 1 numbers, row 0 has 2",
        BROKEN "/03-too-big.json:10:14: pages[0].widget.q: must be an array of 1 to 8 rows",
        BROKEN "/04-not-number.json:13:13: pages[0].widget.q[0][1]: must be a finite number",
        BROKEN "/05-v-rows.json:23:14: pages[0].widget.v: v has 1 rows but k has 2",
        BROKEN "/06-labels.json:31:19: pages[0].widget.labels: must be an array of 2 strings",
        BROKEN "/07-missing-v.json:8:17: pages[0].widget: missing key \"v\"",
        BROKEN "/08-dk-range.json:11:18: pages[0].widget.start.d_k: 2000 is out of range",
        BROKEN "/09-x-name.json:7:26: pages[0].prose: {{x entries_total}}: unknown value "
               "\"entries_total\" (this widget publishes: n, score_entries",
        BROKEN "/10-config-missing.json:10:19: pages[0].widget.config: missing key \"vocab\"",
        BROKEN "/11-kv-heads.json:13:25: pages[0].widget.config.n_kv_heads: 3 must divide "
               "n_heads (4)",
        BROKEN "/12-control.json:12:11: pages[0].widget.controls[1]: control \"dk\" does "
               "nothing on a cost widget",
        BROKEN "/13-kv-step.json:12:19: pages[0].widget.start.step: 4 is out of range",
        BROKEN "/14-config-elsewhere.json:10:9: pages[0].widget.config: only params widgets",
        BROKEN "/15-start-key.json:11:11: pages[0].widget.start.n: start key \"n\" does nothing",
        BROKEN "/16-n-range.json:11:16: pages[0].widget.start.n: 0 is out of range",
        BROKEN "/17-x-no-widget.json:7:17: pages[0].prose: {{x d_k}}: this page's widget "
               "publishes no values",
        BROKEN "/18-model-size-on-worked.json:7:17: pages[0].prose: {{d_model}}: this widget "
               "has no model",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int found = 0;
        for (int k = 0; k < c.n_problems; k++)
            found |= !strncmp(c.problems[k].msg, want[i], strlen(want[i]));
        CHECK(found, "expected problem: %s", want[i]);
    }
    int broken = 0;
    for (int i = 0; i < c.n_lessons; i++)
        broken += c.lessons[i].broken;
    CHECK(broken == 15, "structural problems break their lesson: %d", broken);
    lesson_free_course(&c);
}

static void test_names(void)
{
    CHECK(course_widget_parse("worked") == W_WORKED && course_widget_parse("params") == W_PARAMS,
          "kinds parse");
    CHECK(!strcmp(course_widget_name(W_KVCACHE), "kvcache"), "kind name");
    CHECK(course_control_parse("dk") == C_DK && course_control_parse("gqa") == C_GQA &&
          course_control_parse("tie") == C_TIE && course_control_parse("n") == C_N, "controls");
    CHECK(!course_kind_needs_sentence(W_COST) && course_kind_needs_sentence(W_KVCACHE) &&
          course_kind_is_explain(W_WORKED) && !course_kind_is_explain(W_MATRIX), "kind table");
    CHECK(!strcmp(live_worked_step_name(4), "softmax"), "step name");
}

/* The shape passport's steps: layer 0 starts from X (the embedding steps, X + PE); layer 1
 * starts from layer 0's output, its last tensor, and shows no embedding step (issue 10). */
static void test_passport_steps(void)
{
    Course c;
    char err[512];
    lesson_load_dir(&c, "tests/fixtures/lessons-good", err, sizeof err);
    const Page *P = c.n_lessons ? &c.lessons[0].pages[0] : NULL;
    const Model *m = P ? lesson_model(&c, P) : NULL;
    CHECK(m && m->cfg.n_layers >= 2, "a model of two layers: %s", err);
    if (!m || m->cfg.n_layers < 2) {
        lesson_free_course(&c);
        return;
    }
    WidgetRun r;
    CHECK(widget_run_start(&r, &P->widget, m, err, sizeof err) == 0 && r.ran, "run: %s", err);
    const Trace *t = r.io.tr.t;
    Stack st = m->cfg.arch == ARCH_DECODER ? STACK_DEC : STACK_ENC;
    int idx[64], n0 = widget_passport_steps(t, st, 0, 0, idx, 64);
    CHECK(n0 > 0 && trace_entry(t, idx[0])->kind == T_EMBED, "layer 0 starts at X");
    int x_pe = 0;
    for (int s = 0; s < n0; s++)
        x_pe += trace_entry(t, idx[s])->kind == T_X_PE;
    CHECK(x_pe == 1, "layer 0 shows X + PE once");
    int n1 = widget_passport_steps(t, st, 1, 0, idx, 64);
    int last0 = -1;
    for (int i = 0; i < t->n_entries; i++)
        if (trace_entry(t, i)->stack == st && trace_entry(t, i)->layer == 0 && trace_entry(t, i)->head < 0)
            last0 = i;
    CHECK(n1 > 1 && idx[0] == last0, "layer 1 starts from layer 0's output (%s), not %s",
          last0 >= 0 ? trace_entry(t, last0)->name : "?", n1 ? trace_entry(t, idx[0])->name : "-");
    int before = 0, other = 0;
    for (int s = 0; s < n1; s++) {
        const TraceEntry *e = trace_entry(t, idx[s]);
        before += e->layer < 0;
        other += s > 0 && e->layer != 1;
    }
    CHECK(before == 0 && other == 0, "layer 1: no X, PE or X + PE (%d), every later step of L1 (%d)",
          before, other);
    char sym[32], f[200];
    CHECK(!strcmp(widget_passport_symbol(trace_entry(t, idx[0]), 1, sym, sizeof sym), "L0 out"),
          "named L0 out: %s", sym);
    CHECK(strstr(widget_passport_formula(trace_entry(t, idx[0]), 1, f, sizeof f), "output of layer 0"),
          "formula: %s", f);
    widget_run_free(&r);
    lesson_free_course(&c);
}

int main(void)
{
    test_good();
    test_widget_heatmap();
    test_widget_explain();
    test_passport_steps();
    test_broken();
    test_names();
    return t_done("widgets");
}
