/* test_engine.c - the engine against hand-worked examples (expected values recomputed here in
 * double precision, independently of tensor.c) and properties on random models. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "tensor.h"
#include "tensor_par.h"
#include "t.h"
#include "kchain.h"

/* Independent reference: softmax of a double row, −inf entries -> 0. */
static void ref_softmax(double *r, int n)
{
    double mx = -INFINITY, s = 0;
    for (int i = 0; i < n; i++)
        if (r[i] > mx) mx = r[i];
    for (int i = 0; i < n; i++) {
        r[i] = isinf(r[i]) && r[i] < 0 ? 0.0 : exp(r[i] - mx);
        s += r[i];
    }
    for (int i = 0; i < n; i++)
        r[i] /= s;
}

/* Reference attention on small matrices in double: weights (nq×nk) and out (nq×dv). */
static void ref_attention(double *w, double *o, const double *q, const double *k,
                          const double *v, const double *mask, int nq, int nk, int dk, int dv,
                          double scale)
{
    for (int i = 0; i < nq; i++) {
        for (int j = 0; j < nk; j++) {
            double s = 0;
            for (int p = 0; p < dk; p++)
                s += q[i * dk + p] * k[j * dk + p];
            w[i * nk + j] = s * scale + (mask ? mask[i * nk + j] : 0.0);
        }
        ref_softmax(w + i * nk, nk);
        for (int c = 0; c < dv; c++) {
            double acc = 0;
            for (int j = 0; j < nk; j++)
                acc += w[i * nk + j] * v[j * dv + c];
            o[i * dv + c] = acc;
        }
    }
}

static void to_float(float *f, const double *d, int n)
{
    for (int i = 0; i < n; i++)
        f[i] = (float)d[i];
}

/* The 2-token example: Q=[[1,0],[0,1]], K=[[1,0],[1,1]], V=[[1,2],[3,4]], d_k = 2. */
static void test_two_token(void)
{
    const double Q[] = {1, 0, 0, 1}, K[] = {1, 0, 1, 1}, V[] = {1, 2, 3, 4};
    double w[4], o[4];
    ref_attention(w, o, Q, K, V, NULL, 2, 2, 2, 2, 1.0 / sqrt(2.0));
    float q[4], k[4], v[4], S[4], Ss[4], Sm[4], A[4], O[4];
    to_float(q, Q, 4); to_float(k, K, 4); to_float(v, V, 4);
    model_sdpa(S, Ss, Sm, A, O, q, k, v, NULL, 2, 2, 2, 2, 1.0f / sqrtf(2.0f));
    /* QKᵀ = [[1,1],[0,1]] exactly */
    CHECK(S[0] == 1 && S[1] == 1 && S[2] == 0 && S[3] == 1, "QK^T = %g %g %g %g", S[0], S[1], S[2], S[3]);
    for (int i = 0; i < 4; i++) {
        CHECK_NEAR(A[i], w[i], 1e-6, "two-token weight");
        CHECK_NEAR(O[i], o[i], 1e-5, "two-token output");
    }
    CHECK_NEAR(A[0], 0.5, 1e-7, "row 0 is uniform (equal scores)");
    CHECK_NEAR(A[2] + A[3], 1.0, 1e-6, "row 1 sums to 1");
    CHECK(A[3] > A[2], "query 2 aligns better with key 2");
}

/* The 4-token X·W example: Q = X·W_Qᵀ etc. with W stored [d_k × d_model]. */
static void test_four_token(void)
{
    const double X[16] = {1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1};
    const double WQ[8] = {1, 0, 1, 0, 0, 1, 0, 1};
    const double WK[8] = {0, 1, 1, 0, 1, 0, 0, 1};
    const double WV[8] = {1, 1, 0, 0, 0, 0, 1, 1};
    float x[16], wq[8], wk[8], wv[8], q[8], k[8], v[8];
    to_float(x, X, 16); to_float(wq, WQ, 8); to_float(wk, WK, 8); to_float(wv, WV, 8);
    tensor_matmul_bt(q, x, wq, 4, 4, 2);
    tensor_matmul_bt(k, x, wk, 4, 4, 2);
    tensor_matmul_bt(v, x, wv, 4, 4, 2);
    double Qd[8], Kd[8], Vd[8];
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 2; c++) {
            double a = 0, b = 0, d = 0;
            for (int p = 0; p < 4; p++) {
                a += X[i * 4 + p] * WQ[c * 4 + p];
                b += X[i * 4 + p] * WK[c * 4 + p];
                d += X[i * 4 + p] * WV[c * 4 + p];
            }
            Qd[i * 2 + c] = a; Kd[i * 2 + c] = b; Vd[i * 2 + c] = d;
            CHECK(q[i * 2 + c] == (float)a, "Q[%d][%d] = %g, want %g", i, c, q[i * 2 + c], a);
            CHECK(k[i * 2 + c] == (float)b, "K[%d][%d]", i, c);
            CHECK(v[i * 2 + c] == (float)d, "V[%d][%d]", i, c);
        }
    double w[16], o[8];
    ref_attention(w, o, Qd, Kd, Vd, NULL, 4, 4, 2, 2, 1.0); /* the example does not scale */
    float S[16], Ss[16], Sm[16], A[16], O[8];
    model_sdpa(S, Ss, Sm, A, O, q, k, v, NULL, 4, 4, 2, 2, 1.0f);
    for (int i = 0; i < 16; i++)
        CHECK_NEAR(A[i], w[i], 1e-6, "four-token weight");
    for (int i = 0; i < 8; i++)
        CHECK_NEAR(O[i], o[i], 1e-5, "four-token output");
}

/* The 3×3 masked-scores example: causal mask added to given scores, then softmax. */
static void test_masked_3x3(void)
{
    const double s[9] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
    double ref[9];
    float x[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            ref[i * 3 + j] = j > i ? -INFINITY : s[i * 3 + j];
            x[i * 3 + j] = j > i ? -INFINITY : (float)s[i * 3 + j];
        }
    for (int i = 0; i < 3; i++)
        ref_softmax(ref + i * 3, 3);
    tensor_softmax_rows(x, 3, 3);
    for (int i = 0; i < 9; i++)
        CHECK_NEAR(x[i], ref[i], 1e-6, "masked 3x3 weight");
    CHECK(x[1] == 0.0f && x[2] == 0.0f && x[5] == 0.0f, "masked weights are exactly 0");
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(x[i * 3] + x[i * 3 + 1] + x[i * 3 + 2], 1.0, 1e-6, "masked row sums to 1");
}

