/* bench_engine.c - forward-pass timing at lesson size and long sequences, and whole-process
 * time and peak memory of a command (used by bench/run.sh; a benchmark, not a test).
 *   bench_engine forward             µs per forward at 16, 128, 256 tokens (d_model 64, 4 heads, 2 layers)
 *   bench_engine exec N -- CMD ARGS  median wall time and max peak RSS of N runs of CMD */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "model.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int bench_forward(void)
{
    ModelConfig c;
    model_config_defaults(&c);
    c.arch = ARCH_DECODER;
    c.vocab_size = 300;
    c.d_model = 64;
    c.n_heads = 4;
    c.d_head = 16;
    c.n_layers = 2;
    c.d_ff = 256;
    c.max_len = 256;
    const char **w = malloc(sizeof *w * 300);
    char (*buf)[8] = malloc(8 * 300);
    for (int i = 0; i < 300; i++) {
        snprintf(buf[i], 8, "w%d", i);
        w[i] = buf[i];
    }
    w[0] = "<pad>";
    w[1] = "<unk>";
    Vocab v;
    Model m;
    char err[256];
    if (vocab_init(&v, w, 300, err, sizeof err) || model_new(&m, &c, &v, err, sizeof err)) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    model_init_random(&m, 7);
    const int sizes[] = {16, 128, 256};
    printf("forward pass, decoder d_model 64, 4 heads, 2 layers, d_ff 256 (median of batches):\n");
    for (int s = 0; s < 3; s++) {
        int n = sizes[s];
        Trace *t = trace_new(&m, n, 1);
        int ids[256];
        for (int i = 0; i < n; i++)
            ids[i] = 2 + (i * 37) % 298;
        Controls ctl;
        model_default_controls(&m, &ctl);
        int iters = n == 16 ? 2000 : n == 128 ? 50 : 12;
        int batches = 9;
        if (getenv("BENCH_ONCE")) /* one forward per size: for callgrind instruction counts */
            iters = 1, batches = 1;
        double med[9];
        for (int b = 0; b < batches; b++) {
            double t0 = now_us();
            for (int i = 0; i < iters; i++)
                model_forward(&m, ids, n, NULL, 0, &ctl, t, err, sizeof err);
            med[b] = (now_us() - t0) / iters;
        }
        qsort(med, (size_t)batches, sizeof med[0], cmp_d);
        const char *target = n == 16 ? "  (target < 100 µs)" : "";
        printf("  %3d tokens: %10.1f µs per forward, trace %.1f MB%s\n", n, med[batches / 2],
               t->cap * 4.0 / 1e6, target);
        trace_free(t);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("  peak RSS of this benchmark process: %.1f MB\n", ru.ru_maxrss / 1024.0);
    model_free(&m);
    free(w);
    free(buf);
    return 0;
}

static int bench_exec(int n, char **argv)
{
    double t[64];
    long maxrss = 0;
    if (n > 64) n = 64;
    for (int i = 0; i < n; i++) {
        double t0 = now_us();
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
        t[i] = now_us() - t0;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "bench: command failed\n");
            return 1;
        }
        if (ru.ru_maxrss > maxrss)
            maxrss = ru.ru_maxrss;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_d);
    printf("%.2f ms median wall time over %d runs, peak RSS %.1f MB\n", t[n / 2] / 1000.0, n,
           maxrss / 1024.0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "forward") == 0)
        return bench_forward();
    if (argc >= 5 && strcmp(argv[1], "exec") == 0 && strcmp(argv[3], "--") == 0)
        return bench_exec(atoi(argv[2]), argv + 4);
    fprintf(stderr, "usage: bench_engine forward | exec N -- CMD ARGS...\n");
    return 2;
}
