/* plain_train.c - the train widget in plain mode (plain_train.h): the run of the player's
 * train widget (watch.c: the same model size, schedule and seed; on a model trained on the
 * repeated-sequence task, its recorded recipe: repeat_run.c), trained at once since a line
 * interface has no keys to answer between slices, measured every tenth of the steps. */
#include "plain_train.h"

#include <stdio.h>
#include <string.h>

#include "repeat_run.h"
#include "watch.h"

#define TRAIN_PROMPT "the cat"
#define TRAIN_REPORTS 10     /* measurements said over a run */

/* The latest point of the live run's history, said in words. */
static void say_repeat_point(Plain *p, const char *when)
{
    RepeatRun *rrun = p->s->train.rep.run;
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

/* t on a replay page: the Session's fresh model trained by the recipe, to the end, a report
 * every tenth of the steps and the phase change. */
static int plain_train_repeat(Plain *p)
{
    Session *s = p->s;
    Change ch;
    session_request(s, REQ_TRAIN_RUN, NULL, &ch);
    if (ch.kind == CH_TRAIN && !s->train.rep.running) /* paused: plain mode never is */
        session_request(s, REQ_TRAIN_RUN, NULL, &ch);
    if (ch.kind != CH_TRAIN) {
        plain_change(p, &ch);
        return 1;
    }
    RepeatRun *rrun = s->train.rep.run;
    int steps = repeat_run_opts(rrun)->steps, every = steps / TRAIN_REPORTS > 0 ? steps / TRAIN_REPORTS : 1;
    plain_sayf(p, "Training a fresh model by %s's recorded recipe, %d steps; a report every %d "
                  "steps.", s->model->cfg.name, steps, every);
    int rc;
    while ((rc = session_train_repeat_step(s)) > 0 && rc != 3) {
        int n = repeat_run_steps_done(rrun);
        if (rc == 2 && (n % every == 0 || n == steps))
            say_repeat_point(p, n == 0 ? "Before training," : n == steps ? "Done at" : "At");
    }
    if (rc < 0) {
        plain_sayf(p, "Training stopped: %s", s->train.err);
        return 1;
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
    WatchRun *run = p->s->train.run;
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
    Session *s = p->s;
    Change ch;
    if (req != REQ_TRAIN_RUN) /* w is the Session's */
        return 0;
    if (session_train_repeat_page(s->model))
        return plain_train_repeat(p);
    /* t: the Session starts the run (or refuses); a line interface has no keys to answer
     * between slices, so it trains to the end at once */
    session_request(s, REQ_TRAIN_RUN, NULL, &ch);
    if (ch.kind != CH_TRAIN || !s->train.running) {
        if (ch.kind == CH_TRAIN) /* paused: plain mode never is; go on */
            session_request(s, REQ_TRAIN_RUN, NULL, &ch);
        if (ch.kind != CH_TRAIN) {
            plain_change(p, &ch);
            return 1;
        }
    }
    WatchRun *run = s->train.run;
    int steps = watch_opts(run)->steps, every = steps / TRAIN_REPORTS > 0 ? steps / TRAIN_REPORTS : 1;
    plain_sayf(p, "Training %d steps with the causal mask %s; a report every %d steps.", steps,
               s->train.causal ? "on" : "OFF (the cheating run)", every);
    if (watch_steps_done(run) == 0)
        say_point(p, "Before training,");
    int rc;
    while ((rc = session_train_step(s)) > 0 && !s->train.done)
        if (watch_steps_done(run) % every == 0)
            say_point(p, "At");
    if (rc < 0) {
        plain_sayf(p, "Training stopped: %s", s->train.err);
        return 1;
    }
    say_point(p, "Done at");
    char gen[200];
    if (watch_generate(run, TRAIN_PROMPT, 12, gen, sizeof gen) >= 0)
        plain_sayf(p, "It continues \"%s\" as: %s", TRAIN_PROMPT, gen);
    plain_say(p, "w writes the trained model; r resets, then m switches the mask and t trains "
                 "again.");
    return 1;
}
