/* trace_check.c - the finiteness check run after every forward pass: a NaN or an infinity in
 * any tensor of the trace is an error naming the tensor (issue 11: huge weights overflowed
 * silently into rows of 0.000 and "<bos> <bos> ..."). */
/* The scan reads every float of the trace after every forward: it runs on eight floats at a
 * time (as a scalar loop with a branch per float it was a third of a 16-token forward), in
 * chunks over the cores when the trace is large (a serial scan was 2% of a 64-token GPT-2
 * forward, while the other core waited). */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "tensor_par.h"

typedef int v8i __attribute__((vector_size(32)));
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define CHECK_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CHECK_CLONES
#endif

/* Whether any of n floats is a NaN or an infinity (-inf allowed when minus_inf_ok): eight
 * floats at a time as integers, |x|'s bits above the largest finite float's, no branch. */
CHECK_CLONES
static int any_non_finite(const float *x, size_t n, int minus_inf_ok)
{
    const int abs_bits = 0x7fffffff, inf_bits = 0x7f800000, neg_inf = (int)0xff800000u;
    v8i bad = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        v8i u;
        memcpy(&u, x + i, sizeof u);
        v8i v = u & abs_bits;
        if (minus_inf_ok)
            v &= ~(u == neg_inf);
        bad |= v >= inf_bits;
    }
    int any = 0;
    for (int k = 0; k < 8; k++)
        any |= bad[k];
    for (; i < n; i++) {
        int u;
        memcpy(&u, x + i, sizeof u);
        any |= (u & abs_bits) >= inf_bits && !(minus_inf_ok && u == neg_inf);
    }
    return any != 0;
}

/* The scan over the cores: chunk `part` of `parts` is that share of every checked float of the
 * trace (entries in order, as one long run), its verdict in bad[part]. */
typedef struct {
    const Trace *t;
    size_t total;
    unsigned char *bad;
} ScanJob;

/* Whether the scan reads te: not one the forward found finite already (trace_mark_finite), not
 * a head's n×n step (lazy: not computed yet; in a slot: the
 * forward wrote it because every map was wanted, trace_want_maps, and leaves it unchecked as
 * when lazy): its q, k, v are checked, and scores a query reads that overflow make its output
 * NaN, checked too. Not the mask (build_mask writes only 0 and −∞) nor the concatenation (a
 * copy of the heads' outputs, each checked): the same verdict and the same first offender. */
static int checked(const TraceEntry *te)
{
    return !te->lazy && te->slot < 0 && !te->finite && te->kind != T_MASK &&
           te->kind != T_CONCAT;
}

int trace_non_finite(const float *x, size_t n)
{
    return any_non_finite(x, n, 0);
}

void trace_mark_finite(TraceEntry *e)
{
    if (e && e->data && !e->lazy)
        e->finite = !any_non_finite(e->data, (size_t)e->rows * (size_t)e->cols,
                                    e->kind == T_MASK || e->kind == T_MASKED);
}

static void scan_part(void *ctx, int part, int parts)
{
    const ScanJob *J = ctx;
    size_t lo = J->total / (size_t)parts * (size_t)part, hi = part == parts - 1 ? J->total : lo + J->total / (size_t)parts;
    size_t at = 0; /* the first float of entry e in the long run */
    int bad = 0;
    for (int e = 0; e < J->t->n_entries && at < hi && !bad; e++) {
        const TraceEntry *te = &J->t->entries[e];
        if (!checked(te))
            continue;
        size_t n = (size_t)te->rows * (size_t)te->cols, a = lo > at ? lo - at : 0, b = hi - at < n ? hi - at : n;
        /* The mask and the masked scores hold -inf by design (a blocked key); only NaN and
         * +inf are wrong there. */
        if (a < b)
            bad = any_non_finite(te->data + a, b - a, te->kind == T_MASK || te->kind == T_MASKED);
        at += n;
    }
    J->bad[part] = (unsigned char)bad;
}

int trace_check_finite(const Trace *t, char *err, size_t errlen)
{
    size_t total = 0;
    for (int e = 0; e < t->n_entries; e++)
        if (checked(&t->entries[e]))
            total += (size_t)t->entries[e].rows * (size_t)t->entries[e].cols;
    /* one core reads about 1 GB/s here: split past 1M floats (a few ms) */
    int parts = total >= ((size_t)1 << 20) ? tensor_par_chunks(1, 1, TENSOR_PAR_MIN_MACS) : 1;
    unsigned char bad[64] = {0};
    if (parts > (int)sizeof bad)
        parts = (int)sizeof bad;
    ScanJob J = {t, total, bad};
    if (parts > 1)
        tensor_par_dyn(scan_part, &J, parts);
    else
        scan_part(&J, 0, 1);
    int any = 0;
    for (int p = 0; p < parts; p++)
        any |= bad[p];
    if (!any)
        return 0;
    for (int e = 0; e < t->n_entries; e++) { /* the first offending float, for the message */
        const TraceEntry *te = &t->entries[e];
        if (!checked(te))
            continue;
        int minus_inf_ok = te->kind == T_MASK || te->kind == T_MASKED;
        size_t n = (size_t)te->rows * (size_t)te->cols;
        for (size_t i = 0; i < n; i++) {
            float x = te->data[i];
            if (isfinite(x) || (minus_inf_ok && isinf(x) && x < 0))
                continue;
            snprintf(err, errlen, "the forward pass overflowed: %s[%zu][%zu] is %s (the model's "
                     "numbers exceed float32: are its weights far too large?)", te->name,
                     i / (size_t)te->cols, i % (size_t)te->cols,
                     isnan(x) ? "NaN" : x > 0 ? "+infinity" : "-infinity");
            return -1;
        }
    }
    return 0;
}
