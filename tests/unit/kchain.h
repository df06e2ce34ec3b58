/* kchain.h - the matrix products' rounding contracts, one element at a time, for the unit
 * tests of the kernels (test_engine.c, test_stream.c): random fill, tensor_matmul's in-order
 * chain (k_matmul_mismatch) and tensor_matmul_bt's eight-lane order. */
#ifndef ATTEND_KCHAIN_H
#define ATTEND_KCHAIN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t k_state = 0x9e3779b97f4a7c15ull;
static float k_rand(void) /* uniform in [-2, 2) */
{
    k_state ^= k_state << 13;
    k_state ^= k_state >> 7;
    k_state ^= k_state << 17;
    return (float)((k_state >> 40) * (4.0 / 16777216.0) - 2.0);
}

static void k_fill(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = k_rand();
}

/* Which chain tensor_matmul must follow here: fused where its x86 kernels run (gcc, no ASan:
 * the condition in tensor_matmul.c) on a CPU with FMA, whatever the vector width; -1 where
 * only the portable kernel runs (its contraction is up to the compiler). */
static int k_expect_fused(void)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return -1;
#endif
}

/* The reference chains again, compiled for AVX2+FMA where the CPU has them: the same
 * operations in the same order on each element (fmaf is one rounding on any hardware; the
 * products and sums stay separate: fp-contract=off), only several elements at a time, so the
 * reference costs about what the kernel does (the scalar loops below took ~2 s of CPU per
 * kernel suite). K_FAST is 0 where this cannot be compiled; k_fast() says whether it runs. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define K_FAST 1
#define K_FAST_FN __attribute__((target("avx2,fma"), optimize("tree-vectorize,fp-contract=off")))
static int k_fast(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
/* the fused chain of k_matmul_mismatch for one row: acc (m) = arow (k) · b (k, m) */
K_FAST_FN static void k_fused_row(float *acc, const float *arow, const float *b, int k, int m)
{
    for (int j = 0; j < m; j++)
        acc[j] = 0.0f;
    for (int p = 0; p < k; p++) {
        float x = arow[p];
        const float *br = b + (size_t)p * m;
        for (int j = 0; j < m; j++)
            acc[j] = __builtin_fmaf(x, br[j], acc[j]);
    }
}
/* k_dot8's order, eight lanes at once */
K_FAST_FN static float k_dot8_fast(const float *a, const float *b, int k)
{
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int p = 0;
    for (; p + 8 <= k; p += 8)
        for (int u = 0; u < 8; u++)
            acc[u] = acc[u] + a[p + u] * b[p + u];
    float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (; p < k; p++)
        s = s + a[p] * b[p];
    return s;
}
#else
#define K_FAST 0
#endif

/* 0 if out (n×m) is a·b computed as the expected chain (k_expect_fused) for every element,
 * else the number of elements that differ; where either chain may be used, the one that
 * matches more elements is the one expected. tensor_matmul's contract: each element is
 * acc = acc + a[i][p]·b[p][j] in order from p = 0, fused into one rounding (fmaf) on machines
 * with FMA, a product then a sum elsewhere. A row's m chains advance together (b read row by
 * row, not down its columns), and only the expected chain is computed where one is. */
static long k_matmul_mismatch(const float *out, const float *a, const float *b, int n, int k,
                              int m)
{
    long bad[2] = {0, 0};
    int want_fused = k_expect_fused();
    float *acc = malloc(sizeof(float) * (size_t)(m > 0 ? m : 1));
    if (!acc)
        return (long)n * m + 1;
    for (int f = 0; f < 2; f++) {
        if (want_fused >= 0 && f != want_fused)
            continue;
        for (int i = 0; i < n; i++) {
#if K_FAST
            if (f && k_fast()) {
                k_fused_row(acc, a + (size_t)i * k, b, k, m);
                for (int j = 0; j < m; j++)
                    bad[f] += memcmp(&acc[j], out + (size_t)i * m + j, sizeof acc[j]) != 0;
                continue;
            }
#endif
            for (int j = 0; j < m; j++)
                acc[j] = 0.0f;
            for (int p = 0; p < k; p++) {
                float x = a[(size_t)i * k + p];
                const float *br = b + (size_t)p * m;
                if (f)
                    for (int j = 0; j < m; j++)
                        acc[j] = fmaf(x, br[j], acc[j]);
                else
                    for (int j = 0; j < m; j++) {
                        volatile float prod = x * br[j];
                        acc[j] = acc[j] + prod;
                    }
            }
            for (int j = 0; j < m; j++)
                bad[f] += memcmp(&acc[j], out + (size_t)i * m + j, sizeof acc[j]) != 0;
        }
    }
    free(acc);
    if (want_fused >= 0)
        return bad[want_fused];
    return bad[0] < bad[1] ? bad[0] : bad[1];
}

/* tensor_matmul_bt's order: eight partial sums over p ≡ u (mod 8), ((0+4)+(1+5))+((2+6)+(3+7)),
 * then the last k % 8 products; products and sums rounded separately. */
static float k_dot8(const float *a, const float *b, int k)
{
#if K_FAST
    if (k_fast())
        return k_dot8_fast(a, b, k);
#endif
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int p = 0;
    for (; p + 8 <= k; p += 8)
        for (int u = 0; u < 8; u++) {
            volatile float prod = a[p + u] * b[p + u];
            acc[u] = acc[u] + prod;
        }
    float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (; p < k; p++) {
        volatile float prod = a[p] * b[p];
        s = s + prod;
    }
    return s;
}


#endif
