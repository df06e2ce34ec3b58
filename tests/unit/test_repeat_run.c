/* test_repeat_run.c - live training of the induction model by its recorded recipe
 * (repeat_run.c): the recipe read from data/induction.json's training record, and a live run
 * that retraces the recorded history (same losses and head scores at the first points), plus
 * the messages for a model without the record. Run from the repository root. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repeat_run.h"
#include "t.h"

int main(void)
{
    Model m;
    char err[600];
    if (model_load(&m, "data/induction.json", err, sizeof err)) {
        printf("cannot load data/induction.json: %s\n", err);
        return 1;
    }
    TrainOpts o;
    int every = 0;
    CHECK(repeat_recipe_read(&m, &o, &every, err, sizeof err) == 0, "recipe: %s", err);
    CHECK(o.repeat.on && o.repeat.min_seg >= 2 && o.repeat.max_seg >= o.repeat.min_seg &&
          o.steps > 0 && every > 0 && o.seq_len <= m.cfg.max_len, "recipe fields");
    HeadsHistory rec;
    CHECK(heads_history_read(&m, &rec, err, sizeof err) == 0 && rec.n > 3, "recorded: %s", err);

    RepeatRun *r = repeat_run_new(&m, err, sizeof err);
    CHECK(r != NULL, "run: %s", err);
    if (r && rec.n > 3) {
        CHECK(repeat_run_due(r) && repeat_run_steps_done(r) == 0, "step 0 is due first");
        /* the first three recorded points, retraced step by step */
        int pts = 3, bad = 0;
        while (repeat_run_history(r)->n < pts && !bad) {
            if (repeat_run_due(r))
                bad = repeat_run_measure(r) != 0;
            else
                bad = repeat_run_step(r) != 0;
        }
        CHECK(!bad, "ran: %s", repeat_run_error(r));
        CHECK(!repeat_run_due(r), "a point is measured once");
        const HeadsHistory *h = repeat_run_history(r);
        for (int i = 0; i < pts && i < h->n; i++) {
            CHECK(h->step[i] == rec.step[i], "point %d at step %d, recorded %d", i, h->step[i],
                  rec.step[i]);
            CHECK(fabsf(h->loss_second[i] - rec.loss_second[i]) < 1e-3f &&
                      fabsf(h->loss_first[i] - rec.loss_first[i]) < 1e-3f,
                  "point %d: copies' losses %.4f %.4f, recorded %.4f %.4f", i, h->loss_first[i],
                  h->loss_second[i], rec.loss_first[i], rec.loss_second[i]);
            float worst = 0;
            for (int k = 0; k < h->n_heads * HEADS_N_SCORES; k++) {
                float d = fabsf(h->scores[(size_t)i * h->n_heads * HEADS_N_SCORES + k] -
                                rec.scores[(size_t)i * rec.n_heads * HEADS_N_SCORES + k]);
                worst = d > worst ? d : worst;
            }
            CHECK(worst < 1e-3f, "point %d: head scores differ by up to %g", i, (double)worst);
        }
        /* the live model is not the shipped one: it starts from fresh weights */
        CHECK(repeat_run_model(r) != &m && repeat_run_model(r)->n_floats == m.n_floats,
              "a model of its own, the same size");
    }
    repeat_run_free(r);
    heads_history_free(&rec);

    /* a model whose record has no recipe: a message naming the file and the task */
    free(m.training);
    m.training = strdup("{\"config\": \"x.json\", \"task\": \"lm\"}");
    CHECK(repeat_run_new(&m, err, sizeof err) == NULL && strstr(err, "induction.json") &&
          strstr(err, "repeat"), "not a repeat model: %s", err);
    free(m.training);
    m.training = strdup("{\"task\": \"repeat\", \"seq_len\": 48, \"steps\": 10}");
    CHECK(repeat_run_new(&m, err, sizeof err) == NULL && strstr(err, "training.batch"),
          "a missing key is named: %s", err);
    model_free(&m);
    return t_done("repeat_run");
}
