/* course.h - the course as data: Course / Lesson / Page / Widget / Question, plain C structs
 * the loaders fill (lesson.c, quiz_question.c) and everything above reads, and the name
 * tables of widget kinds and controls. No cJSON, no curses, no printing. */
#ifndef ATTEND_COURSE_H
#define ATTEND_COURSE_H

#include <stddef.h>

#include "explain.h"
#include "attend_limits.h"
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
    W_TRAIN,      /* a small decoder trained live: loss curves, a head forming (watch.c) */
    W_GENERATE,   /* a prompt continued token by token, the KV cache growing (gen_run) */
    W_LAB,        /* a lab's command and, after a check, the learner's matrix beside the engine's */
    /* what the parts of the residual stream do (src/course/probe.c over src/engine/lens.c): model
     * widgets (one model_forward) whose run adds the probe's numbers */
    W_LENS,       /* the logit lens: each block's top next-token guesses at one position */
    W_ATTRIB,     /* direct logit attribution: the top guess's logit split into its parts */
    W_PATCH,      /* activation patching: how much of a corrupted word's damage each head restores */
    W_ROLLOUT,    /* attention rollout through the layers (Abnar & Zuidema) */
    W_EFFECT,     /* attention vs effect: per head, where it looks, its push, the loss knocked out */
    W_PAIR,       /* two models side by side on repeats: each copy's loss, head scores, circuits */
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
    C_SAMPLE = 1 << 18,   /* t: greedy <-> sampling, + / -: temperature, s: seed (generate) */
};

/* The starting state of a widget. */
typedef struct {
    char sentence[256];
    char target[256];     /* decoder sentence for encoder-decoder models, "" otherwise */
    char model[256];      /* as written: "" = the lessons' default (data/decoder.json); a
                             bare name such as "translate.json" is data/NAME; a name with
                             '/' is relative to the lesson file's directory */
    int causal;           /* -1: the model's default */
    int padding;          /* -1: default (on) */
    int pe;               /* PeKind, -1: the model's own */
    int scale;            /* 1/0 (default 1) */
    int layer, head;
    int cross;            /* 1: show cross-attention (encoder-decoder) */
    int scores;           /* 1: start in scores mode */
    int all_heads;        /* 1: start with small multiples */
    int order[ATTEND_MAX_ORDER]; /* starting order; n_order 0 = identity */
    int n_order;
    int step;             /* passport and worked: step from 0; kvcache: tokens 1..n;
                             generate: tokens generated, from 0; the probe widgets: the
                             position, -1 the last */
    float temperature;    /* generate: 0 greedy (default), else sampling at (0, 100] */
    int seed;             /* generate: the sampler's seed (default 1, as attend generate) */
    char tensor[40];      /* matrix widget: trace name, e.g. "L0.h0.q" */
    int d_k;              /* scaling widget: 1..1024 (default 64) */
    int n;                /* cost widget: tokens 1..8192 (default 16) */
    int tied;             /* params widget: -1 the config's, else 0/1 */
    int gqa;              /* params widget: -1 the config's, else 0/1 */
    char corrupt[64];     /* patching widget: the word put at corrupt_pos ("corrupt") */
    int corrupt_pos;      /* patching widget: the position it replaces */
} WidgetStart;

/* The keys of a start object (and of a question's "state"), one bit each, in the order the
 * loader lists them (COURSE_START_KEYS). */
typedef enum {
    SK_MASK, SK_PE, SK_SCALE, SK_LAYER, SK_HEAD, SK_CROSS, SK_SCORES, SK_ALL_HEADS, SK_ORDER,
    SK_STEP, SK_TENSOR, SK_D_K, SK_N, SK_TIED, SK_GQA, SK_TEMPERATURE, SK_SEED, SK__COUNT
} StartKey;

/* A question's "state": the start keys it gives (bit 1 << SK_*) with their values in v; the
 * other fields of v mean nothing. course_apply_delta lays it over a page's start. */
typedef struct {
    unsigned keys;
    WidgetStart v;
} StartDelta;

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
    int opened_index;     /* "model": "@opened:NAME": the opened slot, whose model the page
                             runs on once the learner opened one (NAME's, model_index, until
                             then); -1 for any other "model" */
    WorkedSpec worked;    /* kind worked: the matrices */
    ParamConfig params;   /* kind params: the configuration ("config", or the page model's) */
    int has_params;       /* 1: "config" was given */
    char params_name[64]; /* its "name", or the model's */
    char lab[16];         /* lab widget: the lab's name (attend lab list) */
    int train_steps;      /* train widget: "steps", its run's length; 0: watch.c's default */
    const Model *model2;  /* pair widget: the second model ("model2"), a course model (its
                             pointer stays valid while the course is loaded); NULL otherwise */
    const struct CourseModel *model2_slot; /* "model2": "@opened:NAME": the opened slot, run
                             instead of model2 (NAME's) once the learner opened a model */
    char model2_name[256]; /* ... as written */
} Widget;

/* ---- questions (docs/lessons.md "Questions"), parsed once by the loader ---- */

typedef enum { QK_CHOICE, QK_MULTI, QK_NUMBER, QK_SHAPE, QK_CELL, QK_TEXT, QK_DRILL,
               QK__COUNT } QuizKind;

