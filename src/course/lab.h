/* lab.h - labs: the learner writes a piece of a transformer (softmax, attention, masks, heads,
 * a block, positions, a KV cache) in a file; attend runs it as a child process on seeded
 * cases and checks every cell against its engine, naming the first wrong cell and diagnosing
 * the misconception by running the engine the wrong way. The exchange format between attend
 * and the harness that runs the learner's file is in docs/labs.md. No curses, no exit. */
#ifndef ATTEND_LAB_H
#define ATTEND_LAB_H

#include <signal.h>
#include <stddef.h>

#define LAB_MAX_DIMS 3
#define LAB_MAX_ARGS 12
#define LAB_MAX_OUTS 2
#define LAB_MAX_CASES 12
#define LAB_MAX_DIM 4096                 /* largest extent of one axis */
#define LAB_MAX_VALUES ((size_t)1 << 20) /* most numbers in one array */
#define LAB_MAX_HINTS 4
#define LAB_MAX_FOUND 6

/* An argument or a result: an array of 1..3 axes (row-major doubles), an integer, or None. */
enum { LAB_ARRAY, LAB_INT, LAB_NONE };
typedef struct {
    char name[24];
    int kind;                 /* LAB_ARRAY, LAB_INT, LAB_NONE */
    int ndim;                 /* 1..LAB_MAX_DIMS when an array */
    int dim[LAB_MAX_DIMS];
    size_t len;               /* dim[0]·…·dim[ndim-1] */
    double *v;                /* (len) owned */
    long ival;                /* LAB_INT */
} LabArray;

/* One call of the learner's function. mode "call": func(*args) returns n_outs arrays (a pair
 * when 2). mode "step": func(cache, *row_t) for every row t of the array args (cache a dict
 * the function keeps between calls), the returned rows stacked into one output. */
typedef struct {
    char func[32];
    int step;
    char label[120];          /* what the case tests, in words: "n = 3, m = 5: n ≠ m" */
    int large;                /* 1: scores large enough that a naive exp overflows */
    int n_args;
    LabArray args[LAB_MAX_ARGS];
    int n_outs;
    LabArray want[LAB_MAX_OUTS]; /* the engine's values, named as the outputs */
} LabCase;

typedef struct {
    int n_cases;
    LabCase *cases;           /* (n_cases) owned */
} LabCases;

/* What the learner's file returned for one case. */
typedef struct {
    int ok;                   /* 1: outs filled; 0: error holds the exception or problem */
    char error[320];
    int n_outs;
    LabArray outs[LAB_MAX_OUTS];
    char mutated[64];         /* the arguments the function changed in place ("Q mask"), or "" */
} LabGot;

/* The harness's whole answer (lab_result_parse). */
typedef struct {
    char fatal[16];           /* "" or "numpy", "import", "missing", "harness" */
    char fatal_msg[512];
    int n_cases;
    LabGot got[LAB_MAX_CASES];
    char torch[256];          /* the PyTorch step's line after "torch ", or "" */
    int lang_c;               /* 1: from the C harness (set by lab_check, not parsed) */
} LabResult;

/* How a lab's function is computed: each field 0 is the right way, another value one of the
 * misconceptions of its kind (the enums in lab_way.h): the scale of the scores; the softmax's
 * axis (1: down the columns) and kind; the orientation of a product (K·Qᵀ, Q·K, X·Wᵀ); the
 * mask (where and what it adds; the builders' shape); the heads' layout and W_o; the norm; the
 * FFN's gate and activation; the residuals; the positions; the cache. */
typedef struct LabWay {
    unsigned char scale, axis, softmax, orient, mask, heads, norm, ffn, resid, pos, cache;
} LabWay;

/* A misconception: one row of the catalogue (LAB_CATALOGUE, lab_catalogue.c), shared by
 * every lab: the engine's computation with that mistake (way), named by id. */
typedef struct {
    const char *id;           /* "no-scale", "softmax-axis", ... (several rows may share one) */
    const char *words;        /* the diagnosis, in the lesson's words */
    const char *lesson;       /* lesson id the words come from */
    LabWay way;
} LabMistake;
/* The catalogue, ended by a row whose id is NULL. */
extern const LabMistake LAB_CATALOGUE[];

