/* cmd.h - the subcommands of attend. Each takes argc/argv after the subcommand name,
 * prints to stdout/stderr and returns the process exit status: 0 success, 1 runtime error,
 * 2 usage error. main.c dispatches to them from one table. */
#ifndef ATTEND_CMD_H
#define ATTEND_CMD_H

#include <stdio.h>

#include "datapath.h"
#include "model.h"


int cmd_dump(int argc, char **argv);
int cmd_init_model(int argc, char **argv);
int cmd_check_lessons(int argc, char **argv);
int cmd_train(int argc, char **argv);    /* cmd_train.c */
int cmd_generate(int argc, char **argv); /* cmd_train.c */
int cmd_quiz(int argc, char **argv);     /* src/tui/view_quiz.c (curses; cmd_quiz.c helps) */
int cmd_present(int argc, char **argv);  /* cmd_present.c: the presenter (src/tui/present.c) */
int cmd_notes(int argc, char **argv);    /* cmd_notes.c: speaker notes following a presenter */
int cmd_demo(int argc, char **argv);     /* cmd_demo.c: play or check a demo script */
/* One line per self-attention head: previous-token / self / first-token mean weights and a
 * verdict. 0, or -1 if the trace lacks the weights. */
int dump_heads_summary(FILE *f, const Model *m, const Trace *t);

#endif
