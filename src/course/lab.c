/* lab.c - the table of labs (names, lessons, hints), the seeded numbers, arrays, and the
 * input text the harness reads (format in docs/labs.md). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errf.h"
#include "lab_internal.h"

static const LabDef LABS[] = {
    {"softmax", "Softmax over the rows of a matrix", "softmax-weighted-sum", "py c",
     {"Softmax works on each row alone: row i of the result is e^x / Σ e^x over row i. In "
      "numpy, axis=-1 (or axis=1) names the row's entries.",
      "e^x overflows past x ≈ 709: subtract each row's max first (keepdims=True keeps the "
      "shape for broadcasting). The result does not change, since softmax(x − c) = softmax(x).",
      "A row that is −∞ everywhere has no max to subtract: its weights are all 0 by the "
      "engine's convention (no NaN). np.where(np.isfinite(mx), mx, 0) is one way.",
      "Check: every row of your result sums to 1 (or is all 0 for a fully −∞ row)."},
     lab_make_softmax, LAB_MISTAKES_SOFTMAX, NULL},
    {"attention", "Scaled dot-product attention", "matrix-form", "py c",
     {"Three steps: S = Q·Kᵀ (n×m), then S / √d_k, then softmax of each row gives the "
      "weights; the output is weights · V (n×d_v).",
      "K is (m, d_k): Q @ K.T is (n, m). d_k is Q.shape[1]. The mask, when given, is added to "
      "the scaled scores before the softmax: −∞ becomes a weight of exactly 0.",
      "Subtract each row's max before np.exp (the large-score case overflows otherwise), and "
      "give a fully masked row weights of 0 and an output of 0, not NaN.",
      "Return a pair: return out, weights (in that order)."},
     lab_make_attention, LAB_MISTAKES_ATTENTION, NULL},
    {"masks", "Causal and padding masks", "causal-mask", "py",
     {"A mask is added to the scores: 0 where a query may read a key, −∞ where it may not. "
      "causal_mask(n) is −∞ above the diagonal (key j > query i).",
      "np.triu(np.full((n, n), -np.inf), k=1) is the causal mask in one line. The padding "
      "mask hides the padded keys (keep[j] == 0) from every query: the same row n times.",
      "masked_softmax adds the mask to the scores and then takes the softmax of each row; a "
      "row masked everywhere gets weights 0.",
      "Use −∞ itself (-np.inf), not −1e9: the lesson's mask makes e^(−∞) exactly 0."},
     lab_make_masks, LAB_MISTAKES_MASKS, NULL},
    {"multihead", "Multi-head split and merge", "multi-head", "py",
     {"split_heads(X, h): X is (n, d_model); head i takes columns i·d_h … (i+1)·d_h − 1, "
      "d_h = d_model / h. The result is (h, n, d_h).",
      "X.reshape(n, h, d_h).transpose(1, 0, 2) splits; merge_heads undoes it: "
      "H.transpose(1, 0, 2).reshape(n, h·d_h). A reshape alone mixes the tokens.",
      "multi_head: Q = X·W_q (and K, V), split each, attention per head scaled by √d_h (the "
      "head's width, not d_model), merge, then · W_o.",
      "Check shapes at every step: (n, d) → (h, n, d_h) → (n, d)."},
     lab_make_multihead, LAB_MISTAKES_MULTIHEAD, NULL},
    {"block", "The full block: RMSNorm, attention, SwiGLU, residuals", "transformer-block", "py",
     {"Pre-norm: x = x + attn(rmsnorm(x)·g1); then x = x + ffn(rmsnorm(x)·g2). Each "
      "sublayer adds to the residual stream, it does not replace it.",
      "RMSNorm divides each row by √(mean(x²) + eps), eps = 1e-5; no mean is subtracted and "
      "there is no bias (that would be LayerNorm).",
      "SwiGLU: ffn(x) = (silu(x·W1) ⊙ (x·W3)) · W2 with silu(z) = z / (1 + e^−z).",
      "X is (batch, n, d): run each batch element alone (or use @, which broadcasts), and "
      "return the same shape: a [1, 16, 256] input gives a [1, 16, 256] output."},
     lab_make_block, LAB_MISTAKES_BLOCK, NULL},
    {"positions", "Permutation equivariance, with and without positions",
     "permutation-equivariance", "py",
     {"self_attention(X, Wq, Wk, Wv): one head, no mask, scaled by √d_k, returns "
      "softmax(Q·Kᵀ/√d_k)·V with Q = X·Wq and so on.",
      "sinusoidal(n, d): PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / "
      "10000^(2i/d)).",
      "encoded_attention adds the positions to the input, before Q, K and V are computed: "
      "self_attention(X + sinusoidal(n, d), ...).",
      "Without positions, permuting the rows of X permutes the output's rows the same way; "
      "with them the values themselves change."},
     lab_make_positions, LAB_MISTAKES_POSITIONS, lab_note_positions},
    {"kvcache", "KV-cache decoding equals the full recompute", "kv-cache", "py",
     {"decode_step(cache, q, k, v) is called once per token, in order; cache is a dict that "
      "is yours to fill (it starts empty).",
      "Append this token's k and v to the cache first, then attend: the query reads every key "
      "so far, itself included.",
      "With the cache as (t, d_k) and (t, d_v) arrays: w = softmax(K·q / √d_k), out = w·V.",
      "The outputs stacked must equal causal attention over the whole sequence at once."},
     lab_make_kvcache, LAB_MISTAKES_KVCACHE, NULL},
};
#define N_LABS (int)(sizeof LABS / sizeof LABS[0])

int lab_count(void) { return N_LABS; }

const LabDef *lab_at(int i) { return i >= 0 && i < N_LABS ? &LABS[i] : NULL; }

const LabDef *lab_find(const char *name)
{
    for (int i = 0; name && i < N_LABS; i++)
        if (!strcmp(LABS[i].name, name))
            return &LABS[i];
    return NULL;
}

int lab_has_lang(const LabDef *d, const char *lang)
{
    size_t n = strlen(lang);
    for (const char *p = d->langs; (p = strstr(p, lang)); p += n)
        if ((p == d->langs || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
            return 1;
    return 0;
}

/* ---- numbers ---- */

