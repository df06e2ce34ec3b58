/* test_model_io.c - bad model files are refused with a message naming the file and the key
 * (or line:col for JSON syntax), and never leave a half-loaded model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    expect_fail("wrong-format", s, "format", "gguf");
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
    /* A missing file names it. */
    CHECK(model_load(&m, "/nonexistent/model.json", err, sizeof err) == -1 &&
          strstr(err, "/nonexistent/model.json") && strstr(err, "No such file"), "missing: %s", err);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return 1;
    return t_done("model_io");
}
