/* test_stream.c - the weight-streaming products (tensor_stream.c: a few rows against a large
 * weight matrix, as a real model's forward at a dozen tokens) and the cache-blocked ones
 * (tensor_block.c: many rows, as at 33-1024 tokens; tensor_bt.c: [out, in] weights past 32
 * rows) hold the same rounding contract as the
 * tiled kernels, element by element, at every row count they take, across weight-block, token-
 * block and vector edges; and they are chosen exactly where tensor_stream.h and tensor_block.h
 * say. Run again with ATTEND_NO_AVX512=1 by tests/ref/avx2_paths.sh (the AVX2 kernels). */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "tensor.h"
#include "tensor_block.h"
#include "tensor_bt.h"
#include "tensor_par.h"
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
                           38, 47, 100};
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

/* Past a token block (tensor_block.c's 1024 rows; tensor_bt.c's blocks of 1 MB of packed
 * rows): the whole product has the bits of the same rows computed 32 at a time (the streaming
 * products, held to the chains element by element above). */
static void test_token_blocks(void)
{
    enum { N = 1030, K1 = 64, M1 = 8193, K2 = 1100, M2 = 477 };
    enum { NB = K1 * M1 > K2 * M2 ? K1 * M1 : K2 * M2 };
    float *a = malloc(sizeof(float) * N * K2), *b = malloc(sizeof(float) * NB),
          *out = malloc(sizeof(float) * N * M1), *out2 = malloc(sizeof(float) * N * M1);
    if (!a || !b || !out || !out2) {
        CHECK(0, "out of memory");
        return;
    }
    k_fill(a, (size_t)N * K2);
    k_fill(b, NB);
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

/* Half-precision weights kept half (tensor_half.c): the products' bits are those of the same
 * weights widened to float32 first, for both layouts, both 16-bit formats, a few rows and
 * many, shapes small and past the streaming threshold. */
static void test_half(void)
{
    /* k a multiple of 8: BF16's [out, in] kernel widening in registers (m 517: a last group
     * of one weight row); k 3072: tensor_bt.c's token blocks of 84 rows (100 = 84 + 16) */
    static const int sh[][2] = {{24, 40}, {257, 2041}, {1100, 477}, {1024, 517}, {3072, 43}};
    static const int hrows[] = {1, 12, 33, 100};
    enum { MAXN = 100, MAXE = 530000 };
    float *a = malloc(sizeof(float) * MAXN * 3072), *w = malloc(sizeof(float) * MAXE),
          *out = malloc(sizeof(float) * MAXN * 2041), *out2 = malloc(sizeof(float) * MAXN * 2041);
    uint16_t *h = malloc(sizeof(uint16_t) * MAXE);
    long bad = 0, cases = 0;
    if (!a || !w || !out || !out2 || !h) {
        CHECK(0, "out of memory");
        return;
    }
    for (int dt = TENSOR_BF16; dt <= TENSOR_F16; dt++)
        for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++)
            for (size_t r = 0; r < sizeof hrows / sizeof hrows[0]; r++) {
                int k = sh[s][0], m = sh[s][1], n = hrows[r];
                k_fill(a, (size_t)n * k);
                for (size_t i = 0; i < (size_t)k * m; i++) { /* finite values, some subnormal */
                    float x = k_rand();
                    uint16_t v = (uint16_t)((unsigned)(int)(x * 32768.0f) & 0xffffu);
                    h[i] = dt == TENSOR_BF16 ? (uint16_t)(0x3c00u ^ (v & 0x80ffu) ^ ((v & 0x0f00u) << 3))
                                             : (uint16_t)(v & 0xbbffu);
                }
                tensor_widen(w, h, dt, (size_t)k * m);
                CHECK(tensor_matmul_half(out, a, h, dt, n, k, m) == 0, "half product runs");
                tensor_matmul(out2, a, w, n, k, m);
                bad += memcmp(out, out2, sizeof(float) * (size_t)n * m) != 0;
                CHECK(tensor_matmul_bt_half(out, a, h, dt, n, k, m, 0.125f) == 0, "bt runs");
                tensor_matmul_bt_scaled(out2, a, w, n, k, m, 0.125f);
                bad += memcmp(out, out2, sizeof(float) * (size_t)n * m) != 0;
                cases++;
            }
    CHECK(bad == 0 && cases == 2 * 5 * 4, "half weights: %ld of %ld products differ from their "
          "float32 widening", bad, 2 * cases);
    uint16_t one[4] = {0x3f80, 0xc000, 0x0001, 0x7f80}; /* bf16 1, -2, the least subnormal, inf */
    float got[4];
    tensor_widen(got, one, TENSOR_BF16, 4);
    CHECK(got[0] == 1.0f && got[1] == -2.0f && got[2] > 0 && got[2] < 1e-38f && got[3] > 3e38f,
          "bf16 widening: %g %g %g %g", got[0], got[1], got[2], got[3]);
    uint16_t hf[4] = {0x3c00, 0xc000, 0x0001, 0x7bff}; /* f16 1, -2, 2^-24, 65504 */
    tensor_widen(got, hf, TENSOR_F16, 4);
    CHECK(got[0] == 1.0f && got[1] == -2.0f && got[2] == 0x1p-24f && got[3] == 65504.0f,
          "f16 widening: %g %g %g %g", got[0], got[1], got[2], got[3]);
    free(a);
    free(w);
    free(out);
    free(out2);
    free(h);
}

