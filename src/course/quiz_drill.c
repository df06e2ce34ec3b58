/* quiz_drill.c - seeded drills (quiz_drill.h): xorshift random numbers, and the drills with
 * their prompts, hints and explanations; the ones on a lesson sentence run the engine through
 * widget_run_start, so their answers are the engine's. No curses, no printing, no exit(). */
#include "quiz_drill.h"
#include "errf.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "quiz_answer.h"
#include "tensor.h"
#include "widget.h"


/* ---- random numbers ---- */

void quiz_rng_seed(QuizRng *r, uint64_t seed)
{
    /* splitmix64 so that nearby seeds give unrelated streams; never 0 */
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    r->s = z ? z : 0x2545F4914F6CDD1Dull;
}

uint64_t quiz_rng_next(QuizRng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

int quiz_rng_range(QuizRng *r, int lo, int hi)
{
    if (hi <= lo)
        return lo;
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (int)(quiz_rng_next(r) % span);
}

uint64_t quiz_hash(const char *s, uint64_t mix)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    QuizRng r;
    quiz_rng_seed(&r, h ^ (mix * 0x9E3779B97F4A7C15ull));
    return quiz_rng_next(&r);
}

/* ---- drills ---- */

/* The model and the sentences the engine drills run on: the first page with a sentence and
 * a self-attention model, and every sentence of the course's pages on that model. */
typedef struct {
    const Model *m;
    const char *sent[ATTEND_MAX_DRILL_SENTENCES];
    int n;
} DrillEnv;

static int drill_env(DrillEnv *e, const Course *c)
{
    memset(e, 0, sizeof *e);
    for (int li = 0; c && li < c->n_lessons; li++) {
        const Lesson *L = &c->lessons[li];
        if (L->broken)
            continue;
        for (int pi = 0; pi < L->n_pages; pi++) {
            const Page *P = &L->pages[pi];
            const Model *m = lesson_model(c, P);
            if (!m || !P->widget.start.sentence[0] || m->cfg.arch == ARCH_ENCDEC)
                continue;
            if (!e->m)
                e->m = m;
            if (m != e->m || e->n >= ATTEND_MAX_DRILL_SENTENCES)
                continue;
            int dup = 0;
            for (int i = 0; i < e->n; i++)
                if (!strcmp(e->sent[i], P->widget.start.sentence))
                    dup = 1;
            if (!dup)
                e->sent[e->n++] = P->widget.start.sentence;
        }
    }
    return e->m && e->n ? 0 : -1;
}

static const int DK_CHOICES[] = {8, 16, 32, 64, 128};

static void drill_qk_entries(QuizItem *it, QuizRng *r)
{
    int n = quiz_rng_range(r, 3, 12), dk = DK_CHOICES[quiz_rng_range(r, 0, 3)];
    it->kind = QK_NUMBER;
    snprintf(it->prompt, sizeof it->prompt,
             "A sentence has N = %d tokens and each head has d_k = %d. How many entries does "
             "one head's score matrix QKᵀ have?", n, dk);
    it->number = (double)n * n;
    it->tol = 0;
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "QKᵀ has one row per query and one column per key.");
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "d_k disappears inside each dot product q_i·k_j.");
    snprintf(it->explain, sizeof it->explain,
             "Q is %d×%d and Kᵀ is %d×%d, so QKᵀ is %d×%d: %d entries. d_k only sets how long "
             "each dot product is.", n, dk, dk, n, n, n, n * n);
}

static void drill_dk(QuizItem *it, QuizRng *r)
{
    static const int H[] = {2, 4, 8, 12, 16, 32};
    static const int DK[] = {32, 48, 64, 80, 128};
    int h = H[quiz_rng_range(r, 0, 5)], dk = DK[quiz_rng_range(r, 0, 4)];
    it->kind = QK_NUMBER;
    snprintf(it->prompt, sizeof it->prompt,
             "A model with d_model = %d splits its width evenly over h = %d heads. What is "
             "d_k, the width of one head?", h * dk, h);
    it->number = dk;
    it->tol = 0;
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "The heads side by side give back d_model: h · d_k = d_model.");
    snprintf(it->explain, sizeof it->explain, "d_k = d_model / h = %d / %d = %d.", h * dk, h,
             dk);
}

