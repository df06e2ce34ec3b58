/* repeat_run.c - the repeated-sequence task trained live by a model file's recorded recipe,
 * measured like `attend train` measures its history (see repeat_run.h). */
#include "repeat_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

struct RepeatRun {
    Model m;
    TrainOpts o;
    int every;
    Trainer *t;
    HeadsHistory hist;
    int measured;          /* the step of the last point measured, -1 before any */
    char err[512];
};

/* A number of the record: o (double) or -1 with "training.KEY: ..." in err. */
static int rec_num(const cJSON *rec, const char *key, double lo, double hi, double *out,
                   char *err, size_t errlen)
{
    char what[64];
    snprintf(what, sizeof what, "training.%s", key);
    if (json_get_number(rec, key, out, what, err, errlen))
        return -1;
    if (!(*out >= lo && *out <= hi)) {
        snprintf(err, errlen, "%s is %g, expected %g..%g", what, *out, lo, hi);
        return -1;
    }
    return 0;
}

int repeat_recipe_read(const Model *m, TrainOpts *o, int *history_every, char *err,
                       size_t errlen)
{
    const char *who = m->path[0] ? m->path : "the model";
    char msg[300];
    RepeatOpts ro;
    cJSON *rec = m->training ? json_parse_text("training", m->training, strlen(m->training),
                                               msg, sizeof msg)
                             : NULL;
    const cJSON *task = rec ? json_get(rec, "task") : NULL;
    if (!cJSON_IsString(task) || strcmp(task->valuestring, "repeat")) {
        /* the task first, then the schedule's keys, then the "repeat" object */
        repeat_record_task(m->training, &ro, msg, sizeof msg);
        snprintf(err, errlen, "%s: %s (retrain it with make models)", who, msg);
        cJSON_Delete(rec);
        return -1;
    }
    train_opts_defaults(o);
    double v[11];
    static const char *const KEYS[11] = {"seq_len", "steps", "batch", "lr", "seed", "warmup",
                                         "min_lr_ratio", "weight_decay", "clip",
                                         "history_every", NULL};
    static const double LO[10] = {3, 1, 1, 0, 0, 0, 0, 0, 0, 1};
    static const double HI[10] = {4096, 1e6, 4096, 1, 1e15, 1e6, 1, 1, 1e3, 1e6};
    int rc = 0;
    for (int i = 0; KEYS[i] && !rc; i++)
        rc = rec_num(rec, KEYS[i], LO[i], HI[i], &v[i], msg, sizeof msg);
    if (!rc)
        rc = repeat_record_task(m->training, &ro, msg, sizeof msg);
    if (!rc) {
        o->seq_len = (int)v[0];
        o->steps = (int)v[1];
        o->batch = (int)v[2];
        o->lr = (float)v[3];
        o->seed = (uint64_t)v[4];
        o->warmup = (int)v[5];
        o->min_lr_ratio = (float)v[6];
        o->weight_decay = (float)v[7];
        o->clip = (float)v[8];
        *history_every = (int)v[9];
        o->causal = 1;
        o->threads = 2;
        o->repeat = ro;
        if (repeat_check(&o->repeat, o->seq_len, msg, sizeof msg) || o->seq_len > m->cfg.max_len)
            rc = -1;
        if (rc && o->seq_len > m->cfg.max_len)
            snprintf(msg, sizeof msg, "training.seq_len %d exceeds max_len %d", o->seq_len,
                     m->cfg.max_len);
    }
    if (rc)
        snprintf(err, errlen, "%s: %s (retrain it with make models)", who, msg);
    cJSON_Delete(rec);
    return rc;
}

