/* lesson.h - the course as data: Course / Lesson / Page / Widget / Question, the loader and
 * validator for lessons/NN-name.json (docs/lessons.md), and live placeholders in prose.
 * No curses, no printing, no exit(). */
#ifndef ATTEND_LESSON_H
#define ATTEND_LESSON_H

#include <stddef.h>

#include "explain.h"
#include "model.h"

/* Widget kinds a page can show. */
typedef enum {
    W_NONE,       /* prose only */
    W_HEATMAP,    /* attention weights (or scores) of one layer/head, or all heads of a layer */
    W_CHIPS,      /* token chips: swap two, verdict on permutation equivariance */
    W_PASSPORT,   /* step through the block's tensors with shapes and formulas */
    W_MATRIX,     /* any traced tensor by name */
    W_WORKED,     /* attention hand-worked on matrices given in the lesson (model_worked) */
    W_SCALING,    /* the sqrt(d_k) experiment (explain_scaling) */
    W_KVCACHE,    /* generation one token at a time with a KV cache (explain_kvcache) */
    W_COST,       /* the cost of attention as N grows (explain_cost) */
    W_PARAMS,     /* the parameter count of a configuration (explain_params) */
    W__COUNT
} WidgetKind;

/* Controls a page may let the learner use (bit flags). */
enum {
    C_MASK = 1 << 0,      /* m: causal mask on/off */
    C_PE = 1 << 1,        /* p: none -> sinusoidal -> learned -> rope */
    C_SCALE = 1 << 2,     /* s: 1/sqrt(d_k) on/off */
    C_HEAD = 1 << 3,      /* h / ]: next head, H / [: previous */
    C_LAYER = 1 << 4,     /* l: next layer */
    C_ALL_HEADS = 1 << 5, /* a: all heads of the layer as small multiples */
    C_CURSOR = 1 << 6,    /* arrows / hjkl move a cell cursor that inspects q·k, score, mask */
    C_SCORES = 1 << 7,    /* v: weights <-> pre-softmax scores */
    C_EDIT = 1 << 8,      /* e: type a new sentence */
    C_SWAP = 1 << 9,      /* chips: pick two to swap */
    C_RESET = 1 << 10,    /* r: original order / starting controls */
    C_STEP = 1 << 11,     /* n / N: passport steps */
    C_PADDING = 1 << 12,  /* d: padding mask on/off */
    C_TENSOR = 1 << 13,   /* t: pick a traced tensor (matrix widget) */
    C_DK = 1 << 14,       /* + / -: double / halve d_k (scaling widget) */
    C_N = 1 << 15,        /* + / -: double / halve N (cost widget) */
    C_TIE = 1 << 16,      /* t: tied embeddings on/off (params widget) */
    C_GQA = 1 << 17,      /* g: grouped-query attention on/off (params widget) */
};

/* The starting state of a widget. */
typedef struct {
    char sentence[256];
    char target[256];     /* decoder sentence for encoder-decoder models, "" otherwise */
    char model[256];      /* as written: "" = default (data/decoder.json); a bare name such as
                             "translate.json" is data/NAME; a name with '/' is relative to
                             the lesson file's directory */
    int causal;           /* -1: the model's default */
    int padding;          /* -1: default (on) */
    int pe;               /* PeKind, -1: the model's own */
    int scale;            /* 1/0 (default 1) */
    int layer, head;
    int cross;            /* 1: show cross-attention (encoder-decoder) */
    int scores;           /* 1: start in scores mode */
    int all_heads;        /* 1: start with small multiples */
    int order[64];        /* starting order; n_order 0 = identity */
    int n_order;
    int step;             /* passport and worked: step from 0; kvcache: tokens 1..n */
    char tensor[40];      /* matrix widget: trace name, e.g. "L0.h0.q" */
    int d_k;              /* scaling widget: 1..1024 (default 64) */
    int n;                /* cost widget: tokens 1..8192 (default 16) */
    int tied;             /* params widget: -1 the config's, else 0/1 */
    int gqa;              /* params widget: -1 the config's, else 0/1 */
} WidgetStart;

