/* test_lesson.c - the lesson loader and validator on good and broken fixtures
 * (tests/fixtures/lessons-*), and placeholders against the Trace read directly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "lesson_check.h"
#include "names.h"
#include "widget.h"
#include "t.h"

#define GOOD "tests/fixtures/lessons-good"
#define BROKEN "tests/fixtures/lessons-broken"

/* 1 if some problem message starts with prefix. */
static int has_problem(const Course *c, const char *prefix)
{
    for (int i = 0; i < c->n_problems; i++)
        if (!strncmp(c->problems[i].msg, prefix, strlen(prefix)))
            return 1;
    return 0;
}

static void dump_problems(const Course *c)
{
    for (int i = 0; i < c->n_problems; i++)
        fprintf(stderr, "  problem: %s\n", c->problems[i].msg);
}

static const Lesson *by_file(const Course *c, const char *name)
{
    for (int i = 0; i < c->n_lessons; i++) {
        const char *slash = strrchr(c->lessons[i].file, '/');
        if (slash && !strcmp(slash + 1, name))
            return &c->lessons[i];
    }
    return NULL;
}

static void test_good(void)
{
    Course c;
    char err[512];
    CHECK(lesson_load_dir(&c, GOOD, err, sizeof err) == 0, "load: %s", err);
    CHECK(c.n_problems == 0, "good course has %d problems", c.n_problems);
    int added = lesson_check_placeholders(&c);
    CHECK(added == 0, "good course placeholders: %d problems", added);
    if (c.n_problems)
        dump_problems(&c);
    CHECK(c.n_lessons == 2, "README.txt and notes.json are not lessons: %d", c.n_lessons);
    CHECK(c.n_pages == 5, "pages %d", c.n_pages);
    if (c.n_lessons != 2) {
        lesson_free_course(&c);
        return;
    }
    const Lesson *a = &c.lessons[0], *b = &c.lessons[1];
    CHECK(!strcmp(a->id, "first") && !strcmp(b->id, "second"), "sorted by file name");
    CHECK(!a->broken && !b->broken, "not broken");
    CHECK(b->n_requires == 1 && !strcmp(b->requires[0], "first"), "requires");
    CHECK(lesson_find(&c, "second") == 1 && lesson_find(&c, "third") == -1, "lesson_find");
    const Page *p = &a->pages[0];
    CHECK(!strcmp(p->title, "Heat") && p->notes && !strcmp(p->notes, "Notes."), "title, notes");
    CHECK(p->widget.kind == W_HEATMAP, "heatmap kind");
    CHECK(p->widget.start.causal == 1 && p->widget.start.padding == 0, "mask causal");
    CHECK(p->widget.start.layer == 1 && p->widget.start.head == 2, "layer/head");
    CHECK(p->widget.start.pe == -1 && p->widget.start.scale == 1, "defaults pe/scale");
    CHECK(p->widget.controls == (C_MASK | C_CURSOR | C_HEAD), "controls 0x%x", p->widget.controls);
    const Model *m = lesson_model(&c, p);
    CHECK(m && m->cfg.n_layers == 2, "model loaded for the page");
    CHECK(a->pages[1].widget.kind == W_NONE && lesson_model(&c, &a->pages[1]) == m,
          "a page without widget still has the default model (same cache entry)");
    CHECK(a->pages[2].widget.kind == W_PASSPORT && a->pages[2].widget.start.step == 3,
          "passport step");
    const Page *ch = &b->pages[0];
    CHECK(ch->widget.kind == W_CHIPS && ch->widget.start.n_order == 5 &&
          ch->widget.start.order[0] == 4 && ch->widget.start.order[4] == 0, "chips order");
    CHECK(ch->widget.start.pe == PE_NONE && ch->widget.start.causal == 0, "chips pe/mask");
    const Page *mx = &b->pages[1];
    CHECK(mx->widget.kind == W_MATRIX && !strcmp(mx->widget.start.tensor, "L0.mask") &&
          mx->widget.start.scale == 0, "matrix tensor, scale false");
    CHECK(mx->n_questions == 2, "questions %d", mx->n_questions);
    if (mx->n_questions == 2) {
        const Question *q1 = &mx->questions[0], *q2 = &mx->questions[1];
        CHECK(!strcmp(q1->id, "q1") && !strcmp(q1->kind_name, "number") &&
              q1->kind == QK_NUMBER && q1->ok, "question id/kind");
        CHECK(!strcmp(q1->compute, "weight 0 1") && !strcmp(q1->prompt, "Weight?") &&
              !q1->has_tolerance, "question read once into typed fields: compute \"%s\"",
              q1->compute);
        /* its state, a typed delta: the mask key only, causal on and padding off */
        CHECK(q1->has_state && q1->state.keys == 1u << SK_MASK && q1->state.v.causal == 1 &&
              q1->state.v.padding == 0 && q1->n_state_problems == 0, "state delta keys %#x",
              q1->state.keys);
        WidgetStart st = mx->widget.start;
        course_apply_delta(&st, &q1->state);
        CHECK(st.causal == 1 && st.padding == 0 && st.scale == mx->widget.start.scale &&
              !strcmp(st.tensor, mx->widget.start.tensor), "delta laid over the page's start");
        CHECK(q2->kind == QK_CHOICE && q2->n_choices == 2 && !strcmp(q2->choices[1], "b") &&
              q2->correct == 1u && !q2->has_state, "choice question typed");
    }
    /* widget state helper */
    int src[64], tgt[64], n, mt;
    Controls ctl;
    CHECK(widget_state(&ch->widget, m, &ctl, src, &n, tgt, &mt, 64, err, sizeof err) == 0,
          "%s", err);
    CHECK(n == 5 && mt == 0 && ctl.pe == PE_NONE && ctl.causal == 0 && ctl.order &&
          ctl.order[0] == 4, "widget state n=%d", n);
    CHECK(src[1] == vocab_id(&m->vocab, "dog"), "tokenized");
    lesson_free_course(&c);
    CHECK(c.n_lessons == 0 && c.lessons == NULL, "freed and zeroed");
    lesson_free_course(&c); /* twice is safe */
}

