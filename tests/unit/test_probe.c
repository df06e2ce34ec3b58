/* test_probe.c - the probe widgets (src/course/probe.c) on the shipped induction model, run the
 * way the player, plain mode and check-lessons run them (widget_run_start): the lens's last
 * row is the model's own softmax; the attribution parts sum to the logit; each head's loss
 * change on the effect widget is the loss of a run with that head knocked out, computed
 * here again; patching and rollout agree with the engine's own calls; the words name them;
 * and a big model's patching and knock-outs stay in the widget's layer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>
#include <unistd.h>

#include "describe.h"
#include "lesson.h"
#include "placeholder.h"
#include "probe.h"
#include "widget.h"
#include "t.h"

static const char *SENT = "lion key moon cat lion key moon";

static void widget_of(Widget *w, WidgetKind k)
{
    memset(w, 0, sizeof *w);
    course_start_defaults(&w->start);
    w->kind = k;
    w->start.step = -1;
    snprintf(w->start.sentence, sizeof w->start.sentence, "%s", SENT);
    w->controls = course_kind_controls(k);
}

static double nll_row(const float *r, int V, int tok)
{
    double mx = r[0], s = 0;
    for (int j = 1; j < V; j++)
        mx = r[j] > mx ? r[j] : mx;
    for (int j = 0; j < V; j++)
        s += exp(r[j] - mx);
    return log(s) + mx - r[tok];
}

static const float *logits(const Model *m, const Trace *t)
{
    const TraceEntry *e = trace_find(t, model_output_stack(m), -1, SUB_NONE, -1, T_LOGITS);
    return e ? e->data : NULL;
}

static void lens_and_attribution(const Model *m)
{
    Widget w;
    WidgetRun r;
    char err[300];
    widget_of(&w, W_LENS);
    CHECK(widget_run_start(&r, &w, m, err, sizeof err) == 0 && r.ran, "lens runs: %s", err);
    const Probe *p = r.live.probe;
    CHECK(p && p->kind == W_LENS && p->n == 7 && p->L == m->cfg.n_layers, "lens probe");
    if (p && r.ran) {
        int V = m->cfg.vocab_size, L = p->L;
        const float *lg = logits(m, r.io.tr.t);
        for (int i = 0; i < p->n; i++) {
            const LensTop *o = &p->top[((size_t)L * p->n + i) * PROBE_TOP];
            CHECK_NEAR(-log(o->p), nll_row(lg + (size_t)i * V, V, o->id), 1e-5,
                       "lens row L is the model's softmax");
            CHECK(o->id == p->target[i], "the output's top guess is the target at %d", i);
        }
    }
    widget_run_free(&r);

    widget_of(&w, W_ATTRIB);
    CHECK(widget_run_start(&r, &w, m, err, sizeof err) == 0 && r.ran, "attribution: %s", err);
    p = r.live.probe;
    for (int i = 0; p && r.ran && i < p->n; i++) {
        const LensAttribution *a = &p->attr[i];
        double sum = 0;
        for (int k = 0; k < a->n_parts; k++)
            sum += a->parts[k].value;
        CHECK_NEAR(sum, a->logit, 1e-4, "the parts sum to the logit");
        int idx[64];
        int k = probe_parts_order(p, i, idx, 64);
        CHECK(k == a->n_parts, "every part ordered (%d of %d)", k, a->n_parts);
        for (int j = 1; j < k; j++)
            CHECK(fabs(a->parts[idx[j - 1]].value) >= fabs(a->parts[idx[j]].value),
                  "parts by |value|");
    }
    /* the words at the session's position: the first position's token */
    DescribeView v = {.ran = 1, .step = 0};
    char out[4000];
    describe_widget(&r.io, &v, out, sizeof out);
    CHECK(strstr(out, "after \"lion\" (position 0)") && strstr(out, "Direct logit attribution"),
          "attribution words at position 0: %.200s", out);
    widget_run_free(&r);
}