#define QUIZ_MAX_CHOICES 8
#define QUIZ_MAX_HINTS 4
#define QUIZ_MAX_TEXT 6      /* accepted free-text answers */
#define QUIZ_MAX_RANK 4
#define QUIZ_GRID_MAX 16     /* cell questions: the weights shown are at most 16×16 */
#define QUIZ_PROMPT_MAX 900  /* bytes of a question's prompt as written */
#define QUIZ_WHY_MAX 240     /* bytes of a choice's "why" as written (and expanded) */

/* One problem found by a loader or the placeholder check. */
typedef struct {
    char msg[600];        /* "lessons/03-mask.json:12:5: unknown key \"widgt\"" or
                             "lessons/03-mask.json: pages[2].prose: placeholder {{wieght 1 2}} ..." */
    int lesson;           /* index into Course.lessons, -1 for the course itself */
} LessonProblem;

/* A question as the author wrote it, typed. What needs the engine (compute, the prompt's
 * placeholders, drills) is evaluated when the quiz builds the question (quiz.c). */
typedef struct {
    char id[48];
    char kind_name[16];   /* as written ("choice", ...; "" when missing) */
    QuizKind kind;        /* valid when ok */
    int ok;               /* 1: the question passed the schema check */
    char prompt[QUIZ_PROMPT_MAX];
    char explain[800];
    int n_hints;
    char hints[QUIZ_MAX_HINTS - 1][300];
    int n_choices;        /* choice, multi */
    char choices[QUIZ_MAX_CHOICES][200];
    char why[QUIZ_MAX_CHOICES][QUIZ_WHY_MAX]; /* choice: "why" the choice is wrong, by the
                             author's index ("" for the answer, or when not given) */
    unsigned correct;     /* choice: the "answer" bit; multi: the "answers" bits */
    char compute[300];    /* number, shape, cell: a placeholder body, or "" (then answer);
                             longer bodies are cut here but stay too long for a placeholder */
    double number;        /* number: "answer" */
    double tolerance;     /* number: "tolerance", when has_tolerance */
    int has_tolerance;
    int rank, dims[QUIZ_MAX_RANK]; /* shape: "answer" */
    int row;              /* cell: the query row */
    int col;              /* cell: "answer" (a key column) */
    int n_text;           /* text: accepted answers as written */
    char text[QUIZ_MAX_TEXT][100];
    char drill[32];       /* drill: its name */
    int has_state;        /* 1: "state" was given (then state holds it) */
    StartDelta state;
    int n_state_problems; /* problems of "state" found at load (range, names, types), kept to
                             be reported by the placeholder check, which alone reports them */
    LessonProblem *state_problems; /* owned */
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

/* A model used by some widget, loaded once per course. */
typedef struct CourseModel {
    char name[256];       /* as written in the lesson ("" = default) */
    char path[1024];      /* resolved file */
    Model model;          /* valid when ok */
    int ok;
    char error[600];
    int opened_slot;      /* 1: written "@opened" (LESSON_OPENED): the model the learner
                             opened (attend --model), else the lessons' default model */
    int opened;           /* 1: model is the learner's (lesson_open_model) */
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

/* ---- name tables (course.c), shared by the loader, the player (footers, help), the quiz ---- */

const char *course_widget_name(WidgetKind k);   /* "heatmap", ...; "?" if out of range */
int course_widget_parse(const char *s);         /* -1 if unknown */
/* "none, heatmap, ..., params" (for messages). */
const char *course_widget_list(void);
const char *course_control_name(unsigned bit);  /* "mask", ...; NULL if not one C_* bit */
int course_control_parse(const char *s);        /* the C_* bit, or -1 */
/* The names of the C_* bits set in bits, joined by sep, into out. Returns out. */
const char *course_control_list(unsigned bits, const char *sep, char *out, size_t outlen);
/* The controls that do something on a widget kind (C_* bits). */
unsigned course_kind_controls(WidgetKind k);
/* 1: the kind runs the page's sentence through the model (heatmap, chips, passport, matrix,
 * kvcache, generate: its prompt); the other kinds need no sentence. */
int course_kind_needs_sentence(WidgetKind k);
/* 1: an explanation widget (worked, scaling, kvcache, cost, params, train, generate): its numbers come from
 * live.c through widget_run, not from one model_forward. */
int course_kind_is_explain(WidgetKind k);
/* 1: a probe widget (lens, attribution, patching, rollout, effect, pair): a model widget whose
 * run also fills the probe's numbers (probe.h). */
int course_kind_is_probe(WidgetKind k);
/* The JSON keys of a start object by StartKey, NULL-terminated. */
extern const char *const COURSE_START_KEYS[SK__COUNT + 1];
/* The start key of a JSON key ("mask", ...), -1 if unknown. */
int course_start_key_parse(const char *s);
/* 1: start key k does something on a widget of kind kind (the model widgets read the
 * original keys, each explanation kind its own). */
int course_start_key_ok(WidgetKind kind, StartKey k);
/* The defaults of a start before the lesson's keys: model defaults, scaling on. */
void course_start_defaults(WidgetStart *s);
/* Lays the keys d gives over s (a question's state over its page's start). */
void course_apply_delta(WidgetStart *s, const StartDelta *d);

#endif
