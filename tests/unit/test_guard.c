/* test_guard.c - the lesson language around the values (issue 10): {{if}}/{{elif}}/{{else}}/
 * {{end}}, {{assert}}, conditions, argtoken/max/ties, out-of-range reads as absent, the syntax
 * check's messages and offsets, and check-lessons' file:line:col for a bad condition. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lesson.h"
#include "lesson_check.h"
#include "model.h"
#include "placeholder.h"
#include "t.h"

static char out[4096];

/* Expands s on ctx; returns the number of failures (out holds the text). */
static int ex(const PlaceholderCtx *ctx, const char *s)
{
    char err[400];
    return placeholder_expand(s, ctx, out, sizeof out, err, sizeof err);
}

static void test_blocks(const PlaceholderCtx *ctx, const Trace *t, const Model *m)
{
    /* the row 2 argmax of the trace the ctx reads, computed here independently */
    const TraceEntry *w = trace_find_name(t, "L1.h2.weights");
    CHECK(w != NULL, "weights traced");
    if (!w)
        return;
    int best = 0;
    for (int j = 1; j < w->cols; j++)
        if (w->data[2 * w->cols + j] > w->data[2 * w->cols + best])
            best = j;
    char want[256];
    snprintf(want, sizeof want, "%d", best);
    CHECK(ex(ctx, "{{argmax 2}}") == 0 && !strcmp(out, want), "argmax: %s", out);
    snprintf(want, sizeof want, "%s", vocab_word(&m->vocab, t->src[best]));
    CHECK(ex(ctx, "{{argtoken 2}}") == 0 && !strcmp(out, want), "argtoken: %s want %s", out,
          want);
    CHECK(ex(ctx, "{{max 2 .4}}") == 0 && atof(out) > 0.0, "max: %s", out);
    CHECK(ex(ctx, "{{ties 2}}") == 0 && atoi(out) >= 1, "ties: %s", out);
    /* row 0 of a causal decoder reads only itself: one cell at 1.00, no tie */
    CHECK(ex(ctx, "{{ties 0}}") == 0 && !strcmp(out, "1"), "ties 0: %s", out);

    /* if / elif / else / end */
    CHECK(ex(ctx, "a{{if n == 6}}B{{else}}C{{end}}d") == 0 && !strcmp(out, "aBd"), "if: %s", out);
    CHECK(ex(ctx, "a{{if n != 6}}B{{else}}C{{end}}d") == 0 && !strcmp(out, "aCd"), "else: %s",
          out);
    CHECK(ex(ctx, "{{if n < 3}}1{{elif n <= 6}}2{{elif n > 0}}3{{else}}4{{end}}") == 0 &&
          !strcmp(out, "2"), "first elif that holds: %s", out);
    CHECK(ex(ctx, "{{if n > 3}}x{{if token 1 == 'cat'}}y{{else}}z{{end}}w{{end}}") == 0 &&
          !strcmp(out, "xyw"), "nested: %s", out);
    CHECK(ex(ctx, "{{if token 1 == \"cat\" and token 2 == 'sat'}}ok{{end}}") == 0 &&
          !strcmp(out, "ok"), "and, both quotes: %s", out);
    CHECK(ex(ctx, "{{if n == 1 or n == 6 and token 0 == 'the'}}ok{{end}}") == 0 &&
          !strcmp(out, "ok"), "and binds before or: %s", out);
    CHECK(ex(ctx, "{{if not n == 6}}no{{else}}yes{{end}}") == 0 && !strcmp(out, "yes"),
          "not: %s", out);
    CHECK(ex(ctx, "{{if mask == 'causal'}}c{{end}}") == 0 && !strcmp(out, "c"), "text: %s", out);
    snprintf(want, sizeof want, "{{if argmax 2 == %d}}y{{end}}", best);
    CHECK(ex(ctx, want) == 0 && !strcmp(out, "y"), "argmax compared: %s", out);
    /* comparison at the printed precision: weight 1 3 is masked (0.00), weight 0 0 is 1.00 */
    CHECK(ex(ctx, "{{if weight 1 3 == 0}}z{{end}}{{if weight 0 0 >= 1}}o{{end}}") == 0 &&
          !strcmp(out, "zo"), "numbers as printed: %s", out);
    CHECK(ex(ctx, "{{if score 1 3 < -1000}}m{{end}}") == 0 && !strcmp(out, "m"),
          "-inf compares: %s", out);

    /* out of range: false in a condition (any operator), an error outside one */
    CHECK(ex(ctx, "{{if token 9 == 'the'}}a{{elif token 9 != 'the'}}b{{else}}c{{end}}") == 0 &&
          !strcmp(out, "c"), "absent is false: %s", out);
    CHECK(ex(ctx, "{{if n > 9}}{{token 9}}{{else}}short{{end}}") == 0 && !strcmp(out, "short"),
          "a branch not shown is not evaluated: %s", out);
    CHECK(ex(ctx, "x {{token 9}}") == 1 && strstr(out, "[?token 9]"), "still an error: %s", out);
    CHECK(ex(ctx, "{{if weight 9 9 > 0}}a{{end}}") == 0 && !strcmp(out, ""), "row 9: %s", out);

    /* assert */
    CHECK(ex(ctx, "a{{assert n == 6}}b") == 0 && !strcmp(out, "ab"), "assert holds: %s", out);
    char err[400];
    int bad = placeholder_expand("a{{assert n == 5}}b", ctx, out, sizeof out, err, sizeof err);
    CHECK(bad == 1 && !strcmp(out, "a[?assert n == 5]b"), "assert fails in place: %s", out);
    CHECK(strstr(err, "does not hold") && strstr(err, "n is 6"), "says why: %s", err);
    CHECK(ex(ctx, "{{if n == 5}}{{assert n == 5}}{{end}}") == 0, "an assert not shown");

    /* runtime errors in conditions */
    CHECK(ex(ctx, "{{if token 1 < 'dog'}}a{{end}}") == 1 && strstr(out, "[?if"),
          "< on words: %s", out);
    CHECK(ex(ctx, "{{if bogus 1 == 2}}a{{end}}") == 1, "unknown name");
    CHECK(ex(ctx, "{{else}}") == 1 && strstr(out, "[?else]"), "else alone: %s", out);
    CHECK(ex(ctx, "{{if n == 6}}a") == 1 && strstr(out, "[?end]"), "no end: %s", out);
    CHECK(ex(ctx, "{{end}}") == 1, "end alone");

    /* failures carry their offsets */
    PlaceholderFail f[4];
    int n = 0;
    placeholder_expand_fails("ok {{token 9}} and {{assert n == 1}}", ctx, out, sizeof out, f, 4,
                             &n);
    CHECK(n == 2 && f[0].off == 3 && f[1].off == 19, "offsets: %d %zu %zu", n, f[0].off,
          f[1].off);

    /* placeholder_condition */
    int truth = -1;
    CHECK(placeholder_condition("n == 6", ctx, &truth, err, sizeof err) == 0 && truth == 1,
          "condition: %s", err);
    CHECK(placeholder_condition("n ==", ctx, &truth, err, sizeof err) == -1, "bad condition");
}

