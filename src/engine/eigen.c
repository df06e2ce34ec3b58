/* eigen.c - eigenvalues of a real unsymmetric matrix (eigen.h): Householder reduction to upper
 * Hessenberg form, then the Francis double-shift QR iteration on the Hessenberg matrix with
 * deflation of small subdiagonal entries (Golub & Van Loan, "Matrix Computations", 7.4-7.5). */
#include "eigen.h"

#include <math.h>
#include <stddef.h>

#define A(i, j) a[(size_t)(i) * n + (j)]

/* a := H a H with H = I - 2 v vᵀ / (vᵀv) acting on rows/columns k+1.., column k zeroed below
 * its subdiagonal, for k = 0..n-3: the same eigenvalues, upper Hessenberg. */
static void hessenberg(double *a, int n)
{
    double v[EIGEN_MAX_N];
    for (int k = 0; k + 2 < n; k++) {
        double s = 0.0;
        for (int i = k + 1; i < n; i++)
            s += A(i, k) * A(i, k);
        double alpha = sqrt(s);
        if (alpha == 0.0)
            continue;
        if (A(k + 1, k) > 0)
            alpha = -alpha;
        double vv = 0.0;
        for (int i = k + 1; i < n; i++) {
            v[i] = A(i, k) - (i == k + 1 ? alpha : 0.0);
            vv += v[i] * v[i];
        }
        if (vv == 0.0)
            continue;
        for (int j = 0; j < n; j++) { /* rows: a := (I - 2vvᵀ/vv) a */
            double d = 0.0;
            for (int i = k + 1; i < n; i++)
                d += v[i] * A(i, j);
            d = 2.0 * d / vv;
            for (int i = k + 1; i < n; i++)
                A(i, j) -= d * v[i];
        }
        for (int i = 0; i < n; i++) { /* columns: a := a (I - 2vvᵀ/vv) */
            double d = 0.0;
            for (int j = k + 1; j < n; j++)
                d += A(i, j) * v[j];
            d = 2.0 * d / vv;
            for (int j = k + 1; j < n; j++)
                A(i, j) -= d * v[j];
        }
        for (int i = k + 2; i < n; i++)
            A(i, k) = 0.0;
    }
}

/* The eigenvalues of the trailing 2 × 2 block at rows/columns p-1, p (a pair or two reals). */
static void block2(double *a, int n, int p, double *re, double *im)
{
    double w = A(p - 1, p - 1), x = A(p - 1, p), y = A(p, p - 1), z = A(p, p);
    double m = 0.5 * (w + z), d = 0.5 * (w - z), disc = d * d + x * y;
    if (disc >= 0) {
        double r = sqrt(disc);
        /* the larger root first, the other from the determinant: no cancellation */
        double big = m + (m >= 0 ? r : -r), det = w * z - x * y;
        re[p - 1] = big;
        re[p] = big != 0.0 ? det / big : m - (m >= 0 ? r : -r);
        im[p - 1] = im[p] = 0.0;
    } else {
        re[p - 1] = re[p] = m;
        im[p - 1] = sqrt(-disc);
        im[p] = -im[p - 1];
    }
}

/* One Francis double-shift QR sweep on the active block lo..hi (hi - lo >= 2): the shifts are
 * the eigenvalues of the trailing 2 × 2 block (or, when exceptional, ad hoc ones), applied
 * implicitly by chasing a 3 × 3 Householder bulge down the subdiagonal. */
static void francis(double *a, int n, int lo, int hi, int exceptional)
{
    double s, t;
    if (exceptional) { /* break a cycle: shifts from the subdiagonal's size */
        double e = fabs(A(hi, hi - 1)) + fabs(A(hi - 1, hi - 2));
        s = 1.5 * e;
        t = e * e;
    } else {
        s = A(hi - 1, hi - 1) + A(hi, hi); /* the sum and product of the two shifts */
        t = A(hi - 1, hi - 1) * A(hi, hi) - A(hi - 1, hi) * A(hi, hi - 1);
    }
    /* the first column of (a - σ1)(a - σ2), nonzero in its first three entries */
    double x = A(lo, lo) * A(lo, lo) + A(lo, lo + 1) * A(lo + 1, lo) - s * A(lo, lo) + t;
    double y = A(lo + 1, lo) * (A(lo, lo) + A(lo + 1, lo + 1) - s);
    double z = lo + 2 <= hi ? A(lo + 1, lo) * A(lo + 2, lo + 1) : 0.0;
    for (int k = lo - 1; k <= hi - 2; k++) {
        int r = k + 3 <= hi ? 3 : 2; /* the reflector's length */
        double v[3] = {x, y, r == 3 ? z : 0.0};
        double nv = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (nv != 0.0) {
            double alpha = v[0] > 0 ? -nv : nv;
            v[0] -= alpha;
            double vv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
            if (vv != 0.0) {
                int c0 = k < lo ? lo : k; /* rows k+1..k+r from column c0 */
                for (int j = c0; j < n; j++) {
                    double d = 0.0;
                    for (int q = 0; q < r; q++)
                        d += v[q] * A(k + 1 + q, j);
                    d = 2.0 * d / vv;
                    for (int q = 0; q < r; q++)
                        A(k + 1 + q, j) -= d * v[q];
                }
                int r1 = k + 4 < hi ? k + 4 : hi; /* columns k+1..k+r of rows 0..r1 */
                for (int i = 0; i <= r1; i++) {
                    double d = 0.0;
                    for (int q = 0; q < r; q++)
                        d += A(i, k + 1 + q) * v[q];
                    d = 2.0 * d / vv;
                    for (int q = 0; q < r; q++)
                        A(i, k + 1 + q) -= d * v[q];
                }
                if (k >= lo) { /* the bulge's column below the subdiagonal is now zero */
                    A(k + 2, k) = 0.0;
                    if (r == 3)
                        A(k + 3, k) = 0.0;
                }
            }
        }
        if (k + 1 <= hi - 2) { /* the next bulge column */
            x = A(k + 2, k + 1);
            y = A(k + 3, k + 1);
            z = k + 4 <= hi ? A(k + 4, k + 1) : 0.0;
        }
    }
}

int eigen_values(double *a, int n, double *re, double *im)
{
    if (n <= 0)
        return 0;
    if (n > EIGEN_MAX_N)
        return -1;
    hessenberg(a, n);
    int hi = n - 1, its = 0;
    while (hi >= 0) {
        int lo = hi; /* the active block: back from hi to the first negligible subdiagonal */
        while (lo > 0) {
            double s = fabs(A(lo - 1, lo - 1)) + fabs(A(lo, lo));
            if (fabs(A(lo, lo - 1)) <= 1e-15 * (s > 0 ? s : 1e-300)) {
                A(lo, lo - 1) = 0.0;
                break;
            }
            lo--;
        }
        if (lo == hi) { /* one real eigenvalue */
            re[hi] = A(hi, hi);
            im[hi] = 0.0;
            hi--;
            its = 0;
        } else if (lo == hi - 1) { /* a 2 × 2 block */
            block2(a, n, hi, re, im);
            hi -= 2;
            its = 0;
        } else {
            if (++its > 60)
                return -1;
            francis(a, n, lo, hi, its % 11 == 10);
        }
    }
    return 0;
}
