/* lesson_walk.c - check-lessons' state walk (lesson_walk.h): a page's reachable states found
 * breadth-first over the keys its controls allow, then run grouped by what the engine reads
 * (a layer or head change reuses the run), the prose expanded and checked in each. */
#include "lesson_walk.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ablation.h"
#include "lesson.h"
#include "lesson_check.h"
#include "lesson_claims.h"
#include "quiz.h"
#include "widget.h"

/* The dimensions of a page's state. A dimension the page cannot change has one value. */
enum {
    D_SENT,    /* the page's sentence (0) or one its prose suggests typing */
    D_CAUSAL,  /* model widgets: causal 0/1; worked: none, causal, after softmax */
    D_PADDING, D_PE, D_SCALE,
    D_ABLATE,  /* knocked-out heads: bit layer*heads+head */
    D_ORDER,   /* chips: index into the permutations found */
    D_STEP,    /* worked, kvcache, generate: index from the first step */
    D_DK, D_N, /* scaling, cost: index into their value lists */
    D_TIED, D_GQA, D_SAMPLE, D_TEMP, D_SEED,
    D_LAYER, D_HEAD, /* last: what a view reads, not what the engine runs */
    D__COUNT
};
#define D_RUN D_LAYER /* dimensions before it decide the run */

static const char *const DIM_NAME[D__COUNT] = {
    "sentence", "mask", "padding", "pe", "scale", "knocked out", "order", "step", "d_k", "N",
    "tied", "gqa", "sampling", "temperature", "seed", "layer", "head"};

#define MAX_SENTS 4
#define MAX_DIMVALS 32
#define HASH_SIZE 8192 /* > 2 * LESSON_WALK_BOUND, a power of two */

typedef struct {
    int v[D__COUNT];
} WState;

typedef struct {
    Course *c;
    int li, pi;
    const Page *P;
    const Model *m;
    WidgetKind kind;
    int model_widget;          /* heatmap, chips, passport, matrix */
    int nval[D__COUNT];        /* values of each dimension (1: fixed) */
    int start[D__COUNT];
    int vals[D__COUNT][MAX_DIMVALS]; /* d_k, N, temperatures x100, steps, seeds */
    char sents[MAX_SENTS][256];
    int n_tok;                 /* tokens of the page's sentence (chips' permutations) */
    int (*perm)[ATTEND_MAX_ORDER];
    int n_perm, cap_perm;
    WState *st;
    int n_st;
    int hash[HASH_SIZE];
    int bound;
    unsigned words_done;       /* heads whose knock-out words were measured */
    /* reported (offset, rule) pairs of this page, once each */
    size_t seen_off[32];
    int seen_rule[32], n_seen;
    int oom, problems;
} PageWalk;

static uint32_t state_hash(const WState *s)
{
    uint32_t h = 2166136261u;
    for (int d = 0; d < D__COUNT; d++)
        h = (h ^ (uint32_t)s->v[d]) * 16777619u;
    return h;
}

/* Adds s when new; 1 added, 0 known or at the bound. */
static int add_state(PageWalk *w, const WState *s)
{
    uint32_t h = state_hash(s) & (HASH_SIZE - 1);
    while (w->hash[h] >= 0) {
        if (!memcmp(&w->st[w->hash[h]], s, sizeof *s))
            return 0;
        h = (h + 1) & (HASH_SIZE - 1);
    }
    if (w->n_st >= LESSON_WALK_BOUND) {
        w->bound = 1;
        return 0;
    }
    w->st[w->n_st] = *s;
    w->hash[h] = w->n_st++;
    return 1;
}

/* The index of permutation p in the table, added when new; -1 when full. */
static int perm_index(PageWalk *w, const int *p)
{
    for (int i = 0; i < w->n_perm; i++)
        if (!memcmp(w->perm[i], p, sizeof(int) * (size_t)w->n_tok))
            return i;
    if (w->n_perm == w->cap_perm) {
        int nc = w->cap_perm ? w->cap_perm * 2 : 64;
        void *np = realloc(w->perm, sizeof *w->perm * (size_t)nc);
        if (!np) {
            w->oom = 1;
            return -1;
        }
        w->perm = np;
        w->cap_perm = nc;
    }
    memcpy(w->perm[w->n_perm], p, sizeof(int) * (size_t)w->n_tok);
    return w->n_perm++;
}

