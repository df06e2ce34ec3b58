/* train.c - the Trainer (see train.h): batches sampled from a corpus, the batch's examples
 * run over worker threads, one optimisation step, and the evaluation loss. */
/* As before the split: the trainer's files are built at -O3 (vectorised elementwise loops;
 * no change to any rounding). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

#include "train.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ======================= the Trainer ======================= */

#define N_HALVES 2 /* the batch is always split in two halves: same sums for 1 or 2 threads */
_Static_assert(N_HALVES == 2, "run_step runs half 1 on the second thread");

typedef struct {
    Trainer *t;
    int half;
    TrainWork *w;
    float *grad;
    double loss;
    int count;
    int bad;
    double ss;     /* Σ g² over this half's part of the summed gradient */
} Half;

struct Trainer {
    Model *m;
    const Corpus *c;
    TrainOpts o;
    CorpusRng rng;
    int step;
    float loss, lr, gnorm;
    long tokens;
    float *grad;          /* (n_floats) summed gradient */
    float *mom, *vel;     /* AdamW state */
    unsigned char *decay; /* (n_floats) */
    int *ex_src, *ex_dec, *ex_tgt;  /* (batch, max_len) example buffers */
    int *ex_n, *ex_m;
    int cur_batch;        /* examples in the current step */
    int bos, eos;
    int mlm, mask_id;     /* encoder: masked-LM training with this mask token */
    int *pool, n_pool;    /* the repeated-sequence task's tokens (repeat_pool) */
    Half halves[N_HALVES];
    /* With 2 threads: one worker for the whole run (not one per step: creating a thread, and
     * landing on a core whose caches hold none of its half's buffers, cost a step 5-10%). */
    pthread_t worker;
    int worker_ok;
    pthread_mutex_t go_mu;
    pthread_cond_t go_cv;
    atomic_int go;         /* bumped for each step (and once more, with quit set, at the end) */
    atomic_int quit;
    atomic_int bar_arrived, bar_phase; /* the phases' meeting point (see pair_wait) */
    char err[256];
};

static void sample_batch(Trainer *t)
{
    const Corpus *c = t->c;
    int L = t->m->cfg.max_len;
    for (int b = 0; b < t->o.batch; b++) {
        int *src = t->ex_src + (size_t)b * L, *dec = t->ex_dec + (size_t)b * L;
        int *tgt = t->ex_tgt + (size_t)b * L;
        if (t->o.repeat.on) {
            repeat_example(&t->rng, &t->o.repeat, t->pool, t->n_pool, t->bos, t->o.seq_len,
                           src, tgt, NULL);
            t->ex_n[b] = t->o.seq_len;
            t->ex_m[b] = 0;
        } else if (t->mlm) {
            /* one sentence, BERT-masked */
            int line = (int)(corpus_rng_next(&t->rng) % (uint32_t)c->n_lines);
            int start = c->starts[line];
            int end = line + 1 < c->n_lines ? c->starts[line + 1] : c->n_ids;
            int len = end - start < L ? end - start : L;
            train_mlm_mask(&t->rng, c->ids + start, len, t->o.mask_rate, t->mask_id, c->ids,
                           c->n_ids, src, tgt);
            t->ex_n[b] = len;
            t->ex_m[b] = 0;
        } else if (c->kind == CORPUS_LM) {
            int len = t->o.seq_len;
            int line = (int)(corpus_rng_next(&t->rng) % (uint32_t)c->n_lines);
            int start = c->starts[line];
            if (start + len + 1 > c->n_ids)
                start = c->n_ids - len - 1;
            if (start < 0) {
                start = 0;
                len = c->n_ids - 1;
            }
            for (int i = 0; i < len; i++) {
                src[i] = c->ids[start + i];
                tgt[i] = c->ids[start + i + 1];
            }
            t->ex_n[b] = len;
            t->ex_m[b] = 0;
        } else {
            int p = (int)(corpus_rng_next(&t->rng) % (uint32_t)c->n_pairs);
            const CorpusPair *cp = &c->pairs[p];
            int n = cp->src_len < L ? cp->src_len : L;
            int mm_ = cp->tgt_len + 1 < L ? cp->tgt_len + 1 : L;
            memcpy(src, c->ids + cp->src_off, sizeof(int) * (size_t)n);
            dec[0] = t->bos;
            for (int i = 1; i < mm_; i++)
                dec[i] = c->ids[cp->tgt_off + i - 1];
            for (int i = 0; i < mm_; i++)
                tgt[i] = i < cp->tgt_len ? c->ids[cp->tgt_off + i] : t->eos;
            t->ex_n[b] = n;
            t->ex_m[b] = mm_;
        }
    }
}