static void set_shape2(QuizItem *it, int a, int b)
{
    it->kind = QK_SHAPE;
    it->rank = 2;
    it->dims[0] = a;
    it->dims[1] = b;
    snprintf(it->answer, sizeof it->answer, "%d×%d", a, b);
}

static void drill_score_shape(QuizItem *it, QuizRng *r)
{
    static const int L[] = {16, 32, 50, 64, 100, 128, 256, 500, 512, 1024, 2048};
    int l = L[quiz_rng_range(r, 0, 10)], dk = DK_CHOICES[quiz_rng_range(r, 1, 4)];
    set_shape2(it, l, l);
    snprintf(it->prompt, sizeof it->prompt,
             "One head reads a sequence of L = %d tokens with d_k = %d. What is the shape of "
             "its score matrix QKᵀ?", l, dk);
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "Q and K are both L×d_k; transposing K gives d_k×L.");
    snprintf(it->explain, sizeof it->explain,
             "(L×d_k)·(d_k×L) = L×L = %d×%d: every query against every key, whatever d_k is.",
             l, l);
}

static void drill_q_shape(QuizItem *it, QuizRng *r)
{
    static const int H[] = {2, 4, 8, 16};
    int n = quiz_rng_range(r, 3, 40), h = H[quiz_rng_range(r, 0, 3)];
    int dk = DK_CHOICES[quiz_rng_range(r, 0, 4)];
    set_shape2(it, n, dk);
    snprintf(it->prompt, sizeof it->prompt,
             "N = %d tokens enter a layer with d_model = %d and h = %d heads. What is the "
             "shape of one head's query matrix Q?", n, h * dk, h);
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "One row per token; each head has d_k = d_model / h columns.");
    snprintf(it->explain, sizeof it->explain,
             "Q = X·W_Q[:, head]: (%d×%d)·(%d×%d) = %d×%d.", n, h * dk, h * dk, dk, n, dk);
}

static void drill_softmax(QuizItem *it, QuizRng *r)
{
    int s[9];
    float a[9];
    for (int i = 0; i < 9; i++) {
        s[i] = quiz_rng_range(r, -3, 3);
        a[i] = (float)s[i];
    }
    tensor_softmax_rows(a, 3, 3); /* the engine's own softmax */
    int i = quiz_rng_range(r, 0, 2), j = quiz_rng_range(r, 0, 2);
    it->kind = QK_NUMBER;
    snprintf(it->prompt, sizeof it->prompt,
             "By hand: the scores (already scaled) are S = [[%d, %d, %d], [%d, %d, %d], "
             "[%d, %d, %d]]. With A = softmax(S) taken row by row, what is A[%d][%d]? (rows "
             "and columns count from 0; two decimals are enough)",
             s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], i, j);
    it->number = a[i * 3 + j];
    it->tol = 0.0051;
    quiz_format_number(it->number, 0.005, -1, it->answer, sizeof it->answer);
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "Only row %d matters: softmax([%d, %d, %d]).", i, s[i * 3], s[i * 3 + 1],
             s[i * 3 + 2]);
    snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
             "softmax(x)_j = e^x_j / (e^x_0 + e^x_1 + e^x_2); adding one number to the whole "
             "row changes nothing.");
    double e0 = exp(s[i * 3]), e1 = exp(s[i * 3 + 1]), e2 = exp(s[i * 3 + 2]);
    snprintf(it->explain, sizeof it->explain,
             "A[%d][%d] = e^%d / (e^%d + e^%d + e^%d) = %.4f / %.4f = %.4f.", i, j, s[i * 3 + j],
             s[i * 3], s[i * 3 + 1], s[i * 3 + 2], exp(s[i * 3 + j]), e0 + e1 + e2,
             (double)a[i * 3 + j]);
}

/* Runs the drill model on a sentence with the given controls into r (free it either way). */
static int drill_run(WidgetRun *r, const DrillEnv *e, const char *sentence, int causal, int pe,
                     int layer, int head, const int *order, int n_order, char *err,
                     size_t errlen)
{
    Widget w;
    memset(&w, 0, sizeof w);
    w.kind = W_HEATMAP;
    snprintf(w.start.sentence, sizeof w.start.sentence, "%s", sentence);
    w.start.causal = causal;
    w.start.padding = -1;
    w.start.pe = pe;
    w.start.scale = 1;
    w.start.layer = layer;
    w.start.head = head;
    assert(n_order >= 0 && n_order <= ATTEND_MAX_ORDER);
    for (int i = 0; i < n_order; i++)
        w.start.order[i] = order[i];
    w.start.n_order = n_order;
    return widget_run_start(r, &w, e->m, err, errlen);
}

