/* live.h - the explanation widgets (worked, scaling, kvcache, cost, params): their live
 * state, from a Widget's start and the learner's toggles, and the numbers explain.c computes
 * for it, published as NamedValues for {{x NAME}}. widget.c runs them; the views draw them.
 * No curses, no printing. */
#ifndef ATTEND_LIVE_H
#define ATTEND_LIVE_H

#include <stddef.h>

#include "course.h"
#include "explain.h"
#include "generate.h"
#include "model.h"

/* Worked steps, in order: Q K V, QKᵀ, ÷√d_k, +M, softmax, ·V. */
#define LIVE_WORKED_STEPS 6
#define LIVE_DK_MAX 1024
#define LIVE_N_MAX 8192
#define LIVE_SCALING_SEED 1 /* the √d_k experiment's vectors: the same d_k, the same vectors */
#define LIVE_TEMP_MAX 100.0   /* generate: the highest temperature (attend generate's too) */
#define LIVE_TEMP_DEFAULT 1.0 /* generate: the temperature t switches to from greedy */
#define LIVE_GEN_MAX 128      /* generate: tokens run at most (prompt and generated) */

/* What the learner changes on an explanation widget (starts from the widget's start). */
typedef struct {
    int causal, scale;    /* worked: mask and 1/√d_k; scaling: which side the model uses */
    int step;             /* worked: 0..LIVE_WORKED_STEPS-1; kvcache: 1..n tokens;
                             generate: tokens generated, from 0 */
    int d_k;              /* scaling: 1..LIVE_DK_MAX */
    long long n;          /* cost: 1..LIVE_N_MAX */
    int tied, gqa;        /* params */
    int sample;           /* generate: 1 sampling at temp from seed, 0 greedy */
    float temp;           /* generate: (0, LIVE_TEMP_MAX] */
    int seed;             /* generate: 0..2147483647 */
} LiveState;

/* The numbers behind one explanation widget for its current LiveState. */
typedef struct {
    LiveState s;
    NamedValues nv;       /* published for {{x NAME}} */
    Trace *worked;        /* owned: worked's trace (model_worked), NULL otherwise */
    ScalingDemo scaling;
    KvCacheStep kv;
    int n_tokens;         /* kvcache: tokens of the sentence */
    GenStep gen;          /* generate: the step's numbers */
    int gen_ids[LIVE_GEN_MAX]; /* generate: the prompt and the tokens generated (gen.n) */
    CostPoint cost;
    ParamConfig pc;       /* params: the configuration with the toggles applied */
    ParamRow rows[PARAM_ROWS];
    int n_rows;
    long long total;
    int ok;               /* 1: the numbers are valid */
    struct Probe *probe;  /* owned: a probe widget's numbers (probe.h; the lens, attribution,
                             patching, rollout, effect pages), NULL until one runs */
} LiveWidget;

/* Sets l->s from the widget's start (defaults: step 0 or 1 for kvcache, d_k 64, n 16, the
 * config's tying and GQA). l must be zeroed or freed before. */
void live_start(LiveWidget *l, const Widget *w, const Model *m);
/* Computes the numbers for l->s (clamped to their ranges). kvcache runs ids (n tokens) into
 * full and prefix (each able to hold n tokens) and then reads them: prefix holds the run of
 * the first step tokens. generate continues the prompt ids (n tokens) by step tokens: prefix
 * gets the last run, full the run of the step before (each able to hold the tokens run,
 * up to LIVE_GEN_MAX). m is the page's model (sizes for cost, params without a config,
 * kvcache). Returns 0, or -1 with a message (l->ok 0). Allocates only worked's trace. Called
 * by widget_run (widget.c), the one place a widget runs. */
int live_run(LiveWidget *l, const Widget *w, const Model *m, const int *ids, int n,
             Trace *full, Trace *prefix, char *err, size_t errlen);
/* The train widget's run length: the widget's "steps" (1..LIVE_TRAIN_STEPS_MAX) when it
 * gives them, else watch.c's default; what the Session trains, the player draws and
 * {{x steps}} publishes (into watch_opts_defaults' steps). */
#define LIVE_TRAIN_STEPS_MAX 100000
int live_train_steps(const Widget *w);
/* Frees what live_run allocated; l stays usable (zeroed). */
void live_free(LiveWidget *l);
/* The step names of the worked widget ("Q, K, V", "QKᵀ", ...). */
const char *live_worked_step_name(int step);

#endif
