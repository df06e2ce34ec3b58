/* cmd_watch.c - `attend train --watch`: trains the train widget's small decoder headless and
 * prints, every N steps, the train and held-out loss and the best head's previous-token score. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "datapath.h"
#include "opts.h"
#include "watch.h"

static const char WATCH_USAGE[] =
    "usage: attend train --watch [--steps N] [--every N] [--seed S] [--no-causal-mask]\n"
    "                    [--out FILE]\n"
    "Trains the train widget's small decoder from a fixed seed on the shipped corpus and prints,\n"
    "every N steps (default 50): the training loss (with the run's own mask), the held-out loss\n"
    "(always with the causal mask) and the best head's previous-token score (its mean weight\n"
    "on the previous token over held-out sentences). --no-causal-mask is the cheating run.";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Opens the watch run on the shipped data (data_path). NULL with a message on stderr. */
static WatchRun *cmd_watch_open(const WatchOpts *o)
{
    char vp[1024], cp[1024], ep[1024], err[1024];
    data_path("data/vocab.txt", vp, sizeof vp);
    data_path("data/corpus/english.txt", cp, sizeof cp);
    data_path("data/corpus/english-test.txt", ep, sizeof ep);
    WatchRun *w = watch_new(vp, cp, ep, o, err, sizeof err);
    if (!w)
        fprintf(stderr, "attend train --watch: %s\n", err);
    return w;
}

static void print_point(const WatchPoint *p)
{
    printf("%6d %10.4f %10.4f %8.3f  L%d.h%d\n", p->step, p->train_loss, p->heldout_loss,
           p->best_prev, p->best_layer, p->best_head);
}

int cmd_train_watch(int argc, char **argv)
{
    WatchOpts o;
    watch_opts_defaults(&o);
    long every = 50, steps = o.steps, seed = (long)o.seed;
    int watch = 0, no_causal = 0, no_causal_short = 0;
    const char *out = NULL;
    const Opt opts[] = {
        OPT_F("--watch", &watch), OPT_I("--steps", &steps, 1, 1000000),
        OPT_I("--every", &every, 1, 1000000), OPT_I("--seed", &seed, 0, 2147483647),
        OPT_S("--out", &out), OPT_F("--no-causal-mask", &no_causal),
        OPT_F("--no-causal", &no_causal_short),
    };
    int prc = opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc, argv,
                         "attend train --watch", WATCH_USAGE);
    if (prc >= 0)
        return prc;
    o.steps = (int)steps;
    o.seed = (uint64_t)seed;
    if (no_causal || no_causal_short)
        o.causal = 0;
    if (o.warmup >= o.steps)
        o.warmup = o.steps / 10;
    WatchRun *w = cmd_watch_open(&o);
    if (!w)
        return 1;
    printf("# watch: decoder d_model %d, %d heads, %d layer(s), max_len %d; %d steps of %dx%d "
           "tokens, seed %llu, causal mask %s while training\n",
           o.d_model, o.n_heads, o.n_layers, o.max_len, o.steps, o.batch, o.seq_len,
           (unsigned long long)o.seed, o.causal ? "on" : "OFF");
    printf("%6s %10s %10s %8s  %s\n", "step", "train", "held-out", "prev", "head");
    WatchPoint p;
    int rc = 0;
    double t0 = now_s(), first_half = -1;
    if (watch_measure(w, &p)) {
        rc = 1;
        goto out;
    }
    print_point(&p);
    for (;;) {
        int s = watch_step(w);
        if (s < 0) {
            fprintf(stderr, "attend train --watch: %s\n", watch_error(w));
            rc = 1;
            goto out;
        }
        int done = watch_steps_done(w);
        if (s == 1 || done % every == 0 || done == o.steps) {
            if (watch_measure(w, &p)) {
                fprintf(stderr, "attend train --watch: %s\n", watch_error(w));
                rc = 1;
                goto out;
            }
            print_point(&p);
            if (first_half < 0 && p.best_prev >= 0.5)
                first_half = now_s() - t0;
        }
        if (s == 1 || done >= o.steps)
            break;
    }
    fflush(stdout);
    double secs = now_s() - t0;
    fprintf(stderr, "attend train --watch: %d steps in %.1f s (%.0f tokens/s)", watch_steps_done(w),
            secs, secs > 0 ? watch_tokens_done(w) / secs : 0.0);
    if (first_half >= 0)
        fprintf(stderr, "; previous-token score >= 0.5 after %.1f s", first_half);
    fputc('\n', stderr);
    if (out) {
        char err[1024];
        if (watch_save(w, out, err, sizeof err)) {
            fprintf(stderr, "attend train --watch: %s\n", err);
            rc = 1;
        }
    }
out:
    watch_free(w);
    return rc;
}
