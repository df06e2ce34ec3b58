/* widget.c - one widget run (widget.h): the starting state, the engine run of every widget
 * kind, and the one PlaceholderCtx that reads it. No curses, no printing, no exit(). */
#include "widget.h"
#include "probe.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hf_model.h"

int widget_traces_new(WidgetTraces *tr, const Model *m, int n, int n_tgt)
{
    assert(m && n > 0 && n_tgt >= 0);
    tr->t = trace_new(m, n, n_tgt);
    tr->eq_a = trace_new(m, n, n_tgt);
    tr->eq_b = trace_new(m, n, n_tgt);
    if (tr->t && tr->eq_a && tr->eq_b)
        return 0;
    widget_traces_free(tr);
    return -1;
}

void widget_traces_free(WidgetTraces *tr)
{
    trace_free(tr->t);
    trace_free(tr->eq_a);
    trace_free(tr->eq_b);
    memset(tr, 0, sizeof *tr);
}

int widget_token_cap(const Model *m, int max, char *why, size_t whylen)
{
    size_t avail = hf_mem_available(), half = avail / 2;
    int cap = m->cfg.max_len < max ? m->cfg.max_len : max;
    int encdec = m->cfg.arch == ARCH_ENCDEC;
    if (cap < 1)
        cap = 1;
    /* one trace within TRACE_MAX_BYTES; the three within half the memory free (the heads'
     * maps are in each trace's bounded map cache, counted in trace_bytes) */
#define ONE(n) trace_bytes(m, (n), encdec ? (n) : 1)
#define FITS(n) (ONE(n) <= TRACE_MAX_BYTES && (!avail || 3 * ONE(n) <= half))
    if (!FITS(cap)) { /* the largest n in 1..cap that fits */
        int lo = 1, hi = cap;
        while (lo < hi) {
            int mid = lo + (hi - lo + 1) / 2;
            if (FITS(mid))
                lo = mid;
            else
                hi = mid - 1;
        }
        if (why) { /* the next length against the limit that binds */
            if (ONE(lo + 1) > TRACE_MAX_BYTES)
                snprintf(why, whylen, "memory: %d tokens need %zu MiB > %zu MiB", lo + 1,
                         ONE(lo + 1) >> 20, TRACE_MAX_BYTES >> 20);
            else
                snprintf(why, whylen, "memory: %d tokens need %zu MiB > %zu MiB, half the memory "
                         "free", lo + 1, (3 * ONE(lo + 1)) >> 20, half >> 20);
        }
        return lo;
    }
#undef FITS
#undef ONE
    if (why) {
        if (cap == m->cfg.max_len)
            snprintf(why, whylen, "its context, max_len %d", m->cfg.max_len);
        else
            snprintf(why, whylen, "the player's limit; its context is %d", m->cfg.max_len);
    }
    return cap;
}

int widget_state(const Widget *w, const Model *m, Controls *ctl, int *src, int *n, int *tgt,
                 int *n_tgt, int cap, char *err, size_t errlen)
{
    assert(w && m && cap > 0);
    const WidgetStart *s = &w->start;
    assert(s->n_order >= 0 && s->n_order <= ATTEND_MAX_ORDER);
    model_default_controls(m, ctl);
    if (s->causal >= 0)
        ctl->causal = s->causal;
    if (s->padding >= 0)
        ctl->padding = s->padding;
    if (s->pe >= 0)
        ctl->pe = (PeKind)s->pe;
    ctl->scale = s->scale;
    ctl->order = s->n_order > 0 ? s->order : NULL;
    *n = 0;
    *n_tgt = 0;
    if (!s->sentence[0]) {
        snprintf(err, errlen, "this page has no sentence");
        return -1;
    }
    TokenizeInfo info;
    char cnt[32];
    *n = vocab_tokenize(&m->vocab, s->sentence, src, cap, &info);
    if (info.error[0]) {
        snprintf(err, errlen, "the sentence: %s", info.error);
        return -1;
    }
    if (info.truncated || *n == 0) {
        snprintf(err, errlen, "the sentence has %s tokens; it needs 1 to %d",
                 vocab_count_text(&info, cnt, sizeof cnt), cap);
        return -1;
    }
    if (s->n_order > 0 && s->n_order != *n) {
        snprintf(err, errlen, "start.order has %d entries for %d tokens", s->n_order, *n);
        return -1;
    }
    if (m->cfg.arch == ARCH_ENCDEC) {
        *n_tgt = vocab_tokenize(&m->vocab, s->target, tgt, cap, &info);
        if (info.error[0]) {
            snprintf(err, errlen, "the target: %s", info.error);
            return -1;
        }
        if (info.truncated || *n_tgt == 0) {
            snprintf(err, errlen, "the target has %s tokens; it needs 1 to %d",
                     vocab_count_text(&info, cnt, sizeof cnt), cap);
            return -1;
        }
    }
    return 0;
}