/* Phase 1: the half's examples, forward and backward, into its own gradient. */
static void half_examples(Half *h)
{
    Trainer *t = h->t;
    int L = t->m->cfg.max_len;
    int per = (t->cur_batch + N_HALVES - 1) / N_HALVES;
    int b0 = h->half * per, b1 = b0 + per < t->cur_batch ? b0 + per : t->cur_batch;
    memset(h->grad, 0, sizeof(float) * t->m->n_floats);
    h->loss = 0.0;
    h->count = 0;
    h->bad = 0;
    for (int b = b0; b < b1; b++) {
        TrainExample ex = {t->ex_src + (size_t)b * L, t->ex_n[b], t->ex_dec + (size_t)b * L,
                           t->ex_m[b], t->ex_tgt + (size_t)b * L};
        int cnt;
        double l = train_forward_backward(t->m, h->w, &ex, t->o.causal, h->grad, &cnt);
        if (l < 0.0) {
            h->bad = 1;
            return;
        }
        h->loss += l;
        h->count += cnt;
    }
}

/* The target tokens of the step, or 0 when an example was bad or none had a target (then
 * nothing more is done; run_step says why). Read-only: both threads may ask. */
static int step_count(const Trainer *t)
{
    int count = 0;
    for (int h = 0; h < N_HALVES; h++) {
        if (t->halves[h].bad)
            return 0;
        count += t->halves[h].count;
    }
    return count;
}

/* Part `part` of the parameters (N_HALVES parts, whatever the number of threads). */
static void part_range(const Trainer *t, int part, size_t *i0, size_t *i1)
{
    size_t nf = t->m->n_floats, per = (nf + N_HALVES - 1) / N_HALVES;
    per = (per + 15) & ~(size_t)15;
    *i0 = (size_t)part * per < nf ? (size_t)part * per : nf;
    *i1 = *i0 + per < nf ? *i0 + per : nf;
}

/* Phase 2: the summed, averaged gradient of one part, and its Σ g² (in order, in double). */
static void part_reduce(Trainer *t, int part)
{
    int count = step_count(t);
    size_t i0, i1;
    part_range(t, part, &i0, &i1);
    double ss = 0.0;
    if (count > 0) {
        float inv = 1.0f / (float)count;
        for (size_t i = i0; i < i1; i++) {
            float g = t->halves[0].grad[i];
            for (int h = 1; h < N_HALVES; h++)
                g += t->halves[h].grad[i];
            g *= inv;
            t->grad[i] = g;
            ss += (double)g * g;
        }
    }
    t->halves[part].ss = ss;
}

/* The gradient's norm: the parts' sums of squares added in order. */
static float step_norm(const Trainer *t)
{
    double ss = 0.0;
    for (int h = 0; h < N_HALVES; h++)
        ss += t->halves[h].ss;
    return (float)sqrt(ss);
}

