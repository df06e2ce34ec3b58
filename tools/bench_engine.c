/* bench_engine.c - attend's side of the forward benchmark (bench/compare.py drives it against
 * PyTorch and numpy peers in interleaved rounds), and whole-process time and memory of a
 * command (bench/run.sh). A benchmark, not a test.
 *   bench_engine serve MODEL [MAXN]   a server on stdin/stdout, the protocol of
 *                                     bench/peer_forward.py: check N | run N ITERS (per
 *                                     forward: wall µs, CPU µs, minor page faults) | flops N
 *                                     | peak 1 (one core's FMA GFLOP/s, measured, for the
 *                                     vector width attend's matrix products use here: "GFLOPS
 *                                     ISA AVX2_GFLOPS") | keep N ITERS (run,
 *                                     every head's attention maps written by the forward
 *                                     (trace_want_maps) and read, as a display does) | threads T (the products' threads from now on)
 *                                     | membw T [R] (GB/s reading 1 GiB with T threads, best
 *                                     of R reads, default 5; the buffer is kept between calls)
 *                                     | muladd 1 (one core's GFLOP/s of separate vector
 *                                     multiplies and adds: the [out, in] product's ceiling)
 *                                     | rss 1 (peak resident MB so far, VmHWM); MAXN caps the
 *                                     trace (default: the model's max_len)
 *   bench_engine widen MODEL OUT LEN  MODEL's architecture with max_len LEN and seeded random
 *                                     weights, written to OUT (the long-sequence sizes)
 *   bench_engine exec N -- CMD ARGS   median wall time, CPU time and minor page faults, and the
 *                                     largest peak RSS, of N runs of CMD
 *   bench_engine attention MODEL      how attention's cost grows with n: one head's model_sdpa_out
 *                                     and the whole forward at n = 128 .. max_len, doubling */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "model.h"
#include "tensor_par.h"

