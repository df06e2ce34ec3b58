/* session_train.c - the train widget's run, the Session's (session.h): a small decoder
 * (watch.c) trained on the course's corpus, its mask (set before it starts: off is the
 * cheating run), start and pause, reset to fresh weights, the head its heatmap shows, and
 * saving it; the same rules under the player (which trains in slices between keys and draws
 * its curves) and plain mode (which trains to the end at once, saying every tenth of it). A
 * page whose model records a repeated-sequence recipe (the induction model) is its front
 * end's replay instead (session_train_repeat_page). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "datapath.h"
#include "repeat_run.h"
#include "session.h"
#include "watch.h"

int session_train_repeat_page(const Model *m)
{
    /* asked at every key (session_key_state): the answer for the last model's training
     * record is kept, the record's text compared whole (parsing it is the cost) */
    static const Model *last_m;
    static char *last_training;
    static int last_answer;
    if (!m || m->cfg.arch != ARCH_DECODER || m->cfg.n_layers < 2 || !m->training)
        return 0;
    if (last_training && last_m == m && !strcmp(last_training, m->training))
        return last_answer;
    TrainOpts o;
    int every;
    char err[200];
    int answer = repeat_recipe_read(m, &o, &every, err, sizeof err) == 0;
    char *copy = strdup(m->training);
    if (copy) {
        free(last_training);
        last_training = copy;
        last_m = m;
        last_answer = answer;
    }
    return answer;
}

void session_train_free(Session *s)
{
    watch_free(s->train.run);
    repeat_run_free(s->train.rep.run);
    memset(&s->train, 0, sizeof s->train);
}

int session_train_causal(const Session *s)
{
    return s->train.run || s->train.set ? s->train.causal
                                        : s->w ? s->w->start.causal != 0 : 1;
}

/* Opens the run (first use) or resets it to step 0 with the current mask. 0, or -1 with
 * the reason in s->train.err. */
static int train_open(Session *s)
{
    SessionTrain *t = &s->train;
    if (!t->run) {
        char vp[1024], cp[1024], ep[1024];
        data_path("data/vocab.txt", vp, sizeof vp);
        data_path("data/corpus/english.txt", cp, sizeof cp);
        data_path("data/corpus/english-test.txt", ep, sizeof ep);
        WatchOpts o;
        watch_opts_defaults(&o);
        o.steps = live_train_steps(s->w);
        o.causal = t->causal;
        t->run = watch_new(vp, cp, ep, &o, t->err, sizeof t->err);
        if (!t->run)
            return -1;
    } else if (watch_reset(t->run, t->causal, t->err, sizeof t->err)) {
        return -1;
    }
    t->done = 0;
    t->fresh++;
    return 0;
}

static int refuse_train(Change *ch, ChangeWhy why, const char *detail)
{
    ch->kind = CH_REFUSED;
    ch->why = why;
    snprintf(ch->detail, sizeof ch->detail, "%s", detail ? detail : "");
    return 1;
}

/* t, r, w on a replay page: a fresh model trained live by the recipe (t pauses and goes on;
 * after the end, t starts another), back to the replay (r), saved (w). */
static int repeat_request(Session *s, Request req, Change *ch)
{
    SessionTrain *t = &s->train;
    ch->kind = CH_TRAIN;
    switch (req) {
    case REQ_TRAIN_RUN:
        if (t->rep.run && !t->rep.done) {
            t->rep.running = !t->rep.running;
            ch->to = t->rep.running;
            ch->a = repeat_run_steps_done(t->rep.run);
            return 1;
        }
        repeat_run_free(t->rep.run);
        t->rep.done = 0;
        t->rep.run = repeat_run_new(s->model, t->err, sizeof t->err);
        if (!t->rep.run)
            return refuse_train(ch, WHY_TRAIN_ERROR, t->err);
        t->rep.running = ch->to = ch->b = 1; /* a fresh run */
        ch->a = (int)repeat_run_opts(t->rep.run)->seed;
        return 1;
    case REQ_RESET:
        repeat_run_free(t->rep.run);
        t->rep.run = NULL;
        t->rep.running = t->rep.done = 0;
        ch->b = 2; /* the replay again */
        return 1;
    case REQ_SAVE:
        if (!t->rep.run || repeat_run_steps_done(t->rep.run) == 0)
            return refuse_train(ch, WHY_NOTHING_TRAINED, NULL);
        if (repeat_run_save(t->rep.run, SESSION_REPEAT_FILE, t->err, sizeof t->err))
            return refuse_train(ch, WHY_TRAIN_ERROR, t->err);
        ch->a = repeat_run_steps_done(t->rep.run);
        snprintf(ch->detail, sizeof ch->detail, "%s", SESSION_REPEAT_FILE);
        return 1;
    default:
        ch->kind = CH_NONE;
        return 0;
    }
}

