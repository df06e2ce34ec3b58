/* present.h - presenter mode's private state (present.c, view_goto.c, layout.c): the key
 * echo badge, the go-to-page prompt, the state published for `attend notes`
 * (present_state.h). The loop's hooks are declared in app.h (app.c does not include this
 * header, so that the module graph keeps no cycle). */
#ifndef ATTEND_PRESENT_H
#define ATTEND_PRESENT_H

#include <stddef.h>

#include "app.h"
#include "present_state.h"

/* The presenter's state, reached through App.present (NULL in the player). */
typedef struct Present {
    char echo[200];      /* the key echo badge ("m  causal mask on"), "" when none */
    long long echo_until; /* when it goes (monotonic ms) */
    char dir[512];       /* where the state is published; "" when it cannot be */
    PresentState st;
    char goto_buf[80];   /* the go-to-page prompt's text */
} Present;

/* The badge to show in the footer, NULL when none. */
const char *present_echo(const App *a);
/* Goes to page spec ("N" in the current lesson, "lesson-id:N" or "lesson-number:N"). 0, or
 * -1 with a message. */
int present_goto(App *a, const char *spec, char *err, size_t n);

extern const ViewOps VIEW_GOTO;

#endif
