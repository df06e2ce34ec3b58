/* model_key.c - a model's identity and weights as a key (model_key.h). */
#include "model_key.h"

#include <stdio.h>
#include <string.h>

void model_key(const Model *m, ModelKey *k)
{
    memset(k, 0, sizeof *k);
    k->m = m;
    k->data = m->data;
    k->tok_embed = m->tok_embed;
    k->n_floats = m->n_floats;
    snprintf(k->path, sizeof k->path, "%s", m->path);
    uint64_t h = 1469598103934665603ULL; /* FNV-1a over the weights' bits */
    for (size_t i = 0; i < m->n_floats; i++) {
        uint32_t u;
        memcpy(&u, &m->data[i], sizeof u);
        h = (h ^ u) * 1099511628211ULL;
    }
    k->hash = h;
}

int model_key_eq(const ModelKey *a, const ModelKey *b)
{
    return a->m == b->m && a->data == b->data && a->tok_embed == b->tok_embed &&
           a->n_floats == b->n_floats && a->hash == b->hash && !strcmp(a->path, b->path);
}
