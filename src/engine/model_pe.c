/* model_pe.c - the positional encodings' formulas: the sinusoid table's values and RoPE's
 * rotation (its angles stretched by the config's rope_scaling). */
#include <assert.h>
#include <math.h>

#include "attend_limits.h"
#include "model.h"

float model_sinusoid(int pos, int i, int d)
{
    double k = (double)(i / 2 * 2) / (double)d;
    double angle = (double)pos / pow(10000.0, k);
    return (float)(i % 2 == 0 ? sin(angle) : cos(angle));
}

/* RoPE's angle per position of pair i of a d_head-wide head: rope_base^(−2i/dh), stretched by
 * cfg's rope_scaling (linear: divided by the factor; llama3: Hugging Face's blend). */
static double model_rope_theta(const ModelConfig *c, int i, int dh)
{
    double theta = pow((double)c->rope_base, -2.0 * i / dh);
    if (c->rope_scaling == ROPE_SCALE_LINEAR)
        return theta / c->rope_factor;
    if (c->rope_scaling == ROPE_SCALE_LLAMA3) {
        /* Hugging Face's _compute_llama3_parameters: long wavelengths slowed by the factor,
         * short ones kept, the band between blended. */
        double old = c->rope_orig_max, lo = c->rope_low_freq, hi = c->rope_high_freq;
        double wavelen = 2.0 * M_PI / theta;
        if (wavelen > old / lo)
            return theta / c->rope_factor;
        if (wavelen < old / hi)
            return theta;
        double smooth = (old / wavelen - lo) / (hi - lo);
        return (1.0 - smooth) * theta / c->rope_factor + smooth * theta;
    }
    return theta;
}

void model_rope_apply(float *x, int n, int dh, const ModelConfig *c)
{
    double theta[ATTEND_MAX_D_HEAD / 2];
    assert(dh <= ATTEND_MAX_D_HEAD); /* model_config_check bounds d_head */
    for (int i = 0; i < dh / 2; i++)
        theta[i] = model_rope_theta(c, i, dh);
    int half = c->rope_half ? dh / 2 : 1, step = c->rope_half ? 1 : 2;
    for (int pos = 0; pos < n; pos++) {
        float *r = x + (size_t)pos * dh;
        for (int i = 0; i < dh / 2; i++) {
            double a = pos * theta[i], cs = cos(a), sn = sin(a);
            float *p0 = r + i * step, *p1 = p0 + half;
            float x0 = *p0, x1 = *p1;
            *p0 = (float)(x0 * cs - x1 * sn);
            *p1 = (float)(x0 * sn + x1 * cs);
        }
    }
}

