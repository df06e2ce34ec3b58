/* test_train.c - the trainer: its forward pass agrees with model_forward, every weight
 * tensor's gradient agrees with finite differences (decoder, encoder and encoder-decoder),
 * AdamW and the schedule follow their formulas, BERT-style masking does what it says, training
 * is deterministic and does learn (a decoder and a masked-LM encoder); its kernels and its tanh
 * match their reference chains bit for bit. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "tensor.h"
#include "train.h"
#include "train_internal.h"

#define V 13
#define MAXL 7

static void make_model(Model *m, ModelConfig c, uint64_t seed)
{
    char err[256];
    const char *words[V] = {"<pad>", "<unk>", "<bos>", "<eos>", "a", "b", "c", "d", "e", "f",
                            "g", "h", "i"};
    Vocab v;
    if (vocab_init(&v, words, V, err, sizeof err) || model_new(m, &c, &v, err, sizeof err)) {
        fprintf(stderr, "setup: %s\n", err);
        exit(1);
    }
    model_init_random(m, seed);
    /* Non-trivial gains and biases, so their gradients are exercised off their init. */
    uint64_t s = seed * 7 + 3;
    for (int i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        if (p->rows != 1)
            continue;
        float *x = m->data + p->offset;
        for (int j = 0; j < p->cols; j++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            x[j] += 0.3f * ((float)(s >> 40) / (float)(1u << 24) - 0.5f);
        }
    }
}

static ModelConfig small_config(Arch a)
{
    ModelConfig c;
    model_config_defaults(&c);
    c.arch = a;
    c.vocab_size = V;
    c.d_model = 8;
    c.n_heads = 2;
    c.d_head = 4;
    c.n_layers = 2;
    c.d_ff = 12;
    c.max_len = MAXL;
    return c;
}

static const int SRC[6] = {4, 7, 5, 9, 11, 6};
static const int DEC[5] = {2, 8, 10, 12, 5};
static const int TGT_LM[6] = {7, 5, 9, -1, 6, 4};
static const int TGT_ED[5] = {8, 10, 12, 5, 3};

static TrainExample example(const Model *m)
{
    TrainExample ex = {SRC, 6, NULL, 0, TGT_LM};
    if (m->cfg.arch == ARCH_ENCDEC) {
        ex.dec = DEC;
        ex.m = 5;
        ex.targets = TGT_ED;
    }
    return ex;
}

static double loss_of(const Model *m, TrainWork *w, int causal)
{
    TrainExample ex = example(m);
    int cnt;
    return train_forward_backward(m, w, &ex, causal, NULL, &cnt);
}

/* The trainer's logits equal model_forward's for the same model and input. */
static void check_forward(const Model *m, const char *what)
{
    char err[256];
    TrainWork *w = train_work_new(m, MAXL, MAXL);
    Trace *t = trace_new(m, MAXL, MAXL);
    TrainExample ex = example(m);
    Controls c;
    model_default_controls(m, &c);
    int cnt, rows;
    double l = train_forward_backward(m, w, &ex, c.causal, NULL, &cnt);
    CHECK(l > 0.0 && cnt == (m->cfg.arch == ARCH_ENCDEC ? 5 : 5), "%s: loss %g count %d", what,
          l, cnt);
    /* model_forward takes the target words of an encoder-decoder (it shifts them behind
     * <bos> itself): the example's targets, whose shift is exactly ex.dec. */
    int rc = model_forward(m, ex.src, ex.n, m->cfg.arch == ARCH_ENCDEC ? ex.targets : ex.dec,
                           ex.m, &c, t, err, sizeof err);
    CHECK(rc == 0, "%s: model_forward: %s", what, err);
    const float *mine = train_work_logits(w, &rows);
    const TraceEntry *e = trace_find(t, STACK_DEC, -1, SUB_NONE, -1, T_LOGITS);
    if (!e)
        e = trace_find(t, STACK_ENC, -1, SUB_NONE, -1, T_LOGITS);
    CHECK(e != NULL, "%s: no logits in the trace", what);
    if (e && rc == 0) {
        CHECK(e->rows == rows && e->cols == V, "%s: logits shape", what);
        float d = tensor_max_abs_diff(mine, e->data, (size_t)rows * V);
        CHECK(d < 1e-4f, "%s: trainer logits differ from model_forward by %g", what, (double)d);
    }
    /* And the loss is the cross-entropy of those logits, computed here in double. */
    if (e && rc == 0) {
        double want = 0.0;
        for (int i = 0; i < rows; i++) {
            int tg = ex.targets[i];
            if (tg < 0)
                continue;
            const float *r = e->data + (size_t)i * V;
            double mx = r[0], s = 0.0;
            for (int j = 1; j < V; j++)
                mx = r[j] > mx ? r[j] : mx;
            for (int j = 0; j < V; j++)
                s += exp(r[j] - mx);
            want += log(s) + mx - r[tg];
        }
        CHECK_NEAR(l, want, 1e-4 * want, what);
    }
    trace_free(t);
    train_work_free(w);
}