/* The states one key press away from s (a toggle, a step, a swap, a typed sentence). */
static void neighbours(PageWalk *w, const WState *s)
{
    WState t;
    for (int d = 0; d < D__COUNT; d++) {
        int n = w->nval[d];
        if (n <= 1 || d == D_ABLATE || d == D_ORDER)
            continue;
        int cyclic = d == D_CAUSAL || d == D_PE || d == D_LAYER || d == D_HEAD;
        int deltas[2] = {1, -1};
        for (int k = 0; k < 2; k++) {
            t = *s;
            if (d == D_SENT) { /* typing jumps to any suggested sentence */
                for (int i = 0; i < n; i++) {
                    t.v[d] = i;
                    add_state(w, &t);
                }
                break;
            }
            int nv = s->v[d] + deltas[k];
            if (cyclic)
                nv = (nv % n + n) % n;
            if (nv < 0 || nv >= n)
                continue;
            t.v[d] = nv;
            add_state(w, &t);
        }
    }
    if (w->nval[D_ABLATE] > 1) { /* X: knock the head shown out, or back in */
        int bit = s->v[D_LAYER] * w->m->cfg.n_heads + s->v[D_HEAD];
        /* at most two heads out at once: a third adds states, not new sentences */
        if (bit < 30 && (__builtin_popcount((unsigned)s->v[D_ABLATE]) < 2 ||
                         (s->v[D_ABLATE] >> bit & 1))) {
            t = *s;
            t.v[D_ABLATE] ^= 1 << bit;
            add_state(w, &t);
        }
    }
    if (w->nval[D_ORDER] > 1 && s->v[D_ORDER] >= 0) { /* chips: swap two */
        int p[ATTEND_MAX_ORDER];
        for (int i = 0; i < w->n_tok; i++)
            for (int j = i + 1; j < w->n_tok; j++) {
                memcpy(p, w->perm[s->v[D_ORDER]], sizeof(int) * (size_t)w->n_tok);
                int x = p[i];
                p[i] = p[j];
                p[j] = x;
                int k = perm_index(w, p);
                if (k < 0)
                    return;
                t = *s;
                t.v[D_ORDER] = k;
                add_state(w, &t);
            }
    }
}

/* The sentences the prose suggests typing: a quoted text after "type" in the same sentence
 * that m can read. */
static void suggested_sentences(PageWalk *w)
{
    const char *prose = w->P->prose;
    snprintf(w->sents[0], sizeof w->sents[0], "%s", w->P->widget.start.sentence);
    int n = 1;
    for (const char *p = prose ? strstr(prose, "type") : NULL; p && n < MAX_SENTS;
         p = strstr(p + 4, "type")) {
        const char *q = strchr(p, '"'), *end = strpbrk(p, ".!?\n");
        if (!q || (end && end < q))
            continue;
        const char *qe = strchr(q + 1, '"');
        if (!qe || qe - q - 1 >= (long)sizeof w->sents[0] || qe - q - 1 < 1)
            continue;
        char s[256];
        memcpy(s, q + 1, (size_t)(qe - q - 1));
        s[qe - q - 1] = 0;
        int ids[ATTEND_MAX_ORDER * 4];
        TokenizeInfo info;
        int k = vocab_tokenize(&w->m->vocab, s, ids, w->m->cfg.max_len < 64 ? w->m->cfg.max_len
                               : 64, &info);
        if (k < 1 || info.truncated || info.n_unknown)
            continue;
        snprintf(w->sents[n++], sizeof w->sents[0], "%s", s);
    }
    w->nval[D_SENT] = n;
}

