/* app_key.h - one key through the player (app_key.c): the key table's request for it, sent
 * to the open overlay, else the page's view, the shared controls, the global keys. */
#ifndef ATTEND_APP_KEY_H
#define ATTEND_APP_KEY_H

#include "app.h"

/* Handles one key: looks its request up and dispatches it (a mouse event goes to the page
 * view's click hook). */
void app_key(App *a, int key);

#endif