/* The products split over threads (tensor_par.c) give the bits of one thread, for every path
 * (streamed, blocked, [out, in], half), at thread counts that cut the columns unevenly. */
static void test_threads(void)
{
    static const int sh[][3] = {{12, 768, 2304}, {12, 3072, 768}, {40, 768, 3072}, {100, 1100, 477},
                                {7, 64, 30841}};
    enum { MAXA = 100 * 1100, MAXB = 64 * 30841 > 768 * 3072 ? 64 * 30841 : 768 * 3072,
           MAXO = 100 * 30841 };
    float *a = malloc(sizeof(float) * MAXA), *b = malloc(sizeof(float) * MAXB),
          *o1 = malloc(sizeof(float) * MAXO), *o2 = malloc(sizeof(float) * MAXO);
    uint16_t *h = malloc(sizeof(uint16_t) * MAXB);
    long bad = 0, split = 0;
    if (!a || !b || !o1 || !o2 || !h) {
        CHECK(0, "out of memory");
        return;
    }
    int saved = tensor_threads();
    for (size_t s = 0; s < sizeof sh / sizeof sh[0]; s++) {
        int n = sh[s][0], k = sh[s][1], m = sh[s][2];
        size_t nb = (size_t)k * m, no = (size_t)n * m;
        k_fill(a, (size_t)n * k);
        k_fill(b, nb);
        for (size_t i = 0; i < nb; i++)
            memcpy(&h[i], (const char *)&b[i] + 2, 2); /* bf16: b's high halves */
        split += tensor_par_parts(n, k, m) > 1 || saved == 1;
        for (int way = 0; way < 5; way++)
            for (int t = 1; t <= 3; t++) {
                tensor_set_threads(t);
                float *o = t == 1 ? o1 : o2;
                if (way == 0)
                    tensor_matmul(o, a, b, n, k, m);
                else if (way == 1)
                    tensor_matmul_bt_scaled(o, a, b, n, k, m, 0.125f);
                else if (way == 2)
                    tensor_matmul_half(o, a, h, TENSOR_BF16, n, k, m);
                else if (way == 3)
                    tensor_matmul_bt_half(o, a, h, TENSOR_BF16, n, k, m, 1.0f);
                else
                    tensor_matmul_lda(o, a, k, b, n, k, m);
                if (t > 1)
                    bad += memcmp(o1, o2, sizeof(float) * no) != 0;
            }
    }
    tensor_set_threads(saved);
    CHECK(bad == 0, "threads: %ld products at 2 or 3 threads differ from 1 thread", bad);
    CHECK(tensor_par_parts(12, 768, 2304) == tensor_threads() && tensor_par_parts(12, 32, 128) == 1,
          "split where it pays: GPT-2's 768x2304 at 12 tokens (%d parts), not a course model's "
          "32x128 (%d)", tensor_par_parts(12, 768, 2304), tensor_par_parts(12, 32, 128));
    int j0, j1, j2, j3;
    tensor_par_range(100, 48, 0, 2, &j0, &j1);
    tensor_par_range(100, 48, 1, 2, &j2, &j3);
    CHECK(j0 == 0 && j1 == 96 && j2 == 96 && j3 == 100, "ranges %d-%d %d-%d", j0, j1, j2, j3);
    (void)split;
    free(a);
    free(b);
    free(o1);
    free(o2);
    free(h);
}

