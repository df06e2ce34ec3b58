/* demo.h - demo scripts (docs/demos.md): a JSON list of steps a presenter plays one by one
 * (open a lesson's page, press keys, type a sentence, show a caption, pause), each with the
 * line:col it starts at for messages. Terminal-free; the keys are checked against the key
 * table by src/tui/demo_play.c. */
#ifndef ATTEND_DEMO_H
#define ATTEND_DEMO_H

#include <stddef.h>
#include <stdint.h>

#include "attend_limits.h"

#define DEMO_MAX_STEPS 200
#define DEMO_CAPTION_COLS 78 /* the caption row's width at 80x24 (layout.c: COLS - 2) */

/* Where a field of "expect" stands in the file; set: the step declares it. */
typedef struct {
    int set, line, col;
} DemoField;

/* The settings "expect" may name beside page, mask, pe, layer, head, sentence, order and
 * knocked_out: one number each (a bool 0/1), compared with the Session's (session_plan.c):
 * the view (scores before softmax, every head), the explanation widgets' settings (live.h)
 * and the player's focused pane (z). */
#define DEMO_EXPECT_SCALARS(X) \
    X(DX_SCORES, "scores", 0) X(DX_ALL_HEADS, "all_heads", 0) X(DX_SCALE, "scale", 0) \
    X(DX_STEP, "step", 1) X(DX_D_K, "d_k", 1) X(DX_N, "n", 1) X(DX_TIED, "tied", 0) \
    X(DX_GQA, "gqa", 0) X(DX_SAMPLE, "sample", 0) X(DX_TEMP, "temp", 2) \
    X(DX_SEED, "seed", 1) X(DX_FOCUS, "focus", 0)

typedef enum {
#define DEMO_X_ENUM(id, name, kind) id,
    DEMO_EXPECT_SCALARS(DEMO_X_ENUM)
#undef DEMO_X_ENUM
    DX__COUNT
} DemoExpectScalar;

/* The JSON name of scalar i ("d_k") and its kind: 0 a bool, 1 a whole number, 2 a number. */
const char *demo_expect_name(int i, int *kind);

#define DEMO_MAX_ORDER 64

/* The state a step declares it expects once it ran ("expect": {"page": "causal-mask:2",
 * "mask": "causal", "pe": "learned", "layer": 0, "head": 1, "sentence": "...", "order":
 * [1, 0, 2], "knocked_out": [[0, 1]], "scores": true, "d_k": 64, ...}): checked by the
 * runner (session_plan.h) when the step runs and by --check. */
typedef struct {
    int on;                  /* 1: the step has "expect" */
    DemoField page, mask, pe, layer, head, sentence, order, knocked;
    DemoField sc[DX__COUNT]; /* the scalars (DEMO_EXPECT_SCALARS) */
    double sc_v[DX__COUNT];
    char lesson[48];         /* page: the lesson id */
    int page_no;             /* page: from 1 */
    int causal, padding;     /* mask (names_mask) */
    int pe_kind;             /* pe (PeKind) */
    int layer_no, head_no;   /* as the screen numbers them, from 0 */
    char sentence_text[256];
    int order_v[DEMO_MAX_ORDER], n_order; /* order: the tokens' positions, as r/swaps left them */
    uint64_t knocked_v[ATTEND_MAX_LAYERS]; /* knocked_out: a bit per head, by layer */
} DemoExpect;

typedef struct {
    int line, col;           /* where the step's object starts in the file */
    int bad;                 /* 1: the step did not load (its message is in the errors) */
    char lesson[48];         /* "open": a lesson id ("" when the step opens nothing) */
    int page;                /* with open: the page, from 1 */
    char keys[256];          /* key names separated by spaces ("m", "space", "right") */
    char type[256];          /* a sentence to type into the page's editor ("" none) */
    char caption[300];       /* shown on the caption row from this step on ("" keeps it) */
    double pause;            /* extra seconds before the next step under --auto */
    char demo[256];          /* "demo": another demo or plan by name or path, played as one
                                step ("" none); a recording's plan position */
    int demo_to;             /* with demo: its first N steps ("to"; 0: all of them) */
    char quiz[48];           /* "quiz": a class quiz on that lesson's questions ("" none) */
    int quiz_count;          /* "count": questions (0: all of the lesson's) */
    unsigned long long quiz_seed; /* "seed" */
    int quiz_room;           /* "room": true opens a room for students' terminals */
    int quiz_port;           /* "port" (0: the default; -1: any free port) */
    char quiz_bind[64];      /* "bind": the room's address ("" every interface) */
    DemoExpect expect;       /* "expect": the state the step leaves (on 0: not declared) */
} DemoStep;

typedef struct {
    char path[512];
    char title[200];
    DemoStep steps[DEMO_MAX_STEPS];
    int n_steps;
} Demo;

/* Loads step s's "expect" of step object o (its text from off in text; path and step_no for
 * messages). 0 (none too), or -1 with every problem, one a line, each at its field's
 * "FILE:LINE:COL: step N: expect.FIELD: ..." (demo_expect.c). */
int demo_expect_load(DemoStep *s, const void *o, const char *text, size_t off,
                     const char *path, int step_no, char *err, size_t errlen);

/* Loads a demo script. 0, or -1 with every problem in err, one "FILE:LINE:COL: message" a
 * line: a step that does not load is marked bad and the others still load (d->n_steps
 * counts them all), so a checker can report every problem at once. */
int demo_load(Demo *d, const char *path, char *err, size_t errlen);

/* The file a demo argument names: the file itself when there is one, else the shipped demo
 * demos/ARG.json (ARG without ".json" too) in the data directory. Written to out, relative
 * to the current directory when it lies below it; 0, or -1 when there is no such demo. */
int demo_resolve(const char *arg, char *out, size_t n);

/* The words for step i of d for the teacher's notes: "step 9/18: causal-mask page 2",
 * "step 8/18: keys m (m: the causal mask...)", "step 3/5: a class quiz on causal-mask". */
void demo_step_words(const Demo *d, int i, char *out, size_t n);

/* err (a step's message, "FILE:LINE:COL: step N: ...") as the room may see it: without the
 * file, "plan step N: ...". Returns out. */
const char *demo_room_error(const char *err, char *out, size_t n);

/* A path as the room may see it: relative to the current directory when it lies below it,
 * else its last component (a directory's name, a file's name). Returns out. */
const char *demo_room_path(const char *path, char *out, size_t n);

#endif
