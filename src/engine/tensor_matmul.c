/* tensor_matmul.c - the matrix product that dominates the forward pass (see tensor.h).
 * Built with -ffp-contract=fast (Makefile) so a*b+c becomes one FMA on AVX2 machines; kept
 * apart from tensor.c so the trainer's kernels keep their exact rounding. */
#include "tensor.h"

#include <string.h>

/* A 4×16 tile of out lives in eight 8-float vector registers for the whole k loop, so each
 * row of b is loaded once per four rows of a and out is written once. GNU C vector types; on
 * x86-64 a second copy is compiled for AVX2/FMA (x86-64-v3) and chosen at load time. */
typedef float v8f __attribute__((vector_size(32)));
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define TENSOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define TENSOR_CLONES
#endif

TENSOR_CLONES
void tensor_matmul(float *restrict out, const float *restrict a, const float *restrict b, int n,
                   int k, int m)
{
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        const float *a0 = a + (size_t)i * k, *a1 = a0 + k, *a2 = a1 + k, *a3 = a2 + k;
        int j = 0;
        for (; j + 16 <= m; j += 16) {
            v8f c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0}, c30 = {0},
                c31 = {0};
            for (int p = 0; p < k; p++) {
                v8f b0, b1;
                memcpy(&b0, b + (size_t)p * m + j, sizeof b0);
                memcpy(&b1, b + (size_t)p * m + j + 8, sizeof b1);
                c00 += a0[p] * b0; c01 += a0[p] * b1;
                c10 += a1[p] * b0; c11 += a1[p] * b1;
                c20 += a2[p] * b0; c21 += a2[p] * b1;
                c30 += a3[p] * b0; c31 += a3[p] * b1;
            }
            float *o = out + (size_t)i * m + j;
            memcpy(o, &c00, sizeof c00); memcpy(o + 8, &c01, sizeof c01);
            o += m;
            memcpy(o, &c10, sizeof c10); memcpy(o + 8, &c11, sizeof c11);
            o += m;
            memcpy(o, &c20, sizeof c20); memcpy(o + 8, &c21, sizeof c21);
            o += m;
            memcpy(o, &c30, sizeof c30); memcpy(o + 8, &c31, sizeof c31);
        }
        for (; j < m; j++)
            for (int r = 0; r < 4; r++) {
                float s = 0.0f;
                const float *ar = a + (size_t)(i + r) * k;
                for (int p = 0; p < k; p++)
                    s += ar[p] * b[(size_t)p * m + j];
                out[(size_t)(i + r) * m + j] = s;
            }
    }
    for (; i < n; i++) {
        float *o = out + (size_t)i * m;
        memset(o, 0, sizeof(float) * (size_t)m);
        const float *ar = a + (size_t)i * k;
        for (int p = 0; p < k; p++) {
            float av = ar[p];
            const float *br = b + (size_t)p * m;
            for (int j = 0; j < m; j++)
                o[j] += av * br[j];
        }
    }
}

