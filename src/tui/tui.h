/* tui.h - the terminal course player's entry point, called by main.c when attend runs with
 * no subcommand. */
#ifndef ATTEND_TUI_H
#define ATTEND_TUI_H

/* Opens the course in the terminal. Options: --lessons DIR, --lesson ID, --ascii, --mouse,
 * --no-mouse. Returns the process exit status; every error is printed after the terminal is
 * restored. */
int tui_main(int argc, char **argv);

#endif
