/* bt_bench.c - the [out, in] product's microbenchmark (tensor_matmul_bt_scaled and
 * tensor_matmul_bt_half): GFLOP/s on GPT-2 small's tied LM head and Qwen3-0.6B's projections at
 * a few token counts, and its bits checked against a scalar reference of the rounding contract
 * (tensor_stream.c's header). A benchmark, not a test.
 *   bt_bench [--trials T] [--threads N] [--n 33,64,...] [--shapes gpt2,qwen,qk,all]
 *            [--mcap M] [--ab "X=1,X=2"] [--peak]
 * --mcap: at most M weight rows (short trials: their best is the undisturbed speed on a shared
 * machine); --ab: environment settings put in turn, one per trial, each timed apart.
 * Per shape and n, one line: GFLOP/s by the process's CPU time per thread (best and median of
 * T trials), by wall time (best), a hash of the whole output (an old build's must match) and
 * "ref=ok" when sampled elements (every token, a spread of weight rows) equal the scalar
 * reference bit for bit. --peak first times a pure zmm mul+add loop on one thread: the ceiling
 * of this contract (products and sums rounded apart). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu.h"
#include "tensor.h"
#include "tensor_par.h"

static double now(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint64_t rng = 88172645463325252ull;
static float frand(float scale)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return scale * ((float)(rng >> 40) / (float)(1 << 24) * 2.0f - 1.0f);
}

/* The contract, one element: eight partial sums over p mod 8, their tree, the tail, ·sc. */
static float ref_dot(const float *ar, const float *br, int k, float sc)
{
    float acc[8] = {0};
    int p = 0;
    for (; p + 8 <= k; p += 8)
        for (int u = 0; u < 8; u++) {
            float t = ar[p + u] * br[p + u];
            acc[u] = acc[u] + t;
        }
    float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (; p < k; p++) {
        float t = ar[p] * br[p];
        s = s + t;
    }
    return s * sc;
}

