/* gemm_bench.c - the [in, out] product (tensor_matmul) on GPT-2 small's four body shapes, timed
 * by thread CPU time, with the bits of every output hashed and sampled against the in-order
 * fused chain. A benchmark for A/B runs of tensor_block.c, not a test.
 *   gemm_bench [-t TRIALS] [-n N,N,...] [-s KxM,...] [-c COPIES] [-h bf16|f16]
 * prints one line per shape and token count: GFLOP/s from the fastest and the median trial
 * (CPU time of the whole process, meant as every thread's share; but with more than one
 * thread a product of a few ms can end before the system has added a worker's running time
 * to the process's clock, so the figure can exceed one core's peak (285 GFLOP/s measured
 * at ATTEND_THREADS=2, session 12): at 2 threads and more take the wall median, 2·n·k·m /
 * wall, on a quiet host), the wall median, the output's FNV-1a hash (compare two builds' lines) and
 * the count of sampled elements that differ from fmaf's chain over p (0 when the contract
 * holds). Each trial reads the next of COPIES weight matrices (default: enough for 64 MB), so
 * that, as in a forward, the weights come from memory, not from the caches. -h takes the
 * weights as 16-bit values (tensor_matmul_half); the sample then chains the widened values. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tensor.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* A value in (-1, 1) from a fixed sequence (xorshift64*), the same in every build. */
