/* lab_util.h - what the lab files share below lab.h: the seeded numbers, float views of
 * the arrays for the engine, the cases of each lab and the mistakes it recognises. */
#ifndef ATTEND_LAB_UTIL_H
#define ATTEND_LAB_UTIL_H

#include <stdint.h>

#include "lab.h"

/* A seeded generator (splitmix64): the same cases on every machine. */
typedef struct {
    uint64_t s;
} LabRng;
/* A float in [-1, 1) times scale, rounded to a float (the engine's precision). */
double lab_rand(LabRng *r, double scale);
/* Fills a with lab_rand(r, scale). */
void lab_fill(LabArray *a, LabRng *r, double scale);
/* a's values as floats (caller frees), NULL on memory. */
float *lab_floats(const LabArray *a);
/* Copies n floats into a's values. */
void lab_from_floats(LabArray *a, const float *x);
/* The next argument or output slot of c, named and shaped. NULL on memory. */
LabArray *lab_arg(LabCase *c, const char *name, int ndim, int d0, int d1, int d2);
LabArray *lab_out(LabCase *c, const char *name, int ndim, int d0, int d1, int d2);
/* An integer argument and a None argument. */
void lab_arg_int(LabCase *c, const char *name, long v);
void lab_arg_none(LabCase *c, const char *name);
/* The case's argument named name, or NULL. */
const LabArray *lab_case_arg(const LabCase *c, const char *name);
/* Allocates outs like c->want (shapes and names); 0 or -1. */
int lab_outs_like(const LabCase *c, LabArray *outs);

/* Attention of one head by the engine (model_sdpa): q (n, dk), k (m, dk), v (m, dv), mask
 * (n, m) or NULL; out (n, dv) and w (n, m), either may be NULL. 0, or -1 out of memory. */
int lab_attend(const float *q, const float *k, const float *v, const float *mask, int n, int m,
               int dk, int dv, float scale, float *out, float *w);

/* lab_cases.c */
int lab_make_softmax(LabCases *lc);
int lab_make_attention(LabCases *lc);
int lab_make_masks(LabCases *lc);
int lab_make_kvcache(LabCases *lc);
/* lab_block.c */
int lab_make_multihead(LabCases *lc);
int lab_make_block(LabCases *lc);
int lab_make_positions(LabCases *lc);
/* A few words after a pass of the positions lab: the equivariance measured on the learner's
 * own outputs. */
void lab_note_positions(const LabCases *lc, const LabResult *r, char *out, size_t outlen);

#endif
