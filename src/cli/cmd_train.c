/* cmd_train.c - `attend train` (train a model from a config file) and `attend generate`
 * (continue a prompt with a decoder, or translate with an encoder-decoder). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "repeat_run.h"
#include "corpus.h"
#include "generate.h"
#include "json.h"
#include "model.h"
#include "model_json.h"
#include "opts.h"
#include "train.h"

/* ======================= training config ======================= */

typedef struct {
    ModelConfig mc;
    TrainOpts o;
    char vocab[512], corpus[512], eval[512];
    int history_every;  /* repeat task: measure the heads every this many steps (0: never) */
} TrainConfig;

static const char *const TOP_KEYS[] = {"config", "vocab", "corpus", "eval", "train", "repeat",
                                       NULL};
static const char *const TRAIN_KEYS[] = {"steps", "batch", "seq_len", "lr", "min_lr_ratio",
                                         "warmup", "weight_decay", "beta1", "beta2", "eps",
                                         "clip", "causal", "threads", "seed", "mask_rate",
                                         NULL};

static int known(const char *k, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(k, list[i]))
            return 1;
    return 0;
}

static int opt_num(const cJSON *o, const char *key, float *out, double lo, double hi,
                   char *err, size_t errlen)
{
    if (!json_get(o, key))
        return 0;
    double v;
    char what[64];
    snprintf(what, sizeof what, "train.%s", key);
    if (json_get_number(o, key, &v, what, err, errlen))
        return -1;
    if (!(v >= lo && v <= hi)) {
        snprintf(err, errlen, "%s is %g, outside %g..%g", what, v, lo, hi);
        return -1;
    }
    *out = (float)v;
    return 0;
}

static int opt_int(const cJSON *o, const char *key, int *out, int lo, int hi, char *err,
                   size_t errlen)
{
    if (!json_get(o, key))
        return 0;
    char what[64];
    snprintf(what, sizeof what, "train.%s", key);
    return json_get_int(o, key, lo, hi, out, what, err, errlen);
}

static int copy_path(const cJSON *root, const char *key, char *out, size_t outlen, int need,
                     char *err, size_t errlen)
{
    if (!json_get(root, key)) {
        if (need) {
            snprintf(err, errlen, "missing \"%s\" (a file path)", key);
            return -1;
        }
        out[0] = 0;
        return 0;
    }
    const char *s = json_get_string(root, key, key, err, errlen);
    if (!s)
        return -1;
    data_path(s, out, (unsigned)outlen);
    return 0;
}