/* Finite differences: for each weight tensor, the derivative of the loss along a random
 * direction confined to that tensor, and the single entry with the largest gradient. */
static void check_grads(Model *m, const char *what, int causal)
{
    TrainWork *w = train_work_new(m, MAXL, MAXL);
    float *g = calloc(m->n_floats, sizeof(float));
    TrainExample ex = example(m);
    int cnt;
    train_forward_backward(m, w, &ex, causal, g, &cnt);
    uint64_t s = 12345;
    int checked = 0;
    for (int i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        size_t len = (size_t)p->rows * p->cols;
        float *x = m->data + p->offset;
        const float *gp = g + p->offset;
        double gmax = 0.0;
        for (size_t k = 0; k < len; k++)
            gmax = fmax(gmax, fabs(gp[k]));
        if (!strcmp(p->name, "pos_embed") && m->cfg.pe != PE_LEARNED) {
            CHECK(gmax == 0.0, "%s: unused pos_embed has gradient %g", what, gmax);
            continue;
        }
        /* directional derivative */
        float *dir = malloc(sizeof(float) * len), *save = malloc(sizeof(float) * len);
        memcpy(save, x, sizeof(float) * len);
        double gd = 0.0, dn = 0.0;
        for (size_t k = 0; k < len; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            dir[k] = (float)(s >> 40) / (float)(1u << 24) - 0.5f;
            dn += (double)dir[k] * dir[k];
        }
        for (size_t k = 0; k < len; k++)
            dir[k] /= (float)sqrt(dn);
        for (size_t k = 0; k < len; k++)
            gd += (double)gp[k] * dir[k];
        const float eps = 3e-3f;
        for (size_t k = 0; k < len; k++)
            x[k] = save[k] + eps * dir[k];
        double lp = loss_of(m, w, causal);
        for (size_t k = 0; k < len; k++)
            x[k] = save[k] - eps * dir[k];
        double lm = loss_of(m, w, causal);
        memcpy(x, save, sizeof(float) * len);
        double fd = (lp - lm) / (2.0 * eps);
        char msg[160];
        snprintf(msg, sizeof msg, "%s: %s directional derivative", what, p->name);
        CHECK_NEAR(gd, fd, 2e-3 + 2e-2 * fabs(fd), msg);
        /* the largest single entry */
        size_t kmax = 0;
        for (size_t k = 0; k < len; k++)
            if (fabs(gp[k]) > fabs(gp[kmax]))
                kmax = k;
        x[kmax] = save[kmax] + eps;
        lp = loss_of(m, w, causal);
        x[kmax] = save[kmax] - eps;
        lm = loss_of(m, w, causal);
        x[kmax] = save[kmax];
        fd = (lp - lm) / (2.0 * eps);
        snprintf(msg, sizeof msg, "%s: %s[%zu]", what, p->name, kmax);
        CHECK_NEAR(gp[kmax], fd, 2e-3 + 2e-2 * fabs(fd), msg);
        /* a gradient of exactly zero everywhere would pass the checks above trivially */
        CHECK(gmax > 1e-6, "%s: %s has no gradient at all", what, p->name);
        checked++;
        free(dir);
        free(save);
    }
    CHECK(checked >= 10, "%s: only %d tensors checked", what, checked);
    free(g);
    train_work_free(w);
}

static void variant(const char *what, ModelConfig c, int causal)
{
    Model m;
    make_model(&m, c, 42);
    check_forward(&m, what);
    check_grads(&m, what, causal);
    model_free(&m);
}

static int tiny_corpus(Corpus *c, const Model *m);