/* Phase 3: clipping and the AdamW update of one part (elementwise: any split, same bits). */
static void part_update(Trainer *t, int part)
{
    float norm = step_norm(t);
    if (step_count(t) == 0 || !isfinite(norm))
        return;
    size_t i0, i1;
    part_range(t, part, &i0, &i1);
    if (t->o.clip > 0.0f && norm > t->o.clip) {
        float s = t->o.clip / norm;
        for (size_t i = i0; i < i1; i++)
            t->grad[i] *= s;
    }
    float lr = train_lr_at(&t->o, t->step);
    train_adamw(t->m->data + i0, t->grad + i0, t->mom + i0, t->vel + i0, t->decay + i0,
                i1 - i0, t->step + 1, lr, &t->o);
}

/* ======================= the two threads ======================= */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* About half a millisecond of pause instructions: the other thread is normally a few
 * microseconds behind, and a futex wake-up costs more than that on a virtual machine. */
#define SPINS 20000

/* The two threads meet between a step's phases. A phase lasts a millisecond or so, so the
 * wait spins (then yields, should the other thread have lost its core) instead of sleeping. */
static void pair_wait(Trainer *t)
{
    int ph = atomic_load_explicit(&t->bar_phase, memory_order_acquire);
    if (atomic_fetch_add_explicit(&t->bar_arrived, 1, memory_order_acq_rel) == N_HALVES - 1) {
        atomic_store_explicit(&t->bar_arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&t->bar_phase, ph + 1, memory_order_release);
        return;
    }
    for (long n = 0; atomic_load_explicit(&t->bar_phase, memory_order_acquire) == ph; n++) {
        if (n < SPINS)
            cpu_relax();
        else
            sched_yield();
    }
}

/* The worker's share of a step: half 1 of the examples, then part 1 of the parameters. */
static void worker_step(Trainer *t)
{
    half_examples(&t->halves[1]);
    pair_wait(t);
    part_reduce(t, 1);
    pair_wait(t);
    part_update(t, 1);
    pair_wait(t);
}

/* The worker waits for the next step: spinning first (steps follow each other closely while
 * training runs), then asleep (between the player's slices, or a paused run, it costs nothing). */
static void *worker_main(void *arg)
{
    Trainer *t = arg;
    int seen = 0;
    for (;;) {
        int go = atomic_load_explicit(&t->go, memory_order_acquire);
        for (long n = 0; go == seen && n < SPINS; n++) {
            cpu_relax();
            go = atomic_load_explicit(&t->go, memory_order_acquire);
        }
        if (go == seen) {
            pthread_mutex_lock(&t->go_mu);
            while ((go = atomic_load_explicit(&t->go, memory_order_acquire)) == seen)
                pthread_cond_wait(&t->go_cv, &t->go_mu);
            pthread_mutex_unlock(&t->go_mu);
        }
        seen = go;
        if (atomic_load_explicit(&t->quit, memory_order_acquire))
            return NULL;
        worker_step(t);
    }
}

static void worker_post(Trainer *t)
{
    pthread_mutex_lock(&t->go_mu);
    atomic_fetch_add_explicit(&t->go, 1, memory_order_release);
    pthread_cond_signal(&t->go_cv);
    pthread_mutex_unlock(&t->go_mu);
}