/* The √d_k example: scores [8.5, 42, 3.2, 42] unscaled vs divided by √64 = 8. */
static void test_scaling(void)
{
    const double s[4] = {8.5, 42, 3.2, 42};
    double raw[4], sc[4];
    float fr[4], fs[4];
    for (int i = 0; i < 4; i++) {
        raw[i] = s[i];
        sc[i] = s[i] / 8.0;
        fr[i] = (float)s[i];
        fs[i] = (float)(s[i] / 8.0);
    }
    ref_softmax(raw, 4);
    ref_softmax(sc, 4);
    tensor_softmax_rows(fr, 1, 4);
    tensor_softmax_rows(fs, 1, 4);
    for (int i = 0; i < 4; i++) {
        CHECK_NEAR(fr[i], raw[i], 1e-6, "unscaled softmax");
        CHECK_NEAR(fs[i], sc[i], 1e-6, "scaled softmax");
    }
    /* Unscaled is more peaked: the small scores get (almost) nothing. */
    CHECK(fr[0] < fs[0] && fr[2] < fs[2], "scaling spreads weight to the small scores");
    /* Tied maximal scores share equally: 0.5 / 0.5, not 0.55 / 0.45. */
    CHECK_NEAR(fr[1], fr[3], 1e-7, "ties share equally");
}

/* GELU (vectorised exp) against its tanh formula in double, over a range and at extremes. */
static void test_gelu(void)
{
    enum { N = 4003 };
    static float x[N];
    for (int i = 0; i < N; i++)
        x[i] = -12.0f + 24.0f * (float)i / (N - 1);
    x[0] = -1e4f;
    x[1] = 1e4f;
    float y[N];
    memcpy(y, x, sizeof y);
    tensor_gelu(y, N);
    double worst = 0;
    int finite = 1;
    for (int i = 0; i < N; i++) {
        double v = x[i];
        double ref = 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
        if (!isfinite(y[i]))
            finite = 0;
        double d = fabs(y[i] - ref) / (fabs(ref) > 1 ? fabs(ref) : 1);
        if (d > worst)
            worst = d;
    }
    CHECK(finite, "GELU stays finite at +-1e4");
    CHECK(worst < 2e-6, "GELU within 2e-6 of its formula (worst %g)", worst);
    CHECK_NEAR(tensor_gelu1(1.5f), 0.5 * 1.5 * (1 + tanh(0.7978845608028654 * (1.5 + 0.044715 * 3.375))),
               1e-6, "scalar GELU");
}

/* The softmax's own e^x against exp in double: every stride-th float of [-104, 89] (every
 * 37th, about 60 million, in make test; every 259th, 8.6 million, in make check: the sweep is
 * 3.5 s of CPU, tensor_expf being eight lanes for one), in ulps of the true value; the edges,
 * infinities and NaN. stride 0: no sweep (avx2_paths.sh: the scalar e^x takes no AVX-512). */
static double ulp_at(double e)
{
    if (e < 0x1p-126)
        return 0x1p-149;
    int ex;
    frexp(e, &ex);
    return ldexp(1.0, ex - 24);
}

static void test_expf(uint32_t stride)
{
    double worst = 0.0;
    float worst_x = 0.0f;
    long n = 0, overflow_bad = 0;
    const float ends[2] = {89.0f, -104.0f};
    for (int neg = 0; stride && neg < 2; neg++) {
        uint32_t top;
        memcpy(&top, &ends[neg], sizeof top);
        top &= 0x7fffffffu;
        for (uint32_t m = 0; m <= top; m += stride) {
            uint32_t bits = m | (neg ? 0x80000000u : 0u);
            float x;
            memcpy(&x, &bits, sizeof x);
            double e = exp((double)x);
            float y = tensor_expf(x);
            n++;
            if (e > 0x1.fffffep127) {
                overflow_bad += !isinf(y);
                continue;
            }
            double u = fabs((double)y - e) / ulp_at(e);
            if (!(u <= worst)) {
                worst = u;
                worst_x = x;
            }
        }
    }
    CHECK(!stride || n > 2200000000L / stride, "%ld floats swept", n);
    CHECK(worst <= 1.0, "tensor_expf within 1 ulp of e^x (worst %.3f at %a)", worst,
          (double)worst_x);
    CHECK(overflow_bad == 0, "%ld overflowing arguments not infinity", overflow_bad);
    CHECK(tensor_expf(0.0f) == 1.0f && tensor_expf(-0.0f) == 1.0f, "e^0 = 1");
    CHECK(tensor_expf(-INFINITY) == 0.0f && tensor_expf(-104.0f) == 0.0f, "e^-inf = 0");
    CHECK(tensor_expf(-103.0f) > 0.0f, "e^-103 is a subnormal, not 0");
    CHECK(isinf(tensor_expf(INFINITY)) && isinf(tensor_expf(88.73f)), "e^88.73 overflows");
    CHECK(isnan(tensor_expf(NAN)), "NaN stays NaN");
    /* a row followed by masked keys keeps its bits: what the causal K/V cache relies on */
    long moved = 0;
    for (int m = 1; m <= 40; m++)
        for (int extra = 1; extra <= 9; extra++) {
            float a[64], b[64];
            for (int j = 0; j < m; j++)
                a[j] = b[j] = (float)((j * 7919 + m * 104729) % 2001 - 1000) / 137.0f;
            for (int j = m; j < m + extra; j++)
                b[j] = -INFINITY;
            tensor_softmax_rows(a, 1, m);
            tensor_softmax_rows(b, 1, m + extra);
            moved += memcmp(a, b, sizeof(float) * (size_t)m) != 0;
            for (int j = m; j < m + extra; j++)
                moved += b[j] != 0.0f;
        }
    CHECK(moved == 0, "softmax: %ld rows changed when masked keys were appended", moved);
}

