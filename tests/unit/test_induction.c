/* test_induction.c - the repeated-sequence task (its examples' layout, targets, lengths and
 * randomness), attention-only models (no FFN weights, the file round trip), head ablation in
 * the forward pass, and the head scores on hand-made attention patterns. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ablation.h"
#include "heads.h"
#include "json.h"
#include "placeholder.h"
#include "model.h"
#include "repeat.h"
#include "t.h"
#include "ui_text.h"

#define L 24

static void make_vocab(Vocab *v, int n_words)
{
    char err[128];
    const char *w[40];
    static char buf[40][8];
    w[0] = "<pad>";
    w[1] = "<unk>";
    w[2] = "<bos>";
    for (int i = 0; i < n_words; i++) {
        snprintf(buf[i], sizeof buf[i], "w%d", i);
        w[3 + i] = buf[i];
    }
    if (vocab_init(v, w, 3 + n_words, err, sizeof err)) {
        fprintf(stderr, "setup: %s\n", err);
        exit(1);
    }
}

static void test_examples(void)
{
    Vocab v;
    make_vocab(&v, 20);
    int pool[64], n_pool = repeat_pool(&v, pool, 64);
    CHECK(n_pool == 20, "the pool is the 20 ordinary words, got %d", n_pool);
    for (int i = 0; i < n_pool; i++)
        CHECK(vocab_word(&v, pool[i])[0] == 'w', "pool word %s", vocab_word(&v, pool[i]));
    RepeatOpts o = {1, 3, 9, REPEAT_LOSS_SECOND};
    char err[160];
    CHECK(repeat_check(&o, L, err, sizeof err) == 0, "%s", err);
    RepeatOpts too_long = {1, 3, 12, REPEAT_LOSS_SECOND};
    CHECK(repeat_check(&too_long, L, err, sizeof err) < 0 && strstr(err, "max_segment 12"),
          "a segment that cannot fit twice is refused: %s", err);
    CorpusRng rng, again;
    corpus_rng_seed(&rng, 7);
    corpus_rng_seed(&again, 7);
    int seen_n[L] = {0}, seen_s1[L] = {0};
    for (int e = 0; e < 400; e++) {
        int src[L], tgt[L], src2[L], tgt2[L];
        RepeatSpan sp, sp2;
        o.loss = e % 3 == 0 ? REPEAT_LOSS_ALL : e % 3 == 1 ? REPEAT_LOSS_SECOND : REPEAT_LOSS_COPIES;
        repeat_example(&rng, &o, pool, n_pool, 2, L, src, tgt, &sp);
        repeat_example(&again, &o, pool, n_pool, 2, L, src2, tgt2, &sp2);
        CHECK(!memcmp(src, src2, sizeof src) && !memcmp(tgt, tgt2, sizeof tgt),
              "the same seed gives the same example");
        CHECK(src[0] == 2, "<bos> first");
        CHECK(sp.n >= 3 && sp.n <= 9 && sp.s1 >= 1 && sp.s2 == sp.s1 + sp.n &&
              sp.s2 + sp.n <= L, "span %d %d %d", sp.s1, sp.s2, sp.n);
        seen_n[sp.n]++;
        seen_s1[sp.s1]++;
        for (int i = 0; i < sp.n; i++)
            CHECK(src[sp.s2 + i] == src[sp.s1 + i], "the second copy repeats the first");
        for (int i = 1; i < L; i++)
            CHECK(src[i] != 2 && src[i] >= 3, "only ordinary words after <bos>");
        for (int i = 0; i < L; i++) {
            int second = i >= sp.s2 && i <= sp.s2 + sp.n - 2;
            int first = i >= sp.s1 && i <= sp.s1 + sp.n - 2;
            if (o.loss == REPEAT_LOSS_ALL || second || (first && o.loss == REPEAT_LOSS_COPIES))
                CHECK(tgt[i] >= 3, "a target at %d", i);
            else
                CHECK(tgt[i] == -1, "no loss at %d (loss mode %d)", i, (int)o.loss);
            if (tgt[i] >= 0 && i + 1 < L)
                CHECK(tgt[i] == src[i + 1], "the target is the next token");
            if (second)
                CHECK(tgt[i] == src[i - sp.n + 1], "the second copy's target is the token "
                      "after the earlier occurrence");
        }
    }
    for (int n = 3; n <= 9; n++)
        CHECK(seen_n[n] > 20, "segment length %d drawn %d times of 400", n, seen_n[n]);
    int starts = 0;
    for (int i = 0; i < L; i++)
        starts += seen_s1[i] > 0;
    CHECK(starts >= 10, "the first copy starts at %d different places", starts);
    /* the probes */
    int src[L];
    RepeatSpan sp;
    int n = repeat_probe(&rng, pool, n_pool, 2, 8, 0, src, &sp);
    CHECK(n == 17 && sp.s1 == 1 && sp.s2 == 9 && sp.n == 8, "probe layout");
    for (int i = 0; i < 8; i++) {
        CHECK(src[9 + i] == src[1 + i], "probe repeats");
        for (int j = 0; j < i; j++)
            CHECK(src[1 + i] != src[1 + j], "probe words are distinct");
    }
    n = repeat_probe(&rng, pool, n_pool, 2, 8, 1, src, &sp);
    int same = 1;
    for (int i = 0; i < 8; i++) {
        int found = 0;
        for (int j = 0; j < 8; j++)
            found += src[9 + i] == src[1 + j];
        CHECK(found == 1, "the shuffled copy is a permutation");
        same &= src[9 + i] == src[1 + i];
    }
    (void)same;
    vocab_free(&v);
}