static void test_broken(void)
{
    Course c;
    char err[512];
    CHECK(lesson_load_dir(&c, BROKEN, err, sizeof err) == 0, "load: %s", err);
    int structural = c.n_problems;
    int added = lesson_check_placeholders(&c);
    CHECK(added == 3, "placeholder problems: %d", added);
    CHECK(c.n_problems == structural + added, "counts add up");
    /* Positions below were computed from the fixture text by the generator script (Python
     * str.index), not by this program. */
    static const char *const want[] = {
        BROKEN "/01-syntax.json:4:3: JSON syntax error",
        BROKEN "/02-unknown-key.json:12:7: pages[0].widgt: unknown key \"widgt\"",
        BROKEN "/03-missing-key.json:5:5: pages[0]: missing key \"prose\"",
        BROKEN "/04-bad-widget.json:9:17: pages[0].widget.kind: unknown widget kind \"heatmapp\"",
        BROKEN "/05-bad-control.json:13:11: pages[0].widget.controls[1]: unknown control \"wobble\"",
        BROKEN "/06-range.json:12:20: pages[0].widget.start.layer: 2 is out of range",
        BROKEN "/06-range.json:13:19: pages[0].widget.start.head: 4 is out of range",
        BROKEN "/07-unknown-word.json:10:21: pages[0].widget.sentence: word not in the vocabulary "
               "of data/decoder.json: \"zorblax\"",
        BROKEN "/08-too-long.json:10:21: pages[0].widget.sentence: the sentence has 33 tokens; "
               "the model data/decoder.json reads at most 32",
        BROKEN "/09-order.json:12:20: pages[0].widget.start.order: must be a permutation",
        BROKEN "/10-placeholder.json:7:41: pages[0].prose: {{weight 9 0}}: row 9 out of range 0..5",
        BROKEN "/10-placeholder.json:7:60: pages[0].prose: {{wieght 1 1}}: unknown placeholder",
        BROKEN "/11-dup-id.json:2:9: id: lesson id \"placeholder\" is already used by "
               BROKEN "/10-placeholder.json",
        BROKEN "/12-requires.json:5:5: requires[0]: no lesson in this course has id \"nope\"",
        BROKEN "/13-tensor.json:12:21: pages[0].widget.start.tensor: no traced tensor named \"L9.h0.q\"",
        BROKEN "/14-question.json:9:9: pages[0].questions[0]: missing key \"prompt\"",
        BROKEN "/14-question.json:",  /* and the kind */
        BROKEN "/15-compute.json:17:22: pages[0].questions[0].compute: {{weight 1 7}}: column 7 "
               "out of range 0..5",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK(has_problem(&c, want[i]), "expected problem: %s", want[i]);
    int kind_found = 0;
    for (int i = 0; i < c.n_problems; i++)
        if (strstr(c.problems[i].msg, "14-question.json:") &&
            strstr(c.problems[i].msg, "pages[0].questions[0].kind: unknown question kind \"essay\""))
            kind_found = 1;
    CHECK(kind_found, "unknown question kind reported");
    /* broken lessons are kept, flagged, with their first problem and no pages */
    const Lesson *l2 = by_file(&c, "02-unknown-key.json");
    CHECK(l2 && l2->broken && l2->n_pages == 0 && strstr(l2->error, "widgt"), "02 broken");
    const Lesson *l1 = by_file(&c, "01-syntax.json");
    CHECK(l1 && l1->broken && strstr(l1->error, ":4:3:"), "syntax lesson broken with position");
    /* placeholder problems do not break a lesson: the player shows them in place */
    const Lesson *l10 = by_file(&c, "10-placeholder.json");
    CHECK(l10 && !l10->broken && l10->n_pages == 1, "10 playable");
    const Lesson *l11 = by_file(&c, "11-dup-id.json");
    CHECK(l11 && l11->broken, "duplicate id broken");
    CHECK(c.n_lessons == 15, "all files kept: %d", c.n_lessons);
    if (!has_problem(&c, BROKEN "/02-unknown-key.json:12:7:"))
        dump_problems(&c);
    lesson_free_course(&c);
}

static void test_missing_dir(void)
{
    Course c;
    char err[512] = "";
    CHECK(lesson_load_dir(&c, "tests/fixtures/no-such-dir", err, sizeof err) == -1, "missing dir");
    CHECK(strstr(err, "no-such-dir") != NULL, "message names the dir: %s", err);
    lesson_free_course(&c);
}

static void test_shipped_course(void)
{
    Course c;
    char err[512];
    CHECK(lesson_load_dir(&c, "lessons", err, sizeof err) == 0, "%s", err);
    lesson_check_placeholders(&c);
    CHECK(c.n_problems == 0, "shipped lessons: %d problems", c.n_problems);
    dump_problems(&c);
    CHECK(c.n_lessons >= 3, "at least three lessons");
    unsigned kinds = 0;
    for (int i = 0; i < c.n_lessons; i++)
        for (int j = 0; j < c.lessons[i].n_pages; j++) {
            const Page *p = &c.lessons[i].pages[j];
            kinds |= 1u << p->widget.kind;
            CHECK(p->notes && *p->notes, "%s page %d has speaker notes", c.lessons[i].id, j);
        }
    CHECK((kinds & 0x1e) == 0x1e, "heatmap, chips, passport and matrix all used: 0x%x", kinds);
    lesson_free_course(&c);
}

/* ---- placeholders against the trace ---- */

static char buf[4096], perr[512];

static const char *ph(const PlaceholderCtx *ctx, const char *body)
{
    if (placeholder_value(body, ctx, buf, sizeof buf, perr, sizeof perr))
        snprintf(buf, sizeof buf, "ERROR %s", perr);
    return buf;
}

static void want_num(const PlaceholderCtx *ctx, const char *body, double v, int prec)
{
    char w[64];
    snprintf(w, sizeof w, "%.*f", prec, v);
    if (!strcmp(w, "-0.00") || !strcmp(w, "-0.000"))
        memmove(w, w + 1, strlen(w));
    const char *got = ph(ctx, body);
    CHECK(!strcmp(got, w), "{{%s}}: got \"%s\" want \"%s\"", body, got, w);
}

static void test_placeholders(void)
{
    Model m;
    char err[512];
    if (model_load(&m, "data/decoder.json", err, sizeof err)) {
        CHECK(0, "model: %s", err);
        return;
    }
    int ids[16];
    TokenizeInfo info;
    int n = vocab_tokenize(&m.vocab, "the cat sat on the mat", ids, 16, &info);
    CHECK(n == 6, "6 tokens");
    Controls ctl;
    model_default_controls(&m, &ctl);
    ctl.causal = 1;
    ctl.padding = 0;
    Trace *t = trace_new(&m, n, 1), *a = trace_new(&m, n, 1), *b = trace_new(&m, n, 1);
    Trace *a2 = trace_new(&m, n, 1), *b2 = trace_new(&m, n, 1);
    CHECK(model_forward(&m, ids, n, NULL, 0, &ctl, t, err, sizeof err) == 0, "%s", err);
    PlaceholderCtx ctx = {&m, t, a, b, 1, 2, 0, 0, NULL, NULL, 0, 0};
    const TraceEntry *w = trace_find_name(t, "L1.h2.weights");
    const TraceEntry *sc = trace_find_name(t, "L1.h2.masked");
    CHECK(w && sc, "trace has the entries");
    want_num(&ctx, "weight 2 1", w->data[2 * 6 + 1], 2);
    want_num(&ctx, "weight 5 3 .4", w->data[5 * 6 + 3], 4);
    want_num(&ctx, "weight 4 0 .0", w->data[4 * 6 + 0], 0);
    want_num(&ctx, "score 3 1", sc->data[3 * 6 + 1], 2);
    CHECK(!strcmp(ph(&ctx, "score 1 3"), "\xe2\x88\x92\xe2\x88\x9e"), "masked score: %s", buf);
    ctx.ascii = 1;
    CHECK(!strcmp(ph(&ctx, "score 1 3"), "-inf"), "ascii masked score: %s", buf);
    {
        char want_shape[32];
        snprintf(want_shape, sizeof want_shape, "6x%d", m.cfg.d_head); /* the model's d_k */
        CHECK(!strcmp(ph(&ctx, "shape L0.h0.q"), want_shape), "ascii shape: %s", buf);
    }
    ctx.ascii = 0;
    want_num(&ctx, "weight 1 3", 0.0, 2);
    double s = 0;
    for (int j = 0; j < 6; j++)
        s += w->data[3 * 6 + j];
    want_num(&ctx, "rowsum 3 .5", s, 5);
    int best = 0;
    for (int j = 1; j < 6; j++)
        if (w->data[4 * 6 + j] > w->data[4 * 6 + best])
            best = j;
    char bw[16];
    snprintf(bw, sizeof bw, "%d", best);
    CHECK(!strcmp(ph(&ctx, "argmax 4"), bw), "argmax: %s want %s", buf, bw);
    CHECK(!strcmp(ph(&ctx, "token 5"), "mat") && !strcmp(ph(&ctx, "token 1"), "cat"), "token");
    CHECK(!strcmp(ph(&ctx, "n"), "6"), "n: %s", buf);
    const TraceEntry *q = trace_find_name(t, "L0.h0.q");
    char wshape[32];
    snprintf(wshape, sizeof wshape, "%d\xc3\x97%d", q->rows, q->cols);
    CHECK(!strcmp(ph(&ctx, "shape L0.h0.q"), wshape), "shape: %s", buf);
    CHECK(!strcmp(ph(&ctx, "entries L0.h0.scores"), "36"), "entries: %s", buf);
    const TraceEntry *x = trace_find_name(t, "x_pe");
    want_num(&ctx, "value x_pe 3 7 .3", x->data[3 * x->cols + 7], 3);
    char num[32];
    snprintf(num, sizeof num, "%d", m.cfg.d_model);
    CHECK(!strcmp(ph(&ctx, "d_model"), num), "d_model %s", buf);
    snprintf(num, sizeof num, "%d", m.cfg.d_head);
    CHECK(!strcmp(ph(&ctx, "d_k"), num), "d_k %s", buf);
    snprintf(num, sizeof num, "%zu", m.n_floats);
    CHECK(!strcmp(ph(&ctx, "params"), num), "params %s", buf);
    snprintf(num, sizeof num, "%d", m.cfg.vocab_size);
    CHECK(!strcmp(ph(&ctx, "vocab"), num), "vocab %s", buf);
    CHECK(!strcmp(ph(&ctx, "layer"), "1") && !strcmp(ph(&ctx, "head"), "2"), "layer/head");
    CHECK(!strcmp(ph(&ctx, "mask"), "causal"), "mask %s", buf);
    CHECK(!strcmp(ph(&ctx, "pe"), model_pe_name(ctl.pe)), "pe %s", buf);
    CHECK(!strcmp(ph(&ctx, "scale"), "on"), "scale %s", buf);

    /* equivariance: same number as calling the engine directly on a reordered run */
    int order[6] = {5, 1, 2, 3, 4, 0};
    Controls c2 = ctl;
    c2.causal = 0;
    c2.padding = 0;
    c2.pe = PE_SINUSOIDAL;
    c2.order = order;
    CHECK(model_forward(&m, ids, n, NULL, 0, &c2, t, err, sizeof err) == 0, "%s", err);
    float direct = model_equivariance(&m, ids, n, NULL, 0, &c2, a2, b2, err, sizeof err);
    CHECK(direct >= 0, "%s", err);
    direct = model_equivariance_layer(&m, a2, b2, ctx.layer); /* the widget's layer */
    CHECK(direct > 0.01f, "PE on: equivariance broken (%g)", (double)direct);
    want_num(&ctx, "equivariance .4", direct, 4);
    c2.pe = PE_NONE;
    CHECK(model_forward(&m, ids, n, NULL, 0, &c2, t, err, sizeof err) == 0, "%s", err);
    direct = model_equivariance(&m, ids, n, NULL, 0, &c2, a2, b2, err, sizeof err);
    CHECK(direct >= 0 && direct < 1e-4f, "PE off: equivariant (%g)", (double)direct);
    want_num(&ctx, "equivariance .3", 0.0, 3);
    /* the run itself was the permuted one: tokens read in run order */
    CHECK(!strcmp(ph(&ctx, "token 0"), "mat"), "token 0 after reorder: %s", buf);
    ctx.eq_a = NULL;
    CHECK(!strncmp(ph(&ctx, "equivariance"), "ERROR", 5), "no scratch traces: error");
    ctx.eq_a = a;

    /* errors */
    CHECK(strstr(ph(&ctx, "weight 6 0"), "row 6 out of range 0..5"), "%s", buf);
    CHECK(strstr(ph(&ctx, "weight 0 x"), "not a number"), "%s", buf);
    CHECK(strstr(ph(&ctx, "wieght 0 0"), "unknown placeholder"), "%s", buf);
    CHECK(strstr(ph(&ctx, "weight 0"), "takes 2 arguments"), "%s", buf);
    CHECK(strstr(ph(&ctx, "shape L7.h0.q"), "no traced tensor"), "%s", buf);
    CHECK(strstr(ph(&ctx, "n .2"), "takes no precision"), "%s", buf);
    CHECK(strstr(ph(&ctx, "weight 0 0 .9"), "precision"), "%s", buf);
    ctx.head = 9;
    CHECK(strstr(ph(&ctx, "weight 0 0"), "ERROR"), "head out of range: %s", buf);
    ctx.head = 2;
    PlaceholderCtx none = {&m, NULL, NULL, NULL, 0, 0, 0, 0, NULL, NULL, 0, 0};
    CHECK(!strcmp(ph(&none, "d_ff"), "128") || m.cfg.d_ff != 128, "d_ff without a trace");
    CHECK(strstr(ph(&none, "n"), "no sentence"), "n without a trace: %s", buf);

    /* expansion: good values in place, bad ones marked, count returned */
    char out[512], e2[256];
    int bad = placeholder_expand("n={{n}}, {{bogus 1}} and {{lbrace}}x}} {{weight 9 9}} {{n", &ctx,
                                 out, sizeof out, e2, sizeof e2);
    CHECK(bad == 3, "three bad placeholders: %d", bad);
    CHECK(!strcmp(out, "n=6, [?bogus 1] and {{x}} [?weight 9 9] [?{{]n"), "expanded: %s", out);
    CHECK(strstr(e2, "bogus") != NULL, "first error reported: %s", e2);
    CHECK(placeholder_expand("plain text", &ctx, out, sizeof out, e2, sizeof e2) == 0 &&
          !strcmp(out, "plain text"), "no placeholders");
    char tiny[8];
    CHECK(placeholder_expand("a long text here", &ctx, tiny, sizeof tiny, e2, sizeof e2) == -1 &&
          strlen(tiny) == 7, "overflow reported, output cut and terminated");

    trace_free(t);
    trace_free(a);
    trace_free(b);
    trace_free(a2);
    trace_free(b2);
    model_free(&m);
}

static void test_names(void)
{
    CHECK(course_widget_parse("chips") == W_CHIPS && course_widget_parse("chip") == -1, "widgets");
    CHECK(!strcmp(course_widget_name(W_PASSPORT), "passport"), "widget name");
    CHECK(course_control_parse("all_heads") == C_ALL_HEADS && course_control_parse("x") == -1,
          "controls");
    CHECK(course_control_parse("tensor") == C_TENSOR && course_control_parse("padding") == C_PADDING,
          "control bits match lesson.h");
    CHECK(!strcmp(course_control_name(C_SWAP), "swap") && course_control_name(3) == NULL,
          "control name");
    CHECK(!strcmp(names_mask(1, 1), "both") && !strcmp(names_mask(0, 1), "padding"),
          "mask names");
    /* one parser for dump, the lessons and the quiz: every name reads back to its switches */
    for (int causal = 0; causal < 2; causal++)
        for (int padding = 0; padding < 2; padding++) {
            int c2 = -1, p2 = -1;
            CHECK(names_mask_parse(names_mask(causal, padding), &c2, &p2) == 0 &&
                      c2 == causal && p2 == padding,
                  "mask %s reads back as causal %d padding %d", names_mask(causal, padding), c2,
                  p2);
        }
    int c3 = 7, p3 = 7;
    CHECK(names_mask_parse("causal+padding", &c3, &p3) == -1 && c3 == 7 && p3 == 7,
          "causal+padding is not a mask name (both is)");
}


static void count_word(const char *tok, void *ctx)
{
    (void)tok;
    ++*(int *)ctx;
}

/* {{pieces}} counts the tokens beyond one per word (vocab_split's words); {{model}} names the
 * model. On the word-level decoder there are no pieces. */
static void test_tokenizer_placeholders(void)
{
    static const char *const MODELS[] = {"data/wordnet.json", "data/decoder.json"};
    static const char *const NAMES[] = {"wordnet", "decoder"};
    const char *sentence = "the volcanologist waved at my grandmother .";
    for (int k = 0; k < 2; k++) {
        Model m;
        char err[512];
        if (model_load(&m, MODELS[k], err, sizeof err)) {
            CHECK(0, "model: %s", err);
            continue;
        }
        int ids[64], words = 0;
        TokenizeInfo info;
        int n = vocab_tokenize(&m.vocab, sentence, ids, 64, &info);
        vocab_split(sentence, count_word, &words);
        Controls ctl;
        model_default_controls(&m, &ctl);
        Trace *t = trace_new(&m, n, 1);
        CHECK(model_forward(&m, ids, n, NULL, 0, &ctl, t, err, sizeof err) == 0, "%s", err);
        PlaceholderCtx ctx = {&m, t, NULL, NULL, 0, 0, 0, 0, NULL, NULL, 0, 0};
        char want[16];
        snprintf(want, sizeof want, "%d", k == 0 ? n - words : 0);
        CHECK(!strcmp(ph(&ctx, "pieces"), want), "%s: {{pieces}} %s, want %s", NAMES[k], buf,
              want);
        CHECK(k == 1 || n > words, "wordnet splits \"volcanologist\": %d tokens", n);
        CHECK(!strcmp(ph(&ctx, "model"), NAMES[k]), "{{model}} %s", buf);
        trace_free(t);
        model_free(&m);
    }
}

int main(void)
{
    test_names();
    test_good();
    test_broken();
    test_missing_dir();
    test_shipped_course();
    test_placeholders();
    test_tokenizer_placeholders();
    return t_done("lesson");
}