/* The practice problem: L=3, d_k=1, Q=[[2],[0],[1]], K=[[1],[3],[-1]], V=[[10],[20],[30]]. */
static void test_practice(void)
{
    const double Q[3] = {2, 0, 1}, K[3] = {1, 3, -1}, V[3] = {10, 20, 30};
    double w[9], o[3];
    ref_attention(w, o, Q, K, V, NULL, 3, 3, 1, 1, 1.0);
    float q[3], k[3], v[3], S[9], Ss[9], Sm[9], A[9], O[3];
    to_float(q, Q, 3); to_float(k, K, 3); to_float(v, V, 3);
    model_sdpa(S, Ss, Sm, A, O, q, k, v, NULL, 3, 3, 1, 1, 1.0f);
    for (int i = 0; i < 9; i++)
        CHECK_NEAR(A[i], w[i], 1e-6, "practice weight");
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(O[i], o[i], 1e-4, "practice output");
    CHECK_NEAR(O[1], 20.0, 1e-5, "row of zeros averages the values");
}

/* ---- random models ---- */

static uint64_t rs = 88172645463325252ULL;
static int rnd(int n)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (int)(rs % (uint64_t)n);
}

static int make_model(Model *m, Arch arch, PeKind pe, NormKind nk, FfnKind fk, int pre, int V,
                      uint64_t seed)
{
    ModelConfig c;
    model_config_defaults(&c);
    c.arch = arch; c.pe = pe; c.norm = nk; c.ffn = fk; c.pre_norm = pre;
    c.vocab_size = V; c.d_model = 16; c.n_heads = 2; c.d_head = 8; c.d_ff = 24; c.max_len = 12;
    const char **words = malloc(sizeof *words * (size_t)V);
    char (*buf)[16] = malloc(16 * (size_t)V);
    for (int i = 0; i < V; i++) {
        snprintf(buf[i], 16, "w%d", i);
        words[i] = buf[i];
    }
    words[0] = "<pad>";
    words[1] = "<unk>";
    Vocab v;
    char err[256];
    int rc = vocab_init(&v, words, V, err, sizeof err);
    free(words);
    free(buf);
    if (rc) return -1;
    if (model_new(m, &c, &v, err, sizeof err)) {
        vocab_free(&v);
        fprintf(stderr, "model_new: %s\n", err);
        return -1;
    }
    model_init_random(m, seed);
    return 0;
}