void widget_view_start(const Widget *w, const Model *m, int *layer, int *head, int *cross)
{
    const ModelConfig *c = &m->cfg;
    const WidgetStart *s = &w->start;
    *layer = s->layer >= 0 && s->layer < c->n_layers ? s->layer : 0;
    *head = s->head >= 0 && s->head < c->n_heads ? s->head : 0;
    *cross = model_view_sub(m, s->cross) == SUB_CROSS;
}

/* The train widget: its numbers (live.c), and, given a sentence and a trace, the run of io->m
 * (the model being trained, or the page's) on it with the causal mask, for its heatmap. */
static int widget_run_train(const WidgetIO *io, char *err, size_t errlen)
{
    if (live_run(io->live, io->w, io->m, NULL, 0, NULL, NULL, err, errlen))
        return -1;
    if (!io->tr.t || !io->src || io->n_src < 1)
        return 0;
    Controls c;
    model_default_controls(io->m, &c);
    return model_forward(io->m, io->src, io->n_src, NULL, 0, &c, io->tr.t, err, errlen) ? -1 : 0;
}

int widget_run(const WidgetIO *io, float *equiv, char *err, size_t errlen)
{
    const Widget *w = io->w;
    assert(w && (int)w->kind >= 0 && w->kind < W__COUNT);
    if (err && errlen)
        err[0] = 0;
    if (equiv)
        *equiv = -1.0f;
    if (course_kind_is_explain(w->kind)) {
        /* kvcache: t holds the prefix run (what the views and placeholders read), eq_a the
         * full one; generate: t the last run, eq_a the one before; the other explanation
         * widgets read no sentence */
        assert(io->live);
        if (w->kind == W_TRAIN)
            return widget_run_train(io, err, errlen);
        return live_run(io->live, w, io->m, io->src, io->n_src, io->tr.eq_a, io->tr.t, err,
                        errlen);
    }
    if (!io->m || !io->tr.t) {
        snprintf(err, errlen, "no model to run");
        return -1;
    }
    assert(io->ctl && io->n_src >= 0 && io->n_src <= io->tr.t->max_n);
    if (io->equiv) {
        /* The permuted run of the check is the current state: it goes straight into t, so a
         * chips key costs two forward passes, not three. */
        assert(equiv && io->tr.eq_a);
        *equiv = model_equivariance(io->m, io->src, io->n_src, io->tgt, io->n_tgt, io->ctl,
                                    io->tr.eq_a, io->tr.t, err, errlen);
        if (*equiv >= 0.0f) {
            /* the verdict is the gap of the layer shown, whose rows sit under the chips */
            *equiv = model_equivariance_layer(io->m, io->tr.eq_a, io->tr.t, io->layer);
            return 0;
        }
    }
    if (model_forward(io->m, io->src, io->n_src, io->tgt, io->n_tgt, io->ctl, io->tr.t, err,
                      errlen))
        return -1;
    if (course_kind_is_probe(w->kind)) { /* the probe's numbers, read from the run */
        assert(io->live);
        return probe_run(&io->live->probe, w, io->m, io->tr.t, io->layer, err, errlen);
    }
    return 0;
}

