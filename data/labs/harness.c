/* harness.c - attend's lab harness for C: attend compiles it with the learner's file
 *   cc -std=c11 -O1 -DLAB_ATTENTION harness.c LEARNER.c -lm     (or -DLAB_SOFTMAX)
 * runs the program with the cases on stdin, and reads the results from file descriptor 3
 * (formats in docs/labs.md). Outputs start as NaN, so a cell never written shows as NaN. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef LAB_SOFTMAX
void softmax(const double *X, int n, int m, double *out);
#endif
#ifdef LAB_ATTENTION
void attention(const double *Q, const double *K, const double *V, const double *mask, int n,
               int m, int d_k, int d_v, double *out, double *weights);
#endif

#define MAX_ARGS 12

typedef struct {
    int none, dims[3], ndim;
    long ival;
    double *v;
} Arg;

static FILE *res;

static int word(char *w, size_t n) { return scanf("%63s", w) == 1 && strlen(w) < n; }

static int read_arg(Arg *a)
{
    char w[64], kind[64];
    memset(a, 0, sizeof *a);
    if (!word(w, sizeof w) || strcmp(w, "arg") || !word(w, sizeof w) || !word(kind, sizeof kind))
        return -1;
    if (!strcmp(kind, "none"))
        return a->none = 1, 0;
    if (!strcmp(kind, "int"))
        return scanf("%ld", &a->ival) == 1 ? 0 : -1;
    if (scanf("%d", &a->ndim) != 1 || a->ndim < 1 || a->ndim > 3)
        return -1;
    size_t len = 1;
    for (int i = 0; i < a->ndim; i++) {
        if (scanf("%d", &a->dims[i]) != 1 || a->dims[i] < 0 || a->dims[i] > 4096)
            return -1;
        len *= (size_t)a->dims[i];
    }
    a->v = malloc(sizeof *a->v * (len + 1));
    for (size_t i = 0; a->v && i < len; i++) {
        if (!word(w, sizeof w))
            return -1;
        a->v[i] = strtod(w, NULL);
    }
    return a->v ? 0 : -1;
}

static void put(const char *name, const double *x, int r, int c)
{
    fprintf(res, "%s 2 %d %d\n", name, r, c);
    for (int i = 0; i < r * c; i++)
        fprintf(res, i ? " %.17g" : "%.17g", x[i]);
    fprintf(res, "\n");
}

static double *nans(int n)
{
    double *x = malloc(sizeof *x * (size_t)(n > 0 ? n : 1));
    for (int i = 0; x && i < n; i++)
        x[i] = NAN;
    return x;
}

static void run(int i, const char *func, Arg *a, int n_args)
{
#ifdef LAB_SOFTMAX
    if (!strcmp(func, "softmax") && n_args == 1) {
        int n = a[0].dims[0], m = a[0].dims[1];
        double *out = nans(n * m);
        softmax(a[0].v, n, m, out);
        fprintf(res, "case %d ok 1\n", i);
        put("out", out, n, m);
        free(out);
        return;
    }
#endif
#ifdef LAB_ATTENTION
    if (!strcmp(func, "attention") && n_args == 4) {
        int n = a[0].dims[0], dk = a[0].dims[1], m = a[1].dims[0], dv = a[2].dims[1];
        double *out = nans(n * dv), *w = nans(n * m);
        attention(a[0].v, a[1].v, a[2].v, a[3].none ? NULL : a[3].v, n, m, dk, dv, out, w);
        fprintf(res, "case %d ok 2\n", i);
        put("out", out, n, dv);
        put("weights", w, n, m);
        free(out);
        free(w);
        return;
    }
#endif
    (void)a;
    (void)n_args;
    fprintf(res, "case %d error this C harness has no function %s\n", i, func);
}

int main(void)
{
    char w[64], func[64], mode[64];
    int n = 0, idx, n_args, n_outs;
    res = fdopen(3, "w");
    if (!res)
        return 2;
    fprintf(res, "attend-lab-result 1\n");
    if (scanf("attend-lab 1 lab %63s torch %*d cases %d", w, &n) != 2) {
        fprintf(res, "fatal harness cannot read the cases\n");
        return 0;
    }
    for (int i = 0; i < n; i++) {
        Arg a[MAX_ARGS];
        if (scanf(" case %d %63s %63s %d %d", &idx, func, mode, &n_args, &n_outs) != 5 ||
            n_args > MAX_ARGS) {
            fprintf(res, "fatal harness cannot read case %d\n", i);
            return 0;
        }
        int ok = 1;
        for (int k = 0; k < n_args; k++)
            ok = ok && read_arg(&a[k]) == 0;
        if (!ok) {
            fprintf(res, "fatal harness cannot read case %d\n", i);
            return 0;
        }
        fflush(res);
        run(i, func, a, n_args);
        fflush(res);
        for (int k = 0; k < n_args; k++)
            free(a[k].v);
    }
    fprintf(res, "end\n");
    fclose(res);
    return 0;
}
