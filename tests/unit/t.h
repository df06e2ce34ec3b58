/* t.h - the unit-test harness: CHECK macros and a closing "N passed, N failed" line. */
#ifndef ATTEND_T_H
#define ATTEND_T_H

#include <math.h>
#include <stdio.h>

static int t_passed, t_failed;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (cond) {                                                             \
            t_passed++;                                                         \
        } else {                                                                \
            t_failed++;                                                         \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

/* |a - b| <= tol, NaN never passes. */
#define CHECK_NEAR(a, b, tol, what)                                             \
    do {                                                                        \
        double t_a_ = (a), t_b_ = (b);                                          \
        CHECK(fabs(t_a_ - t_b_) <= (tol), "%s: got %.9g want %.9g (tol %g)",   \
              (what), t_a_, t_b_, (double)(tol));                              \
    } while (0)

/* Prints the closing line and returns the exit status for main. */
static inline int t_done(const char *suite)
{
    printf("%s: %d passed, %d failed\n", suite, t_passed, t_failed);
    return t_failed ? 1 : 0;
}

#endif
