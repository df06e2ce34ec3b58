/* lab_util.c - what the lab files share: the seeded numbers, float views of the arrays for
 * the engine, and the helpers that add arguments and outputs to a case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_util.h"

double lab_rand(LabRng *r, double scale)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    double u = (double)(z >> 11) / 9007199254740992.0; /* [0, 1) */
    return (double)(float)((2.0 * u - 1.0) * scale);
}

void lab_fill(LabArray *a, LabRng *r, double scale)
{
    for (size_t i = 0; i < a->len; i++)
        a->v[i] = lab_rand(r, scale);
}

float *lab_floats(const LabArray *a)
{
    float *x = malloc(sizeof *x * (a->len ? a->len : 1));
    for (size_t i = 0; x && i < a->len; i++)
        x[i] = (float)a->v[i];
    return x;
}

void lab_from_floats(LabArray *a, const float *x)
{
    for (size_t i = 0; i < a->len; i++)
        a->v[i] = x[i];
}

LabArray *lab_arg(LabCase *c, const char *name, int ndim, int d0, int d1, int d2)
{
    if (c->n_args >= LAB_MAX_ARGS)
        return NULL;
    LabArray *a = &c->args[c->n_args++];
    return lab_array_alloc(a, name, ndim, d0, d1, d2) ? NULL : a;
}

LabArray *lab_out(LabCase *c, const char *name, int ndim, int d0, int d1, int d2)
{
    if (c->n_outs >= LAB_MAX_OUTS)
        return NULL;
    LabArray *a = &c->want[c->n_outs++];
    return lab_array_alloc(a, name, ndim, d0, d1, d2) ? NULL : a;
}

void lab_arg_int(LabCase *c, const char *name, long v)
{
    if (c->n_args >= LAB_MAX_ARGS)
        return;
    LabArray *a = &c->args[c->n_args++];
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->kind = LAB_INT;
    a->ival = v;
}

void lab_arg_none(LabCase *c, const char *name)
{
    if (c->n_args >= LAB_MAX_ARGS)
        return;
    LabArray *a = &c->args[c->n_args++];
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->kind = LAB_NONE;
}

const LabArray *lab_case_arg(const LabCase *c, const char *name)
{
    for (int i = 0; i < c->n_args; i++)
        if (!strcmp(c->args[i].name, name))
            return &c->args[i];
    return NULL;
}

int lab_outs_like(const LabCase *c, LabArray *outs)
{
    for (int i = 0; i < c->n_outs; i++) {
        const LabArray *w = &c->want[i];
        if (lab_array_alloc(&outs[i], w->name, w->ndim, w->dim[0], w->dim[1], w->dim[2]))
            return -1;
    }
    return 0;
}

