/* tensor_stream.h - matrix products for a few rows against a large weight matrix, streaming
 * each weight once from memory (tensor_stream.c); tensor_matmul_lda and tensor_matmul_bt_scaled
 * hand their work here when it fits, so callers never name these. */
#ifndef ATTEND_TENSOR_STREAM_H
#define ATTEND_TENSOR_STREAM_H

#include <stdint.h>

/* The most rows (tokens) the streaming products take, and the fewest weights (k·m) for which
 * they are chosen: 2 MB of float32, more than a core's L2. Smaller matrices stay in the caches,
 * where the tiled kernels are as fast or faster (the wordnet model's 1.5 MB head at 16-32
 * tokens); every matrix of GPT-2 small is larger (768×768 is 2.4 MB). */
#define TENSOR_STREAM_MAX_N 32
#define TENSOR_STREAM_MIN_KM (1 << 19)

/* out[n×m] = a[n×k] (rows lda floats apart) · b[k×m], every element tensor_matmul's in-order
 * fused chain (the same bits). Returns 1 when done, 0 when this CPU or shape is not for it
 * (no AVX2+FMA, an ASan build, n > TENSOR_STREAM_MAX_N, k·m < TENSOR_STREAM_MIN_KM): the
 * caller then computes it itself. */
int tensor_stream_matmul(float *restrict out, const float *restrict a, int lda,
                         const float *restrict b, int n, int k, int m);
/* out[n×m] = (a[n×k] · b[m×k]ᵀ)·sc, every element tensor_matmul_bt_scaled's order (eight
 * partial sums over p mod 8, their tree, the tail, products and sums rounded apart, then ·sc).
 * Any number of rows: on AVX-512 they go to tensor_bt.c (tensor_stream_bt_ldo: past
 * TENSOR_STREAM_MAX_N rows or k·m >= TENSOR_STREAM_MIN_KM), else in token blocks of 1 MB of
 * a, each block held in L2 while every weight row passes once.
 * Returns 1 when done, 0 when this CPU or shape is not for it (no AVX2+FMA, an ASan build,
 * k·m < TENSOR_STREAM_MIN_KM). */
int tensor_stream_matmul_bt(float *restrict out, const float *restrict a,
                            const float *restrict b, int n, int k, int m, float sc);
/* The same product for any k·m, out's rows ldo floats apart (the columns j..j+m of a wider
 * output: tensor_half.c's blocks of weight rows). Returns 1 when done, 0 without the x86
 * kernels (another CPU or compiler, an ASan build). */
int tensor_stream_bt_ldo(float *restrict out, int ldo, const float *restrict a,
                         const float *restrict b, int n, int k, int m, float sc);

/* out[n×m] = (a[n×k] · b[m×k]ᵀ)·sc with b BF16 values (a model's weights kept half), each
 * widened in registers as it is read (no widened copy): every element tensor_matmul_bt_scaled's
 * order on the widened matrix, so the bits of tensor_widen then tensor_stream_matmul_bt.
 * Returns 1 when done, 0 when this CPU or shape is not for it (no AVX-512, an ASan build, k
 * not a multiple of 8): the caller widens blocks itself. */
int tensor_stream_bt_bf16(float *restrict out, const float *restrict a,
                          const uint16_t *restrict b, int n, int k, int m, float sc);

#endif
