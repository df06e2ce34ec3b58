/* test_eigen.c - eigen_values (src/engine/eigen.c): known spectra (diagonal, triangular,
 * rotations, a companion matrix, repeated and zero eigenvalues), and on random matrices of
 * sizes 1..64 the invariants Σλ = trace(A), Σλ² = trace(A²), Πλ = det(A) (small sizes) and
 * conjugate pairs. With --dump it prints its random matrices and their eigenvalues as JSON for
 * tests/ref/lens_check.py, which compares them with numpy.linalg.eigvals. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "eigen.h"
#include "t.h"

static unsigned long long rng_state = 36;

static double rnd(void) /* uniform in [-1, 1) */
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / (double)(1ULL << 53) * 2.0 - 1.0;
}

/* Determinant by Gaussian elimination with partial pivoting (a destroyed). */
static double det(double *a, int n)
{
    double d = 1.0;
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(a[i * n + k]) > fabs(a[p * n + k]))
                p = i;
        if (a[p * n + k] == 0.0)
            return 0.0;
        if (p != k) {
            for (int j = 0; j < n; j++) {
                double t = a[k * n + j];
                a[k * n + j] = a[p * n + j];
                a[p * n + j] = t;
            }
            d = -d;
        }
        d *= a[k * n + k];
        for (int i = k + 1; i < n; i++) {
            double f = a[i * n + k] / a[k * n + k];
            for (int j = k; j < n; j++)
                a[i * n + j] -= f * a[k * n + j];
        }
    }
    return d;
}

/* The eigenvalues of a (n × n) sorted by real part then imaginary part, into re/im. */
static int sorted(const double *a0, int n, double *re, double *im)
{
    double *a = malloc(sizeof(double) * (size_t)n * n);
    memcpy(a, a0, sizeof(double) * (size_t)n * n);
    int rc = eigen_values(a, n, re, im);
    free(a);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && (re[j] < re[j - 1] - 1e-12 ||
                                  (fabs(re[j] - re[j - 1]) <= 1e-12 && im[j] < im[j - 1]));
             j--) {
            double t = re[j];
            re[j] = re[j - 1];
            re[j - 1] = t;
            t = im[j];
            im[j] = im[j - 1];
            im[j - 1] = t;
        }
    return rc;
}

static void known(void)
{
    double re[8], im[8];
    double diag[9] = {3, 0, 0, 0, -1, 0, 0, 0, 2};
    CHECK(sorted(diag, 3, re, im) == 0, "diagonal");
    CHECK(re[0] == -1 && re[1] == 2 && re[2] == 3 && !im[0] && !im[1] && !im[2],
          "diagonal: %g %g %g", re[0], re[1], re[2]);
    double tri[16] = {1, 5, -2, 7, 0, 4, 3, 1, 0, 0, -3, 8, 0, 0, 0, 0.5};
    sorted(tri, 4, re, im);
    CHECK_NEAR(re[0], -3, 1e-12, "triangular -3");
    CHECK_NEAR(re[1], 0.5, 1e-12, "triangular 0.5");
    CHECK_NEAR(re[2], 1, 1e-12, "triangular 1");
    CHECK_NEAR(re[3], 4, 1e-12, "triangular 4");
    double rot[4] = {0, -2, 2, 0}; /* ±2i */
    sorted(rot, 2, re, im);
    CHECK(fabs(re[0]) < 1e-14 && fabs(im[0] + 2) < 1e-14 && fabs(im[1] - 2) < 1e-14,
          "rotation: %g%+gi %g%+gi", re[0], im[0], re[1], im[1]);
    /* companion of (x-1)(x-2)(x-3)(x^2+1)(x+4): x^6 - 2x^5 - 12x^4 + 36x^3 - 37x^2 + 38x - 24 */
    static const double cf[6] = {-2, -12, 36, -37, 38, -24}; /* x^6 + Σ cf[k] x^(5-k) */
    double comp[36] = {0};
    for (int j = 0; j < 6; j++)
        comp[j] = -cf[j];
    for (int i = 1; i < 6; i++)
        comp[i * 6 + i - 1] = 1;
    CHECK(sorted(comp, 6, re, im) == 0, "companion converges");
    const double wr[6] = {-4, 0, 0, 1, 2, 3}, wi[6] = {0, -1, 1, 0, 0, 0};
    for (int i = 0; i < 6; i++)
        CHECK(fabs(re[i] - wr[i]) < 1e-9 && fabs(im[i] - wi[i]) < 1e-9,
              "companion root %d: %.12g%+.12gi want %g%+gi", i, re[i], im[i], wr[i], wi[i]);
    double twice[9] = {2, 1, 0, 0, 2, 0, 0, 0, 0}; /* 2 (a Jordan block) twice, and 0 */
    sorted(twice, 3, re, im);
    CHECK(fabs(re[0]) < 1e-12 && fabs(re[1] - 2) < 1e-7 && fabs(re[2] - 2) < 1e-7,
          "repeated: %g %g %g", re[0], re[1], re[2]);
    double one = 7, r1, i1;
    CHECK(eigen_values(&one, 1, &r1, &i1) == 0 && r1 == 7 && i1 == 0, "1 x 1");
    CHECK(eigen_values(NULL, 0, NULL, NULL) == 0, "0 x 0");
}

