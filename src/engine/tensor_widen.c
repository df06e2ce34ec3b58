/* tensor_widen.c - 16-bit weights (bfloat16, IEEE half) widened exactly to float32 (see
 * tensor.h): the one conversion the half-precision products (tensor_half.c, tensor_block.c's
 * panels) and the embedding lookup use. */
#include "tensor.h"
#include "attend_assert.h"
#include "cpu.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define HALF_X86 1
#include <immintrin.h>
#else
#define HALF_X86 0
#endif

static float f16(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
    if (e == 0) {
        if (m == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            e = 127 - 15 + 1;
            while (!(m & 0x400)) {
                m <<= 1;
                e--;
            }
            bits = sign | (e << 23) | ((m & 0x3ff) << 13);
        }
    } else if (e == 31) {
        bits = sign | 0x7f800000u | (m << 13);
    } else {
        bits = sign | ((e + 127 - 15) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

#if HALF_X86
__attribute__((target("avx512f"))) static void widen_bf16_z(float *restrict out,
                                                            const uint16_t *restrict in,
                                                            size_t len)
{
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(in + i)));
        _mm512_storeu_si512(out + i, _mm512_slli_epi32(v, 16));
    }
    for (; i < len; i++) {
        uint32_t bits = (uint32_t)in[i] << 16;
        memcpy(out + i, &bits, sizeof bits);
    }
}

__attribute__((target("avx2"))) static void widen_bf16_y(float *restrict out,
                                                         const uint16_t *restrict in, size_t len)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(in + i)));
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_slli_epi32(v, 16));
    }
    for (; i < len; i++) {
        uint32_t bits = (uint32_t)in[i] << 16;
        memcpy(out + i, &bits, sizeof bits);
    }
}
#endif

void tensor_widen(float *restrict out, const uint16_t *restrict in, int dtype, size_t len)
{
    ATTEND_ASSERT(dtype == TENSOR_BF16 || dtype == TENSOR_F16);
    if (dtype == TENSOR_F16) {
        for (size_t i = 0; i < len; i++)
            out[i] = f16(in[i]);
        return;
    }
#if HALF_X86
    if (cpu_has_avx512()) {
        widen_bf16_z(out, in, len);
        return;
    }
    if (cpu_has_avx2()) {
        widen_bf16_y(out, in, len);
        return;
    }
#endif
    for (size_t i = 0; i < len; i++) {
        uint32_t bits = (uint32_t)in[i] << 16;
        memcpy(out + i, &bits, sizeof bits);
    }
}