typedef struct {
    const char *name;         /* "attention" */
    const char *title;
    const char *lesson;       /* the lesson it ends */
    const char *langs;        /* "py" or "py c" */
    const char *hints[LAB_MAX_HINTS];
    int (*make)(LabCases *lc);  /* the seeded cases and the engine's values; 0 or -1 (memory) */
    /* After a pass, a few words measured on the learner's outputs (may be NULL). */
    void (*note)(const LabCases *lc, const LabResult *r, char *out, size_t outlen);
} LabDef;

/* ---- lab.c: the table ---- */
int lab_count(void);
const LabDef *lab_at(int i);
/* The lab named name, or NULL. */
const LabDef *lab_find(const char *name);
/* 1 if the lab has a starter in lang ("py" or "c"). */
int lab_has_lang(const LabDef *d, const char *lang);

/* ---- lab_cases.c, lab_block.c: cases and the engine's values ---- */
/* Builds the lab's cases. 0, or -1 with a message. Free with lab_cases_free. */
int lab_cases_make(const LabDef *d, LabCases *lc, char *err, size_t errlen);
void lab_cases_free(LabCases *lc);
/* Allocates a's values for an array of the given shape (ndim 1..3; unused dims 0). 0 or -1. */
int lab_array_alloc(LabArray *a, const char *name, int ndim, int d0, int d1, int d2);
void lab_array_free(LabArray *a);
/* The case's input to the harness, as text (caller frees): the format in docs/labs.md. NULL
 * when out of memory. torch: 1 to ask the Python harness for the PyTorch step. */
char *lab_input_text(const LabDef *d, const LabCases *lc, int torch, size_t *len);

/* ---- lab_result.c: the harness's answer, parsed strictly ---- */
/* Parses the harness's answer (text of len bytes, not NUL-terminated necessarily). 0, or -1
 * with a message saying what was wrong and on which line (the text itself is never quoted
 * beyond a short, printable excerpt). r is always left freeable. */
int lab_result_parse(const char *text, size_t len, LabResult *r, char *err, size_t errlen);
void lab_result_free(LabResult *r);

/* ---- lab_diagnose.c: the verdict ---- */
typedef struct {
    int pass;                 /* 1: every cell of every case right */
    int cases_ok;             /* cases entirely right */
    int wrong_case;           /* first wrong case, -1 when none */
    int wrong_out;            /* which output */
    int cell[LAB_MAX_DIMS];   /* first wrong cell */
    double expected, got;
    const LabMistake *mistake; /* the misconception recognised, or NULL (found[0]) */
    const LabMistake *found[LAB_MAX_FOUND]; /* every one recognised, one per id */
    int n_found;
    char maybe[160];           /* ids that fit equally well when none is unique, or "" */
    char message[1536];        /* what is wrong, in words (several lines) */
} LabVerdict;
/* Compares r with the cases. Fills v: the first wrong cell, and for each function that fails
 * the catalogue's row its answers match (on every case of that function the row applies to;
 * it must differ from the engine somewhere), named when it is the only id that fits, else a
 * pair of rows when one pair alone fits; v->maybe lists ids that fit equally. 0, or -1 out of
 * memory. */
int lab_diagnose(const LabDef *d, const LabCases *lc, const LabResult *r, LabVerdict *v);
/* 1 if got matches want within the lab's tolerance (NaN matches NaN, ±inf the same inf). */
int lab_close(double want, double got);
/* 1 if the row applies to lab d: the lab computes what its way changes and, on d's cases lc,
 * its outputs differ from the engine's; 0 if not; -1 out of memory. */
int lab_mistake_applies(const LabDef *d, const LabCases *lc, const LabMistake *mk);
/* 1 if the lab computes every field the row's way sets (lab_catalogue.c). */
int lab_mistake_usable(const LabDef *d, const LabMistake *mk);
/* The way of two rows together into out: 0, or 1 when both set the same field. */
int lab_way_join(const LabWay *a, const LabWay *b, LabWay *out);

