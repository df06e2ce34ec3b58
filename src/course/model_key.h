/* model_key.h - which model, and which weights: a key for results that depend on a model's
 * weights alone (circuits, head scores, copy losses), kept between redraws and check-lessons'
 * states by their callers. Equal keys: the same model object at the same address, from the
 * same file, with the same weights (a hash of every float32 weight), so a model trained in
 * place or another loaded at the same address is a new key. */
#ifndef ATTEND_MODEL_KEY_H
#define ATTEND_MODEL_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct {
    const Model *m;
    const float *data, *tok_embed;
    size_t n_floats;
    uint64_t hash;
    char path[512];
} ModelKey;

/* Fills k for m (reads every float32 weight once: microseconds at lesson sizes). */
void model_key(const Model *m, ModelKey *k);
/* 1 when a and b name the same model and weights. */
int model_key_eq(const ModelKey *a, const ModelKey *b);

#endif