static void attn_only_model(Model *m)
{
    char err[256];
    Vocab v;
    make_vocab(&v, 20);
    ModelConfig c;
    model_config_defaults(&c);
    c.vocab_size = v.n;
    c.d_model = 16;
    c.n_heads = 2;
    c.d_head = 8;
    c.n_layers = 2;
    c.ffn = FFN_NONE;
    c.d_ff = 0;
    c.max_len = L;
    c.pe = PE_LEARNED;
    if (model_new(m, &c, &v, err, sizeof err)) {
        fprintf(stderr, "setup: %s\n", err);
        exit(1);
    }
    model_init_random(m, 3);
}

static void test_attention_only(void)
{
    char err[256];
    Model m;
    attn_only_model(&m);
    for (int i = 0; i < m.n_params; i++)
        CHECK(!strstr(m.params[i].name, "ffn") && !strstr(m.params[i].name, "norm2"),
              "an attention-only model has no %s", m.params[i].name);
    ModelConfig bad = m.cfg;
    bad.d_ff = 16;
    CHECK(model_config_check(&bad, err, sizeof err) < 0 && strstr(err, "d_ff"),
          "d_ff with ffn none is refused: %s", err);
    char path[] = "/tmp/attend-test-induction-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "temp file");
    if (fd >= 0) {
        close(fd);
        Model back;
        int rc = model_save(&m, path, err, sizeof err);
        CHECK(rc == 0, "save: %s", err);
        rc = rc ? rc : model_load(&back, path, err, sizeof err);
        CHECK(rc == 0, "load: %s", err);
        if (rc == 0) {
            CHECK(back.cfg.ffn == FFN_NONE && back.cfg.d_ff == 0 && back.n_floats == m.n_floats,
                  "round trip keeps the attention-only layout");
            CHECK(!memcmp(back.data, m.data, sizeof(float) * m.n_floats), "same weights");
            model_free(&back);
        }
        unlink(path);
    }
    /* a forward pass has no FFN entries */
    Trace *t = trace_new(&m, L, 1);
    int src[6] = {2, 5, 6, 7, 5, 6};
    Controls c;
    model_default_controls(&m, &c);
    CHECK(model_forward(&m, src, 6, NULL, 0, &c, t, err, sizeof err) == 0, "%s", err);
    CHECK(trace_find(t, STACK_DEC, 0, SUB_FFN, -1, T_FFN_OUT) == NULL, "no FFN in the trace");
    trace_free(t);
    model_free(&m);
}