/* Fills the dimensions of the page from its kind, controls and start. */
static void set_dims(PageWalk *w, const WidgetRun *r)
{
    const Widget *wd = &w->P->widget;
    unsigned a = wd->controls;
    const LiveState *ls = &r->live.s;
    for (int d = 0; d < D__COUNT; d++)
        w->nval[d] = 1;
    if (w->model_widget) {
        suggested_sentences(w);
        if (!(a & C_EDIT))
            w->nval[D_SENT] = 1;
        w->start[D_CAUSAL] = r->ctl.causal;
        w->start[D_PADDING] = r->ctl.padding;
        w->start[D_PE] = (int)r->ctl.pe;
        w->start[D_SCALE] = r->ctl.scale;
        w->start[D_LAYER] = r->io.layer;
        w->start[D_HEAD] = r->io.head;
        w->nval[D_CAUSAL] = a & C_MASK ? 2 : 1;
        w->nval[D_PADDING] = a & C_PADDING ? 2 : 1;
        w->nval[D_PE] = a & C_PE ? PE__COUNT : 1;
        w->nval[D_SCALE] = a & C_SCALE ? 2 : 1;
        w->nval[D_LAYER] = a & C_LAYER ? w->m->cfg.n_layers : 1;
        w->nval[D_HEAD] = a & C_HEAD ? w->m->cfg.n_heads : 1;
        w->nval[D_ABLATE] = a & C_HEAD ? 2 : 1; /* a bit set, not a count */
        if ((a & C_SWAP) && w->n_tok > 1) {
            int p[ATTEND_MAX_ORDER];
            for (int i = 0; i < w->n_tok; i++)
                p[i] = r->ctl.order ? r->ctl.order[i] : i;
            w->start[D_ORDER] = perm_index(w, p);
            w->nval[D_ORDER] = 2;
        }
        return;
    }
    switch (w->kind) {
    case W_WORKED:
        w->start[D_CAUSAL] = ls->causal;
        w->start[D_SCALE] = ls->scale;
        w->start[D_STEP] = ls->step;
        w->nval[D_CAUSAL] = a & C_MASK ? 3 : 1;
        w->nval[D_SCALE] = a & C_SCALE ? 2 : 1;
        w->nval[D_STEP] = a & C_STEP ? LIVE_WORKED_STEPS : 1;
        break;
    case W_SCALING:
    case W_COST: {
        int dim = w->kind == W_SCALING ? D_DK : D_N;
        long long v = w->kind == W_SCALING ? ls->d_k : ls->n, max = dim == D_DK ? LIVE_DK_MAX
                                                                               : LIVE_N_MAX;
        long long lo = v;
        while (lo / 2 >= 1 && (a & (C_DK | C_N)))
            lo /= 2;
        int n = 0;
        for (long long x = lo; n < MAX_DIMVALS; x = x * 2 > max ? max : x * 2) {
            if (x == v)
                w->start[dim] = n;
            w->vals[dim][n++] = (int)x;
            if (x == max || !(a & (C_DK | C_N)))
                break;
        }
        w->nval[dim] = n;
        w->start[D_SCALE] = ls->scale;
        w->nval[D_SCALE] = w->kind == W_SCALING && (a & C_SCALE) ? 2 : 1;
        break;
    }
    case W_PARAMS:
        w->start[D_TIED] = ls->tied;
        w->start[D_GQA] = ls->gqa;
        w->nval[D_TIED] = a & C_TIE ? 2 : 1;
        w->nval[D_GQA] = a & C_GQA ? 2 : 1;
        break;
    case W_KVCACHE:
        w->start[D_STEP] = ls->step - 1;
        w->nval[D_STEP] = a & C_STEP ? r->live.n_tokens : 1;
        if (w->nval[D_STEP] < 1)
            w->nval[D_STEP] = 1;
        break;
    case W_GENERATE: {
        static const int TEMPS[] = {25, 50, 70, 100, 150, 200, 300};
        w->start[D_STEP] = ls->step;
        w->nval[D_STEP] = a & C_STEP ? 12 : 1; /* trimmed to the end of the text when run */
        w->start[D_SAMPLE] = ls->sample;
        w->nval[D_SAMPLE] = a & C_SAMPLE ? 2 : 1;
        int ti = 3;
        for (int i = 0; i < 7; i++) {
            w->vals[D_TEMP][i] = TEMPS[i];
            if (TEMPS[i] == (int)(ls->temp * 100 + 0.5f))
                ti = i;
        }
        w->start[D_TEMP] = ti;
        w->nval[D_TEMP] = a & C_SAMPLE ? 7 : 1;
        w->start[D_SEED] = 0;
        w->nval[D_SEED] = a & C_SAMPLE ? 2 : 1;
        break;
    }
    default:
        break;
    }
    if (w->start[D_STEP] >= w->nval[D_STEP])
        w->nval[D_STEP] = w->start[D_STEP] + 1;
}