static void test_variants(void)
{
    ModelConfig c = small_config(ARCH_DECODER);
    variant("decoder pre-LN gelu sinusoidal", c, 1);
    variant("decoder no causal mask", c, 0);
    c.pe = PE_LEARNED;
    c.ffn = FFN_RELU;
    c.tie_embed = 1;
    c.scale_embed = 1;
    variant("decoder learned-PE relu tied scaled", c, 1);
    c = small_config(ARCH_DECODER);
    c.norm = NORM_RMS;
    c.ffn = FFN_SWIGLU;
    c.pe = PE_NONE;
    variant("decoder RMSNorm SwiGLU no-PE", c, 1);
    c = small_config(ARCH_DECODER);
    c.pe = PE_ROPE;
    variant("decoder RoPE", c, 1);
    c = small_config(ARCH_ENCDEC);
    c.pe = PE_ROPE;
    variant("encoder-decoder RoPE", c, 1);
    c = small_config(ARCH_DECODER);
    c.pre_norm = 0;
    c.final_norm = 0;
    variant("decoder post-LN no final norm", c, 1);
    c = small_config(ARCH_ENCDEC);
    c.pe = PE_LEARNED;
    variant("encoder-decoder pre-LN", c, 1);
    c.pre_norm = 0;
    c.norm = NORM_RMS;
    variant("encoder-decoder post-RMS", c, 1);
    /* encoder-only (masked LM): no causal mask whatever the flag says; targets only at some
     * positions (the example's -1 is such a gap) */
    c = small_config(ARCH_ENCODER);
    c.pe = PE_LEARNED;
    variant("encoder pre-LN gelu learned-PE", c, 0);
    c.pe = PE_ROPE;
    c.pre_norm = 0;
    c.norm = NORM_RMS;
    c.ffn = FFN_SWIGLU;
    c.tie_embed = 1;
    variant("encoder post-RMS SwiGLU RoPE tied", c, 1);
    /* attention-only (no FFN sublayer): the induction model's kind, and post-norm */
    c = small_config(ARCH_DECODER);
    c.ffn = FFN_NONE;
    c.d_ff = 0;
    c.pe = PE_LEARNED;
    variant("attention-only decoder pre-LN learned-PE", c, 1);
    c.pre_norm = 0;
    c.norm = NORM_RMS;
    variant("attention-only decoder post-RMS", c, 1);
}

/* The encoder's trainer loss ignores the causal flag: every token reads every token. */
static void test_encoder_unmasked(void)
{
    Model m;
    make_model(&m, small_config(ARCH_ENCODER), 3);
    TrainWork *w = train_work_new(&m, MAXL, MAXL);
    double a = loss_of(&m, w, 0), b = loss_of(&m, w, 1);
    CHECK(a > 0.0 && a == b, "encoder loss does not depend on the causal flag (%g, %g)", a, b);
    /* and a word's prediction depends on the words after it */
    TrainExample ex = example(&m);
    int cnt, rows;
    train_forward_backward(&m, w, &ex, 0, NULL, &cnt);
    float first = train_work_logits(w, &rows)[0];
    int later[6];
    memcpy(later, SRC, sizeof later);
    later[5] = 12;
    ex.src = later;
    train_forward_backward(&m, w, &ex, 0, NULL, &cnt);
    CHECK(train_work_logits(w, &rows)[0] != first, "position 0 reads the last token");
    train_work_free(w);
    model_free(&m);
}

/* BERT's corruption: about rate of the tokens chosen, at least one; of those 80% <mask>,
 * 10% a random word of the pool, 10% unchanged; targets only where chosen; deterministic. */