/* Knocking out a head zeroes its output, keeps its pattern, changes what comes after. */
static void test_ablation(void)
{
    char err[256];
    Model m;
    attn_only_model(&m);
    Trace *a = trace_new(&m, L, 1), *b = trace_new(&m, L, 1);
    int src[8] = {2, 5, 6, 7, 8, 5, 6, 7};
    Controls c, k;
    model_default_controls(&m, &c);
    k = c;
    k.ablate[0] = 1u << 1; /* L0.h1 */
    CHECK(model_forward(&m, src, 8, NULL, 0, &c, a, err, sizeof err) == 0, "%s", err);
    CHECK(model_forward(&m, src, 8, NULL, 0, &k, b, err, sizeof err) == 0, "%s", err);
    const TraceEntry *o = trace_find(b, STACK_DEC, 0, SUB_SELF, 1, T_HEAD_OUT);
    int zero = 1;
    for (int i = 0; o && i < o->rows * o->cols; i++)
        zero &= o->data[i] == 0.0f;
    CHECK(o && zero, "the knocked-out head's output is zero");
    const TraceEntry *wa = trace_find(a, STACK_DEC, 0, SUB_SELF, 1, T_WEIGHTS);
    const TraceEntry *wb = trace_find(b, STACK_DEC, 0, SUB_SELF, 1, T_WEIGHTS);
    CHECK(!memcmp(wa->data, wb->data, sizeof(float) * 64), "its own pattern is unchanged");
    const TraceEntry *h0a = trace_find(a, STACK_DEC, 0, SUB_SELF, 0, T_HEAD_OUT);
    const TraceEntry *h0b = trace_find(b, STACK_DEC, 0, SUB_SELF, 0, T_HEAD_OUT);
    CHECK(!memcmp(h0a->data, h0b->data, sizeof(float) * 8 * 8), "the other head is untouched");
    const TraceEntry *la = trace_find(a, STACK_DEC, 1, SUB_SELF, 0, T_WEIGHTS);
    const TraceEntry *lb = trace_find(b, STACK_DEC, 1, SUB_SELF, 0, T_WEIGHTS);
    float d = 0.0f;
    for (int i = 0; i < 64; i++)
        d = fmaxf(d, fabsf(la->data[i] - lb->data[i]));
    CHECK(d > 1e-4f, "the later layer's pattern changes (max %g)", (double)d);
    int cl, ch, cr;
    double pd = heads_pattern_change(a, b, 1, &cl, &ch, &cr);
    CHECK(cl == 1 && pd >= d - 1e-6, "heads_pattern_change finds layer 1's change: L%d %g", cl, pd);
    CHECK(heads_pattern_change(a, a, 0, &cl, &ch, &cr) == 0.0 && cl == -1, "no change: none");
    double la_ = heads_sentence_loss(a), lb_ = heads_sentence_loss(b);
    CHECK(isfinite(la_) && isfinite(lb_) && la_ != lb_, "sentence losses %g %g", la_, lb_);
    char words[600];
    CHECK(ablation_words(b, 0, 1, words, sizeof words) == 0, "%s", words);
    CHECK(strstr(words, "L0.h1 knocked out") && strstr(words, "loss "),
          "the words name the head and the loss: %s", words);
    CHECK(strlen(words) <= ABLATION_COLS, "the words fit the status line at 80 columns (%zu): %s",
          strlen(words), words);
    char want[64];
    snprintf(want, sizeof want, "%.2f -> %.2f", la_, lb_);
    CHECK(strstr(words, want) != NULL, "the words carry the computed losses (%s): %s", want, words);
    uint64_t bits[ATTEND_MAX_LAYERS] = {0};
    char err2[200];
    CHECK(heads_ablate_parse("1.1,0.0", &m, bits, err2, sizeof err2) == 0 && bits[1] == 2 &&
          bits[0] == 1, "parse a list");
    CHECK(heads_ablate_parse("2.0", &m, bits, err2, sizeof err2) < 0 && strstr(err2, "2.0"),
          "a head the model lacks: %s", err2);
    CHECK(heads_ablate_parse("1-2", &m, bits, err2, sizeof err2) < 0, "bad syntax");
    trace_free(a);
    trace_free(b);
    model_free(&m);
}

