/* test_quiz.c - the quiz engine: answer checking of every kind with bad answers, the
 * question schema, computed answers against the Trace read directly, drills reproducible
 * for one seed and different across seeds (their answers recomputed here from the prompt),
 * and the Leitner schedule and scores in the progress slot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lesson.h"
#include "lesson_check.h"
#include "names.h"
#include "widget.h"
#include "progress.h"
#include "quiz.h"
#include "t.h"

#define FIX "tests/fixtures/quiz"

static QuizVerdict chk(const QuizItem *it, const char *a)
{
    char msg[400];
    QuizVerdict v = quiz_check(it, a, msg, sizeof msg);
    CHECK(msg[0] != 0, "a verdict on \"%s\" always comes with a message", a);
    return v;
}

static void test_choice(void)
{
    QuizItem it;
    memset(&it, 0, sizeof it);
    it.kind = QK_CHOICE;
    it.n_choices = 4;
    it.correct = 1u << 2; /* the third choice */
    CHECK(chk(&it, "3") == QV_RIGHT, "3 is the third choice");
    CHECK(chk(&it, " c ") == QV_RIGHT, "letter c is the third choice");
    CHECK(chk(&it, "C") == QV_RIGHT, "capital C");
    CHECK(chk(&it, "2") == QV_WRONG, "2 is wrong");
    CHECK(chk(&it, "") == QV_INVALID, "empty");
    CHECK(chk(&it, "   ") == QV_INVALID, "blank");
    CHECK(chk(&it, "5") == QV_INVALID, "out of range");
    CHECK(chk(&it, "0") == QV_INVALID, "choices count from 1");
    CHECK(chk(&it, "e") == QV_INVALID, "letter out of range");
    CHECK(chk(&it, "1 3") == QV_INVALID, "two picks for a single choice");
    CHECK(chk(&it, "banana") == QV_INVALID, "garbage");
    CHECK(chk(&it, "99999999999999999999") == QV_INVALID, "huge");
    CHECK(chk(&it, NULL) == QV_INVALID, "NULL answer");
    char big[400];
    memset(big, '3', sizeof big - 1);
    big[sizeof big - 1] = 0;
    CHECK(chk(&it, big) == QV_INVALID, "too long");
}

static void test_multi(void)
{
    QuizItem it;
    memset(&it, 0, sizeof it);
    it.kind = QK_MULTI;
    it.n_choices = 4;
    it.correct = (1u << 0) | (1u << 3);
    CHECK(chk(&it, "1 4") == QV_RIGHT, "1 4");
    CHECK(chk(&it, "4,1") == QV_RIGHT, "order and commas do not matter");
    CHECK(chk(&it, "a, d") == QV_RIGHT, "letters");
    CHECK(chk(&it, "1 4 4") == QV_RIGHT, "a repeat is the same pick");
    CHECK(chk(&it, "1") == QV_WRONG, "one missing");
    CHECK(chk(&it, "1 2 4") == QV_WRONG, "one too many");
    CHECK(chk(&it, "1 9") == QV_INVALID, "out of range");
    CHECK(chk(&it, ",,,") == QV_INVALID, "only separators");
    CHECK(chk(&it, "nan") == QV_INVALID, "nan");
}

static void test_number(void)
{
    QuizItem it;
    memset(&it, 0, sizeof it);
    it.kind = QK_NUMBER;
    it.number = 0.25;
    it.tol = 0.005;
    CHECK(chk(&it, "0.25") == QV_RIGHT, "exact");
    CHECK(chk(&it, ".254") == QV_RIGHT, "within tolerance");
    CHECK(chk(&it, "1/4") == QV_RIGHT, "a fraction");
    CHECK(chk(&it, "2.5e-1") == QV_RIGHT, "exponent");
    CHECK(chk(&it, "0.26") == QV_WRONG, "outside tolerance");
    CHECK(chk(&it, "-0.25") == QV_WRONG, "sign");
    CHECK(chk(&it, "\xe2\x88\x92" "0.25") == QV_WRONG, "unicode minus read as minus");
    CHECK(chk(&it, "0,25") == QV_INVALID, "decimal comma");
    CHECK(chk(&it, "25%") == QV_INVALID, "percent");
    CHECK(chk(&it, "abc") == QV_INVALID, "garbage");
    CHECK(chk(&it, "0.25abc") == QV_INVALID, "trailing garbage");
    CHECK(chk(&it, "NaN") == QV_INVALID, "NaN");
    CHECK(chk(&it, "nan") == QV_INVALID, "nan");
    CHECK(chk(&it, "inf") == QV_INVALID, "inf when the answer is finite");
    CHECK(chk(&it, "-infinity") == QV_INVALID, "-infinity when the answer is finite");
    CHECK(chk(&it, "1e400") == QV_INVALID, "overflow");
    CHECK(chk(&it, "1e300") == QV_INVALID, "huge");
    CHECK(chk(&it, "1/0") == QV_INVALID, "division by zero");
    CHECK(chk(&it, "1/") == QV_INVALID, "half a fraction");
    CHECK(chk(&it, "1/2/3") == QV_INVALID, "two slashes");
    CHECK(chk(&it, "") == QV_INVALID, "empty");
    CHECK(chk(&it, "0x") == QV_INVALID, "0x");
    double v;
    char msg[200];
    CHECK(quiz_parse_number("1e-400", 0, &v, msg, sizeof msg) == 0 && v == 0.0,
          "an underflow is a tiny number, not an error");
    /* an exact answer */
    it.number = 36;
    it.tol = 0;
    CHECK(chk(&it, "36") == QV_RIGHT, "36");
    CHECK(chk(&it, "36.0") == QV_RIGHT, "36.0");
    CHECK(chk(&it, "36.01") == QV_WRONG, "36.01 with tolerance 0");
    CHECK(chk(&it, "35") == QV_WRONG, "35");
    /* a masked score is −∞ */
    it.number = -INFINITY;
    CHECK(chk(&it, "-inf") == QV_RIGHT, "-inf");
    CHECK(chk(&it, "\xe2\x88\x92\xe2\x88\x9e") == QV_RIGHT, "−∞");
    CHECK(chk(&it, "-Infinity") == QV_RIGHT, "-Infinity");
    CHECK(chk(&it, "inf") == QV_WRONG, "+inf is the wrong sign");
    CHECK(chk(&it, "-1e9") == QV_WRONG, "a big negative number is not −∞");
    CHECK(chk(&it, "nan") == QV_INVALID, "nan with an infinite answer");
}

