/* lab_way.h - a lab's functions computed a chosen way: right, or with misconceptions
 * (lab_way.c); the catalogue of misconceptions that names them (lab_catalogue.c). */
#ifndef ATTEND_LAB_WAY_H
#define ATTEND_LAB_WAY_H

#include "lab.h"

/* Each field 0 is the right way; the other values are the misconceptions of its kind. */
enum { SC_RIGHT, SC_NONE, SC_DK, SC_SQRT_DV, SC_SQRT_DMODEL, SC_TIMES };
enum { OR_RIGHT, OR_KQ, OR_QK, OR_WT };
enum {
    MK_RIGHT, MK_AFTER, MK_AFTER_ZERO, MK_ZERO, MK_IGNORED, MK_FINITE, MK_LOWER, MK_DIAG,
    MK_KEEP
};
enum { SM_RIGHT, SM_NAIVE, SM_NANROW };
enum { HD_RIGHT, HD_RESHAPE, HD_INTERLEAVE, HD_REVERSE, HD_NO_WO };
enum { NM_RIGHT, NM_LAYER, NM_NO_EPS, NM_EPS_OUT, NM_NO_GAIN, NM_EPS6 };
enum { FF_RIGHT, FF_NO_GATE, FF_GATE_SWAP, FF_RELU, FF_GELU, FF_GELU_ERF, FF_SIGMOID };
enum { RS_RIGHT, RS_NO1, RS_NO2, RS_NONE, RS_POST, RS_NORMED };
enum {
    PS_RIGHT, PS_V_ONLY, PS_QK_ONLY, PS_FROM1, PS_AFTER, PS_NONE, PS_SWAP, PS_EXP_HALF,
    PS_EXP_ODD, PS_CONCAT
};
enum { KV_RIGHT, KV_BEFORE, KV_DROP_FIRST, KV_Q, KV_NONE };

/* (struct LabWay is in lab.h: a LabMistake holds one.) */

/* Computes case c of lab (its name) the way w into outs (allocated like c->want; the caller
 * frees them). 0; 1 when the way needs shapes the case does not have; -1 out of memory. */
int lab_way_run(const char *lab, const LabWay *w, const LabCase *c, LabArray *outs);

#endif