/* heads_scores on a model whose layer-1 head 0 is wired to copy: its scores must follow the
 * definitions (checked here against the weights read back from a trace). */
static void test_scores_match_trace(void)
{
    char err[256];
    Model m;
    attn_only_model(&m);
    HeadProbe p;
    heads_probe_defaults(&m, &p);
    CHECK(p.n_lens == 4 && p.lens[0] == 3 && p.lens[3] == (L - 1) / 2, "default lengths %d..%d",
          p.lens[0], p.lens[p.n_lens - 1]);
    p.n_probes = 1;
    p.n_lens = 1;
    p.lens[0] = 5;
    HeadScores sc[4];
    CHECK(heads_scores(&m, &p, NULL, sc, err, sizeof err) == 0, "%s", err);
    /* recompute head L1.h0's scores by hand from the same probes */
    int pool[64], n_pool = repeat_pool(&m.vocab, pool, 64), src[L];
    CorpusRng rng;
    corpus_rng_seed(&rng, p.seed);
    RepeatSpan sp;
    int n = repeat_probe(&rng, pool, n_pool, 2, 5, 0, src, &sp);
    Trace *t = trace_new(&m, L, 1);
    Controls c;
    model_default_controls(&m, &c);
    model_forward(&m, src, n, NULL, 0, &c, t, err, sizeof err);
    const TraceEntry *w = trace_find(t, STACK_DEC, 1, SUB_SELF, 0, T_WEIGHTS);
    double prev = 0, ind = 0, self = 0, first = 0;
    for (int i = 1; i < n; i++) {
        prev += w->data[i * n + i - 1];
        self += w->data[i * n + i];
        first += w->data[i * n];
    }
    for (int i = sp.s2; i < sp.s2 + 5; i++)
        ind += w->data[i * n + i - 5 + 1];
    CHECK_NEAR(sc[2].prev, prev / (n - 1), 1e-6, "prev");
    CHECK_NEAR(sc[2].self, self / (n - 1), 1e-6, "self");
    CHECK_NEAR(sc[2].first, first / (n - 1), 1e-6, "first");
    CHECK_NEAR(sc[2].induction, ind / 5, 1e-6, "induction");
    CHECK_NEAR(sc[2].by_len[0], sc[2].induction, 1e-12, "one length: by_len is the score");
    double s1, s2;
    CHECK(heads_copy_loss(&m, &p, NULL, &s1, &s2, err, sizeof err) == 0, "%s", err);
    CHECK(s1 > 0 && s2 > 0, "copy losses %g %g", s1, s2);
    p.lens[0] = 12; /* 1 + 24 > max_len 24 */
    CHECK(heads_scores(&m, &p, NULL, sc, err, sizeof err) < 0 && strstr(err, "12"),
          "a probe too long is refused: %s", err);
    trace_free(t);
    model_free(&m);
}

/* The shipped data/induction.json (run from the repository root): a layer-0 previous-token
 * head, a layer-1 induction head at every segment length it never trained on (not a fixed
 * offset), prefix-matching on shuffled copies; knocking the induction head out raises the
 * second-copy loss while the first copy's barely moves; knocking the previous-token head out
 * breaks induction (K-composition); the recorded history starts at chance and ends low. */
