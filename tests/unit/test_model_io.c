/* test_model_io.c - bad model files are refused with a message naming the file and the key
 * (or line:col for JSON syntax), and never leave a half-loaded model; weights decoded in the
 * file's own buffer are the weights saved, in any order and form. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "model.h"
#include "t.h"

static char dir[64];

/* A small valid model as JSON text, made by the engine's own save. */
static char *valid_text(void)
{
    ModelConfig c;
    model_config_defaults(&c);
    c.vocab_size = 4; c.d_model = 4; c.n_heads = 2; c.d_head = 2; c.n_layers = 1; c.d_ff = 4;
    c.max_len = 4;
    const char *w[] = {"<pad>", "<unk>", "cat", "sat"};
    Vocab v;
    char err[256];
    vocab_init(&v, w, 4, err, sizeof err);
    Model m;
    model_new(&m, &c, &v, err, sizeof err);
    model_init_random(&m, 1);
    char path[128];
    snprintf(path, sizeof path, "%s/valid.json", dir);
    m.save_arrays = 1; /* number arrays: easy to break on purpose below */
    model_save(&m, path, err, sizeof err);
    m.save_arrays = 0;
    char ppath[128];
    snprintf(ppath, sizeof ppath, "%s/packed.json", dir);
    model_save(&m, ppath, err, sizeof err);
    model_free(&m);
    FILE *f = fopen(path, "r");
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* Replaces the first occurrence of a with b in s (into a new buffer). */
static char *replace(const char *s, const char *a, const char *b)
{
    const char *p = strstr(s, a);
    if (!p) {
        fprintf(stderr, "fixture: \"%s\" not found\n", a);
        return strdup(s);
    }
    size_t la = strlen(a), lb = strlen(b), ls = strlen(s);
    char *o = malloc(ls - la + lb + 1);
    memcpy(o, s, (size_t)(p - s));
    memcpy(o + (p - s), b, lb);
    strcpy(o + (p - s) + lb, p + la);
    return o;
}

/* Loads text from a file and expects failure with every needle in the message. */
static void expect_fail(const char *name, const char *text, const char *n1, const char *n2)
{
    char path[128], err[1024];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    write_file(path, text);
    Model m;
    memset(&m, 0x5a, sizeof m);
    int rc = model_load(&m, path, err, sizeof err);
    CHECK(rc == -1, "%s: load should fail", name);
    CHECK(strstr(err, path) != NULL, "%s: message names the file: %s", name, err);
    CHECK(!n1 || strstr(err, n1), "%s: message has \"%s\": %s", name, n1, err);
    CHECK(!n2 || strstr(err, n2), "%s: message has \"%s\": %s", name, n2, err);
    CHECK(m.data == NULL && m.params == NULL && m.n_floats == 0, "%s: nothing half-loaded", name);
}

/* Number of entries of dir whose name starts with prefix. */
static int count_prefix(const char *d, const char *prefix)
{
    DIR *dd = opendir(d);
    int k = 0;
    for (struct dirent *e; dd && (e = readdir(dd));)
        k += !strncmp(e->d_name, prefix, strlen(prefix));
    if (dd)
        closedir(dd);
    return k;
}

/* issue 11: non-regular files, no writing through links, file-size limits, size limits,
 * words with spaces, shapes that do not fit an int. */
static void test_hardening(const char *ok)
{
    char path[256], err[1024];
    Model m;
    /* Only regular files are read: a device, a FIFO and a directory each get a message naming
     * the path and the problem, without blocking or reading forever. */
    CHECK(model_load(&m, "/dev/zero", err, sizeof err) == -1 && strstr(err, "/dev/zero") &&
          strstr(err, "character device") && strstr(err, "regular file"), "/dev/zero: %s", err);
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0, "fifo made");
    CHECK(model_load(&m, path, err, sizeof err) == -1 && strstr(err, path) && strstr(err, "FIFO"),
          "fifo: %s", err);
    CHECK(model_load(&m, dir, err, sizeof err) == -1 && strstr(err, dir) &&
          strstr(err, "a directory"), "directory: %s", err);
    /* A syntax error never quotes the file. */
    snprintf(path, sizeof path, "%s/secret.json", dir);
    write_file(path, "hunter2-password\n");
    CHECK(model_load(&m, path, err, sizeof err) == -1 && strstr(err, ":1:1:") &&
          !strstr(err, "hunter"), "no file contents in the message: %s", err);

    /* model_save never writes through a link planted at the old predictable temp name. */
    ModelConfig c;
    model_config_defaults(&c);
    c.vocab_size = 4; c.d_model = 4; c.n_heads = 2; c.d_head = 2; c.n_layers = 1; c.d_ff = 4;
    c.max_len = 4;
    const char *w[] = {"<pad>", "<unk>", "cat", "sat"};
    Vocab v;
    CHECK(vocab_init(&v, w, 4, err, sizeof err) == 0, "%s", err);
    CHECK(model_new(&m, &c, &v, err, sizeof err) == 0, "%s", err);
    char out[256], victim[256], link[300];
    snprintf(out, sizeof out, "%s/out.json", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    write_file(victim, "precious");
    snprintf(link, sizeof link, "%s.tmp.%ld", out, (long)getpid());
    CHECK(symlink(victim, link) == 0, "planted");
    snprintf(link, sizeof link, "%s.tmp-%ld", out, (long)getpid());
    CHECK(symlink(victim, link) == 0, "planted");
    CHECK(model_save(&m, out, err, sizeof err) == 0, "save: %s", err);
    FILE *f = fopen(victim, "r");
    char got[64] = "";
    if (f) {
        if (!fgets(got, sizeof got, f))
            got[0] = 0;
        fclose(f);
    }
    CHECK(!strcmp(got, "precious"), "victim untouched: %s", got);
    /* Under a file-size limit: a message naming the --out path, the old file intact, no temp
     * file left, the process alive. */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 100;
    struct stat before, after;
    stat(out, &before);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "limit");
    int rc = model_save(&m, out, err, sizeof err);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(rc == -1 && strstr(err, out) && strstr(err, "too large") && !strstr(err, ".tmp"),
          "save under a limit: %s", err);
    CHECK(stat(out, &after) == 0 && after.st_size == before.st_size &&
          after.st_ino == before.st_ino, "old file intact");
    CHECK(count_prefix(dir, "out.json.tmp-") == 1, "no temp file left (only the planted link)");
    /* Finite but huge weights overflow the forward: an error naming the tensor, not a
     * trace of zeros; the trace's size is known before allocating it. */
    {
        for (size_t i = 0; i < m.n_floats; i++)
            m.data[i] = 3e38f;
        Trace *tr = trace_new(&m, 3, 1);
        CHECK(tr && trace_bytes(&m, 3, 1) >= sizeof(float) * tr->cap,
              "trace_bytes covers the arena (%zu bytes for %zu floats)", trace_bytes(&m, 3, 1),
              tr ? tr->cap : 0);
        Controls ctl;
        model_default_controls(&m, &ctl);
        int ids[3] = {2, 3, 1};
        char e[600];
        CHECK(tr && model_forward(&m, ids, 3, NULL, 0, &ctl, tr, e, sizeof e) == -1 &&
              strstr(e, "overflowed") && strstr(e, "[0][0] is "), "huge weights: %s", e);
        for (size_t i = 0; i < m.n_floats; i++)
            m.data[i] = 0.01f;
        CHECK(tr && model_forward(&m, ids, 3, NULL, 0, &ctl, tr, e, sizeof e) == 0,
              "small weights run (the mask's -inf is not an error): %s", e);
        trace_free(tr);
    }
    /* into a missing directory: the message names the path asked for */
    CHECK(model_save(&m, "/nonexistent/dir/x.json", err, sizeof err) == -1 &&
          strstr(err, "/nonexistent/dir/x.json") && !strstr(err, ".tmp"), "missing dir: %s", err);
    model_free(&m);

    /* A config asking for hundreds of GB is refused before anything is allocated. */
    c.vocab_size = 1000000; c.d_model = 4096; c.d_head = 64; c.n_heads = 64; c.n_layers = 48;
    c.d_ff = 16384; c.max_len = 4096;
    CHECK(model_config_check_size(&c, err, sizeof err) == -1 && strstr(err, "GB") &&
          strstr(err, "limit"), "huge config: %s", err);
    char *s = replace(ok, "\"vocab_size\": 4, \"d_model\": 4", "\"vocab_size\": 1000000, \"d_model\": 4096");
    expect_fail("huge", s, "GB", "limit");
    free(s);
    /* A vocabulary word with a space can never be produced by the tokenizer: refused. */
    s = replace(ok, "\"cat\"", "\"c at\"");
    expect_fail("vocab-space", s, "vocab", "space");
    free(s);
    const char *w2[] = {"<pad>", "<unk>", "a\tb"};
    CHECK(vocab_init(&v, w2, 3, err, sizeof err) == -1 && strstr(err, "whitespace"), "tab: %s", err);
    /* A packed shape that does not fit an int is a message, not undefined behaviour. */
    {
        char ppath[128];
        snprintf(ppath, sizeof ppath, "%s/packed.json", dir);
        FILE *pf = fopen(ppath, "r");
        static char pk[1 << 16];
        size_t pn = pf ? fread(pk, 1, sizeof pk - 1, pf) : 0;
        pk[pn] = 0;
        if (pf)
            fclose(pf);
        s = replace(pk, "\"tok_embed\": {\"shape\": [4, 4]", "\"tok_embed\": {\"shape\": [1e300, -1e300]");
        expect_fail("packed-huge-shape", s, "tok_embed", "shape");
        free(s);
    }
}

