/* progress_bench.c - the progress file at scale (bench/progress_bench.sh): a file of N records
 * in one part (PART: lessons, the default, most of them lessons that no longer exist; scores
 * and schedule, the quiz slot's; labs, the labs slot's; slots, N slots), then the time of a
 * load, of a save (lock, re-read, merge, write, fsync, rename), of a merge (another window
 * saved since: the file is read again and N records merged) and of a page turn (mark a page,
 * save), each the median of ROUNDS runs, CPU and wall.
 *   progress_bench N ROUNDS [PART]
 * prints "progress part=P records=N file_kb=K load_ms=… first_save_ms=… merge_ms=… turn_ms=…
 * turn_cpu_ms=…":
 * medians; wall time, and the turn's process CPU time (what attend itself spends, without
 * waiting for the disk's fsync).
 * A benchmark, not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

static double clock_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static double now_ms(void)
{
    return clock_ms(CLOCK_MONOTONIC);
}

static double cpu_ms(void)
{
    return clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Fills p with n records of the part. 0 or -1. */
static int fill(Progress *p, const char *part, int n, char *err, size_t errlen)
{
    char id[64];
    if (!strcmp(part, "lessons")) {
        for (int i = 0; i < n; i++) {
            snprintf(id, sizeof id, "old-lesson-%06d", i);
            for (int k = 0; k < 6; k += 1 + i % 3)
                progress_mark_seen(p, id, k);
            progress_set_completed(p, id, i % 4 == 0);
        }
        return 0;
    }
    if (!strcmp(part, "slots")) {
        for (int i = 0; i < n; i++) {
            snprintf(id, sizeof id, "slot-%06d", i);
            if (progress_slot_set(p, id, "{\"v\": 1, \"when\": 5}", err, errlen))
                return -1;
        }
        return 0;
    }
    /* one slot holding n records, as the quiz and the labs write them */
    size_t cap = (size_t)n * 120 + 64, k = 0;
    char *t = malloc(cap);
    if (!t)
        return -1;
    int scores = !strcmp(part, "scores"), sched = !strcmp(part, "schedule");
    if (!scores && !sched && strcmp(part, "labs")) {
        snprintf(err, errlen, "PART is lessons, scores, schedule, labs or slots");
        free(t);
        return -1;
    }
    k += (size_t)snprintf(t + k, cap - k, scores || sched ? "{\"version\": 1, \"%s\": {" : "{",
                          scores ? "scores" : "schedule");
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(t + k, cap - k,
                              scores ? "%s\"lesson-%06d\": {\"right\": 3, \"asked\": 4, \"when\": %d, \"best\": 0.75}"
                              : sched ? "%s\"item-%06d\": {\"box\": 2, \"due\": %d, \"last\": 100}"
                                      : "%s\"lab-%06d\": {\"last\": %d, \"best\": 1, \"checks\": 3, \"fails\": 1}",
                              i ? ", " : "", i, 1000 + i);
    snprintf(t + k, cap - k, scores || sched ? "}}" : "}");
    int rc = progress_slot_set(p, scores || sched ? "quiz" : "labs", t, err, errlen);
    free(t);
    return rc;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10000, rounds = argc > 2 ? atoi(argv[2]) : 21;
    const char *part = argc > 3 ? argv[3] : "lessons";
    if (n < 1 || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "usage: progress_bench N ROUNDS [lessons|scores|schedule|labs|slots]\n");
        return 2;
    }
    char dir[] = "/tmp/attend-progress-bench-XXXXXX", path[128], err[1400], id[48];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/progress.json", dir);
    Progress p, q;
    progress_load(&p, path, err, sizeof err);
    if (fill(&p, part, n, err, sizeof err)) {
        fprintf(stderr, "progress_bench: %s\n", err);
        return 2;
    }
    (void)id;
    progress_set_current(&p, "old-lesson-000001", 2);
    if (progress_save(&p, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    progress_free(&p);
    double *load = calloc((size_t)rounds, sizeof *load), *save = calloc((size_t)rounds, sizeof *save),
           *turn = calloc((size_t)rounds, sizeof *turn),
           *turn_cpu = calloc((size_t)rounds, sizeof *turn_cpu),
           *merge = calloc((size_t)rounds, sizeof *merge);
    int rc = 0;
    for (int r = 0; r < rounds && !rc; r++) {
        double t0 = now_ms();
        rc |= progress_load(&p, path, err, sizeof err) != 0;
        double t1 = now_ms();
        rc |= progress_save(&p, err, sizeof err) != 0;
        double t2 = now_ms(), c2 = cpu_ms();
        rc |= progress_mark_seen(&p, "causal-mask", r % 5) != 0;
        rc |= progress_save(&p, err, sizeof err) != 0;
        double t3 = now_ms();
        turn_cpu[r] = cpu_ms() - c2;
        /* another window saves; this one's next save reads the file again and merges */
        rc |= progress_load(&q, path, err, sizeof err) != 0;
        rc |= progress_mark_seen(&q, "other-window", r % 5) != 0;
        rc |= progress_save(&q, err, sizeof err) != 0;
        progress_free(&q);
        rc |= progress_mark_seen(&p, "causal-mask", 6) != 0;
        double t4 = now_ms();
        rc |= progress_save(&p, err, sizeof err) != 0;
        merge[r] = now_ms() - t4;
        load[r] = t1 - t0;
        save[r] = t2 - t1;
        turn[r] = t3 - t2;
        progress_free(&p);
    }
    struct stat st;
    stat(path, &st);
    if (rc)
        fprintf(stderr, "progress_bench: %s\n", err);
    else
        printf("progress part=%s records=%d file_kb=%lld load_ms=%.2f first_save_ms=%.2f "
               "merge_ms=%.2f turn_ms=%.2f turn_cpu_ms=%.2f (median of %d; wall, but turn_cpu: "
               "process CPU; a turn is a page marked seen, then a save)\n", part, n,
               (long long)st.st_size / 1024, median(load, rounds), median(save, rounds),
               median(merge, rounds), median(turn, rounds), median(turn_cpu, rounds), rounds);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        rc = 1;
    free(load);
    free(save);
    free(turn);
    free(turn_cpu);
    free(merge);
    return rc;
}
