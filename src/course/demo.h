/* demo.h - demo scripts (docs/demos.md): a JSON list of steps a presenter plays one by one
 * (open a lesson's page, press keys, type a sentence, show a caption, pause), each with the
 * line:col it starts at for messages. Terminal-free; the keys are checked against the key
 * table by src/tui/demo_play.c. */
#ifndef ATTEND_DEMO_H
#define ATTEND_DEMO_H

#include <stddef.h>

#define DEMO_MAX_STEPS 200

/* Where a field of "expect" stands in the file; set: the step declares it. */
typedef struct {
    int set, line, col;
} DemoField;

/* The state a step declares it expects once it ran ("expect": {"page": "causal-mask:2",
 * "mask": "causal", "pe": "learned", "layer": 0, "head": 1, "sentence": "..."}): checked by
 * the runner (session_plan.h) when the step runs and by --check. */
typedef struct {
    int on;                  /* 1: the step has "expect" */
    DemoField page, mask, pe, layer, head, sentence;
    char lesson[48];         /* page: the lesson id */
    int page_no;             /* page: from 1 */
    int causal, padding;     /* mask (names_mask) */
    int pe_kind;             /* pe (PeKind) */
    int layer_no, head_no;   /* as the screen numbers them, from 0 */
    char sentence_text[256];
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
