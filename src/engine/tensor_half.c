/* tensor_half.c - products with half-precision weights kept half (see tensor.h): a model's
 * BF16 or F16 matrices stay in the mapped file and are widened to float32 a cache-sized block
 * at a time inside the products. Widening is exact, and every output element follows the same
 * chain as with the widened matrix in float32, so the bits are those of converting the whole
 * file first (tests/unit/test_stream.c compares them).
 *  - [out, in] weights (tensor_matmul_bt_half): past 32 tokens on AVX-512, tensor_bt.c's
 *    kernel, widening a group of 8 weight rows as it packs them; else blocks of weight rows
 *    widened into a buffer of about 128 KB, each block applied to every token (tensor_stream.c's
 *    kernel, token blocks of 1 MB of activations).
 *  - [in, out] weights (tensor_matmul_half): tensor_block.c's packed panels, widened as they
 *    are packed, for any number of tokens.
 * Without the x86 kernels (another CPU or compiler, a sanitizer build) the whole matrix is
 * widened into a temporary buffer and the float32 product runs: the same bits, not the
 * memory. */
#include "tensor.h"
#include "attend_assert.h"
#include "cpu.h"
#include "tensor_block.h"
#include "tensor_bt.h"
#include "tensor_par.h"
#include "tensor_stream.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define HALF_X86 1
#else
#define HALF_X86 0
#endif

/* The whole matrix widened into a temporary buffer: NULL when out of memory. */
static float *widened(const uint16_t *b, int dtype, size_t len)
{
    float *w = malloc(sizeof(float) * (len ? len : 1));
    if (w)
        tensor_widen(w, b, dtype, len);
    return w;
}

/* Weight rows per widened block of the [out, in] product: about 128 KB of float32, at least 4
 * (the kernel's group of weight rows). */
#define HALF_BLOCK_FLOATS 32768

#if HALF_X86
typedef struct {
    float *out;
    const float *a;
    const uint16_t *b;
    int dtype, n, k, m, jb;
    float sc;
    float *bufs; /* one block of jb widened rows per part */
} BtJob;

/* One part of the weight rows, a widened block at a time into the part's own buffer. */
static void bt_part(void *ctx, int part, int parts)
{
    BtJob *J = ctx;
    int j0, j1, k = J->k;
    tensor_par_range(J->m, J->jb, part, parts, &j0, &j1);
    if (j0 >= j1)
        return;
    float *buf = J->bufs + (size_t)part * J->jb * k;
    for (int j = j0; j < j1; j += J->jb) {
        int w = j1 - j < J->jb ? j1 - j : J->jb;
        tensor_widen(buf, J->b + (size_t)j * k, J->dtype, (size_t)w * k);
        tensor_stream_bt_ldo(J->out + j, J->m, J->a, buf, J->n, k, w, J->sc);
    }
}
#endif

int tensor_matmul_bt_half(float *restrict out, const float *restrict a,
                          const uint16_t *restrict b, int dtype, int n, int k, int m, float sc)
{
    ATTEND_ASSERT(n >= 0 && k >= 0 && m >= 0 && (!n || !m || (out && a && b)));
    if (!n || !m)
        return 0;
#if HALF_X86
    if (tensor_bt_matmul_half(out, a, b, dtype, n, k, m, sc)) /* many rows: tensor_bt.c */
        return 0;
    /* BF16 on AVX-512: widened in registers by the kernel itself */
    if (dtype == TENSOR_BF16 && tensor_stream_bt_bf16(out, a, b, n, k, m, sc))
        return 0;
    if (k >= 1 && cpu_has_avx2_fma()) {
        int jb = HALF_BLOCK_FLOATS / k;
        jb = jb < 4 ? 4 : jb - jb % 4;
        int parts = tensor_par_parts(n, k, m);
        /* glibc reuses these blocks call after call */
        float *bufs = malloc(sizeof(float) * (size_t)jb * k * (size_t)parts);
        if (!bufs)
            return -1;
        BtJob J = {out, a, b, dtype, n, k, m, jb, sc, bufs};
        tensor_par_run(bt_part, &J, parts);
        free(bufs);
        return 0;
    }
#endif
    float *w = widened(b, dtype, (size_t)m * k);
    if (!w)
        return -1;
    tensor_matmul_bt_scaled(out, a, w, n, k, m, sc);
    free(w);
    return 0;
}

int tensor_matmul_half(float *restrict out, const float *restrict a, const uint16_t *restrict b,
                       int dtype, int n, int k, int m)
{
    ATTEND_ASSERT(n >= 0 && k >= 0 && m >= 0 && (!n || !m || (out && a && b)));
    if (!n || !m)
        return 0;
    if (tensor_block_matmul_half(out, a, k, b, dtype, n, k, m))
        return 0;
    float *w = widened(b, dtype, (size_t)k * m);
    if (!w)
        return -1;
    tensor_matmul(out, a, w, n, k, m);
    free(w);
    return 0;
}
