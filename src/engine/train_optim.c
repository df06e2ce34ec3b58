/* train_optim.c - AdamW, the learning-rate schedule, and BERT-style masking of a sentence. */
/* As before the split: the trainer's files are built at -O3 (vectorised elementwise loops;
 * no change to any rounding). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#include <math.h>
#include <string.h>

#include "train.h"

/* ======================= optimiser ======================= */

void train_opts_defaults(TrainOpts *o)
{
    memset(o, 0, sizeof *o);
    o->steps = 1000;
    o->batch = 16;
    o->seq_len = 32;
    o->lr = 3e-3f;
    o->min_lr_ratio = 0.1f;
    o->warmup = 50;
    o->weight_decay = 0.01f;
    o->beta1 = 0.9f;
    o->beta2 = 0.99f;
    o->eps = 1e-8f;
    o->clip = 1.0f;
    o->causal = 1;
    o->mask_rate = 0.15f;
    o->threads = 2;
    o->seed = 1;
}

float train_lr_at(const TrainOpts *o, int step)
{
    if (o->warmup > 0 && step < o->warmup)
        return o->lr * (float)(step + 1) / (float)o->warmup;
    int rest = o->steps - o->warmup;
    if (rest <= 1)
        return o->lr;
    float prog = (float)(step - o->warmup) / (float)(rest - 1);
    if (prog > 1.0f)
        prog = 1.0f;
    float cosv = 0.5f * (1.0f + cosf(3.14159265358979f * prog));
    return o->lr * (o->min_lr_ratio + (1.0f - o->min_lr_ratio) * cosv);
}

void train_adamw(float *w, const float *g, float *mom, float *vel, const unsigned char *decay,
                 size_t n, int t, float lr, const TrainOpts *o)
{
    float b1 = o->beta1, b2 = o->beta2;
    float bc1 = 1.0f - powf(b1, (float)t), bc2 = 1.0f - powf(b2, (float)t);
    for (size_t i = 0; i < n; i++) {
        if (decay[i])
            w[i] -= lr * o->weight_decay * w[i];
        mom[i] = b1 * mom[i] + (1.0f - b1) * g[i];
        vel[i] = b2 * vel[i] + (1.0f - b2) * g[i] * g[i];
        float mh = mom[i] / bc1, vh = vel[i] / bc2;
        w[i] -= lr * mh / (sqrtf(vh) + o->eps);
    }
}

/* ======================= masked language modelling ======================= */

int train_mask_id(const Model *m)
{
    int id = vocab_id(&m->vocab, "<mask>");
    return id >= 0 ? id : m->vocab.unk_id;
}

int train_mlm_mask(CorpusRng *rng, const int *ids, int n, float rate, int mask_id,
                   const int *pool, int n_pool, int *src, int *tgt)
{
    double cut = (double)rate * 4294967296.0;
    int chosen = 0;
    for (int i = 0; i < n; i++) {
        src[i] = ids[i];
        tgt[i] = -1;
        if ((double)corpus_rng_next(rng) < cut) {
            tgt[i] = ids[i];
            chosen++;
        }
    }
    if (!chosen && n > 0) {
        int i = (int)(corpus_rng_next(rng) % (uint32_t)n);
        tgt[i] = ids[i];
        chosen = 1;
    }
    for (int i = 0; i < n; i++) {
        if (tgt[i] < 0)
            continue;
        uint32_t r = corpus_rng_next(rng) % 10u;
        if (r == 8 && pool && n_pool > 0)
            src[i] = pool[corpus_rng_next(rng) % (uint32_t)n_pool];
        else if (r < 9)
            src[i] = mask_id;
        /* r == 9: the word stays, so the model must also check words it can see */
    }
    return chosen;
}

