/* placeholder.h - live values in lesson prose: {{weight 2 3}}, {{shape L0.h0.q}}, ...
 * (syntax in docs/lessons.md), read from one PlaceholderCtx that widget.c fills. Depends on
 * the engine only. No curses, no printing. */
#ifndef ATTEND_PLACEHOLDER_H
#define ATTEND_PLACEHOLDER_H

#include <stddef.h>

#include "explain.h"
#include "model.h"

/* What placeholders read: one widget run. Filled by widget_ctx (widget.c) only. */
typedef struct {
    const Model *model;
    const Trace *trace;   /* the current run: its controls, tokens and order are read here */
    Trace *eq_a, *eq_b;   /* scratch traces (capacity >= trace's) for {{equivariance}};
                             may be NULL, then that placeholder is an error */
    int layer, head;      /* the widget's current layer and head */
    int cross;            /* 1: weight/score/rowsum read cross-attention (encoder-decoder) */
    int ascii;            /* 1: write "x" and "-inf" instead of "×" and "−∞" */
    const NamedValues *nv; /* what an explanation widget publishes, for {{x NAME}}; or NULL */
    const char (*labels)[16]; /* a worked trace's position names for {{token i}}, or NULL */
    int n_labels;
    int opened;           /* 1: the model is the one the learner opened (attend --model) */
} PlaceholderCtx;

/* Copies prose to out with every {{...}} replaced by its value. Returns 0 when all
 * resolved; otherwise the number of placeholders that did not resolve: each is written in
 * place as "[?TEXT]" (for example "[?weight 9 9]") and the first error message goes to err
 * ("{{weight 9 9}}: row 9 out of range 0..5"). out is always NUL-terminated; when it is
 * too small the text is cut and -1 is returned with "prose too long" in err. */
int placeholder_expand(const char *prose, const PlaceholderCtx *ctx, char *out, size_t outlen,
                       char *err, size_t errlen);
/* One placeholder or block marker that did not resolve: off is the byte offset of its "{{" in
 * the prose, msg the message ("{{token 5}}: position 5 out of range 0..3"). */
typedef struct {
    size_t off;
    char msg[320];
} PlaceholderFail;

/* placeholder_expand, recording up to max failures (fails may be NULL) in prose order;
 * *n_fails (may be NULL) gets how many there were (even beyond max). Same return value. */
int placeholder_expand_fails(const char *prose, const PlaceholderCtx *ctx, char *out,
                             size_t outlen, PlaceholderFail *fails, int max, int *n_fails);
/* Checks what needs no run: every {{...}} closed on its line, every name known with its
 * number of arguments, {{if}}/{{elif}}/{{else}}/{{end}} nested right, every condition well
 * formed. 0, or -1 with the first problem in *fail (its offset and message). */
int placeholder_syntax(const char *prose, PlaceholderFail *fail);
/* The run-free checks of one placeholder body (name, arguments, precision). 0 or -1. */
int placeholder_check(const char *body, char *err, size_t errlen);
/* Evaluates a condition ("argmax 5 == 2 and ties 5 == 1") on ctx: *truth 0 or 1. A term
 * past the end of the run (PLACEHOLDER_ABSENT) makes its comparison false. 0, or -1 with a
 * message (a term that does not resolve for another reason, a malformed condition). */
int placeholder_condition(const char *cond, const PlaceholderCtx *ctx, int *truth, char *err,
                          size_t errlen);
/* placeholder_value's return value for an index past the end of the run (a row, column or
 * position beyond a shorter sentence): the one failure a condition reads as false. */
#define PLACEHOLDER_ABSENT (-2)

/* Like placeholder_expand for one placeholder body without braces ("weight 2 3 .3"); -1 or
 * PLACEHOLDER_ABSENT when it does not resolve. The block words (if, elif, else, end, assert)
 * are not values: they are errors here. */
int placeholder_value(const char *body, const PlaceholderCtx *ctx, char *out, size_t outlen,
                      char *err, size_t errlen);
/* The value of a placeholder body as a number, exactly as a reader of the prose sees it: with
 * the author's precision when the body gives one (".4"), else with 6 decimals; -inf and inf
 * for masked scores. *exact (may be NULL) is 1 when the placeholder as written prints no
 * decimals (a count, a position: {{entries}}, {{n}}, {{argmax 2}}). 0, or -1 with a message
 * ("{{token 1}} is \"cat\", not a number"). */
int placeholder_number(const char *body, const PlaceholderCtx *ctx, double *v, int *exact,
                       char *err, size_t errlen);
/* Byte ranges of "[?...]" markers are found by the player by scanning out for "[?" ... "]"
 * written by placeholder_expand; PLACEHOLDER_BAD_OPEN is that prefix. */
#define PLACEHOLDER_BAD_OPEN "[?"

/* {{curve SERIES}}, {{hist SERIES STEP}}, {{phase}}: the model's recorded training history
 * (placeholder_hist.c; docs/lessons.md). av[0] is the name. 0, or -1 with a message. */
int placeholder_history(int ac, char **av, int prec, const PlaceholderCtx *ctx, char *out,
                        size_t outlen, char *err, size_t errlen);

/* {{effect BY FIELD}}, {{effectsame}}, {{rollout FIELD}}, {{circuit L H FIELD}}: what a head
 * does, computed by the engine's lens and circuits on the page's run (placeholder_lens.c;
 * docs/lessons.md). av[0] is the name. 0, or -1 with a message. */
int placeholder_lens(int ac, char **av, int prec, const PlaceholderCtx *ctx, char *out,
                     size_t outlen, char *err, size_t errlen);

#endif
