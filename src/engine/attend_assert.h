/* attend_assert.h - ATTEND_ASSERT: invariants of hot code (the tensor kernels' shapes, bounds
 * and aliasing; the player's state) checked in debug builds (-DATTEND_DEBUG: `make debug`,
 * `make sanitize`) and compiled out of the release build, which keeps its speed. */
#ifndef ATTEND_ASSERT_H
#define ATTEND_ASSERT_H

#include <stddef.h>
#include <stdint.h>

#ifdef ATTEND_DEBUG
#include <assert.h>
#define ATTEND_ASSERT(c) assert(c)
#else
#define ATTEND_ASSERT(c) ((void)sizeof(!(c))) /* not evaluated; its names stay used */
#endif

/* 1 when the bytes [p, p + pb) and [q, q + qb) do not overlap (an empty range overlaps
 * nothing): the "must not alias" of a kernel's contract. */
static inline int attend_disjoint(const void *p, size_t pb, const void *q, size_t qb)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return !pb || !qb || a + pb <= b || b + qb <= a;
}

#endif
