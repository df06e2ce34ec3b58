/* model_json.h - the one model function that takes cJSON, for the readers of JSON files that
 * hold a model "config" (model_io.c itself, the trainer's config file, init-model); kept out
 * of model.h so that cJSON does not leak through it. */
#ifndef ATTEND_MODEL_JSON_H
#define ATTEND_MODEL_JSON_H

#include <stddef.h>

#include "json.h"
#include "model.h"

/* Reads a "config" JSON object (the keys of docs/model-format.md) into c; vocab_size may be
 * absent (left 0 for the caller to fill). 0, or -1 with a message naming the key. */
int model_config_read(const cJSON *obj, ModelConfig *c, char *err, size_t errlen);

#endif
