/* plain_train.c - the train widget in plain mode (plain_train.h): the run of the player's
 * train widget (watch.c: the same model size, schedule and seed), trained at once since a
 * line interface has no keys to answer between slices, measured every tenth of the steps. */
#include "plain_train.h"

#include <stdio.h>
#include <string.h>

#include "datapath.h"
#include "watch.h"

#define TRAIN_PROMPT "the cat"
#define TRAIN_SAVE_FILE "attend-trained.json"
#define TRAIN_REPORTS 10     /* measurements said over a run */

static WatchRun *run;

void plain_train_free(void)
{
    watch_free(run);
    run = NULL;
}

static void say_point(Plain *p, const char *when)
{
    WatchPoint pt;
    if (watch_measure(run, &pt)) {
        plain_sayf(p, "%s: could not measure: %s", when, watch_error(run));
        return;
    }
    plain_sayf(p, "%s step %d: training loss %.2f, held-out loss %.2f; the best head is layer "
                  "%d head %d, previous-token weight %.2f.", when, pt.step, pt.train_loss,
               pt.heldout_loss, pt.best_layer, pt.best_head, pt.best_prev);
}

int plain_train(Plain *p, Request req)
{
    char err[600];
    if (req == REQ_SAVE) {
        if (!run || watch_steps_done(run) == 0)
            plain_say(p, "Nothing trained yet: t trains.");
        else if (watch_save(run, TRAIN_SAVE_FILE, err, sizeof err))
            plain_sayf(p, "Cannot save: %s", err);
        else
            plain_sayf(p, "Wrote the trained model to %s.", TRAIN_SAVE_FILE);
        return 1;
    }
    if (req != REQ_TRAIN_RUN)
        return 0;
    WatchOpts o;
    watch_opts_defaults(&o);
    o.causal = p->live.s.causal;
    if (!run) {
        char vp[1024], cp[1024], ep[1024];
        data_path("data/vocab.txt", vp, sizeof vp);
        data_path("data/corpus/english.txt", cp, sizeof cp);
        data_path("data/corpus/english-test.txt", ep, sizeof ep);
        run = watch_new(vp, cp, ep, &o, err, sizeof err);
        if (!run) {
            plain_sayf(p, "Cannot train: %s", err);
            return 1;
        }
    } else if (watch_reset(run, o.causal, err, sizeof err)) {
        plain_sayf(p, "Cannot train: %s", err);
        return 1;
    }
    plain_sayf(p, "Training %d steps with the causal mask %s; a report every %d steps.",
               o.steps, o.causal ? "on" : "OFF (the cheating run)", o.steps / TRAIN_REPORTS);
    say_point(p, "Before training,");
    int every = o.steps / TRAIN_REPORTS > 0 ? o.steps / TRAIN_REPORTS : 1, rc = 0;
    while (rc == 0 && watch_steps_done(run) < o.steps) {
        rc = watch_step(run);
        if (rc < 0) {
            plain_sayf(p, "Training stopped: %s", watch_error(run));
            return 1;
        }
        if (watch_steps_done(run) % every == 0 && watch_steps_done(run) < o.steps)
            say_point(p, "At");
    }
    say_point(p, "Done at");
    char gen[200];
    if (watch_generate(run, TRAIN_PROMPT, 12, gen, sizeof gen) >= 0)
        plain_sayf(p, "It continues \"%s\" as: %s", TRAIN_PROMPT, gen);
    plain_say(p, "w writes the trained model; m then t trains again with the mask switched.");
    return 1;
}
