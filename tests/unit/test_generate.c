/* test_generate.c - the generate widget's engine (gen_run, gen_pick in src/engine/generate.c)
 * against a decoding loop written here from model_forward alone: greedy and seeded sampling
 * give the same tokens, the probabilities are the softmax of the last row of logits, the
 * cache rows of a step are the rows of the step before plus one, the work is counted as the
 * widget says; then the widget through widget_run_start (placeholders) and the loader's
 * checks of a generate page (start keys, model kind, a step past the end). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain.h"
#include "generate.h"
#include "lesson.h"
#include "lesson_check.h"
#include "widget.h"
#include "t.h"

#define MODEL "data/decoder.json"
#define PROMPT "a bird"
#define CAP 32

static Model m;

/* The most likely token of a row that gen_pick may choose (not <pad>, not <unk>). */
static int argmax_allowed(const float *r, int V)
{
    int best = -1;
    for (int j = 0; j < V; j++)
        if (j != m.vocab.pad_id && j != m.vocab.unk_id && (best < 0 || r[j] > r[best]))
            best = j;
    return best;
}

/* Decodes with model_forward alone: ids gets the prompt and up to steps tokens (stopping at
 * a generated full stop, <eos> or max_len, as the widget does); returns the tokens run at
 * the last step. temp 0: greedy; else gen_pick's draw from seed (what attend generate does). */
static int reference(const int *prompt, int np, int steps, float temp, uint64_t seed, int *ids,
                     Trace *t)
{
    char err[300];
    Controls c;
    model_default_controls(&m, &c);
    CorpusRng rng;
    corpus_rng_seed(&rng, seed);
    int V = m.cfg.vocab_size, dot = vocab_id(&m.vocab, "."), eos = vocab_id(&m.vocab, "<eos>");
    memcpy(ids, prompt, sizeof(int) * (size_t)np);
    int n = np;
    for (int i = 0; i < steps; i++) {
        if (model_forward(&m, ids, n, NULL, 0, &c, t, err, sizeof err))
            return -1;
        const float *r = trace_find(t, STACK_DEC, -1, SUB_NONE, -1, T_LOGITS)->data +
                         (size_t)(n - 1) * V;
        int next = temp > 0.0f ? gen_pick(r, V, &m.vocab, 0, temp, 0, &rng) : argmax_allowed(r, V);
        if (next == eos || (i > 0 && ids[n - 1] == dot) || n >= m.cfg.max_len)
            return -2; /* the text ended before */
        ids[n++] = next;
    }
    return n;
}

