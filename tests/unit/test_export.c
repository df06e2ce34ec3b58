/* test_export.c - the export writers without a terminal: file names that say what a figure
 * is, export_write_current never overwriting (NAME, NAME-2, ...) and leaving nothing behind
 * on failure, XML escaping, CSV labels and values, worked traces, name tables. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "handout_print.h"
#include "t.h"

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* Writes through export_write into a string (caller frees). */
static char *to_string(const ExportView *v, ExportWhat what, ExportFormat fmt, int *rc)
{
    char *s = NULL, err[300];
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    *rc = export_write(f, v, what, fmt, err, sizeof err);
    fclose(f);
    return s;
}

static void test_names(void)
{
    for (int i = 0; i < EXPORT__FORMATS; i++)
        CHECK(export_format_parse(export_format_name((ExportFormat)i)) == i, "format %d", i);
    for (int i = 0; i < EXPORT__WHATS; i++)
        CHECK(export_what_parse(export_what_name((ExportWhat)i)) == i, "what %d", i);
    CHECK(export_format_parse("png") == -1, "png is not a format");
    CHECK(export_what_parse("Heatmap") == -1, "names are case-sensitive");
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    export_xml_escape(f, "a<b & \"c\" 'd'>\x01");
    fclose(f);
    CHECK(!strcmp(s, "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt; "), "escaped: %s", s);
    free(s);
}

static void test_run(const Model *m)
{
    int ids[16], n = vocab_tokenize(&m->vocab, "The cat sat", ids, 16, NULL);
    Controls ctl;
    model_default_controls(m, &ctl);
    Trace *t = trace_new(m, n, 1);
    char err[300];
    CHECK(t && model_forward(m, ids, n, NULL, 0, &ctl, t, err, sizeof err) == 0, "forward");
    if (!t)
        return;
    ExportView v;
    memset(&v, 0, sizeof v);
    v.model = m, v.trace = t, v.layer = 0, v.head = 1, v.equiv = -1.0f;
    char name[160];
    export_file_name(&v, EXPORT_HEATMAP, EXPORT_SVG, name, sizeof name);
    CHECK(!strcmp(name, "heatmap-L0-h1-the-cat-sat.svg"), "name %s", name);
    export_file_name(&v, EXPORT_HEADS, EXPORT_CSV, name, sizeof name);
    CHECK(!strcmp(name, "heads-L0-the-cat-sat.csv"), "name %s", name);

    { /* a long sentence: the name is cut at whole characters, never past its buffer */
        int ids2[64], n2 = vocab_tokenize(&m->vocab, "the cat sat on the mat . the dog chased "
                                          "the cat on the mat", ids2, 64, NULL);
        Trace *t2 = trace_new(m, n2, 1);
        if (t2 && model_forward(m, ids2, n2, NULL, 0, &ctl, t2, err, sizeof err) == 0) {
            ExportView v2 = v;
            v2.trace = t2;
            export_file_name(&v2, EXPORT_PASSPORT, EXPORT_CSV, name, sizeof name);
            size_t len = strlen(name);
            CHECK(!strncmp(name, "passport-L0-h1-the-cat-sat-on-the-mat-the-dog", 45) &&
                  len < 80 && !strcmp(name + len - 4, ".csv") && !strstr(name, "--"),
                  "long name %s", name);
        } else
            CHECK(0, "long sentence: %s", err);
        trace_free(t2);
    }

    char dir[] = "/tmp/attend-export-XXXXXX", p1[512], p2[512], p3[512];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    CHECK(export_write_current(&v, EXPORT_HEATMAP, EXPORT_SVG, dir, p1, sizeof p1, err,
                               sizeof err) == 0, "first export: %s", err);
    char *first = strdup(slurp(p1) ? slurp(p1) : "");
    CHECK(strstr(p1, "/heatmap-L0-h1-the-cat-sat.svg") != NULL, "path %s", p1);
    CHECK(export_write_current(&v, EXPORT_HEATMAP, EXPORT_SVG, dir, p2, sizeof p2, err,
                               sizeof err) == 0, "second export: %s", err);
    CHECK(strstr(p2, "/heatmap-L0-h1-the-cat-sat-2.svg") != NULL, "path %s", p2);
    /* a symlink planted at the next name is skipped, never written through */
    char planted[600], victim[600];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    FILE *vf = fopen(victim, "w");
    if (vf) {
        fputs("precious", vf);
        fclose(vf);
    }
    snprintf(planted, sizeof planted, "%s/heatmap-L0-h1-the-cat-sat-3.svg", dir);
    CHECK(symlink(victim, planted) == 0, "planted %s", planted);
    CHECK(export_write_current(&v, EXPORT_HEATMAP, EXPORT_SVG, dir, p3, sizeof p3, err,
                               sizeof err) == 0 && strstr(p3, "-4.svg"), "third: %s", p3);
    CHECK(slurp(victim) && !strcmp(slurp(victim), "precious"), "the link's target untouched");
    unlink(planted);
    unlink(victim);
    CHECK(slurp(p1) && !strcmp(slurp(p1), first), "the first file is unchanged");
    CHECK(strstr(first, "<svg") && strstr(first, "cat"), "an SVG with the tokens");
    free(first);
    v.layer = 99; /* no such layer: an error, and no file left behind */
    int before = count_files(dir);
    CHECK(export_write_current(&v, EXPORT_HEATMAP, EXPORT_SVG, dir, p1, sizeof p1, err,
                               sizeof err) == -1 && strstr(err, "layer 99"), "bad layer: %s", err);
    CHECK(count_files(dir) == before, "nothing left behind (%d files)", count_files(dir));
    v.layer = 0;
    CHECK(export_write_current(&v, EXPORT_HEATMAP, EXPORT_SVG, "/nonexistent/dir", p1,
                               sizeof p1, err, sizeof err) == -1 && strstr(err, "/nonexistent"),
          "a missing directory is named: %s", err);

    int rc;
    char *csv = to_string(&v, EXPORT_HEATMAP, EXPORT_CSV, &rc);
    CHECK(rc == 0 && !strncmp(csv, "query\\key,the,cat,sat\nthe,1,0,0\n", 31), "csv: %.60s", csv);
    const TraceEntry *w = trace_find(t, STACK_DEC, 0, SUB_SELF, 1, T_WEIGHTS);
    char want[64];
    snprintf(want, sizeof want, "\ncat,%.9g,%.9g,0\n", (double)w->data[3], (double)w->data[4]);
    CHECK(w && strstr(csv, want), "row cat at full precision: %s", want);
    free(csv);
    char *json = to_string(&v, EXPORT_HEATMAP, EXPORT_JSON, &rc);
    CHECK(rc == 0 && strstr(json, "\"tokens\":[\"the\",\"cat\",\"sat\"]"), "json tokens");
    free(json);
    char *svg = to_string(&v, EXPORT_CHIPS, EXPORT_SVG, &rc);
    CHECK(rc == 0 && strstr(svg, "equivariance not computed"), "chips without a gap say so");
    free(svg);
    rmdir(dir); /* may fail: files inside; the test leaves them in /tmp */
    trace_free(t);
}

