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

static size_t budget(void)
{
    size_t b = TRACE_MAX_BYTES, avail = hf_mem_available();
    return avail && avail / 2 < b ? avail / 2 : b;
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
    /* a vocabulary of 8 M: every token's logits alone take 32 MB, three traces 96 MB */
    m = sized(8000000, 64, 1024);
    int cap = widget_token_cap(&m, 128, why, sizeof why);
    size_t b = budget();
    CHECK(cap >= 1 && cap < 128, "memory binds below 128 tokens (%d)", cap);
    CHECK(3 * trace_bytes(&m, cap, 1) <= b, "%d tokens' three traces fit %zu MiB", cap, b >> 20);
    CHECK(3 * trace_bytes(&m, cap + 1, 1) > b, "%d tokens' do not", cap + 1);
    char want[64];
    snprintf(want, sizeof want, "memory: %d tokens need ", cap + 1);
    CHECK(!strncmp(why, want, strlen(want)) && strstr(why, "MiB >"), "named: %s", why);
    CHECK(widget_token_cap(&m, 128, NULL, 0) == cap, "why may be NULL");
}

int main(void)
{
    test_cap();
    return t_done("test_token_cap");
}