/* Reads a training config (docs/training.md). 0, or -1 with "FILE: message". */
static int train_config_load(TrainConfig *tc, const char *path, char *err, size_t errlen)
{
    char msg[400];
    memset(tc, 0, sizeof *tc);
    cJSON *root = json_parse_file(path, NULL, err, errlen);
    if (!root)
        return -1;
    int rc = -1;
    char dup[200];
    if (!cJSON_IsObject(root)) {
        snprintf(msg, sizeof msg, "the top level must be an object");
        goto out;
    }
    if (json_find_duplicate(root, dup, sizeof dup)) {
        snprintf(msg, sizeof msg, "key \"%s\" appears twice", dup);
        goto out;
    }
    for (const cJSON *it = root->child; it; it = it->next)
        if (!known(it->string, TOP_KEYS)) {
            snprintf(msg, sizeof msg, "unknown key \"%s\" (expected config, vocab, corpus, eval, "
                     "repeat, train)", it->string);
            goto out;
        }
    model_config_defaults(&tc->mc);
    if (model_config_read(json_get(root, "config"), &tc->mc, msg, sizeof msg))
        goto out;
    if (copy_path(root, "vocab", tc->vocab, sizeof tc->vocab, 1, msg, sizeof msg) ||
        copy_path(root, "corpus", tc->corpus, sizeof tc->corpus, !json_get(root, "repeat"), msg,
                  sizeof msg) ||
        copy_path(root, "eval", tc->eval, sizeof tc->eval, 0, msg, sizeof msg))
        goto out;
    train_opts_defaults(&tc->o);
    tc->o.seq_len = tc->mc.max_len;
    const cJSON *tr = json_get(root, "train");
    if (tr) {
        if (!cJSON_IsObject(tr)) {
            snprintf(msg, sizeof msg, "\"train\" must be an object");
            goto out;
        }
        for (const cJSON *it = tr->child; it; it = it->next)
            if (!known(it->string, TRAIN_KEYS)) {
                snprintf(msg, sizeof msg, "unknown key \"train.%s\"", it->string);
                goto out;
            }
        int seed = 1;
        if (opt_int(tr, "steps", &tc->o.steps, 1, 10000000, msg, sizeof msg) ||
            opt_int(tr, "batch", &tc->o.batch, 1, 4096, msg, sizeof msg) ||
            opt_int(tr, "seq_len", &tc->o.seq_len, 1, tc->mc.max_len, msg, sizeof msg) ||
            opt_int(tr, "warmup", &tc->o.warmup, 0, 10000000, msg, sizeof msg) ||
            opt_int(tr, "threads", &tc->o.threads, 1, 2, msg, sizeof msg) ||
            opt_int(tr, "seed", &seed, 0, 2147483647, msg, sizeof msg) ||
            opt_num(tr, "lr", &tc->o.lr, 1e-7, 10.0, msg, sizeof msg) ||
            opt_num(tr, "min_lr_ratio", &tc->o.min_lr_ratio, 0.0, 1.0, msg, sizeof msg) ||
            opt_num(tr, "weight_decay", &tc->o.weight_decay, 0.0, 1.0, msg, sizeof msg) ||
            opt_num(tr, "beta1", &tc->o.beta1, 0.0, 0.999999, msg, sizeof msg) ||
            opt_num(tr, "beta2", &tc->o.beta2, 0.0, 0.999999, msg, sizeof msg) ||
            opt_num(tr, "eps", &tc->o.eps, 1e-12, 1.0, msg, sizeof msg) ||
            opt_num(tr, "clip", &tc->o.clip, 0.0, 1e6, msg, sizeof msg) ||
            opt_num(tr, "mask_rate", &tc->o.mask_rate, 0.01, 1.0, msg, sizeof msg))
            goto out;
        tc->o.seed = (uint64_t)seed;
        if (json_get(tr, "causal") &&
            json_get_bool(tr, "causal", &tc->o.causal, "train.causal", msg, sizeof msg))
            goto out;
    }
    if (json_get(root, "repeat")) { /* the repeated-sequence task instead of a corpus */
        if (tc->corpus[0]) {
            snprintf(msg, sizeof msg, "give \"corpus\" or \"repeat\", not both");
            goto out;
        }
        if (repeat_opts_read(json_get(root, "repeat"), "repeat", &tc->o.repeat,
                             &tc->history_every, msg, sizeof msg) ||
            repeat_check(&tc->o.repeat, tc->o.seq_len, msg, sizeof msg))
            goto out;
    }
    rc = 0;
out:
    if (rc)
        snprintf(err, errlen, "%s: %s", path, msg);
    cJSON_Delete(root);
    return rc;
}

/* ======================= attend train ======================= */