static void effect(const Model *m)
{
    Widget w;
    WidgetRun r;
    char err[300];
    widget_of(&w, W_EFFECT);
    CHECK(widget_run_start(&r, &w, m, err, sizeof err) == 0 && r.ran, "effect: %s", err);
    const Probe *p = r.live.probe;
    if (!p || !r.ran)
        goto out;
    int L = p->L, H = p->H, n = p->n, V = m->cfg.vocab_size;
    CHECK(p->layer == -1 && p->n_heads == L * H, "every head of a small model");
    Trace *k = trace_new(m, n, 1);
    for (int l = 0; k && l < L; l++)
        for (int h = 0; h < H; h++) {
            Controls c = r.ctl;
            c.ablate[l] |= (uint64_t)1 << h;
            CHECK(model_forward(m, r.src, n, NULL, 0, &c, k, err, sizeof err) == 0, "%s", err);
            const float *kl = logits(m, k), *lg = logits(m, r.io.tr.t);
            for (int i = 0; i < n; i++) {
                const ProbeHead *q = &p->heads[(size_t)i * p->n_heads + l * H + h];
                double want = nll_row(kl + (size_t)i * V, V, p->target[i]) -
                              nll_row(lg + (size_t)i * V, V, p->target[i]);
                CHECK(q->layer == l && q->head == h, "head order");
                CHECK_NEAR(q->dloss, want, 1e-4, "loss change knocked out");
                const TraceEntry *wt = trace_find(r.io.tr.t, STACK_DEC, l, SUB_SELF, h,
                                                  T_WEIGHTS);
                CHECK(wt && q->key >= 0 && q->key <= i &&
                      fabs(wt->data[(size_t)i * wt->cols + q->key] - q->weight) < 1e-9,
                      "peak weight and key");
                CHECK(!isnan(q->direct), "a push for every head");
                int ck = p->case_key[i], after = -1;
                for (int j = i - 1; j >= 0 && after < 0; j--)
                    if (r.io.tr.t->src[j] == r.io.tr.t->src[i])
                        after = j + 1;
                CHECK(ck >= 0 && ck <= i && (after < 0 || ck == after),
                      "row %d's case key %d: the token after the earlier occurrence (%d)", i, ck,
                      after);
                CHECK(wt && ck >= 0 && wt->data[(size_t)i * wt->cols + ck] == q->on_key,
                      "L%d.h%d's weight on row %d's case key", l, h, i);
            }
        }
    trace_free(k);
    /* the case lesson 22 builds on: at the last row the previous-token head (layer 0) looks
     * harder than any head and pushes little, yet knocking it out costs more loss than its
     * push says */
    const ProbeHead *row = &p->heads[(size_t)(n - 1) * p->n_heads];
    int look = 0;
    for (int h = 1; h < p->n_heads; h++)
        if (row[h].weight > row[look].weight)
            look = h;
    CHECK(row[look].layer == 0 && fabs(row[look].direct) < 0.5 && row[look].dloss > 1.0,
          "L%d.h%d looks %.2f, pushes %.2f, loss %+.2f", row[look].layer, row[look].head,
          row[look].weight, row[look].direct, row[look].dloss);
out:
    widget_run_free(&r);
}

static void patching_and_rollout(const Model *m)
{
    Widget w;
    WidgetRun r;
    char err[300];
    widget_of(&w, W_PATCH);
    snprintf(w.start.corrupt, sizeof w.start.corrupt, "tree");
    w.start.corrupt_pos = 3;
    CHECK(widget_run_start(&r, &w, m, err, sizeof err) == 0 && r.ran, "patching: %s", err);
    const Probe *p = r.live.probe;
    if (p && r.ran) {
        CHECK(p->patched && p->patch.n_parts == p->L * p->H, "patched every head: %s",
              p->patch_why);
        int bad[16];
        memcpy(bad, r.src, sizeof(int) * (size_t)p->n);
        bad[3] = p->corrupt_tok;
        LensPatch lp;
        CHECK(lens_patch(m, r.src, bad, p->n, &r.ctl, p->target[p->n - 1], p->n - 1, &lp, err,
                         sizeof err) == 0, "%s", err);
        for (int i = 0; i < lp.n_parts && i < p->patch.n_parts; i++)
            CHECK_NEAR(p->patch.parts[i].fraction, lp.parts[i].fraction, 1e-9, "fraction");
        lens_patch_free(&lp);
    }
    widget_run_free(&r);
    /* a word already there: no patching, said why */
    snprintf(w.start.corrupt, sizeof w.start.corrupt, "cat");
    CHECK(widget_run_start(&r, &w, m, err, sizeof err) == 0 && r.ran, "patching: %s", err);
    p = r.live.probe;
    CHECK(p && !p->patched && strstr(p->patch_why, "already"), "%s", p ? p->patch_why : "");
    widget_run_free(&r);

    widget_of(&w, W_ROLLOUT);
    CHECK(widget_run_start(&r, &w, m, err, sizeof err) == 0 && r.ran, "rollout: %s", err);
    p = r.live.probe;
    for (int l = 0; p && r.ran && l < p->L; l++)
        for (int i = 0; i < p->n; i++) {
            double s = 0;
            for (int j = 0; j < p->n; j++)
                s += p->roll[((size_t)l * p->n + i) * p->n + j];
            CHECK_NEAR(s, 1.0, 1e-9, "a rollout row sums to 1");
        }
    widget_run_free(&r);
}

