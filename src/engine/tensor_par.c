/* tensor_par.c - the forward's large products split over the cores (see tensor_par.h).
 *
 * Workers are started on the first product that splits and live until exit (an atexit handler
 * stops and joins them, so the process ends with no thread of its own left: valgrind clean).
 * Between jobs a worker first watches the job counter for a while (TENSOR_PAR_SPIN_US), then
 * sleeps on a condition variable: a forward hands out about a hundred jobs with short serial
 * steps between them, and waking a sleeping thread (a virtual CPU halted by its host) took
 * longer than many of those steps. The calling thread runs part 0 itself (tensor_par_run), or
 * the products' chunks are claimed one at a time by whichever thread is free (tensor_par_dyn:
 * on a shared machine a thread that is taken off its core for a few ms no longer holds up the
 * product while the other waits); it waits for the workers' last chunks the same way, watching
 * first, then sleeping. A part is a range of output columns (whole vector panels), so every
 * element is computed by exactly one thread with its usual chain: the bits do not depend on the
 * thread count or on which thread took a chunk (tests/unit/test_stream.c compares 1, 2 and 3
 * threads). */
#include "tensor_par.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define PAR_MAX 8

static int n_threads = -1; /* -1: not chosen yet */
static _Thread_local int in_part; /* 1 while this thread runs a part: no nesting */
static _Thread_local int self_id;  /* 0: a calling thread; 1..: the workers */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER, run_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER, done_cv = PTHREAD_COND_INITIALIZER;
static int n_workers;           /* started */
static pthread_t workers[PAR_MAX];
static atomic_int quitting;     /* exit: the workers return */
static atomic_ulong gen;        /* job generation (changed under mu, watched without it) */
static atomic_int pending;      /* workers still running the current job */
static int sleepers;            /* workers waiting on go (under mu) */
static int caller_sleeps;       /* the caller waits on done_cv (under mu) */
static void (*job_fn)(void *ctx, int part, int parts);
static void *job_ctx;
static int job_parts;
static int job_threads;         /* threads taking part: the caller's and workers 1.. */
static int job_dyn;             /* parts are chunks, claimed in turn by whichever thread is free */
static atomic_int job_next;     /* the next chunk to claim */

int tensor_threads(void)
{
    if (n_threads < 0) {
        const char *e = getenv("ATTEND_THREADS");
        long n = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
        n_threads = n < 1 ? 1 : n > PAR_MAX ? PAR_MAX : (int)n;
    }
    return n_threads;
}

void tensor_set_threads(int n)
{
    n_threads = n < 1 ? 1 : n > PAR_MAX ? PAR_MAX : n;
}

/* One step of a busy wait: the CPU told that this thread only watches a word. */
static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* 1 when a spin's TENSOR_PAR_SPIN_US are up: the clock is read every 64th turn i, the first
 * reading kept in *t0 (0.0 before it). */
static int spun_out(int i, double *t0)
{
    if ((i & 63) != 0)
        return 0;
    double t = now_us();
    if (*t0 == 0.0) {
        *t0 = t;
        return 0;
    }
    return t - *t0 > TENSOR_PAR_SPIN_US;
}

/* Watches *w until it differs from `from` (and, for the workers, until exit is asked) for at
 * most TENSOR_PAR_SPIN_US. 1: it changed; 0: time is up (the caller then sleeps). */
static int watch_ulong(atomic_ulong *w, unsigned long from)
{
    double t0 = 0.0;
    for (int i = 1;; i++) {
        if (atomic_load_explicit(w, memory_order_acquire) != from ||
            atomic_load_explicit(&quitting, memory_order_relaxed))
            return 1;
        relax();
        if (spun_out(i, &t0))
            return 0;
    }
}

/* Watches *w until it is 0 for at most TENSOR_PAR_SPIN_US. 1: it is; 0: time is up. */
static int watch_zero(atomic_int *w)
{
    double t0 = 0.0;
    for (int i = 1;; i++) {
        if (atomic_load_explicit(w, memory_order_acquire) == 0)
            return 1;
        relax();
        if (spun_out(i, &t0))
            return 0;
    }
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg; /* 1.. */
    self_id = id;
    unsigned long seen = 0;
    for (;;) {
        watch_ulong(&gen, seen); /* the next job is usually a few µs away: no sleep for it */
        pthread_mutex_lock(&mu);
        while (atomic_load(&gen) == seen && !atomic_load(&quitting)) {
            sleepers++;
            pthread_cond_wait(&go, &mu);
            sleepers--;
        }
        if (atomic_load(&quitting)) {
            pthread_mutex_unlock(&mu);
            break;
        }
        seen = atomic_load(&gen);
        if (id >= job_threads) {
            pthread_mutex_unlock(&mu);
            continue;
        }
        void (*fn)(void *, int, int) = job_fn;
        void *ctx = job_ctx;
        int parts = job_parts, dyn = job_dyn;
        pthread_mutex_unlock(&mu);
        in_part = 1;
        if (dyn)
            for (int c; (c = atomic_fetch_add_explicit(&job_next, 1, memory_order_relaxed)) < parts;)
                fn(ctx, c, parts);
        else
            fn(ctx, id, parts);
        in_part = 0;
        if (atomic_fetch_sub_explicit(&pending, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&mu); /* the last: wake the caller if it went to sleep */
            if (caller_sleeps)
                pthread_cond_signal(&done_cv);
            pthread_mutex_unlock(&mu);
        }
    }
    return NULL;
}

/* At exit: the workers (idle between jobs: a job runs inside one call) return and are joined. */
static void stop_workers(void)
{
    pthread_mutex_lock(&mu);
    atomic_store(&quitting, 1);
    int n = n_workers;
    n_workers = 0;
    pthread_cond_broadcast(&go);
    pthread_mutex_unlock(&mu);
    for (int i = 0; i < n; i++)
        pthread_join(workers[i], NULL);
}