static int n_tokens(const DrillEnv *e, const char *s)
{
    TokenizeInfo info;
    int ids[ATTEND_MAX_DRILL_TOKENS];
    vocab_tokenize(&e->m->vocab, s, ids, ATTEND_MAX_DRILL_TOKENS, &info);
    return info.n_tokens;
}

static int drill_causal(QuizItem *it, QuizRng *r, const DrillEnv *e, int rowsum, char *err,
                        size_t errlen)
{
    const char *s = e->sent[quiz_rng_range(r, 0, e->n - 1)];
    int n = n_tokens(e, s);
    if (n < 2)
        return errf(err, errlen, "the lesson sentence \"%s\" is too short for this drill", s);
    int layer = quiz_rng_range(r, 0, e->m->cfg.n_layers - 1);
    int head = quiz_rng_range(r, 0, e->m->cfg.n_heads - 1);
    int causal = rowsum ? quiz_rng_range(r, 0, 1) : 1;
    WidgetRun run;
    if (drill_run(&run, e, s, causal, -1, layer, head, NULL, 0, err, errlen)) {
        widget_run_free(&run);
        return -1;
    }
    int i, j;
    char body[64];
    if (rowsum) {
        i = quiz_rng_range(r, 0, n - 1);
        j = -1;
        snprintf(body, sizeof body, "rowsum %d", i);
    } else {
        i = quiz_rng_range(r, 0, n - 2);
        j = quiz_rng_range(r, i + 1, n - 1);
        snprintf(body, sizeof body, "weight %d %d", i, j);
    }
    it->kind = QK_NUMBER;
    it->tol = 0.005;
    int rc = placeholder_number(body, &run.ctx, &it->number, NULL, err, errlen);
    const Vocab *v = &e->m->vocab;
    if (!rc && rowsum) {
        snprintf(it->prompt, sizeof it->prompt,
                 "Sentence \"%s\", layer %d of %d, head %d of %d (counted from 0), causal "
                 "mask %s. What does row %d of the attention weights (the query \"%s\") add "
                 "up to?", s, layer, e->m->cfg.n_layers, head, e->m->cfg.n_heads,
                 causal ? "on" : "off", i, vocab_word(v, run.io.tr.t->src[i]));
        snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
                 "Each row is one softmax over the keys the query may read.");
        snprintf(it->explain, sizeof it->explain,
                 "Softmax turns every row into a probability distribution; masked keys get "
                 "exactly 0 and the others share the whole budget, so the row sums to 1 "
                 "(up to float rounding) with the mask on or off.");
    } else if (!rc) {
        snprintf(it->prompt, sizeof it->prompt,
                 "Sentence \"%s\", layer %d of %d, head %d of %d (counted from 0), causal mask "
                 "on. What is the attention weight A[%d][%d] of query %d (\"%s\") on key %d "
                 "(\"%s\")?", s, layer, e->m->cfg.n_layers, head, e->m->cfg.n_heads, i, j, i,
                 vocab_word(v, run.io.tr.t->src[i]), j, vocab_word(v, run.io.tr.t->src[j]));
        snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
                 "Is key %d before or after query %d?", j, i);
        snprintf(it->explain, sizeof it->explain,
                 "Key %d comes after query %d, so the mask adds −∞ to its score and softmax "
                 "gives it exactly 0.", j, i);
    }
    if (!rc)
        quiz_format_number(it->number, it->tol, -1, it->answer, sizeof it->answer);
    widget_run_free(&run);
    return rc;
}

