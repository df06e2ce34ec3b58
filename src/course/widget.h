/* widget.h - one widget run: a page's widget (or a quiz question's copy of it) and its
 * current state go through the engine here, and only here: model_forward (or the equivariance
 * check) for the model widgets, live.c for the explanation widgets (the KV cache's prefix and
 * full runs included). The ONE place that fills a PlaceholderCtx. Used by the player,
 * check-lessons (the placeholder check and --show) and the quiz. A new widget kind is added
 * to the run here (and to live.c when it is an explanation). No curses, no printing. */
#ifndef ATTEND_WIDGET_H
#define ATTEND_WIDGET_H

#include <stddef.h>

#include "course.h"
#include "live.h"
#include "model.h"
#include "placeholder.h"

/* The traces one run writes: t is the run the views and placeholders read (kvcache: the run
 * of the prefix); eq_a and eq_b are scratch for the equivariance check and {{equivariance}}
 * (kvcache: eq_a holds the run of the full sentence). */
typedef struct {
    Trace *t, *eq_a, *eq_b;
} WidgetTraces;

/* Allocates the three traces, each for n tokens (and n_tgt decoder tokens) of m. 0, or -1
 * out of memory (tr is then empty). Free with widget_traces_free. */
int widget_traces_new(WidgetTraces *tr, const Model *m, int n, int n_tgt);
void widget_traces_free(WidgetTraces *tr);

/* What a run reads and writes. Every buffer is the caller's: a WidgetRun (below) holds them
 * for a one-shot run; the player keeps its own across keys. */
typedef struct {
    const Widget *w;         /* kind, start, worked matrices, params configuration */
    const Model *m;          /* the page's model */
    const int *src, *tgt;    /* token ids of the sentence (and of the decoder's target) */
    int n_src, n_tgt;
    const Controls *ctl;     /* mask, PE, scale and order of the model widgets */
    int layer, head, cross;  /* the attention the widget shows (placeholders read it) */
    int equiv;               /* 1: run the model widgets through the equivariance check (the
                                permuted run ends in t; chips, prose with {{equivariance}}) */
    LiveWidget *live;        /* explanation widgets: live->s in, the numbers out */
    WidgetTraces tr;
    int opened;              /* 1: m is the model the learner opened ({{opened}}) */
} WidgetIO;

/* The most tokens a sentence may have when its runs are kept in three traces
 * (widget_traces_new) of m: m's context (cfg.max_len), at most max, and as many as fit in
 * memory: one trace within TRACE_MAX_BYTES (trace_bytes: its map cache at its default budget
 * included), the three within half the memory available. why (may be NULL) gets the limit
 * that binds, for a message ("its context, max_len 1024", "memory: 58 tokens need 2100 MiB >
 * 2048 MiB"). */
int widget_token_cap(const Model *m, int max, char *why, size_t whylen);

/* The name a params widget's numbers are of: the page's "config" when it gives one, else the
 * model it runs on (the learner's, when one is opened; m may be NULL); "" when neither. */
const char *widget_params_name(const Widget *w, const Model *m);

/* The starting state of a widget, ready for model_forward: fills *ctl from the model's
 * defaults and the page's start (ctl->order points into w->start.order when n_order > 0,
 * else NULL), and tokenizes the sentence (and target for encoder-decoder models) into ids
 * (cap entries each). Returns 0, or -1 with a message (unknown words are not an error here;
 * the loader already reported them). */
int widget_state(const Widget *w, const Model *m, Controls *ctl, int *src, int *n, int *tgt,
                 int *n_tgt, int cap, char *err, size_t errlen);
/* The layer, head and cross-attention switch a widget starts on, kept inside m's ranges. */
void widget_view_start(const Widget *w, const Model *m, int *layer, int *head, int *cross);

/* Runs io's widget on its state: explanation widgets through live_run (kvcache: prefix in
 * tr.t, full sentence in tr.eq_a), the others through model_forward into tr.t, or, with
 * io->equiv, through model_equivariance (*equiv gets the gap, or stays -1 with the reason in
 * err even when the plain run that follows succeeds). Returns 0 when tr.t (or io->live) holds
 * the run, -1 with a message in err. equiv may be NULL when io->equiv is 0. */
int widget_run(const WidgetIO *io, float *equiv, char *err, size_t errlen);
/* Fills ctx to read io's run (ran: widget_run returned 0). A run that failed, or a page that
 * runs nothing, gives the model's sizes only. Explanation widgets publish their numbers
 * ({{x NAME}}); a worked widget's trace has no model and names its positions by its labels. */
void widget_ctx(const WidgetIO *io, int ran, PlaceholderCtx *ctx);

/* One run of a widget's starting state, as check-lessons and the quiz need it. Owns
 * everything it holds; must not be moved between widget_run_start and widget_run_free. */
typedef struct {
    Widget w;                /* the widget run (a copy: a question's state may be applied) */
    int *src, *tgt;          /* (m->cfg.max_len) each */
    int n_src, n_tgt;
    Controls ctl;
    LiveWidget live;
    WidgetIO io;
    int ran;                 /* 1: the run succeeded */
    PlaceholderCtx ctx;      /* reads the run (the model's sizes only when ran is 0) */
} WidgetRun;

/* Runs w's start on m (m not NULL) and fills r->ctx. A model widget with no sentence runs
 * nothing ({{d_model}} and friends still resolve), which is not an error. 0, or -1 with a
 * message; r->ctx is usable and r must be freed either way. */
int widget_run_start(WidgetRun *r, const Widget *w, const Model *m, char *err, size_t errlen);
void widget_run_free(WidgetRun *r);

/* The shape passport's steps for layer and head of stack st, as indices into t->entries (at
 * most max): layer 0 starts with the embedding steps (X, X·√d_model, PE, X + PE); a later
 * layer starts with its input, the previous layer's output (its last tensor); then the
 * layer's tensors of that head in the order computed, the mask right before +M,
 * cross-attention left out. Returns the count. The player's passport and its figure. */
int widget_passport_steps(const Trace *t, Stack st, int layer, int head, int *idx, int max);
/* A step's symbol and formula in the passport of layer: "L0 out" and "x = the output of
 * layer 0 ..." for the previous layer's output, else trace_kind_symbol / _formula. */
const char *widget_passport_symbol(const TraceEntry *e, int layer, char *buf, size_t n);
const char *widget_passport_formula(const TraceEntry *e, int layer, char *buf, size_t n);
/* The weights of a Hugging Face model's files a passport step uses, with the shapes the files
 * store ("in the files: h.0.attn.c_attn.weight [768, 2304], h.0.attn.c_attn.bias [2304]"), in
 * buf; "" for another model or a step that reads no weight. Returns buf. */
const char *widget_passport_weights(const TraceEntry *e, const Model *m, char *buf, size_t n);

#endif
