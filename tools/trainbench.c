/* trainbench.c - training throughput of a decoder or encoder config (bench/compare.py runs it
 * against PyTorch in interleaved rounds): the config's model, corpus, batch and optimiser,
 * STEPS timed steps after WARM untimed ones, wall and process CPU time.
 *   trainbench CONFIG.json STEPS THREADS [WARM]
 * prints "WALL_TOK_S CPU_TOK_S TOKENS". A benchmark, not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "corpus.h"
#include "json.h"
#include "model_json.h"
#include "model.h"
#include "train.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The "train" keys that shape the work (steps only sets the schedule). */
static int read_opts(const cJSON *tr, TrainOpts *o, char *err, size_t errlen)
{
    double lr = o->lr, wd = o->weight_decay, clip = o->clip, mr = o->mask_rate;
    if (!tr)
        return 0;
    if ((json_get(tr, "steps") && json_get_int(tr, "steps", 1, 10000000, &o->steps, "steps", err, errlen)) ||
        (json_get(tr, "batch") && json_get_int(tr, "batch", 1, 4096, &o->batch, "batch", err, errlen)) ||
        (json_get(tr, "seq_len") && json_get_int(tr, "seq_len", 1, 4096, &o->seq_len, "seq_len", err, errlen)) ||
        (json_get(tr, "warmup") && json_get_int(tr, "warmup", 0, 10000000, &o->warmup, "warmup", err, errlen)) ||
        (json_get(tr, "lr") && json_get_number(tr, "lr", &lr, "lr", err, errlen)) ||
        (json_get(tr, "weight_decay") && json_get_number(tr, "weight_decay", &wd, "weight_decay", err, errlen)) ||
        (json_get(tr, "clip") && json_get_number(tr, "clip", &clip, "clip", err, errlen)) ||
        (json_get(tr, "mask_rate") && json_get_number(tr, "mask_rate", &mr, "mask_rate", err, errlen)))
        return -1;
    o->lr = (float)lr;
    o->weight_decay = (float)wd;
    o->clip = (float)clip;
    o->mask_rate = (float)mr;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: trainbench CONFIG.json STEPS THREADS [WARM]\n");
        return 2;
    }
    int steps = atoi(argv[2]), threads = atoi(argv[3]), warm = argc > 4 ? atoi(argv[4]) : 5;
    char err[512];
    cJSON *root = json_parse_file(argv[1], NULL, err, sizeof err);
    if (!root) {
        fprintf(stderr, "trainbench: %s\n", err);
        return 1;
    }
    ModelConfig mc;
    TrainOpts o;
    Vocab v;
    Model m;
    Corpus c;
    model_config_defaults(&mc);
    train_opts_defaults(&o);
    const char *vp = json_get_string(root, "vocab", "vocab", err, sizeof err);
    const char *cp = vp ? json_get_string(root, "corpus", "corpus", err, sizeof err) : NULL;
    if (!cp || model_config_read(json_get(root, "config"), &mc, err, sizeof err)) {
        fprintf(stderr, "trainbench: %s: %s\n", argv[1], err);
        return 1;
    }
    o.seq_len = mc.max_len;
    if (read_opts(json_get(root, "train"), &o, err, sizeof err) ||
        vocab_load_file(&v, vp, err, sizeof err)) {
        fprintf(stderr, "trainbench: %s\n", err);
        return 1;
    }
    mc.vocab_size = v.n;
    o.threads = threads;
    if (o.steps < warm + steps)
        o.steps = warm + steps;
    if (model_new(&m, &mc, &v, err, sizeof err) ||
        corpus_load_lm(&c, cp, &m.vocab, err, sizeof err)) {
        fprintf(stderr, "trainbench: %s\n", err);
        return 1;
    }
    Trainer *t = train_new(&m, &c, &o, 1, err, sizeof err);
    if (!t) {
        fprintf(stderr, "trainbench: %s\n", err);
        return 1;
    }
    for (int i = 0; i < warm; i++)
        train_step(t);
    long tok0 = train_tokens_done(t);
    double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (int i = 0; i < steps; i++)
        if (train_step(t) < 0) {
            fprintf(stderr, "trainbench: %s\n", train_error(t));
            return 1;
        }
    double wall = clock_s(CLOCK_MONOTONIC) - w0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    long tok = train_tokens_done(t) - tok0;
    printf("%.1f %.1f %ld\n", tok / wall, tok / cpu, tok);
    train_free(t);
    corpus_free(&c);
    model_free(&m);
    cJSON_Delete(root);
    return 0;
}