/* Orders states by what the engine runs, the view last: one run serves a group. */
static const PageWalk *sort_walk;
static int by_run(const void *a, const void *b)
{
    const WState *x = &sort_walk->st[*(const int *)a], *y = &sort_walk->st[*(const int *)b];
    for (int d = 0; d < D__COUNT; d++)
        if (x->v[d] != y->v[d])
            return x->v[d] < y->v[d] ? -1 : 1;
    return 0;
}

static int same_run(const WState *x, const WState *y)
{
    return !memcmp(x->v, y->v, sizeof(int) * D_RUN);
}

/* "with mask causal, pe rope, L0 h1 knocked out, head 2": how s differs from the start. */
static void describe_state(const PageWalk *w, const WState *s, char *out, size_t n)
{
    size_t l = 0;
    out[0] = 0;
#define ADD(...) do { int k_ = snprintf(out + l, n - l, __VA_ARGS__); \
                      if (k_ > 0 && (size_t)k_ < n - l) l += (size_t)k_; } while (0)
    for (int d = 0; d < D__COUNT; d++) {
        int v = s->v[d];
        if (v == w->start[d])
            continue;
        ADD("%s", l ? ", " : "with ");
        switch (d) {
        case D_SENT: ADD("\"%s\" typed (e)", w->sents[v]); break;
        case D_CAUSAL:
            ADD("%s", w->kind == W_WORKED ? (v == 2 ? "the mask after softmax" : v ? "the causal "
                "mask" : "no mask") : v ? "the causal mask on" : "the causal mask off");
            break;
        case D_PADDING: ADD("the padding mask %s", v ? "on" : "off"); break;
        case D_PE: ADD("pe %s", model_pe_name((PeKind)v)); break;
        case D_SCALE: ADD("scaling %s", v ? "on" : "off"); break;
        case D_ABLATE:
            for (int b = 0; b < 30; b++)
                if (v >> b & 1)
                    ADD("%sL%d h%d", b != __builtin_ctz((unsigned)v) ? " and " : "",
                        b / w->m->cfg.n_heads, b % w->m->cfg.n_heads);
            ADD(" knocked out (X)");
            break;
        case D_ORDER:
            ADD("order");
            for (int i = 0; i < w->n_tok; i++)
                ADD(" %d", w->perm[v][i]);
            break;
        case D_STEP: ADD("step %d", v + (w->kind == W_KVCACHE)); break;
        case D_DK: case D_N: ADD("%s %d", DIM_NAME[d], w->vals[d][v]); break;
        case D_TEMP: ADD("temperature %g", w->vals[d][v] / 100.0); break;
        case D_SEED: ADD("seed +%d", v); break;
        default: ADD("%s %d", DIM_NAME[d], v); break;
        }
    }
#undef ADD
}

/* Reports msg at off of the page's prose, once per (offset, rule) on the page. */
static void report(PageWalk *w, int rule, size_t off, const WState *s, const char *msg)
{
    for (int i = 0; i < w->n_seen; i++)
        if (w->seen_off[i] == off && w->seen_rule[i] == rule)
            return;
    if (w->n_seen >= (int)(sizeof w->seen_off / sizeof w->seen_off[0]))
        return;
    w->seen_off[w->n_seen] = off;
    w->seen_rule[w->n_seen++] = rule;
    char st[400], full[1000];
    describe_state(w, s, st, sizeof st);
    snprintf(full, sizeof full, "%s%s%s", st[0] ? st : "on its first screen", st[0] ? ": " : ": ",
             msg);
    w->problems++;
    if (lesson_check_prose_problem(w->c, w->li, w->pi, off, full))
        w->oom = 1;
}

