/* cpu.c - the CPU's vector instructions (see cpu.h). */
#include "cpu.h"

#include <stdlib.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/* -1 until asked; every thread computes the same answer, so a race only repeats the question */
static int avx512 = -1, avx2 = -1, has_fma = -1;

static void ask(void)
{
    __builtin_cpu_init();
    has_fma = __builtin_cpu_supports("fma") != 0;
    avx2 = __builtin_cpu_supports("avx2") != 0;
    avx512 = __builtin_cpu_supports("avx512f") != 0 && getenv("ATTEND_NO_AVX512") == NULL;
}

int cpu_has_avx512(void)
{
    if (avx512 < 0)
        ask();
    return avx512;
}

int cpu_has_avx2(void)
{
    if (avx2 < 0)
        ask();
    return avx2;
}

int cpu_has_avx2_fma(void)
{
    if (avx2 < 0 || has_fma < 0)
        ask();
    return avx2 && has_fma;
}
#else
int cpu_has_avx512(void) { return 0; }
int cpu_has_avx2(void) { return 0; }
int cpu_has_avx2_fma(void) { return 0; }
#endif