/* Matrices of a worked widget (at most WORKED_MAX x WORKED_MAX each), row-major. */
#define WORKED_MAX 8
typedef struct {
    int nq, nk, dk, dv;
    float q[WORKED_MAX * WORKED_MAX];   /* (nq, dk) */
    float k[WORKED_MAX * WORKED_MAX];   /* (nk, dk) */
    float v[WORKED_MAX * WORKED_MAX];   /* (nk, dv) */
    char labels[WORKED_MAX][16];        /* position i's name: "labels" or "t0", "t1", ... */
} WorkedSpec;

typedef struct {
    WidgetKind kind;
    WidgetStart start;
    unsigned controls;    /* C_* the learner may use on this page */
    int model_index;      /* into Course.models (every page has one, kind none included);
                             -1 when the model failed to load (then the lesson is broken) */
    WorkedSpec worked;    /* kind worked: the matrices */
    ParamConfig params;   /* kind params: the configuration ("config", or the page model's) */
    int has_params;       /* 1: "config" was given */
    char params_name[64]; /* its "name", or the model's */
} Widget;

typedef struct {
    char *json;           /* the question object as JSON text (owned); quiz.c interprets it */
    char id[48];
    char kind[16];        /* "choice", "multi", "number", "shape", "cell", "text", "drill" */
} Question;

typedef struct {
    char title[128];
    char *prose;          /* owned; may contain {{placeholders}} */
    char *notes;          /* owned speaker notes, or NULL */
    Widget widget;
    int n_questions;
    Question *questions;  /* owned */
} Page;

typedef struct {
    char id[48];
    char title[128];
    char file[512];       /* path it came from */
    int n_requires;
    char (*requires)[48]; /* ids of lessons to take first */
    int n_pages;
    Page *pages;
    int broken;           /* 1: failed to load; error says why, no pages */
    char error[512];
} Lesson;

/* One problem found by the validator. */
typedef struct {
    char msg[600];        /* "lessons/03-mask.json:12:5: unknown key \"widgt\"" or
                             "lessons/03-mask.json: pages[2].prose: placeholder {{wieght 1 2}} ..." */
    int lesson;           /* index into Course.lessons, -1 for the course itself */
} LessonProblem;

/* A model used by some widget, loaded once per course. */
typedef struct {
    char name[256];       /* as written in the lesson ("" = default) */
    char path[1024];      /* resolved file */
    Model model;          /* valid when ok */
    int ok;
    char error[600];
} CourseModel;

typedef struct {
    char dir[512];
    int n_lessons;
    Lesson *lessons;      /* sorted by file name (the NN- prefix) */
    int n_models;
    CourseModel **models; /* owned; pointers stay valid until lesson_free_course */
    int n_problems;
    LessonProblem *problems; /* every problem found, in file order */
    int n_pages;          /* pages over all loaded lessons */
} Course;

/* ---- Loading and validation (lesson.c) ---- */

/* Loads every DIR/NN-*.json (file names starting with a digit, sorted) into c, and every
 * model their widgets name. Each file is validated strictly (docs/lessons.md): syntax with
 * file:line:col, unknown and missing keys by JSON path and line:col, widget kinds, control
 * names, layer/head ranges, sentence words and length, start.order. A lesson with any
 * problem is kept with broken = 1, no pages, and its first problem in error; every problem
 * is appended to c->problems. Placeholders are NOT checked here (lesson_check_placeholders).
 * Returns 0 when the directory was read (even if some lessons are broken; see
 * c->n_problems), -1 with a message in err when the directory cannot be read at all (c is
 * then empty but still safe to free). The caller owns c: lesson_free_course. */
