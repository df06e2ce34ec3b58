/* test_hf_limits.c - a hostile Hugging Face model never hangs, crashes or lies (issue 39): a
 * mapped safetensors file truncated while open reads as "the model file changed while open"
 * (no SIGBUS); the tokenizer's work is bounded per sentence (normalizer growth, one work
 * budget over every regex step and BPE lookup, the text's length checked first) and every
 * limit hit is an error naming it; a piece missing from the vocabulary is <unk> or an error,
 * never dropped; a weight holding NaN is named; the readers of weights outside the forward
 * (the logit lens, attribution, circuits) report a changed file too, not numbers from zeros. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "circuits.h"
#include "hf_tokenizer.h"
#include "lens.h"
#include "model.h"
#include "safetensors.h"
#include "t.h"

static char tmpdir[256];

/* Writes DIR/model.safetensors: one F32 tensor "w" of n floats (value i), first at a
 * 64-byte-aligned offset. */
static void write_st(const char *dir, int n, float poison_at0)
{
    char path[512], hdr[256];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    int hl = snprintf(hdr, sizeof hdr, "{\"w\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[0,%d]}}",
                      n, 4 * n);
    while ((hl + 8) % 64)
        hdr[hl++] = ' ';
    FILE *f = fopen(path, "wb");
    unsigned long long L = (unsigned long long)hl;
    for (int i = 0; i < 8; i++)
        fputc((int)(L >> (8 * i) & 0xff), f);
    fwrite(hdr, 1, (size_t)hl, f);
    for (int i = 0; i < n; i++) {
        float x = i == 0 ? poison_at0 : (float)i;
        fwrite(&x, 4, 1, f);
    }
    fclose(f);
}

static void test_truncated_while_open(void)
{
    char path[512], err[512] = "";
    snprintf(path, sizeof path, "%s/model.safetensors", tmpdir);
    int n = 1 << 16; /* 256 KB: many pages */
    write_st(tmpdir, n, 0.0f);
    StSet s;
    CHECK(st_open_dir(&s, tmpdir, err, sizeof err) == 0, "%s", err);
    const float *w = st_matrix(&s, "w", 0, n, err, sizeof err);
    CHECK(w && w[5] == 5.0f, "the tensor reads in place: %s", err);
    CHECK(st_changed(&s) == NULL, "nothing changed yet");
    CHECK(truncate(path, 64) == 0, "truncate");
    /* every page past the first is gone: a read of one raised SIGBUS (exit 135) before */
    volatile float x = w ? w[n - 1] : 0;
    CHECK(x == 0.0f, "a vanished page reads as 0 (got %g)", (double)x);
    CHECK(st_changed(&s) && strstr(st_changed(&s), "model.safetensors"), "the file is marked");
    CHECK(st_check(&s, err, sizeof err) == -1 &&
              strstr(err, "the model file changed while open") && strstr(err, path),
          "the message names it: %s", err);
    CHECK(st_matrix(&s, "w", 0, n, err, sizeof err) == NULL &&
              strstr(err, "changed while open"), "a later read says so too: %s", err);
    st_close(&s);
    /* the same file opened again (complete) is not marked */
    write_st(tmpdir, n, 0.0f);
    CHECK(st_open_dir(&s, tmpdir, err, sizeof err) == 0, "%s", err);
    CHECK(st_matrix(&s, "w", 0, n, err, sizeof err) != NULL && !st_changed(&s), "reopened: %s", err);
    st_close(&s);
}

static void test_nan_named(void)
{
    char err[512] = "";
    write_st(tmpdir, 64, 0.0f / 0.0f);
    StSet s;
    CHECK(st_open_dir(&s, tmpdir, err, sizeof err) == 0, "%s", err);
    CHECK(st_nonfinite(&s, err, sizeof err) == -1 && strstr(err, "tensor \"w\"") &&
              strstr(err, "NaN") && strstr(err, "[0]"), "the NaN's tensor is named: %s", err);
    st_close(&s);
}

/* A tokenizer.json of single-byte tokens 'a'..'z', ' ' and "ab", with the given normalizer and
 * pre-tokenizer JSON (or "null"), an unk token when unk. */
static HfTok *tok(const char *norm, const char *pre, int unk)
{
    char json[8192];
    size_t k = (size_t)snprintf(json, sizeof json, "{\"model\": {\"type\": \"BPE\", %s\"vocab\": {",
                                unk ? "\"unk_token\": \"<unk>\", " : "");
    for (int c = 'a'; c <= 'z'; c++)
        k += (size_t)snprintf(json + k, sizeof json - k, "\"%c\": %d, ", c, c);
    k += (size_t)snprintf(json + k, sizeof json - k,
                          "\" \": 32, \"ab\": 200, \"<unk>\": 201}, \"merges\": [\"a b\"]}, "
                          "\"normalizer\": %s, \"pre_tokenizer\": %s}", norm, pre);
    HfTok *t = NULL;
    char err[512];
    CHECK(hf_tok_parse_json(&t, "mem.json", json, k, err, sizeof err) == 0, "%s", err);
    return t;
}