/* tensor_matmul_bt_finite: the bits of tensor_matmul_bt; 1 for an all-finite output where the
 * AVX-512 kernel checked it, never 1 when an element is a NaN or an infinity, at every row
 * count (odd ones: the last token twice in a pair), k with a tail (k mod 8) or not, one and two
 * threads, the offender anywhere (first, last, middle element; an overflow or a NaN input). */
static void test_finite(void)
{
    enum { K = 1100, M = 2041, MAXN = 47 };
    static const int ks[] = {1100, 1096}, ns[] = {1, 12, 13, 47};
    float *a = malloc(sizeof(float) * MAXN * K), *b = malloc(sizeof(float) * K * M),
          *out = malloc(sizeof(float) * MAXN * M), *want = malloc(sizeof(float) * MAXN * M);
    if (!a || !b || !out || !want) {
        CHECK(0, "out of memory");
        free(a), free(b), free(out), free(want);
        return;
    }
    int saved = tensor_threads(), bits = 0, clean = 0, flagged = 0, cases = 0, claimed = 0;
    /* where the checking kernel exists: AVX-512, a build with it (not ASan's), k >= 8 */
    int probe, checked;
    k_fill(a, K), k_fill(b, K);
    checked = tensor_bt_matmul_check(out, 1, a, b, 1, K, 1, 1.0f, &probe);
    for (int th = 1; th <= 2; th++) {
        tensor_set_threads(th);
        for (int ki = 0; ki < 2; ki++)
            for (int ni = 0; ni < 4; ni++) {
                int k = ks[ki], n = ns[ni];
                k_fill(a, (size_t)n * k);
                k_fill(b, (size_t)k * M);
                tensor_matmul_bt(want, a, b, n, k, M);
                int f = tensor_matmul_bt_finite(out, a, b, n, k, M);
                bits += memcmp(out, want, sizeof(float) * (size_t)n * M) != 0;
                clean += f == checked;
                /* an offender: a weight row that overflows (element [i][j] = +inf or -inf), or
                 * a NaN in a token's row */
                for (int v = 0; v < 3; v++) {
                    int i = v == 0 ? 0 : v == 1 ? n - 1 : n / 2, j = v == 0 ? 0 : v == 1 ? M - 1 : M / 3;
                    float *br = b + (size_t)j * k, keep = br[k - 1], akeep = a[(size_t)i * k];
                    if (v < 2) {
                        for (int p = 0; p < k; p++)
                            br[p] = a[(size_t)i * k + p] < 0 ? -3e37f : 3e37f;
                    } else {
                        a[(size_t)i * k] = NAN;
                    }
                    tensor_matmul_bt(want, a, b, n, k, M);
                    f = tensor_matmul_bt_finite(out, a, b, n, k, M);
                    bits += memcmp(out, want, sizeof(float) * (size_t)n * M) != 0;
                    flagged += f == 0;
                    claimed += f;
                    if (v < 2)
                        k_fill(br, (size_t)k), br[k - 1] = keep;
                    else
                        a[(size_t)i * k] = akeep;
                    cases++;
                }
            }
    }
    tensor_set_threads(saved);
    CHECK(bits == 0, "tensor_matmul_bt_finite: %d products differ from tensor_matmul_bt", bits);
    CHECK(clean == 16, "all-finite outputs reported %s: %d of 16",
          checked ? "finite (the AVX-512 kernel checks them)" : "unchecked (no AVX-512 kernel here)",
          clean);
    CHECK(flagged == cases && claimed == 0, "a NaN or an infinity never reported finite: %d of "
          "%d flagged", flagged, cases);
    free(a), free(b), free(out), free(want);
}

int main(void)
{
    test_finite();
    test_threads();
    test_half();
    test_contract();
    test_token_blocks();
    test_choice();
    return t_done("stream");
}