int lesson_load_dir(Course *c, const char *dir, char *err, size_t errlen);
/* Frees everything c owns and zeroes it. Safe on a zeroed or failed Course. */
void lesson_free_course(Course *c);
/* Runs the engine on every page's starting state and expands its prose; each placeholder
 * that does not resolve is appended to c->problems (lessons stay playable: the player shows
 * the bad placeholder in place). Returns the number of problems added, -1 out of memory. */
int lesson_check_placeholders(Course *c);
/* Index of the lesson with this id, or -1. */
int lesson_find(const Course *c, const char *id);
/* The model of a page's widget, or NULL (kind none, or the model failed to load). */
const Model *lesson_model(const Course *c, const Page *p);

/* Name tables, shared with the player (footers, help): */
const char *lesson_widget_name(WidgetKind k);   /* "heatmap", ... */
int lesson_widget_parse(const char *s);         /* -1 if unknown */
const char *lesson_control_name(unsigned bit);  /* "mask", ...; NULL if not one C_* bit */
int lesson_control_parse(const char *s);        /* the C_* bit, or -1 */
/* The controls that do something on a widget kind (C_* bits). */
unsigned lesson_kind_controls(WidgetKind k);
/* 1: the kind runs the page's sentence through the model (heatmap, chips, passport, matrix,
 * kvcache); the other kinds need no sentence. */
int lesson_kind_needs_sentence(WidgetKind k);
/* 1: an explanation widget (worked, scaling, kvcache, cost, params): its numbers come from
 * explain.c through lesson_live_run, not from one model_forward. */
int lesson_kind_is_explain(WidgetKind k);
const char *lesson_mask_name(int causal, int padding); /* "none" "causal" "padding" "both" */
/* The mask model_forward actually applies on one attention sublayer of m (m may be NULL: a
 * worked example) given the causal and padding controls: an encoder-decoder's encoder
 * self-attention and its cross-attention get no causal mask. Named as lesson_mask_name.
 * Shared by the player's status line, the quiz's Setup line and {{mask}}. */
const char *lesson_sublayer_mask_name(const Model *m, Stack st, Sublayer sub, int causal,
                                      int padding);

/* The starting state of a widget, ready for model_forward: fills *ctl from the model's
 * defaults and the page's start (ctl->order points into w->start.order when n_order > 0,
 * else NULL), and tokenizes the sentence (and target for encoder-decoder models) into ids
 * (cap entries each). Returns 0, or -1 with a message (unknown words are not an error here;
 * the loader already reported them). */
int lesson_widget_state(const Widget *w, const Model *m, Controls *ctl, int *src, int *n,
                        int *tgt, int *n_tgt, int cap, char *err, size_t errlen);

/* The single place where quiz questions get their kind-specific check: calls
 * quiz_check_question (quiz.c). Returns 0, or -1 with a message in err. */
int lesson_check_question(const char *json, char *err, size_t errlen);
/* Applies a question's "state" object (JSON text; the keys of a widget's start) on top of
 * *s, with the same checks as the loader (m may be NULL: ranges unchecked). Used by the
 * quiz engine to run a question on its own setup. 0, or -1 with the first problem. */
int lesson_apply_state(const char *json, const Model *m, WidgetStart *s, char *err,
                       size_t errlen);

/* ---- Placeholders in prose (placeholder.c); syntax in docs/lessons.md ---- */
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
} PlaceholderCtx;

/* Copies prose to out with every {{...}} replaced by its value. Returns 0 when all
 * resolved; otherwise the number of placeholders that did not resolve: each is written in
 * place as "[?TEXT]" (for example "[?weight 9 9]") and the first error message goes to err
 * ("{{weight 9 9}}: row 9 out of range 0..5"). out is always NUL-terminated; when it is
 * too small the text is cut and -1 is returned with "prose too long" in err. */
int placeholder_expand(const char *prose, const PlaceholderCtx *ctx, char *out, size_t outlen,
                       char *err, size_t errlen);