static int drill_equivariance(QuizItem *it, QuizRng *r, const DrillEnv *e, char *err,
                              size_t errlen)
{
    const char *s = e->sent[quiz_rng_range(r, 0, e->n - 1)];
    int n = n_tokens(e, s);
    if (n < 2 || n > ATTEND_MAX_ORDER)
        return errf(err, errlen, "the lesson sentence \"%s\" does not fit this drill", s);
    int order[ATTEND_MAX_ORDER];
    for (int i = 0; i < n; i++)
        order[i] = i;
    /* a random permutation that is not the identity: shuffle, then swap if it is */
    for (int i = n - 1; i > 0; i--) {
        int k = quiz_rng_range(r, 0, i), t = order[i];
        order[i] = order[k];
        order[k] = t;
    }
    int ident = 1;
    for (int i = 0; i < n; i++)
        if (order[i] != i)
            ident = 0;
    if (ident) {
        order[0] = 1;
        order[1] = 0;
    }
    /* PE off half of the time, else one of the encodings */
    int pe = quiz_rng_range(r, 0, 1) ? PE_NONE : quiz_rng_range(r, PE_SINUSOIDAL, PE_ROPE);
    WidgetRun run;
    if (drill_run(&run, e, s, 0, pe, 0, 0, order, n, err, errlen)) {
        widget_run_free(&run);
        return -1;
    }
    double v;
    int rc = placeholder_number("equivariance", &run.ctx, &v, NULL, err, errlen);
    if (!rc) {
        char words[400] = "";
        size_t o = 0;
        for (int i = 0; i < n && o < sizeof words; i++)
            o += (size_t)snprintf(words + o, sizeof words - o, "%s%s", i ? " " : "",
                                  vocab_word(&e->m->vocab, run.io.tr.t->src[i]));
        it->kind = QK_CHOICE;
        snprintf(it->prompt, sizeof it->prompt,
                 "\"%s\" is reordered to \"%s\" and run with no mask and positional encoding "
                 "%s. Is max|Attn(PX) − P·Attn(X)| zero?", s, words, model_pe_name((PeKind)pe));
        it->n_choices = 2;
        snprintf(it->choices[0], sizeof it->choices[0],
                 "Yes: zero up to float rounding (below 0.0001)");
        snprintf(it->choices[1], sizeof it->choices[1], "No: clearly above zero");
        int zero = v < 1e-4;
        it->correct = zero ? 1u : 2u;
        snprintf(it->answer, sizeof it->answer, "%d (%s)", zero ? 1 : 2,
                 it->choices[zero ? 0 : 1]);
        snprintf(it->hints[it->n_hints++], sizeof it->hints[0],
                 "Does anything in this run depend on a token's position?");
        snprintf(it->explain, sizeof it->explain,
                 "The engine measures %.3g. %s", v,
                 zero ? "Without positional information, attention treats the sentence as a "
                        "set: permuting the input permutes the output the same way."
                      : "The positional encoding ties each vector to its position, so "
                        "reordering the words changes what each one attends to.");
    }
    widget_run_free(&run);
    return rc;
}

int quiz_drill(QuizItem *it, const char *name, const Course *c, uint64_t seed, char *err,
               size_t errlen)
{
    memset(it, 0, sizeof *it);
    it->lesson_index = -1;
    it->row = -1;
    if (!quiz_drill_about(name))
        return errf(err, errlen, "unknown drill \"%s\"", name);
    snprintf(it->drill, sizeof it->drill, "%s", name);
    snprintf(it->key, sizeof it->key, "drill/%s", name);
    QuizRng r;
    quiz_rng_seed(&r, seed);
    if (!strcmp(name, "qk-entries"))
        drill_qk_entries(it, &r);
    else if (!strcmp(name, "d-k"))
        drill_dk(it, &r);
    else if (!strcmp(name, "score-shape"))
        drill_score_shape(it, &r);
    else if (!strcmp(name, "q-shape"))
        drill_q_shape(it, &r);
    else if (!strcmp(name, "softmax"))
        drill_softmax(it, &r);
    else {
        DrillEnv e;
        if (drill_env(&e, c))
            return errf(err, errlen, "drill %s needs a course page with a sentence and a "
                                     "self-attention model", name);
        if (!strcmp(name, "causal-zero"))
            return drill_causal(it, &r, &e, 0, err, errlen);
        if (!strcmp(name, "row-sum"))
            return drill_causal(it, &r, &e, 1, err, errlen);
        return drill_equivariance(it, &r, &e, err, errlen);
    }
    if (!it->answer[0])
        quiz_format_number(it->number, it->tol, -1, it->answer, sizeof it->answer);
    return 0;
}
