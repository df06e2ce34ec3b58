/* opts.h - the one parser of the player's and every subcommand's options (opts.c): a table of options, each
 * with its name, the kind of value it takes (none, text, a whole number or a real in a range,
 * one of a few words, repeated text, an argument without a name) and where the value goes;
 * a bad one is refused with a message naming the option and the value. */
#ifndef ATTEND_OPTS_H
#define ATTEND_OPTS_H

#include <stddef.h>

typedef enum {
    OPT_FLAG,  /* no value: *(int *)dst = 1 */
    OPT_TEXT,  /* *(const char **)dst = the value (a pointer into argv) */
    OPT_INT,   /* *(long *)dst = a whole number from lo to hi */
    OPT_U64,   /* *(unsigned long long *)dst = a whole number from 0 to 2^64 - 1 */
    OPT_REAL,  /* *(double *)dst = a number from lo to hi (above 0 when lo is 0) */
    OPT_WORD,  /* *(const char **)dst = one of words (space-separated) */
    OPT_MULTI, /* repeatable: ((const char **)dst)[(*count)++], at most max of them */
    OPT_ARG    /* an argument without a name (name: how usage calls it, e.g. "DIR"): the
                  first such argument goes to the first OPT_ARG row whose *dst is NULL */
} OptKind;

typedef struct {
    const char *name;  /* "--steps" (or the placeholder of an OPT_ARG) */
    OptKind kind;
    void *dst;
    double lo, hi;     /* OPT_INT, OPT_REAL: the range, both ends included (a real
                          with lo 0: above 0) */
    const char *words; /* OPT_WORD: "text json" */
    int *count;        /* OPT_MULTI: values so far (max: how many at most); any other kind:
                          NULL, or counts the times the option is given */
    int max;
} Opt;

/* Table rows, one per kind. */
#define OPT_F(name, p) {name, OPT_FLAG, p, 0, 0, NULL, NULL, 0}
#define OPT_S(name, p) {name, OPT_TEXT, p, 0, 0, NULL, NULL, 0}
#define OPT_I(name, p, lo, hi) {name, OPT_INT, p, lo, hi, NULL, NULL, 0}
#define OPT_U(name, p) {name, OPT_U64, p, 0, 0, NULL, NULL, 0}
#define OPT_R(name, p, lo, hi) {name, OPT_REAL, p, lo, hi, NULL, NULL, 0}
#define OPT_W(name, p, words) {name, OPT_WORD, p, 0, 0, words, NULL, 0}
#define OPT_M(name, p, count, max) {name, OPT_MULTI, p, 0, 0, NULL, count, max}
#define OPT_A(name, p) {name, OPT_ARG, p, 0, 0, NULL, NULL, 0}

/* Parses argv[0..argc) by the n rows of opts ("--help" and "-h" print usage to stdout).
 * Returns -1 to go on; 0 after --help; 2 on a usage error, with "prog: message" (and usage,
 * when the mistake is in the words rather than a value) printed to stderr: an unknown option,
 * one without its value, a value that is no whole number or out of range or not one of the
 * words, too many repeats, an argument too many. A later repeat of an option overrides. */
int opts_parse(const Opt *opts, int n, int argc, char **argv, const char *prog,
               const char *usage);

/* The message and exit status of opts_parse for a rule of one subcommand that the table
 * cannot say (an option that needs another): "prog: msg" and usage to stderr; returns 2. */
int opts_usage_error(const char *prog, const char *usage, const char *msg);

#endif
