/* plain_train.c - the train widget in plain mode (plain_train.h): the run of the player's
 * train widget (watch.c: the same model size, schedule and seed; on a model trained on the
 * repeated-sequence task, its recorded recipe: repeat_run.c), trained at once since a line
 * interface has no keys to answer between slices, measured every tenth of the steps. */
#include "plain_train.h"

#include <stdio.h>
#include <string.h>

#include "datapath.h"
#include "repeat_run.h"
#include "watch.h"

#define TRAIN_PROMPT "the cat"
#define TRAIN_SAVE_FILE "attend-trained.json"
#define TRAIN_REPORTS 10     /* measurements said over a run */

static WatchRun *run;
static RepeatRun *rrun;

void plain_train_free(void)
{
    watch_free(run);
    run = NULL;
    repeat_run_free(rrun);
    rrun = NULL;
}

/* The latest point of the repeat run's history, said in words. */
static void say_repeat_point(Plain *p, const char *when)
{
    const HeadsHistory *h = repeat_run_history(rrun);
    const Model *m = repeat_run_model(rrun);
    if (!h->n)
        return;
    int i = h->n - 1, nh = m->cfg.n_heads, L = m->cfg.n_layers, bp = 0, bi = 0;
    const float *sc = h->scores + (size_t)i * h->n_heads * HEADS_N_SCORES;
    for (int k = 1; k < nh; k++) {
        bp = sc[k * HEADS_N_SCORES] > sc[bp * HEADS_N_SCORES] ? k : bp;
        bi = sc[((L - 1) * nh + k) * HEADS_N_SCORES + 1] > sc[((L - 1) * nh + bi) * HEADS_N_SCORES + 1]
                 ? k : bi;
    }
    plain_sayf(p, "%s step %d: second-copy loss %.2f, first-copy loss %.2f; layer 0 head %d "
                  "previous-token score %.2f, layer %d head %d induction score %.2f.", when,
               h->step[i], h->loss_second[i], h->loss_first[i], bp, sc[bp * HEADS_N_SCORES],
               L - 1, bi, sc[((L - 1) * nh + bi) * HEADS_N_SCORES + 1]);
}

/* t on a page whose model records a repeat-task recipe: a fresh model trained by it, to the
 * end, a report every tenth of the steps and the phase change. */
static int plain_train_repeat(Plain *p, Request req)
{
    char err[600];
    if (req == REQ_SAVE) {
        if (!rrun || repeat_run_steps_done(rrun) == 0)
            plain_say(p, "Nothing trained yet: t trains.");
        else if (repeat_run_save(rrun, "attend-induction.json", err, sizeof err))
            plain_sayf(p, "Cannot save: %s", err);
        else
            plain_say(p, "Wrote the trained model to attend-induction.json.");
        return 1;
    }
    if (req != REQ_TRAIN_RUN)
        return 0;
    repeat_run_free(rrun);
    rrun = repeat_run_new(p->s->model, err, sizeof err);
    if (!rrun) {
        plain_sayf(p, "Cannot train: %s", err);
        return 1;
    }
    int steps = repeat_run_opts(rrun)->steps, every = steps / TRAIN_REPORTS > 0 ? steps / TRAIN_REPORTS : 1;
    plain_sayf(p, "Training a fresh model by %s's recorded recipe, %d steps; a report every %d "
                  "steps.", p->s->model->cfg.name, steps, every);
    for (;;) {
        int due = repeat_run_due(rrun);
        if (!due && repeat_run_steps_done(rrun) >= steps)
            break;
        if (due ? repeat_run_measure(rrun) : repeat_run_step(rrun)) {
            plain_sayf(p, "Training stopped: %s", repeat_run_error(rrun));
            return 1;
        }
        int s = repeat_run_steps_done(rrun);
        if (due && (s % every == 0 || s == steps))
            say_repeat_point(p, s == 0 ? "Before training," : s == steps ? "Done at" : "At");
    }
    int ph = heads_history_phase(repeat_run_history(rrun));
    if (ph >= 0)
        plain_sayf(p, "The phase change: the second-copy loss fell below half its start at step "
                      "%d.", ph);
    else
        plain_say(p, "No phase change: the second-copy loss never fell below half its start.");
    plain_say(p, "w writes the trained model.");
    return 1;
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
    TrainOpts ro;
    int re;
    if (p->s->model && repeat_recipe_read(p->s->model, &ro, &re, err, sizeof err) == 0)
        return plain_train_repeat(p, req);
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
    o.causal = p->s->live.s.causal;
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