static void test_normalizer_growth(void)
{
    /* three steps turning "a" into 1000 a's: "aaaa" would be 4e9 bytes (3.9 GB and 3.3 s,
     * ending in "the sentence has no tokens") */
    char norm[4096], a1000[1001];
    memset(a1000, 'a', 1000);
    a1000[1000] = 0;
    snprintf(norm, sizeof norm, "{\"type\": \"Sequence\", \"normalizers\": ["
             "{\"type\": \"Replace\", \"pattern\": {\"String\": \"a\"}, \"content\": \"%s\"},"
             "{\"type\": \"Replace\", \"pattern\": {\"String\": \"a\"}, \"content\": \"%s\"},"
             "{\"type\": \"Replace\", \"pattern\": {\"String\": \"a\"}, \"content\": \"%s\"}]}",
             a1000, a1000, a1000);
    HfTok *t = tok(norm, "null", 1);
    if (!t)
        return;
    int ids[64];
    TokenizeInfo info;
    int n = hf_tok_encode(t, "aaaa", ids, 64, &info);
    CHECK(n == 0 && strstr(info.error, "normalizer") && strstr(info.error, "cap"),
          "normalizer growth is an error naming the cap (n %d): %s", n, info.error);
    /* a normalizer string that is not UTF-8 is refused at load (the pre-tokenizer matched the
     * text it made without a UTF-8 check: a crash inside PCRE2, found by fuzz_hf_pretok) */
    hf_tok_free(t);
    const char bad[] = "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}, "
                       "\"normalizer\": {\"type\": \"Replace\", \"pattern\": {\"String\": \"a\"}, "
                       "\"content\": \"\xf4\xf4\"}}";
    char err[512] = "";
    CHECK(hf_tok_parse_json(&t, "mem.json", bad, sizeof bad - 1, err, sizeof err) == -1 &&
              strstr(err, "not valid UTF-8"), "invalid UTF-8 in a normalizer: %s", err);
    t = tok(norm, "null", 1);
    /* growth within the cap (a space as three bytes) is fine */
    hf_tok_free(t);
    t = tok("{\"type\": \"Replace\", \"pattern\": {\"String\": \"b\"}, \"content\": \"ab\"}", "null", 1);
    if (!t)
        return;
    n = hf_tok_encode(t, "bb", ids, 64, &info);
    CHECK(n == 2 && ids[0] == 200 && ids[1] == 200 && !info.error[0], "b -> ab: %d %s", n, info.error);
    hf_tok_free(t);
}

static const char SLOW_SPLIT[] =
    "{\"type\": \"Split\", \"pattern\": {\"Regex\": \"(?:x|.)(?:[^z]{0,400}?q)?\"}, "
    "\"behavior\": \"Isolated\"}";

static void test_regex_budget(void)
{
    HfTok *t = tok("null", SLOW_SPLIT, 1);
    if (!t)
        return;
    size_t L = 60000;
    char *text = malloc(L + 1);
    memset(text, 'a', L);
    text[L] = 0;
    int *ids = malloc(sizeof(int) * (L + 8));
    TokenizeInfo info;
    /* each piece costs ~1,200 regex steps: within PCRE2's limit per call, but 60,000 of them
     * took minutes; the budget is per sentence */
    int n = hf_tok_encode(t, text, ids, (int)L + 8, &info);
    CHECK(n == 0 && strstr(info.error, "work limit"), "the whole text hits the work limit "
          "per sentence (n %d): %s", n, info.error);
    /* the length limit comes first: with room for 16 ids the tokenizer stops at the 17th */
    n = hf_tok_encode(t, text, ids, 16, &info);
    CHECK(n == 16 && info.truncated && info.stopped && !info.error[0],
          "too long is said before the work is done (n %d, truncated %d): %s", n, info.truncated,
          info.error);
    /* a backtracking pattern hitting PCRE2's match limit is an error, not text kept whole
     * (spaces the split removes came back as tokens) */
    hf_tok_free(t);
    t = tok("null", "{\"type\": \"Split\", \"pattern\": {\"Regex\": \"(a|aa)+$| \"}, "
            "\"behavior\": \"Removed\"}", 1);
    if (t) {
        char s[80];
        memset(s, 'a', 60);
        strcpy(s + 60, "b c");
        n = hf_tok_encode(t, s, ids, 64, &info);
        CHECK(n == 0 && info.error[0] && (strstr(info.error, "backtracks") ||
                                          strstr(info.error, "work limit")),
              "a match limit hit is an error (n %d): %s", n, info.error);
        n = hf_tok_encode(t, "ab c", ids, 64, &info);
        CHECK(n == 2 && ids[0] == 200 && ids[1] == 'c', "the spaces are removed: %d", n);
    }
    /* a text over the byte limit is refused before any work */
    char *big = malloc(70000);
    memset(big, 'a', 69999);
    big[69999] = 0;
    n = hf_tok_encode(t ? t : NULL, big, ids, 16, &info);
    CHECK(n == 0 && strstr(info.error, "69999 bytes") && strstr(info.error, "at most"),
          "the byte limit: %s", info.error);
    free(big);
    hf_tok_free(t);
    free(text);
    free(ids);
}

