/* lesson_guard.h - check-lessons' guards for the classes of stale prose (docs/lessons.md,
 * "What check-lessons proves"): a sentence that instructs a state key ("Press m to take the
 * mask off") must sit in an {{if}} on the state it assumes; a sentence whose numbers change
 * under a toggle while its words stay the same does not name the toggle. Text only: no run,
 * no curses, no printing. */
#ifndef ATTEND_LESSON_GUARD_H
#define ATTEND_LESSON_GUARD_H

#include <stddef.h>

#include "course.h"
#include "placeholder.h"

/* The sentences of prose (a page of widget kind, allowing the C_* controls) that tell the
 * learner to press a key that switches a state (m d s p on the model widgets; the state keys
 * of worked, scaling, params, generate and train) outside an {{if}} or {{elif}} whose
 * condition reads that state ({{mask}}, {{pe}}, {{scale}}, {{x tied}}, ...). A sentence that
 * only says to toggle, compare, try or cycle is not one. Up to max go to f (offset of the
 * sentence, message); returns how many there are. */
int lesson_guard_keys(const char *prose, WidgetKind kind, unsigned allowed, PlaceholderFail *f,
                      int max);

/* The first sentence of after (the page's prose once key was pressed) that before (the
 * prose before it) holds with the same words but other numbers: a number that depends on the
 * toggle in a sentence that does not name it. 1 with the sentence in out (the numbers before
 * and after in was), 0 when there is none. */
int lesson_guard_numbers(const char *before, const char *after, char *out, size_t n, char *was,
                         size_t wn);

#endif