/* The run-free check: the first problem with its offset. */
static void want_syntax(const char *s, size_t off, const char *msg)
{
    PlaceholderFail f;
    int rc = placeholder_syntax(s, &f);
    CHECK(rc == -1 && f.off == off && strstr(f.msg, msg), "syntax of \"%s\": rc %d off %zu %s",
          s, rc, rc ? f.off : 0, rc ? f.msg : "");
}

static void test_syntax(void)
{
    PlaceholderFail f;
    CHECK(placeholder_syntax("a {{if n > 1 and token 2 != 'x'}}b{{elif not n == 2}}c{{else}}d"
                             "{{end}} {{assert weight 1 0 .3 <= 1}} {{x step}}", &f) == 0,
          "good: %s", f.msg);
    want_syntax("ab{{if n}}x{{end}}", 2, "needs a comparison");
    want_syntax("{{if}}x{{end}}", 0, "needs a condition");
    want_syntax("x {{else}}", 2, "without {{if}}");
    want_syntax("x {{end}}", 2, "without {{if}}");
    want_syntax("{{if n > 1}}a{{else}}b{{elif n > 2}}c{{end}}", 22, "after {{else}}");
    want_syntax("{{if n > 1}}a", 0, "without {{end}}");
    want_syntax("{{if n > 1 and}}a{{end}}", 0, "and/or");
    want_syntax("{{if and n > 1}}a{{end}}", 0, "must join");
    want_syntax("{{if n > > 1}}a{{end}}", 0, "two comparisons");
    want_syntax("{{if == 1}}a{{end}}", 0, "nothing before");
    want_syntax("{{if n == 1 2 == 2}}a{{end}}", 0, "two comparisons");
    want_syntax("{{if token 1 == 'cat}}a{{end}}", 0, "unclosed quote");
    want_syntax("{{if bogus 1 == 2}}a{{end}}", 0, "unknown placeholder");
    want_syntax("{{if n == 2}}{{weight 1}}{{end}}", 13, "takes 2 arguments");
    want_syntax("{{else x}}", 0, "takes nothing");
    want_syntax("ok {{n", 3, "without a closing");
}

