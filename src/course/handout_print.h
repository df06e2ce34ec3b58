/* handout_print.h - a page's prose rewritten for print: the player's key instructions out.
 * No curses, no printing. */
#ifndef ATTEND_HANDOUT_PRINT_H
#define ATTEND_HANDOUT_PRINT_H

#include <stddef.h>

/* Writes the prose in (placeholders already expanded) to out (cap bytes, always
 * terminated) without key instructions: a sentence that opens with "Press ..." or whose
 * main clause is one ("Move along the row and press Enter.") is left out, a trailing clause
 * "...; press v to see the column." is cut at the semicolon, hints in parentheses such as
 * "(g: lessons)" or "(press Q)" are dropped; a paragraph left empty goes. Returns 1 when
 * something was taken out, else 0. */
int handout_print_prose(const char *in, char *out, size_t cap);

#endif
