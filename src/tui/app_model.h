/* app_model.h - attend --model PATH in the player (app_model.c). */
#ifndef ATTEND_APP_MODEL_H
#define ATTEND_APP_MODEL_H

#include <stddef.h>

#include "app.h"

/* Loads the model at path (a Hugging Face directory or a model JSON file) with a progress bar
 * on the curses screen (ui_start first), gives it to every page whose widget takes the opened
 * model, and opens the first such page (jump 1) or reopens the current one (jump 0). 0, or -1
 * with a message (the model did not load, or no page takes an opened model). */
int app_model_open(App *a, const char *path, int jump, char *err, size_t errlen);

#endif