static void random_perm(int *p, int n)
{
    for (int i = 0; i < n; i++) p[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = rnd(i + 1), t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

static void test_properties(void)
{
    char err[256];
    for (int arch = 0; arch < 3; arch++)
        for (int pe = 0; pe < PE__COUNT; pe++) {
            Model m;
            if (make_model(&m, (Arch)arch, (PeKind)pe, (NormKind)(pe % 2), (FfnKind)(pe % 3),
                           pe != 2, 20, 100 + arch * 10 + pe)) {
                CHECK(0, "model creation failed");
                continue;
            }
            int n = m.cfg.max_len, mt = 7;
            Trace *t = trace_new(&m, n, mt);
            Trace *t2 = trace_new(&m, n, mt);
            int src[12], tgt[7];
            for (int i = 0; i < n; i++) src[i] = 2 + rnd(18);
            for (int i = 0; i < mt; i++) tgt[i] = 2 + rnd(18);
            src[n - 1] = src[n - 2] = 0; /* two <pad> tokens at the end */
            Controls c;
            model_default_controls(&m, &c);
            c.causal = 1;
            c.padding = 1;
            int rc = model_forward(&m, src, n, tgt, mt, &c, t, err, sizeof err);
            CHECK(rc == 0, "forward at max_len (arch %d pe %d): %s", arch, pe, err);
            if (rc) goto next;
            int rows_ok = 1, causal_ok = 1, pad_ok = 1, shapes_ok = 1;
            for (int i = 0; i < t->n_entries; i++) {
                const TraceEntry *e = trace_entry(t, i);
                if (e->kind != T_WEIGHTS) continue;
                int self = e->sub == SUB_SELF;
                int is_dec = e->stack == STACK_DEC;
                int causal_here = self && (arch != ARCH_ENCDEC || is_dec);
                const int *keys = (arch == ARCH_ENCDEC && is_dec && self) ? tgt : src;
                int nq = (arch == ARCH_ENCDEC && is_dec) ? mt : n;
                int nkeys = (arch == ARCH_ENCDEC && is_dec && self) ? mt : n;
                if (e->rows != nq || e->cols != nkeys) shapes_ok = 0;
                for (int r = 0; r < e->rows; r++) {
                    double s = 0;
                    int any = 0;
                    for (int j = 0; j < e->cols; j++) {
                        float w = e->data[(size_t)r * e->cols + j];
                        s += w;
                        int masked = (causal_here && j > r) || keys[j] == 0;
                        if (!masked) any = 1;
                        if (causal_here && j > r && w != 0.0f) causal_ok = 0;
                        if (keys[j] == 0 && w != 0.0f) pad_ok = 0;
                    }
                    if (any && fabs(s - 1.0) > 1e-6) rows_ok = 0;
                }
            }
            CHECK(rows_ok, "rows sum to 1 (arch %d pe %d)", arch, pe);
            CHECK(causal_ok, "causal mask gives exact zeros (arch %d pe %d)", arch, pe);
            CHECK(pad_ok, "padding columns are exactly zero (arch %d pe %d)", arch, pe);
            CHECK(shapes_ok, "weights shapes nq x nk (arch %d pe %d)", arch, pe);
            if (arch == ARCH_ENCDEC) {
                const TraceEntry *x = trace_find(t, STACK_DEC, 0, SUB_CROSS, 0, T_WEIGHTS);
                CHECK(x && x->rows == mt && x->cols == n, "cross-attention weights are m x n");
            }
            /* Equivariance: no mask, no padding tokens. */
            for (int i = 0; i < n; i++) src[i] = 2 + rnd(18);
            c.causal = 0;
            float worst = 0.0f, best = 0.0f;
            for (int trial = 0; trial < 6; trial++) {
                int perm[12];
                random_perm(perm, n);
                c.order = perm;
                float d = model_equivariance(&m, src, n, tgt, mt, &c, t, t2, err, sizeof err);
                CHECK(d >= 0, "equivariance ran: %s", err);
                /* the gap is the largest of the layers' gaps, each read from the same runs */
                float lmax = -1.0f;
                for (int l = 0; l < m.cfg.n_layers; l++) {
                    float dl = model_equivariance_layer(&m, t, t2, l);
                    CHECK(dl >= 0 && dl <= d, "layer %d gap %g within %g", l, (double)dl, (double)d);
                    if (dl > lmax) lmax = dl;
                }
                CHECK(lmax == d, "max of the layers' gaps %g = the gap %g", (double)lmax, (double)d);
                CHECK(model_equivariance_layer(&m, t, t2, m.cfg.n_layers) < 0, "no such layer");
                if (d > worst) worst = d;
                if (trial == 0 || d > best) best = d;
            }
            c.order = NULL;
            if (pe == PE_NONE)
                CHECK(worst < 1e-5f, "PE off: max|Attn(PX) - P Attn(X)| = %g (arch %d)", worst, arch);
            else
                CHECK(best > 1e-3f, "PE %d on: some permutation differs (max %g, arch %d)", pe, best, arch);
            /* The same model with PE forced off through the controls is equivariant again. */
            if (pe != PE_NONE) {
                int perm[12];
                random_perm(perm, n);
                c.order = perm;
                c.pe = PE_NONE;
                float d = model_equivariance(&m, src, n, tgt, mt, &c, t, t2, err, sizeof err);
                CHECK(d >= 0 && d < 1e-5f, "PE toggled off: %g", d);
                c.order = NULL;
            }
        next:
            trace_free(t);
            trace_free(t2);
            model_free(&m);
        }
}

/* The small decoder (2 layers, 2 heads of 8, vocabulary 10) and a trace for SMALL_SRC; NULL
 * (a failed check) when either cannot be made. */
static const int SMALL_SRC[6] = {2, 3, 4, 5, 2, 6};

static Trace *small_decoder(Model *m)
{
    if (make_model(m, ARCH_DECODER, PE_SINUSOIDAL, NORM_LAYER, FFN_GELU, 1, 10, 5)) {
        CHECK(0, "model");
        return NULL;
    }
    Trace *t = trace_new(m, 6, 1);
    CHECK(t != NULL, "trace");
    if (!t)
        model_free(m);
    return t;
}

/* The forward keeps no head's n×n steps (scores, scaled, masked, weights): they are filled on
 * first read. They, and the head's output, equal model_sdpa run on the trace's own q, k, v and
 * mask, bit for bit, with scaling on and off; before the read the four are marked lazy. */
static void test_trace_derived(void)
{
    Model m;
    char err[256];
    Trace *t = small_decoder(&m);
    if (!t)
        return;
    const int *src = SMALL_SRC;
    for (int scaled = 0; scaled < 2; scaled++) {
        Controls c;
        model_default_controls(&m, &c);
        c.scale = scaled;
        CHECK(model_forward(&m, src, 6, NULL, 0, &c, t, err, sizeof err) == 0, "forward: %s", err);
        int lazy = 0;
        for (int i = 0; i < t->n_entries; i++) {
            TensorKind kd = t->entries[i].kind;
            lazy += t->entries[i].lazy && (kd == T_SCORES || kd == T_SCALED ||
                                          kd == T_MASKED || kd == T_WEIGHTS);
        }
        CHECK(lazy == 4 * 2 * 2, "%d of the 16 n×n entries wait to be derived", lazy);
        const TraceEntry *q = trace_find_name(t, "L1.h1.q"), *k = trace_find_name(t, "L1.h1.k"),
                         *v = trace_find_name(t, "L1.h1.v"), *mk = trace_find_name(t, "L1.mask");
        CHECK(q && k && v && mk, "L1.h1's q, k, v and L1.mask are in the trace");
        if (!q || !k || !v || !mk)
            break;
        float S[36], Ss[36], Sm[36], A[36], O[48];
        model_sdpa(S, Ss, Sm, A, O, q->data, k->data, v->data, mk->data, 6, 6, 8, 8,
                   scaled ? 1.0f / sqrtf(8.0f) : 1.0f);
        static const char *const key[5] = {"scores", "scaled", "masked", "weights", "out"};
        const float *want[5] = {S, Ss, Sm, A, O};
        for (int s = 0; s < 5; s++) {
            char name[32];
            snprintf(name, sizeof name, "L1.h1.%s", key[s]);
            const TraceEntry *e = trace_find_name(t, name);
            CHECK(e && !e->lazy && !memcmp(e->data, want[s], sizeof(float) * (size_t)e->rows * e->cols),
                  "scale %d: %s equals model_sdpa's, bit for bit", scaled, name);
        }
    }
    trace_free(t);
    model_free(&m);
}

static void test_trace_names(void)
{
    Model m;
    char err[256];
    Trace *t = small_decoder(&m);
    if (!t)
        return;
    const int *src = SMALL_SRC;
    Controls c;
    model_default_controls(&m, &c);
    CHECK(model_forward(&m, src, 6, NULL, 0, &c, t, err, sizeof err) == 0, "forward: %s", err);
    const char *want[] = {"embed", "pe", "x_pe", "L0.norm_in", "L0.mask", "L0.h0.q", "L0.h0.k",
                          "L0.h0.v", "L0.h0.scores", "L0.h0.scaled", "L0.h0.masked",
                          "L0.h0.weights", "L0.h0.out"};
    for (int i = 0; i < 13; i++)
        CHECK(i < t->n_entries && strcmp(trace_entry(t, i)->name, want[i]) == 0,
              "entry %d is %s, want %s", i, i < t->n_entries ? trace_entry(t, i)->name : "-", want[i]);
    const TraceEntry *q = trace_find_name(t, "L1.h1.q");
    CHECK(q && q->rows == 6 && q->cols == 8, "L1.h1.q is 6x8");
    const TraceEntry *lg = trace_find_name(t, "logits");
    CHECK(lg && lg->rows == 6 && lg->cols == 10, "logits 6x10");
    const TraceEntry *cc = trace_find_name(t, "L0.concat");
    CHECK(cc && cc->cols == 16, "concat is n x h*d_k");
    /* Q of head 1 equals columns 8..15 of norm_in · W_Q. */
    const TraceEntry *x = trace_find_name(t, "L1.norm_in");
    double worst = 0;
    for (int i = 0; i < 6; i++)
        for (int c2 = 0; c2 < 8; c2++) {
            double s = 0;
            for (int p = 0; p < 16; p++)
                s += (double)x->data[i * 16 + p] * m.dec[1].self.wq[p * 16 + 8 + c2];
            double dd = fabs(s - q->data[i * 8 + c2]);
            if (dd > worst) worst = dd;
        }
    CHECK(worst < 1e-5, "per-head Q is the head's column slice (err %g)", worst);
    /* Too long and bad orders are refused with messages. */
    int longer[13] = {0};
    CHECK(model_forward(&m, longer, 13, NULL, 0, &c, t, err, sizeof err) == -1 &&
          strstr(err, "at most 12"), "too long: %s", err);
    int bad[6] = {0, 1, 2, 3, 4, 4};
    c.order = bad;
    CHECK(model_forward(&m, src, 6, NULL, 0, &c, t, err, sizeof err) == -1 &&
          strstr(err, "permutation"), "bad order: %s", err);
    trace_free(t);
    model_free(&m);
}

static void test_tokenizer(void)
{
    const char *words[] = {"<pad>", "<unk>", "the", "cat", "sat", ".", ",", "didn", "'", "t"};
    Vocab v;
    char err[128];
    CHECK(vocab_init(&v, words, 10, err, sizeof err) == 0, "vocab: %s", err);
    int ids[16];
    TokenizeInfo info;
    int n = vocab_tokenize(&v, "The CAT sat, didn't.", ids, 16, &info);
    int want[] = {2, 3, 4, 6, 7, 8, 9, 5};
    CHECK(n == 8, "8 tokens, got %d", n);
    for (int i = 0; i < 8 && i < n; i++)
        CHECK(ids[i] == want[i], "token %d = %d want %d", i, ids[i], want[i]);
    CHECK(info.n_unknown == 0, "no unknown words");
    n = vocab_tokenize(&v, "the zebra sat <pad> <pad>", ids, 16, &info);
    CHECK(n == 5 && ids[1] == v.unk_id && info.n_unknown == 1 &&
          strcmp(info.unknown[0], "zebra") == 0, "unknown reported");
    CHECK(ids[3] == v.pad_id && ids[4] == v.pad_id, "<pad> written literally is the pad token");
    n = vocab_tokenize(&v, "the cat sat the cat sat", ids, 4, &info);
    CHECK(n == 4 && info.truncated && info.n_tokens == 6, "truncation reported, not silent");
    const char *dup[] = {"<pad>", "<unk>", "a", "a"};
    Vocab v2;
    CHECK(vocab_init(&v2, dup, 4, err, sizeof err) == -1 && strstr(err, "repeated"), "dup: %s", err);
    const char *nopad[] = {"<unk>", "a"};
    CHECK(vocab_init(&v2, nopad, 2, err, sizeof err) == -1 && strstr(err, "<pad>"), "no pad: %s", err);
    vocab_free(&v);
}

static void test_roundtrip(void)
{
    Model m, m2;
    char err[512];
    for (int arch = 0; arch < 3; arch++) {
        if (make_model(&m, (Arch)arch, PE_ROPE, NORM_RMS, FFN_SWIGLU, 0, 12, 9 + arch)) {
            CHECK(0, "model");
            return;
        }
        char path[64];
        snprintf(path, sizeof path, "/tmp/attend-test-rt-%d.json", (int)getpid());
        for (int arrays = 0; arrays < 2; arrays++) {
            m.save_arrays = arrays;
            CHECK(model_save(&m, path, err, sizeof err) == 0, "save: %s", err);
            CHECK(model_load(&m2, path, err, sizeof err) == 0, "load: %s", err);
            CHECK(m2.n_floats == m.n_floats &&
                  memcmp(m2.data, m.data, sizeof(float) * m.n_floats) == 0,
                  "weights round-trip bit for bit (arch %d, arrays %d)", arch, arrays);
            if (arrays == 0)
                model_free(&m2);
        }
        CHECK(m2.cfg.arch == m.cfg.arch && m2.cfg.pe == PE_ROPE && m2.cfg.norm == NORM_RMS &&
              m2.cfg.ffn == FFN_SWIGLU && m2.cfg.pre_norm == 0, "config round-trips");
        remove(path);
        model_free(&m2);
        model_free(&m);
    }
    /* Same seed, same bits; another seed, other bits. */
    Model a, b, c;
    make_model(&a, ARCH_DECODER, PE_NONE, NORM_LAYER, FFN_GELU, 1, 10, 42);
    make_model(&b, ARCH_DECODER, PE_NONE, NORM_LAYER, FFN_GELU, 1, 10, 42);
    make_model(&c, ARCH_DECODER, PE_NONE, NORM_LAYER, FFN_GELU, 1, 10, 43);
    CHECK(memcmp(a.data, b.data, sizeof(float) * a.n_floats) == 0, "seeded init is deterministic");
    CHECK(memcmp(a.data, c.data, sizeof(float) * a.n_floats) != 0, "seeds differ");
    model_free(&a);
    model_free(&b);
    model_free(&c);
}

/* ---- the vectorised kernels against their plain reference paths, bit for bit ---- */

/* The softmax of one row by its contract (tensor.h), one key at a time: max, tensor_expf of
 * each key minus the max (masked keys 0), the sum in eight lanes j mod 8 combined
 * ((0+4)+(1+5))+((2+6)+(3+7)), times 1/sum. */
static void k_softmax_row(float *r, int m)
{
    float mx = -INFINITY, lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int j = 0; j < m; j++)
        if (r[j] > mx)
            mx = r[j];
    if (mx == -INFINITY) {
        memset(r, 0, sizeof(float) * (size_t)m);
        return;
    }
    for (int j = 0; j < m; j++) {
        r[j] = r[j] == -INFINITY ? 0.0f : tensor_expf(r[j] - mx);
        lane[j % 8] += r[j];
    }
    float sum = ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
    float inv = 1.0f / sum;
    for (int j = 0; j < m; j++)
        r[j] *= inv;
}

/* LayerNorm of one row as the engine always computed it (sums in double, in order). */
static void k_layernorm_row(float *o, const float *r, const float *g, const float *b, int m,
                            float eps)
{
    double mean = 0.0, var = 0.0;
    for (int j = 0; j < m; j++)
        mean += r[j];
    mean /= m;
    for (int j = 0; j < m; j++)
        var += (r[j] - mean) * (r[j] - mean);
    var /= m;
    float inv = (float)(1.0 / sqrt(var + eps)), mu = (float)mean;
    for (int j = 0; j < m; j++) {
        volatile float y = g[j] * ((r[j] - mu) * inv);
        o[j] = b ? y + b[j] : y;
    }
}

static void test_kernels(void)
{
    /* rows: the AVX2 kernel's bands are 6 rows, the AVX-512 kernel's 8 (17 = two bands and 1) */
    static const int rows[] = {1, 3, 5, 7, 8, 13, 17};
    static const int inner[] = {1, 2, 3, 5, 7, 8, 9, 12, 13, 16, 17, 48};
    enum { MAXN = 17, MAXK = 48, MAXM = 274 };
    static float a[MAXN * MAXK], b[MAXK * MAXM], out[MAXN * MAXM], ref[MAXN * MAXM],
        out2[MAXN * MAXM];
    long bad_mm = 0, bad_bt = 0, bad_bts = 0, bad_sm = 0, bad_ln = 0, bad_lda = 0, cases = 0;
    for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++)
        for (size_t ki = 0; ki < sizeof inner / sizeof inner[0]; ki++)
            for (int m = 1; m <= 40; m += (m < 17 ? 1 : 23)) {
                int n = rows[ri], k = inner[ki];
                k_fill(a, (size_t)n * k);
                k_fill(b, (size_t)k * m);
                tensor_matmul(out, a, b, n, k, m);
                bad_mm += k_matmul_mismatch(out, a, b, n, k, m);
                /* a's rows 5 floats apart in a wider matrix: tensor_matmul's bits */
                static float wide[MAXN * (MAXK + 5)];
                k_fill(wide, (size_t)n * (k + 5));
                for (int i = 0; i < n; i++)
                    memcpy(wide + (size_t)i * (k + 5), a + (size_t)i * k, sizeof(float) * (size_t)k);
                tensor_matmul_lda(out2, wide, k + 5, b, n, k, m);
                bad_lda += memcmp(out, out2, sizeof(float) * (size_t)n * m) != 0;
                tensor_matmul_bt(out, a, b, n, k, m); /* b read as m rows of k */
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < m; j++) {
                        float want = k_dot8(a + (size_t)i * k, b + (size_t)j * k, k);
                        bad_bt += memcmp(&want, out + (size_t)i * m + j, sizeof want) != 0;
                    }
                tensor_scale(out, 0.2886751f, (size_t)n * m);
                tensor_matmul_bt_scaled(out2, a, b, n, k, m, 0.2886751f);
                bad_bts += memcmp(out, out2, sizeof(float) * (size_t)n * m) != 0;
                cases++;
            }
    /* the LM head's width (274 = 17 tiles of 16 and 2 columns) */
    k_fill(a, (size_t)MAXN * MAXK);
    k_fill(b, (size_t)MAXK * MAXM);
    for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++) {
        tensor_matmul(out, a, b, rows[ri], MAXK, MAXM);
        bad_mm += k_matmul_mismatch(out, a, b, rows[ri], MAXK, MAXM);
    }
    CHECK(bad_mm == 0, "tensor_matmul: %ld elements differ from the in-order chain", bad_mm);
    CHECK(bad_bt == 0, "tensor_matmul_bt: %ld elements differ from the 8-lane order", bad_bt);
    CHECK(bad_lda == 0, "tensor_matmul_lda: %ld shapes differ from tensor_matmul", bad_lda);
    CHECK(bad_bts == 0, "tensor_matmul_bt_scaled: %ld shapes differ from it then tensor_scale",
          bad_bts);
    CHECK(cases == 7 * 12 * 18, "%ld shapes", cases);
    /* softmax and LayerNorm: rows 1..17 at widths 1..17, 48, 274, with masked entries and a
     * fully masked row */
    float g[MAXM], bias[MAXM];
    k_fill(g, MAXM);
    k_fill(bias, MAXM);
    static const int widths[] = {1, 2, 3, 5, 7, 8, 9, 12, 13, 16, 17, 48, 274};
    for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++)
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
            int n = rows[ri], m = widths[wi];
            k_fill(out, (size_t)n * m);
            for (int i = 0; i < n * m; i++)
                if (i % 3 == 1 || (n > 1 && i / m == 1))
                    out[i] = -INFINITY; /* row 1 fully masked when there is one */
            memcpy(ref, out, sizeof(float) * (size_t)n * m);
            tensor_softmax_rows(out, n, m);
            for (int i = 0; i < n; i++)
                k_softmax_row(ref + (size_t)i * m, m);
            bad_sm += memcmp(out, ref, sizeof(float) * (size_t)n * m) != 0;
            float x[MAXN * MAXM];
            k_fill(x, (size_t)n * m);
            for (int withb = 0; withb < 2; withb++) {
                tensor_layernorm(out, x, g, withb ? bias : NULL, n, m, 1e-5f);
                for (int i = 0; i < n; i++)
                    k_layernorm_row(ref + (size_t)i * m, x + (size_t)i * m, g,
                                    withb ? bias : NULL, m, 1e-5f);
                bad_ln += memcmp(out, ref, sizeof(float) * (size_t)n * m) != 0;
            }
        }
    CHECK(bad_sm == 0, "tensor_softmax_rows: %ld shapes differ from one row at a time", bad_sm);
    /* the softmax's groups of sixteen keys (AVX-512) and of eight, and its tail, against the
     * one-key reference (tensor_expf) over the whole range a softmax feeds the exponential,
     * [-104, 0]: rows of 29 keys (16 + 8 + 5), the first 0 (the max), so the others are
     * exponentiated as they are */
    long bad_exp = 0;
    for (int r = 0; r < 100000; r++) {
        float ra[29], rb[29];
        ra[0] = 0.0f;
        for (int j = 1; j < 29; j++)
            ra[j] = -104.0f * (float)((r * 28 + j) % 1199999) / 1199999.0f;
        memcpy(rb, ra, sizeof ra);
        tensor_softmax_rows(ra, 1, 29);
        k_softmax_row(rb, 29);
        bad_exp += memcmp(ra, rb, sizeof ra) != 0;
    }
    CHECK(bad_exp == 0, "softmax: %ld rows where the vector exp and tensor_expf differ", bad_exp);
    /* scale and mask in one pass = tensor_scale then tensor_add, at odd lengths, with and
     * without a mask */
    long bad_sa = 0;
    for (int len = 1; len <= 37; len += 2)
        for (int withm = 0; withm < 2; withm++) {
            float xs[40], mk[40], sc[40], sm[40], r1[40], r2[40];
            k_fill(xs, (size_t)len);
            k_fill(mk, (size_t)len);
            for (int j = 0; j < len; j += 3)
                mk[j] = -INFINITY;
            tensor_scale_add(sc, sm, xs, 0.2886751f, withm ? mk : NULL, (size_t)len);
            memcpy(r1, xs, sizeof(float) * (size_t)len);
            tensor_scale(r1, 0.2886751f, (size_t)len);
            if (withm)
                tensor_add(r2, r1, mk, (size_t)len);
            else
                memcpy(r2, r1, sizeof(float) * (size_t)len);
            bad_sa += memcmp(sc, r1, sizeof(float) * (size_t)len) != 0;
            bad_sa += memcmp(sm, r2, sizeof(float) * (size_t)len) != 0;
        }
    CHECK(bad_sa == 0, "tensor_scale_add: %ld results differ from scale then add", bad_sa);
    CHECK(bad_ln == 0, "tensor_layernorm: %ld shapes differ from one row at a time", bad_ln);
}