static void test_steps(float temp, uint64_t seed)
{
    char err[300];
    int prompt[CAP], np = vocab_tokenize(&m.vocab, PROMPT, prompt, CAP, NULL);
    Trace *cur = trace_new(&m, CAP, 0), *prev = trace_new(&m, CAP, 0), *ref = trace_new(&m, CAP, 0);
    Trace *before = trace_new(&m, CAP, 0);
    CHECK(np == 2 && cur && prev && ref && before, "setup");
    GenSampling s = {temp, seed};
    int ids[CAP], want[CAP], V = m.cfg.vocab_size, last = -1;
    long long rows_full = 0, macs_cached = 0, macs_full = 0;
    for (int step = 0; step < CAP; step++) {
        GenStep g;
        int rc = gen_run(&m, prompt, np, step, &s, ids, CAP, cur, prev, &g, err, sizeof err);
        int n = reference(prompt, np, step, temp, seed, want, ref);
        if (n == -2) { /* past the end: the widget refuses the step too, and says where */
            CHECK(rc == -1 && strstr(err, "past the end"), "T %g step %d past the end: %s",
                  (double)temp, step, err);
            break;
        }
        CHECK(rc == 0, "T %g step %d: %s", (double)temp, step, err);
        if (rc)
            break;
        CHECK(g.n == np + step && g.n == n && g.step == step && g.n_prompt == np, "sizes");
        CHECK(!memcmp(ids, want, sizeof(int) * (size_t)n), "T %g step %d: the same tokens as "
              "the reference loop", (double)temp, step);
        /* the last run: logits of the sequence, probabilities their softmax */
        char e2[300];
        Controls c;
        model_default_controls(&m, &c);
        CHECK(model_forward(&m, ids, n, NULL, 0, &c, ref, e2, sizeof e2) == 0, "ref run");
        const float *r = trace_find(ref, STACK_DEC, -1, SUB_NONE, -1, T_LOGITS)->data +
                         (size_t)(n - 1) * V;
        double mx = r[0], sum = 0.0;
        for (int j = 0; j < V; j++)
            mx = r[j] > mx ? r[j] : mx;
        for (int j = 0; j < V; j++)
            sum += exp(r[j] - mx);
        CHECK(g.n_top == GEN_TOP_K && g.top_id[0] == argmax_allowed(r, V), "top token");
        for (int k = 0; k < g.n_top; k++) {
            CHECK_NEAR(g.top_p[k], exp(r[g.top_id[k]] - mx) / sum, 1e-12, "p = softmax");
            CHECK(k == 0 || g.top_p[k] <= g.top_p[k - 1], "sorted");
        }
        if (temp <= 0.0f) {
            CHECK(g.next == g.top_id[0] && g.top_pt[0] == 0.0, "greedy takes the top");
        } else if (temp < 1.0f) {
            CHECK(g.top_pt[0] >= g.top_p[0], "a low temperature sharpens");
        }
        /* the cache: this run's K and V equal dump's (model_forward) and, but for the
         * newest row, the previous step's */
        for (int l = 0; l < m.cfg.n_layers; l++)
            for (int h = 0; h < m.cfg.n_heads; h++)
                for (int kind = T_K; kind <= T_V; kind++) {
                    const TraceEntry *a = trace_find(cur, STACK_DEC, l, SUB_SELF, h, kind);
                    const TraceEntry *b = trace_find(ref, STACK_DEC, l, SUB_SELF, h, kind);
                    const TraceEntry *p = trace_find(before, STACK_DEC, l, SUB_SELF, h, kind);
                    CHECK(a && b && a->rows == n && !memcmp(a->data, b->data,
                          sizeof(float) * (size_t)n * a->cols), "K/V rows = a fresh run's");
                    if (step > 0)
                        CHECK(p && !memcmp(a->data, p->data, sizeof(float) * (size_t)(n - 1) *
                              a->cols), "L%d h%d: the earlier rows are the last step's", l, h);
                }
        CHECK(step == 0 || g.reuse_drift == 0.0f, "reuse measured at 0: %g",
              (double)g.reuse_drift);
        rows_full += n;
        macs_cached += step == 0 ? explain_forward_macs(&m.cfg, n) : explain_step_macs(&m.cfg, 1, n);
        macs_full += explain_forward_macs(&m.cfg, n);
        CHECK(g.rows_cached == n && g.rows_full == rows_full, "K/V rows so far");
        CHECK(g.macs_cached == macs_cached && g.macs_full == macs_full, "multiply-adds so far");
        CHECK(explain_step_macs(&m.cfg, n, n) == explain_forward_macs(&m.cfg, n), "n rows");
        Trace *tmp = before; /* keep this run for the next step's comparison */
        before = cur;
        cur = tmp;
        last = step;
    }
    CHECK(last >= 3, "T %g: the text ran a few steps (%d)", (double)temp, last);
    trace_free(cur);
    trace_free(prev);
    trace_free(ref);
    trace_free(before);
}