/* check-lessons reports a bad condition at the file:line:col of its "{{". */
static void test_check_position(void)
{
    char dir[] = "/tmp/attend-guard-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    char path[256], err[512];
    snprintf(path, sizeof path, "%s/01-g.json", dir);
    FILE *fp = fopen(path, "w");
    if (!fp) {
        CHECK(0, "fopen");
        return;
    }
    fprintf(fp, "{\"id\": \"g\", \"title\": \"G\", \"pages\": [\n"
                "  {\"title\": \"P\",\n"
                "   \"prose\": \"A \\\"quoted\\\" word, then {{if n >}}x{{end}}\",\n"
                "   \"widget\": {\"kind\": \"heatmap\", \"sentence\": \"the cat\"}},\n"
                "  {\"title\": \"Q\", \"prose\": \"{{assert n == 3}}\",\n"
                "   \"widget\": {\"kind\": \"heatmap\", \"sentence\": \"the cat\"}}\n"
                "]}\n");
    fclose(fp);
    Course c;
    setenv("ATTEND_DATA", ".", 1);
    CHECK(lesson_load_dir(&c, dir, err, sizeof err) == 0, "load: %s", err);
    int n = lesson_check_placeholders(&c);
    CHECK(n == 2, "two problems: %d", n);
    /* line 3, column of the "{{": the escaped quotes before it count as two bytes each */
    const char *col = "   \"prose\": \"A \\\"quoted\\\" word, then ";
    char want[128];
    snprintf(want, sizeof want, "01-g.json:3:%d: pages[0].prose: {{if n >}}:", (int)strlen(col) + 1);
    CHECK(n >= 1 && strstr(c.problems[0].msg, want), "position: %s (want %s)", c.problems[0].msg,
          want);
    CHECK(n >= 2 && strstr(c.problems[1].msg, "01-g.json:5:") &&
          strstr(c.problems[1].msg, "does not hold: n is 2"), "assert: %s", c.problems[1].msg);
    lesson_free_course(&c);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    Model m;
    char err[512];
    test_syntax();
    test_check_position();
    if (model_load(&m, "data/decoder.json", err, sizeof err)) {
        CHECK(0, "model: %s", err);
        return t_done("guard");
    }
    int ids[16];
    TokenizeInfo info;
    int n = vocab_tokenize(&m.vocab, "the cat sat on the mat", ids, 16, &info);
    Controls ctl;
    model_default_controls(&m, &ctl);
    ctl.causal = 1;
    ctl.padding = 0;
    Trace *t = trace_new(&m, n, 1), *a = trace_new(&m, n, 1), *b = trace_new(&m, n, 1);
    CHECK(model_forward(&m, ids, n, NULL, 0, &ctl, t, err, sizeof err) == 0, "%s", err);
    PlaceholderCtx ctx = {&m, t, a, b, 1, 2, 0, 1, NULL, NULL, 0, 0};
    test_blocks(&ctx, t, &m);
    trace_free(t);
    trace_free(a);
    trace_free(b);
    model_free(&m);
    return t_done("guard");
}