static void test_shape(void)
{
    QuizItem it;
    memset(&it, 0, sizeof it);
    it.kind = QK_SHAPE;
    it.rank = 2;
    it.dims[0] = 6;
    it.dims[1] = 64;
    const char *good[] = {"6x64", "6X64", "6×64", "6 x 64", "[6, 64]", "(6, 64)", "6,64",
                          " 6*64 ", "(6,64)", "6 64"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK(chk(&it, good[i]) == QV_RIGHT, "%s", good[i]);
    CHECK(chk(&it, "64x6") == QV_WRONG, "transposed");
    CHECK(chk(&it, "6x63") == QV_WRONG, "wrong size");
    CHECK(chk(&it, "6x64x1") == QV_INVALID, "rank 3");
    CHECK(chk(&it, "384") == QV_INVALID, "rank 1");
    CHECK(chk(&it, "6x") == QV_INVALID, "dangling x");
    CHECK(chk(&it, "x64") == QV_INVALID, "leading x");
    CHECK(chk(&it, "6xx64") == QV_INVALID, "double x");
    CHECK(chk(&it, "6x0") == QV_INVALID, "size 0");
    CHECK(chk(&it, "6x-64") == QV_INVALID, "negative size");
    CHECK(chk(&it, "6.5x64") == QV_INVALID, "fractional size");
    CHECK(chk(&it, "6x99999999999") == QV_INVALID, "huge size");
    CHECK(chk(&it, "six by 64") == QV_INVALID, "words");
    CHECK(chk(&it, "[]") == QV_INVALID, "empty brackets");
    CHECK(chk(&it, "nan x 64") == QV_INVALID, "nan");
    CHECK(chk(&it, "") == QV_INVALID, "empty");
    int d[QUIZ_MAX_RANK];
    char msg[200];
    CHECK(quiz_parse_shape("[2, 3, 4, 5]", d, msg, sizeof msg) == 4 && d[3] == 5, "rank 4");
    CHECK(quiz_parse_shape("1x2x3x4x5", d, msg, sizeof msg) == -1, "rank 5 refused");
}

static void test_cell_text(void)
{
    QuizItem it;
    memset(&it, 0, sizeof it);
    it.kind = QK_CELL;
    it.row = 3;
    it.col = 1;
    it.n_cols = 6;
    CHECK(chk(&it, "1") == QV_RIGHT, "column 1");
    CHECK(chk(&it, "(3, 1)") == QV_RIGHT, "(row, column)");
    CHECK(chk(&it, "3 1") == QV_RIGHT, "row column");
    CHECK(chk(&it, "2") == QV_WRONG, "column 2");
    CHECK(chk(&it, "(2, 1)") == QV_INVALID, "another row");
    CHECK(chk(&it, "6") == QV_INVALID, "column out of range");
    CHECK(chk(&it, "-1") == QV_INVALID, "negative");
    CHECK(chk(&it, "1.5") == QV_INVALID, "fraction");
    CHECK(chk(&it, "1 2 3") == QV_INVALID, "three numbers");
    CHECK(chk(&it, "cat") == QV_INVALID, "a word");

    memset(&it, 0, sizeof it);
    it.kind = QK_TEXT;
    it.n_text = 2;
    quiz_normalise("Softmax", it.text[0], sizeof it.text[0]);
    quiz_normalise("soft-max", it.text[1], sizeof it.text[1]);
    CHECK(!strcmp(it.text[0], "softmax"), "normalised: %s", it.text[0]);
    CHECK(!strcmp(it.text[1], "soft max"), "hyphen is a space: %s", it.text[1]);
    CHECK(chk(&it, "softmax") == QV_RIGHT, "softmax");
    CHECK(chk(&it, "  SOFTMAX. ") == QV_RIGHT, "case, spaces and a final period");
    CHECK(chk(&it, "\"softmax\"") == QV_RIGHT, "quotes");
    CHECK(chk(&it, "soft   max") == QV_RIGHT, "inner spaces");
    CHECK(chk(&it, "soft_max!") == QV_RIGHT, "underscore and !");
    CHECK(chk(&it, "sigmoid") == QV_WRONG, "another word");
    CHECK(chk(&it, "softmaxx") == QV_WRONG, "a typo is wrong, not right");
    CHECK(chk(&it, "...") == QV_INVALID, "only punctuation");
    CHECK(chk(&it, "") == QV_INVALID, "empty");

    /* plural and singular are the same answer; other words stay wrong */
    memset(&it, 0, sizeof it);
    it.kind = QK_TEXT;
    it.n_text = 2;
    quiz_normalise("value", it.text[0], sizeof it.text[0]);
    quiz_normalise("the queries", it.text[1], sizeof it.text[1]);
    CHECK(chk(&it, "values") == QV_RIGHT, "plural of an accepted word");
    CHECK(chk(&it, "Value.") == QV_RIGHT, "the word itself");
    CHECK(chk(&it, "the query") == QV_RIGHT, "singular of an accepted plural (ies -> y)");
    CHECK(chk(&it, "valu") == QV_WRONG, "a cut word is wrong");
    CHECK(chk(&it, "keys") == QV_WRONG, "another plural is wrong");
    memset(&it, 0, sizeof it);
    it.kind = QK_TEXT;
    it.n_text = 1;
    quiz_normalise("bias", it.text[0], sizeof it.text[0]);
    CHECK(chk(&it, "bias") == QV_RIGHT, "a word ending in s is not cut");
    CHECK(chk(&it, "bia") == QV_WRONG, "bia is not bias");
}

static void test_hints(void)
{
    QuizItem it;
    memset(&it, 0, sizeof it);
    it.kind = QK_CHOICE;
    it.n_choices = 4;
    it.correct = 1u << 1;
    it.n_hints = 1;
    snprintf(it.hints[0], sizeof it.hints[0], "author's hint");
    snprintf(it.choices[0], sizeof it.choices[0], "zero");
    char h[300];
    CHECK(quiz_hint_count(&it) == 3, "1 author hint + 2 ruled-out choices: %d",
          quiz_hint_count(&it));
    CHECK(quiz_hint(&it, 0, h, sizeof h) && !strcmp(h, "author's hint"), "author first");
    /* an automatic hint never rules out the right choice */
    for (int i = 1; i < quiz_hint_count(&it); i++) {
        CHECK(quiz_hint(&it, i, h, sizeof h) != NULL, "hint %d", i);
        CHECK(strstr(h, "choice 2 ") == NULL, "hint %d rules out the right choice: %s", i, h);
    }
    CHECK(quiz_hint(&it, quiz_hint_count(&it), h, sizeof h) == NULL, "no more hints");
    /* with the author's "why", the ruled-out choice comes with the reason it is wrong */
    snprintf(it.choices[3], sizeof it.choices[3], "three");
    snprintf(it.why[3], sizeof it.why[3], "three is odd.");
    snprintf(it.choices[2], sizeof it.choices[2], "two");
    CHECK(quiz_hint(&it, 1, h, sizeof h) && !strcmp(h, "It is not choice 4 (three): three is "
          "odd."), "a ruled-out choice says why: %s", h);
    CHECK(quiz_hint(&it, 2, h, sizeof h) && !strcmp(h, "It is not choice 3 (two)."),
          "a choice without a why is only ruled out: %s", h);
}

static void test_schema(void)
{
    char err[400];
    const char *good[] = {
        "{\"id\":\"a\",\"kind\":\"choice\",\"prompt\":\"p\",\"choices\":[\"x\",\"y\"],\"answer\":1}",
        "{\"id\":\"a\",\"kind\":\"multi\",\"prompt\":\"p\",\"choices\":[\"x\",\"y\",\"z\"],"
        "\"answers\":[0,2]}",
        "{\"id\":\"a\",\"kind\":\"number\",\"prompt\":\"p\",\"compute\":\"weight 1 2\","
        "\"tolerance\":0.01,\"state\":{\"mask\":\"causal\"},\"hints\":[\"h\"]}",
        "{\"id\":\"a\",\"kind\":\"number\",\"prompt\":\"p\",\"answer\":64}",
        "{\"id\":\"a\",\"kind\":\"shape\",\"prompt\":\"p\",\"answer\":[6,64]}",
        "{\"id\":\"a\",\"kind\":\"cell\",\"prompt\":\"p\",\"row\":3,\"compute\":\"argmax 3\"}",
        "{\"id\":\"a\",\"kind\":\"text\",\"prompt\":\"p\",\"answers\":[\"softmax\"]}",
        "{\"id\":\"a\",\"kind\":\"drill\",\"prompt\":\"p\",\"drill\":\"softmax\"}",
        "{\"id\":\"a\",\"kind\":\"choice\",\"prompt\":\"p\",\"choices\":[\"x\",\"y\",\"z\"],"
        "\"answer\":1,\"why\":[\"x is wrong\",null,\"z is {{n}}\"]}",
    };
    Question *q = malloc(sizeof *q);
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK(quiz_question_from_text(q, good[i], err, sizeof err) == 0 && q->ok, "good %zu: %s",
              i, err);
    /* read once into typed fields: what the quiz later uses without the JSON */
    quiz_question_from_text(q, good[1], err, sizeof err);
    CHECK(q->kind == QK_MULTI && q->n_choices == 3 && q->correct == 5u, "multi answers 0,2");
    quiz_question_from_text(q, good[2], err, sizeof err);
    CHECK(q->kind == QK_NUMBER && !strcmp(q->compute, "weight 1 2") && q->has_tolerance &&
          q->tolerance == 0.01 && q->n_hints == 1 && !strcmp(q->hints[0], "h"), "number typed");
    quiz_question_from_text(q, good[3], err, sizeof err);
    CHECK(!q->compute[0] && q->number == 64 && !q->has_tolerance, "literal number answer");
    quiz_question_from_text(q, good[4], err, sizeof err);
    CHECK(q->kind == QK_SHAPE && q->rank == 2 && q->dims[0] == 6 && q->dims[1] == 64, "shape");
    quiz_question_from_text(q, good[5], err, sizeof err);
    CHECK(q->kind == QK_CELL && q->row == 3 && !strcmp(q->compute, "argmax 3"), "cell");
    quiz_question_from_text(q, good[6], err, sizeof err);
    CHECK(q->kind == QK_TEXT && q->n_text == 1 && !strcmp(q->text[0], "softmax"), "text");
    quiz_question_from_text(q, good[7], err, sizeof err);
    CHECK(q->kind == QK_DRILL && !strcmp(q->drill, "softmax") && !strcmp(q->prompt, "p"),
          "drill");
    quiz_question_from_text(q, good[8], err, sizeof err);
    CHECK(q->kind == QK_CHOICE && !strcmp(q->why[0], "x is wrong") && !q->why[1][0] &&
          !strcmp(q->why[2], "z is {{n}}"), "why read by the author's index");
    struct { const char *json, *want; } bad[] = {
        {"{\"kind\":\"choice\",\"choices\":[\"x\",\"y\"],\"answer\":0,\"why\":\"no\"}",
         "why: must be an array"},
        {"{\"kind\":\"choice\",\"choices\":[\"x\",\"y\"],\"answer\":0,\"why\":[null]}",
         "why: 1 entry for 2 choices"},
        {"{\"kind\":\"choice\",\"choices\":[\"x\",\"y\"],\"answer\":0,\"why\":[\"a\",\"b\"]}",
         "why[0]: choice 0 is the answer: its entry must be null"},
        {"{\"kind\":\"choice\",\"choices\":[\"x\",\"y\"],\"answer\":0,\"why\":[null,\"\"]}",
         "why[1]: must say why choice 1 is wrong"},
        {"{\"kind\":\"choice\",\"choices\":[\"x\",\"y\"],\"answer\":0,\"why\":[null,3]}",
         "why[1]: must say why choice 1 is wrong (a non-empty string), not a number"},
        {"{\"kind\":\"multi\",\"choices\":[\"x\",\"y\"],\"answers\":[0],\"why\":[null,\"b\"]}",
         "unknown key \"why\""},
        {"{\"kind\":\"choice\",\"choices\":[\"x\"],\"answer\":0}", "give 2 to"},
        {"{\"kind\":\"choice\",\"choices\":[\"x\",\"y\"],\"answer\":2}", "0..1"},
        {"{\"kind\":\"choice\",\"choices\":[\"x\",\"y\"]}", "missing key \"answer\""},
        {"{\"kind\":\"choice\",\"choices\":[\"x\",\"y\"],\"answer\":0,\"tolerance\":1}",
         "unknown key \"tolerance\""},
        {"{\"kind\":\"multi\",\"choices\":[\"x\",\"y\"],\"answers\":[]}", "non-empty"},
        {"{\"kind\":\"multi\",\"choices\":[\"x\",\"y\"],\"answers\":[1,1]}", "twice"},
        {"{\"kind\":\"number\",\"compute\":\"weight 1 2\",\"answer\":3}", "not both"},
        {"{\"kind\":\"number\"}", "missing key \"compute\""},
        {"{\"kind\":\"number\",\"answer\":\"3\"}", "must be a number"},
        {"{\"kind\":\"number\",\"compute\":\"n\",\"tolerance\":-1}", "tolerance"},
        {"{\"kind\":\"shape\",\"answer\":[6,0]}", "sizes"},
        {"{\"kind\":\"cell\",\"compute\":\"argmax 3\"}", "row"},
        {"{\"kind\":\"text\",\"answers\":[\"...\"]}", "non-empty"},
        {"{\"kind\":\"drill\",\"drill\":\"nope\"}", "unknown drill"},
        {"{\"kind\":\"drill\",\"drill\":\"softmax\",\"state\":{}}", "unknown key \"state\""},
        {"{\"kind\":\"essay\"}", "unknown question kind"},
        {"{\"kind\":\"number\",\"compute\":\"n\",\"hints\":\"h\"}", "hints"},
        {"[1,2]", "JSON object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        int rc = quiz_question_from_text(q, bad[i].json, err, sizeof err);
        CHECK(rc == -1 && !q->ok && strstr(err, bad[i].want),
              "bad %zu: want \"%s\", got \"%s\"", i, bad[i].want, err);
    }
    free(q);
}

/* ---- computed answers against the Trace read directly ---- */

static int find_q(const Course *c, const char *id, int *pi, int *qi)
{
    const Lesson *L = &c->lessons[0];
    for (*pi = 0; *pi < L->n_pages; (*pi)++)
        for (*qi = 0; *qi < L->pages[*pi].n_questions; (*qi)++)
            if (!strcmp(L->pages[*pi].questions[*qi].id, id))
                return 0;
    return -1;
}

/* Runs the page's widget with overrides on m and returns the trace (caller frees). */
static Trace *run_page(const Page *P, const Model *m, int causal, int pe, int layer,
                       const int *order, int n_order, int *src, int *n)
{
    Widget w = P->widget;
    if (causal >= 0)
        w.start.causal = causal, w.start.padding = 0;
    if (pe >= 0)
        w.start.pe = pe;
    if (layer >= 0)
        w.start.layer = layer;
    for (int i = 0; i < n_order; i++)
        w.start.order[i] = order[i];
    w.start.n_order = n_order;
    Controls ctl;
    int tgt[64], mt;
    char err[300];
    if (widget_state(&w, m, &ctl, src, n, tgt, &mt, 64, err, sizeof err))
        return NULL;
    Trace *t = trace_new(m, *n, 1);
    if (t && model_forward(m, src, *n, tgt, mt, &ctl, t, err, sizeof err)) {
        trace_free(t);
        return NULL;
    }
    return t;
}

static void test_computed(void)
{
    Course c;
    memset(&c, 0, sizeof c);
    char err[600];
    CHECK(lesson_load_dir(&c, FIX, err, sizeof err) == 0 && c.n_problems == 0,
          "fixture loads: %s", c.n_problems ? c.problems[0].msg : err);
    if (c.n_lessons != 1 || c.lessons[0].broken) {
        lesson_free_course(&c);
        return;
    }
    CHECK(lesson_check_placeholders(&c) == 0, "fixture placeholders: %s",
          c.n_problems ? c.problems[0].msg : "");
    const Page *P = &c.lessons[0].pages[0];
    const Model *m = lesson_model(&c, P);
    CHECK(m != NULL, "model");
    if (!m) {
        lesson_free_course(&c);
        return;
    }
    QuizItem *it = malloc(sizeof *it);
    int pi, qi, src[64], n;

    /* masked weight: exactly 0 (the engine sets masked weights to exactly zero) */
    CHECK(find_q(&c, "masked", &pi, &qi) == 0, "masked");
    CHECK(quiz_item_from_question(it, &c, 0, pi, qi, 1, err, sizeof err) == 0, "%s", err);
    Trace *t = run_page(P, m, 1, -1, -1, NULL, 0, src, &n);
    const TraceEntry *e = trace_find(t, STACK_DEC, 0, SUB_SELF, 1, T_WEIGHTS);
    CHECK(e != NULL, "weights of head 1");
    if (e) {
        CHECK(e->data[1 * e->cols + 4] == 0.0f, "trace: masked weight is 0");
        CHECK(it->number == (double)e->data[1 * e->cols + 4], "item %g trace %g", it->number,
              (double)e->data[1 * e->cols + 4]);
    }
    CHECK(strstr(it->prompt, "query 6 - 5") != NULL, "prompt placeholders expanded: %s",
          it->prompt);
    CHECK(chk(it, "0") == QV_RIGHT, "0 is right");
    CHECK(chk(it, "0.1") == QV_WRONG, "0.1 is wrong");
    const TraceEntry *ms = trace_find(t, STACK_DEC, 0, SUB_SELF, 1, T_MASKED);
    trace_free(t);

    /* a masked score: −∞ */
    CHECK(find_q(&c, "masked-score", &pi, &qi) == 0, "masked-score");
    CHECK(quiz_item_from_question(it, &c, 0, pi, qi, 1, err, sizeof err) == 0, "%s", err);
    CHECK(isinf(it->number) && it->number < 0, "score above the diagonal is -inf: %g",
          it->number);
    (void)ms;

    /* row sum with no mask, head 1 */
    CHECK(find_q(&c, "rowsum", &pi, &qi) == 0, "rowsum");
    CHECK(quiz_item_from_question(it, &c, 0, pi, qi, 1, err, sizeof err) == 0, "%s", err);
    t = run_page(P, m, -1, -1, -1, NULL, 0, src, &n);
    e = trace_find(t, STACK_DEC, 0, SUB_SELF, 1, T_WEIGHTS);
    double s = 0;
    for (int j = 0; e && j < e->cols; j++)
        s += e->data[3 * e->cols + j];
    CHECK_NEAR(it->number, s, 1e-6, "row 3 sum against the trace");
    CHECK(it->tol == 0.01, "author's tolerance kept");

    /* the cell: argmax of row 2, and the grid copied from the trace */
    CHECK(find_q(&c, "cell", &pi, &qi) == 0, "cell");
    CHECK(quiz_item_from_question(it, &c, 0, pi, qi, 1, err, sizeof err) == 0, "%s", err);
    int best = 0;
    for (int j = 1; e && j < e->cols; j++)
        if (e->data[2 * e->cols + j] > e->data[2 * e->cols + best])
            best = j;
    CHECK(it->col == best && it->row == 2, "argmax %d vs trace %d", it->col, best);
    CHECK(e && it->grid_n == e->rows && it->grid_m == e->cols, "grid size");
    for (int k = 0; e && k < e->rows * e->cols; k++)
        if (it->grid[k] != e->data[k]) {
            CHECK(0, "grid entry %d differs", k);
            break;
        }
    char ans[16];
    snprintf(ans, sizeof ans, "%d", best);
    CHECK(chk(it, ans) == QV_RIGHT, "argmax column right");
    snprintf(ans, sizeof ans, "%d", (best + 1) % 6);
    CHECK(chk(it, ans) == QV_WRONG, "another column wrong");
    trace_free(t);

    /* head 2 of layer 1 through the state; the author's precision .4 */
    CHECK(find_q(&c, "head2", &pi, &qi) == 0, "head2");
    CHECK(quiz_item_from_question(it, &c, 0, pi, qi, 1, err, sizeof err) == 0, "%s", err);
    t = run_page(P, m, -1, -1, 1, NULL, 0, src, &n);
    e = trace_find(t, STACK_DEC, 1, SUB_SELF, 2, T_WEIGHTS);
    CHECK(e != NULL, "layer 1 head 2");
    if (e)
        CHECK_NEAR(it->number, e->data[3 * e->cols + 2], 0.00005, "layer 1 head 2 weight");
    trace_free(t);

    /* equivariance with PE off: model_equivariance directly */
    CHECK(find_q(&c, "eq", &pi, &qi) == 0, "eq");
    CHECK(quiz_item_from_question(it, &c, 0, pi, qi, 1, err, sizeof err) == 0, "%s", err);
    {
        int order[6] = {0, 4, 2, 3, 1, 5};
        Widget w = P->widget;
        w.start.pe = PE_NONE;
        Controls ctl;
        int tgt[4], mt;
        widget_state(&w, m, &ctl, src, &n, tgt, &mt, 64, err, sizeof err);
        ctl.order = order;
        Trace *a = trace_new(m, n, 1), *b = trace_new(m, n, 1);
        float eq = model_equivariance(m, src, n, tgt, mt, &ctl, a, b, err, sizeof err);
        CHECK(eq >= 0 && eq < 1e-4f, "PE off is equivariant: %g", (double)eq);
        /* {{equivariance}} is the gap of the widget's layer, the rows the chips show */
        int layer = w.start.layer >= 0 && w.start.layer < m->cfg.n_layers ? w.start.layer : 0;
        float eql = model_equivariance_layer(m, a, b, layer);
        CHECK(eql >= 0 && eql <= eq, "the layer's gap %g is within the max %g", (double)eql,
              (double)eq);
        CHECK_NEAR(it->number, eql, 1e-6, "equivariance item vs engine");
        trace_free(a);
        trace_free(b);
    }

    /* shape of Q from the trace */
    CHECK(find_q(&c, "shape", &pi, &qi) == 0, "shape");
    CHECK(quiz_item_from_question(it, &c, 0, pi, qi, 1, err, sizeof err) == 0, "%s", err);
    CHECK(it->rank == 2 && it->dims[0] == 6 && it->dims[1] == m->cfg.d_head,
          "Q is n x d_head: %dx%d", it->dims[0], it->dims[1]);

    /* literal answers and text */
    CHECK(find_q(&c, "picks", &pi, &qi) == 0, "picks");
    CHECK(quiz_item_from_question(it, &c, 0, pi, qi, 1, err, sizeof err) == 0, "%s", err);
    {
        /* the author's right choices are 1, 2 and 4; shown in the seed's order */
        const Question *Q = &c.lessons[0].pages[pi].questions[qi];
        char want[32] = "";
        for (int k = 0; k < it->n_choices; k++)
            for (int j = 0; j < Q->n_choices; j++)
                if (!strcmp(it->choices[k], Q->choices[j]) && (0xBu & (1u << j)))
                    snprintf(want + strlen(want), sizeof want - strlen(want), "%s%d",
                             want[0] ? " " : "", k + 1);
        CHECK(Q->correct == 0xBu && __builtin_popcount(it->correct) == 3 &&
              chk(it, want) == QV_RIGHT && !strcmp(it->answer, want), "multi answers: %s",
              want);
    }
    /* a choice's "why" follows its choice through the seed's order, placeholders computed */
    CHECK(find_q(&c, "cell", &pi, &qi) == 0, "cell");
    CHECK(quiz_item_from_question(it, &c, 0, pi, qi, 1, err, sizeof err) == 0, "%s", err);
    int ntok = it->n_cols;
    CHECK(find_q(&c, "pick", &pi, &qi) == 0, "pick");
    int first_at[2] = {-1, -1};
    for (uint64_t seed = 1; seed <= 8; seed++) {
        CHECK(quiz_item_from_question(it, &c, 0, pi, qi, seed, err, sizeof err) == 0, "%s", err);
        char want[120];
        snprintf(want, sizeof want, "softmax is applied to each of the %d rows; it is not a "
                 "matrix.", ntok);
        for (int k = 0; k < it->n_choices; k++) {
            const char *w = !strcmp(it->choices[k], "softmax") ? want
                          : !strcmp(it->choices[k], "√d_k") ? "√d_k is one number: the scale of "
                                                               "the scores." : "";
            CHECK(!strcmp(it->why[k], w), "seed %llu: choice %d (%s) has its own why: \"%s\"",
                  (unsigned long long)seed, k + 1, it->choices[k], it->why[k]);
            if (!strcmp(it->choices[k], "softmax") && seed <= 2)
                first_at[seed - 1] = k;
        }
        /* every automatic hint names a wrong choice with its reason */
        for (int h = it->n_hints; h < quiz_hint_count(it); h++) {
            char hint[700];
            CHECK(quiz_hint(it, h, hint, sizeof hint) && strstr(hint, ": ") &&
                  (strstr(hint, want) || strstr(hint, "the scale of the scores")),
                  "seed %llu hint %d explains: %s", (unsigned long long)seed, h, hint);
        }
    }
    CHECK(first_at[0] >= 0 && first_at[1] >= 0, "softmax found: %d %d", first_at[0],
          first_at[1]);
    CHECK(find_q(&c, "word", &pi, &qi) == 0, "word");
    CHECK(quiz_item_from_question(it, &c, 0, pi, qi, 1, err, sizeof err) == 0, "%s", err);
    CHECK(chk(it, "Soft Max") == QV_RIGHT, "second accepted answer");

    /* a drill question: the same seed gives the same numbers, another seed others */
    CHECK(find_q(&c, "fresh", &pi, &qi) == 0, "fresh");
    QuizItem *b = malloc(sizeof *b);
    CHECK(quiz_item_from_question(it, &c, 0, pi, qi, 5, err, sizeof err) == 0, "%s", err);
    CHECK(quiz_item_from_question(b, &c, 0, pi, qi, 5, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(it->prompt, b->prompt) && !strcmp(it->key, "kinds/fresh") &&
          !strcmp(it->lead, "Fresh numbers:"), "drill question reproducible, keyed by its id");
    int differs = 0;
    for (uint64_t sd = 6; sd < 26; sd++) {
        quiz_item_from_question(b, &c, 0, pi, qi, sd, err, sizeof err);
        differs += strcmp(it->prompt, b->prompt) != 0;
    }
    CHECK(differs >= 10, "other seeds give other numbers (%d of 20 differ)", differs);
    free(b);

    /* a broken state is reported, not crashed on */
    free(it);
    lesson_free_course(&c);
}

/* ---- drills: reproducible, varied, and answers recomputed from the prompt ---- */

static void test_drills(void)
{
    Course c;
    memset(&c, 0, sizeof c);
    char err[600];
    lesson_load_dir(&c, FIX, err, sizeof err);
    QuizItem *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    for (int d = 0; QUIZ_DRILLS[d]; d++) {
        const char *name = QUIZ_DRILLS[d];
        CHECK(quiz_drill(a, name, &c, 42, err, sizeof err) == 0, "%s: %s", name, err);
        CHECK(quiz_drill(b, name, &c, 42, err, sizeof err) == 0, "%s: %s", name, err);
        CHECK(!strcmp(a->prompt, b->prompt) && !strcmp(a->answer, b->answer) &&
              a->number == b->number, "%s: same seed, same drill", name);
        CHECK(a->answer[0] && a->explain[0] && a->n_hints > 0, "%s: answer, explanation, hint",
              name);
        int distinct = 0;
        char seen[8][1200];
        for (uint64_t s = 1; s <= 30 && distinct < 8; s++) {
            quiz_drill(b, name, &c, s * 7919, err, sizeof err);
            int dup = 0;
            for (int k = 0; k < distinct; k++)
                dup |= !strcmp(seen[k], b->prompt);
            if (!dup)
                snprintf(seen[distinct++], sizeof seen[0], "%s", b->prompt);
        }
        CHECK(distinct >= 3, "%s: 30 seeds give %d distinct drills", name, distinct);
        /* recompute the answer from the numbers in the prompt, for many seeds */
        for (uint64_t s = 1; s <= 50; s++) {
            quiz_drill(a, name, &c, s, err, sizeof err);
            int n, dk, dm, h, L;
            if (!strcmp(name, "qk-entries")) {
                CHECK(sscanf(a->prompt, "A sentence has N = %d tokens and each head has d_k = %d",
                             &n, &dk) == 2, "parse %s", a->prompt);
                CHECK(a->number == (double)n * n && a->tol == 0, "QK entries %d", n);
            } else if (!strcmp(name, "d-k")) {
                CHECK(sscanf(a->prompt, "A model with d_model = %d splits its width evenly over "
                                        "h = %d heads", &dm, &h) == 2, "parse %s", a->prompt);
                CHECK(dm % h == 0 && a->number == dm / h, "d_k = %d/%d", dm, h);
            } else if (!strcmp(name, "score-shape")) {
                CHECK(sscanf(a->prompt, "One head reads a sequence of L = %d tokens", &L) == 1,
                      "parse");
                CHECK(a->rank == 2 && a->dims[0] == L && a->dims[1] == L, "L x L");
            } else if (!strcmp(name, "q-shape")) {
                CHECK(sscanf(a->prompt, "N = %d tokens enter a layer with d_model = %d and h = %d",
                             &n, &dm, &h) == 3, "parse");
                CHECK(a->rank == 2 && a->dims[0] == n && a->dims[1] == dm / h, "N x d_model/h");
            } else if (!strcmp(name, "softmax")) {
                int S[9], i, j;
                const char *p = strstr(a->prompt, "S = [[");
                CHECK(p && sscanf(p, "S = [[%d, %d, %d], [%d, %d, %d], [%d, %d, %d]]", &S[0],
                                  &S[1], &S[2], &S[3], &S[4], &S[5], &S[6], &S[7], &S[8]) == 9,
                      "parse S");
                const char *q = strstr(a->prompt, "what is A[");
                CHECK(q && sscanf(q, "what is A[%d][%d]", &i, &j) == 2, "parse i j");
                if (p && q) {
                    double den = exp(S[i * 3]) + exp(S[i * 3 + 1]) + exp(S[i * 3 + 2]);
                    CHECK_NEAR(a->number, exp(S[i * 3 + j]) / den, 1e-6, "softmax by hand");
                }
            } else if (!strcmp(name, "causal-zero")) {
                int layer = -1, head = -1, nl = 0, nh = 0, i, j;
                const char *p = strstr(a->prompt, "layer ");
                CHECK(p && sscanf(p, "layer %d of %d, head %d of %d", &layer, &nl, &head,
                                  &nh) == 4, "parse");
                CHECK(p && layer >= 0 && layer < nl && head >= 0 && head < nh,
                      "layer and head counted from 0, below their counts");
                const char *q = strstr(a->prompt, "A[");
                CHECK(q && sscanf(q, "A[%d][%d]", &i, &j) == 2 && j > i, "j > i");
                CHECK(a->number == 0.0, "masked weight exactly 0: %g", a->number);
            } else if (!strcmp(name, "row-sum")) {
                CHECK_NEAR(a->number, 1.0, 1e-5, "a row sums to 1");
            } else if (!strcmp(name, "equivariance")) {
                int pe_none = strstr(a->prompt, "positional encoding none") != NULL;
                /* PE off must be zero; learned and sinusoidal positions must break it */
                if (pe_none)
                    CHECK(a->correct == 1u, "PE none -> zero: %s", a->explain);
                else if (strstr(a->prompt, "encoding sinusoidal") ||
                         strstr(a->prompt, "encoding learned"))
                    CHECK(a->correct == 2u, "absolute PE -> not zero: %s", a->explain);
            }
        }
    }
    CHECK(quiz_drill(a, "nope", &c, 1, err, sizeof err) == -1, "unknown drill");
    Course empty;
    memset(&empty, 0, sizeof empty);
    CHECK(quiz_drill(a, "causal-zero", &empty, 1, err, sizeof err) == -1,
          "engine drill without a course: error, no crash");
    free(a);
    free(b);
    lesson_free_course(&c);
}

static void test_build(void)
{
    Course c;
    memset(&c, 0, sizeof c);
    char err[600];
    lesson_load_dir(&c, FIX, err, sizeof err);
    QuizSet s1, s2, s3;
    CHECK(quiz_build(&s1, &c, NULL, 0, 9, err, sizeof err) == 0, "%s", err);
    CHECK(s1.n == 14 && s1.n_skipped == 0, "every question: %d (%s)", s1.n, s1.skipped);
    { /* starting at a page's question: rotated, every item still there, course order kept */
        char keys[14][100], at[100];
        for (int i = 0; i < s1.n && i < 14; i++)
            snprintf(keys[i], sizeof keys[i], "%s", s1.items[i].key);
        const char *slash = strchr(keys[5], '/');
        char lesson[48];
        snprintf(lesson, sizeof lesson, "%.*s", (int)(slash - keys[5]), keys[5]);
        snprintf(at, sizeof at, "%s", slash + 1);
        CHECK(quiz_set_start_at(&s1, lesson, at) == 0, "start at %s", keys[5]);
        int rot = 1;
        for (int i = 0; i < s1.n; i++)
            rot &= !strcmp(s1.items[i].key, keys[(i + 5) % s1.n]);
        CHECK(rot, "rotated to start at item 5: %s first", s1.items[0].key);
        CHECK(quiz_set_start_at(&s1, lesson, "no-such-question") == -1 &&
              !strcmp(s1.items[0].key, keys[5]), "an unknown id leaves the set as it is");
    }
    CHECK(quiz_build(&s2, &c, "kinds", 20, 9, err, sizeof err) == 0, "%s", err);
    CHECK(quiz_build(&s3, &c, "kinds", 20, 9, err, sizeof err) == 0, "%s", err);
    CHECK(s2.n == 20, "count 20 with drills repeating: %d", s2.n);
    int same = s2.n == s3.n;
    for (int i = 0; same && i < s2.n; i++)
        same = !strcmp(s2.items[i].key, s3.items[i].key) &&
               !strcmp(s2.items[i].prompt, s3.items[i].prompt);
    CHECK(same, "same seed, same quiz");
    int repeats = 0;
    for (int i = 14; i < s2.n; i++)
        repeats += s2.items[i].drill[0] != 0;
    CHECK(repeats == 6, "the extra questions are drills: %d", repeats);
    quiz_set_free(&s3);
    CHECK(quiz_build(&s3, &c, "kinds", 5, 10, err, sizeof err) == 0 && s3.n == 5, "count 5");
    quiz_set_free(&s1);
    quiz_set_free(&s2);
    quiz_set_free(&s3);
    CHECK(quiz_build(&s1, &c, "nope", 0, 1, err, sizeof err) == -1 && strstr(err, "nope"),
          "unknown lesson");
    lesson_free_course(&c);
}

static void test_schedule(void)
{
    char dir[] = "/tmp/attend-quiz-XXXXXX", path[256], err[400];
    CHECK(mkdtemp(dir) != NULL, "tmp dir");
    snprintf(path, sizeof path, "%s/progress.json", dir);
    Progress p;
    CHECK(progress_load(&p, path, err, sizeof err) == 0, "%s", err);
    long now = 1700000000L, day = 86400L;
    int box;
    long due;
    CHECK(quiz_schedule(&p, "kinds/a", &box, &due) == -1, "nothing scheduled yet");
    CHECK(quiz_record(&p, "kinds/a", QR_RIGHT, now, err, sizeof err) == 0, "%s", err);
    CHECK(quiz_record(&p, "kinds/b", QR_WRONG, now, err, sizeof err) == 0, "%s", err);
    CHECK(quiz_record(&p, "kinds/c", QR_SKIPPED, now, err, sizeof err) == 0, "%s", err);
    CHECK(quiz_schedule(&p, "kinds/a", &box, &due) == 0 && box == 2 && due == now + day,
          "right: box 2, due in a day (%d, %ld)", box, due - now);
    CHECK(quiz_schedule(&p, "kinds/b", &box, &due) == 0 && box == 1 && due == now,
          "wrong: box 1, due now");
    CHECK(quiz_due_count(&p, now) == 2, "wrong and skipped due now: %d", quiz_due_count(&p, now));
    CHECK(quiz_due_count(&p, now + day) == 3, "all due tomorrow");
    /* climbing the boxes: 1 3 7 21 days, capped at the last box */
    long expect[] = {3, 7, 21, 21};
    for (int i = 0; i < 4; i++) {
        quiz_record(&p, "kinds/a", QR_RIGHT, now, err, sizeof err);
        quiz_schedule(&p, "kinds/a", &box, &due);
        CHECK(due == now + expect[i] * day, "step %d: due in %ld days", i, (due - now) / day);
    }
    CHECK(box == QUIZ_BOXES, "top box");
    quiz_record(&p, "kinds/a", QR_RIGHT_HINTED, now, err, sizeof err);
    quiz_schedule(&p, "kinds/a", &box, &due);
    CHECK(box == QUIZ_BOXES, "right with hints keeps the box");
    quiz_record(&p, "kinds/a", QR_WRONG, now, err, sizeof err);
    quiz_schedule(&p, "kinds/a", &box, &due);
    CHECK(box == 1 && due == now, "a miss sends it back to box 1, due at once");

    /* the schedule survives a save and a reload */
    CHECK(quiz_record_score(&p, "kinds", 2, 3, 1, now, err, sizeof err) == 0, "%s", err);
    CHECK(progress_save(&p, err, sizeof err) == 0, "%s", err);
    Progress q;
    CHECK(progress_load(&q, path, err, sizeof err) == 0, "%s", err);
    int r, a;
    CHECK(quiz_score(&q, "kinds", &r, &a) == 0 && r == 2 && a == 3, "score 2/3 reloaded");
    CHECK(quiz_score(&q, "other", &r, &a) == -1, "no score for another lesson");
    CHECK(quiz_schedule(&q, "kinds/b", &box, &due) == 0 && box == 1, "schedule reloaded");

    /* review: the due questions that exist in the course, most overdue first */
    Course c;
    memset(&c, 0, sizeof c);
    lesson_load_dir(&c, FIX, err, sizeof err);
    Progress v;
    char path2[300];
    snprintf(path2, sizeof path2, "%s/p2.json", dir);
    progress_load(&v, path2, err, sizeof err);
    quiz_record(&v, "kinds/shape", QR_WRONG, now - 10, err, sizeof err);
    quiz_record(&v, "kinds/pick", QR_RIGHT, now, err, sizeof err);
    quiz_record(&v, "kinds/gone", QR_WRONG, now - 20, err, sizeof err);
    quiz_record(&v, "kinds/word", QR_WRONG, now - 5, err, sizeof err);
    QuizSet s;
    CHECK(quiz_build_review(&s, &c, &v, now, 0, 1, err, sizeof err) == 0, "%s", err);
    CHECK(s.n == 2 && !strcmp(s.items[0].key, "kinds/shape") &&
          !strcmp(s.items[1].key, "kinds/word"), "review: missed ones, oldest first (%d)", s.n);
    quiz_set_free(&s);
    CHECK(quiz_build_review(&s, &c, &v, now + 2 * day, 0, 1, err, sizeof err) == 0 && s.n == 3,
          "two days later the right one is due too: %d", s.n);
    quiz_set_free(&s);
    /* a hand-broken slot is replaced, never crashed on */
    CHECK(progress_slot_set(&v, QUIZ_SLOT, "{\"schedule\": [1, 2], \"scores\": 3}", err,
                            sizeof err) == 0, "%s", err);
    CHECK(quiz_due_count(&v, now) == 0, "broken slot: nothing due");
    CHECK(quiz_record(&v, "kinds/pick", QR_WRONG, now, err, sizeof err) == 0, "%s", err);
    CHECK(quiz_due_count(&v, now) == 1, "and it works again");

    lesson_free_course(&c);
    progress_free(&p);
    progress_free(&q);
    progress_free(&v);
    unlink(path);
    unlink(path2);
    rmdir(dir);
}


/* ---- questions on explanation widgets (live.c), as check-lessons computes them ---- */

#define FIXE "tests/fixtures/quiz-explain"

/* Builds question id of the first lesson of c into it; 0 or -1 (reported). */
static int build(QuizItem *it, const Course *c, const char *id)
{
    int pi, qi;
    char err[600] = "";
    if (find_q(c, id, &pi, &qi)) {
        CHECK(0, "fixture question %s is missing", id);
        return -1;
    }
    int rc = quiz_item_from_question(it, c, 0, pi, qi, 7, err, sizeof err);
    CHECK(rc == 0, "%s builds: %s", id, err);
    return rc;
}

/* Softmax of one row of q·kᵀ (q one row of 2, k three rows of 2), optionally /√2 and with
 * keys after `upto` masked (upto < 0: none); weights into a. Written out by hand here. */
static void hand_row(const double *q, const double k[3][2], int scale, int upto, double *a)
{
    double s[3], mx = -1e300, sum = 0;
    for (int j = 0; j < 3; j++) {
        s[j] = (q[0] * k[j][0] + q[1] * k[j][1]) / (scale ? sqrt(2.0) : 1.0);
        if (upto >= 0 && j > upto)
            s[j] = -INFINITY;
        if (s[j] > mx)
            mx = s[j];
    }
    for (int j = 0; j < 3; j++)
        sum += a[j] = isinf(s[j]) ? 0.0 : exp(s[j] - mx);
    for (int j = 0; j < 3; j++)
        a[j] /= sum;
}

static void test_explain_widgets(void)
{
    Course c;
    memset(&c, 0, sizeof c);
    char err[600];
    CHECK(lesson_load_dir(&c, FIXE, err, sizeof err) == 0 && c.n_problems == 0,
          "explain fixture loads: %s %s", err, c.n_problems ? c.problems[0].msg : "");
    if (c.n_lessons < 1 || c.lessons[0].broken) {
        lesson_free_course(&c);
        return;
    }
    QuizItem *it = calloc(1, sizeof *it);
    /* the worked page: Q, K, V as written in the fixture */
    const double Q[3][2] = {{1, 0}, {0, 1}, {1, 1}}, K[3][2] = {{1, 0}, {0, 2}, {2, -1}};
    const double V[3][2] = {{1, 0}, {0, 1}, {2, 3}};
    double a[3];
    hand_row(Q[0], K, 1, -1, a);
    if (!build(it, &c, "w-weight")) {
        CHECK_NEAR(it->number, a[1], 1e-5, "worked: weight 0 1 by hand");
        CHECK(strstr(it->prompt, "(d_k = 2)") != NULL, "{{x d_k}} in a prompt: %s", it->prompt);
        CHECK(strstr(it->context, "Q = [[1, 0], [0, 1], [1, 1]]") &&
              strstr(it->context, "mask none"), "worked setup line: %s", it->context);
    }
    if (!build(it, &c, "w-masked")) {
        CHECK(it->number == 0.0, "worked, state mask causal: key 2 after query 0 is 0 (%g)",
              it->number);
        CHECK(strstr(it->context, "mask causal") != NULL, "setup names the mask: %s",
              it->context);
    }
    hand_row(Q[1], K, 1, 1, a);
    if (!build(it, &c, "w-masked-row"))
        CHECK_NEAR(it->number, a[0], 1e-5, "worked, causal: weight 1 0 by hand");
    hand_row(Q[2], K, 0, -1, a);
    if (!build(it, &c, "w-noscale")) {
        CHECK_NEAR(it->number, a[1], 1e-5, "worked, state scale false: weight 2 1 by hand");
        CHECK(strstr(it->context, "off") != NULL, "setup says scaling off: %s", it->context);
    }
    hand_row(Q[2], K, 1, -1, a);
    if (!build(it, &c, "w-out"))
        CHECK_NEAR(it->number, a[0] * V[0][1] + a[1] * V[1][1] + a[2] * V[2][1], 1e-5,
                   "worked: output row 2 column 1 by hand");
    if (!build(it, &c, "w-dk"))
        CHECK(it->number == 2 && it->tol == 0, "compute x d_k: 2, exact (%g, tol %g)",
              it->number, it->tol);
    if (!build(it, &c, "w-cell")) {
        int best = a[1] > a[0] ? (a[2] > a[1] ? 2 : 1) : (a[2] > a[0] ? 2 : 0);
        CHECK(it->kind == QK_CELL && it->col == best, "worked cell: argmax %d, want %d",
              it->col, best);
        CHECK(it->grid_n == 3 && it->grid_m == 3 && !strcmp(it->grid_cols[1], "green") &&
              !strcmp(it->grid_rows[2], "blue"), "the grid is the worked weights with labels");
        for (int j = 0; j < 3 && it->grid_n == 3; j++)
            CHECK_NEAR(it->grid[2 * 3 + j], a[j], 1e-5, "worked grid row 2");
        CHECK(strstr(it->prompt, "blue") != NULL, "{{token 2}} is the label: %s", it->prompt);
    }
    if (!build(it, &c, "w-drill"))
        CHECK(strncmp(it->prompt, "By hand", 7) && strncmp(it->prompt, "The scores", 10) == 0,
              "no second \"by hand\" after the lead-in: %s", it->prompt);

    /* scaling: the page's d_k, and a state override */
    if (!build(it, &c, "s-default"))
        CHECK(it->number == 64, "scaling: the page's d_k (%g)", it->number);
    if (!build(it, &c, "s-dk")) {
        CHECK_NEAR(it->number, 16.0, 1e-6, "scaling, state d_k 256: sqrt is 16");
        CHECK(strstr(it->prompt, "d_k = 256") != NULL, "the prompt reads the state: %s",
              it->prompt);
        CHECK(strstr(it->context, "d_k = 256") != NULL, "setup: %s", it->context);
    }

    /* kvcache: "the cat sat on the mat ." is 7 tokens */
    if (!build(it, &c, "k-n"))
        CHECK(it->number == 7, "kvcache: x n (%g)", it->number);
    if (!build(it, &c, "k-step")) {
        CHECK(it->number == 5, "kvcache, state step 5: 5 rows cached (%g)", it->number);
        CHECK(strstr(it->prompt, "At step 5") != NULL, "prompt: %s", it->prompt);
    }
    if (!build(it, &c, "k-entries"))
        CHECK(it->number == 25, "kvcache step 5: the prefix run's weights are 5x5 (%g)",
              it->number);
    if (!build(it, &c, "k-cell")) {
        /* the first 4 tokens run on their own, layer 1 head 2, read directly */
        int pi, qi, src[64], n;
        find_q(&c, "k-cell", &pi, &qi);
        const Page *P = &c.lessons[0].pages[pi];
        const Model *m = lesson_model(&c, P);
        Widget w = P->widget;
        snprintf(w.start.sentence, sizeof w.start.sentence, "the cat sat on");
        w.kind = W_HEATMAP;
        Controls ctl;
        int tgt[4], mt;
        CHECK(widget_state(&w, m, &ctl, src, &n, tgt, &mt, 64, err, sizeof err) == 0 &&
              n == 4, "prefix tokens");
        Trace *t = trace_new(m, n, 1);
        CHECK(t && model_forward(m, src, n, tgt, mt, &ctl, t, err, sizeof err) == 0, "%s", err);
        const TraceEntry *e = t ? trace_find(t, STACK_DEC, 1, SUB_SELF, 2, T_WEIGHTS) : NULL;
        CHECK(e != NULL, "L1.h2 weights");
        if (e) {
            int best = 0;
            for (int j = 1; j < e->cols; j++)
                if (e->data[3 * e->cols + j] > e->data[3 * e->cols + best])
                    best = j;
            CHECK(it->col == best && it->grid_n == 4 && it->grid_m == 4,
                  "kvcache cell on the prefix run: %d want %d (grid %dx%d)", it->col, best,
                  it->grid_n, it->grid_m);
        }
        char want[80];
        snprintf(want, sizeof want, "layer 1 of %d, head 2 of %d", m->cfg.n_layers,
                 m->cfg.n_heads);
        CHECK(strstr(it->context, want) && strstr(it->context, "step 4 of 7"),
              "kvcache setup: %s", it->context);
        trace_free(t);
    }

    /* cost: N and N² */
    if (!build(it, &c, "c-default"))
        CHECK(it->number == 16, "cost: the page's N (%g)", it->number);
    if (!build(it, &c, "c-n")) {
        CHECK(it->number == 64.0 * 64.0, "cost, state n 64: 64² score entries (%g)",
              it->number);
        CHECK(strstr(it->prompt, "N = 64") != NULL, "prompt: %s", it->prompt);
    }

    /* params: d 8, 4 heads of 2, 2 KV heads, 1 layer, SwiGLU d_ff 16, vocab 10, RMSNorm,
     * no biases, no position table; counted here from the textbook formula */
    long long d = 8, h = 4, dh = 2, L = 1, F = 16, voc = 10;
    long long emb = voc * d, norms = (2 * L + 1) * d, ffn = L * 3 * d * F;
    long long attn_gqa = L * (d * h * dh + 2 * d * 2 * dh + h * dh * d);
    long long attn_mha = L * (d * h * dh + 2 * d * h * dh + h * dh * d);
    if (!build(it, &c, "p-total"))
        CHECK(it->number == (double)(emb + attn_gqa + ffn + norms + voc * d),
              "params with GQA, untied: %g", it->number);
    if (!build(it, &c, "p-tied"))
        CHECK(it->number == 0, "params, state tied: the LM head is free (%g)", it->number);
    if (!build(it, &c, "p-mha")) {
        CHECK(it->number == (double)(emb + attn_mha + ffn + norms + voc * d),
              "params, state gqa false: %g", it->number);
        CHECK(strstr(it->context, "grouped") == NULL, "setup without GQA: %s", it->context);
    }

    /* cell questions on long sentences: every column is in the grid */
    if (!build(it, &c, "long-cell")) {
        int pi, qi, src[64], n;
        find_q(&c, "long-cell", &pi, &qi);
        const Page *P = &c.lessons[0].pages[pi];
        const Model *m = lesson_model(&c, P);
        Trace *t = run_page(P, m, -1, -1, -1, NULL, 0, src, &n);
        const TraceEntry *e = t ? trace_find(t, STACK_DEC, 0, SUB_SELF, 0, T_WEIGHTS) : NULL;
        CHECK(e && n == 11, "11 tokens");
        if (e) {
            int best = 0;
            for (int j = 1; j < e->cols; j++)
                if (e->data[10 * e->cols + j] > e->data[10 * e->cols + best])
                    best = j;
            CHECK(it->col == best && it->grid_m == 11 && it->n_cols == 11,
                  "long sentence cell: %d want %d, %d columns", it->col, best, it->grid_m);
        }
        char want[240];
        snprintf(want, sizeof want, "Sentence \"she picked up the book that her teacher had "
                                    "recommended .\"; mask causal; PE %s; layer 0 of %d, "
                                    "head 0 of %d", model_pe_name(m->cfg.pe), m->cfg.n_layers,
                 m->cfg.n_heads);
        CHECK(!strcmp(it->context, want), "setup line: \"%s\" want \"%s\"", it->context, want);
        trace_free(t);
    }
    free(it);
    lesson_free_course(&c);
}

/* ---- the Setup line, the expected answer's precision, state keys (course authors'
 * reports) ---- */

#define FIXS "tests/fixtures/quiz-setup"
#define FIXB "tests/fixtures/quiz-broken"
#define FIXW "tests/fixtures/quiz-why"

/* Decimals printed in s (a plain number): -1 when s is not one. */
static int decimals(const char *s)
{
    char *end;
    strtod(s, &end);
    if (end == s || *end)
        return -1;
    const char *dot = strchr(s, '.');
    return dot ? (int)strlen(dot + 1) : 0;
}

static void test_setup_and_precision(void)
{
    /* the mask applied to the shown sublayer: the causal control reaches only an
     * encoder-decoder's decoder self-attention */
    Model *fake = calloc(1, sizeof *fake);
    fake->cfg.arch = ARCH_ENCDEC;
    CHECK(!strcmp(names_sublayer_mask(fake, STACK_ENC, SUB_SELF, 1, 0), "none"),
          "encoder self-attention: no causal mask");
    CHECK(!strcmp(names_sublayer_mask(fake, STACK_DEC, SUB_CROSS, 1, 1), "padding"),
          "cross-attention: padding only");
    CHECK(!strcmp(names_sublayer_mask(fake, STACK_DEC, SUB_SELF, 1, 1), "both"),
          "decoder self-attention: causal and padding");
    fake->cfg.arch = ARCH_ENCODER;
    CHECK(!strcmp(names_sublayer_mask(fake, STACK_ENC, SUB_SELF, 1, 0), "causal"),
          "an encoder-only model runs the causal mask when it is on");
    CHECK(!strcmp(names_sublayer_mask(NULL, STACK_DEC, SUB_SELF, 1, 0), "causal"),
          "a worked example (no model)");
    free(fake);

    Course c;
    memset(&c, 0, sizeof c);
    char err[600] = "";
    CHECK(lesson_load_dir(&c, FIXS, err, sizeof err) == 0 && c.n_problems == 0,
          "setup fixture loads: %s %s", err, c.n_problems ? c.problems[0].msg : "");
    CHECK(lesson_check_placeholders(&c) == 0, "setup fixture placeholders: %s",
          c.n_problems ? c.problems[0].msg : "");
    if (c.n_lessons < 1 || c.lessons[0].broken) {
        lesson_free_course(&c);
        return;
    }
    QuizItem *it = calloc(1, sizeof *it);
    /* 1. translate.json (causal on by default): encoder and cross-attention questions say
     * no causal mask, as the player's status line does; the decoder-only page says causal */
    if (!build(it, &c, "enc-cell"))
        CHECK(strstr(it->context, "; mask none;") && !strstr(it->context, "causal"),
              "encoder setup: %s", it->context);
    if (!build(it, &c, "cross-cell")) {
        CHECK(strstr(it->context, "; mask none;") && strstr(it->context, "cross-attention") &&
              !strstr(it->context, "causal"), "cross-attention setup: %s", it->context);
        CHECK(strstr(it->prompt, "Mask padding:") != NULL,
              "{{mask}} on cross-attention: padding only, as the player says: %s", it->prompt);
    }
    if (!build(it, &c, "cross-weight"))
        CHECK(strstr(it->context, "; mask none;") != NULL, "cross number setup: %s",
              it->context);
    if (!build(it, &c, "dec-cell"))
        CHECK(strstr(it->context, "; mask causal;") != NULL, "decoder setup: %s", it->context);

    /* 2. the params Setup line reads well whatever the configuration's name */
    if (!build(it, &c, "p-named"))
        CHECK(!strcmp(it->context, "Configuration: \"the exercise\" (d_model 2560, 36 layers, "
                                   "32 heads); embeddings tied"),
              "named configuration: %s", it->context);
    if (!build(it, &c, "p-gqa"))
        CHECK(!strcmp(it->context, "Configuration: \"tiny\" (d_model 8, 1 layer, 4 heads, "
                                   "grouped-query attention with 2 KV heads); embeddings not "
                                   "tied"), "GQA configuration: %s", it->context);

    /* 4. the expected answer with the precision the question implies: the placeholder's .N,
     * else the tolerance's decimals (0.005 -> 2, 0.05 -> 1, 0.001 -> 3), exact answers as
     * they are; the shown answer, typed back, is right */
    static const struct {
        const char *id;
        int dec;
    } want[] = {{"prec-2", 2}, {"prec-1", 1}, {"prec-3", 3}, {"tol-default", 2},
                {"tol-05", 1}, {"tol-001", 3}, {"tol-big", 0}, {"exact", 2},
                {"p-named", 2}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (build(it, &c, want[i].id))
            continue;
        CHECK(decimals(it->answer) == want[i].dec, "%s: \"%s\" has %d decimals, want %d",
              want[i].id, it->answer, decimals(it->answer), want[i].dec);
        char msg[300];
        CHECK(quiz_check(it, it->answer, msg, sizeof msg) == QV_RIGHT,
              "%s: the expected answer \"%s\" is judged right (%s)", want[i].id, it->answer,
              msg);
    }
    if (!build(it, &c, "tol-big"))
        CHECK(!strcmp(it->answer, "2658"), "within 26: %s", it->answer);
    if (!build(it, &c, "exact"))
        CHECK(!strcmp(it->answer, "0.25"), "exact: %s", it->answer);
    /* the softmax drill asks for two decimals */
    QuizItem *d = calloc(1, sizeof *d);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        CHECK(quiz_drill(d, "softmax", &c, seed, err, sizeof err) == 0, "%s", err);
        CHECK(decimals(d->answer) == 2 || decimals(d->answer) == 0,
              "softmax drill answer \"%s\": two decimals", d->answer);
    }
    free(d);
    free(it);
    lesson_free_course(&c);
}

/* The 1-based line and column of needle's first occurrence in file, or 0. */
static int locate(const char *file, const char *needle, int *line, int *col)
{
    FILE *f = fopen(file, "rb");
    if (!f)
        return 0;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *hit = strstr(buf, needle);
    if (!hit)
        return 0;
    *line = 1;
    const char *ls = buf;
    for (const char *p = buf; p < hit; p++)
        if (*p == '\n') {
            (*line)++;
            ls = p + 1;
        }
    *col = (int)(hit - ls) + 1;
    return 1;
}

/* 5. check-lessons reports question state keys that do nothing on the page's widget kind,
 * at file:line:col, like start keys */
static void test_state_keys(void)
{
    Course c;
    memset(&c, 0, sizeof c);
    char err[600] = "";
    lesson_load_dir(&c, FIXB, err, sizeof err);
    lesson_check_placeholders(&c);
    const char *file = FIXB "/01-state-keys.json";
    static const struct {
        const char *needle, *path;
    } want[] = {
        {"\"d_k\": 16", "pages[0].questions[0].state.d_k: state key \"d_k\" does nothing"},
        {"\"layer\": 1", "pages[1].questions[0].state.layer: state key \"layer\" does nothing"},
        {"\"pe\": \"none\"", "pages[2].questions[0].state.pe: state key \"pe\" does nothing"},
    };
    CHECK(c.n_problems == 3, "three problems, the good state keys pass: %d", c.n_problems);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int line = 0, col = 0;
        CHECK(locate(file, want[i].needle, &line, &col), "fixture has %s", want[i].needle);
        char pos[300];
        snprintf(pos, sizeof pos, "%s:%d:%d: %s", file, line, col, want[i].path);
        int found = 0;
        for (int k = 0; k < c.n_problems; k++)
            found |= strstr(c.problems[k].msg, pos) != NULL;
        CHECK(found, "reported at file:line:col: %s (first problem: %s)", pos,
              c.n_problems ? c.problems[0].msg : "none");
    }
    int heat = 0;
    for (int k = 0; k < c.n_problems; k++)
        heat |= strstr(c.problems[k].msg, "on a heatmap page (it takes: mask pe scale layer "
                                          "head cross") != NULL;
    CHECK(heat, "the message lists what the kind takes");
    lesson_free_course(&c);
}

/* 6. a broken "why" is reported at the offending entry's file:line:col, and so is a bad
 * placeholder inside one */
static void test_why_positions(void)
{
    Course c;
    memset(&c, 0, sizeof c);
    char err[600] = "";
    lesson_load_dir(&c, FIXW, err, sizeof err);
    lesson_check_placeholders(&c);
    static const struct {
        const char *file, *needle, *path;
    } want[] = {
        {FIXW "/01-why.json", "[\"softmax is a function.\", null]",
         "pages[0].questions[1].why: 2 entries for 3 choices"},
        {FIXW "/01-why.json", "\"QKᵀ is wrong\"",
         "pages[0].questions[2].why[1]: choice 1 is the answer: its entry must be null"},
        {FIXW "/01-why.json", "7, null", "pages[0].questions[3].why[0]: must say why choice 0 "
         "is wrong"},
        {FIXW "/02-why-placeholder.json", "{{wieght", "pages[0].questions[1].why[0]: "
         "{{wieght 1 2}}: unknown placeholder"},
    };
    CHECK(c.n_problems == 4, "four problems, the good explanations pass: %d", c.n_problems);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int line = 0, col = 0;
        CHECK(locate(want[i].file, want[i].needle, &line, &col), "fixture has %s",
              want[i].needle);
        char pos[300];
        snprintf(pos, sizeof pos, "%s:%d:%d: %s", want[i].file, line, col, want[i].path);
        int found = 0;
        for (int k = 0; k < c.n_problems; k++)
            found |= strstr(c.problems[k].msg, pos) != NULL;
        CHECK(found, "reported at file:line:col: %s (first problem: %s)", pos,
              c.n_problems ? c.problems[0].msg : "none");
    }
    lesson_free_course(&c);
}