/* Sets r's controls or live state to s (the run's dimensions). */
static void apply_state(PageWalk *w, WidgetRun *r, const WState *s, int *order)
{
    const int H = w->m->cfg.n_heads;
    if (w->model_widget) {
        r->ctl.causal = s->v[D_CAUSAL];
        r->ctl.padding = s->v[D_PADDING];
        r->ctl.pe = (PeKind)s->v[D_PE];
        r->ctl.scale = s->v[D_SCALE];
        memset(r->ctl.ablate, 0, sizeof r->ctl.ablate);
        for (int b = 0; b < 30; b++)
            if (s->v[D_ABLATE] >> b & 1)
                r->ctl.ablate[b / H] |= (uint64_t)1 << (b % H);
        if (w->nval[D_ORDER] > 1) {
            memcpy(order, w->perm[s->v[D_ORDER]], sizeof(int) * (size_t)w->n_tok);
            r->ctl.order = order;
        }
        r->io.layer = s->v[D_LAYER];
        r->io.head = s->v[D_HEAD];
        return;
    }
    LiveState *ls = &r->live.s;
    switch (w->kind) {
    case W_WORKED:
        ls->causal = s->v[D_CAUSAL];
        ls->scale = s->v[D_SCALE];
        ls->step = s->v[D_STEP];
        break;
    case W_SCALING:
        ls->d_k = w->vals[D_DK][s->v[D_DK]];
        ls->scale = s->v[D_SCALE];
        break;
    case W_COST: ls->n = w->vals[D_N][s->v[D_N]]; break;
    case W_PARAMS:
        ls->tied = s->v[D_TIED];
        ls->gqa = s->v[D_GQA];
        break;
    case W_KVCACHE: ls->step = s->v[D_STEP] + 1; break;
    case W_GENERATE:
        ls->step = s->v[D_STEP];
        ls->sample = s->v[D_SAMPLE];
        ls->temp = (float)w->vals[D_TEMP][s->v[D_TEMP]] / 100.0f;
        ls->seed = w->P->widget.start.seed + s->v[D_SEED];
        break;
    default:
        break;
    }
}

/* The prose of the page in state s on run r: every placeholder, block and assert resolved,
 * the claims true; the knock-out's words fit the status line. */
static void check_state(PageWalk *w, WidgetRun *r, const WState *s, char *out, size_t cap,
                        const char *start_state[3])
{
    PlaceholderFail f[8];
    int nf = 0;
    const char *prose = w->P->prose;
    widget_ctx(&r->io, r->ran, &r->ctx);
    placeholder_expand_fails(prose, &r->ctx, out, cap, f, 8, &nf);
    for (int i = 0; i < nf && i < 8; i++)
        report(w, 0, f[i].off, s, f[i].msg);
    char now[3][24];
    const char *nowp[3] = {NULL, NULL, NULL};
    if (w->model_widget && r->ran) {
        static const char *const B[3] = {"mask", "pe", "scale"};
        char err[200];
        for (int k = 0; k < 3; k++)
            if (!placeholder_value(B[k], &r->ctx, now[k], sizeof now[k], err, sizeof err))
                nowp[k] = now[k];
    }
    ClaimState cs = {nowp[0], nowp[1], nowp[2], start_state[0], start_state[1], start_state[2]};
    nf = claims_shown(prose, out, &cs, f, 8);
    for (int i = 0; i < nf && i < 8; i++)
        report(w, 1, f[i].off, s, f[i].msg);
    if (w->model_widget && r->ran) {
        nf = claims_tokens(prose, &r->ctx, f, 8);
        for (int i = 0; i < nf && i < 8; i++)
            report(w, 2, f[i].off, s, f[i].msg);
    }
}

/* The knock-out's words (the player's status line) for every head of layer 0..L: one line
 * of at most 80 columns. */