static void test_mlm_mask(void)
{
    enum { N = 9, MASK = 1000 };
    int ids[N] = {10, 11, 12, 13, 14, 15, 16, 17, 18}, pool[3] = {500, 501, 502};
    int src[N], tgt[N], src2[N], tgt2[N];
    CorpusRng r, r2;
    corpus_rng_seed(&r, 5);
    corpus_rng_seed(&r2, 5);
    long chosen = 0, masked = 0, random_ = 0, kept = 0, total = 0, bad = 0, same = 1;
    for (int it = 0; it < 20000; it++) {
        int k = train_mlm_mask(&r, ids, N, 0.15f, MASK, pool, 3, src, tgt);
        train_mlm_mask(&r2, ids, N, 0.15f, MASK, pool, 3, src2, tgt2);
        same &= !memcmp(src, src2, sizeof src) && !memcmp(tgt, tgt2, sizeof tgt);
        int counted = 0;
        for (int i = 0; i < N; i++) {
            total++;
            if (tgt[i] < 0) {
                bad += src[i] != ids[i];
                continue;
            }
            counted++;
            bad += tgt[i] != ids[i];
            if (src[i] == MASK)
                masked++;
            else if (src[i] >= 500 && src[i] <= 502)
                random_++;
            else if (src[i] == ids[i])
                kept++;
            else
                bad++;
        }
        bad += counted != k || k < 1;
        chosen += k;
    }
    CHECK(bad == 0, "targets are the original words, unchosen words untouched (%ld bad)", bad);
    CHECK(same, "the same seed masks the same way");
    double rate = (double)chosen / total;
    CHECK(rate > 0.165 && rate < 0.185, "15%% chosen, plus one when none was (0.85^9 of the time): %.4f",
          rate);
    CHECK_NEAR((double)masked / chosen, 0.8, 0.01, "80% of the chosen become <mask>");
    CHECK_NEAR((double)random_ / chosen, 0.1, 0.01, "10% a random word");
    CHECK_NEAR((double)kept / chosen, 0.1, 0.01, "10% unchanged");
    /* no pool: <mask> instead of a random word; rate 1: everything chosen */
    corpus_rng_seed(&r, 9);
    CHECK(train_mlm_mask(&r, ids, N, 1.0f, MASK, NULL, 0, src, tgt) == N, "rate 1 chooses all");
    int ok = 1;
    for (int i = 0; i < N; i++)
        ok &= src[i] == MASK || src[i] == ids[i];
    CHECK(ok, "without a pool, chosen words are masked or kept");
}

/* A masked-LM encoder trained on the tiny corpus: loss falls, 1 and 2 threads agree. */
static void test_encoder_training(void)
{
    ModelConfig cfg = small_config(ARCH_ENCODER);
    cfg.pe = PE_LEARNED;
    Model a, b;
    make_model(&a, cfg, 1);
    make_model(&b, cfg, 1);
    Corpus c;
    CHECK(tiny_corpus(&c, &a) == 0, "tiny corpus loads");
    CHECK(train_mask_id(&a) == a.vocab.unk_id, "no <mask> in this vocabulary: <unk> hides words");
    TrainOpts o;
    train_opts_defaults(&o);
    o.steps = 200;
    o.batch = 8;
    o.seq_len = MAXL;
    o.lr = 1e-2f;
    o.warmup = 10;
    o.seed = 3;
    o.mask_rate = 0.3f;
    char err[256];
    o.threads = 1;
    Trainer *ta = train_new(&a, &c, &o, 1, err, sizeof err);
    o.threads = 2;
    Trainer *tb = train_new(&b, &c, &o, 1, err, sizeof err);
    CHECK(ta && tb, "encoder trainers: %s", err);
    if (!ta || !tb)
        return;
    double before = train_eval_loss(&a, &c, &o, 1, 60);
    CHECK(before == train_eval_loss(&a, &c, &o, 1, 60), "the evaluation masks are fixed");
    while (train_step(ta) == 0)
        CHECK(train_step(tb) == 0, "step %d: %s", train_step_count(tb), train_error(tb));
    double after = train_eval_loss(&a, &c, &o, 1, 60);
    /* each line is one of three sentences: once the first word is seen, the rest follows */
    CHECK(after < before * 0.5, "masked-LM loss falls: %.3f -> %.3f", before, after);
    CHECK(memcmp(a.data, b.data, sizeof(float) * a.n_floats) == 0,
          "encoder: 1 and 2 threads give the same bits");
    CHECK(train_tokens_done(ta) > 200L * 8 * 3 / 10 && train_tokens_done(ta) < 200L * 8 * 5,
          "tokens counted are the hidden words: %ld", train_tokens_done(ta));
    o.mask_rate = 0.0f;
    Trainer *tz = train_new(&a, &c, &o, 0, err, sizeof err);
    CHECK(!tz && strstr(err, "mask_rate"), "mask_rate 0 refused: %s", err);
    train_free(tz);
    train_free(ta);
    train_free(tb);
    corpus_free(&c);
    model_free(&a);
    model_free(&b);
}

/* AdamW against the formulas of Loshchilov & Hutter (decoupled decay) with bias correction,
 * worked out here step by step in double for one weight. */
