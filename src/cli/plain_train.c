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

/* What a report at step is called: before training, at a step, done. */
static const char *when(int step, int total)
{
    return step == 0 ? "Before training," : step == total ? "Done at" : "At";
}

/* A replay page's report: the latest point of the live run's history, said in words. */
static void say_repeat_point(Session *s, int step, int total, int every, void *ctx)
{
    Plain *p = ctx;
    const HeadsHistory *h = repeat_run_history(s->train.rep.run);
    const Model *m = repeat_run_model(s->train.rep.run);
    int nh = m->cfg.n_heads, L = m->cfg.n_layers;
    if (step < 0) {
        plain_sayf(p, "Training a fresh model by %s's recorded recipe, %d steps; a report "
                      "every %d steps.", s->model->cfg.name, total, every);
        return;
    }
    if (!h->n)
        return;
    int bp = session_history_best(h, nh, 0, 0), bi = session_history_best(h, nh, L - 1, 1);
    plain_sayf(p, "%s step %d: second-copy loss %.2f, first-copy loss %.2f; layer 0 head %d "
                  "previous-token score %.2f, layer %d head %d induction score %.2f.",
               when(step, total), h->step[h->n - 1], h->loss_second[h->n - 1],
               h->loss_first[h->n - 1], bp, session_history_last(h, nh, 0, bp, 0), L - 1, bi,
               session_history_last(h, nh, L - 1, bi, 1));
}

/* The train widget's report: the run measured now, said in words. */
static void say_point(Session *s, int step, int total, int every, void *ctx)
{
    Plain *p = ctx;
    WatchPoint pt;
    WatchRun *run = s->train.run;
    if (step < 0)
        plain_sayf(p, "Training %d steps with the causal mask %s; a report every %d steps.", total,
                   s->train.causal ? "on" : "OFF (the cheating run)", every);
    else if (watch_measure(run, &pt))
        plain_sayf(p, "%s: could not measure: %s", when(step, total), watch_error(run));
    else
        plain_sayf(p, "%s step %d: training loss %.2f, held-out loss %.2f; the best head is "
                      "layer %d head %d, previous-token weight %.2f.", when(step, total), pt.step,
                   pt.train_loss, pt.heldout_loss, pt.best_layer, pt.best_head, pt.best_prev);
}

int plain_train(Plain *p, Request req)
{
    Session *s = p->s;
    Change ch;
    if (req != REQ_TRAIN_RUN) /* w is the Session's */
        return 0;
    /* t: the Session starts the run (or refuses) and, a line interface having no keys to
     * answer between slices, trains it to the end at once */
    int rep = session_train_repeat_page(s->model);
    int rc = session_train_to_end(s, TRAIN_REPORTS, rep ? say_repeat_point : say_point, p, &ch);
    if (rc == 0)
        plain_change(p, &ch);
    else if (rc < 0)
        plain_sayf(p, "Training stopped: %s", s->train.err);
    else if (rep) {
        int ph = heads_history_phase(repeat_run_history(s->train.rep.run));
        if (ph >= 0)
            plain_sayf(p, "The phase change: the second-copy loss fell below half its start at "
                          "step %d.", ph);
        else
            plain_say(p, "No phase change: the second-copy loss never fell below half its "
                         "start.");
        plain_say(p, "w writes the trained model.");
    } else {
        char gen[200];
        if (watch_generate(s->train.run, TRAIN_PROMPT, 12, gen, sizeof gen) >= 0)
            plain_sayf(p, "It continues \"%s\" as: %s", TRAIN_PROMPT, gen);
        plain_say(p, "w writes the trained model; r resets, then m switches the mask and t "
                     "trains again.");
    }
    return 1;
}