Trainer *train_new(Model *m, const Corpus *c, const TrainOpts *o, int init, char *err,
                   size_t errlen)
{
    const ModelConfig *mc = &m->cfg;
    if (o->repeat.on) {
        if (mc->arch != ARCH_DECODER) {
            snprintf(err, errlen, "the repeated-sequence task needs a decoder");
            return NULL;
        }
        if (o->seq_len < 1 || o->seq_len > mc->max_len ||
            repeat_check(&o->repeat, o->seq_len, err, errlen))
            return NULL;
    } else if (!c) {
        snprintf(err, errlen, "no corpus to train on");
        return NULL;
    } else if ((mc->arch == ARCH_ENCDEC) != (c->kind == CORPUS_PAIRS)) {
        snprintf(err, errlen, "a%s model needs a %s corpus",
                 mc->arch == ARCH_ENCDEC ? "n encoder-decoder" : " decoder or encoder",
                 mc->arch == ARCH_ENCDEC ? "sentence-pair" : "text");
        return NULL;
    }
    if (mc->arch == ARCH_ENCODER && !(o->mask_rate > 0.0f && o->mask_rate <= 1.0f)) {
        snprintf(err, errlen, "bad training options: mask_rate %g (an encoder needs 0 < "
                 "mask_rate <= 1)", (double)o->mask_rate);
        return NULL;
    }
    if (o->steps < 1 || o->batch < 1 || o->lr <= 0.0f || o->seq_len < 1 ||
        o->seq_len > mc->max_len) {
        snprintf(err, errlen, "bad training options: steps %d, batch %d, lr %g, seq_len %d "
                 "(max_len %d)", o->steps, o->batch, (double)o->lr, o->seq_len, mc->max_len);
        return NULL;
    }
    if (!o->repeat.on && c->kind == CORPUS_LM && c->n_ids < 2) {
        snprintf(err, errlen, "the corpus is too short");
        return NULL;
    }
    Trainer *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->m = m;
    t->c = c;
    t->o = *o;
    if (t->o.threads < 1)
        t->o.threads = 1;
    if (t->o.threads > N_HALVES)
        t->o.threads = N_HALVES;
    corpus_rng_seed(&t->rng, o->seed);
    t->bos = vocab_id(&m->vocab, "<bos>");
    t->eos = vocab_id(&m->vocab, "<eos>");
    t->mlm = mc->arch == ARCH_ENCODER;
    t->mask_id = train_mask_id(m);
    if (c && c->kind == CORPUS_PAIRS && (t->bos < 0 || t->eos < 0)) {
        snprintf(err, errlen, "the vocabulary needs <bos> and <eos> for translation");
        free(t);
        return NULL;
    }
    size_t nf = m->n_floats, L = (size_t)mc->max_len, B = (size_t)o->batch;
    t->grad = calloc(nf, sizeof(float));
    t->mom = calloc(nf, sizeof(float));
    t->vel = calloc(nf, sizeof(float));
    t->decay = calloc(nf, 1);
    t->ex_src = calloc(B * L, sizeof(int));
    t->ex_dec = calloc(B * L, sizeof(int));
    t->ex_tgt = calloc(B * L, sizeof(int));
    t->ex_n = calloc(B, sizeof(int));
    t->ex_m = calloc(B, sizeof(int));
    int ok = t->grad && t->mom && t->vel && t->decay && t->ex_src && t->ex_dec && t->ex_tgt &&
             t->ex_n && t->ex_m;
    if (ok && o->repeat.on) {
        t->n_pool = repeat_pool(&m->vocab, NULL, 0);
        t->pool = t->n_pool > 0 ? calloc((size_t)t->n_pool, sizeof(int)) : NULL;
        if (t->n_pool < 1) {
            snprintf(err, errlen, "the vocabulary has no ordinary words to repeat");
            train_free(t);
            return NULL;
        }
        ok = t->pool != NULL;
        if (ok)
            repeat_pool(&m->vocab, t->pool, t->n_pool);
    }
    for (int h = 0; ok && h < N_HALVES; h++) {
        t->halves[h].t = t;
        t->halves[h].half = h;
        t->halves[h].w = train_work_new(m, mc->max_len, mc->max_len);
        t->halves[h].grad = calloc(nf, sizeof(float));
        ok = t->halves[h].w && t->halves[h].grad;
    }
    if (!ok) {
        snprintf(err, errlen, "out of memory");
        train_free(t);
        return NULL;
    }
    /* matrices decay; gains, biases and an unused pos_embed do not */
    for (int i = 0; i < m->n_params; i++)
        if (m->params[i].rows > 1 &&
            (mc->pe == PE_LEARNED || strcmp(m->params[i].name, "pos_embed") != 0))
            memset(t->decay + m->params[i].offset, 1,
                   (size_t)m->params[i].rows * (size_t)m->params[i].cols);
    if (init)
        model_init_random(m, o->seed);
    /* the worker (after everything it reads is in place); without it, one thread does all */
    if (t->o.threads > 1 && pthread_mutex_init(&t->go_mu, NULL) == 0) {
        if (pthread_cond_init(&t->go_cv, NULL) == 0) {
            t->worker_ok = pthread_create(&t->worker, NULL, worker_main, t) == 0;
            if (!t->worker_ok)
                pthread_cond_destroy(&t->go_cv);
        }
        if (!t->worker_ok)
            pthread_mutex_destroy(&t->go_mu);
    }
    return t;
}