void widget_ctx(const WidgetIO *io, int ran, PlaceholderCtx *ctx)
{
    const Widget *w = io->w;
    memset(ctx, 0, sizeof *ctx);
    ctx->model = io->m;
    ctx->opened = io->opened;
    ctx->layer = io->layer;
    ctx->head = io->head;
    ctx->cross = io->cross;
    if (w && course_kind_is_explain(w->kind)) {
        /* the explanation widgets show no cross-attention and keep their start's layer */
        ctx->cross = 0;
        ctx->layer = w->start.layer;
        ctx->head = w->start.head;
    }
    if (!ran || !w)
        return;
    if (!course_kind_is_explain(w->kind)) {
        ctx->trace = io->tr.t;
        ctx->eq_a = io->tr.eq_a;
        ctx->eq_b = io->tr.eq_b;
        if (course_kind_is_probe(w->kind) && io->live && io->live->probe)
            ctx->nv = &io->live->probe->nv; /* the pair's numbers, for {{x NAME}} */
        return;
    }
    const LiveWidget *l = io->live;
    ctx->nv = l->ok ? &l->nv : NULL;
    if (w->kind == W_WORKED) {
        /* a trace without a model: the model's sizes are no placeholders here */
        ctx->model = NULL;
        ctx->trace = l->ok ? l->worked : NULL;
        ctx->layer = ctx->head = 0;
        ctx->labels = (const char (*)[16])w->worked.labels;
        ctx->n_labels = w->worked.nq > w->worked.nk ? w->worked.nq : w->worked.nk;
    } else if ((w->kind == W_KVCACHE || w->kind == W_GENERATE) && l->ok) {
        ctx->trace = io->tr.t;
    }
}

void widget_run_free(WidgetRun *r)
{
    live_free(&r->live);
    free(r->src);
    free(r->tgt);
    widget_traces_free(&r->io.tr);
    memset(r, 0, sizeof *r);
}

int widget_run_start(WidgetRun *r, const Widget *w, const Model *m, char *err, size_t errlen)
{
    assert(w && m);
    memset(r, 0, sizeof *r);
    r->w = *w;
    WidgetIO *io = &r->io;
    io->w = &r->w;
    io->m = m;
    io->live = &r->live;
    io->ctl = &r->ctl;
    widget_view_start(&r->w, m, &io->layer, &io->head, &io->cross);
    int rc = 0;
    if (course_kind_is_explain(w->kind) && !course_kind_needs_sentence(w->kind)) {
        live_start(&r->live, &r->w, m);
    } else if (!w->start.sentence[0]) {
        goto ctx; /* sizes only: {{d_model}} and friends */
    } else {
        int cap = m->cfg.max_len;
        r->src = malloc(sizeof(int) * (size_t)cap);
        r->tgt = malloc(sizeof(int) * (size_t)cap);
        if (!r->src || !r->tgt) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            goto ctx;
        }
        if (widget_state(&r->w, m, &r->ctl, r->src, &r->n_src, r->tgt, &r->n_tgt, cap, err,
                         errlen)) {
            rc = -1;
            goto ctx;
        }
        io->src = r->src;
        io->tgt = r->tgt;
        io->n_src = r->n_src;
        io->n_tgt = r->n_tgt;
        /* generate runs the prompt and what it writes, up to the model's length */
        int cap_t = w->kind != W_GENERATE ? r->n_src
                    : m->cfg.max_len < LIVE_GEN_MAX ? m->cfg.max_len : LIVE_GEN_MAX;
        if (widget_traces_new(&io->tr, m, cap_t, r->n_tgt > 0 ? r->n_tgt : 1)) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            goto ctx;
        }
        if (w->kind == W_KVCACHE || w->kind == W_GENERATE)
            live_start(&r->live, &r->w, m);
    }
    rc = widget_run(io, NULL, err, errlen);
    r->ran = rc == 0;
