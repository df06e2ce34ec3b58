/* lesson_check.h - the second half of check-lessons: every page's widget run on its starting
 * state (widget_run_start) and its prose, question prompts and computed answers expanded on
 * that run, so a placeholder that does not resolve is reported at file:line:col. */
#ifndef ATTEND_LESSON_CHECK_H
#define ATTEND_LESSON_CHECK_H

#include "course.h"

/* Runs the engine on every page's starting state (and each question's own state) and expands
 * its prose and questions; each placeholder that does not resolve, each problem of a
 * question's "state" and each run that fails is appended to c->problems (lessons stay
 * playable: the player shows the bad placeholder in place). Returns the number of problems
 * added, -1 out of memory. */
int lesson_check_placeholders(Course *c);

/* Appends "file:line:col: pages[pi]: msg" to c->problems (the page's position in lesson
 * li's file): what the player's walk (tui_check_pages) finds. 0, or -1 out of memory. */
int lesson_check_page_problem(Course *c, int li, int pi, const char *msg);
/* The same at byte off of the page's prose (a placeholder's "{{", placeholder_expand_fails). */
int lesson_check_prose_problem(Course *c, int li, int pi, size_t off, const char *msg);

#endif