static int run_step(Trainer *t);

int train_step(Trainer *t)
{
    if (t->step >= t->o.steps)
        return 1;
    sample_batch(t);
    t->cur_batch = t->o.batch;
    return run_step(t);
}

int train_step_on(Trainer *t, const TrainExample *ex, int n_ex)
{
    int L = t->m->cfg.max_len;
    if (n_ex < 1 || n_ex > t->o.batch) {
        snprintf(t->err, sizeof t->err, "%d examples for a batch of at most %d", n_ex,
                 t->o.batch);
        return -1;
    }
    int encdec = t->m->cfg.arch == ARCH_ENCDEC;
    for (int b = 0; b < n_ex; b++) {
        int rows = encdec ? ex[b].m : ex[b].n;
        if (ex[b].n < 1 || ex[b].n > L || rows < 1 || rows > L) {
            snprintf(t->err, sizeof t->err, "example %d is longer than max_len %d or empty", b, L);
            return -1;
        }
        memcpy(t->ex_src + (size_t)b * L, ex[b].src, sizeof(int) * (size_t)ex[b].n);
        if (encdec)
            memcpy(t->ex_dec + (size_t)b * L, ex[b].dec, sizeof(int) * (size_t)ex[b].m);
        memcpy(t->ex_tgt + (size_t)b * L, ex[b].targets, sizeof(int) * (size_t)rows);
        t->ex_n[b] = ex[b].n;
        t->ex_m[b] = encdec ? ex[b].m : 0;
    }
    t->cur_batch = n_ex;
    return run_step(t);
}

const float *train_last_grad(const Trainer *t) { return t->grad; }

static int run_step(Trainer *t)
{
    if (t->worker_ok) { /* N_HALVES is 2: this thread does half 0 and part 0 */
        worker_post(t);
        half_examples(&t->halves[0]);
        pair_wait(t);
        part_reduce(t, 0);
        pair_wait(t);
        part_update(t, 0);
        pair_wait(t); /* the worker has finished its part too */
    } else {
        for (int h = 0; h < N_HALVES; h++)
            half_examples(&t->halves[h]);
        for (int h = 0; h < N_HALVES; h++)
            part_reduce(t, h);
        for (int h = 0; h < N_HALVES; h++)
            part_update(t, h);
    }
    double loss = 0.0;
    int count = step_count(t);
    for (int h = 0; h < N_HALVES; h++) {
        if (t->halves[h].bad) {
            snprintf(t->err, sizeof t->err, "an example is longer than max_len or has a bad id");
            return -1;
        }
        loss += t->halves[h].loss;
    }
    if (count == 0) {
        snprintf(t->err, sizeof t->err, "a batch without any target token");
        return -1;
    }
    float norm = step_norm(t);
    if (!isfinite(norm)) {
        snprintf(t->err, sizeof t->err, "the gradient is not finite at step %d", t->step + 1);
        return -1;
    }
    float lr = train_lr_at(&t->o, t->step);
    t->step++;
    t->loss = (float)(loss / count);
    t->lr = lr;
    t->gnorm = norm;
    t->tokens += count;
    return 0;
}

