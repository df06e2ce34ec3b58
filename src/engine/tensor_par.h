/* tensor_par.h - the forward's large matrix products split over the CPU's cores
 * (tensor_par.c). A product is split into parts of whole output-column groups, each computed
 * by one thread with the same chain as single-threaded: the bits never depend on the thread
 * count. Small products (the course's models) stay on the calling thread, where a hand-off
 * would cost more than it saves. The trainer has its own threads (train.c). */
#ifndef ATTEND_TENSOR_PAR_H
#define ATTEND_TENSOR_PAR_H

#include <stddef.h>

/* The fewest multiply-adds (n·k·m) for which a product is split: about 60 µs of one core's
 * work, several times the hand-off. */
#define TENSOR_PAR_MIN_MACS ((size_t)1 << 22)

/* Chunks per thread of a product split by tensor_par_dyn: a thread the system takes away for a
 * while (a shared machine) leaves its chunks to the others instead of holding up the product. */
#define TENSOR_PAR_CHUNKS 4

/* A product of at least TENSOR_PAR_FINE_MACS multiply-adds (~20 ms of one core: GPT-2's LM
 * head from 28 tokens) is cut into TENSOR_PAR_CHUNKS_FINE chunks per thread: when one thread
 * is held up (or simply slower) the other waits at the end for at most one chunk, and at 1024
 * tokens one of 8 LM-head chunks is ~150 ms (a measured 50 ms tail). */
#define TENSOR_PAR_FINE_MACS ((size_t)1 << 30)
#define TENSOR_PAR_CHUNKS_FINE 16

/* How long a thread watches for the next job (a worker) or for the workers' last chunks (the
 * caller) before it sleeps, µs: longer than most serial steps between a forward's jobs, short
 * enough that an idle process gives its cores back at once. */
#define TENSOR_PAR_SPIN_US 150

/* Threads the products may use: ATTEND_THREADS from the environment when set (1 = one thread),
 * else the CPUs online; at most 8. */
int tensor_threads(void);
/* Sets that number (clamped to 1..8) for the products that follow (tests and the bench compare
 * thread counts in one process). Call it between products, not during one. */
void tensor_set_threads(int n);
/* How many parts a product of n·k·m multiply-adds is split into: tensor_threads(), or 1 below
 * TENSOR_PAR_MIN_MACS. */
int tensor_par_parts(int n, int k, int m);
/* Columns [*j0, *j1) of part `part` of `parts` over m columns cut in whole groups of `unit`
 * (the last part may be shorter or empty). */
void tensor_par_range(int m, int unit, int part, int parts, int *j0, int *j1);
/* Runs fn(ctx, part, n) for every part 0..n-1, n = min(parts, tensor_threads()) (fewer if a
 * worker thread cannot be started), part 0 on the calling thread, and returns when all are
 * done. Called from inside a part, it runs fn(ctx, 0, 1) there (no nesting). */
void tensor_par_run(void (*fn)(void *ctx, int part, int parts), void *ctx, int parts);

/* How many chunks a product of n·k·m multiply-adds is cut into for tensor_par_dyn:
 * TENSOR_PAR_CHUNKS per thread (TENSOR_PAR_CHUNKS_FINE from TENSOR_PAR_FINE_MACS), or 1 below
 * TENSOR_PAR_MIN_MACS or at one thread. */
int tensor_par_chunks(int n, int k, int m);
/* tensor_par_chunks, but no more chunks than m / min_cols (and no fewer than the threads'):
 * a product whose parts each pay a fixed cost (the activations packed again for every column
 * range, tensor_block.c) keeps its chunks at least min_cols wide. */
int tensor_par_chunks_cols(int n, int k, int m, int min_cols);
/* Runs fn(ctx, part, parts) for every part 0..parts-1, each claimed in turn by whichever of
 * min(parts, tensor_threads()) threads (the caller's and the workers) is free: fn must compute
 * the same bits whichever thread runs a part (no per-part buffers indexed by thread; a
 * _Thread_local scratch is fine). One thread: the parts in order on the caller's thread.
 * Called from inside a part, it runs every part there (no nesting). */
void tensor_par_dyn(void (*fn)(void *ctx, int part, int parts), void *ctx, int parts);
/* tensor_par_dyn for a short job (a row-wise step of the forward, ~0.1 ms): when a worker is
 * asleep (the machine is busy, or the job follows a long serial step) every part runs on the
 * calling thread, in order, and no worker is woken: the wake-up costs about as much as the job,
 * and a worker that wakes late and claims a part makes the caller wait for it. The same bits
 * (the parts are tensor_par_dyn's, which any thread may run). */
void tensor_par_dyn_awake(void (*fn)(void *ctx, int part, int parts), void *ctx, int parts);
/* The running thread's index among the products' threads: 0 for a calling thread, 1.. for the
 * workers (below tensor_threads() while a part runs): a dyn part's own scratch by thread. */
int tensor_par_self(void);

#endif