static volatile sig_atomic_t stop_requested;
static void on_sigint(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char TRAIN_USAGE[] =
    "usage: attend train --config FILE --out FILE [--steps N] [--seed S] [--no-causal-mask]\n"
    "                    [--threads 1|2] [--quiet]\n"
    "       attend train --watch [--steps N] [--every N] [--seed S] [--no-causal-mask]\n"
    "Trains a model as the config file says (docs/training.md) and writes it atomically.\n"
    "Ctrl-C stops after the current step and writes the model trained so far.";

/* One progress line: the step's own loss (its batch, before the update) and the loss smoothed
 * over about the last twenty steps (the figure the model file keeps as final_train_loss). */
static void progress(FILE *f, int tty, int step, int steps, float loss, float smooth, double tok_s,
                     double eta)
{
    if (tty) {
        int width = 12, fill = (int)((double)step / steps * width);
        char bar[16];
        for (int i = 0; i < width; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[width] = 0;
        fprintf(f, "\r[%s] step %d/%d loss %.3f (smoothed %.3f) %.0f tok/s ETA %.0fs\033[K", bar,
                step, steps, (double)loss, (double)smooth, tok_s, eta);
    } else {
        fprintf(f, "step %d/%d loss %.4f smoothed %.4f %.0f tok/s\n", step, steps, (double)loss,
                (double)smooth, tok_s);
    }
    fflush(f);
}

/* The options of `attend train` (strings point into argv). */
typedef struct {
    const char *cfg_path, *out;
    long steps, seed, threads;   /* -1: the config's */
    int no_causal, quiet;
} TrainArgs;

/* Parses the options into o. -1 to go on, or the exit status to return (0 after --help, 2 on
 * a usage error, with the message printed). */
static int train_args(int argc, char **argv, TrainArgs *o)
{
    memset(o, 0, sizeof *o);
    o->steps = o->seed = o->threads = -1;
    const Opt opts[] = {
        OPT_S("--config", &o->cfg_path), OPT_S("--out", &o->out),
        OPT_I("--steps", &o->steps, 1, 10000000), OPT_I("--seed", &o->seed, 0, 2147483647),
        OPT_I("--threads", &o->threads, 1, 2), OPT_F("--no-causal-mask", &o->no_causal),
        OPT_F("--quiet", &o->quiet),
    };
    int rc = opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc, argv, "attend train",
                        TRAIN_USAGE);
    if (rc < 0 && (!o->cfg_path || !o->out))
        return opts_usage_error("attend train", TRAIN_USAGE, "--config and --out are required");
    return rc;
}

/* What one training run holds: the config, the model, the corpora, the trainer. */
typedef struct {
    TrainConfig tc;
    Model m;
    Corpus c, ev;
    Trainer *t;
    int have_model, have_corpus;
    HeadsHistory hist;   /* the repeat task's measurements over the steps */
} TrainJob;

static void train_job_free(TrainJob *j)
{
    train_free(j->t);
    heads_history_free(&j->hist);
    if (j->have_corpus) {
        corpus_free(&j->c);
        corpus_free(&j->ev);
    }
    if (j->have_model)
        model_free(&j->m);
}

/* The repeat task's trainer (no corpus) and its history's first point, before any step.
 * 0, or 1 with the message printed. */
static int train_job_repeat(TrainJob *j, const TrainArgs *o)
{
    char err[1024];
    const TrainConfig *tc = &j->tc;
    j->t = train_new(&j->m, NULL, &tc->o, 1, err, sizeof err);
    if (!j->t) {
        fprintf(stderr, "attend train: %s: %s\n", o->cfg_path, err);
        return 1;
    }
    HeadProbe p;
    heads_probe_for(&j->m, tc->o.repeat.min_seg, tc->o.repeat.max_seg, &p);
    heads_history_init(&j->hist, &j->m, &p);
    if (tc->history_every > 0 && p.n_lens > 0 &&
        heads_history_add(&j->hist, &j->m, 0, NAN, err, sizeof err)) {
        fprintf(stderr, "attend train: %s\n", err);
        return 1;
    }
    return 0;
}

/* Loads the config (with the options applied), the vocabulary, a fresh model, the corpora
 * and the trainer into j. 0, or 1 with the message printed (j is the caller's to free). */
static int train_job_load(TrainJob *j, const TrainArgs *o)
{
    char err[1024];
    TrainConfig *tc = &j->tc;
    if (cmd_check_out(o->out, err, sizeof err) || /* before training, not after */
        train_config_load(tc, o->cfg_path, err, sizeof err)) {
        fprintf(stderr, "attend train: %s\n", err);
        return 1;
    }
    if (o->steps > 0)
        tc->o.steps = (int)o->steps;
    if (o->seed >= 0)
        tc->o.seed = (uint64_t)o->seed;
    if (o->threads > 0)
        tc->o.threads = (int)o->threads;
    if (o->no_causal)
        tc->o.causal = 0;
    if (tc->o.warmup >= tc->o.steps)
        tc->o.warmup = tc->o.steps / 10;
    Vocab v;
    if (vocab_load_file(&v, tc->vocab, err, sizeof err)) {
        fprintf(stderr, "attend train: %s\n", err);
        return 1;
    }
    tc->mc.vocab_size = v.n;
    if (model_config_check(&tc->mc, err, sizeof err) ||
        model_config_check_size(&tc->mc, err, sizeof err)) {
        fprintf(stderr, "attend train: %s: %s\n", o->cfg_path, err);
        vocab_free(&v);
        return 1;
    }
    if (model_new(&j->m, &tc->mc, &v, err, sizeof err)) {
        fprintf(stderr, "attend train: %s\n", err);
        vocab_free(&v);
        return 1;
    }
    j->have_model = 1;
    int pairs = tc->mc.arch == ARCH_ENCDEC;
    memset(&j->ev, 0, sizeof j->ev);
    if (tc->o.repeat.on)
        return train_job_repeat(j, o);
    if (pairs ? corpus_load_pairs(&j->c, tc->corpus, &j->m.vocab, err, sizeof err)
              : corpus_load_lm(&j->c, tc->corpus, &j->m.vocab, err, sizeof err)) {
        fprintf(stderr, "attend train: %s\n", err);
        return 1;
    }
    j->have_corpus = 1;
    if (tc->eval[0] && (pairs ? corpus_load_pairs(&j->ev, tc->eval, &j->m.vocab, err, sizeof err)
                              : corpus_load_lm(&j->ev, tc->eval, &j->m.vocab, err, sizeof err))) {
        fprintf(stderr, "attend train: %s\n", err);
        return 1;
    }
    j->t = train_new(&j->m, &j->c, &tc->o, 1, err, sizeof err);
    if (!j->t) {
        fprintf(stderr, "attend train: %s: %s\n", o->cfg_path, err);
        return 1;
    }
    return 0;
}

/* Steps the trainer until done or Ctrl-C, drawing progress. *avg gets the smoothed loss.
 * 0, or 1 when a step failed (the message printed). */
static int train_job_loop(TrainJob *j, int quiet, double *avg, double *elapsed)
{
    const TrainOpts *to = &j->tc.o;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    stop_requested = 0;
    sigaction(SIGINT, &sa, &old);
    int tty = isatty(STDERR_FILENO), status = 0;
    double t0 = now_s(), last_print = 0.0;
    /* not a terminal: a line after the first step (training runs; Ctrl-C is handled from
     * here), then every twentieth of the run */
    int every = to->steps / 20 > 0 ? to->steps / 20 : 1;
    *avg = 0.0;
    while (!stop_requested) {
        int r = train_step(j->t);
        if (r == 1)
            break;
        if (r < 0) {
            fprintf(stderr, "%sattend train: %s\n", tty ? "\n" : "", train_error(j->t));
            status = 1;
            break;
        }
        int s = train_step_count(j->t);
        *avg = s == 1 ? train_last_loss(j->t) : 0.95 * *avg + 0.05 * train_last_loss(j->t);
        int he = j->tc.history_every;
        char herr[512];
        if (j->hist.probe.n_lens > 0 && he > 0 && (s % he == 0 || s == to->steps) &&
            heads_history_add(&j->hist, &j->m, s, train_last_loss(j->t), herr, sizeof herr)) {
            fprintf(stderr, "%sattend train: %s\n", tty ? "\n" : "", herr);
            status = 1;
            break;
        }
        double el = now_s() - t0;
        if (!quiet && ((tty && el - last_print > 0.1) || (!tty && (s == 1 || s % every == 0)) ||
                       s == to->steps)) {
            double tok_s = train_tokens_done(j->t) / (el > 0 ? el : 1e-9);
            progress(stderr, tty, s, to->steps, train_last_loss(j->t), (float)*avg, tok_s,
                     el / s * (to->steps - s));
            last_print = el;
        }
    }
    sigaction(SIGINT, &old, NULL);
    if (tty && !quiet)
        fputc('\n', stderr);
    *elapsed = now_s() - t0;
    return status;
}

/* The repeat task's record: both copies' losses on the unseen-length probes, the history. */
static int train_job_save_repeat(TrainJob *j, const TrainArgs *o, double avg, double elapsed)
{
    Model *m = &j->m;
    char err[1024];
    double first = NAN, second = NAN;
    if (j->hist.probe.n_lens > 0 &&
        heads_copy_loss(m, &j->hist.probe, NULL, &first, &second, err, sizeof err)) {
        fprintf(stderr, "attend train: %s\n", err);
        return 1;
    }
    char *rec = repeat_recipe_write(o->cfg_path, &j->tc.o, j->tc.history_every,
                                    train_step_count(j->t), avg,
                                    &j->hist, first, second, train_tokens_done(j->t));
    if (!rec) {
        fprintf(stderr, "attend train: out of memory\n");
        return 1;
    }
    free(m->training);
    m->training = rec;
    if (model_save(m, o->out, err, sizeof err)) {
        fprintf(stderr, "attend train: %s\n", err);
        return 1;
    }
    if (!o->quiet)
        fprintf(stderr, "attend train: %d steps in %.1fs; loss on the copies of unseen lengths: "
                "first %.4f, second %.4f -> %s\n", train_step_count(j->t), elapsed, first,
                second, o->out);
    return 0;
}

/* Evaluates the trained model, records how it was made in its `training` object (no
 * timings: the same config and seed give the same file, byte for byte) and saves it.
 * 0, or 1 with the message printed. */
static int train_job_save(TrainJob *j, const TrainArgs *o, double avg, double elapsed)
{
    const TrainConfig *tc = &j->tc;
    Model *m = &j->m;
    int done = train_step_count(j->t);
    int mlm = tc->mc.arch == ARCH_ENCODER;
    if (tc->o.repeat.on)
        return train_job_save_repeat(j, o, avg, elapsed);
    /* an encoder predicts ~1.5 hidden words a sentence: evaluate on more sentences */
    double tl = train_eval_loss(m, &j->c, &tc->o, 1, mlm ? 1000 : 200);
    double el_loss = j->ev.n_ids ? train_eval_loss(m, &j->ev, &tc->o, 1, mlm ? 600 : 300) : NAN;
    double unmasked = !mlm ? train_eval_loss(m, &j->c, &tc->o, 0, 200) : NAN;
    if (!isfinite(tl)) {
        fprintf(stderr, "attend train: the loss is not finite; not writing %s\n", o->out);
        return 1;
    }
    char buf[1024], err[1024];
    if (mlm) /* the loss is over the hidden words only; no causal mask to speak of */
        snprintf(buf, sizeof buf,
                 "{\"config\": \"%s\", \"corpus\": \"%s\", \"objective\": \"masked-lm\", "
                 "\"mask_rate\": %.4g, \"mask_token\": \"%s\", \"steps\": %d, "
                 "\"batch\": %d, \"seed\": %llu, \"causal_mask\": false, "
                 "\"final_train_loss\": %.4f, \"train_loss_masked_lm\": %.4f, "
                 "\"eval_loss\": %.4f, \"tokens\": %ld}",
                 o->cfg_path, tc->corpus, (double)tc->o.mask_rate,
                 vocab_word(&m->vocab, train_mask_id(m)), done, tc->o.batch,
                 (unsigned long long)tc->o.seed, avg, tl, isfinite(el_loss) ? el_loss : -1.0,
                 train_tokens_done(j->t));
    else
        snprintf(buf, sizeof buf,
                 "{\"config\": \"%s\", \"corpus\": \"%s\", \"steps\": %d, \"batch\": %d, "
                 "\"seed\": %llu, \"causal_mask\": %s, \"final_train_loss\": %.4f, "
                 "\"train_loss_masked\": %.4f, \"train_loss_unmasked\": %.4f, "
                 "\"eval_loss\": %.4f, \"tokens\": %ld}",
                 o->cfg_path, tc->corpus, done, tc->o.batch, (unsigned long long)tc->o.seed,
                 tc->o.causal ? "true" : "false", avg, tl, isfinite(unmasked) ? unmasked : -1.0,
                 isfinite(el_loss) ? el_loss : -1.0, train_tokens_done(j->t));
    free(m->training);
    m->training = strdup(buf);
    if (model_save(m, o->out, err, sizeof err)) {
        fprintf(stderr, "attend train: %s\n", err);
        return 1;
    }
    if (!o->quiet)
        fprintf(stderr, "attend train: %d steps in %.1fs (%.0f tok/s); loss %.4f (eval %.4f) -> "
                "%s\n", done, elapsed, train_tokens_done(j->t) / elapsed, tl, el_loss, o->out);
    return 0;
}

int cmd_train(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--watch"))
            return cmd_train_watch(argc, argv);
    TrainArgs o;
    int rc = train_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    TrainJob j;
    memset(&j, 0, sizeof j);
    if (train_job_load(&j, &o)) {
        train_job_free(&j);
        return 1;
    }
    const TrainConfig *tc = &j.tc;
    if (!o.quiet && tc->mc.arch == ARCH_ENCODER)
        fprintf(stderr, "attend train: encoder (masked LM: %.0f%% of the words hidden behind %s), "
                "%zu weights, %d steps of %d sentences, seed %llu\n",
                100.0 * tc->o.mask_rate, vocab_word(&j.m.vocab, train_mask_id(&j.m)),
                j.m.n_floats, tc->o.steps, tc->o.batch, (unsigned long long)tc->o.seed);
    else if (!o.quiet)
        fprintf(stderr, "attend train: %s, %zu weights, %d steps of %d sequences, %s mask, "
                "seed %llu\n", model_arch_name(tc->mc.arch), j.m.n_floats, tc->o.steps,
                tc->o.batch, tc->o.causal ? "causal" : "NO causal",
                (unsigned long long)tc->o.seed);
    double avg = 0.0, elapsed = 0.0;
    int status = train_job_loop(&j, o.quiet, &avg, &elapsed);
    int done = train_step_count(j.t);
    if (stop_requested && !o.quiet)
        fprintf(stderr, "attend train: interrupted after %d steps; writing what was trained\n",
                done);
    if (status == 0 && done > 0)
        status = train_job_save(&j, &o, avg, elapsed);
    train_job_free(&j);
    if (stop_requested)
        return status ? status : 130;
    return status;
}

/* ======================= attend generate ======================= */

static const char GEN_USAGE[] =
    "usage: attend generate [--model FILE] --prompt TEXT [--greedy | --temperature T --top-k K]\n"
    "                       [--seed S] [--max-tokens N]\n"
    "Continues the prompt with a decoder model (default data/wordnet.json), or translates it\n"
    "with an encoder-decoder model. Greedy decoding is the default and is deterministic.\n"
    "With an encoder-only model, fills every _ (or <mask>) of the prompt with its most likely\n"
    "word, reading both sides (--top-k K also lists K candidates per blank).";

/* ---- an encoder fills blanks ---- */

typedef struct {
    const Vocab *v;
    int mask_id;
    int *ids;
    int max, n, n_tokens, n_blanks, n_unknown;
    char unknown[VOCAB_WORD_MAX + 1];
} BlankCtx;

static void blank_tok(const char *tok, void *vctx)
{
    BlankCtx *c = vctx;
    int id;
    if (!strcmp(tok, "_") || !strcmp(tok, "<mask>")) {
        id = c->mask_id;
        c->n_blanks++;
    } else {
        id = vocab_id(c->v, tok);
        if (id < 0) {
            if (!c->n_unknown++)
                snprintf(c->unknown, sizeof c->unknown, "%s", tok);
            id = c->v->unk_id;
        }
    }
    c->n_tokens++;
    if (c->n < c->max)
        c->ids[c->n++] = id;
}

/* 1 for the words a blank may be filled with: not <pad>, <unk>, <mask>, <bos>..., not French. */
static int fillable(const Vocab *v, int id, int mask_id)
{
    const char *w = vocab_word(v, id);
    return id != v->pad_id && id != v->unk_id && id != mask_id && w[0] != '<';
}

/* Encoder-only model: prints the prompt with every "_" (or <mask>) replaced by the model's
 * most likely word; with top_k > 1, also the top_k candidates of each blank and their
 * probabilities. All blanks are predicted at once, each seeing the whole sentence. */
static int fill_blanks(const Model *m, const char *path, const char *prompt, int top_k)
{
    int L = m->cfg.max_len, V = m->cfg.vocab_size;
    int mask_id = train_mask_id(m);
    int *ids = calloc((size_t)L, sizeof(int));
    Trace *t = trace_new(m, L, 0);
    int status = 1;
    char err[512];
    if (!ids || !t) {
        fprintf(stderr, "attend generate: out of memory\n");
        goto out;
    }
    BlankCtx bc = {&m->vocab, mask_id, ids, L, 0, 0, 0, 0, ""};
    vocab_split(prompt, blank_tok, &bc);
    if (bc.n_tokens > L) {
        fprintf(stderr, "attend generate: the prompt has %d tokens; this model reads at most %d\n",
                bc.n_tokens, L);
        goto out;
    }
    if (!bc.n_blanks) {
        fprintf(stderr, "attend generate: %s is an encoder-only (BERT-style) model: it does not "
                "continue text, it fills in hidden words from both sides. Write _ (or <mask>) "
                "where a word is missing, e.g.\n  attend generate --model %s --prompt "
                "\"the cat _ on the mat .\"\n", path, path);
        status = 2;
        goto out;
    }
    if (bc.n_unknown)
        fprintf(stderr, "attend generate: unknown word%s treated as <unk>: %s%s\n",
                bc.n_unknown > 1 ? "s" : "", bc.unknown, bc.n_unknown > 1 ? ", ..." : "");
    Controls c;
    model_default_controls(m, &c);
    if (model_forward(m, ids, bc.n, NULL, 0, &c, t, err, sizeof err)) {
        fprintf(stderr, "attend generate: %s\n", err);
        goto out;
    }
    const TraceEntry *lg = trace_find(t, STACK_ENC, -1, SUB_NONE, -1, T_LOGITS);
    if (!lg) {
        fprintf(stderr, "attend generate: internal error: no logits traced\n");
        goto out;
    }
    int prev_apos = 0;
    for (int i = 0; i < bc.n; i++) {
        int id = ids[i];
        const float *r = lg->data + (size_t)i * V;
        if (id == mask_id) {
            int best = -1;
            for (int j = 0; j < V; j++)
                if (fillable(&m->vocab, j, mask_id) && (best < 0 || r[j] > r[best]))
                    best = j;
            id = best;
        }
        const char *w = vocab_word(&m->vocab, id);
        int glue = (w[0] && w[1] == 0 && strchr(".,'?!", w[0])) || prev_apos;
        prev_apos = !strcmp(w, "'");
        printf("%s%s", i == 0 || glue ? "" : " ", w);
    }
    printf("\n");
    if (top_k > 1) {
        int blank = 0;
        for (int i = 0; i < bc.n; i++) {
            if (ids[i] != mask_id)
                continue;
            const float *r = lg->data + (size_t)i * V;
            double mx = r[0], sum = 0.0;
            for (int j = 1; j < V; j++)
                mx = r[j] > mx ? r[j] : mx;
            for (int j = 0; j < V; j++)
                sum += exp(r[j] - mx);
            printf("blank %d (token %d):", ++blank, i);
            int shown[64], ns = 0, k = top_k < 64 ? top_k : 64;
            while (ns < k) {
                int best = -1;
                for (int j = 0; j < V; j++) {
                    int seen = 0;
                    for (int q = 0; q < ns; q++)
                        seen |= shown[q] == j;
                    if (!seen && fillable(&m->vocab, j, mask_id) && (best < 0 || r[j] > r[best]))
                        best = j;
                }
                if (best < 0)
                    break;
                shown[ns++] = best;
                printf("%s %s %.3f", ns > 1 ? "," : "", vocab_word(&m->vocab, best),
                       exp(r[best] - mx) / sum);
            }
            printf("\n");
        }
    }
    status = fflush(stdout) ? 1 : 0;
out:
    trace_free(t);
    free(ids);
    return status;
}

/* The options of `attend generate` (strings point into argv). */
typedef struct {
    const char *model_arg, *prompt;
    int greedy, top_k;
    float temp;
    long seed, max_tokens;
} GenArgs;

/* Parses the options into o. -1 to go on, or the exit status to return (0 after --help, 2 on
 * a usage error, with the message printed). --temperature or --top-k samples, unless --greedy
 * is given too. */
static int gen_args(int argc, char **argv, GenArgs *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->max_tokens = -1;
    double temp = 0.0;
    long top_k = 0;
    const Opt opts[] = {
        OPT_S("--model", &o->model_arg), OPT_S("--prompt", &o->prompt),
        OPT_R("--temperature", &temp, 0.0, 100.0), OPT_I("--top-k", &top_k, 1, 1000000),
        OPT_I("--seed", &o->seed, 0, 2147483647), OPT_I("--max-tokens", &o->max_tokens, 1, 4096),
        OPT_F("--greedy", &o->greedy),
    };
    int rc = opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc, argv,
                        "attend generate", GEN_USAGE);
    o->temp = temp > 0.0 ? (float)temp : 1.0f;
    o->top_k = (int)top_k;
    o->greedy = o->greedy || (temp == 0.0 && !top_k);
    return rc;
}