/* Weights × V at every d_head 1..17 and 1, 3, 5, 7, 8, 13, 17 queries: model_sdpa against the
 * double-precision reference, and its A·V bit for bit against the in-order chain. */
static void test_sdpa_widths(void)
{
    enum { N = 17 };
    /* queries: the AVX2 kernel's bands are 6 rows, the AVX-512 kernel's 8 (17 = two and 1) */
    static const int rows[] = {1, 3, 5, 7, 8, 13, 17};
    float q[N * 17], k[N * 17], v[N * 17], mask[N * N];
    float S[N * N], Ss[N * N], Sm[N * N], A[N * N], o[N * 17];
    double qd[N * 17], kd[N * 17], vd[N * 17], md[N * N], wd[N * N], od[N * 17];
    long far = 0, bad = 0;
    for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++)
        for (int dh = 1; dh <= 17; dh++) {
            int n = rows[ri];
            k_fill(q, (size_t)n * dh);
            k_fill(k, (size_t)n * dh);
            k_fill(v, (size_t)n * dh);
            for (int i = 0; i < n * dh; i++) {
                qd[i] = q[i];
                kd[i] = k[i];
                vd[i] = v[i];
            }
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    mask[i * n + j] = j > i ? -INFINITY : 0.0f;
                    md[i * n + j] = mask[i * n + j];
                }
            float scale = 1.0f / sqrtf((float)dh);
            model_sdpa(S, Ss, Sm, A, o, q, k, v, mask, n, n, dh, dh, scale);
            ref_attention(wd, od, qd, kd, vd, md, n, n, dh, dh, scale);
            for (int i = 0; i < n * dh; i++)
                far += fabs(o[i] - od[i]) > 1e-5 * (1.0 + fabs(od[i]));
            bad += k_matmul_mismatch(o, A, v, n, n, dh);
        }
    CHECK(far == 0, "model_sdpa: %ld outputs away from the double reference", far);
    CHECK(bad == 0, "model_sdpa: %ld outputs of A·V differ from the in-order chain", bad);
}