/* A model with more heads than PROBE_ALL_HEADS (3 layers of 12): the widget's layer alone is
 * patched and knocked out, and its numbers are those of the same heads on the full run. */
static void resume_bits(const Model *m, const char *sent, const char *what);

static void big_model(void)
{
    ModelConfig c;
    model_config_defaults(&c);
    c.vocab_size = 12; c.d_model = 24; c.n_heads = 12; c.d_head = 2; c.d_ff = 16; c.max_len = 10;
    c.n_layers = 3;
    const char *words[12] = {"<pad>", "<unk>", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
    Vocab v;
    Model m;
    char err[300];
    if (vocab_init(&v, words, 12, err, sizeof err) || model_new(&m, &c, &v, err, sizeof err)) {
        CHECK(0, "%s", err);
        return;
    }
    model_init_random(&m, 7);
    resume_bits(&m, "a b c a b d", "random 3-layer LayerNorm model with FFNs");
    Widget w;
    widget_of(&w, W_EFFECT);
    w.start.layer = 2;
    snprintf(w.start.sentence, sizeof w.start.sentence, "a b c a b");
    WidgetRun r;
    CHECK(widget_run_start(&r, &w, &m, err, sizeof err) == 0 && r.ran, "big effect: %s", err);
    const Probe *p = r.live.probe;
    CHECK(p && p->layer == 2 && p->n_heads == 12 && p->heads[0].layer == 2 &&
          p->heads[11].head == 11, "one layer's heads of a %d-head model", 36);
    widget_run_free(&r);
    widget_of(&w, W_PATCH);
    w.start.layer = 1;
    snprintf(w.start.sentence, sizeof w.start.sentence, "a b c a b");
    snprintf(w.start.corrupt, sizeof w.start.corrupt, "d");
    w.start.corrupt_pos = 2;
    CHECK(widget_run_start(&r, &w, &m, err, sizeof err) == 0 && r.ran, "big patch: %s", err);
    p = r.live.probe;
    CHECK(p && p->layer == 1 && (!p->patched || (p->patch.n_parts == 13 &&
                                                 p->patch.parts[0].layer == 1)),
          "one layer patched: %s", p ? p->patch_why : "");
    widget_run_free(&r);
    model_free(&m);
}

/* A knock-out resumed at the knocked layer's input (lens_forward_from) gives the bits of the
 * whole forward's logits, at every layer and head; so does patching resumed there
 * (lens_patch) against a whole patched forward. */
static void resume_bits(const Model *m, const char *sent, const char *what)
{
    char err[300];
    int ids[64];
    TokenizeInfo info;
    int n = vocab_tokenize(&m->vocab, sent, ids, 64, &info);
    Controls c0;
    model_default_controls(m, &c0);
    Trace *t = trace_new(m, n, 1), *a = trace_new(m, n, 1), *b = trace_new(m, n, 1);
    CHECK(t && a && b && model_forward(m, ids, n, NULL, 0, &c0, t, err, sizeof err) == 0,
          "%s: the run: %s", what, err);
    int L = m->cfg.n_layers, H = m->cfg.n_heads, same = 0, runs = 0;
    size_t V = (size_t)m->cfg.vocab_size;
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++) {
            Controls c = c0;
            c.ablate[l] |= (uint64_t)1 << h;
            if (model_forward(m, ids, n, NULL, 0, &c, a, err, sizeof err) ||
                lens_forward_from(m, t, l, &c, b, err, sizeof err)) {
                CHECK(0, "%s: L%d.h%d: %s", what, l, h, err);
                continue;
            }
            const TraceEntry *la = trace_find(a, model_output_stack(m), -1, SUB_NONE, -1, T_LOGITS);
            const TraceEntry *lb = trace_find(b, model_output_stack(m), -1, SUB_NONE, -1, T_LOGITS);
            runs++;
            same += la && lb && !memcmp(la->data, lb->data, sizeof(float) * V * n);
        }
    CHECK(runs == L * H && same == runs, "%s: %d of %d knock-outs resumed at their layer give the "
          "whole forward's logits bit for bit", what, same, runs);
    /* patching: the last layer's first head put back into a run with token 1 changed */
    int bad[64];
    memcpy(bad, ids, sizeof(int) * n);
    bad[1] = ids[1] == ids[0] ? ids[2] : ids[0];
    LensPatch lp;
    int tok = ids[n - 1], l = L - 1;
    if (lens_patch_layer(m, ids, bad, n, &c0, tok, n - 1, l, &lp, err, sizeof err) == 0) {
        CHECK(model_forward(m, ids, n, NULL, 0, &c0, a, err, sizeof err) == 0, "%s", err);
        const TraceEntry *src = trace_find(a, model_output_stack(m), l, SUB_SELF, 0, T_HEAD_OUT);
        ModelPatch mp = {l, 0, src ? src->data : NULL, NULL, 0};
        Controls c = c0;
        c.patch = &mp;
        CHECK(src && model_forward(m, bad, n, NULL, 0, &c, b, err, sizeof err) == 0, "%s", err);
        const TraceEntry *lg = trace_find(b, model_output_stack(m), -1, SUB_NONE, -1, T_LOGITS);
        CHECK(lg && (float)lp.parts[0].logit == lg->data[(size_t)(n - 1) * V + tok],
              "%s: patching resumed at layer %d gives the whole patched forward's logit (%.9g, %.9g)",
              what, l, lp.parts[0].logit, lg ? lg->data[(size_t)(n - 1) * V + tok] : NAN);
        lens_patch_free(&lp);
    } else
        CHECK(0, "%s: patching: %s", what, err);
    trace_free(t);
    trace_free(a);
    trace_free(b);
}