static uint64_t fnv(const void *p, size_t len)
{
    const unsigned char *c = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

typedef struct {
    const char *name, *set;
    int k, m, half;
    float sc;
} Shape;

static const Shape SHAPES[] = {
    {"gpt2-lmhead", "gpt2", 768, 50257, 0, 1.0f},
    {"gpt2-tail", "gpt2", 771, 4099, 0, 0.125f}, /* k mod 8 = 3, m mod 8 = 3: tails */
    {"qwen-q", "qwen", 1024, 2048, 1, 1.0f},
    {"qwen-kv", "qwen", 1024, 1024, 1, 1.0f},
    {"qwen-o", "qwen", 2048, 1024, 1, 1.0f},
    {"qwen-gateup", "qwen", 1024, 3072, 1, 1.0f},
    {"qwen-down", "qwen", 3072, 1024, 1, 1.0f},
    {"qwen-lmhead", "qwen", 1024, 151936, 1, 1.0f},
    {"qk-head", "qk", 64, 0, 0, 0.125f}, /* the maps' fill: m = n */
};

/* Environment settings tried in turn, one per trial (--ab "X=1,X=2"): several variants of a
 * kernel timed interleaved in one process; none: one variant, the environment as it is. */
static char *variants[8];
static int nvar;

/* Variant v's setting in the environment, every other variant's variable unset. */
static void set_variant(int v)
{
    for (int i = 0; i < nvar; i++) {
        char name[64];
        size_t len = strcspn(variants[i], "=");
        snprintf(name, sizeof name, "%.*s", (int)len, variants[i]);
        unsetenv(name);
    }
    putenv(variants[v]);
}

/* One shape at n tokens (at most mcap weight rows when mcap > 0): trials timed, the bits
 * checked. */
static void run(const Shape *S, int n, int trials, int mcap)
{
    int k = S->k, m = S->m ? S->m : n;
    if (mcap > 0 && m > mcap)
        m = mcap;
    size_t wk = (size_t)m * k;
    float *a = malloc(sizeof(float) * (size_t)n * k), *out = malloc(sizeof(float) * (size_t)n * m);
    float *w = malloc(sizeof(float) * wk);
    uint16_t *h = S->half ? malloc(sizeof(uint16_t) * wk) : NULL;
    if (!a || !out || !w || (S->half && !h)) {
        printf("%s n=%d: out of memory\n", S->name, n);
        goto done;
    }
    for (size_t i = 0; i < (size_t)n * k; i++)
        a[i] = frand(2.0f);
    for (size_t i = 0; i < wk; i++)
        w[i] = frand(0.1f);
    if (h) {
        for (size_t i = 0; i < wk; i++) {
            uint32_t bits;
            memcpy(&bits, &w[i], 4);
            h[i] = (uint16_t)(bits >> 16);
        }
        tensor_widen(w, h, TENSOR_BF16, wk);
    }
    int nv = nvar ? nvar : 1;
    double *cpu = malloc(sizeof(double) * (size_t)trials * nv), best_wall[8];
    for (int v = 0; v < nv; v++)
        best_wall[v] = 1e30;
    for (int t = 0; t < trials; t++)
        for (int v = 0; v < nv; v++) {
            if (nvar)
                set_variant(v);
            double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
            if (h)
                tensor_matmul_bt_half(out, a, h, TENSOR_BF16, n, k, m, S->sc);
            else
                tensor_matmul_bt_scaled(out, a, w, n, k, m, S->sc);
            double c1 = now(CLOCK_PROCESS_CPUTIME_ID), w1 = now(CLOCK_MONOTONIC);
            cpu[(size_t)v * trials + t] = c1 - c0;
            if (w1 - w0 < best_wall[v])
                best_wall[v] = w1 - w0;
        }
    /* per thread: the CPU time spread over the threads that ran */
    int th = tensor_par_parts(n, k, m) > 1 ? tensor_threads() : 1;
    double fl = 2.0 * n * (double)k * m;
    for (int v = 0; v < nv; v++) {
        double *c = cpu + (size_t)v * trials;
        qsort(c, (size_t)trials, sizeof(double), cmp_d);
        printf("%-12s k=%-4d m=%-6d n=%-4d %s threads=%d %s%sgflops_cpu_best=%.1f "
               "gflops_cpu_med=%.1f gflops_wall_best=%.1f ms_best=%.2f\n",
               S->name, k, m, n, h ? "bf16" : "f32 ", tensor_threads(), nvar ? variants[v] : "",
               nvar ? " " : "", fl / (c[0] / th) * 1e-9, fl / (c[trials / 2] / th) * 1e-9,
               fl / best_wall[v] * 1e-9, c[0] / th * 1e3);
    }
    /* the bits of the last run (the last variant's) */
    long bad = 0, checked = 0;
    for (int j = 0; j < m; j += (j < 40 || j > m - 40) ? 1 : 61)
        for (int i = 0; i < n; i++) {
            float e = ref_dot(a + (size_t)i * k, w + (size_t)j * k, k, S->sc);
            float g = out[(size_t)i * m + j];
            checked++;
            if (memcmp(&e, &g, 4))
                bad++;
        }
    printf("%-12s k=%-4d m=%-6d n=%-4d hash=%016llx ref=%s", S->name, k, m, n,
           (unsigned long long)fnv(out, sizeof(float) * (size_t)n * m), bad ? "MISMATCH" : "ok");
    if (bad)
        printf(" (%ld of %ld)", bad, checked);
    printf("\n");
    fflush(stdout);
    free(cpu);
done:
    free(a), free(out), free(w), free(h);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
/* One core's mul+add rate on zmm: 24 independent chains acc = acc + acc·y (two instructions,
 * every product distinct so none is shared), iters steps; returns GFLOP/s (2 flops per lane
 * per step). */
__attribute__((target("avx512f"))) static double peak_muladd(long iters)
{
    __m512 acc[24], y = _mm512_set1_ps(1e-8f);
    for (int i = 0; i < 24; i++)
        acc[i] = _mm512_set1_ps((float)i);
    double c0 = now(CLOCK_THREAD_CPUTIME_ID);
    for (long s = 0; s < iters; s++) {
#pragma GCC unroll 24
        for (int i = 0; i < 24; i++)
            acc[i] = _mm512_add_ps(acc[i], _mm512_mul_ps(acc[i], y));
    }
    double c1 = now(CLOCK_THREAD_CPUTIME_ID);
    float sink = 0;
    for (int i = 0; i < 24; i++)
        sink += _mm512_reduce_add_ps(acc[i]);
    if (sink == 12345.0f)
        printf("#\n");
    return 24.0 * 16 * 2 * (double)iters / (c1 - c0) * 1e-9;
}
#endif

int main(int argc, char **argv)
{
    int trials = 7, peak = 0, threads = 1, mcap = 0;
    const char *ns = "33,64,256,1024", *sets = "gpt2";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trials") && i + 1 < argc)
            trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--n") && i + 1 < argc)
            ns = argv[++i];
        else if (!strcmp(argv[i], "--shapes") && i + 1 < argc)
            sets = argv[++i];
        else if (!strcmp(argv[i], "--mcap") && i + 1 < argc)
            mcap = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ab") && i + 1 < argc) {
            for (char *v = strtok(argv[++i], ","); v && nvar < 8; v = strtok(NULL, ","))
                variants[nvar++] = v;
        } else if (!strcmp(argv[i], "--peak"))
            peak = 1;
        else {
            fprintf(stderr, "usage: bt_bench [--trials T] [--threads N] [--n 33,64,...] "
                            "[--shapes gpt2,qwen,qk,all] [--mcap M] [--ab \"X=1,X=2\"] [--peak]\n");
            return 2;
        }
    }
    if (trials < 1)
        trials = 1;
    tensor_set_threads(threads);
    printf("# avx512=%d threads=%d trials=%d\n", cpu_has_avx512(), tensor_threads(), trials);
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    if (peak && cpu_has_avx512()) {
        double best = 0;
        for (int t = 0; t < 5; t++) {
            double g = peak_muladd(20000000);
            best = g > best ? g : best;
        }
        printf("# peak zmm mul+add (separate instructions), one thread: %.1f GFLOP/s\n", best);
    }
#endif
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++) {
        if (!strstr(sets, "all") && !strstr(sets, SHAPES[s].set))
            continue;
        for (const char *p = ns; *p;) {
            int n = atoi(p);
            if (n > 0)
                run(&SHAPES[s], n, trials, mcap);
            p = strchr(p, ',');
            if (!p)
                break;
            p++;
        }
    }
    return 0;
}