/* ---- lab_run.c: the learner's code as a child process ---- */
#define LAB_RUN_RO 4
enum { LAB_CONTAIN_LIMITS = 0, LAB_CONTAIN_BWRAP = 1 };
/* How the learner's code is contained here, probed once per process: LAB_CONTAIN_BWRAP when
 * bubblewrap is installed and can make a sandbox (ATTEND_LAB_BWRAP=0 turns it off), else
 * LAB_CONTAIN_LIMITS; words (may be NULL) says which, and why, in one sentence. */
int lab_contain_mode(char *words, size_t n);
typedef struct {
    const char *const *argv;  /* program and arguments (argv[0] a path or a name on PATH) */
    const char *dir;          /* working directory */
    const char *input;        /* written to the child's stdin, then closed */
    size_t input_len;
    double wall_s;            /* wall-clock limit (s) */
    int cpu_s;                /* CPU-time limit (s), RLIMIT_CPU */
    size_t mem_bytes;         /* address-space limit, RLIMIT_AS */
    size_t out_cap;           /* most bytes of stdout+stderr kept before the child is killed */
    size_t res_cap;           /* most bytes of the answer (fd 3) */
    /* (the fields below may be left 0) */
    const char *tmp;          /* a private temporary directory attend made: /tmp inside
                                 bubblewrap, $TMPDIR and $HOME without; NULL: none */
    const char *ro[LAB_RUN_RO]; /* more paths the child reads (the harness), NULL-ended */
    int contain;              /* LAB_CONTAIN_BWRAP: inside bubblewrap; 0: limits only */
    volatile sig_atomic_t *stop; /* when it becomes nonzero (a signal handler): kill the
                                    whole tree and return, o->interrupted set */
} LabRunSpec;
typedef struct {
    int exited, status;       /* exited normally, with status */
    int signal;               /* killed by this signal (0 none) */
    int timed_out, out_over, res_over, exec_failed;
    int interrupted;          /* spec->stop was set: everything was killed */
    char *out;                /* stdout+stderr (caller frees), NUL-terminated */
    size_t out_len;
    char *res;                /* fd 3 (caller frees), NUL-terminated */
    size_t res_len;
    double secs;
} LabRunOut;
/* Runs spec's program in its own session (no terminal), with the limits and a clean
 * environment, inside bubblewrap when spec->contain says so, stdin from input, stdout and
 * stderr into out, fd 3 into res. The calling process is a child subreaper while it runs, and
 * every process the program started (whatever its group or session) is killed and reaped at
 * the end, when a limit is passed, or when *spec->stop is set: call it from a process whose
 * other children may be reaped too. Never waits past wall_s (plus a moment to reap). 0, or
 * -1 with a message (could not start: pipes, fork). */
int lab_run_child(const LabRunSpec *spec, LabRunOut *o, char *err, size_t errlen);
void lab_run_out_free(LabRunOut *o);

/* ---- lab_check.c: a whole check ---- */
typedef struct {
    const char *lang;         /* "py" or "c"; NULL: from the file's extension */
    const char *python;       /* interpreter; NULL: $ATTEND_PYTHON, /usr/bin/python3, python3 */
    const char *cc;           /* C compiler; NULL: $CC or cc */
    double timeout_s;         /* wall limit of the learner's run (0: 10 s) */
    int torch;                /* 1: the PyTorch step when the attention lab passes and torch
                                 is installed */
    volatile sig_atomic_t *stop; /* set by a signal handler: the run is killed (LabRunSpec) */
} LabCheckOpts;
typedef struct {
    LabCases cases;
    LabResult result;
    LabVerdict verdict;
    int ran;                  /* 1 when the learner's code ran and was judged */
    int cannot_run;           /* 1: the file cannot run (syntax, import, a missing function,
                                 a compile error): exit status 2, as docs/labs.md says */
    int interrupted;          /* 1: opts->stop was set and the run killed */
    char problem[2048];       /* when it could not be judged: why (a fatal, a crash, a limit) */
    char output[2048];        /* the first lines the learner's code printed, if any */
    char torch[320];          /* the PyTorch step's outcome in words, or "" */
    int torch_fail;           /* 1: PyTorch disagrees beyond 1e-5 */
    double secs;
} LabCheck;
/* Checks file against lab d. 0 when judged (see c->verdict.pass; c->problem empty) or when
 * the run failed in a way that is the file's fault (c->problem says how: exception at import,
 * time limit, output limit, crash, compile error); -1 with err when attend itself could not
 * run it (no python3, no numpy, no cc: the message names the Debian package). Free with
 * lab_check_free. */
