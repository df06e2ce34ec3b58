/* trace_check.c - the finiteness check run after every forward pass: a NaN or an infinity in
 * any tensor of the trace is an error naming the tensor (issue 11: huge weights overflowed
 * silently into rows of 0.000 and "<bos> <bos> ..."). */
#include <math.h>
#include <stdio.h>

#include "model.h"

int trace_check_finite(const Trace *t, char *err, size_t errlen)
{
    for (int e = 0; e < t->n_entries; e++) {
        const TraceEntry *te = &t->entries[e];
        /* The mask and the masked scores hold -inf by design (a blocked key); only NaN and
         * +inf are wrong there. */
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