int cmd_generate(int argc, char **argv)
{
    GenArgs o;
    int rc = gen_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    const char *model_arg = o.model_arg, *prompt = o.prompt;
    int greedy = o.greedy, top_k = o.top_k;
    float temp = o.temp;
    long seed = o.seed, max_tokens = o.max_tokens;
    if (!prompt) {
        fprintf(stderr, "attend generate: --prompt is required\n%s\n", GEN_USAGE);
        return 2;
    }
    char path[1024], err[1024];
    data_model_path(model_arg, path, sizeof path);
    Model m;
    if (model_load_progress(&m, path, cmd_load_progress, (void *)path, err, sizeof err)) {
        fprintf(stderr, "attend generate: %s\n", err);
        return 1;
    }
    int L = m.cfg.max_len, V = m.cfg.vocab_size, encdec = m.cfg.arch == ARCH_ENCDEC;
    if (trace_bytes(&m, L, L) > TRACE_MAX_BYTES) {
        fprintf(stderr, "attend generate: %s: a run of max_len %d tokens would need %zu MiB for "
                "its trace, more than the limit of %zu MiB\n", path, L, trace_bytes(&m, L, L) >> 20,
                TRACE_MAX_BYTES >> 20);
        model_free(&m);
        return 1;
    }
    if (m.cfg.arch == ARCH_ENCODER) {
        int st = fill_blanks(&m, path, prompt, top_k);
        model_free(&m);
        return st;
    }
    int *ids = calloc((size_t)L + 1, sizeof(int)), *dec = calloc((size_t)L + 1, sizeof(int));
    Trace *t = trace_new(&m, L, L);
    int status = 1;
    if (!ids || !dec || !t) {
        fprintf(stderr, "attend generate: out of memory\n");
        goto out;
    }
    TokenizeInfo info;
    int n = vocab_tokenize(&m.vocab, prompt, ids, L, &info);
    char why[300];
    if (vocab_tokenize_problem(&info, n, L, "prompt", why, sizeof why)) {
        fprintf(stderr, "attend generate: %s\n", why);
        goto out;
    }
    if (info.n_unknown)
        fprintf(stderr, "attend generate: unknown word%s treated as <unk>: %s%s\n",
                info.n_unknown > 1 ? "s" : "", info.unknown[0], info.n_unknown > 1 ? ", ..." : "");
    int bos = vocab_id(&m.vocab, "<bos>"), eos = vocab_id(&m.vocab, "<eos>");
    int dot = vocab_id(&m.vocab, ".");
    if (encdec && bos < 0) {
        fprintf(stderr, "attend generate: the model's vocabulary has no <bos>\n");
        goto out;
    }
    Controls c;
    model_default_controls(&m, &c);
    CorpusRng rng;
    corpus_rng_seed(&rng, (uint64_t)seed);
    int limit = max_tokens > 0 ? (int)max_tokens : L;
    int produced = 0, mlen = 1, prev_apos = 0;
    dec[0] = bos;
    if (!encdec)
        printf("%s", prompt);
    while (produced < limit) {
        if (!encdec && n >= L)
            break;
        if (encdec && mlen >= L)
            break;
        /* model_forward reads the target shifted right behind <bos>: giving it dec[1..]
         * plus one slot (never read) makes its input exactly dec[0..mlen-1], and its last
         * row the step that produces the next word. */
        if (encdec)
            dec[mlen] = m.vocab.pad_id;
        if (model_forward(&m, ids, n, encdec ? dec + 1 : dec, mlen, &c, t, err, sizeof err)) {
            fprintf(stderr, "\nattend generate: %s\n", err);
            goto out;
        }
        const TraceEntry *lg = trace_find(t, model_output_stack(&m), -1, SUB_NONE, -1,
                                          T_LOGITS);
        if (!lg) {
            fprintf(stderr, "\nattend generate: internal error: no logits traced\n");
            goto out;
        }
        int row = encdec ? mlen - 1 : n - 1;
        int next = gen_pick(lg->data + (size_t)row * V, V, &m.vocab, greedy, temp, top_k, &rng);
        if (next == eos)
            break;
        char w[VOCAB_WORD_MAX + 1]; /* a piece ("##ing" -> "ing") or byte joins the word before */
        int piece = vocab_joins_prev(&m.vocab, next);
        vocab_join(&m.vocab, &next, 1, w, sizeof w);
        int glue = (w[0] && w[1] == 0 && strchr(".,'?!", w[0])) || prev_apos || piece;
        prev_apos = !strcmp(w, "'");
        if (encdec) {
            printf("%s%s", mlen > 1 && !glue ? " " : "", w);
            dec[mlen++] = next;
        } else {
            printf("%s%s", glue ? "" : " ", w);
            ids[n++] = next;
        }
        produced++;
        if (!encdec && next == dot && max_tokens < 0)
            break;
    }
    printf("\n");
    status = fflush(stdout) ? 1 : 0;
out:
    trace_free(t);
    free(ids);
    free(dec);
    model_free(&m);
    return status;
}