ctx:
    widget_ctx(io, r->ran, &r->ctx);
    return rc;
}

/* ---- the shape passport's steps (the player's passport and its SVG figure) ---- */
static int passport_before_layers(TensorKind k)
{
    return k == T_EMBED || k == T_EMBED_SCALED || k == T_PE || k == T_X_PE;
}

int widget_passport_steps(const Trace *t, Stack st, int layer, int head, int *idx, int max)
{
    int n = 0, mask = -1, prev_out = -1;
    assert(max >= 2);
    for (int i = 0; i < t->n_entries; i++) { /* a later layer reads the one before it */
        const TraceEntry *e = trace_meta(t, i); /* shapes and places: no map computed */
        if (layer > 0 && e->stack == st && e->layer == layer - 1 && e->head < 0 &&
            e->sub != SUB_CROSS)
            prev_out = i;
    }
    if (prev_out >= 0)
        idx[n++] = prev_out;
    for (int i = 0; i < t->n_entries && n < max; i++) {
        const TraceEntry *e = trace_meta(t, i);
        if (e->stack != st)
            continue;
        if (e->layer < 0) {
            if (layer == 0 && passport_before_layers(e->kind))
                idx[n++] = i;
            continue;
        }
        if (e->layer != layer || e->sub == SUB_CROSS)
            continue;
        if (e->head >= 0 && e->head != head)
            continue;
        if (e->kind == T_MASK) { /* shown right before +M, where it is added */
            mask = i;
            continue;
        }
        if (e->kind == T_MASKED && mask >= 0 && n < max - 1) {
            idx[n++] = mask;
            mask = -1;
        }
        idx[n++] = i;
    }
    return n;
}

const char *widget_passport_symbol(const TraceEntry *e, int layer, char *buf, size_t n)
{
    if (e->layer >= 0 && e->layer != layer) {
        snprintf(buf, n, "L%d out", e->layer);
        return buf;
    }
    return trace_kind_symbol(e->kind);
}

const char *widget_passport_formula(const TraceEntry *e, int layer, char *buf, size_t n)
{
    if (e->layer >= 0 && e->layer != layer) {
        snprintf(buf, n, "x = the output of layer %d (%s, its last step): the input of layer "
                         "%d. Only layer 0 reads X + PE.", e->layer, e->name, layer);
        return buf;
    }
    return trace_kind_formula(e->kind);
}

/* The weights widget_passport_weights looks for: short names (printf patterns of the layer)
 * by the kind of step, for both Hugging Face families. */
typedef struct {
    char pat[6][48];
    int n;
    char *buf;
    size_t len, cap;
} WeightPick;

static void pick_weight(void *ctx, const char *name, long long rows, long long cols)
{
    WeightPick *p = ctx;
    size_t nl = strlen(name);
    for (int i = 0; i < p->n; i++) {
        size_t pl = strlen(p->pat[i]);
        if (pl > nl || strcmp(name + nl - pl, p->pat[i]) || (nl > pl && name[nl - pl - 1] != '.'))
            continue;
        int k = rows ? snprintf(p->buf + p->len, p->cap - p->len, "%s%s [%lld, %lld]",
                                p->len ? ", " : "", name, rows, cols)
                     : snprintf(p->buf + p->len, p->cap - p->len, "%s%s [%lld]",
                                p->len ? ", " : "", name, cols);
        if (k > 0 && (size_t)k < p->cap - p->len)
            p->len += (size_t)k;
        return;
    }
}