char *repeat_recipe_write(const char *cfg_path, const TrainOpts *o, int every, int done,
                          double avg, const HeadsHistory *h, double first, double second,
                          long tokens)
{
    char *hist = h->n ? heads_history_json(h) : NULL;
    if (h->n && !hist)
        return NULL;
    char head[1024];
    snprintf(head, sizeof head,
             "{\"config\": \"%s\", \"task\": \"repeat\", \"repeat\": {\"min_segment\": %d, "
             "\"max_segment\": %d, \"loss\": \"%s\"}, \"seq_len\": %d, \"steps\": %d, "
             "\"batch\": %d, \"lr\": %.6g, \"seed\": %llu, \"causal_mask\": true, \"warmup\": %d, "
             "\"min_lr_ratio\": %.6g, \"weight_decay\": %.6g, \"clip\": %.6g, "
             "\"history_every\": %d, "
             "\"final_train_loss\": %.4f, \"loss_first_copy\": %.4f, "
             "\"loss_second_copy\": %.4f, \"tokens\": %ld",
             cfg_path, o->repeat.min_seg, o->repeat.max_seg, repeat_loss_name(o->repeat.loss),
             o->seq_len, done, o->batch, (double)o->lr, (unsigned long long)o->seed, o->warmup,
             (double)o->min_lr_ratio, (double)o->weight_decay, (double)o->clip, every, avg, first,
             second, tokens);
    size_t n = strlen(head) + (hist ? strlen(hist) : 0) + 32;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s%s%s}", head, hist ? ", \"history\": " : "", hist ? hist : "");
    free(hist);
    return out;
}

RepeatRun *repeat_run_new(const Model *m, char *err, size_t errlen)
{
    RepeatRun *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->measured = -1;
    Vocab v;
    char msg[400];
    if (repeat_recipe_read(m, &r->o, &r->every, err, errlen)) {
        free(r);
        return NULL;
    }
    if (vocab_init_kind(&v, m->vocab.kind, (const char *const *)m->vocab.words, m->vocab.n, msg,
                        sizeof msg)) {
        snprintf(err, errlen, "vocabulary: %s", msg);
        free(r);
        return NULL;
    }
    if (model_new(&r->m, &m->cfg, &v, msg, sizeof msg)) {
        snprintf(err, errlen, "%s", msg);
        vocab_free(&v);
        free(r);
        return NULL;
    }
    HeadProbe p;
    heads_probe_defaults(m, &p); /* the recorded history's probes (heads_history_read) */
    r->t = train_new(&r->m, NULL, &r->o, 1, err, errlen);
    if (!r->t || heads_history_init(&r->hist, &r->m, &p)) {
        if (r->t)
            snprintf(err, errlen, "out of memory");
        repeat_run_free(r);
        return NULL;
    }
    return r;
}

int repeat_run_step(RepeatRun *r)
{
    int rc = train_step(r->t);
    if (rc < 0)
        snprintf(r->err, sizeof r->err, "%s", train_error(r->t));
    return rc;
}

int repeat_run_due(const RepeatRun *r)
{
    int s = train_step_count(r->t);
    return s != r->measured && (s % r->every == 0 || s == r->o.steps);
}

int repeat_run_measure(RepeatRun *r)
{
    int s = train_step_count(r->t);
    if (heads_history_add(&r->hist, &r->m, s, s ? train_last_loss(r->t) : NAN, r->err,
                          sizeof r->err))
        return -1;
    r->measured = s;
    return 0;
}

const HeadsHistory *repeat_run_history(const RepeatRun *r) { return &r->hist; }
const Model *repeat_run_model(const RepeatRun *r) { return &r->m; }
const TrainOpts *repeat_run_opts(const RepeatRun *r) { return &r->o; }
int repeat_run_steps_done(const RepeatRun *r) { return train_step_count(r->t); }
const char *repeat_run_error(const RepeatRun *r) { return r->err; }

int repeat_run_save(const RepeatRun *r, const char *path, char *err, size_t errlen)
{
    return model_save(&r->m, path, err, errlen);
}

void repeat_run_free(RepeatRun *r)
{
    if (!r)
        return;
    train_free(r->t);
    heads_history_free(&r->hist);
    model_free(&r->m);
    free(r);
}