static float rnd(void)
{
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    uint64_t x = rng * 2685821657736338717ull;
    return (float)((double)(x >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* FNV-1a over n floats' bytes. */
static uint64_t fnv(const float *v, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *c = (const unsigned char *)v;
    for (size_t i = 0; i < n * sizeof(float); i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

/* A 16-bit value's float (bf16: the high half; f16: IEEE half). */
static float widen1(uint16_t v, int bf16)
{
    if (bf16) {
        uint32_t u = (uint32_t)v << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    int e = (v >> 10) & 31, mnt = v & 1023;
    float f = e == 0 ? ldexpf((float)mnt, -24) : e == 31 ? (mnt ? NAN : INFINITY)
                                                        : ldexpf((float)(mnt | 1024), e - 25);
    return (v & 0x8000) ? -f : f;
}

/* One shape at one token count: trials timed, the last output hashed and sampled. */
static void run(int k, int m, int n, int trials, int copies, int half)
{
    size_t km = (size_t)k * (size_t)m;
    float *a = malloc(sizeof(float) * (size_t)n * k), *out = malloc(sizeof(float) * (size_t)n * m);
    float *b = half ? NULL : malloc(sizeof(float) * km * (size_t)copies);
    uint16_t *h = half ? malloc(sizeof(uint16_t) * km * (size_t)copies) : NULL;
    double *cpu = malloc(sizeof(double) * (size_t)trials), *wall = malloc(sizeof(double) * (size_t)trials);
    if (!a || !out || (!b && !h) || !cpu || !wall) {
        fprintf(stderr, "gemm_bench: out of memory at %dx%d n=%d\n", k, m, n);
        exit(1);
    }
    rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(k * 7 + m * 13 + n);
    for (size_t i = 0; i < (size_t)n * k; i++)
        a[i] = rnd();
    for (size_t i = 0; i < km * (size_t)copies; i++) {
        if (half) {
            float f = rnd() * 0.5f;
            uint32_t u;
            memcpy(&u, &f, 4);
            h[i] = half == 1 ? (uint16_t)(u >> 16) : (uint16_t)(0x3000 | (u >> 19 & 0x0fff) | (u >> 16 & 0x8000));
        } else
            b[i] = rnd();
    }
    for (int t = -1; t < trials; t++) { /* one untimed warm-up */
        int c = (t + 1) % copies;
        double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
        if (half) {
            if (tensor_matmul_half(out, a, h + km * (size_t)c, half == 1 ? TENSOR_BF16 : TENSOR_F16, n, k, m)) {
                fprintf(stderr, "gemm_bench: tensor_matmul_half refused %dx%d n=%d\n", k, m, n);
                exit(1);
            }
        } else
            tensor_matmul(out, a, b + km * (size_t)c, n, k, m);
        double c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w1 = clock_s(CLOCK_MONOTONIC);
        if (t >= 0)
            cpu[t] = c1 - c0, wall[t] = w1 - w0;
    }
    int last = trials % copies; /* the copy the last trial read */
    long bad = 0;
    for (int s = 0; s < 256; s++) {
        int i = (int)((unsigned)(s * 2654435761u) % (unsigned)n), j = (int)((unsigned)(s * 40503u + 7) % (unsigned)m);
        if (s < 4)
            i = s & 1 ? n - 1 : 0, j = s & 2 ? m - 1 : 0;
        float acc = 0.0f;
        for (int p = 0; p < k; p++) {
            size_t bi = km * (size_t)last + (size_t)p * m + j;
            acc = fmaf(a[(size_t)i * k + p], half ? widen1(h[bi], half == 1) : b[bi], acc);
        }
        if (memcmp(&acc, &out[(size_t)i * m + j], 4))
            bad++;
    }
    qsort(cpu, (size_t)trials, sizeof(double), cmp_d);
    qsort(wall, (size_t)trials, sizeof(double), cmp_d);
    double flop = 2.0 * n * (double)km;
    printf("%4dx%-4d n=%-4d gflops_min_cpu=%6.1f gflops_med_cpu=%6.1f wall_med_ms=%8.3f hash=%016llx sample_bad=%ld\n",
           k, m, n, flop / cpu[0] * 1e-9, flop / cpu[trials / 2] * 1e-9, wall[trials / 2] * 1e3,
           (unsigned long long)fnv(out, (size_t)n * m), bad);
    fflush(stdout);
    free(a), free(out), free(b), free(h), free(cpu), free(wall);
}

int main(int argc, char **argv)
{
    int trials = 9, copies = 0, half = 0;
    int ns[32] = {33, 64, 256, 1024}, nn = 4;
    int ks[16] = {768, 768, 768, 3072}, ms[16] = {2304, 768, 3072, 768}, ns_ = 4;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "-t") && v)
            trials = atoi(v), i++;
        else if (!strcmp(argv[i], "-c") && v)
            copies = atoi(v), i++;
        else if (!strcmp(argv[i], "-h") && v)
            half = !strcmp(v, "bf16") ? 1 : !strcmp(v, "f16") ? 2 : -1, i++;
        else if (!strcmp(argv[i], "-n") && v) {
            nn = 0;
            for (const char *s = v; *s && nn < 32; s = strchr(s, ',') ? strchr(s, ',') + 1 : "")
                ns[nn++] = atoi(s);
            i++;
        } else if (!strcmp(argv[i], "-s") && v) {
            ns_ = 0;
            for (const char *s = v; *s && ns_ < 16; s = strchr(s, ',') ? strchr(s, ',') + 1 : "")
                if (sscanf(s, "%dx%d", &ks[ns_], &ms[ns_]) == 2)
                    ns_++;
            i++;
        } else {
            fprintf(stderr, "usage: gemm_bench [-t TRIALS] [-n N,N,...] [-s KxM,...] [-c COPIES] [-h bf16|f16]\n");
            return 2;
        }
    }
    if (trials < 1 || half < 0) {
        fprintf(stderr, "gemm_bench: bad -t or -h\n");
        return 2;
    }
    for (int s = 0; s < ns_; s++)
        for (int q = 0; q < nn; q++) {
            if (ks[s] < 1 || ms[s] < 1 || ns[q] < 1)
                continue;
            int c = copies > 0 ? copies
                               : (int)(64.0 * 1048576 / ((double)ks[s] * ms[s] * (half ? 2 : 4))) + 1;
            run(ks[s], ms[s], ns[q], trials, c, half);
        }
    return 0;
}
