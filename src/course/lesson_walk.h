/* lesson_walk.h - check-lessons' state walk: every state a learner can reach on a page (the
 * product of its toggles and steps: masks, PE, scale, padding, d_k, N, steps, layer, head,
 * knock-outs, tying, GQA, sampling, chip swaps and the sentences its prose suggests typing),
 * breadth-first from the page's start up to LESSON_WALK_BOUND states, each run through the
 * one widget run (widget.h) and every placeholder, {{if}} and {{assert}} of the prose
 * evaluated where it is shown, with the claim rules of lesson_claims.h. Below both front
 * ends: no curses, no printing, no exit(). */
#ifndef ATTEND_LESSON_WALK_H
#define ATTEND_LESSON_WALK_H

#include "course.h"

#define LESSON_WALK_BOUND 2000 /* states a page at most; a page that reaches it is noted */

typedef struct {
    long states;       /* states evaluated, over every page */
    long runs;         /* engine runs (a state that differs only in layer/head reuses one) */
    int pages;         /* pages walked */
    int bound_pages;   /* pages whose walk stopped at LESSON_WALK_BOUND */
    char bound_at[512]; /* the first few of them, "04-scaling.json pages[1], ..." */
} LessonWalkStats;

/* Walks every page of every lesson that loaded (lessons with problems already reported are
 * walked too) and appends each problem to c->problems at its file:line:col, naming the state
 * ("with mask none, pe rope, L0 h1 knocked out: ..."); each problem once per page and place.
 * st (may be NULL) gets the counts. Returns the number of problems added, -1 out of memory. */
int lesson_walk(Course *c, LessonWalkStats *st);

#endif