/* The forward's attention, model_sdpa_out (each band of 16 rows over the keys any of its rows
 * may read; the mask read only for rows with holes), and model_sdpa_maps (the four maps and
 * out at once, the forward's when every map is wanted), against model_sdpa, which computes
 * every key: out (and the maps) bit for bit, with the rows' limits given and not, at odd sizes across bands and
 * every d_head 1..17, for no mask, causal, padded, causal and padded, finite mask values,
 * fully masked rows, and cross attention (more keys than queries). The band starts as NaN:
 * nothing stale is read. */
static void test_sdpa_out(void)
{
    enum { NQ = 40, NK = 45, DH = 17 };
    static const int nqs[] = {1, 3, 5, 7, 13, 16, 17, 33, 40};
    static float q[NQ * DH], k[NK * DH], v[NK * DH], mask[NQ * NK], S[NQ * NK], Ss[NQ * NK],
        Sm[NQ * NK], A[NQ * NK], o1[NQ * DH], o2[NQ * DH], band[MODEL_SDPA_BAND(NK, DH)];
    static float S2[NQ * NK], Ss2[NQ * NK], Sm2[NQ * NK], A2[NQ * NK], o3[NQ * DH],
        pk[MODEL_SDPA_BAND(NK, DH)];
    int lim[NQ];
    long bad = 0, bad_lim = 0, skipped = 0, cases = 0, bad_maps = 0;
    for (size_t qi = 0; qi < sizeof nqs / sizeof nqs[0]; qi++)
        for (int cross = 0; cross < 2; cross++)
            for (int dh = 1; dh <= DH; dh++)
                for (int kind = 0; kind < 6; kind++) {
                    int nq = nqs[qi], nk = cross ? nq + 5 : nq;
                    k_fill(q, (size_t)nq * dh);
                    k_fill(k, (size_t)nk * dh);
                    k_fill(v, (size_t)nk * dh);
                    for (int i = 0; i < nq; i++)
                        for (int j = 0; j < nk; j++) {
                            int future = j > i, pad = j % 4 == 2 || j >= nk - 2;
                            float x = 0.0f;
                            if ((kind == 1 || kind == 3 || kind == 5) && future)
                                x = -INFINITY;
                            if ((kind == 2 || kind == 3) && pad)
                                x = -INFINITY;
                            if (kind == 4)
                                x = future ? -INFINITY : j % 3 == 0 ? -1.5f : 0.0f;
                            if (kind == 5 && i % 5 == 3)
                                x = -INFINITY; /* a row that may read nothing */
                            mask[(size_t)i * nk + j] = x;
                        }
                    const float *mk = kind ? mask : NULL;
                    float scale = 1.0f / sqrtf((float)dh);
                    model_sdpa(S, Ss, Sm, A, o1, q, k, v, mk, nq, nk, dh, dh, scale);
                    if (mk) {
                        model_sdpa_limits(mask, nq, nk, lim);
                        for (int i = 0; i < nq; i++) {
                            const float *row = mask + (size_t)i * nk;
                            int last = -1, holes = 0;
                            for (int j = 0; j < nk; j++)
                                if (row[j] != -INFINITY)
                                    last = j;
                            for (int j = 0; j <= last; j++)
                                holes |= row[j] != 0.0f;
                            bad_lim += lim[i] != ((last + 1) | (holes ? MODEL_SDPA_HOLES : 0));
                            skipped += nk - (last + 1);
                        }
                    }
                    for (int given = 0; given < (mk ? 2 : 1); given++) {
                        for (size_t u = 0; u < sizeof band / sizeof band[0]; u++)
                            band[u] = NAN;
                        memset(o2, 0xff, sizeof o2);
                        model_sdpa_out(o2, band, q, k, v, mk, given ? lim : NULL, nq, nk, dh, dh,
                                       scale);
                        bad += memcmp(o1, o2, sizeof(float) * (size_t)nq * dh) != 0;
                        cases++;
                        /* the forward's maps and output at once (trace_want_maps) */
                        for (size_t u = 0; u < sizeof pk / sizeof pk[0]; u++)
                            pk[u] = NAN;
                        memset(o3, 0xff, sizeof o3);
                        model_sdpa_maps(S2, Ss2, Sm2, A2, o3, pk, q, k, v, mk, given ? lim : NULL,
                                        nq, nk, dh, dh, scale);
                        size_t nn = sizeof(float) * (size_t)nq * nk;
                        bad_maps += memcmp(o1, o3, sizeof(float) * (size_t)nq * dh) != 0 ||
                                    memcmp(S, S2, nn) || memcmp(Ss, Ss2, nn) ||
                                    memcmp(Sm, Sm2, nn) || memcmp(A, A2, nn);
                    }
                }
    CHECK(bad_lim == 0, "model_sdpa_limits: %ld rows differ from the mask's last readable key",
          bad_lim);
    CHECK(skipped > 0, "the masks leave keys to skip (%ld)", skipped);
    CHECK(bad == 0, "model_sdpa_out: %ld of %ld cases differ from model_sdpa's out", bad, cases);
    CHECK(bad_maps == 0, "model_sdpa_maps: %ld of %ld cases' maps or out differ from model_sdpa's",
          bad_maps, cases);
}

