/* test_stream.c - the weight-streaming products (tensor_stream.c: a few rows against a large
 * weight matrix, as a real model's forward at a dozen tokens) and the cache-blocked ones
 * (tensor_block.c: many rows, as at 33-1024 tokens) hold the same rounding contract as the
 * tiled kernels, element by element, at every row count they take, across weight-block, token-
 * block and vector edges; and they are chosen exactly where tensor_stream.h and tensor_block.h
 * say. Run again with ATTEND_NO_AVX512=1 by tests/ref/avx2_paths.sh (the AVX2 kernels). */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "tensor.h"
#include "tensor_block.h"
#include "tensor_stream.h"
#include "t.h"
#include "kchain.h"

/* Shapes with k·m >= TENSOR_STREAM_MIN_KM: k not a multiple of the 16-row weight block or of 8
 * (the bt tail), m not a multiple of 32 or 16 (masked last columns) or of 4 (the clamped last
 * weight rows of bt), and k above tensor.c's BT_MAX_K (1024). */
static const int shapes[][2] = {{257, 2041}, {1100, 477}, {64, 8193}, {17, 30841}};
/* Row counts: the register groups of both streaming paths (12 on AVX-512, 6 on AVX2), a part
 * and past; then the blocked paths' (bands of 8 and 6 rows, and their parts). */
static const int rows[] = {1, 5, 7, 12, 13, 25, TENSOR_STREAM_MAX_N, TENSOR_STREAM_MAX_N + 1,
                           47, 100};
#define N_ROWS ((int)(sizeof rows / sizeof rows[0]))

static void test_contract(void)
{
    enum { MAXN = 100, MAXE = 530000, MAXM = 30841 };
    float *a = malloc(sizeof(float) * MAXN * 1200), *wide = malloc(sizeof(float) * MAXN * 1205);
    float *b = malloc(sizeof(float) * MAXE), *out = malloc(sizeof(float) * MAXN * MAXM),
          *out2 = malloc(sizeof(float) * MAXN * MAXM);
    long bad_mm = 0, bad_lda = 0, bad_bt = 0, bad_bts = 0, cases = 0;
    if (!a || !wide || !b || !out || !out2) {
        CHECK(0, "out of memory");
        return;
    }
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            int k = shapes[s][0], m = shapes[s][1], n = rows[r];
            k_fill(a, (size_t)n * k);
            k_fill(b, (size_t)k * m);
            tensor_matmul(out, a, b, n, k, m);
            bad_mm += k_matmul_mismatch(out, a, b, n, k, m);
            k_fill(wide, (size_t)n * (k + 5)); /* a's rows 5 floats apart */
            for (int i = 0; i < n; i++)
                memcpy(wide + (size_t)i * (k + 5), a + (size_t)i * k, sizeof(float) * (size_t)k);
            tensor_matmul_lda(out2, wide, k + 5, b, n, k, m);
            bad_lda += memcmp(out, out2, sizeof(float) * (size_t)n * m) != 0;
            tensor_matmul_bt(out, a, b, n, k, m); /* b read as m rows of k */
            for (int i = 0; i < n; i++)
                for (int j = 0; j < m; j++) {
                    float want = k_dot8(a + (size_t)i * k, b + (size_t)j * k, k);
                    bad_bt += memcmp(&want, out + (size_t)i * m + j, sizeof want) != 0;
                }
            tensor_scale(out, 0.125f * 1.1f, (size_t)n * m);
            tensor_matmul_bt_scaled(out2, a, b, n, k, m, 0.125f * 1.1f);
            bad_bts += memcmp(out, out2, sizeof(float) * (size_t)n * m) != 0;
            cases++;
        }
    CHECK(bad_mm == 0, "tensor_matmul (streamed): %ld elements differ from the in-order chain",
          bad_mm);
    CHECK(bad_lda == 0, "tensor_matmul_lda (streamed): %ld shapes differ from tensor_matmul",
          bad_lda);
    CHECK(bad_bt == 0, "tensor_matmul_bt (streamed): %ld elements differ from the 8-lane order",
          bad_bt);
    CHECK(bad_bts == 0, "tensor_matmul_bt_scaled (streamed): %ld shapes differ from it then "
          "tensor_scale", bad_bts);
    CHECK(cases == 4 * N_ROWS, "%ld shapes", cases);
    free(a);
    free(wide);
    free(b);
    free(out);
    free(out2);
}

/* The streaming products run (return 1) exactly for 1..TENSOR_STREAM_MAX_N rows and k·m of at
 * least TENSOR_STREAM_MIN_KM, on a CPU with AVX2+FMA in a build with the x86 kernels; the
 * tiled kernels take the rest. */
