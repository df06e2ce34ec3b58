/* test_explain.c - the explanation widgets' numbers against independent recomputation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "t.h"

static int make_model(Model *m, int pe, int attn_only, int final_norm)
{
    ModelConfig c;
    model_config_defaults(&c);
    c.vocab_size = 12; c.d_model = 16; c.n_heads = 2; c.d_head = 8; c.d_ff = 32; c.max_len = 10;
    c.pe = (PeKind)pe;
    c.final_norm = final_norm;
    if (attn_only) {
        c.ffn = FFN_NONE;
        c.d_ff = 0;
    }
    const char *w[12] = {"<pad>", "<unk>", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
    Vocab v;
    char err[128];
    if (vocab_init(&v, w, 12, err, sizeof err) || model_new(m, &c, &v, err, sizeof err))
        return -1;
    model_init_random(m, 11);
    return 0;
}

static int make_decoder(Model *m, int pe)
{
    return make_model(m, pe, 0, 1);
}

int main(void)
{
    /* √d_k: the variance of q·k grows like d_k, scaling brings it back near 1, and without
     * scaling the softmax sharpens as d_k grows. */
    ScalingDemo s4, s256;
    NamedValues nv = {0};
    CHECK(explain_scaling(&s4, 4, 1, &nv) == 0, "scaling d_k=4");
    CHECK(explain_scaling(&s256, 256, 1, NULL) == 0, "scaling d_k=256");
    CHECK(fabs(s4.var_raw / 4 - 1) < 0.15, "var(q.k) ~ d_k at 4: %g", s4.var_raw);
    CHECK(fabs(s256.var_raw / 256 - 1) < 0.15, "var(q.k) ~ d_k at 256: %g", s256.var_raw);
    CHECK(fabs(s256.var_scaled - 1) < 0.15, "scaled variance ~ 1: %g", s256.var_scaled);
    CHECK(s256.max_raw > s256.max_scaled, "unscaled is more peaked (%g vs %g)", s256.max_raw, s256.max_scaled);
    CHECK(s256.entropy_raw < s256.entropy_scaled, "unscaled has lower entropy");
    double sum = 0;
    for (int j = 0; j < SCALING_KEYS; j++) {
        sum += s256.w_raw[j];
        CHECK_NEAR(s256.scaled[j], s256.raw[j] / 16.0, 1e-4, "scaled = raw / sqrt(256)");
    }
    CHECK_NEAR(sum, 1.0, 1e-6, "weights sum to 1");
    const NamedValue *v = explain_get(&nv, "var_raw");
    CHECK(v && v->value == s4.var_raw, "named value published");
    /* the same directions at every d_k, scaled: each doubling sharpens the unscaled row
     * (lesson 4's "watch the row sharpen as d_k grows" holds at every step) and leaves the
     * scaled row as it was */
    ScalingDemo prev, cur;
    CHECK(explain_scaling(&prev, 1, 1, NULL) == 0, "scaling d_k=1");
    for (int dk = 2; dk <= 1024; dk *= 2) {
        CHECK(explain_scaling(&cur, dk, 1, NULL) == 0, "scaling d_k=%d", dk);
        CHECK(cur.entropy_raw < prev.entropy_raw || prev.entropy_raw < 1e-9,
              "d_k %d sharpens the unscaled row: entropy %g after %g bits", dk, cur.entropy_raw,
              prev.entropy_raw);
        CHECK(cur.max_raw >= prev.max_raw, "d_k %d: top weight %g after %g", dk,
              (double)cur.max_raw, (double)prev.max_raw);
        CHECK(fabs(cur.entropy_scaled - prev.entropy_scaled) < 1e-9, "d_k %d: the scaled row "
              "is the same", dk);
        prev = cur;
    }
    ScalingDemo again;
    explain_scaling(&again, 4, 1, NULL);
    CHECK(memcmp(&again, &s4, sizeof s4) == 0, "same seed, same demo");

    /* KV cache: cached keys do not drift; the work counts match a recount by hand. */
    Model m;
    char err[256];
    CHECK(make_decoder(&m, PE_SINUSOIDAL) == 0, "model");
    Trace *full = trace_new(&m, 8, 1), *pre = trace_new(&m, 8, 1);
    int ids[8] = {2, 3, 4, 5, 6, 7, 8, 9};
    KvCacheStep k;
    for (int step = 1; step <= 8; step++) {
        CHECK(explain_kvcache(&m, ids, 8, step, full, pre, &k, NULL, err, sizeof err) == 0, "kv: %s", err);
        CHECK(k.k_drift < 1e-5f, "cached keys unchanged at step %d (%g)", step, k.k_drift);
        CHECK(k.row_drift < 1e-6f, "newest row unchanged at step %d (%g)", step, k.row_drift);
        /* by hand: d=16, hd=16, F=32, L=2, V=12 */
        long long t = step;
        long long full_w = 2 * (3 * t * 16 * 16 + 2 * t * t * 16 + t * 16 * 16 + 2 * t * 16 * 32) + t * 16 * 12;
        long long cache_w = 2 * (3 * 16 * 16 + 2 * t * 16 + 16 * 16 + 2 * 16 * 32) + 16 * 12;
        CHECK(k.work_full == full_w, "full work at step %d: %lld vs %lld", step, k.work_full, full_w);
        CHECK(k.work_cached == cache_w, "cached work at step %d", step);
        CHECK(k.cache_floats == 2LL * 2 * t * 16, "cache size");
    }
    CHECK(k.total_full > 3 * k.total_cached, "the cache saves work over 8 steps");
    CHECK(explain_kvcache(&m, ids, 8, 9, full, pre, &k, NULL, err, sizeof err) == -1, "step out of range");
    trace_free(full);
    trace_free(pre);

    /* Cost grows as N². */
    CostPoint a, b;
    explain_cost(&m.cfg, 10, &a, NULL);
    explain_cost(&m.cfg, 20, &b, NULL);
    CHECK(b.score_entries == 4 * a.score_entries && b.qk_macs == 4 * a.qk_macs, "quadratic");
    CHECK(a.score_bytes == 10LL * 10 * 2 * 2 * 4, "bytes of scores");

    /* Parameters: the model's own count agrees with the engine's layout (no biases in the
     * attention; this model has FFN biases and LayerNorm biases). */
    ParamConfig pc;
    explain_param_config(&m.cfg, &pc);
    ParamRow rows[PARAM_ROWS];
    long long total;
    explain_params(&pc, rows, &total, NULL);
    long long engine = (long long)model_config_param_count(&m.cfg);
    CHECK(total == engine, "param count %lld vs the engine's layout %lld", total, engine);
    /* The source material's exercise: d 2560, h 32, L 36, d_ff 6912, vocab 151936, SwiGLU,
     * tied: recount independently. */
    ParamConfig q = {2560, 32, 32, 80, 36, 6912, 151936, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0};
    explain_params(&q, rows, &total, NULL);
    long long want = 151936LL * 2560 + 36 * (4LL * 2560 * 2560 + 3LL * 2560 * 6912 + 2 * 2560) + 2560;
    CHECK(total == want, "exercise: %lld vs %lld", total, want);
    model_free(&m);
    /* With learned positions the widget counts the table too (docs/lessons.md, params: the
     * page model's FFN biases and positions are in, so {{x params}} = {{params}}). */
    CHECK(make_decoder(&m, PE_LEARNED) == 0, "learned-PE model");
    explain_param_config(&m.cfg, &pc);
    explain_params(&pc, rows, &total, NULL);
    CHECK(total == (long long)m.n_floats && total == (long long)model_config_param_count(&m.cfg),
          "learned PE: widget %lld, model file %lld floats", total, (long long)m.n_floats);
    model_free(&m);
    /* Attention-only (one norm a layer, no FFN) and no final norm: the rows agree with the
     * model file's floats, and the norms row counts L + 1 norms, not 2L + 1. */
    for (int vi = 0; vi < 3; vi++) {
        int ao = vi != 1, fin = vi != 2;
        CHECK(make_model(&m, PE_LEARNED, ao, fin) == 0, "model variant %d", vi);
        explain_param_config(&m.cfg, &pc);
        int n = explain_params(&pc, rows, &total, NULL);
        CHECK(total == (long long)m.n_floats, "variant %d: widget %lld, model %lld floats", vi,
              total, (long long)m.n_floats);
        long long norms = -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(rows[i].name, "norms"))
                norms = rows[i].count;
        long long want_norms = ((ao ? 1 : 2) * m.cfg.n_layers + fin) * 2LL * m.cfg.d_model;
        CHECK(norms == want_norms, "variant %d: norms %lld, want %lld", vi, norms, want_norms);
        model_free(&m);
    }

    /* Hand-worked attention as a trace. */
    float Q[4] = {1, 0, 0, 1}, K[4] = {1, 0, 1, 1}, V[4] = {1, 2, 3, 4};
    Trace *w = model_worked(Q, K, V, 2, 2, 2, 2, 0, 1);
    CHECK(w != NULL, "worked trace");
    if (w) {
        const TraceEntry *A = trace_find(w, STACK_DEC, 0, SUB_SELF, 0, T_WEIGHTS);
        CHECK(A && A->rows == 2 && A->cols == 2, "weights 2x2");
        double e = exp(1 / sqrt(2.0));
        if (A) CHECK_NEAR(A->data[3], e / (1 + e), 1e-6, "row 1 weight on key 1");
        const TraceEntry *o = trace_find_name(w, "L0.h0.out");
        CHECK(o != NULL, "named like a model trace");
        trace_free(w);
    }
    Trace *wc = model_worked(Q, K, V, 2, 2, 2, 2, 1, 1);
    const TraceEntry *Ac = wc ? trace_find(wc, STACK_DEC, 0, SUB_SELF, 0, T_WEIGHTS) : NULL;
    CHECK(Ac && Ac->data[1] == 0.0f && Ac->data[0] == 1.0f, "causal worked example");
    trace_free(wc);
    return t_done("explain");
}