/* A forward whose products and heads are split over threads (tensor_par.h: a model big enough,
 * 100 tokens) gives every trace entry the bits of one thread, at 2 and 3 threads, its maps
 * filled all at once (trace_fill_all), one by one (trace_entry) or by the forward itself
 * (trace_want_maps). */
static void test_threads_forward(void)
{
    ModelConfig c;
    model_config_defaults(&c);
    c.arch = ARCH_DECODER; c.pe = PE_ROPE; c.norm = NORM_RMS; c.ffn = FFN_SWIGLU; c.pre_norm = 1;
    c.vocab_size = 300; c.d_model = 512; c.n_heads = 8; c.d_head = 64; c.d_ff = 1024;
    c.max_len = 128; c.n_layers = 2;
    const char *words[300];
    char buf[300][16];
    for (int i = 0; i < 300; i++) {
        snprintf(buf[i], sizeof buf[i], "w%d", i);
        words[i] = buf[i];
    }
    words[0] = "<pad>";
    words[1] = "<unk>";
    Vocab v;
    Model m;
    char err[256];
    if (vocab_init(&v, words, 300, err, sizeof err) || model_new(&m, &c, &v, err, sizeof err)) {
        CHECK(0, "model: %s", err);
        return;
    }
    model_init_random(&m, 5);
    enum { N = 100 };
    int ids[N];
    for (int i = 0; i < N; i++)
        ids[i] = 2 + (i * 37) % 298;
    Controls ctl;
    model_default_controls(&m, &ctl);
    Trace *t = trace_new(&m, N, 1);
    int saved = tensor_threads();
    float *ref = NULL;
    size_t total = 0;
    long bad = 0, lazy = 0;
    for (int run = 0; run < 6 && t; run++) { /* 1, 2, 3 threads; maps lazy, then by the forward */
        int th = 1 + run / 2, eager = run % 2;
        tensor_set_threads(th);
        trace_want_maps(t, eager);
        CHECK(model_forward(&m, ids, N, NULL, 0, &ctl, t, err, sizeof err) == 0, "forward: %s", err);
        size_t off = 0;
        for (int e = 0; eager && e < t->n_entries; e++)
            lazy += trace_meta(t, e)->lazy; /* every head's maps written by the forward */
        if (th > 1 && !eager) /* the heads' maps filled all at once, over the threads */
            CHECK(trace_fill_all(t) == 0, "trace_fill_all");
        if (!ref) {
            for (int e = 0; e < t->n_entries; e++)
                total += (size_t)t->entries[e].rows * t->entries[e].cols;
            ref = malloc(sizeof(float) * (total ? total : 1));
            if (!ref)
                break;
        }
        for (int e = 0; e < t->n_entries; e++) {
            const TraceEntry *te = trace_entry(t, e);
            size_t len = (size_t)te->rows * te->cols;
            if (run == 0)
                memcpy(ref + off, te->data, sizeof(float) * len);
            else
                bad += memcmp(ref + off, te->data, sizeof(float) * len) != 0;
            off += len;
        }
    }
    tensor_set_threads(saved);
    CHECK(ref && bad == 0, "threads: %ld trace entries at 2 or 3 threads, or with the maps "
          "written by the forward, differ from 1 thread's", bad);
    CHECK(lazy == 0, "trace_want_maps: %ld maps left lazy by the forward", lazy);
    CHECK(t && t->bands > 1, "the trace has a band per thread for its heads");
    free(ref);
    trace_free(t);
    model_free(&m);
}

/* Argument --paths: only what depends on the kernel path (tests/ref/avx2_paths.sh, again
 * with ATTEND_NO_AVX512=1). ATTEND_TEST_FULL=1 (make test): the whole e^x sweep. */
int main(int argc, char **argv)
{
    int paths = argc > 1 && !strcmp(argv[1], "--paths");
    const char *full = getenv("ATTEND_TEST_FULL");
    test_threads_forward();
    test_two_token();
    test_four_token();
    test_masked_3x3();
    test_scaling();
    test_practice();
    test_gelu();
    test_expf(paths ? 0 : full && !strcmp(full, "1") ? 37 : 259);
    test_properties();
    test_trace_names();
    test_trace_derived();
    test_tokenizer();
    test_roundtrip();
    test_kernels();
    test_sdpa_widths();
    test_sdpa_out();
    return t_done("engine");
}
