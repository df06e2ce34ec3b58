/* app_key.h - one key through the player (app_key.c): the key table's request for it, sent
 * to the open overlay, else the page's view, the shared controls, the global keys. */
#ifndef ATTEND_APP_KEY_H
#define ATTEND_APP_KEY_H

#include "app.h"

/* Handles one key: looks its request up and dispatches it (a mouse event goes to the page
 * view's click hook). */
void app_key(App *a, int key);

/* Where the key table sends key now, as app_key looks it up: the open overlay's keymap, else
 * the first of the page view's, the shared controls' (widget pages) and the global keymap that
 * binds it (KM_GLOBAL and REQ_NONE when none does); *km gets the keymap. */
Request app_key_route(const App *a, int key, Keymap *km);

#endif