static void test_choice(void)
{
    int x86 = 0;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
    x86 = cpu_has_avx2_fma();
#endif
    enum { K = 256, M = TENSOR_STREAM_MIN_KM / 256 };
    float *a = malloc(sizeof(float) * (TENSOR_STREAM_MAX_N + 1) * K),
          *b = malloc(sizeof(float) * K * M),
          *out = malloc(sizeof(float) * (TENSOR_STREAM_MAX_N + 1) * M);
    if (!a || !b || !out) {
        CHECK(0, "out of memory");
        return;
    }
    k_fill(a, (size_t)(TENSOR_STREAM_MAX_N + 1) * K);
    k_fill(b, (size_t)K * M);
    CHECK(tensor_stream_matmul(out, a, K, b, 12, K, M) == x86, "12 rows, k·m at the threshold");
    CHECK(tensor_stream_matmul_bt(out, a, b, 12, K, M, 1.0f) == x86, "bt, 12 rows");
    CHECK(tensor_stream_matmul(out, a, K, b, TENSOR_STREAM_MAX_N, K, M) == x86, "the most rows");
    CHECK(tensor_stream_matmul(out, a, K, b, TENSOR_STREAM_MAX_N + 1, K, M) == 0, "one row more");
    CHECK(tensor_stream_matmul_bt(out, a, b, TENSOR_STREAM_MAX_N + 1, K, M, 1.0f) == x86,
          "bt, one row more: token blocks");
    CHECK(tensor_block_matmul(out, a, K, b, TENSOR_STREAM_MAX_N + 1, K, M) == x86,
          "one row more: the blocked product");
    CHECK(tensor_block_matmul(out, a, K, b, TENSOR_STREAM_MAX_N, K, M) == 0,
          "the streaming product's rows: not blocked");
    CHECK(tensor_block_matmul(out, a, K, b, TENSOR_STREAM_MAX_N + 1, K, M - 1) == 0,
          "blocked: k·m below the threshold");
    CHECK(tensor_stream_matmul(out, a, K, b, 12, K, M - 1) == 0, "k·m below the threshold");
    CHECK(tensor_stream_matmul_bt(out, a, b, 12, K, M - 1, 1.0f) == 0, "bt, below the threshold");
    CHECK(tensor_stream_matmul(out, a, K, b, 0, K, M) == 0, "no rows");
    free(a);
    free(b);
    free(out);
}

/* Past a token block (tensor_block.c's 1024 rows; tensor_stream.c's bt blocks of 1 MB of
 * rows): the whole product has the bits of the same rows computed 32 at a time (the streaming
 * products, held to the chains element by element above). */
static void test_token_blocks(void)
{
    enum { N = 1030, K1 = 64, M1 = 8193, K2 = 1100, M2 = 477 };
    float *a = malloc(sizeof(float) * N * K2), *b = malloc(sizeof(float) * K1 * M1),
          *out = malloc(sizeof(float) * N * M1), *out2 = malloc(sizeof(float) * N * M1);
    if (!a || !b || !out || !out2) {
        CHECK(0, "out of memory");
        return;
    }
    k_fill(a, (size_t)N * K2);
    k_fill(b, (size_t)K1 * M1);
    tensor_matmul(out, a, b, N, K1, M1);
    for (int i = 0; i < N; i += TENSOR_STREAM_MAX_N)
        tensor_matmul(out2 + (size_t)i * M1, a + (size_t)i * K1, b,
                      N - i < TENSOR_STREAM_MAX_N ? N - i : TENSOR_STREAM_MAX_N, K1, M1);
    CHECK(!memcmp(out, out2, sizeof(float) * (size_t)N * M1),
          "%d rows at once: the bits of 32 rows at a time", N);
    tensor_matmul_bt_scaled(out, a, b, N, K2, M2, 0.125f);
    for (int i = 0; i < N; i += TENSOR_STREAM_MAX_N)
        tensor_matmul_bt_scaled(out2 + (size_t)i * M2, a + (size_t)i * K2, b,
                                N - i < TENSOR_STREAM_MAX_N ? N - i : TENSOR_STREAM_MAX_N, K2,
                                M2, 0.125f);
    CHECK(!memcmp(out, out2, sizeof(float) * (size_t)N * M2),
          "bt: %d rows at once: the bits of 32 rows at a time", N);
    free(a);
    free(b);
    free(out);
    free(out2);
}

int main(void)
{
    test_contract();
    test_token_blocks();
    test_choice();
    return t_done("stream");
}