int lab_check(const LabDef *d, const char *file, const LabCheckOpts *o, LabCheck *c,
              char *err, size_t errlen);
void lab_check_free(LabCheck *c);
/* The starter for d in lang: its text (caller frees) from the data directory, or NULL with a
 * message. */
char *lab_starter_text(const LabDef *d, const char *lang, char *err, size_t errlen);
/* The solution of d in lang ("py" or "c"): real code that passes the check, from the data
 * directory (caller frees), or NULL with a message (no such version). */
char *lab_solution_text(const LabDef *d, const char *lang, char *err, size_t errlen);

/* ---- lab_explain.c: the failing case shown ---- */
/* The failing case of a check in words (caller frees), NULL when there is none (a pass, or
 * the code did not run) or out of memory: its inputs (matrices up to 8×8 printed, larger ones
 * "in the file"), the first wrong output's rows that hold the first wrong cell, the engine's
 * above the learner's, the wrong cells marked '*'; json_path (may be NULL): where
 * lab_case_write put the case, with the line of Python that loads it. */
char *lab_case_text(const LabCheck *c, const char *json_path);
/* Writes the failing case as JSON to path (atomic): every input, "expected_NAME" and
 * "got_NAME" as nested lists (−∞ as -Infinity, as Python's json reads it). 0, or -1. */
int lab_case_write(const char *path, const LabCheck *c, char *err, size_t errlen);

/* ---- lab_progress.c: progress of labs in the progress file's "labs" slot ---- */
typedef struct {
    int checks, fails, hints;
    int passed;               /* 1 once a check passed */
    double last;              /* time of the last check (s since the epoch) */
} LabProgress;
/* The lab's record from the progress slot text (NULL or "" = none). */
void lab_progress_get(const char *slot_json, const char *name, LabProgress *p);
/* The slot's text with the lab's record replaced by p (caller frees), NULL on memory. */
char *lab_progress_put(const char *slot_json, const char *name, const LabProgress *p);

/* The current lab and its file from the "lab_current" slot's text: 0, or -1 when there is
 * none (or it names no lab, or does not fit). */
int lab_current_get(const char *slot_json, char *lab, size_t nl, char *file, size_t nf);
/* The "lab_current" slot's text for lab and file (absolute), stamped when (caller frees),
 * NULL on memory. */
char *lab_current_put(const char *lab, const char *file, double when);

/* ---- lab_show.c: what `lab watch` leaves for the player's lab page ---- */
/* The path of the lab's show file in the state directory: $XDG_STATE_HOME/attend/lab-NAME.show
 * (or ~/.local/state/...). 0, or -1 with a message. */
int lab_show_path(const char *name, char *out, size_t outlen, char *err, size_t errlen);
/* What the page shows: the last check's verdict line and one case's learner and engine
 * matrices (the weights when the lab has them). */
typedef struct {
    char status[16];          /* "pass", "fail", "error" */
    char line[320];           /* one line in words */
    char diagnosis[320];      /* "ID: the first sentence of its words", or "" */
    char file[256];           /* the learner's file */
    double when;
    int have;                 /* 1 when got and want are filled */
    char what[64];            /* "case 2: weights" */
    LabArray got, want;       /* 2-D (rows, cols) */
} LabShow;
/* Writes the check's show file (atomic). 0, or -1 with a message. */
int lab_show_write(const char *path, const LabDef *d, const char *file, const LabCheck *c,
                   char *err, size_t errlen);
/* Reads a show file. 0, or -1 with a message (missing file: "no check yet"). */
int lab_show_read(const char *path, LabShow *s, char *err, size_t errlen);
void lab_show_free(LabShow *s);

#endif