double lab_rand(LabRng *r, double scale)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    double u = (double)(z >> 11) / 9007199254740992.0; /* [0, 1) */
    return (double)(float)((2.0 * u - 1.0) * scale);
}

void lab_fill(LabArray *a, LabRng *r, double scale)
{
    for (size_t i = 0; i < a->len; i++)
        a->v[i] = lab_rand(r, scale);
}

float *lab_floats(const LabArray *a)
{
    float *x = malloc(sizeof *x * (a->len ? a->len : 1));
    for (size_t i = 0; x && i < a->len; i++)
        x[i] = (float)a->v[i];
    return x;
}

void lab_from_floats(LabArray *a, const float *x)
{
    for (size_t i = 0; i < a->len; i++)
        a->v[i] = x[i];
}

int lab_array_alloc(LabArray *a, const char *name, int ndim, int d0, int d1, int d2)
{
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->kind = LAB_ARRAY;
    a->ndim = ndim;
    int d[LAB_MAX_DIMS] = {d0, d1, d2};
    a->len = 1;
    for (int i = 0; i < ndim; i++) {
        a->dim[i] = d[i];
        a->len *= (size_t)d[i];
    }
    a->v = calloc(a->len ? a->len : 1, sizeof *a->v);
    return a->v ? 0 : -1;
}

void lab_array_free(LabArray *a)
{
    free(a->v);
    a->v = NULL;
    a->len = 0;
}

LabArray *lab_arg(LabCase *c, const char *name, int ndim, int d0, int d1, int d2)
{
    if (c->n_args >= LAB_MAX_ARGS)
        return NULL;
    LabArray *a = &c->args[c->n_args++];
    return lab_array_alloc(a, name, ndim, d0, d1, d2) ? NULL : a;
}

LabArray *lab_out(LabCase *c, const char *name, int ndim, int d0, int d1, int d2)
{
    if (c->n_outs >= LAB_MAX_OUTS)
        return NULL;
    LabArray *a = &c->want[c->n_outs++];
    return lab_array_alloc(a, name, ndim, d0, d1, d2) ? NULL : a;
}