static void test_adamw(void)
{
    TrainOpts o;
    train_opts_defaults(&o);
    o.weight_decay = 0.1f;
    float w[2] = {0.5f, -0.25f}, mom[2] = {0}, vel[2] = {0};
    unsigned char decay[2] = {1, 0};
    const float grads[3][2] = {{0.2f, -1.0f}, {-0.1f, 0.5f}, {0.3f, 0.0f}};
    double wr[2] = {0.5, -0.25}, mr[2] = {0}, vr[2] = {0};
    for (int t = 1; t <= 3; t++) {
        float lr = 0.01f * t;
        train_adamw(w, grads[t - 1], mom, vel, decay, 2, t, lr, &o);
        for (int i = 0; i < 2; i++) {
            double gi = grads[t - 1][i];
            if (decay[i])
                wr[i] *= 1.0 - lr * 0.1;
            mr[i] = 0.9 * mr[i] + 0.1 * gi;
            vr[i] = 0.99 * vr[i] + 0.01 * gi * gi;
            double mh = mr[i] / (1.0 - pow(0.9, t)), vh = vr[i] / (1.0 - pow(0.99, t));
            wr[i] -= lr * mh / (sqrt(vh) + 1e-8);
        }
    }
    CHECK_NEAR(w[0], wr[0], 1e-6, "adamw decayed weight");
    CHECK_NEAR(w[1], wr[1], 1e-6, "adamw undecayed weight");
    /* first step of Adam moves each weight by about lr, whatever the gradient's size */
    float x = 1.0f, m0 = 0, v0 = 0, gbig = 1000.0f;
    unsigned char nd = 0;
    train_adamw(&x, &gbig, &m0, &v0, &nd, 1, 1, 0.01f, &o);
    CHECK_NEAR(x, 0.99, 1e-5, "adam first step size");
}

static void test_schedule(void)
{
    TrainOpts o;
    train_opts_defaults(&o);
    o.steps = 100;
    o.warmup = 10;
    o.lr = 1e-2f;
    o.min_lr_ratio = 0.1f;
    CHECK_NEAR(train_lr_at(&o, 0), 1e-3, 1e-9, "lr at step 0 (warm-up)");
    CHECK_NEAR(train_lr_at(&o, 9), 1e-2, 1e-9, "lr at the end of warm-up");
    CHECK_NEAR(train_lr_at(&o, 99), 1e-3, 1e-8, "lr at the last step");
    int mono = 1;
    for (int s = 10; s < 99; s++)
        if (train_lr_at(&o, s + 1) > train_lr_at(&o, s))
            mono = 0;
    CHECK(mono, "lr decays monotonically after warm-up");
}