static void random_invariants(void)
{
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 16, 31, 64};
    double worst = 0.0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int rep = 0; rep < 5; rep++) {
            int n = sizes[s];
            double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
            double *re = malloc(sizeof(double) * n), *im = malloc(sizeof(double) * n);
            for (int i = 0; i < n * n; i++)
                a[i] = rnd();
            double tr = 0.0, tr2 = 0.0;
            for (int i = 0; i < n; i++) {
                tr += a[i * n + i];
                for (int k = 0; k < n; k++)
                    tr2 += a[i * n + k] * a[k * n + i];
            }
            memcpy(b, a, sizeof(double) * n * n);
            double dt = det(b, n);
            memcpy(b, a, sizeof(double) * n * n);
            CHECK(eigen_values(b, n, re, im) == 0, "random %d x %d converges", n, n);
            double complex sum = 0, sum2 = 0, prod = 1, imsum = 0;
            for (int i = 0; i < n; i++) {
                double complex z = re[i] + I * im[i];
                sum += z;
                sum2 += z * z;
                prod *= z;
                imsum += im[i];
            }
            double e = fmax(cabs(sum - tr), cabs(sum2 - tr2) / fmax(1.0, fabs(tr2)));
            if (n <= 16)
                e = fmax(e, cabs(prod - dt) / fmax(1.0, fabs(dt)));
            e = fmax(e, fabs(creal(imsum)));
            worst = fmax(worst, e);
            CHECK(e < 1e-9 * n, "random %d x %d: trace, trace of the square, det (err %.3g)", n, n,
                  e);
            free(a);
            free(b);
            free(re);
            free(im);
        }
    printf("random matrices: worst invariant error %.3g\n", worst);
}

/* --dump: {"matrices": [{"n", "a": [...], "re": [...], "im": [...]}, ...]} */
static int dump(void)
{
    static const int sizes[] = {2, 3, 5, 8, 16, 32, 64};
    printf("{\"matrices\": [");
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s];
        double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
        double *re = malloc(sizeof(double) * n), *im = malloc(sizeof(double) * n);
        for (int i = 0; i < n * n; i++)
            a[i] = rnd();
        memcpy(b, a, sizeof(double) * n * n);
        int rc = eigen_values(b, n, re, im);
        printf("%s\n{\"n\": %d, \"rc\": %d, \"a\": [", s ? "," : "", n, rc);
        for (int i = 0; i < n * n; i++)
            printf("%s%.17g", i ? ", " : "", a[i]);
        printf("], \"re\": [");
        for (int i = 0; i < n; i++)
            printf("%s%.17g", i ? ", " : "", re[i]);
        printf("], \"im\": [");
        for (int i = 0; i < n; i++)
            printf("%s%.17g", i ? ", " : "", im[i]);
        printf("]}");
        free(a);
        free(b);
        free(re);
        free(im);
    }
    printf("\n]}\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--dump"))
        return dump();
    known();
    random_invariants();
    return t_done("test_eigen");
}