int train_step_count(const Trainer *t) { return t->step; }
float train_last_loss(const Trainer *t) { return t->loss; }
float train_last_lr(const Trainer *t) { return t->lr; }
float train_last_grad_norm(const Trainer *t) { return t->gnorm; }
long train_tokens_done(const Trainer *t) { return t->tokens; }
const char *train_error(const Trainer *t) { return t->err; }

void train_free(Trainer *t)
{
    if (!t)
        return;
    if (t->worker_ok) {
        atomic_store_explicit(&t->quit, 1, memory_order_release);
        worker_post(t);
        pthread_join(t->worker, NULL);
        pthread_cond_destroy(&t->go_cv);
        pthread_mutex_destroy(&t->go_mu);
    }
    for (int h = 0; h < N_HALVES; h++) {
        train_work_free(t->halves[h].w);
        free(t->halves[h].grad);
    }
    free(t->grad);
    free(t->mom);
    free(t->vel);
    free(t->decay);
    free(t->ex_src);
    free(t->ex_dec);
    free(t->ex_tgt);
    free(t->ex_n);
    free(t->ex_m);
    free(t->pool);
    free(t);
}

double train_eval_loss(const Model *m, const Corpus *c, const TrainOpts *o, int causal,
                       int max_examples)
{
    int L = m->cfg.max_len;
    TrainWork *w = train_work_new(m, L, L);
    int *src = malloc(sizeof(int) * (size_t)L), *dec = malloc(sizeof(int) * (size_t)L);
    int *tgt = malloc(sizeof(int) * (size_t)L);
    int bos = vocab_id(&m->vocab, "<bos>"), eos = vocab_id(&m->vocab, "<eos>");
    int mlm = m->cfg.arch == ARCH_ENCODER, mask_id = train_mask_id(m);
    CorpusRng rng;
    corpus_rng_seed(&rng, 0x6d61736bu); /* "mask": the same masks whatever the model */
    double loss = 0.0;
    long count = 0;
    if (!w || !src || !dec || !tgt)
        goto done;
    for (int e = 0; e < max_examples; e++) {
        TrainExample ex = {src, 0, dec, 0, tgt};
        if (mlm) {
            if (c->kind != CORPUS_LM || e >= c->n_lines)
                break;
            int start = c->starts[e], end = e + 1 < c->n_lines ? c->starts[e + 1] : c->n_ids;
            int len = end - start < L ? end - start : L;
            if (len < 1)
                continue;
            train_mlm_mask(&rng, c->ids + start, len, o->mask_rate, mask_id, NULL, 0, src, tgt);
            for (int i = 0; i < len; i++) /* the plain task: every chosen word hidden */
                if (tgt[i] >= 0)
                    src[i] = mask_id;
            ex.n = len;
        } else if (c->kind == CORPUS_LM) {
            int len = o->seq_len, start = e * len;
            if (start + len + 1 > c->n_ids)
                break;
            for (int i = 0; i < len; i++) {
                src[i] = c->ids[start + i];
                tgt[i] = c->ids[start + i + 1];
            }
            ex.n = len;
        } else {
            if (e >= c->n_pairs)
                break;
            const CorpusPair *cp = &c->pairs[e];
            if (cp->src_len > L || cp->tgt_len + 1 > L)
                continue;
            memcpy(src, c->ids + cp->src_off, sizeof(int) * (size_t)cp->src_len);
            dec[0] = bos;
            for (int i = 0; i < cp->tgt_len; i++) {
                dec[i + 1] = c->ids[cp->tgt_off + i];
                tgt[i] = dec[i + 1];
            }
            tgt[cp->tgt_len] = eos;
            ex.n = cp->src_len;
            ex.m = cp->tgt_len + 1;
        }
        int cnt;
        double l = train_forward_backward(m, w, &ex, causal, NULL, &cnt);
        if (l < 0.0) {
            loss = NAN;
            goto done;
        }
        loss += l;
        count += cnt;
    }
done:
    train_work_free(w);
    free(src);
    free(dec);
    free(tgt);
    return count ? loss / (double)count : NAN;
}