/* A model whose long weights are lifted out of the parse (4 KiB of base64 and more) loads
 * the very bits saved, whether the weights fit in the file's buffer (the saved order) or not
 * (reversed), packed or as arrays; a bad character in a later weight, after earlier ones were
 * decoded over the text, is reported at its own index. */
static void test_in_place(void)
{
    ModelConfig c;
    model_config_defaults(&c); /* d_model 32, d_ff 128: tok_embed, lm_head, ffn are long */
    c.vocab_size = 200;
    const char *w[200];
    char names[200][8];
    w[0] = "<pad>";
    w[1] = "<unk>";
    for (int i = 2; i < 200; i++) {
        snprintf(names[i], sizeof names[i], "w%d", i);
        w[i] = names[i];
    }
    Vocab v;
    Model m, a;
    char err[1024], p1[128], p2[128], p3[128];
    CHECK(vocab_init(&v, w, 200, err, sizeof err) == 0, "vocab: %s", err);
    CHECK(model_new(&m, &c, &v, err, sizeof err) == 0, "model: %s", err);
    model_init_random(&m, 3);
    snprintf(p1, sizeof p1, "%s/big.json", dir);
    snprintf(p2, sizeof p2, "%s/big-arrays.json", dir);
    snprintf(p3, sizeof p3, "%s/big-reversed.json", dir);
    CHECK(model_save(&m, p1, err, sizeof err) == 0, "save: %s", err);
    m.save_arrays = 1;
    CHECK(model_save(&m, p2, err, sizeof err) == 0, "save arrays: %s", err);
    cJSON *j = json_parse_file(p1, NULL, err, sizeof err); /* the weights in reverse order */
    cJSON *wj = j ? cJSON_DetachItemFromObject(j, "weights") : NULL, *rev = cJSON_CreateObject();
    while (wj && wj->child) {
        cJSON *last = wj->child;
        while (last->next)
            last = last->next;
        char *k = strdup(last->string);
        cJSON_AddItemToObject(rev, k, cJSON_DetachItemViaPointer(wj, last));
        free(k);
    }
    cJSON_AddItemToObject(j, "weights", rev);
    char *txt = cJSON_PrintUnformatted(j);
    write_file(p3, txt);
    free(txt);
    cJSON_Delete(j);
    cJSON_Delete(wj);
    const char *paths[] = {p1, p2, p3};
    for (int i = 0; i < 3; i++) {
        int rc = model_load(&a, paths[i], err, sizeof err);
        CHECK(rc == 0 && a.n_floats == m.n_floats &&
                  memcmp(a.data, m.data, sizeof(float) * m.n_floats) == 0 &&
                  a.tok_embed == a.data && a.dec[0].w1 == model_param_data(&a, model_param(&a, "dec.0.ffn.w1")),
              "%s loads the saved bits, views bound (%s)", paths[i], err);
        if (rc == 0)
            model_free(&a);
    }
    /* ffn.w1 (32 x 128) comes after tok_embed (200 x 32) in the file: break its 5000th char. */
    FILE *f = fopen(p1, "r");
    static char t[1 << 20];
    size_t n = f ? fread(t, 1, sizeof t - 1, f) : 0;
    t[n] = 0;
    if (f)
        fclose(f);
    char *at = strstr(t, "\"dec.0.ffn.w1\": {\"shape\": [32, 128], \"f32\": \"");
    CHECK(at && strstr(t, "\"tok_embed\"") < at, "fixture: ffn.w1 packed after tok_embed");
    if (at) {
        at[strlen("\"dec.0.ffn.w1\": {\"shape\": [32, 128], \"f32\": \"") + 5000] = '*';
        expect_fail("big-bad-char", t, "weight \"weights.dec.0.ffn.w1\": \"f32\" is not base64",
                    "not base64 at 5000)");
    }
    /* The weights first in the file: tok_embed's place (offset 0) lies just before its own
     * string, so decoding it overwrites the characters already read; a bad one further on is
     * still found at its index. */
    j = json_parse_file(p1, NULL, err, sizeof err);
    cJSON *first = cJSON_CreateObject();
    cJSON_AddItemToObject(first, "weights", cJSON_DetachItemFromObject(j, "weights"));
    while (j && j->child) {
        char *k = strdup(j->child->string);
        cJSON_AddItemToObject(first, k, cJSON_DetachItemViaPointer(j, j->child));
        free(k);
    }
    txt = cJSON_PrintUnformatted(first);
    cJSON_Delete(first);
    cJSON_Delete(j);
    at = txt ? strstr(txt, "\"tok_embed\":{\"shape\":[200,32],\"f32\":\"") : NULL;
    CHECK(at && at - txt < 40, "fixture: tok_embed's string at the start");
    if (at) {
        snprintf(p3, sizeof p3, "%s/big-weights-first.json", dir);
        write_file(p3, txt);
        CHECK(model_load(&a, p3, err, sizeof err) == 0 &&
                  memcmp(a.data, m.data, sizeof(float) * m.n_floats) == 0,
              "weights first: the saved bits (%s)", err);
        model_free(&a);
        at[strlen("\"tok_embed\":{\"shape\":[200,32],\"f32\":\"") + 5000] = '*';
        expect_fail("big-first-bad-char", txt, "weight \"weights.tok_embed\": \"f32\" is not base64",
                    "not base64 at 5000)");
    }
    free(txt);
    model_free(&m);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/attend-test-io-%d", (int)getpid());
    char cmd[128];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0)
        return 1;
    const char *ok = valid_text();
    char path[128], err[1024];
    snprintf(path, sizeof path, "%s/valid.json", dir);
    Model m;
    CHECK(model_load(&m, path, err, sizeof err) == 0, "valid model loads: %s", err);
    model_free(&m);

    /* Truncated JSON: line:col of the end. */
    size_t half = strlen(ok) / 2;
    char *trunc = strndup(ok, half);
    int lines = 1;
    for (size_t i = 0; i < half; i++)
        lines += trunc[i] == '\n';
    char want[64];
    snprintf(want, sizeof want, ".json:%d:", lines);
    expect_fail("truncated", trunc, "JSON syntax error", want);
    free(trunc);
    /* A syntax error in the middle of line 2. */
    expect_fail("syntax", "{\n\"format\": \"attend-model\" \"version\": 1}", ":2:", "syntax error");
    char *s;
    s = replace(ok, "\"d_model\": 4", "\"d_model\": 6");
    expect_fail("wrong-shape", s, "weights.tok_embed", "expected 6");
    free(s);
    s = replace(ok, "\"n_heads\": 2", "\"n_heads\": 2, \"extra\": 1");
    expect_fail("unknown-key", s, "config.extra", NULL);
    free(s);
    s = replace(ok, "\"ffn\": \"gelu\"", "\"ffn\": \"tanh\"");
    expect_fail("bad-enum", s, "config.ffn", "tanh");
    free(s);
    s = replace(ok, "\"max_len\": 4, ", "");
    expect_fail("missing-key", s, "config.max_len", "missing");
    free(s);
    s = replace(ok, "\"vocab_size\": 4", "\"vocab_size\": 5");
    expect_fail("vocab-disagrees", s, "vocab", "5");
    free(s);
    s = replace(ok, "\"cat\"", "\"sat\"");
    expect_fail("vocab-repeated", s, "repeated", "sat");
    free(s);
    s = replace(ok, "\"<pad>\"", "\"pad\"");
    expect_fail("vocab-no-pad", s, "<pad>", NULL);
    free(s);
    /* Non-finite: JSON has no NaN, so NaN is a syntax error; 1e999 overflows to inf. */
    const char *lm = strstr(ok, "\"lm_head\": [");
    CHECK(lm != NULL, "fixture has lm_head");
    s = replace(ok, "\"lm_head\": [\n  [", "\"lm_head\": [\n  [1e999,");
    expect_fail("infinite", s, "lm_head", "finite");
    free(s);
    s = replace(ok, "\"lm_head\": [\n  [", "\"lm_head\": [\n  [NaN,");
    expect_fail("nan", s, "syntax error", NULL);
    free(s);
    s = replace(ok, "\"lm_head\": [", "\"lm_headx\": [");
    expect_fail("unexpected-weight", s, "lm_headx", NULL);
    free(s);
    s = replace(ok, "\"format\": \"attend-model\"", "\"format\": \"gguf\"");
    expect_fail("wrong-format", s, "format", "not an attend model");
    {
        char e[1024], fp[128];
        snprintf(fp, sizeof fp, "%s/wrong-format.json", dir);
        CHECK(model_load(&m, fp, e, sizeof e) == -1 && !strstr(e, "gguf"),
              "a foreign file's values are not quoted: %s", e);
    }
    free(s);
    expect_fail("empty", "", "unexpected end", NULL);
    expect_fail("array", "[1,2]", "top level", NULL);
    /* The packed (base64 float32) form: the same model, and its own errors. */
    {
        char ppath[128];
        snprintf(ppath, sizeof ppath, "%s/packed.json", dir);
        FILE *pf = fopen(ppath, "r");
        static char pk[1 << 16];
        size_t pn = fread(pk, 1, sizeof pk - 1, pf);
        pk[pn] = 0;
        fclose(pf);
        Model a, b;
        CHECK(model_load(&a, path, err, sizeof err) == 0, "arrays load: %s", err);
        CHECK(model_load(&b, ppath, err, sizeof err) == 0, "packed loads: %s", err);
        CHECK(a.n_floats == b.n_floats && memcmp(a.data, b.data, sizeof(float) * a.n_floats) == 0,
              "packed and array forms hold the same bits");
        model_free(&a);
        model_free(&b);
        s = replace(pk, "\"tok_embed\": {\"shape\": [4, 4]", "\"tok_embed\": {\"shape\": [4, 5]");
        expect_fail("packed-shape", s, "tok_embed", "[4, 5]");
        free(s);
        s = replace(pk, "\"tok_embed\": {\"shape\": [4, 4], \"f32\": \"", "\"tok_embed\": {\"shape\": [4, 4], \"f32\": \"AAAAAAAAAAAAAAAA");
        expect_fail("packed-extra", s, "tok_embed", "more than 16");
        free(s);
        s = replace(pk, "\"tok_embed\": {\"shape\": [4, 4], \"f32\": \"", "\"tok_embed\": {\"shape\": [4, 4], \"f32\": \"AA");
        expect_fail("packed-ragged", s, "tok_embed", "whole number");
        free(s);
        s = replace(pk, "\"tok_embed\": {\"shape\": [4, 4], \"f32\": \"", "\"tok_embed\": {\"shape\": [4, 4], \"f32\": \"*");
        expect_fail("packed-bad-char", s, "tok_embed", "not base64");
        free(s);
        /* Three +inf floats (0x7f800000 little-endian) are "AACAfwAAgH8AAIB/" in base64:
         * overwrite the first 16 characters (12 bytes) of pos_embed's data with them. */
        s = strdup(pk);
        char *at = strstr(s, "\"pos_embed\": {\"shape\": [4, 4], \"f32\": \"");
        CHECK(at != NULL, "fixture has packed pos_embed");
        if (at)
            memcpy(at + strlen("\"pos_embed\": {\"shape\": [4, 4], \"f32\": \""), "AACAfwAAgH8AAIB/", 16);
        expect_fail("packed-inf", s, "pos_embed", "not finite");
        free(s);
    }
    test_hardening(ok);
    test_in_place();
    /* A missing file names it. */
    CHECK(model_load(&m, "/nonexistent/model.json", err, sizeof err) == -1 &&
          strstr(err, "/nonexistent/model.json") && strstr(err, "No such file"), "missing: %s", err);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    return t_done("model_io");
}
