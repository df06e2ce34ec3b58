/* course.c - the name tables of the course data (course.h): widget kinds, controls, start
 * keys, which keys and controls each kind reads, and a question's state laid over a start. */
#include "course.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const char *const WIDGET_NAMES[W__COUNT] = {"none", "heatmap", "chips", "passport",
                                                   "matrix", "worked", "scaling", "kvcache",
                                                   "cost", "params", "train",
                                                   "generate", "lab", "lens",
                                                   "attribution", "patching", "rollout",
                                                   "effect", "pair"};
static const char *const CONTROL_NAMES[] = {"mask", "pe", "scale", "head", "layer",
                                            "all_heads", "cursor", "scores", "edit", "swap",
                                            "reset", "step", "padding", "tensor", "dk", "n",
                                            "tie", "gqa", "sample"};
#define N_CONTROLS ((int)(sizeof CONTROL_NAMES / sizeof CONTROL_NAMES[0]))
const char *const COURSE_START_KEYS[SK__COUNT + 1] = {
    "mask", "pe", "scale", "layer", "head", "cross", "scores", "all_heads", "order", "step",
    "tensor", "d_k", "n", "tied", "gqa", "temperature", "seed", NULL};

const char *course_widget_name(WidgetKind k)
{
    return (int)k >= 0 && k < W__COUNT ? WIDGET_NAMES[k] : "?";
}

int course_widget_parse(const char *s)
{
    for (int i = 0; i < W__COUNT; i++)
        if (!strcmp(s, WIDGET_NAMES[i]))
            return i;
    return -1;
}

const char *course_widget_list(void)
{
    static char list[300];
    if (!list[0])
        for (int i = 0; i < W__COUNT; i++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", WIDGET_NAMES[i]);
        }
    return list;
}

const char *course_control_name(unsigned bit)
{
    for (int i = 0; i < N_CONTROLS; i++)
        if (bit == 1u << i)
            return CONTROL_NAMES[i];
    return NULL;
}

int course_control_parse(const char *s)
{
    for (int i = 0; i < N_CONTROLS; i++)
        if (!strcmp(s, CONTROL_NAMES[i]))
            return 1 << i;
    return -1;
}

const char *course_control_list(unsigned bits, const char *sep, char *out, size_t outlen)
{
    if (outlen)
        out[0] = 0;
    for (int b = 0; b < N_CONTROLS; b++)
        if (bits & (1u << b)) {
            size_t l = strlen(out);
            snprintf(out + l, outlen - l, "%s%s", l ? sep : "", CONTROL_NAMES[b]);
        }
    return out;
}

unsigned course_kind_controls(WidgetKind k)
{
    switch (k) {
    case W_WORKED: return C_MASK | C_SCALE | C_STEP | C_CURSOR | C_RESET;
    case W_SCALING: return C_DK | C_SCALE | C_RESET;
    case W_KVCACHE: return C_STEP | C_RESET;
    case W_COST: return C_N | C_RESET;
    case W_PARAMS: return C_TIE | C_GQA | C_RESET;
    case W_TRAIN: return C_MASK | C_HEAD | C_LAYER | C_RESET;
    case W_GENERATE: return C_STEP | C_SAMPLE | C_RESET;
    case W_LAB: return 0;
    case W_LENS: case W_ATTRIB: return C_STEP | C_EDIT | C_RESET;
    case W_EFFECT: return C_STEP | C_LAYER | C_EDIT | C_RESET;
    case W_PATCH: case W_ROLLOUT: return C_LAYER | C_EDIT | C_RESET;
    case W_PAIR: return C_EDIT | C_RESET;
    default: return (C_TENSOR << 1) - 1; /* the model widgets: every original control */
    }
}

int course_kind_needs_sentence(WidgetKind k)
{
    return k == W_HEATMAP || k == W_CHIPS || k == W_PASSPORT || k == W_MATRIX || k == W_KVCACHE ||
           k == W_GENERATE || course_kind_is_probe(k);
}