/* ---- the shipped course: every question can be built ---- */

static void test_shipped_course(void)
{
    Course c;
    memset(&c, 0, sizeof c);
    char err[600] = "";
    CHECK(lesson_load_dir(&c, "lessons", err, sizeof err) == 0, "lessons/ loads: %s", err);
    CHECK(c.n_lessons > 0, "the shipped course has lessons");
    QuizItem *it = calloc(1, sizeof *it);
    int total = 0, built = 0;
    for (int li = 0; li < c.n_lessons; li++) {
        const Lesson *L = &c.lessons[li];
        CHECK(!L->broken, "lesson %s loads: %s", L->file, L->error);
        for (int pi = 0; !L->broken && pi < L->n_pages; pi++)
            for (int qi = 0; qi < L->pages[pi].n_questions; qi++) {
                total++;
                int ok = 1;
                for (uint64_t seed = 1; seed <= 3 && ok; seed++) {
                    err[0] = 0;
                    ok = quiz_item_from_question(it, &c, li, pi, qi, seed, err, sizeof err) == 0;
                    CHECK(ok, "%s/%s (page %d, seed %llu) cannot be built: %s", L->id,
                          L->pages[pi].questions[qi].id, pi, (unsigned long long)seed, err);
                    CHECK(!ok || it->answer[0], "%s/%s has an answer to show", L->id,
                          L->pages[pi].questions[qi].id);
                    char msg[300];
                    if (ok && it->kind == QK_NUMBER && !strstr(it->answer, "essentially"))
                        CHECK(quiz_check(it, it->answer, msg, sizeof msg) == QV_RIGHT,
                              "%s/%s: the expected answer \"%s\" is judged right (%s)",
                              L->id, L->pages[pi].questions[qi].id, it->answer, msg);
                }
                built += ok;
            }
    }
    CHECK(total > 0 && built == total, "%d of %d shipped questions built", built, total);
    QuizSet s;
    CHECK(quiz_build(&s, &c, NULL, 0, 1, err, sizeof err) == 0, "%s", err);
    CHECK(s.n_skipped == 0 && s.n == total, "attend quiz --seed 1 leaves nothing out: %d of %d, "
          "%d skipped (%s)", s.n, total, s.n_skipped, s.skipped);
    quiz_set_free(&s);
    free(it);
    lesson_free_course(&c);
}

