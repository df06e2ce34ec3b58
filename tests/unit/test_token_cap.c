/* test_token_cap.c - the player's sentence limit (widget_token_cap): the model's context, the
 * player's own limit and memory (three traces within the trace limit and half the memory
 * free), each named when it binds. */
#include <stdio.h>
#include <string.h>

#include "hf_model.h"
#include "model.h"
#include "t.h"
#include "widget.h"

/* A configuration only: widget_token_cap reads sizes, never weights. */
static Model sized(int vocab, int d_model, int max_len)
{
    Model m;
    memset(&m, 0, sizeof m);
    model_config_defaults(&m.cfg);
    m.cfg.vocab_size = vocab;
    m.cfg.d_model = d_model;
    m.cfg.d_head = d_model / m.cfg.n_heads;
    m.cfg.d_ff = 4 * d_model;
    m.cfg.max_len = max_len;
    return m;
}

/* widget_token_cap's rule: one trace within TRACE_MAX_BYTES, the three within half the memory
 * free (when it can be read). */
static int fits(const Model *m, int n)
{
    size_t one = trace_bytes(m, n, 1), avail = hf_mem_available();
    return one <= TRACE_MAX_BYTES && (!avail || 3 * one <= avail / 2);
}

static void test_cap(void)
{
    char why[200];
    Model m = sized(100, 32, 24);
    CHECK(widget_token_cap(&m, 128, why, sizeof why) == 24 &&
              !strcmp(why, "its context, max_len 24"), "a short context binds: %s", why);
    m = sized(100, 32, 1024);
    CHECK(widget_token_cap(&m, 128, why, sizeof why) == 128 &&
              !strcmp(why, "the player's limit; its context is 1024"), "the player's: %s", why);
    /* a vocabulary of 8 M: every token's logits alone take 32 MB */
    m = sized(8000000, 64, 1024);
    int cap = widget_token_cap(&m, 128, why, sizeof why);
    CHECK(cap >= 1 && cap < 128, "memory binds below 128 tokens (%d)", cap);
    CHECK(fits(&m, cap), "%d tokens' traces fit", cap);
    CHECK(!fits(&m, cap + 1), "%d tokens' do not", cap + 1);
    char want[64];
    snprintf(want, sizeof want, "memory: %d tokens need ", cap + 1);
    CHECK(!strncmp(why, want, strlen(want)) && strstr(why, "MiB >"), "named: %s", why);
    CHECK(widget_token_cap(&m, 128, NULL, 0) == cap, "why may be NULL");
}

/* GPT-2 small's whole context: its trace (the heads' maps in the bounded map cache) fits the
 * limit, so dump takes 1024 tokens, and the player does whenever half the memory free holds
 * three such traces. The maps are no longer in the arena: 1024 tokens' four maps of every head
 * would be 2.25 GiB alone. */
static void test_gpt2_context(void)
{
    Model m = sized(50257, 768, 1024);
    m.cfg.n_heads = 12;
    m.cfg.d_head = 64;
    m.cfg.n_layers = 12;
    m.cfg.d_ff = 3072;
    size_t one = trace_bytes(&m, 1024, 1), maps = (size_t)12 * 12 * 4 * 1024 * 1024 * 4;
    CHECK(one <= TRACE_MAX_BYTES, "GPT-2 small at 1024 tokens: %zu MiB within %zu MiB", one >> 20,
          TRACE_MAX_BYTES >> 20);
    CHECK(one < maps, "the trace (%zu MiB) is smaller than every head's maps (%zu MiB)", one >> 20,
          maps >> 20);
    char why[200];
    int cap = widget_token_cap(&m, 1024, why, sizeof why);
    CHECK(fits(&m, 1024) ? cap == 1024 : cap < 1024 && fits(&m, cap),
          "the player takes %d tokens (%s)", cap, why);
}

int main(void)
{
    test_cap();
    test_gpt2_context();
    return t_done("test_token_cap");
}