const char *widget_passport_weights(const TraceEntry *e, const Model *m, char *buf, size_t n)
{
    static const struct { TensorKind kind; Sublayer sub; const char *pat[6]; } K[] = {
        {T_EMBED, SUB_NONE, {"wte.weight", "embed_tokens.weight"}},
        {T_PE, SUB_NONE, {"wpe.weight"}},
        {T_NORM_IN, SUB_SELF, {"h.%d.ln_1.weight", "h.%d.ln_1.bias",
                               "layers.%d.input_layernorm.weight"}},
        {T_NORM_IN, SUB_FFN, {"h.%d.ln_2.weight", "h.%d.ln_2.bias",
                              "layers.%d.post_attention_layernorm.weight"}},
        {T_Q, SUB_SELF, {"h.%d.attn.c_attn.weight", "h.%d.attn.c_attn.bias",
                         "layers.%d.self_attn.q_proj.weight", "layers.%d.self_attn.q_proj.bias",
                         "layers.%d.self_attn.q_norm.weight"}},
        {T_K, SUB_SELF, {"h.%d.attn.c_attn.weight", "h.%d.attn.c_attn.bias",
                         "layers.%d.self_attn.k_proj.weight", "layers.%d.self_attn.k_proj.bias",
                         "layers.%d.self_attn.k_norm.weight"}},
        {T_V, SUB_SELF, {"h.%d.attn.c_attn.weight", "h.%d.attn.c_attn.bias",
                         "layers.%d.self_attn.v_proj.weight", "layers.%d.self_attn.v_proj.bias"}},
        {T_ATTN_OUT, SUB_SELF, {"h.%d.attn.c_proj.weight", "h.%d.attn.c_proj.bias",
                                "layers.%d.self_attn.o_proj.weight"}},
        {T_FFN_HIDDEN, SUB_FFN, {"h.%d.mlp.c_fc.weight", "h.%d.mlp.c_fc.bias",
                                 "layers.%d.mlp.gate_proj.weight", "layers.%d.mlp.up_proj.weight"}},
        {T_FFN_OUT, SUB_FFN, {"h.%d.mlp.c_proj.weight", "h.%d.mlp.c_proj.bias",
                              "layers.%d.mlp.down_proj.weight"}},
        {T_FINAL_NORM, SUB_NONE, {"ln_f.weight", "ln_f.bias", "norm.weight"}},
        {T_LOGITS, SUB_NONE, {"lm_head.weight"}},
    };
    buf[0] = 0;
    if (!m)
        return buf;
    if ((e->kind == T_Q_ROT || e->kind == T_K_ROT) && m->cfg.rope_half) {
        snprintf(buf, n, "this model rotates the pairs (x[i], x[i + d_head/2]) instead "
                 "(Hugging Face's rotate_half): the same rotations, its own pairing");
        return buf;
    }
    WeightPick p = {.buf = buf, .cap = n};
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++) {
        if (K[i].kind != e->kind || (K[i].sub != SUB_NONE && K[i].sub != e->sub))
            continue;
        for (int j = 0; j < 6 && K[i].pat[j]; j++)
            snprintf(p.pat[p.n++], sizeof p.pat[0], K[i].pat[j], e->layer);
    }
    if (e->kind == T_LOGITS && m->cfg.tie_embed) /* the LM head is the embedding, transposed */
        snprintf(p.pat[p.n++], sizeof p.pat[0], "%s", m->dec && m->dec[0].self.wqkv
                                                           ? "wte.weight" : "embed_tokens.weight");
    if (!p.n)
        return buf;
    char list[400] = "";
    p.buf = list;
    p.cap = sizeof list;
    if (hf_model_weights(m, pick_weight, &p) || !list[0])
        return buf;
    snprintf(buf, n, "in the files: %s%s", list,
             e->kind == T_LOGITS && m->cfg.tie_embed ? " (tied: the LM head is its transpose)"
             : m->cfg.w_out_in && e->kind != T_EMBED ? " (stored out, in)" : "");
    return buf;
}

const char *widget_params_name(const Widget *w, const Model *m)
{
    return w->has_params ? w->params_name : m ? m->cfg.name : "";
}
