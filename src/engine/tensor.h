/* tensor.h - pure float math on row-major matrices. No allocation, output argument first. */
#ifndef ATTEND_TENSOR_H
#define ATTEND_TENSOR_H

#include <stddef.h>
#include <stdint.h>

/* out[n×m] = a[n×k] · b[k×m]. out must not alias a or b. */
void tensor_matmul(float *restrict out, const float *restrict a, const float *restrict b, int n,
                   int k, int m);
/* The same with a's rows lda floats apart (lda >= k): the first k columns of a wider matrix.
 * Every element is the same in-order chain over p < k, so the bits are tensor_matmul's. */
void tensor_matmul_lda(float *restrict out, const float *restrict a, int lda,
                       const float *restrict b, int n, int k, int m);
/* out[n×m] = a[n×k] · b[m×k]ᵀ  (b stored row-major as m rows of k). */
void tensor_matmul_bt(float *restrict out, const float *restrict a, const float *restrict b,
                      int n, int k, int m);
/* tensor_matmul_bt, then 1 when every element of out is known finite (no NaN, no infinity):
 * checked as the kernel stored it, where the kernel can (AVX-512, large weights: a tied LM
 * head); 0 when one is not finite or when it was not checked. The same bits. */
int tensor_matmul_bt_finite(float *restrict out, const float *restrict a,
                            const float *restrict b, int n, int k, int m);
/* The same, every element then times s: the bits of tensor_matmul_bt then tensor_scale. */
void tensor_matmul_bt_scaled(float *restrict out, const float *restrict a,
                             const float *restrict b, int n, int k, int m, float s);
/* Half-precision weights kept half (tensor_half.c): a matrix of 16-bit values, bfloat16 or
 * IEEE half, widened exactly to float32 a cache-sized block at a time inside the product. */
enum { TENSOR_BF16 = 1, TENSOR_F16 = 2 };
/* out[i] = in[i] widened to float (exact) for i < len; dtype TENSOR_BF16 or TENSOR_F16. */
void tensor_widen(float *restrict out, const uint16_t *restrict in, int dtype, size_t len);
/* tensor_matmul with b's k×m values 16-bit: the bits of tensor_matmul on b widened. 0, or -1
 * when out of memory (only where the x86 kernels are missing: the whole b is widened). */
int tensor_matmul_half(float *restrict out, const float *restrict a, const uint16_t *restrict b,
                       int dtype, int n, int k, int m);
/* tensor_matmul_bt_scaled with b's m×k values 16-bit: the bits of it on b widened. 0 or -1
 * when out of memory. */
int tensor_matmul_bt_half(float *restrict out, const float *restrict a,
                          const uint16_t *restrict b, int dtype, int n, int k, int m, float sc);
/* Column slice: out[n×w] = a[n×lda][:, c0:c0+w]. */
void tensor_cols(float *out, const float *a, int n, int lda, int c0, int w);
/* out[i] = a[i] + b[i] for i < len (out may alias a or b). */
void tensor_add(float *out, const float *a, const float *b, size_t len);
/* x[i] *= s. */
void tensor_scale(float *x, float s, size_t len);
/* One pass: scaled[i] = x[i]·s and sum[i] = scaled[i] + add[i] (add may be NULL: sum[i] =
 * scaled[i]); the same bits as tensor_scale then tensor_add. No aliasing. */
void tensor_scale_add(float *restrict scaled, float *restrict sum, const float *restrict x,
                      float s, const float *restrict add, size_t len);
/* Adds bias[m] to every row of x[n×m]. */
void tensor_add_row(float *restrict x, const float *restrict bias, int n, int m);
/* Row-wise softmax of x[n×m] in place, max-subtracted. Entries equal to -INFINITY become
 * exactly 0. A row that is entirely -INFINITY becomes all zeros (never NaN). */
void tensor_softmax_rows(float *x, int n, int m);
/* The same into out (out may be x). Each row: its max mx, e^(x−mx) by tensor_expf, summed in
 * eight lanes (j mod 8) combined ((0+4)+(1+5))+((2+6)+(3+7)), and every entry times 1/sum.
 * Masked keys add exact zeros: a causal row has the same bits however many keys follow. */
void tensor_softmax_rows_to(float *out, const float *x, int n, int m);
/* e^x from float multiplications and additions only: the same bits on every CPU and build,
 * within 2 ulp of e^x; 0 below -103.98, infinity above 88.73. The softmax's exponential. */
float tensor_expf(float x);
/* LayerNorm of each row: gain*(x-mean)/sqrt(var+eps)+bias (bias may be NULL). */
void tensor_layernorm(float *out, const float *x, const float *gain, const float *bias,
                      int n, int m, float eps);
/* RMSNorm of each row: gain*x/sqrt(mean(x²)+eps). */
void tensor_rmsnorm(float *out, const float *x, const float *gain, int n, int m, float eps);
void tensor_relu(float *x, size_t len);
/* GELU, tanh approximation (as GPT-2): 0.5x(1+tanh(√(2/π)(x+0.044715x³))), computed as
 * x·sigmoid(2·√(2/π)(x+0.044715x³)), the same function with one exp. */
void tensor_gelu(float *x, size_t len);
float tensor_gelu1(float x);
/* SiLU: x·sigmoid(x). */
float tensor_silu1(float x);
/* max |a[i]-b[i]|; NaN anywhere gives INFINITY. */
float tensor_max_abs_diff(const float *a, const float *b, size_t len);

#endif