/* Like placeholder_expand for one placeholder body without braces ("weight 2 3 .3"). */
int placeholder_value(const char *body, const PlaceholderCtx *ctx, char *out, size_t outlen,
                      char *err, size_t errlen);
/* Byte ranges of "[?...]" markers are found by the player by scanning out for "[?" ... "]"
 * written by placeholder_expand; PLACEHOLDER_BAD_OPEN is that prefix. */
#define PLACEHOLDER_BAD_OPEN "[?"

/* ---- Explanation widgets: their live state and numbers (live.c) ---- */

/* Worked steps, in order: Q K V, QKᵀ, ÷√d_k, +M, softmax, ·V. */
#define LIVE_WORKED_STEPS 6
#define LIVE_DK_MAX 1024
#define LIVE_N_MAX 8192

/* What the learner changes on an explanation widget (starts from the widget's start). */
typedef struct {
    int causal, scale;    /* worked: mask and 1/√d_k; scaling: which side the model uses */
    int step;             /* worked: 0..LIVE_WORKED_STEPS-1; kvcache: 1..n tokens */
    int d_k;              /* scaling: 1..LIVE_DK_MAX */
    long long n;          /* cost: 1..LIVE_N_MAX */
    int tied, gqa;        /* params */
} LiveState;

/* The numbers behind one explanation widget for its current LiveState. */
typedef struct {
    LiveState s;
    NamedValues nv;       /* published for {{x NAME}} */
    Trace *worked;        /* owned: worked's trace (model_worked), NULL otherwise */
    ScalingDemo scaling;
    KvCacheStep kv;
    int n_tokens;         /* kvcache: tokens of the sentence */
    CostPoint cost;
    ParamConfig pc;       /* params: the configuration with the toggles applied */
    ParamRow rows[PARAM_ROWS];
    int n_rows;
    long long total;
    int ok;               /* 1: the numbers are valid */
} LiveWidget;

/* Sets l->s from the widget's start (defaults: step 0 or 1 for kvcache, d_k 64, n 16, the
 * config's tying and GQA). l must be zeroed or freed before. */
void live_start(LiveWidget *l, const Widget *w, const Model *m);
/* Computes the numbers for l->s (clamped to their ranges). kvcache runs ids (n tokens) into
 * full and prefix (each able to hold n tokens) and then reads them: prefix holds the run of
 * the first step tokens. m is the page's model (sizes for cost, params without a config,
 * kvcache). Returns 0, or -1 with a message (l->ok 0). Allocates only worked's trace. */
int live_run(LiveWidget *l, const Widget *w, const Model *m, const int *ids, int n,
             Trace *full, Trace *prefix, char *err, size_t errlen);
/* Frees what live_run allocated; l stays usable (zeroed). */
void live_free(LiveWidget *l);
/* Points ctx at l's numbers: {{x NAME}} reads l->nv; worked pages read l->worked as the
 * trace (with no model: the model's sizes are not placeholders there), kvcache pages the
 * prefix run. */
void live_ctx(const LiveWidget *l, const Widget *w, const Model *m, const Trace *prefix,
              PlaceholderCtx *ctx);

/* One run of a widget's starting state, as check-lessons and the quiz need it: model widgets
 * run their sentence through model_forward (t, with a and b for {{equivariance}}); kvcache
 * runs the prefix (t) and the full sentence (a); the other explanation widgets go through
 * live. Owns everything it holds. */
typedef struct {
    int *src, *tgt;
    Trace *t, *a, *b;
    LiveWidget live;
} LessonRun;

/* Runs w's start on m and fills ctx to read it (ctx->trace stays NULL for a page that runs no
 * sentence, which is not an error). 0, or -1 with a message; free r either way. */
int lesson_run(LessonRun *r, const Widget *w, const Model *m, PlaceholderCtx *ctx, char *err,
               size_t errlen);
void lesson_run_free(LessonRun *r);
/* The step names of the worked widget ("Q, K, V", "QKᵀ", ...). */
const char *live_worked_step_name(int step);

#endif
