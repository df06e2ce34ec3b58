/* cmd.h - the subcommands of attend. Each takes argc/argv after the subcommand name,
 * prints to stdout/stderr and returns the process exit status: 0 success, 1 runtime error,
 * 2 usage error. main.c dispatches to them from one table. */
#ifndef ATTEND_CMD_H
#define ATTEND_CMD_H

#include <stdio.h>

#include "class_net.h"
#include "datapath.h"
#include "model.h"
#include "opts.h"


int cmd_dump(int argc, char **argv);
int cmd_init_model(int argc, char **argv);
int cmd_check_lessons(int argc, char **argv);
int cmd_train(int argc, char **argv);    /* cmd_train.c */
int cmd_generate(int argc, char **argv); /* cmd_train.c */
/* `attend train --watch ...`: the train widget's run, headless (cmd_watch.c). */
int cmd_train_watch(int argc, char **argv);
/* `attend heads`: every head's scores on random repeated sequences (cmd_heads.c). */
int cmd_heads(int argc, char **argv);
int cmd_quiz(int argc, char **argv);     /* src/tui/view_quiz.c (curses; cmd_quiz.c helps) */
int cmd_export(int argc, char **argv);   /* cmd_export.c */
int cmd_handout(int argc, char **argv);  /* cmd_export.c */
int cmd_present(int argc, char **argv);  /* cmd_present.c: the presenter (src/tui/present.c) */
int cmd_notes(int argc, char **argv);    /* cmd_notes.c: speaker notes following a presenter */
int cmd_demo(int argc, char **argv);     /* cmd_demo.c: play or check a demo script */
int cmd_lab(int argc, char **argv);      /* cmd_lab.c: write, check and watch a lab */
int cmd_shapes(int argc, char **argv);   /* cmd_shapes.c: a Hugging Face config's shapes */
int cmd_class(int argc, char **argv);    /* cmd_class.c: class serve (the room), class join */
/* attend class serve --plain (cmd_class_serve.c): the room of quiz s served as o says, the
 * teacher's commands read from stdin and the room told on stdout as lines; --results written
 * as each question closes and at the end; time_s: "time is up" said after that many seconds
 * (0: never). Returns the exit status (128 + a signal that ended it). */
int cmd_class_serve_plain(const QuizSet *s, const ClassServerOpts *o,
                          const char *results, int time_s);
/* Checks that --out PATH can be written (not a directory; a file can be created beside it),
 * leaving nothing behind. 0, or -1 with "--out PATH: what is wrong" in err (cmd_model.c). */
int cmd_check_out(const char *out, char *err, size_t errlen);
/* A ModelProgress for the commands that load a model: on a terminal (stderr) and for more than
 * 64 MB, a line "loading PATH  [#####.....]  45%  230 of 510 MB" redrawn in place and erased
 * at the end; ctx is the path. Nothing otherwise (cmd_model.c). */
void cmd_load_progress(void *ctx, size_t done, size_t total);

/* The options `dump` and `export` share (docs/dump-format.md); strings point into argv. */
typedef struct {
    const char *sentence, *target, *model_path, *mask, *pe, *order_s;
    const char *format;       /* "text" unless --format */
    const char *prog;         /* the command its messages name: "attend dump", "attend export" */
    int layer, head, no_scale, cross, heads_summary;
    const char *ablate[16];   /* --ablate L.H[,L.H] values, checked against the model */
    int n_ablate;
    int all_maps;             /* every head's maps will be read (a whole JSON dump): the
                                 forward writes them as it runs (trace_want_maps) */
} DumpOpts;
/* Parses dump's options into o, and the caller's extra options (n_extra rows, opts.h);
 * formats: the words --format takes ("text json"; o->format is "text" when not given).
 * Returns -1 to go on, or the exit status to return at once: 0 after --help (usage_text on
 * stdout), 2 on a usage error (the message, prefixed by prog, on stderr). */
int dump_opts_parse(DumpOpts *o, int argc, char **argv, const char *prog,
                    const char *usage_text, const char *formats, const Opt *extra, int n_extra);
/* One headless run of the options: the model loaded, the sentence (and target) tokenized,
 * the controls set, the forward pass done into t. */
typedef struct {
    Model m;
    Trace *t;
    int *ids, *tids, *order;  /* (max_len) each: sentence ids as given, target ids, order */
    int n, mt;                /* tokens of the sentence and of the target */
    Controls ctl;
} DumpRun;
/* Runs o (o->sentence must be set) into r. 0, or 1 with the message on stderr (r is then
 * empty). The caller frees r with dump_run_free after a 0. */
int dump_run(DumpRun *r, const DumpOpts *o);
/* dump's --lens, --attribute, --patch and --rollout (cmd_dump_lens.c, docs/dump-format.md). */
typedef struct {
    int lens, top;            /* --lens [--top K] */
    const char *attribute;    /* --attribute TOKEN, or NULL */
    int position;             /* --position I; -1: the last position */
    const char *patch;        /* --patch CORRUPTED, or NULL */
    const char *metric;       /* --metric TOKEN (with --patch) */
    int rollout;              /* --rollout */
} DumpLensOpts;
/* Prints the asked sections of run r to out (one JSON object with "tokens", "token_ids" and
 * the sections' keys, or text); 0, or 1 with the message on stderr and nothing on out. */
int dump_lens_run(FILE *out, const DumpRun *r, const DumpLensOpts *o, int json);
void dump_run_free(DumpRun *r);

#endif
