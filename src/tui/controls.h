/* controls.h - the shared widget controls (controls.c): m d p s [ ] h H l L a v e E r, the
 * rows of KM_COMMON, applied to the App's Controls. */
#ifndef ATTEND_CONTROLS_H
#define ATTEND_CONTROLS_H

#include "app.h"

/* Applies a shared control request as keys_lookup found it in KM_COMMON, whose rows carry
 * the C_* bit the page must allow; returns 1 if used. */
int controls_request(App *a, Request req);

#endif
