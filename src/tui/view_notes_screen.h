/* view_notes_screen.h - `attend notes` (view_notes_screen.c): the speaker-notes screen that
 * follows the running presenter, a screen overlay of an App of its own. */
#ifndef ATTEND_VIEW_NOTES_SCREEN_H
#define ATTEND_VIEW_NOTES_SCREEN_H

#include "app.h"

/* Opens VIEW_NOTES_SCREEN in a (an App of its own, a->solo): follows the presenter of
 * session (NULL: the most recent running one) whose state is published in dir, until q or
 * Ctrl-C. 0, or -1 when it did not open. */
int view_notes_screen_start(App *a, const char *dir, const char *session);

#endif