static void test_unknown(void)
{
    int ids[16];
    TokenizeInfo info;
    HfTok *t = tok("null", "null", 1);
    if (t) {
        /* 'T' is not in the vocabulary: <unk> (201), not dropped ("the" became ["e"]) */
        int n = hf_tok_encode(t, "Tab", ids, 16, &info);
        CHECK(n == 2 && ids[0] == 201 && ids[1] == 200 && info.n_unknown == 1 &&
                  !strcmp(info.unknown[0], "T"), "T runs as <unk>: n %d", n);
        hf_tok_free(t);
    }
    t = tok("null", "null", 0);
    if (t) {
        int n = hf_tok_encode(t, "Tab", ids, 16, &info);
        CHECK(n == 0 && strstr(info.error, "\"T\"") && strstr(info.error, "unk"),
              "no unk_token: an error naming the piece (n %d): %s", n, info.error);
        hf_tok_free(t);
    }
}

/* A store whose file changed after the forward: what st_check says once a page vanished. */
static int changed_later;
static int stub_check(const void *store, int nonfinite, char *err, size_t errlen)
{
    (void)store;
    (void)nonfinite;
    if (!changed_later)
        return 0;
    snprintf(err, errlen, "the model file changed while open: /x/model.safetensors");
    return -1;
}

/* The forward checks the store after every pass; the lens, attribution and circuits read
 * W_U, the final norm and the heads' matrices themselves afterwards, so they check too. */
static void test_readers_after_forward(void)
{
    Model m;
    char err[600] = "";
    if (model_load(&m, "data/induction.json", err, sizeof err)) {
        CHECK(0, "data/induction.json: %s", err);
        return;
    }
    m.store_check = stub_check;
    int ids[6] = {3, 4, 5, 3, 4, 5}, n = 6;
    Trace *t = trace_new(&m, n, 0);
    Controls c;
    model_default_controls(&m, &c);
    changed_later = 0;
    CHECK(t && model_forward(&m, ids, n, NULL, 0, &c, t, err, sizeof err) == 0, "%s", err);
    changed_later = 1; /* the file changes between the forward and the lens's own reads */
    LensTop *top = calloc((size_t)(m.cfg.n_layers + 1) * (size_t)n * 3, sizeof *top);
    err[0] = '\0';
    CHECK(top && lens_logit(&m, t, 3, top, err, sizeof err) == -1 && strstr(err, "changed while open"),
          "the logit lens says the file changed: %s", err);
    LensAttribution a;
    memset(&a, 0, sizeof a);
    err[0] = '\0';
    CHECK(lens_attribute(&m, t, ids[1], n - 1, &a, err, sizeof err) == -1 &&
              strstr(err, "changed while open"), "attribution says so: %s", err);
    HeadCircuit *hc = calloc((size_t)m.cfg.n_layers * (size_t)m.cfg.n_heads, sizeof *hc);
    err[0] = '\0';
    CHECK(hc && circuits_heads(&m, hc, err, sizeof err) == -1 && strstr(err, "changed while open"),
          "the circuits say so: %s", err);
    changed_later = 0; /* and with the file as it was, all three work */
    CHECK(lens_logit(&m, t, 3, top, err, sizeof err) == 0, "lens: %s", err);
    CHECK(lens_attribute(&m, t, ids[1], n - 1, &a, err, sizeof err) == 0, "attribution: %s", err);
    lens_attribution_free(&a);
    CHECK(circuits_heads(&m, hc, err, sizeof err) == 0, "circuits: %s", err);
    free(hc);
    free(top);
    trace_free(t);
    m.store_check = NULL;
    model_free(&m);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/attend-hflimits-%ld", (long)getpid());
    mkdir(tmpdir, 0700);
    test_truncated_while_open();
    test_nan_named();
    test_normalizer_growth();
    test_regex_budget();
    test_unknown();
    test_readers_after_forward();
    char p[512];
    snprintf(p, sizeof p, "%s/model.safetensors", tmpdir);
    unlink(p);
    rmdir(tmpdir);
    return t_done("test_hf_limits");
}