int tensor_par_parts(int n, int k, int m)
{
    if (n < 1 || k < 1 || m < 1 || (size_t)n * (size_t)k * (size_t)m < TENSOR_PAR_MIN_MACS)
        return 1;
    return tensor_threads();
}

void tensor_par_range(int m, int unit, int part, int parts, int *j0, int *j1)
{
    int units = (m + unit - 1) / unit, per = (units + parts - 1) / parts;
    long lo = (long)part * per * unit, hi = lo + (long)per * unit;
    *j0 = lo < m ? (int)lo : m;
    *j1 = hi < m ? (int)hi : m;
}

/* A forked child has none of the parent's workers: it starts its own. */
static void after_fork(void)
{
    pthread_mutex_init(&mu, NULL);
    pthread_mutex_init(&run_mu, NULL);
    pthread_cond_init(&go, NULL);
    pthread_cond_init(&done_cv, NULL);
    n_workers = 0;
    atomic_store(&pending, 0);
    sleepers = caller_sleeps = 0;
    in_part = 0;
}

/* Runs the job over `threads` threads (the caller's and threads - 1 workers, started as needed):
 * fn(ctx, part, parts) for part 0..parts-1, part i on thread i (dyn 0), or each part claimed
 * by whichever thread is free (dyn 1, threads <= parts). wake 0 (dyn jobs only): when a worker
 * sleeps, every part runs on the calling thread and no worker is woken. */
static void run_job(void (*fn)(void *ctx, int part, int parts), void *ctx, int parts, int threads,
                    int dyn, int wake)
{
    if (in_part)
        threads = 1;
    if (threads > 1) {
        pthread_mutex_lock(&mu);
        static int forks_known;
        if (!forks_known)
            forks_known = pthread_atfork(NULL, NULL, after_fork) == 0 && atexit(stop_workers) == 0;
        while (forks_known && n_workers < threads - 1) { /* start the missing workers (once per process) */
            int ok = pthread_create(&workers[n_workers], NULL, worker,
                                    (void *)(intptr_t)(n_workers + 1)) == 0;
            if (!ok)
                break;
            n_workers++;
        }
        if (threads > n_workers + 1)
            threads = n_workers + 1;
        pthread_mutex_unlock(&mu);
    }
    if (threads <= 1) {
        for (int p = 0; p < (dyn ? parts : 1); p++)
            fn(ctx, dyn ? p : 0, dyn ? parts : 1);
        return;
    }
    /* one job at a time: the calling threads (the player's, a bench's) take turns */
    pthread_mutex_lock(&run_mu);
    pthread_mutex_lock(&mu);
    if (!wake && sleepers) { /* a short job: done here before a sleeping worker could join */
        pthread_mutex_unlock(&mu);
        pthread_mutex_unlock(&run_mu);
        for (int p = 0; p < parts; p++)
            fn(ctx, p, parts);
        return;
    }
    job_fn = fn;
    job_ctx = ctx;
    job_parts = dyn ? parts : threads;
    job_threads = threads;
    job_dyn = dyn;
    atomic_store_explicit(&job_next, 0, memory_order_relaxed);
    atomic_store_explicit(&pending, threads - 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&gen, 1, memory_order_release);
    if (sleepers)
        pthread_cond_broadcast(&go);
    pthread_mutex_unlock(&mu);
    in_part = 1;
    if (dyn)
        for (int c; (c = atomic_fetch_add_explicit(&job_next, 1, memory_order_relaxed)) < parts;)
            fn(ctx, c, parts);
    else
        fn(ctx, 0, threads);
    in_part = 0;
    if (!watch_zero(&pending)) {
        pthread_mutex_lock(&mu);
        while (atomic_load(&pending) > 0) {
            caller_sleeps = 1;
            pthread_cond_wait(&done_cv, &mu);
            caller_sleeps = 0;
        }
        pthread_mutex_unlock(&mu);
    }
    pthread_mutex_unlock(&run_mu);
}

int tensor_par_self(void)
{
    return self_id;
}

void tensor_par_run(void (*fn)(void *ctx, int part, int parts), void *ctx, int parts)
{
    int t = tensor_threads();
    run_job(fn, ctx, parts, parts < t ? parts : t, 0, 1);
}

int tensor_par_chunks(int n, int k, int m)
{
    int t = tensor_par_parts(n, k, m);
    if (t <= 1)
        return 1;
    size_t macs = (size_t)n * (size_t)k * (size_t)m;
    return t * (macs >= TENSOR_PAR_FINE_MACS ? TENSOR_PAR_CHUNKS_FINE : TENSOR_PAR_CHUNKS);
}

int tensor_par_chunks_cols(int n, int k, int m, int min_cols)
{
    int c = tensor_par_chunks(n, k, m), t = tensor_par_parts(n, k, m);
    if (c <= 1 || min_cols < 1)
        return c;
    int wide = m / min_cols;
    return wide >= c ? c : wide > t ? wide : t;
}

void tensor_par_dyn(void (*fn)(void *ctx, int part, int parts), void *ctx, int parts)
{
    int t = tensor_threads();
    if (parts < 1)
        parts = 1;
    run_job(fn, ctx, parts, parts < t ? parts : t, 1, 1);
}

void tensor_par_dyn_awake(void (*fn)(void *ctx, int part, int parts), void *ctx, int parts)
{
    int t = tensor_threads();
    if (parts < 1)
        parts = 1;
    run_job(fn, ctx, parts, parts < t ? parts : t, 1, 0);
}