static void check_ablation(PageWalk *w, WidgetRun *r, const WState *s)
{
    char words[600], msg[900];
    const Trace *t = r->io.tr.t;
    if (!t || !t->model || __builtin_popcount((unsigned)s->v[D_ABLATE]) != 1)
        return;
    int bit = __builtin_ctz((unsigned)s->v[D_ABLATE]);
    if (w->words_done >> bit & 1)
        return; /* once per head and page: the words do not depend on the view */
    w->words_done |= 1u << bit;
    int layer = bit / w->m->cfg.n_heads, head = bit % w->m->cfg.n_heads;
    if (ablation_words(t, layer, head, words, sizeof words))
        return;
    int cols = 0;
    for (const unsigned char *p = (const unsigned char *)words; *p; p++)
        cols += (*p & 0xC0) != 0x80;
    if (cols <= 80)
        return;
    snprintf(msg, sizeof msg, "the status line after X is %d columns, over 80 (it is cut): "
             "\"%.300s\"", cols, words);
    report(w, 3, 0, s, msg);
}

/* Walks one page: finds its states, then runs and checks them a run group at a time. */
static void walk_page(PageWalk *w, LessonWalkStats *stats, char *out, size_t cap)
{
    char err[600];
    WidgetRun r;
    if (widget_run_start(&r, &w->P->widget, w->m, err, sizeof err) || !w->P->prose) {
        widget_run_free(&r); /* the start's failure is the placeholder check's to report */
        return;
    }
    r.io.opened = r.ctx.opened = lesson_model_opened(w->c, w->P); /* {{opened}}, as the player */
    w->n_tok = r.n_src < ATTEND_MAX_ORDER ? r.n_src : 0;
    set_dims(w, &r);
    { /* what fails on the start is the placeholder check's (lesson_check.c) to report */
        PlaceholderFail f[8];
        int nf = 0;
        placeholder_expand_fails(w->P->prose, &r.ctx, out, cap, f, 8, &nf);
        for (int i = 0; i < nf && i < 8 && w->n_seen < 32; i++) {
            w->seen_off[w->n_seen] = f[i].off;
            w->seen_rule[w->n_seen++] = 0;
        }
    }
    const char *start_state[3] = {NULL, NULL, NULL};
    char sv[3][24];
    if (w->model_widget && r.ran) {
        static const char *const B[3] = {"mask", "pe", "scale"};
        for (int k = 0; k < 3; k++)
            if (!placeholder_value(B[k], &r.ctx, sv[k], sizeof sv[k], err, sizeof err))
                start_state[k] = sv[k];
    }
    /* breadth-first from the start */
    WState s0;
    memcpy(s0.v, w->start, sizeof s0.v);
    add_state(w, &s0);
    for (int i = 0; i < w->n_st && !w->oom; i++) {
        WState cur = w->st[i];
        neighbours(w, &cur);
    }
    if (w->bound) {
        stats->bound_pages++;
        size_t l = strlen(stats->bound_at);
        if (l < sizeof stats->bound_at - 80)
            snprintf(stats->bound_at + l, sizeof stats->bound_at - l, "%s%.60s pages[%d]",
                     l ? ", " : "", strrchr(w->c->lessons[w->li].file, '/')
                     ? strrchr(w->c->lessons[w->li].file, '/') + 1 : w->c->lessons[w->li].file,
                     w->pi);
    }
    int *idx = malloc(sizeof(int) * (size_t)w->n_st);
    if (!idx) {
        w->oom = 1;
        widget_run_free(&r);
        return;
    }
    for (int i = 0; i < w->n_st; i++)
        idx[i] = i;
    sort_walk = w;
    qsort(idx, (size_t)w->n_st, sizeof *idx, by_run);
    int order[ATTEND_MAX_ORDER], cur_sent = 0;
    const WState *prev = NULL;
    for (int i = 0; i < w->n_st && !w->oom; i++) {
        const WState *s = &w->st[idx[i]];
        if (s->v[D_SENT] != cur_sent) { /* another sentence: a run of its own */
            Widget wd = w->P->widget;
            snprintf(wd.start.sentence, sizeof wd.start.sentence, "%s", w->sents[s->v[D_SENT]]);
            wd.start.n_order = 0;
            widget_run_free(&r);
            if (widget_run_start(&r, &wd, w->m, err, sizeof err)) {
                report(w, 4, 0, s, err);
                break;
            }
            cur_sent = s->v[D_SENT];
            prev = NULL;
        }
        int rerun = !prev || !same_run(prev, s);
        apply_state(w, &r, s, order);
        if (rerun) {
            r.ran = widget_run(&r.io, NULL, err, sizeof err) == 0;
            stats->runs++;
            if (!r.ran && w->kind == W_GENERATE && s->v[D_STEP] > 0) {
                prev = s; /* past the end of the text: the key does nothing there */
                continue;
            }
            if (!r.ran)
                report(w, 4, 0, s, err);
            if (w->nval[D_ABLATE] > 1)
                check_ablation(w, &r, s);
        }
        prev = s;
        if (!r.ran)
            continue;
        check_state(w, &r, s, out, cap, start_state);
        stats->states++;
    }
    free(idx);
    widget_run_free(&r);
}