/* The pair: each model's numbers are attend heads's, published for {{x NAME}}; the second
 * model guesses on the same ids. */
static void pair_widget(const Model *a)
{
    Model b;
    char err[300];
    if (model_load(&b, "data/induction-1layer.json", err, sizeof err)) {
        CHECK(0, "%s", err);
        return;
    }
    Widget w;
    widget_of(&w, W_PAIR);
    w.model2 = &b;
    WidgetRun r;
    CHECK(widget_run_start(&r, &w, a, err, sizeof err) == 0 && r.ran, "pair: %s", err);
    const Probe *p = r.live.probe;
    if (p && r.ran) {
        const Model *ms[2] = {a, &b};
        for (int k = 0; k < 2; k++) {
            const ProbeModel *q = &p->pair[k];
            HeadProbe hp;
            heads_probe_defaults(ms[k], &hp);
            double f, s2;
            CHECK(heads_copy_loss(ms[k], &hp, NULL, &f, &s2, err, sizeof err) == 0, "%s", err);
            CHECK(q->m == ms[k] && q->first == f && q->second == s2, "model %d's copy losses", k);
            char nm[32];
            snprintf(nm, sizeof nm, "second_%s", k ? "b" : "a");
            const NamedValue *v = explain_get(&p->nv, nm);
            CHECK(v && v->value == s2, "{{x %s}} published", nm);
            CHECK(q->next >= 0 && q->p > 0 && q->p <= 1, "model %d guesses", k);
        }
        /* the lesson's claim: two layers predict the second copy, one layer does not */
        CHECK(p->pair[0].second < 2.0 && p->pair[1].second > p->pair[1].first - 0.5,
              "second copy: two layers %.2f, one layer %.2f (first %.2f)", p->pair[0].second,
              p->pair[1].second, p->pair[1].first);
        PlaceholderCtx ctx;
        widget_ctx(&r.io, 1, &ctx);
        char out[64];
        CHECK(placeholder_value("x layers_b", &ctx, out, sizeof out, err, sizeof err) == 0 &&
                  !strcmp(out, "1"), "{{x layers_b}}: %s %s", out, err);
    }
    widget_run_free(&r);
    w.model2 = NULL;
    CHECK(widget_run_start(&r, &w, a, err, sizeof err) != 0 && strstr(err, "model2"),
          "a pair without its second model: %s", err);
    widget_run_free(&r);
    model_free(&b);
}

