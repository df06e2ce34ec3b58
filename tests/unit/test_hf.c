/* test_hf.c - the Hugging Face pieces that need no files beyond the shipped configs: half and
 * bfloat16 conversion, the parameter counter's view of a config against the weight list, a
 * tokenizer.json held in memory, and safetensors headers in memory. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hf_model.h"
#include "hf_tokenizer.h"
#include "safetensors.h"
#include "t.h"

static void test_halves(void)
{
    CHECK(st_f16(0x3c00) == 1.0f, "f16 1");
    CHECK(st_f16(0xc000) == -2.0f, "f16 -2");
    CHECK(st_f16(0x7bff) == 65504.0f, "f16 max");
    CHECK(st_f16(0x0001) == ldexpf(1.0f, -24), "f16 smallest subnormal");
    CHECK(st_f16(0x03ff) == ldexpf(1023.0f, -24), "f16 largest subnormal");
    CHECK(isinf(st_f16(0x7c00)) && st_f16(0x7c00) > 0, "f16 inf");
    CHECK(isnan(st_f16(0x7e00)), "f16 nan");
    CHECK(st_f16(0x8000) == 0.0f && signbit(st_f16(0x8000)), "f16 -0");
    CHECK(st_bf16(0x3f80) == 1.0f, "bf16 1");
    CHECK(st_bf16(0xc040) == -3.0f, "bf16 -3");
    CHECK(st_bf16(0x4049) == 3.140625f, "bf16 pi");
}

static void add_count(void *ctx, const char *name, long long rows, long long cols)
{
    (void)name;
    *(long long *)ctx += rows ? rows * cols : cols;
}

static void test_counts(void)
{
    static const char *const CFG[] = {"data/hf/gpt2/config.json", "data/hf/llama-3.2-1b/config.json",
                                      "data/hf/qwen3-4b/config.json"};
    for (size_t i = 0; i < sizeof CFG / sizeof CFG[0]; i++) {
        ModelConfig c;
        HfInfo in;
        char err[512];
        CHECK(hf_config_read(CFG[i], &c, &in, err, sizeof err) == 0, "%s", err);
        long long listed = 0, total = 0;
        hf_weights(&c, &in, "", add_count, &listed);
        ParamConfig pc;
        hf_param_config(&c, &in, &pc);
        ParamRow rows[PARAM_ROWS];
        NamedValues nv = {0};
        explain_params(&pc, rows, &total, &nv);
        CHECK(listed == total, "%s: the weight list holds %lld, the counter %lld", CFG[i], listed,
              total);
    }
}

static void test_tokenizer_json(void)
{
    /* bytes as themselves; merges "a b" -> "ab", "Ġ ab" -> "Ġab"; <s> added and first */
    char json[8192];
    size_t k = (size_t)snprintf(json, sizeof json, "{\"model\": {\"type\": \"BPE\", \"vocab\": {");
    for (int b = 33; b < 127; b++)
        k += (size_t)snprintf(json + k, sizeof json - k, "%s\"%s%c\": %d", b > 33 ? ", " : "",
                              b == '"' || b == '\\' ? "\\" : "", b, b);
    k += (size_t)snprintf(json + k, sizeof json - k,
                          ", \"\\u0120\": 200, \"ab\": 201, \"\\u0120ab\": 202}, \"merges\": "
                          "[\"a b\", \"\\u0120 ab\"]}, \"added_tokens\": [{\"id\": 203, "
                          "\"content\": \"<s>\"}], \"pre_tokenizer\": {\"type\": \"ByteLevel\"}, "
                          "\"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": "
                          "[{\"SpecialToken\": {\"id\": \"<s>\"}}, {\"Sequence\": {\"id\": \"A\"}}], "
                          "\"special_tokens\": {\"<s>\": {\"ids\": [203]}}}}");
    HfTok *t;
    char err[512];
    CHECK(hf_tok_parse_json(&t, "mem.json", json, k, err, sizeof err) == 0, "%s", err);
    if (!t)
        return;
    int ids[16];
    TokenizeInfo info;
    int n = hf_tok_encode(t, "ab ab<s>c", ids, 16, &info);
    int want[] = {203, 201, 202, 203, 'c'};
    CHECK(n == 5 && !memcmp(ids, want, sizeof want), "ids %d: %d %d %d %d %d", n, ids[0], ids[1],
          ids[2], ids[3], ids[4]);
    char buf[64];
    hf_tok_readable(t, 202, buf, sizeof buf);
    CHECK(!strcmp(buf, " ab"), "readable \"%s\"", buf);
    n = hf_tok_encode(t, "ab ab ab", ids, 2, &info);
    CHECK(n == 2 && info.n_tokens == 3 && info.truncated && info.stopped, "cap: %d of %d", n, info.n_tokens);
    hf_tok_free(t);
    CHECK(hf_tok_parse_json(&t, "mem.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, "
                            "\"merges\": [\"a\"]}}", 62, err, sizeof err) == -1 &&
              strstr(err, "mem.json") && strstr(err, "model.merges[0]"), "bad merge: %s", err);
}

static void test_header(void)
{
    /* {"x": F32 [2], [0, 8]} then 8 bytes */
    unsigned char buf[128] = {0};
    const char *h = "{\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}      ";
    size_t hl = strlen(h);
    buf[0] = (unsigned char)hl;
    memcpy(buf + 8, h, hl);
    float v[2] = {1.5f, -2.0f};
    memcpy(buf + 8 + hl, v, sizeof v);
    StSet s;
    char err[512];
    CHECK(st_parse_buffer(&s, "m.safetensors", buf, 8 + hl + 8, err, sizeof err) == 0, "%s", err);
    const float *x = st_matrix(&s, "x", 0, 2, err, sizeof err);
    CHECK(x && x[0] == 1.5f && x[1] == -2.0f, "values");
    CHECK(!st_matrix(&s, "x", 1, 2, err, sizeof err) && strstr(err, "[2]"), "shape: %s", err);
    CHECK(!st_matrix(&s, "y", 0, 2, err, sizeof err) && strstr(err, "\"y\" is missing"), "%s", err);
    st_close(&s);
    CHECK(st_parse_buffer(&s, "m.safetensors", buf, 8 + hl + 4, err, sizeof err) == -1 &&
              strstr(err, "past the end of the data"), "short data: %s", err);
}

int main(void)
{
    test_halves();
    test_counts();
    test_tokenizer_json();
    test_header();
    return t_done("test_hf");
}