/* ---- choices shuffled per seed: each position right about equally often ---- */

/* The author's question behind a built item (by its key "lesson/question"). */
static const Question *question_of(const Course *c, const QuizItem *it)
{
    for (int li = 0; li < c->n_lessons; li++)
        for (int pi = 0; pi < c->lessons[li].n_pages; pi++)
            for (int qi = 0; qi < c->lessons[li].pages[pi].n_questions; qi++) {
                const Question *Q = &c->lessons[li].pages[pi].questions[qi];
                char key[200];
                snprintf(key, sizeof key, "%s/%s", c->lessons[li].id, Q->id);
                if (!strcmp(key, it->key))
                    return Q;
            }
    return NULL;
}

static void test_choice_spread(void)
{
    Course c;
    memset(&c, 0, sizeof c);
    char err[600] = "";
    CHECK(lesson_load_dir(&c, "lessons", err, sizeof err) == 0, "lessons/ loads: %s", err);
    int first_pos[2][64] = {{0}}, n_first = 0, differ = 0;
    for (uint64_t seed = 1; seed <= 12; seed++) {
        QuizSet s, again;
        CHECK(quiz_build(&s, &c, NULL, 0, seed, err, sizeof err) == 0, "%s", err);
        CHECK(quiz_build(&again, &c, NULL, 0, seed, err, sizeof err) == 0, "%s", err);
        int at[QUIZ_MAX_CHOICES] = {0}, n = 0;
        for (int i = 0; i < s.n; i++) {
            const QuizItem *it = &s.items[i];
            if ((it->kind != QK_CHOICE && it->kind != QK_MULTI) || it->drill[0])
                continue;
            const Question *Q = question_of(&c, it);
            CHECK(Q != NULL, "%s: its question is found", it->key);
            if (!Q)
                continue;
            /* the same choices, the same right ones, in some order; the same order again */
            int same_set = it->n_choices == Q->n_choices, right_kept = 1;
            for (int k = 0; k < it->n_choices; k++) {
                int found = -1;
                for (int j = 0; j < Q->n_choices; j++)
                    if (!strcmp(it->choices[k], Q->choices[j]))
                        found = j;
                same_set &= found >= 0;
                if (found >= 0)
                    right_kept &= !!(it->correct & (1u << k)) == !!(Q->correct & (1u << found));
            }
            CHECK(same_set && right_kept, "%s seed %llu: the author's choices, the right ones "
                  "still right", it->key, (unsigned long long)seed);
            for (int k = 0; k < it->n_choices; k++)
                for (int j = 0; j < Q->n_choices; j++)
                    if (!strcmp(it->choices[k], Q->choices[j]))
                        CHECK(!strcmp(it->why[k], Q->why[j]), "%s seed %llu: choice %d's why "
                              "is the author's for that choice", it->key,
                              (unsigned long long)seed, k + 1);
            CHECK(!memcmp(it->choices, again.items[i].choices, sizeof it->choices) &&
                  it->correct == again.items[i].correct, "%s: one seed, one order", it->key);
            if (it->kind != QK_CHOICE)
                continue;
            int pos = 0;
            while (!(it->correct & (1u << pos)))
                pos++;
            at[pos]++;
            if (seed <= 2 && n < 64)
                first_pos[seed - 1][n] = pos;
            n++;
        }
        if (seed == 1)
            n_first = n;
        CHECK(n >= 8, "the course has choice questions (%d)", n);
        for (int p = 0; p < 4 && n; p++) {
            double f = (double)at[p] / n;
            CHECK(f >= 0.15 && f <= 0.35, "seed %llu: the right answer is choice %d in %.0f%% "
                  "of %d choice questions (wanted 15-35%%)", (unsigned long long)seed, p + 1,
                  100 * f, n);
        }
        quiz_set_free(&s);
        quiz_set_free(&again);
    }
    for (int i = 0; i < n_first && i < 64; i++)
        differ += first_pos[0][i] != first_pos[1][i];
    CHECK(differ * 4 >= n_first, "seeds 1 and 2 put the right answer elsewhere in %d of %d "
          "questions", differ, n_first);
    lesson_free_course(&c);
}