static void test_sampling(void)
{
    float logits[8] = {0.5f, 0.1f, 2.0f, 1.9f, 1.0f, -1.0f, 0.0f, 1.5f};
    int V = 8;
    CorpusRng a, b;
    corpus_rng_seed(&a, 7);
    corpus_rng_seed(&b, 7);
    int same = 1, counts[8] = {0};
    for (int i = 0; i < 2000; i++) {
        int x = gen_pick(logits, V, &m.vocab, 0, 1.0f, 0, &a);
        same &= x == gen_pick(logits, V, &m.vocab, 0, 1.0f, 0, &b);
        counts[x]++;
    }
    CHECK(same, "the same seed draws the same tokens");
    CHECK(counts[m.vocab.pad_id] == 0 && counts[m.vocab.unk_id] == 0, "never <pad> or <unk>");
    CHECK(counts[2] > counts[4] && counts[4] > counts[5], "draws follow the probabilities");
    CHECK(gen_pick(logits, V, &m.vocab, 1, 1.0f, 0, &a) == 2, "greedy: the largest");
    corpus_rng_seed(&a, 7);
    int k1 = 1;
    for (int i = 0; i < 100; i++)
        k1 &= gen_pick(logits, V, &m.vocab, 0, 1.0f, 1, &a) == 2;
    CHECK(k1, "top-k 1 is greedy");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "write %s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The widget through the one widget run, and the loader's checks. */
static void test_widget(void)
{
    char dir[] = "/tmp/attend-gen-XXXXXX", path[600], err[600];
    CHECK(mkdtemp(dir) != NULL, "temp dir");
    snprintf(path, sizeof path, "%s/01-gen.json", dir);
    write_file(path,
        "{\"id\": \"gen\", \"title\": \"Generate\", \"pages\": [\n"
        " {\"title\": \"a\", \"prose\": \"{{x step}} {{n}} {{x reused_rows}} {{token 2}} "
        "{{weight 3 0}}\",\n"
        "  \"widget\": {\"kind\": \"generate\", \"sentence\": \"" PROMPT "\", "
        "\"start\": {\"step\": 2}, \"controls\": [\"step\", \"sample\", \"reset\"]}},\n"
        " {\"title\": \"b\", \"prose\": \"{{x temperature}} {{x seed}} {{x greedy}}\",\n"
        "  \"widget\": {\"kind\": \"generate\", \"sentence\": \"" PROMPT "\", "
        "\"start\": {\"step\": 1, \"temperature\": 0.5, \"seed\": 4}}}]}\n");
    snprintf(path, sizeof path, "%s/02-bad.json", dir);
    write_file(path,
        "{\"id\": \"bad\", \"title\": \"Bad\", \"pages\": [\n"
        " {\"title\": \"t\", \"prose\": \"x\", \"widget\": {\"kind\": \"generate\", "
        "\"sentence\": \"a bird\", \"start\": {\"temperature\": -1}}},\n"
        " {\"title\": \"e\", \"prose\": \"x\", \"widget\": {\"kind\": \"generate\", "
        "\"model\": \"encoder.json\", \"sentence\": \"the cat sat\"}},\n"
        " {\"title\": \"d\", \"prose\": \"x\", \"widget\": {\"kind\": \"heatmap\", "
        "\"sentence\": \"a bird\", \"start\": {\"seed\": 3}}}]}\n");
    snprintf(path, sizeof path, "%s/03-end.json", dir);
    write_file(path,
        "{\"id\": \"end\", \"title\": \"End\", \"pages\": [\n"
        " {\"title\": \"s\", \"prose\": \"{{x step}}\", \"widget\": {\"kind\": \"generate\", "
        "\"sentence\": \"a bird\", \"start\": {\"step\": 40}}}]}\n");
    Course c;
    CHECK(lesson_load_dir(&c, dir, err, sizeof err) == 0, "load: %s", err);
    lesson_check_placeholders(&c);
    int gi = lesson_find(&c, "gen");
    CHECK(gi >= 0 && !c.lessons[gi].broken, "the good lesson loads");
    const char *want[] = {"02-bad.json", "pages[0].widget.start.temperature: must be a number",
                          "02-bad.json", "needs a decoder-only model",
                          "02-bad.json", "start key \"seed\" does nothing on a heatmap",
                          "03-end.json", "step 40 is"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i += 2) {
        int found = 0;
        for (int k = 0; k < c.n_problems; k++)
            found |= strstr(c.problems[k].msg, want[i]) && strstr(c.problems[k].msg, want[i + 1]);
        CHECK(found, "a problem: %s", want[i + 1]);
    }
    for (int k = 0; k < c.n_problems; k++)
        CHECK(!strstr(c.problems[k].msg, "01-gen.json"), "good lesson: %s", c.problems[k].msg);
    if (gi >= 0 && !c.lessons[gi].broken) {
        const Lesson *l = &c.lessons[gi];
        WidgetRun r;
        const Model *pm = &c.models[l->pages[0].widget.model_index]->model;
        CHECK(widget_run_start(&r, &l->pages[0].widget, pm, err, sizeof err) == 0, "run: %s",
              err);
        char out[600], perr[300], expect[600];
        placeholder_expand(l->pages[0].prose, &r.ctx, out, sizeof out, perr, sizeof perr);
        const TraceEntry *w = trace_find(r.io.tr.t, STACK_DEC, 0, SUB_SELF, 0, T_WEIGHTS);
        snprintf(expect, sizeof expect, "2 4 3 %s %.2f", vocab_word(&pm->vocab, r.live.gen_ids[2]),
                 w ? (double)w->data[3 * w->cols] : -1.0);
        CHECK(!strcmp(out, expect), "placeholders read the last run: '%s' want '%s'", out, expect);
        CHECK(r.io.tr.t->n == 4 && !memcmp(r.io.tr.t->src, r.live.gen_ids, 4 * sizeof(int)),
              "the trace is the text so far");
        widget_run_free(&r);
        CHECK(widget_run_start(&r, &l->pages[1].widget, pm, err, sizeof err) == 0, "run: %s",
              err);
        placeholder_expand(l->pages[1].prose, &r.ctx, out, sizeof out, perr, sizeof perr);
        CHECK(!strcmp(out, "0.50 4 0"), "sampling from the start: '%s'", out);
        widget_run_free(&r);
    }
    lesson_free_course(&c);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    CHECK(system(path) == 0, "clean up");
}

int main(void)
{
    char err[600];
    if (model_load(&m, MODEL, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return t_done("generate") + 1;
    }
    test_steps(0.0f, 1);
    test_steps(1.0f, 3);
    test_steps(0.5f, 11);
    test_sampling();
    test_widget();
    model_free(&m);
    return t_done("generate");
}
