/* trace_check.c - the finiteness check run after every forward pass: a NaN or an infinity in
 * any tensor of the trace is an error naming the tensor (issue 11: huge weights overflowed
 * silently into rows of 0.000 and "<bos> <bos> ..."). */
/* The scan reads every float of the trace after every forward: it runs on eight floats at a
 * time (as a scalar loop with a branch per float it was a third of a 16-token forward). */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

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

int trace_check_finite(const Trace *t, char *err, size_t errlen)
{
    for (int e = 0; e < t->n_entries; e++) {
        const TraceEntry *te = &t->entries[e];
        if (te->lazy) /* a head's n×n steps, not computed yet: its q, k, v are checked, and
                       * scores a query reads that overflow make its output NaN, checked too */
            continue;
        /* The mask and the masked scores hold -inf by design (a blocked key); only NaN and
         * +inf are wrong there. */
        int minus_inf_ok = te->kind == T_MASK || te->kind == T_MASKED;
        size_t n = (size_t)te->rows * (size_t)te->cols;
        if (!any_non_finite(te->data, n, minus_inf_ok))
            continue;
        for (size_t i = 0; i < n; i++) { /* the first offending float, for the message */
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
