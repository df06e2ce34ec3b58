/* eigen.h - the eigenvalues of a small real unsymmetric matrix (a head's d_head × d_head OV
 * circuit, circuits.c): Householder reduction to upper Hessenberg form, then the implicitly
 * double-shifted (Francis) QR iteration. Doubles; no allocation, no printing. */
#ifndef ATTEND_EIGEN_H
#define ATTEND_EIGEN_H

#define EIGEN_MAX_N 1024

/* The n eigenvalues of the n × n row-major matrix a (destroyed: it is left in quasi-triangular
 * form), n <= EIGEN_MAX_N, re[i] + i·im[i] in no particular order, complex pairs adjacent. 0, or -1 when the
 * iteration did not converge (60 sweeps for one eigenvalue; not seen on real matrices). */
int eigen_values(double *a, int n, double *re, double *im);

#endif