void lab_arg_int(LabCase *c, const char *name, long v)
{
    if (c->n_args >= LAB_MAX_ARGS)
        return;
    LabArray *a = &c->args[c->n_args++];
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->kind = LAB_INT;
    a->ival = v;
}

void lab_arg_none(LabCase *c, const char *name)
{
    if (c->n_args >= LAB_MAX_ARGS)
        return;
    LabArray *a = &c->args[c->n_args++];
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->kind = LAB_NONE;
}

const LabArray *lab_case_arg(const LabCase *c, const char *name)
{
    for (int i = 0; i < c->n_args; i++)
        if (!strcmp(c->args[i].name, name))
            return &c->args[i];
    return NULL;
}

int lab_outs_like(const LabCase *c, LabArray *outs)
{
    for (int i = 0; i < c->n_outs; i++) {
        const LabArray *w = &c->want[i];
        if (lab_array_alloc(&outs[i], w->name, w->ndim, w->dim[0], w->dim[1], w->dim[2]))
            return -1;
    }
    return 0;
}

int lab_cases_make(const LabDef *d, LabCases *lc, char *err, size_t errlen)
{
    memset(lc, 0, sizeof *lc);
    lc->cases = calloc(LAB_MAX_CASES, sizeof *lc->cases);
    if (!lc->cases || d->make(lc)) {
        lab_cases_free(lc);
        return errf(err, errlen, "out of memory building the cases of lab %s", d->name);
    }
    return 0;
}

void lab_cases_free(LabCases *lc)
{
    for (int i = 0; lc->cases && i < LAB_MAX_CASES; i++) {
        for (int k = 0; k < LAB_MAX_ARGS; k++)
            lab_array_free(&lc->cases[i].args[k]);
        for (int k = 0; k < LAB_MAX_OUTS; k++)
            lab_array_free(&lc->cases[i].want[k]);
    }
    free(lc->cases);
    memset(lc, 0, sizeof *lc);
}

/* ---- the harness's input ---- */

typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} Buf;

static void put(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int k = b->oom ? 0 : vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (b->oom || k < 0)
            return;
        if ((size_t)k < room) {
            b->len += (size_t)k;
            return;
        }
        size_t cap = (b->cap + (size_t)k + 1) * 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
}

/* One number as the harness reads it: a float's value exactly, or inf, -inf, nan. */
static void put_num(Buf *b, double x)
{
    if (isnan(x))
        put(b, "nan");
    else if (isinf(x))
        put(b, x > 0 ? "inf" : "-inf");
    else
        put(b, "%.9g", x);
}

char *lab_input_text(const LabDef *d, const LabCases *lc, int torch, size_t *len)
{
    Buf b = {NULL, 0, 0, 0};
    put(&b, "attend-lab 1\nlab %s\ntorch %d\ncases %d\n", d->name, torch ? 1 : 0, lc->n_cases);
    for (int i = 0; i < lc->n_cases; i++) {
        const LabCase *c = &lc->cases[i];
        put(&b, "case %d %s %s %d %d\n", i, c->func, c->step ? "step" : "call", c->n_args,
            c->n_outs);
        for (int k = 0; k < c->n_args; k++) {
            const LabArray *a = &c->args[k];
            if (a->kind == LAB_INT) {
                put(&b, "arg %s int %ld\n", a->name, a->ival);
                continue;
            }
            if (a->kind == LAB_NONE) {
                put(&b, "arg %s none\n", a->name);
                continue;
            }
            put(&b, "arg %s array %d", a->name, a->ndim);
            for (int j = 0; j < a->ndim; j++)
                put(&b, " %d", a->dim[j]);
            put(&b, "\n");
            for (size_t j = 0; j < a->len; j++) {
                if (j)
                    put(&b, " ");
                put_num(&b, a->v[j]);
            }
            put(&b, "\n");
        }
    }
    put(&b, "end\n");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    *len = b.len;
    return b.s;
}