static void test_rng(void)
{
    QuizRng a, b;
    quiz_rng_seed(&a, 1);
    quiz_rng_seed(&b, 1);
    int same = 1;
    for (int i = 0; i < 100; i++)
        same &= quiz_rng_next(&a) == quiz_rng_next(&b);
    CHECK(same, "same seed, same stream");
    quiz_rng_seed(&b, 2);
    CHECK(quiz_rng_next(&a) != quiz_rng_next(&b), "seeds 1 and 2 differ");
    int counts[5] = {0};
    for (int i = 0; i < 5000; i++) {
        int v = quiz_rng_range(&a, -2, 2);
        CHECK(v >= -2 && v <= 2, "in range");
        counts[v + 2]++;
    }
    for (int i = 0; i < 5; i++)
        CHECK(counts[i] > 800 && counts[i] < 1200, "roughly uniform: %d", counts[i]);
    CHECK(quiz_hash("a/b", 1) == quiz_hash("a/b", 1) && quiz_hash("a/b", 1) != quiz_hash("a/c", 1),
          "hash");
}

int main(void)
{
    test_choice();
    test_multi();
    test_number();
    test_shape();
    test_cell_text();
    test_hints();
    test_schema();
    test_computed();
    test_drills();
    test_build();
    test_schedule();
    test_rng();
    test_explain_widgets();
    test_setup_and_precision();
    test_state_keys();
    test_why_positions();
    test_shipped_course();
    test_choice_spread();
    return t_done("quiz");
}