/* A tiny corpus: "a b c d e ." repeated with variations. */
static int tiny_corpus(Corpus *c, const Model *m)
{
    char path[] = "/tmp/attend_test_corpusXXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i < 60; i++)
        fprintf(f, "%s\n", i % 3 == 0 ? "a b c d e" : i % 3 == 1 ? "f g h i" : "a c e g i");
    fclose(f);
    char err[256];
    int rc = corpus_load_lm(c, path, &m->vocab, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    remove(path);
    return rc;
}

static void test_training(void)
{
    ModelConfig cfg = small_config(ARCH_DECODER);
    Model a, b;
    make_model(&a, cfg, 1);
    make_model(&b, cfg, 1);
    Corpus c;
    CHECK(tiny_corpus(&c, &a) == 0, "tiny corpus loads");
    TrainOpts o;
    train_opts_defaults(&o);
    o.steps = 150;
    o.batch = 6;
    o.seq_len = 6;
    o.lr = 1e-2f;
    o.warmup = 10;
    o.seed = 7;
    char err[256];
    o.threads = 1;
    Trainer *ta = train_new(&a, &c, &o, 1, err, sizeof err);
    o.threads = 2;
    Trainer *tb = train_new(&b, &c, &o, 1, err, sizeof err);
    CHECK(ta && tb, "trainers: %s", err);
    if (!ta || !tb)
        return;
    double before = train_eval_loss(&a, &c, &o, 1, 20);
    float first = 0.0f;
    int rc = 0;
    while ((rc = train_step(ta)) == 0) {
        if (train_step_count(ta) == 1)
            first = train_last_loss(ta);
        CHECK(train_step(tb) == 0, "step %d: %s", train_step_count(tb), train_error(tb));
    }
    CHECK(rc == 1 && train_step_count(ta) == 150, "stops after its steps (rc %d)", rc);
    CHECK(train_step(ta) == 1, "a finished trainer does nothing");
    double after = train_eval_loss(&a, &c, &o, 1, 20);
    CHECK(after < before * 0.5, "eval loss falls: %.3f -> %.3f", before, after);
    CHECK(train_last_loss(ta) < first * 0.5, "train loss falls: %.3f -> %.3f", (double)first,
          (double)train_last_loss(ta));
    CHECK(memcmp(a.data, b.data, sizeof(float) * a.n_floats) == 0,
          "1 and 2 threads give the same bits");
    CHECK(train_tokens_done(ta) == 150L * 6 * 6, "tokens counted: %ld", train_tokens_done(ta));
    /* the same seed again gives the same bits; another seed does not */
    Model d, e;
    make_model(&d, cfg, 1);
    make_model(&e, cfg, 1);
    Trainer *td = train_new(&d, &c, &o, 1, err, sizeof err);
    o.seed = 8;
    Trainer *te = train_new(&e, &c, &o, 1, err, sizeof err);
    while (train_step(td) == 0 && train_step(te) == 0) {
    }
    CHECK(memcmp(a.data, d.data, sizeof(float) * a.n_floats) == 0, "same seed, same bits");
    CHECK(memcmp(a.data, e.data, sizeof(float) * a.n_floats) != 0, "another seed differs");
    /* a step on explicit examples */
    TrainExample ex = {SRC, 6, NULL, 0, TGT_LM};
    CHECK(train_step_on(td, &ex, 1) == 0, "train_step_on: %s", train_error(td));
    ex.n = MAXL + 1;
    CHECK(train_step_on(td, &ex, 1) == -1, "train_step_on rejects a too-long example");
    train_free(ta);
    train_free(tb);
    train_free(td);
    train_free(te);
    corpus_free(&c);
    model_free(&a);
    model_free(&b);
    model_free(&d);
    model_free(&e);
}

static void test_bad_inputs(void)
{
    ModelConfig cfg = small_config(ARCH_DECODER);
    Model m;
    make_model(&m, cfg, 1);
    TrainWork *w = train_work_new(&m, MAXL, MAXL);
    int bad_ids[3] = {4, V, 5}, tg[3] = {5, 6, 7}, cnt;
    TrainExample ex = {bad_ids, 3, NULL, 0, tg};
    CHECK(train_forward_backward(&m, w, &ex, 1, NULL, &cnt) < 0, "out-of-vocabulary id rejected");
    int ok_ids[3] = {4, 5, 6};
    ex.src = ok_ids;
    ex.n = MAXL + 1;
    CHECK(train_forward_backward(&m, w, &ex, 1, NULL, &cnt) < 0, "too long rejected");
    train_work_free(w);
    /* an encoder-decoder model refuses a text corpus */
    Corpus c;
    tiny_corpus(&c, &m);
    Model ed;
    make_model(&ed, small_config(ARCH_ENCDEC), 1);
    TrainOpts o;
    train_opts_defaults(&o);
    o.seq_len = 6;
    char err[256] = "";
    Trainer *t = train_new(&ed, &c, &o, 1, err, sizeof err);
    CHECK(t == NULL && strstr(err, "sentence-pair"), "encoder-decoder needs pairs: %s", err);
    o.seq_len = MAXL + 5;
    t = train_new(&m, &c, &o, 1, err, sizeof err);
    CHECK(t == NULL && strstr(err, "seq_len"), "seq_len beyond max_len: %s", err);
    corpus_free(&c);
    model_free(&ed);
    model_free(&m);
}

/* ---- the trainer's kernels against their plain reference chains, bit for bit ---- */

static uint64_t tk_state = 0x2545f4914f6cdd1dull;
static float tk_rand(void) /* uniform in [-2, 2), a quarter of them exactly 0 */
{
    tk_state ^= tk_state << 13;
    tk_state ^= tk_state >> 7;
    tk_state ^= tk_state << 17;
    if ((tk_state >> 20) % 4 == 0)
        return 0.0f; /* mm_at_b skips zero terms: exercise the skip */
    return (float)((tk_state >> 40) * (4.0 / 16777216.0) - 2.0);
}

static void tk_fill(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = tk_rand();
}

/* a·b with a product rounded, then a sum rounded (what every trainer kernel does). */
static float tk_madd(float acc, float a, float b)
{
    volatile float prod = a * b;
    return acc + prod;
}

static void test_train_kernels(void)
{
    static const int rows[] = {1, 3, 5, 7, 13};
    static const int widths[] = {1, 2, 3, 5, 7, 8, 9, 12, 13, 16, 17, 40, 274};
    enum { N = 13, K = 274 };
    static float a[N * K], b[K * K], out[N * K], ref[N * K], dw[K * K], dref[K * K],
        out2[N * K], wt[TRAIN_ABT_FLOATS(K)];
    long bad_mm = 0, bad_acc = 0, bad_atb = 0, bad_abt = 0, shapes = 0;
    for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++)
        for (size_t ki = 0; ki < sizeof widths / sizeof widths[0]; ki++)
            for (size_t mi = 0; mi < sizeof widths / sizeof widths[0]; mi++) {
                int n = rows[ri], k = widths[ki], m = widths[mi];
                if (k == 274 && m == 274)
                    continue;
                tk_fill(a, (size_t)n * k);
                tk_fill(b, (size_t)k * m);
                /* out = a·b, and out += a·b */
                train_mm(out, a, b, n, k, m, 0);
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < m; j++) {
                        float acc = 0.0f;
                        for (int p = 0; p < k; p++)
                            acc = tk_madd(acc, a[i * k + p], b[p * m + j]);
                        ref[i * m + j] = acc;
                    }
                bad_mm += memcmp(out, ref, sizeof(float) * (size_t)n * m) != 0;
                tk_fill(out, (size_t)n * m);
                memcpy(ref, out, sizeof(float) * (size_t)n * m);
                train_mm(out, a, b, n, k, m, 1);
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < m; j++)
                        for (int p = 0; p < k; p++)
                            ref[i * m + j] = tk_madd(ref[i * m + j], a[i * k + p], b[p * m + j]);
                bad_acc += memcmp(out, ref, sizeof(float) * (size_t)n * m) != 0;
                /* dw[k×m] += aᵀ·g with g = b read as n×m: zero terms of a skipped */
                tk_fill(dw, (size_t)k * m);
                memcpy(dref, dw, sizeof(float) * (size_t)k * m);
                train_mm_at_b(dw, a, b, n, k, m);
                for (int i = 0; i < n; i++)
                    for (int p = 0; p < k; p++)
                        if (a[i * k + p] != 0.0f)
                            for (int j = 0; j < m; j++)
                                dref[p * m + j] = tk_madd(dref[p * m + j], a[i * k + p], b[i * m + j]);
                bad_atb += memcmp(dw, dref, sizeof(float) * (size_t)k * m) != 0;
                /* dx[n×m] += g[n×k]·w[m×k]ᵀ with g = a, w = b read as m×k: 8 lanes */
                tk_fill(out, (size_t)n * m);
                memcpy(ref, out, sizeof(float) * (size_t)n * m);
                memcpy(out2, out, sizeof(float) * (size_t)n * m);
                train_mm_a_bt(out, a, b, n, k, m, wt);
                train_mm_a_bt(out2, a, b, n, k, m, NULL); /* no scratch: the portable loop */
                for (int i = 0; i < n; i++)
                    for (int p = 0; p < m; p++) {
                        float l[8] = {0, 0, 0, 0, 0, 0, 0, 0};
                        int j = 0;
                        for (; j + 8 <= k; j += 8)
                            for (int u = 0; u < 8; u++)
                                l[u] = tk_madd(l[u], a[i * k + j + u], b[p * k + j + u]);
                        float sum = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
                        for (; j < k; j++)
                            sum = tk_madd(sum, a[i * k + j], b[p * k + j]);
                        ref[i * m + p] += sum;
                    }
                bad_abt += memcmp(out, ref, sizeof(float) * (size_t)n * m) != 0;
                bad_abt += memcmp(out2, ref, sizeof(float) * (size_t)n * m) != 0;
                shapes++;
            }
    CHECK(shapes == 5 * (13 * 13 - 1), "%ld shapes", shapes);
    CHECK(bad_mm == 0, "train_mm: %ld shapes differ from the in-order chain", bad_mm);
    CHECK(bad_acc == 0, "train_mm (accumulate): %ld shapes differ", bad_acc);
    CHECK(bad_atb == 0, "train_mm_at_b: %ld shapes differ from the in-order chain", bad_atb);
    CHECK(bad_abt == 0, "train_mm_a_bt: %ld shapes differ from the 8-lane order", bad_abt);
}