static void test_shipped(void)
{
    char err[512];
    Model m;
    if (model_load(&m, "data/induction.json", err, sizeof err)) {
        CHECK(0, "%s", err);
        return;
    }
    CHECK(m.cfg.ffn == FFN_NONE && m.cfg.n_layers == 2, "attention-only, two layers");
    cJSON *tr = m.training ? cJSON_Parse(m.training) : NULL;
    const cJSON *rep = tr ? cJSON_GetObjectItemCaseSensitive(tr, "repeat") : NULL;
    int lo = rep ? cJSON_GetObjectItemCaseSensitive(rep, "min_segment")->valueint : 0;
    int hi = rep ? cJSON_GetObjectItemCaseSensitive(rep, "max_segment")->valueint : 0;
    CHECK(lo > 0 && hi >= lo, "the training record names its segment lengths %d..%d", lo, hi);
    HeadProbe p;
    heads_probe_defaults(&m, &p);
    CHECK(p.n_lens >= 2, "probe lengths");
    for (int i = 0; i < p.n_lens; i++)
        CHECK(p.lens[i] < lo || p.lens[i] > hi, "probe length %d was never trained on",
              p.lens[i]);
    int H = m.cfg.n_heads, nh = 2 * H;
    HeadScores sc[2 * 64];
    CHECK(heads_scores(&m, &p, NULL, sc, err, sizeof err) == 0, "%s", err);
    int prev = 0, ind = H;
    for (int h = 0; h < H; h++) {
        if (sc[h].prev > sc[prev].prev) prev = h;
        if (sc[H + h].induction > sc[ind].induction) ind = H + h;
    }
    CHECK(sc[prev].prev >= 0.5, "L0.h%d is a previous-token head: %.3f", prev, sc[prev].prev);
    CHECK(sc[ind].induction >= 0.4, "L1.h%d is an induction head: %.3f", ind - H,
          sc[ind].induction);
    for (int i = 0; i < p.n_lens; i++)
        CHECK(sc[ind].by_len[i] >= 0.3, "at length %d too (%.3f): not a fixed offset",
              p.lens[i], sc[ind].by_len[i]);
    CHECK(sc[ind].prefix >= 0.3, "prefix-matching on shuffled copies: %.3f", sc[ind].prefix);
    CHECK(sc[ind].prev < 0.2, "the induction head is not a previous-token head: %.3f",
          sc[ind].prev);
    double f0, s0, f1, s1, f2, s2;
    Controls c;
    model_default_controls(&m, &c);
    CHECK(heads_copy_loss(&m, &p, &c, &f0, &s0, err, sizeof err) == 0, "%s", err);
    c.ablate[1] = (uint64_t)1 << (ind - H);
    CHECK(heads_copy_loss(&m, &p, &c, &f1, &s1, err, sizeof err) == 0, "%s", err);
    CHECK(s1 > 1.5 * s0 && s1 > s0 + 0.3, "knocking L1.h%d out: second copy %.3f -> %.3f",
          ind - H, s0, s1);
    CHECK(fabs(f1 - f0) < 0.25, "the first copy barely moves: %.3f -> %.3f", f0, f1);
    memset(c.ablate, 0, sizeof c.ablate);
    c.ablate[0] = (uint64_t)1 << prev;
    CHECK(heads_copy_loss(&m, &p, &c, &f2, &s2, err, sizeof err) == 0, "%s", err);
    CHECK(s2 > 0.7 * log(64.0), "knocking out the previous-token head L0.h%d breaks induction "
          "(K-composition): second copy %.3f -> %.3f", prev, s0, s2);
    HeadScores sk[2 * 64];
    CHECK(heads_scores(&m, &p, &c, sk, err, sizeof err) == 0, "%s", err);
    CHECK(sk[ind].induction < 0.5 * sc[ind].induction, "and its pattern: %.3f -> %.3f",
          sc[ind].induction, sk[ind].induction);
    const cJSON *hist = tr ? cJSON_GetObjectItemCaseSensitive(tr, "history") : NULL;
    const cJSON *ls = hist ? cJSON_GetObjectItemCaseSensitive(hist, "loss_second") : NULL;
    int npt = ls ? cJSON_GetArraySize(ls) : 0;
    CHECK(npt >= 10, "a recorded history of %d points", npt);
    if (npt >= 10) {
        double a = cJSON_GetArrayItem(ls, 0)->valuedouble, z = cJSON_GetArrayItem(ls, npt - 1)->valuedouble;
        CHECK(a > 3.5 && z < 0.5 * a, "the second-copy loss falls from %.3f to %.3f", a, z);
        CHECK(fabs(z - s0) < 1e-3, "the history's last point is the file's model: %.4f %.4f", z, s0);
    }
    /* the lesson's replay placeholders read the same history */
    PlaceholderCtx px = {0};
    px.model = &m;
    char out[512], e3[320], want[64];
    if (npt >= 10) {
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(hist, "step");
        int phase = -1;
        double a = cJSON_GetArrayItem(ls, 0)->valuedouble;
        for (int i = 0; i < npt && phase < 0; i++)
            if (cJSON_GetArrayItem(ls, i)->valuedouble < 0.5 * a)
                phase = cJSON_GetArrayItem(st, i)->valueint;
        snprintf(want, sizeof want, "%d", phase);
        CHECK(placeholder_value("phase", &px, out, sizeof out, e3, sizeof e3) == 0 &&
              !strcmp(out, want), "{{phase}} %s, the history says %s (%s)", out, want, e3);
        snprintf(want, sizeof want, "%.2f", cJSON_GetArrayItem(ls, npt - 1)->valuedouble);
        CHECK(placeholder_value("hist loss_second last", &px, out, sizeof out, e3, sizeof e3) == 0
              && !strcmp(out, want), "{{hist loss_second last}} %s, want %s", out, want);
        const cJSON *ind1 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(hist, "scores"), "induction"), H + 1);
        snprintf(want, sizeof want, "%.3f", cJSON_GetArrayItem(ind1, 20)->valuedouble);
        char body[64];
        snprintf(body, sizeof body, "hist induction.1.1 %d .3",
                 cJSON_GetArrayItem(st, 20)->valueint);
        CHECK(placeholder_value(body, &px, out, sizeof out, e3, sizeof e3) == 0 &&
              !strcmp(out, want), "{{%s}} %s, want %s (%s)", body, out, want, e3);
        px.ascii = 1;
        CHECK(placeholder_value("curve loss_second", &px, out, sizeof out, e3, sizeof e3) == 0 &&
              strlen(out) == (size_t)(npt < 40 ? npt : 40) && out[0] == '#',
              "an ASCII curve of 40 columns starting at the top: %s", out);
        /* one glyph rule: the player's ASCII fallback of the UTF-8 curve is the ASCII curve
         * (plain mode's too: tests/ref/plain.sh) */
        char utf[400], asc[200];
        px.ascii = 0;
        CHECK(placeholder_value("curve loss_second", &px, utf, sizeof utf, e3, sizeof e3) == 0 &&
              strlen(utf) == 3 * strlen(out), "a UTF-8 curve of blocks: %s", utf);
        int was = ui.utf8;
        ui.utf8 = 0;
        CHECK(!strcmp(ui_text(utf, asc, sizeof asc), out), "ASCII fallback %s, want %s", asc, out);
        ui.utf8 = was;
        px.ascii = 1;
        CHECK(placeholder_value("hist loss_second 7", &px, out, sizeof out, e3, sizeof e3) < 0,
              "an unrecorded step is an error");
        CHECK(placeholder_value("curve induction.5.0", &px, out, sizeof out, e3, sizeof e3) < 0 &&
              strstr(e3, "induction.5.0"), "a head the model lacks: %s", e3);
    }
    (void)nh;
    cJSON_Delete(tr);
    model_free(&m);
}

int main(void)
{
    test_examples();
    test_attention_only();
    test_ablation();
    test_scores_match_trace();
    test_shipped();
    return t_done("test_induction");
}