/* A lesson directory with one file of text; every problem's message joined into out. */
static int load_problems(const char *json, char *out, size_t n)
{
    char dir[] = "/tmp/attend-probe-XXXXXX", file[300], err[300];
    if (!mkdtemp(dir))
        return -1;
    snprintf(file, sizeof file, "%s/01-x.json", dir);
    FILE *f = fopen(file, "w");
    if (!f)
        return -1;
    fputs(json, f);
    fclose(f);
    Course c;
    int rc = lesson_load_dir(&c, dir, err, sizeof err);
    out[0] = 0;
    for (int i = 0; !rc && i < c.n_problems; i++) {
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s\n", c.problems[i].msg);
    }
    int np = rc ? -1 : c.n_problems;
    lesson_free_course(&c);
    remove(file);
    rmdir(dir);
    return np;
}

/* The loader names each bad probe key at its file:line:col. */
static void bad_lessons(void)
{
    char out[4000];
    const char *head = "{\"id\": \"x\", \"title\": \"X\", \"pages\": [{\"title\": \"p\", "
                       "\"prose\": \"p\", \"widget\": ";
    struct {
        const char *widget, *want;
    } cases[] = {
        {"{\"kind\": \"patching\", \"model\": \"induction.json\", \"sentence\": \"lion key\"}",
         "names its corrupted run"},
        {"{\"kind\": \"patching\", \"model\": \"induction.json\", \"sentence\": \"lion key\", "
         "\"corrupt\": {\"position\": 5, \"word\": \"tree\"}}", "corrupt.position"},
        {"{\"kind\": \"patching\", \"model\": \"induction.json\", \"sentence\": \"lion key\", "
         "\"corrupt\": {\"position\": 1, \"word\": \"no such word\"}}", "corrupt.word"},
        {"{\"kind\": \"lens\", \"model\": \"induction.json\", \"sentence\": \"lion key\", "
         "\"corrupt\": {\"position\": 1, \"word\": \"tree\"}}", "only patching widgets"},
        {"{\"kind\": \"pair\", \"model\": \"induction.json\", \"sentence\": \"lion key\"}",
         "names its second model"},
        {"{\"kind\": \"pair\", \"model\": \"induction.json\", \"sentence\": \"lion key\", "
         "\"model2\": \"@opened\"}", "is a course model"},
        {"{\"kind\": \"heatmap\", \"model\": \"induction.json\", \"sentence\": \"lion key\", "
         "\"model2\": \"induction.json\"}", "only pair widgets"},
        {"{\"kind\": \"lens\", \"model\": \"translate.json\", \"sentence\": \"the cat\", "
         "\"target\": \"le chat\"}", "encoder-decoder"},
        {"{\"kind\": \"effect\", \"model\": \"induction.json\", \"sentence\": \"lion key\", "
         "\"start\": {\"step\": 2}}", "the sentence has positions 0..1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[1000];
        snprintf(json, sizeof json, "%s%s}]}\n", head, cases[i].widget);
        int np = load_problems(json, out, sizeof out);
        CHECK(np >= 1 && strstr(out, cases[i].want) && strstr(out, "01-x.json:1:"),
              "case %zu wants \"%s\": %d problems: %s", i, cases[i].want, np, out);
    }
}

int main(void)
{
    Model m;
    char err[300];
    if (model_load(&m, "data/induction.json", err, sizeof err)) {
        CHECK(0, "data/induction.json: %s", err);
        return t_done("test_probe");
    }
    lens_and_attribution(&m);
    effect(&m);
    patching_and_rollout(&m);
    pair_widget(&m);
    resume_bits(&m, SENT, "induction.json");
    model_free(&m);
    if (model_load(&m, "data/wordnet.json", err, sizeof err) == 0) {
        resume_bits(&m, "she sat by the river bank .", "wordnet.json (RoPE, RMSNorm)");
        model_free(&m);
    } else
        CHECK(0, "data/wordnet.json: %s", err);
    big_model();
    bad_lessons();
    return t_done("test_probe");
}
