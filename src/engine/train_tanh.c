/* train_tanh.c - the trainer's tanh (its GELU): one formula, written out twice with the same
 * operations in the same order, as a scalar function and as an AVX2 + FMA loop over eight
 * floats, so the bits do not depend on the CPU, on where an element falls in an array, or on
 * the number of threads. The shipped models depend on these bits (docs/training.md).
 *
 * The formula, for a = |x| (the sign put back at the end; a is capped at 9, where tanh is 1 to
 * float precision; a NaN passes through):
 *   y = 2a = n·ln2 + r, n = round(y/ln2), |r| <= ln2/2       (n found by adding 1.5·2^23)
 *   e^r − 1 = r + r²(1/2! + r/3! + … + r^6/8!)               (Taylor: the term left out,
 *                                                             r^9/9!, is below 2e-11)
 *   e^y − 1 = 2^n·(e^r − 1) + (2^n − 1)                       (one fused multiply-add)
 *   tanh(a) = (e^{2a} − 1) / (e^{2a} − 1 + 2)
 * No subtraction of nearly equal numbers: small a keeps its relative precision. Measured
 * against double-precision tanh over every float in [-10, 10]: at most 2.42 ulp off (the
 * unit test, tests/unit/test_train.c, sweeps a dense sample of them). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "train_internal.h"

#define TT_CAP 9.0f
#define TT_SHIFT 12582912.0f            /* 1.5·2^23: adding it rounds to an integer */
#define TT_INV_LN2 1.44269502162933350f /* 1/ln2 rounded to float */
#define TT_LN2_HI 0.693145751953125f    /* ln2 to 16 bits: n·TT_LN2_HI is exact */
#define TT_LN2_LO 1.42860676e-06f       /* ln2 − TT_LN2_HI */
/* 1/k! for k = 2..8, rounded to float */
#define TT_C2 0.5f
#define TT_C3 0.166666672f
#define TT_C4 0.0416666679f
#define TT_C5 0.00833333377f
#define TT_C6 0.00138888892f
#define TT_C7 0.000198412701f
#define TT_C8 2.48015876e-05f

static float tt_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t tt_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float train_tanh1(float x)
{
    uint32_t sign = tt_bits(x) & 0x80000000u;
    float a = tt_from_bits(tt_bits(x) & 0x7fffffffu);
    a = TT_CAP < a ? TT_CAP : a; /* a NaN stays a NaN */
    float y = a + a;
    float t = fmaf(y, TT_INV_LN2, TT_SHIFT);
    float n = t - TT_SHIFT;
    float r = fmaf(-n, TT_LN2_HI, y);
    r = fmaf(-n, TT_LN2_LO, r);
    float q = fmaf(TT_C8, r, TT_C7);
    q = fmaf(q, r, TT_C6);
    q = fmaf(q, r, TT_C5);
    q = fmaf(q, r, TT_C4);
    q = fmaf(q, r, TT_C3);
    q = fmaf(q, r, TT_C2);
    float p = fmaf(q, r * r, r);
    float s = tt_from_bits((tt_bits(t) - tt_bits(TT_SHIFT) + 127u) << 23); /* 2^n */
    float e = fmaf(s, p, s - 1.0f);
    float th = e / (e + 2.0f);
    return tt_from_bits(tt_bits(th) | sign);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#include <immintrin.h>
#define TT_AVX2 __attribute__((target("avx2,fma")))

/* train_tanh1 on eight floats: the same operations, lane by lane. */
TT_AVX2 static void tanh_avx2(float *out, const float *x, size_t n)
{
    const __m256 cap = _mm256_set1_ps(TT_CAP), shift = _mm256_set1_ps(TT_SHIFT);
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
    const __m256i bias = _mm256_set1_epi32(-(int)(tt_bits(TT_SHIFT) - 127u));
    for (size_t i = 0; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256 a = _mm256_and_ps(v, absmask);
        __m256 sign = _mm256_andnot_ps(absmask, v);
        a = _mm256_min_ps(cap, a); /* cap < a ? cap : a, as above (NaN: a) */
        __m256 y = _mm256_add_ps(a, a);
        __m256 t = _mm256_fmadd_ps(y, _mm256_set1_ps(TT_INV_LN2), shift);
        __m256 nf = _mm256_sub_ps(t, shift);
        __m256 r = _mm256_fnmadd_ps(nf, _mm256_set1_ps(TT_LN2_HI), y);
        r = _mm256_fnmadd_ps(nf, _mm256_set1_ps(TT_LN2_LO), r);
        __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(TT_C8), r, _mm256_set1_ps(TT_C7));
        q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(TT_C6));
        q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(TT_C5));
        q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(TT_C4));
        q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(TT_C3));
        q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(TT_C2));
        __m256 p = _mm256_fmadd_ps(q, _mm256_mul_ps(r, r), r);
        __m256i sb = _mm256_slli_epi32(_mm256_add_epi32(_mm256_castps_si256(t), bias), 23);
        __m256 s = _mm256_castsi256_ps(sb);
        __m256 e = _mm256_fmadd_ps(s, p, _mm256_sub_ps(s, one));
        __m256 th = _mm256_div_ps(e, _mm256_add_ps(e, two));
        _mm256_storeu_ps(out + i, _mm256_or_ps(th, sign));
    }
}

static int tt_have_avx2_fma(void)
{
    static int have = -1;
    if (have < 0) {
        __builtin_cpu_init();
        have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return have;
}
#define TT_VECTOR 1
#else
#define TT_VECTOR 0
#endif

void train_tanh(float *out, const float *x, size_t n)
{
    size_t i = 0;
#if TT_VECTOR
    if (tt_have_avx2_fma()) {
        tanh_avx2(out, x, n);
        i = n & ~(size_t)7;
    }
#endif
    for (; i < n; i++)
        out[i] = train_tanh1(x[i]);
}
