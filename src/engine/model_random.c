/* model_random.c - a model's seeded random weights (model_init_random, see model.h): the
 * project's own generator, so a seed gives the same model on every machine. */
#include "model.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* xorshift64* and Box-Muller: the project's own seeded generator. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static double rng_uniform(uint64_t *s) /* (0, 1) */
{
    return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(uint64_t *s)
{
    double u1 = rng_uniform(s), u2 = rng_uniform(s);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

void model_init_random(Model *m, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
    if (s == 0)
        s = 1;
    for (int i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        float *x = m->data + p->offset;
        size_t len = (size_t)p->rows * p->cols;
        double std;
        if (ends_with(p->name, ".gain")) {
            for (size_t k = 0; k < len; k++) x[k] = 1.0f;
            continue;
        }
        if (ends_with(p->name, ".bias") || ends_with(p->name, ".b1") || ends_with(p->name, ".b2")) {
            for (size_t k = 0; k < len; k++) x[k] = 0.0f;
            continue;
        }
        if (strcmp(p->name, "tok_embed") == 0 || strcmp(p->name, "pos_embed") == 0)
            std = 1.0;
        else
            std = 1.0 / sqrt((double)p->rows); /* fan-in */
        for (size_t k = 0; k < len; k++)
            x[k] = (float)(std * rng_normal(&s));
    }
}