static void test_worked(void)
{
    float q[4] = {1, 0, 0, 1}, k[4] = {1, 0, 0, 1}, v[4] = {1, 2, 3, 4};
    Trace *t = model_worked(q, k, v, 2, 2, 2, 2, 1, 1);
    CHECK(t != NULL, "worked trace");
    if (!t)
        return;
    ExportView ev;
    memset(&ev, 0, sizeof ev);
    const char labels[2][16] = {"alpha", "b<c"};
    ev.trace = t, ev.labels = labels, ev.n_labels = 2, ev.equiv = -1.0f;
    int rc;
    char *svg = to_string(&ev, EXPORT_HEATMAP, EXPORT_SVG, &rc);
    CHECK(rc == 0 && strstr(svg, "worked example") && strstr(svg, "b&lt;c") &&
          !strstr(svg, "b<c"), "worked heatmap, labels escaped");
    CHECK(svg && strstr(svg, "data-masked=\"1\""), "the causal cell is marked masked");
    free(svg);
    char *json = to_string(&ev, EXPORT_HEATMAP, EXPORT_JSON, &rc);
    CHECK(rc == -1, "JSON needs a model");
    free(json);
    const char *head, *why;
    export_chips_verdict(t, 0.0f, &head, &why);
    CHECK(!strcmp(head, "outputs match permutation") && strstr(why, "original order"),
          "verdict %s / %s", head, why);
    trace_free(t);
}

/* The handout's prose for print: key instructions out, the facts kept. */
static void test_print_prose(void)
{
    static const struct {
        const char *in, *want;
        int took;
    } C[] = {
        {"Row 1 gives 0.04. Press m: the mask hides it. The shortcut is gone.", "Row 1 gives 0.04.", 1},
        {"The score is now −∞; press v to see the whole column.", "The score is now −∞.", 1},
        {"Run it live: lesson 19, \"The cheating experiment\" (g: lessons).",
         "Run it live: lesson 19, \"The cheating experiment\".", 1},
        {"The page opens in scores mode (v flips to weights). Query 1: 0.50.",
         "The page opens in scores mode. Query 1: 0.50.", 1},
        {"Press n to step. The 7 tokens enter as X, 7×48.", "The 7 tokens enter as X, 7×48.", 1},
        {"Press t to open each piece:\nL0 is Q·Kᵀ.\n\nNext.", "L0 is Q·Kᵀ.\n\nNext.", 1},
        {"Q comes from the decoder, 4×16 (mask: causal).", "Q comes from the decoder, 4×16 (mask: causal).", 0},
        {"p cycles: rotary adds no table.\n\nA head forms.", "A head forms.", 1},
        {"Press m.\n\nAll kept 0.5.", "All kept 0.5.", 1},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        char out[400];
        int took = handout_print_prose(C[i].in, out, sizeof out);
        CHECK(!strcmp(out, C[i].want) && took == C[i].took, "print prose %zu: \"%s\" gives "
              "\"%s\" (%d), want \"%s\" (%d)", i, C[i].in, out, took, C[i].want, C[i].took);
    }
    char small[8];
    handout_print_prose("Press m to see. Row 1 gives 0.04.", small, sizeof small);
    CHECK(strlen(small) < sizeof small, "a small buffer is cut, terminated");
}

int main(void)
{
    test_print_prose();
    Model m;
    char err[600];
    test_names();
    if (model_load(&m, "data/decoder.json", err, sizeof err) == 0) {
        test_run(&m);
        model_free(&m);
    } else
        CHECK(0, "load data/decoder.json: %s", err);
    test_worked();
    return t_done("test_export");
}