static double clock_us(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Minor page faults of this process so far (the kernel handing it fresh pages). */
static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The ids every peer runs (bench/peer_forward.py's bench_ids): no special tokens. */
static void bench_ids(int *ids, int n, int V)
{
    for (int i = 0; i < n; i++)
        ids[i] = 6 + (i * 37) % (V - 6);
}

/* Query-key pairs a head computes at n tokens: all n² without a causal mask; with one, each
 * band of MODEL_SDPA_ROWS query rows reads the keys up to its last row (model_sdpa_out skips
 * the rest), about n²/2. The work done, not the n² of a full matrix. */
static double head_pairs(const ModelConfig *c, int n)
{
    if (c->arch != ARCH_DECODER)
        return (double)n * n;
    double p = 0.0;
    for (int i0 = 0; i0 < n; i0 += MODEL_SDPA_ROWS) {
        int r = n - i0 < MODEL_SDPA_ROWS ? n - i0 : MODEL_SDPA_ROWS;
        p += (double)r * (i0 + r);
    }
    return p;
}

/* Multiply-adds ×2 of one forward of n tokens (the matrix products and the attention). */
static double forward_flops(const ModelConfig *c, int n)
{
    double d = c->d_model, hd = (double)c->n_heads * c->d_head, F = c->d_ff, V = c->vocab_size;
    double per_layer = 2.0 * n * d * hd * 4 + 2.0 * 2.0 * head_pairs(c, n) * hd + 2.0 * 2.0 * n * d * F;
    return c->n_layers * per_layer + 2.0 * n * d * V;
}

/* FMA throughput of one core, measured: 16 independent chains of vector FMAs (enough to
 * cover the latency of two FMA pipes), timed against process CPU time (time spent descheduled
 * on a loaded machine does not count), best of 5 rounds. GFLOP/s = 2 × lanes × FMAs / s. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define FMA_CHAINS(T, SET1, FMA, ADD, REDUCE)                                                  \
    T acc[16], x = SET1(1.0000001f), y = SET1(0.9999999f);                                    \
    for (int u = 0; u < 16; u++)                                                              \
        acc[u] = SET1((float)u);                                                              \
    for (long i = 0; i < iters; i++) {                                                        \
        _Pragma("GCC unroll 16") for (int u = 0; u < 16; u++) acc[u] = FMA(acc[u], x, y);     \
        __asm__ volatile("" : "+x"(x));                                                       \
    }                                                                                         \
    for (int u = 1; u < 16; u++)                                                              \
        acc[0] = ADD(acc[0], acc[u]);                                                         \
    return REDUCE(acc[0]);

__attribute__((target("avx512f"))) static float fma_chains_512(long iters)
{
    FMA_CHAINS(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, _mm512_reduce_add_ps)
}

__attribute__((target("avx2,fma"))) static float fma_256_sum(__m256 v)
{
    float f[8];
    _mm256_storeu_ps(f, v);
    return f[0] + f[7];
}

__attribute__((target("avx2,fma"))) static float fma_chains_256(long iters)
{
    FMA_CHAINS(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, fma_256_sum)
}

/* The [out, in] product's rounding contract (tensor_stream.h: every product rounded, then
 * added) takes a multiply and an add where an FMA would do both: 24 independent chains of
 * acc = acc + acc·y (each product distinct, none shared), 2 flops a lane a step. */
#define MULADD_CHAINS(T, SET1, MUL, ADD, REDUCE)                                               \
    T acc[24], y = SET1(1e-8f);                                                               \
    for (int u = 0; u < 24; u++)                                                              \
        acc[u] = SET1((float)u);                                                              \
    for (long i = 0; i < iters; i++) {                                                        \
        _Pragma("GCC unroll 24") for (int u = 0; u < 24; u++) acc[u] = ADD(acc[u], MUL(acc[u], y)); \
        __asm__ volatile("" : "+x"(y));                                                       \
    }                                                                                         \
    for (int u = 1; u < 24; u++)                                                              \
        acc[0] = ADD(acc[0], acc[u]);                                                         \
    return REDUCE(acc[0]);

__attribute__((target("avx512f"))) static float muladd_chains_512(long iters)
{
    MULADD_CHAINS(__m512, _mm512_set1_ps, _mm512_mul_ps, _mm512_add_ps, _mm512_reduce_add_ps)
}

__attribute__((target("avx2,fma"))) static float muladd_chains_256(long iters)
{
    MULADD_CHAINS(__m256, _mm256_set1_ps, _mm256_mul_ps, _mm256_add_ps, fma_256_sum)
}

/* Peak GFLOP/s `lanes` floats wide (16: AVX-512, 8: AVX2+FMA) of FMAs, or with muladd of
 * separate multiplies and adds (the [out, in] product's ceiling under its contract), best of 5
 * rounds by process CPU time; 0 when this CPU has no such instructions. */
static double measure_rate(int lanes, int muladd)
{
    if (lanes == 16 ? !__builtin_cpu_supports("avx512f")
                    : !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
        return 0.0;
    const long iters = muladd ? 3000000 : 4000000;
    const double chains = muladd ? 24.0 : 16.0;
    double best = 0.0;
    volatile float sink = 0.0f;
    for (int round = 0; round < 5; round++) {
        double c0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
        if (muladd)
            sink = lanes == 16 ? muladd_chains_512(iters) : muladd_chains_256(iters);
        else
            sink = lanes == 16 ? fma_chains_512(iters) : fma_chains_256(iters);
        double g = 2.0 * lanes * chains * iters / ((clock_us(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3);
        if (g > best)
            best = g;
    }
    (void)sink;
    return best;
}
#else
static double measure_rate(int lanes, int muladd)
{
    (void)lanes, (void)muladd;
    return 0.0;
}
#endif

/* The FMA width attend's matrix products use on this CPU (tensor_matmul.c's dispatch). */
static int matmul_lanes(void)
{
    return cpu_has_avx512() ? 16 : cpu_has_avx2_fma() ? 8 : 0;
}

/* Memory bandwidth as the forward sees it: a buffer of 1 GiB (far past the caches), touched
 * once, then summed by `parts` threads (the products' pool), wall time, best of 5 rounds. GB/s.
 * Each thread reads its range as BW_STREAMS interleaved sequential streams (one from each
 * quarter), 64 bytes a load on AVX-512: the fastest plain read loop measured here, so the floor
 * is not flattered. At load 11-13, reading 1 GiB on one thread (CPU time, 4 rounds): 12.2 GB/s
 * with one stream of 32-byte loads (this loop until session 11), 13.7 with one of 64-byte
 * loads, 14.5-15.2 with 4, 8 or 16 streams; a software prefetch 4 KB ahead added nothing. */
#define BW_STREAMS 4
typedef struct {
    const float *buf;
    size_t len;
    float sum[8];
} BwJob;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target("avx512f"))) static float bw_read_z(const float *p, size_t per)
{
    size_t q = per / BW_STREAMS;
    __m512 a[BW_STREAMS];
    for (int s = 0; s < BW_STREAMS; s++)
        a[s] = _mm512_setzero_ps();
    for (size_t i = 0; i < q; i += 16)
        for (int s = 0; s < BW_STREAMS; s++)
            a[s] = _mm512_add_ps(a[s], _mm512_loadu_ps(p + (size_t)s * q + i));
    for (int s = 1; s < BW_STREAMS; s++)
        a[0] = _mm512_add_ps(a[0], a[s]);
    return _mm512_reduce_add_ps(a[0]);
}

__attribute__((target("avx2"))) static float bw_read_y(const float *p, size_t per)
{
    size_t q = per / BW_STREAMS;
    __m256 a[BW_STREAMS];
    for (int s = 0; s < BW_STREAMS; s++)
        a[s] = _mm256_setzero_ps();
    for (size_t i = 0; i < q; i += 8)
        for (int s = 0; s < BW_STREAMS; s++)
            a[s] = _mm256_add_ps(a[s], _mm256_loadu_ps(p + (size_t)s * q + i));
    for (int s = 1; s < BW_STREAMS; s++)
        a[0] = _mm256_add_ps(a[0], a[s]);
    float f[8];
    _mm256_storeu_ps(f, a[0]);
    return f[0] + f[5];
}

static void bw_part(void *ctx, int part, int parts)
{
    BwJob *J = ctx;
    size_t per = J->len / (size_t)parts / 256 * 256, lo = per * (size_t)part;
    J->sum[part] = cpu_has_avx512() ? bw_read_z(J->buf + lo, per) : bw_read_y(J->buf + lo, per);
}
#else
static void bw_part(void *ctx, int part, int parts)
{
    BwJob *J = ctx;
    size_t per = J->len / (size_t)parts, lo = per * (size_t)part;
    float s = 0.0f;
    for (size_t i = 0; i < per; i++)
        s += J->buf[lo + i];
    J->sum[part] = s;
}
#endif

/* The bandwidth buffer: 1 GiB (2^28 floats, far past the caches), written once on first use
 * and kept for the process's life, so rounds can alternate with forwards at no setup cost.
 * NULL when out of memory. */
static float *bw_buf;
#define BW_LEN ((size_t)1 << 28)

static const float *bw_buffer(void)
{
    if (!bw_buf && (bw_buf = malloc(sizeof(float) * BW_LEN)))
        for (size_t i = 0; i < BW_LEN; i++)
            bw_buf[i] = (float)(i & 1023);
    return bw_buf;
}

/* Memory read bandwidth with `parts` threads, GB/s (wall time): the best of `rounds` reads of
 * the whole buffer. 0 when out of memory. */
static double measure_bw(int parts, int rounds)
{
    const float *buf = bw_buffer();
    if (!buf)
        return 0.0;
    BwJob J = {buf, BW_LEN, {0}};
    int saved = tensor_threads();
    tensor_set_threads(parts);
    double best = 0.0;
    for (int round = 0; round < rounds; round++) {
        double w0 = clock_us(CLOCK_MONOTONIC);
        tensor_par_run(bw_part, &J, parts);
        double g = (double)BW_LEN * sizeof(float) / ((clock_us(CLOCK_MONOTONIC) - w0) * 1e3);
        if (g > best)
            best = g;
    }
    tensor_set_threads(saved);
    return best;
}

/* Peak resident set of this process so far, MB (VmHWM), or -1. */
static double peak_rss_mb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb < 0 ? -1.0 : kb / 1024.0;
}

static int serve(const char *path, int maxn)
{
    Model m;
    char err[512], line[256];
    if (model_load(&m, path, err, sizeof err)) {
        fprintf(stderr, "bench_engine: %s\n", err);
        return 1;
    }
    int L = maxn > 0 && maxn < m.cfg.max_len ? maxn : m.cfg.max_len, V = m.cfg.vocab_size;
    Trace *t = trace_new(&m, L, 1);
    int *ids = malloc(sizeof(int) * (size_t)L);
    if (!t || !ids) {
        fprintf(stderr, "bench_engine: out of memory\n");
        return 1;
    }
    trace_set_map_budget(t, SIZE_MAX); /* "keep": every head's maps, as the peers keep them */
    Controls ctl;
    model_default_controls(&m, &ctl);
    while (fgets(line, sizeof line, stdin)) {
        int n = 0, iters = 0;
        char cmd[16];
        if (sscanf(line, "%15s %d %d", cmd, &n, &iters) < 2 || n < 1 || n > L) {
            printf("error: bad command or n outside 1..%d\n", L);
        } else if (!strcmp(cmd, "peak")) {
            int lanes = matmul_lanes();
            printf("%.1f %s %.1f\n", measure_rate(lanes, 0),
                   lanes == 16 ? "avx512" : lanes == 8 ? "avx2" : "none", measure_rate(8, 0));
        } else if (!strcmp(cmd, "muladd")) {
            printf("%.1f\n", measure_rate(matmul_lanes(), 1));
        } else if (!strcmp(cmd, "threads")) {
            tensor_set_threads(n);
            printf("%d\n", tensor_threads());
        } else if (!strcmp(cmd, "membw")) {
            printf("%.2f\n", measure_bw(n, iters > 0 ? iters : 5));
        } else if (!strcmp(cmd, "rss")) {
            printf("%.1f\n", peak_rss_mb());
        } else if (!strcmp(cmd, "flops")) {
            printf("%.0f\n", forward_flops(&m.cfg, n));
        } else if (!strcmp(cmd, "check")) {
            bench_ids(ids, n, V);
            if (model_forward(&m, ids, n, NULL, 0, &ctl, t, err, sizeof err)) {
                printf("error: %s\n", err);
            } else {
                const TraceEntry *lg = trace_find(t, STACK_DEC, -1, SUB_NONE, -1, T_LOGITS);
                const float *r = lg->data + (size_t)(n - 1) * V;
                double s = 0.0;
                int best = 0;
                for (int j = 0; j < V; j++) {
                    s += r[j];
                    if (r[j] > r[best])
                        best = j;
                }
                printf("%.6f %d\n", s, best);
            }
        } else if ((!strcmp(cmd, "run") || !strcmp(cmd, "keep")) && iters > 0) {
            bench_ids(ids, n, V);
            int keep = !strcmp(cmd, "keep");
            trace_want_maps(t, keep); /* keep: the forward writes every head's maps itself */
            long f0 = minor_faults();
            double w0 = clock_us(CLOCK_MONOTONIC), c0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
            for (int i = 0; i < iters; i++) {
                model_forward(&m, ids, n, NULL, 0, &ctl, t, err, sizeof err);
                if (keep)
                    trace_fill_all(t); /* every head's maps, over the threads in use */
                for (int e = 0; keep && e < t->n_entries; e++)
                    (void)trace_entry(t, e); /* fills each head's scores .. weights */
            }
            double w1 = clock_us(CLOCK_MONOTONIC), c1 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
            printf("%.3f %.3f %.1f\n", (w1 - w0) / iters, (c1 - c0) / iters,
                   (double)(minor_faults() - f0) / iters);
        } else {
            printf("error: unknown command\n");
        }
        fflush(stdout);
    }
    free(bw_buf);
    bw_buf = NULL;
    trace_free(t);
    free(ids);
    model_free(&m);
    return 0;
}

static int widen(const char *src, const char *out, int len)
{
    Model a, b;
    Vocab v;
    char err[512];
    if (model_load(&a, src, err, sizeof err)) {
        fprintf(stderr, "bench_engine: %s\n", err);
        return 1;
    }
    ModelConfig c = a.cfg;
    c.max_len = len;
    if (vocab_init(&v, (const char *const *)a.vocab.words, a.vocab.n, err, sizeof err) ||
        model_new(&b, &c, &v, err, sizeof err)) {
        fprintf(stderr, "bench_engine: %s\n", err);
        return 1;
    }
    model_init_random(&b, 7);
    int rc = model_save(&b, out, err, sizeof err);
    if (rc)
        fprintf(stderr, "bench_engine: %s\n", err);
    model_free(&a);
    model_free(&b);
    return rc ? 1 : 0;
}

/* Median CPU µs of one call of model_sdpa_out (one head; the mask and its rows' limits, which
 * the forward computes once for all heads, as given) at n tokens, over rounds of about 20 ms. */
static double sdpa_us(int n, int dh, float *buf, const float *qkv, const float *mask, int *lim)
{
    float *band = buf, *o = band + MODEL_SDPA_BAND(n, dh);
    const float *q = qkv, *k = q + (size_t)n * dh, *v = k + (size_t)n * dh;
    double t[5];
    int iters = 1;
    for (;;) { /* calibrate */
        double c0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
        for (int i = 0; i < iters; i++)
            model_sdpa_out(o, band, q, k, v, mask, lim, n, n, dh, dh, 0.25f);
        if (clock_us(CLOCK_PROCESS_CPUTIME_ID) - c0 > 20000.0 || iters > 1 << 20)
            break;
        iters *= 2;
    }
    for (int r = 0; r < 5; r++) {
        double c0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
        for (int i = 0; i < iters; i++)
            model_sdpa_out(o, band, q, k, v, mask, lim, n, n, dh, dh, 0.25f);
        t[r] = (clock_us(CLOCK_PROCESS_CPUTIME_ID) - c0) / iters;
    }
    qsort(t, 5, sizeof t[0], cmp_d);
    return t[2];
}

/* For n = 128 .. max_len, doubling: one head's attention (µs, and its growth over n/2: 4.00
 * is N²), the whole forward (µs), the share of the forward that is attention (layers ×
 * heads × one head's time), and the head without a mask, reading every key (the work of a
 * full n×n matrix, which the causal head halves). CPU time, medians of 5 rounds. */
static int bench_attention(const char *path)
{
    Model m;
    char err[512];
    if (model_load(&m, path, err, sizeof err)) {
        fprintf(stderr, "bench_engine: %s\n", err);
        return 1;
    }
    int L = m.cfg.max_len, dh = m.cfg.d_head, V = m.cfg.vocab_size;
    float *buf = malloc(sizeof(float) * (MODEL_SDPA_BAND(L, dh) + (size_t)L * dh));
    float *qkv = malloc(sizeof(float) * (size_t)3 * L * dh), *mask = malloc(sizeof(float) * (size_t)L * L);
    int *ids = malloc(sizeof(int) * (size_t)L), *lim = malloc(sizeof(int) * (size_t)L);
    Trace *t = trace_new(&m, L, 1);
    if (!buf || !qkv || !mask || !ids || !lim || !t) {
        fprintf(stderr, "bench_engine: out of memory\n");
        return 1;
    }
    srand(1);
    for (int i = 0; i < 3 * L * dh; i++)
        qkv[i] = (float)rand() / RAND_MAX - 0.5f;
    Controls ctl;
    model_default_controls(&m, &ctl);
    double prev = 0.0;
    for (int n = 128; n <= L; n *= 2) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                mask[(size_t)i * n + j] = j > i ? -INFINITY : 0.0f;
        model_sdpa_limits(mask, n, n, lim);
        double head = sdpa_us(n, dh, buf, qkv, mask, lim);
        double full = sdpa_us(n, dh, buf, qkv, NULL, NULL); /* no mask: every key, n² */
        bench_ids(ids, n, V);
        double f[5];
        for (int r = 0; r < 5; r++) {
            double c0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
            model_forward(&m, ids, n, NULL, 0, &ctl, t, err, sizeof err);
            f[r] = clock_us(CLOCK_PROCESS_CPUTIME_ID) - c0;
        }
        qsort(f, 5, sizeof f[0], cmp_d);
        double attn = head * m.cfg.n_layers * m.cfg.n_heads;
        char growth[32] = "-";
        if (prev > 0.0)
            snprintf(growth, sizeof growth, "%.2f", head / prev);
        printf("attention n=%d d_head=%d head_us=%.1f growth=%s forward_us=%.1f "
               "attention_share=%.0f%% head_all_keys_us=%.1f\n", n, dh, head, growth, f[2],
               100.0 * attn / f[2], full);
        fflush(stdout);
        prev = head;
    }
    trace_free(t);
    free(buf);
    free(qkv);
    free(mask);
    free(ids);
    free(lim);
    model_free(&m);
    return 0;
}

static int bench_exec(int n, char **argv)
{
    double t[64], cpu[64], flt[64];
    long maxrss = 0;
    if (n > 64)
        n = 64;
    for (int i = 0; i < n; i++) {
        double t0 = clock_us(CLOCK_MONOTONIC);
        pid_t pid = fork();
        if (pid == 0) {
            int fd = open("/dev/null", O_WRONLY);
            dup2(fd, 1);
            execvp(argv[0], argv);
            _exit(127);
        }
        int st;
        struct rusage ru;
        wait4(pid, &st, 0, &ru);
        t[i] = clock_us(CLOCK_MONOTONIC) - t0;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "bench: command failed\n");
            return 1;
        }
        cpu[i] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + ru.ru_utime.tv_usec +
                 ru.ru_stime.tv_usec; /* the child's own user + system time, µs */
        flt[i] = (double)ru.ru_minflt;
        if (ru.ru_maxrss > maxrss)
            maxrss = ru.ru_maxrss;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_d);
    qsort(cpu, (size_t)n, sizeof cpu[0], cmp_d);
    qsort(flt, (size_t)n, sizeof flt[0], cmp_d);
    printf("%.2f ms median wall time, %.2f ms median CPU (user + system), %.0f page faults, "
           "over %d runs, peak RSS %.1f MB\n", t[n / 2] / 1000.0, cpu[n / 2] / 1000.0, flt[n / 2],
           n, maxrss / 1024.0);
    return 0;
}

int main(int argc, char **argv)
{
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "serve") == 0)
        return serve(argv[2], argc == 4 ? atoi(argv[3]) : 0);
    if (argc == 5 && strcmp(argv[1], "widen") == 0)
        return widen(argv[2], argv[3], atoi(argv[4]));
    if (argc >= 5 && strcmp(argv[1], "exec") == 0 && strcmp(argv[3], "--") == 0)
        return bench_exec(atoi(argv[2]), argv + 4);
    if (argc == 3 && strcmp(argv[1], "attention") == 0)
        return bench_attention(argv[2]);
    fprintf(stderr, "usage: bench_engine serve MODEL [MAXN] | widen MODEL OUT LEN | exec N -- CMD ARGS... "
                    "| attention MODEL\n");
    return 2;
}
