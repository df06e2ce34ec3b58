/* tensor_block.h - matrix products of many rows (tokens) against a large weight matrix,
 * blocked for the caches (tensor_block.c); tensor_matmul_lda hands its work here when it
 * fits, so callers never name this. */
#ifndef ATTEND_TENSOR_BLOCK_H
#define ATTEND_TENSOR_BLOCK_H

/* out[n×m] = a[n×k] (rows lda floats apart) · b[k×m], every element tensor_matmul's in-order
 * fused chain (the same bits). Returns 1 when done, 0 when this CPU or shape is not for it
 * (no AVX2+FMA, an ASan build, n <= TENSOR_STREAM_MAX_N: tensor_stream.c's, or k·m below
 * TENSOR_STREAM_MIN_KM: in the caches already): the caller then computes it itself. */
int tensor_block_matmul(float *restrict out, const float *restrict a, int lda,
                        const float *restrict b, int n, int k, int m);

#endif