/* One name, one count: every params page whose configuration carries the same name (case,
 * spaces and signs ignored: "Qwen3-4B", "qwen3-4b") must count the same weights at its start,
 * or the course gives one model two sizes without saying why. */
static int check_params_names(Course *c)
{
    struct { char key[64]; long long total; int li, pi; } seen[64];
    int n = 0, found = 0;
    for (int li = 0; li < c->n_lessons; li++) {
        const Lesson *L = &c->lessons[li];
        for (int pi = 0; !L->broken && pi < L->n_pages; pi++) {
            const Page *P = &L->pages[pi];
            const Model *m = lesson_model(c, P);
            if (P->widget.kind != W_PARAMS || !m)
                continue;
            WidgetRun r;
            char err[300], key[64];
            int ok = widget_run_start(&r, &P->widget, m, err, sizeof err) == 0 && r.live.ok;
            long long total = r.live.total;
            const char *name = widget_params_name(&P->widget, m);
            size_t k = 0;
            for (const char *q = name; *q && k + 1 < sizeof key; q++)
                if (isalnum((unsigned char)*q))
                    key[k++] = (char)tolower((unsigned char)*q);
            key[k] = 0;
            widget_run_free(&r);
            if (!ok || !key[0])
                continue;
            int i = 0;
            while (i < n && strcmp(seen[i].key, key))
                i++;
            if (i == n) {
                if (n < (int)(sizeof seen / sizeof seen[0])) {
                    snprintf(seen[n].key, sizeof seen[n].key, "%s", key);
                    seen[n].total = total;
                    seen[n].li = li;
                    seen[n++].pi = pi;
                }
                continue;
            }
            if (seen[i].total == total)
                continue;
            char msg[700];
            const char *f = strrchr(c->lessons[seen[i].li].file, '/');
            snprintf(msg, sizeof msg, "counts \"%s\" as %lld weights, but %s pages[%d] counts a "
                     "model of that name as %lld: count one configuration (\"config\": {\"file\": "
                     "...}) or name the two apart and say what differs", name, total,
                     f ? f + 1 : c->lessons[seen[i].li].file, seen[i].pi, seen[i].total);
            if (lesson_check_page_problem(c, li, pi, msg))
                return -1;
            found++;
        }
    }
    return found;
}

/* Every question built as the quiz builds it (quiz_item_from_question, seed 1): a setup line
 * that names a mask must name the one in effect where the answer reads (the causal mask is
 * in effect when the masked scores hold −∞ above the diagonal). */