/* ---- the trainer's tanh (its GELU): accuracy, and the vector path's bits ---- */

/* |got − tanh(x)| in units of the last place of the float nearest tanh(x). */
static double tanh_ulps(float got, float x)
{
    double ref = tanh((double)x);
    float r = fabsf((float)ref);
    double ulp = r >= 1.0f ? 1.0 - (double)nextafterf(1.0f, 0.0f)
                           : (double)nextafterf(r, INFINITY) - (double)r;
    return fabs((double)got - ref) / ulp;
}

static void test_tanh(void)
{
    enum { B = 4096 };
    static float in[B], out[B];
    double worst = 0.0;
    float worst_x = 0.0f;
    long differ = 0, n = 0;
    /* every 61st float from 2^-30 up to 12, both signs, B at a time (each block's last few go
     * through the scalar tail when the vector path runs) */
    uint32_t lo, hi;
    float f = 0x1p-30f;
    memcpy(&lo, &f, sizeof lo);
    f = 12.0f;
    memcpy(&hi, &f, sizeof hi);
    for (uint32_t u = lo; u < hi;) {
        int k = 0;
        for (; k < B - 3 && u < hi; k++, u += 61) {
            memcpy(&in[k], &u, sizeof(float));
            if (k & 1)
                in[k] = -in[k];
        }
        train_tanh(out, in, (size_t)k);
        for (int j = 0; j < k; j++) {
            double e = tanh_ulps(out[j], in[j]);
            if (e > worst) {
                worst = e;
                worst_x = in[j];
            }
            float s = train_tanh1(in[j]);
            differ += memcmp(&s, &out[j], sizeof s) != 0;
        }
        n += k;
    }
    CHECK(n > 4000000, "%ld arguments swept", n);
    CHECK(worst <= 2.5, "tanh within 2.5 ulp of double tanh (worst %.3f at %.9g)", worst,
          (double)worst_x);
    CHECK(differ == 0, "train_tanh and train_tanh1: %ld of %ld differ", differ, n);
    /* the edges: signed zeros, the smallest subnormal, the cap, infinities and NaN, for every
     * length 1..17 (vector blocks and scalar tails) */
    static const float edge[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 9.0f, -9.0f, 9.5f,
                                 INFINITY, -INFINITY, 1e30f, -1e30f, 1e-3f, 0.5f, -0.75f, 3.0f,
                                 -20.0f, 0x1p-126f};
    int ne = (int)(sizeof edge / sizeof edge[0]), bad = 0;
    for (int len = 1; len <= ne; len++) {
        train_tanh(out, edge, (size_t)len);
        for (int j = 0; j < len; j++) {
            float s = train_tanh1(edge[j]);
            bad += memcmp(&s, &out[j], sizeof s) != 0;
        }
    }
    CHECK(bad == 0, "edges: vector and scalar paths agree (%d differ)", bad);
    CHECK(train_tanh1(INFINITY) == 1.0f && train_tanh1(-INFINITY) == -1.0f &&
          train_tanh1(9.5f) == 1.0f, "tanh(±inf) = ±1, tanh(9.5) = 1");
    CHECK(signbit(train_tanh1(-0.0f)) && train_tanh1(-0.0f) == 0.0f, "tanh(-0) = -0");
    CHECK(train_tanh1(0x1p-149f) == 0x1p-149f, "tanh of the smallest subnormal is itself");
    CHECK(isnan(train_tanh1(NAN)), "tanh(NaN) is NaN");
    in[0] = NAN;
    train_tanh(out, in, 1);
    for (int j = 0; j < 8; j++)
        in[j] = j == 5 ? NAN : 0.25f * (float)j;
    train_tanh(out, in, 8);
    CHECK(isnan(out[5]) && !isnan(out[4]) && out[0] == 0.0f, "NaN stays in its lane");
}

int main(void)
{
    test_tanh();
    test_train_kernels();
    test_variants();
    test_encoder_unmasked();
    test_mlm_mask();
    test_encoder_training();
    test_adamw();
    test_schedule();
    test_training();
    test_bad_inputs();
    return t_done("train");
}