int session_train_repeat_step(Session *s)
{
    SessionTrain *t = &s->train;
    RepeatRun *r = t->rep.run;
    if (!r || !t->rep.running)
        return 0;
    if (repeat_run_due(r)) {
        if (repeat_run_measure(r))
            goto failed;
        return 2;
    }
    if (repeat_run_steps_done(r) >= repeat_run_opts(r)->steps) {
        t->rep.running = 0;
        t->rep.done = 1;
        return 3;
    }
    if (repeat_run_step(r) < 0)
        goto failed;
    return 1;
failed:
    t->rep.running = 0;
    snprintf(t->err, sizeof t->err, "%s", repeat_run_error(r));
    return -1;
}

int session_train_request(Session *s, Request req, Change *ch)
{
    SessionTrain *t = &s->train;
    if (session_train_repeat_page(s->model))
        return repeat_request(s, req, ch);
    ch->kind = CH_TRAIN;
    switch (req) {
    case REQ_TRAIN_RUN:
        if (!t->run) {
            t->causal = session_train_causal(s);
            if (train_open(s))
                return refuse_train(ch, WHY_TRAIN_ERROR, t->err);
            ch->b = 1; /* a fresh run */
        } else if (t->done) {
            return refuse_train(ch, WHY_TRAIN_DONE, NULL);
        }
        t->running = !t->running;
        ch->to = t->running;
        ch->a = watch_steps_done(t->run);
        return 1;
    case REQ_TOGGLE_MASK:
        if (t->run && (watch_steps_done(t->run) > 0 || t->running))
            return refuse_train(ch, WHY_TRAIN_STARTED, NULL);
        ch->from = session_train_causal(s);
        t->causal = !ch->from;
        t->set = 1;
        ch->to = t->causal;
        if (t->run && watch_reset(t->run, t->causal, t->err, sizeof t->err))
            return refuse_train(ch, WHY_TRAIN_ERROR, t->err);
        return 1;
    case REQ_RESET:
        t->running = 0;
        ch->req = REQ_RESET;
        if (!t->run) {
            t->causal = s->w ? s->w->start.causal != 0 : 1;
            t->set = 0;
            ch->to = t->causal;
            return 1;
        }
        if (train_open(s))
            return refuse_train(ch, WHY_TRAIN_ERROR, t->err);
        ch->b = 1;
        ch->a = (int)watch_opts(t->run)->seed;
        return 1;
    case REQ_NEXT_HEAD: case REQ_PREV_HEAD: case REQ_NEXT_LAYER: case REQ_PREV_LAYER: {
        WatchOpts o;
        watch_opts_defaults(&o);
        int dh = req == REQ_NEXT_HEAD ? 1 : req == REQ_PREV_HEAD ? -1 : 0;
        int dl = req == REQ_NEXT_LAYER ? 1 : req == REQ_PREV_LAYER ? -1 : 0;
        t->head = (t->head + dh + o.n_heads) % o.n_heads;
        t->layer = (t->layer + dl + o.n_layers) % o.n_layers;
        ch->a = t->layer;
        ch->b = t->head;
        return 1;
    }
    case REQ_SAVE:
        if (!t->run || watch_steps_done(t->run) == 0)
            return refuse_train(ch, WHY_NOTHING_TRAINED, NULL);
        if (watch_save(t->run, SESSION_TRAIN_FILE, t->err, sizeof t->err))
            return refuse_train(ch, WHY_TRAIN_ERROR, t->err);
        ch->a = watch_steps_done(t->run);
        snprintf(ch->detail, sizeof ch->detail, "%s", SESSION_TRAIN_FILE);
        return 1;
    default:
        ch->kind = CH_NONE;
        return 0;
    }
}

int session_train_step(Session *s)
{
    SessionTrain *t = &s->train;
    if (!t->run || !t->running)
        return 0;
    int rc = watch_step(t->run);
    if (rc != 0 || watch_steps_done(t->run) >= watch_opts(t->run)->steps) {
        t->running = 0;
        t->done = 1;
        if (rc < 0) {
            snprintf(t->err, sizeof t->err, "%s", watch_error(t->run));
            return -1;
        }
    }
    return 1;
}

double session_history_last(const HeadsHistory *h, int n_heads, int layer, int head, int score)
{
    size_t k = (size_t)layer * (size_t)n_heads + (size_t)head;
    return h->n ? h->scores[((size_t)(h->n - 1) * (size_t)h->n_heads + k) * HEADS_N_SCORES +
                            (size_t)score]
                : NAN;
}

int session_history_best(const HeadsHistory *h, int n_heads, int layer, int score)
{
    int best = 0;
    for (int k = 1; k < n_heads; k++)
        if (session_history_last(h, n_heads, layer, k, score) >
            session_history_last(h, n_heads, layer, best, score))
            best = k;
    return best;
}
