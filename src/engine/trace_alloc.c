/* trace_alloc.c - a Trace's memory: the arena sized for a model and a length (every tensor of
 * a run but the heads' n×n maps, which the map cache in trace.c holds), trace_bytes computed
 * the same way without allocating, and trace_free. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "tensor_par.h"

static size_t attn_floats(const ModelConfig *c, size_t nq, size_t nk)
{
    size_t d = (size_t)c->d_model, h = (size_t)c->n_heads, dh = (size_t)c->d_head;
    return nq * d * 4 + nq * h * dh + nq * nk + /* ... the mask: the one n×n of the arena */
           h * (nq * dh * 3 + nk * dh * 4);        /* the heads' maps are in the map cache */
}

static size_t ffn_floats(const ModelConfig *c, size_t n)
{
    return n * (4 * (size_t)c->d_model + (size_t)c->d_ff);
}

static size_t stack_floats(const ModelConfig *c, size_t n, size_t n_mem)
{
    size_t per = attn_floats(c, n, n) + ffn_floats(c, n);
    if (n_mem)
        per += attn_floats(c, n, n_mem);
    return 4 * n * (size_t)c->d_model + (size_t)c->n_layers * per + n * (size_t)c->d_model;
}

/* Working memory of one forward pass, kept at the end of the arena: the fused Q, K, V
 * projections of one attention sublayer, the attention's band of rows and its rows' limits,
 * or the SwiGLU gate. */
/* Bands of attention rows the heads may use at once (one per thread): one, unless a full
 * sequence's attention is large enough to be split over the cores (tensor_par.h). */
static int head_bands(const ModelConfig *c, int max_n, int max_m)
{
    size_t lanes = (size_t)(max_n > max_m ? max_n : max_m);
    return lanes * lanes * (size_t)c->n_heads * c->d_head >= MODEL_HEADS_PAR_MACS ? MODEL_HEAD_BANDS : 1;
}

static size_t scratch_floats(const ModelConfig *c, int max_n, int max_m)
{
    size_t lanes = (size_t)(max_n > max_m ? max_n : max_m);
    size_t attn = lanes * 3 * (size_t)c->n_heads * c->d_head +
                  (size_t)head_bands(c, max_n, max_m) * MODEL_SDPA_BAND(lanes, c->d_head) +
                  lanes; /* the last: each query row's limit, an int */
    size_t ffn = lanes * (size_t)c->d_ff;
    return attn > ffn ? attn : ffn;
}

/* Room for the largest single tensor, used only if the arena were ever too small. */
static size_t spill_floats(const ModelConfig *c, int max_n, int max_m)
{
    size_t lanes = (size_t)(max_n > max_m ? max_n : max_m);
    size_t wide = (size_t)c->vocab_size;
    if (lanes > wide) wide = lanes;
    if ((size_t)c->d_ff > wide) wide = (size_t)c->d_ff;
    if ((size_t)c->n_heads * c->d_head > wide) wide = (size_t)c->n_heads * c->d_head;
    if ((size_t)c->d_model > wide) wide = (size_t)c->d_model;
    return lanes * wide;
}

Trace *trace_new(const Model *m, int max_n, int max_m)
{
    const ModelConfig *c = &m->cfg;
    if (max_n < 1) max_n = 1;
    if (max_m < 1) max_m = 1;
    Trace *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->model = m;
    t->max_n = max_n;
    t->max_m = max_m;
    t->bands = head_bands(c, max_n, max_m);
    size_t n = (size_t)max_n, mm = (size_t)max_m, V = (size_t)c->vocab_size;
    size_t cap = 0, ent = 0;
    size_t per_attn = 6 + 10 * (size_t)c->n_heads;
    if (c->arch == ARCH_DECODER || c->arch == ARCH_ENCODER) {
        cap = stack_floats(c, n, 0) + n * V;
        ent = 6 + (size_t)c->n_layers * (per_attn + 8);
    } else {
        cap = stack_floats(c, n, 0) + stack_floats(c, mm, n) + mm * V;
        ent = 12 + (size_t)c->n_layers * (3 * per_attn + 16);
    }
    t->cap_main = cap;
    cap += scratch_floats(c, max_n, max_m);
    t->spill = cap;
    cap += spill_floats(c, max_n, max_m);
    t->cap = cap;
    t->map_budget = TRACE_MAP_BYTES;
    t->cap_entries = (int)ent;
    t->arena = malloc(sizeof(float) * cap);
    t->entries = calloc(ent, sizeof *t->entries);
    t->src = calloc((size_t)max_n, sizeof(int));
    t->tgt = calloc((size_t)max_m, sizeof(int));
    t->tgt_in = calloc((size_t)max_m, sizeof(int));
    t->order = calloc((size_t)max_n, sizeof(int));
    /* The sinusoidal encoding depends only on (position, dimension): its room is taken here,
     * its values computed once, when a forward first needs them (trace_sinusoid). */
    size_t lanes_pe = (size_t)(max_n > max_m ? max_n : max_m);
    t->sinusoid = malloc(sizeof(float) * lanes_pe * (size_t)c->d_model);
    t->sinusoid_ready = 0;
    if (!t->arena || !t->entries || !t->src || !t->tgt || !t->tgt_in || !t->order ||
        !t->sinusoid) {
        trace_free(t);
        return NULL;
    }
    return t;
}

const float *trace_sinusoid(Trace *t)
{
    if (!t->sinusoid_ready) {
        int d = t->model->cfg.d_model, lanes = t->max_n > t->max_m ? t->max_n : t->max_m;
        for (int p = 0; p < lanes; p++)
            for (int i = 0; i < d; i++)
                t->sinusoid[(size_t)p * d + i] = model_sinusoid(p, i, d);
        t->sinusoid_ready = 1;
    }
    return t->sinusoid;
}

size_t trace_bytes(const Model *m, int max_n, int max_m)
{
    const ModelConfig *c = &m->cfg;
    if (max_n < 1) max_n = 1;
    if (max_m < 1) max_m = 1;
    size_t n = (size_t)max_n, mm = (size_t)max_m, V = (size_t)c->vocab_size, cap;
    if (c->arch == ARCH_DECODER || c->arch == ARCH_ENCODER)
        cap = stack_floats(c, n, 0) + n * V;
    else
        cap = stack_floats(c, n, 0) + stack_floats(c, mm, n) + mm * V;
    cap += scratch_floats(c, max_n, max_m) + spill_floats(c, max_n, max_m);
    size_t lanes = n > mm ? n : mm;
    /* the map cache at its default budget: whole slots of one head's four maps (trace.c) */
    size_t heads = (size_t)c->n_layers * c->n_heads * (c->arch == ARCH_ENCDEC ? 3 : 1);
    size_t slot = sizeof(float) * 4 * lanes * lanes, slots = TRACE_MAP_BYTES / slot;
    if (slots > heads)
        slots = heads;
    if (slots < TRACE_MAP_KEEP)
        slots = TRACE_MAP_KEEP;
    return sizeof(float) * (cap + lanes * (size_t)c->d_model) + sizeof(int) * (2 * n + 2 * mm) +
           slots * slot;
}

void trace_free(Trace *t)
{
    if (!t) return;
    trace_maps_drop(t, 0);
    free(t->arena);
    free(t->entries);
    free(t->src);
    free(t->tgt);
    free(t->tgt_in);
    free(t->order);
    free(t->sinusoid);
    free(t);
}