int course_kind_is_explain(WidgetKind k)
{
    return k >= W_WORKED && k <= W_LAB;
}

int course_kind_is_probe(WidgetKind k)
{
    return k >= W_LENS && k <= W_PAIR;
}

int course_start_key_parse(const char *s)
{
    for (int i = 0; i < SK__COUNT; i++)
        if (!strcmp(s, COURSE_START_KEYS[i]))
            return i;
    return -1;
}

int course_start_key_ok(WidgetKind kind, StartKey k)
{
    /* the keys the explanation widgets brought; the model widgets read every other one */
    static const unsigned NEW = 1u << SK_D_K | 1u << SK_N | 1u << SK_TIED | 1u << SK_GQA |
                                1u << SK_TEMPERATURE | 1u << SK_SEED;
    static const unsigned PER[W__COUNT] = {
        [W_WORKED] = 1u << SK_MASK | 1u << SK_SCALE | 1u << SK_STEP,
        [W_SCALING] = 1u << SK_D_K | 1u << SK_SCALE,
        [W_KVCACHE] = 1u << SK_STEP | 1u << SK_LAYER | 1u << SK_HEAD,
        [W_COST] = 1u << SK_N,
        [W_PARAMS] = 1u << SK_TIED | 1u << SK_GQA,
        [W_TRAIN] = 1u << SK_MASK | 1u << SK_LAYER | 1u << SK_HEAD,
        [W_GENERATE] = 1u << SK_STEP | 1u << SK_LAYER | 1u << SK_HEAD | 1u << SK_TEMPERATURE |
                       1u << SK_SEED,
    };
    if ((int)k < 0 || k >= SK__COUNT || (int)kind < 0 || kind >= W__COUNT)
        return 0;
    if (!course_kind_is_explain(kind))
        return !(NEW & (1u << k));
    return (PER[kind] >> k) & 1u;
}

void course_start_defaults(WidgetStart *s)
{
    memset(s, 0, sizeof *s);
    s->causal = -1;
    s->padding = -1;
    s->pe = -1;
    s->scale = 1;
    s->tied = -1;
    s->gqa = -1;
    s->seed = 1;
}

void course_apply_delta(WidgetStart *s, const StartDelta *d)
{
    const WidgetStart *v = &d->v;
    assert(v->n_order >= 0 && v->n_order <= ATTEND_MAX_ORDER);
#define HAS(k) (d->keys & (1u << (k)))
    if (HAS(SK_MASK)) {
        s->causal = v->causal;
        s->padding = v->padding;
    }
    if (HAS(SK_PE)) s->pe = v->pe;
    if (HAS(SK_SCALE)) s->scale = v->scale;
    if (HAS(SK_LAYER)) s->layer = v->layer;
    if (HAS(SK_HEAD)) s->head = v->head;
    if (HAS(SK_CROSS)) s->cross = v->cross;
    if (HAS(SK_SCORES)) s->scores = v->scores;
    if (HAS(SK_ALL_HEADS)) s->all_heads = v->all_heads;
    if (HAS(SK_ORDER)) {
        memcpy(s->order, v->order, sizeof s->order);
        s->n_order = v->n_order;
    }
    if (HAS(SK_STEP)) s->step = v->step;
    if (HAS(SK_TENSOR)) memcpy(s->tensor, v->tensor, sizeof s->tensor);
    if (HAS(SK_D_K)) s->d_k = v->d_k;
    if (HAS(SK_N)) s->n = v->n;
    if (HAS(SK_TIED)) s->tied = v->tied;
    if (HAS(SK_GQA)) s->gqa = v->gqa;
    if (HAS(SK_TEMPERATURE)) s->temperature = v->temperature;
    if (HAS(SK_SEED)) s->seed = v->seed;
#undef HAS
}
