/* tensor_bt.h - the [out, in] product (a · bᵀ) for many rows (tokens), near the ceiling of its
 * rounding contract (tensor_bt.c); tensor_stream.c's [out, in] entry points hand their work
 * here (past TENSOR_BT_MIN_N rows, or weights read from memory), so callers never name these. */
#ifndef ATTEND_TENSOR_BT_H
#define ATTEND_TENSOR_BT_H

#include <stdint.h>

/* Rows (tokens) at or below which tensor_stream.c's kernels keep the product when its
 * weights are small (below TENSOR_STREAM_MIN_KM: in the caches, where at a few rows they are
 * a few % faster); larger weights come here at any n (streamed from memory, this kernel
 * overlaps the reading with its arithmetic better: GPT-2's head 10-30% faster at 1-32 rows).
 * tensor_bt_matmul_half keeps the threshold (BF16 at a few rows: tensor_stream.c's kernel). */
#define TENSOR_BT_MIN_N 32

/* out[n×m] (rows ldo floats apart) = (a[n×k] · b[m×k]ᵀ)·sc, every element
 * tensor_matmul_bt_scaled's order: eight partial sums over p mod 8, products and sums rounded
 * apart, their tree ((0+4)+(1+5))+((2+6)+(3+7)), the last k mod 8 products in order, then ·sc
 * (the same bits on every path and thread count). Split over the threads by weight rows.
 * Returns 1 when done, 0 when this CPU or shape is not for it (no AVX-512, an ASan build,
 * n < 1, k < 8) or a buffer (n·k floats) cannot be had: the caller then computes it itself. */
int tensor_bt_matmul(float *restrict out, int ldo, const float *restrict a,
                     const float *restrict b, int n, int k, int m, float sc);
/* tensor_bt_matmul, and *finite (when it returns 1) = 1 when every element of out is finite,
 * 0 when one is a NaN or an infinity: each tile checked as it is stored, from the registers
 * (a forward's logits need no scan of their own afterwards). */
int tensor_bt_matmul_check(float *restrict out, int ldo, const float *restrict a,
                           const float *restrict b, int n, int k, int m, float sc, int *finite);
/* The same with b's m×k values 16-bit (dtype TENSOR_BF16 or TENSOR_F16: a model's weights
 * kept half), widened exactly a group of rows at a time: the bits of tensor_widen then
 * tensor_bt_matmul (out's rows m floats apart). Returns 1 when done, 0 as tensor_bt_matmul. */
int tensor_bt_matmul_half(float *restrict out, const float *restrict a,
                          const uint16_t *restrict b, int dtype, int n, int k, int m, float sc);

#endif