static int check_setups(Course *c)
{
    QuizItem *it = malloc(sizeof *it);
    int found = 0;
    if (!it)
        return -1;
    for (int li = 0; li < c->n_lessons; li++) {
        const Lesson *L = &c->lessons[li];
        for (int pi = 0; !L->broken && pi < L->n_pages; pi++) {
            const Page *P = &L->pages[pi];
            const Model *m = lesson_model(c, P);
            for (int qi = 0; m && qi < P->n_questions; qi++) {
                const Question *Q = &P->questions[qi];
                char err[400], name[64], said[16];
                const char *at;
                if (!Q->ok || Q->kind == QK_DRILL || !Q->compute[0] ||
                    quiz_item_from_question(it, c, li, pi, qi, 1, err, sizeof err) ||
                    !(at = strstr(it->context, "; mask ")) ||
                    sscanf(at, "; mask %15[a-z]", said) != 1)
                    continue;
                Widget w = P->widget;
                if (Q->has_state)
                    course_apply_delta(&w.start, &Q->state);
                WidgetRun r;
                const TraceEntry *e = NULL;
                if (!widget_run_start(&r, &w, m, err, sizeof err) && r.ran && r.io.tr.t) {
                    const Trace *t = r.io.tr.t;
                    if (sscanf(Q->compute, "value %63s", name) == 1 ||
                        sscanf(Q->compute, "shape %63s", name) == 1 ||
                        sscanf(Q->compute, "entries %63s", name) == 1)
                        e = trace_find_name(t, name);
                    else
                        e = trace_find(t, model_view_stack(m, r.io.cross), r.io.layer,
                                       model_view_sub(m, r.io.cross), r.io.head, T_WEIGHTS);
                    if (e && (e->sub == SUB_SELF || e->sub == SUB_CROSS) && e->layer >= 0)
                        e = trace_find(t, e->stack, e->layer, e->sub, e->head >= 0 ? e->head : 0,
                                       T_MASKED);
                    else
                        e = NULL;
                }
                /* causal: every score above the diagonal masked (a pad column alone is not) */
                int causal = e && e->rows == e->cols && e->rows > 1;
                for (int i = 0; causal && i < e->rows; i++)
                    for (int j = i + 1; j < e->cols; j++)
                        causal &= e->data[(size_t)i * e->cols + j] == -INFINITY;
                int says = !strcmp(said, "causal") || !strcmp(said, "both");
                if (e && causal != says) {
                    char msg[800];
                    snprintf(msg, sizeof msg, "questions[%d] (%s): the setup says \"mask %s\", "
                             "but the answer reads %s %s the causal mask: a learner who follows "
                             "the setup computes another number", qi, Q->id, said, e->name,
                             causal ? "under" : "without");
                    if (lesson_check_page_problem(c, li, pi, msg)) {
                        widget_run_free(&r);
                        free(it);
                        return -1;
                    }
                    found++;
                }
                widget_run_free(&r);
            }
        }
    }
    free(it);
    return found;
}

int lesson_walk(Course *c, LessonWalkStats *st)
{
    LessonWalkStats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    PageWalk *w = malloc(sizeof *w);
    WState *states = malloc(sizeof *states * LESSON_WALK_BOUND);
    size_t cap = 1 << 16;
    char *out = malloc(cap);
    int total = 0, oom = !w || !states || !out;
    for (int li = 0; li < c->n_lessons && !oom; li++) {
        Lesson *L = &c->lessons[li];
        if (L->broken)
            continue;
        for (int pi = 0; pi < L->n_pages && !oom; pi++) {
            const Page *P = &L->pages[pi];
            const Model *m = lesson_model(c, P);
            WidgetKind k = P->widget.kind;
            if (!m || !P->prose || k == W_TRAIN || k == W_LAB || k == W_NONE)
                continue;
            memset(w, 0, sizeof *w);
            memset(w->hash, -1, sizeof w->hash);
            w->c = c;
            w->li = li;
            w->pi = pi;
            w->P = P;
            w->m = m;
            w->kind = k;
            w->model_widget = k == W_HEATMAP || k == W_CHIPS || k == W_PASSPORT || k == W_MATRIX ||
                              course_kind_is_probe(k);
            w->st = states;
            walk_page(w, st, out, cap);
            free(w->perm);
            st->pages++;
            total += w->problems;
            oom = w->oom;
        }
    }
    free(out);
    free(states);
    free(w);
    int named = oom ? 0 : check_params_names(c);
    int setups = oom || named < 0 ? 0 : check_setups(c);
    return oom || named < 0 || setups < 0 ? -1 : total + named + setups;
}
