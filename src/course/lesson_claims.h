/* lesson_claims.h - check-lessons' rules on what a sentence claims about the widget
 * (lesson_claims.c): in each state the walk reaches (lesson_walk.h), a sentence whose words
 * name a state the widget is not in, a sentence about the page's start that names another
 * state, a token cited by its word where the sentence has that word twice; and, without
 * running anything, the guard lint: a sentence with a quantifier or comparative about the
 * widget and no placeholder, {{if}} or {{assert}}. Text only: no run, no curses, no printing. */
#ifndef ATTEND_LESSON_CLAIMS_H
#define ATTEND_LESSON_CLAIMS_H

#include <stddef.h>

#include "course.h"
#include "placeholder.h"

/* The state a sentence is read in, as the placeholders print it ({{mask}}, {{pe}},
 * {{scale}}), and at the page's start; NULL where the widget has no such state. */
typedef struct {
    const char *mask, *pe, *scale;
    const char *start_mask, *start_pe, *start_scale;
} ClaimState;

/* The sentences of shown (prose expanded in one state: only the branches shown) that are
 * false there: words that name a state ("with the causal mask on", "without a mask", "with an
 * encoding on") the widget is not in, and a sentence about the start ("opens on", "starts
 * with") that names a state ("pe: none") other than the start's. off is where the words are
 * in prose (the source), found by their text. Up to max go to f; returns how many. */
int claims_shown(const char *prose, const char *shown, const ClaimState *cs, PlaceholderFail *f,
                 int max);

/* The sentences of prose that cite a token by its word ("{{token 3}}") when the run ctx
 * reads has that word at another position too, without saying which (row, position, query,
 * first, second, last...). Up to max go to f; returns how many. */
int claims_tokens(const char *prose, const PlaceholderCtx *ctx, PlaceholderFail *f, int max);

/* The guard lint: the sentences of prose (a page of lesson lesson_id with a widget of kind)
 * that state a quantifier or a comparative ("no", "only", "same", "sharpen", "larger"...)
 * about the widget (here, now, press, this head, row 2, a quoted word, reads/gives...) with no
 * placeholder, outside every {{if}}, and not on the allow-list (each entry says why). Up to
 * max go to f; returns how many. */
int claims_lint(const char *lesson_id, const char *prose, WidgetKind kind, PlaceholderFail *f,
                int max);

#endif
