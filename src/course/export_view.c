/* export_view.c - what a figure shows, below every writer (SVG, CSV, live tables): the
 * format and figure names, the matrix a view reads with its mask, labels and title, the chips
 * verdict, and a CSV field. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "names.h"

static const char *const FORMAT_NAMES[EXPORT__FORMATS] = {"svg", "csv", "json"};
static const char *const WHAT_NAMES[EXPORT__WHATS] = {"heatmap", "heads", "passport", "chips",
                                                       "scaling", "cost", "params", "probe"};

const char *export_format_name(ExportFormat f)
{
    return f >= 0 && f < EXPORT__FORMATS ? FORMAT_NAMES[f] : "?";
}

int export_format_parse(const char *s)
{
    for (int i = 0; s && i < EXPORT__FORMATS; i++)
        if (!strcmp(s, FORMAT_NAMES[i]))
            return i;
    return -1;
}

const char *export_what_name(ExportWhat w)
{
    return w >= 0 && w < EXPORT__WHATS ? WHAT_NAMES[w] : "?";
}

int export_what_parse(const char *s)
{
    for (int i = 0; s && i < EXPORT__WHATS; i++)
        if (!strcmp(s, WHAT_NAMES[i]))
            return i;
    return -1;
}

int export_what_for_widget(const Widget *w)
{
    switch (w->kind) {
    case W_HEATMAP:
        return w->start.all_heads ? EXPORT_HEADS : EXPORT_HEATMAP;
    case W_CHIPS:
        return EXPORT_CHIPS;
    case W_PASSPORT:
        return EXPORT_PASSPORT;
    case W_MATRIX:
    case W_WORKED:
    case W_KVCACHE:
    case W_GENERATE:
        return EXPORT_HEATMAP;
    case W_SCALING:
        return EXPORT_SCALING;
    case W_COST:
        return EXPORT_COST;
    case W_PARAMS:
        return EXPORT_PARAMS;
    case W_LENS: case W_ATTRIB: case W_PATCH: case W_ROLLOUT: case W_EFFECT: case W_PAIR:
        return EXPORT_PROBE;
    default:
        return -1;
    }
}

int export_view_of(const WidgetIO *io, const DescribeView *shown, ExportView *v)
{
    const Widget *w = io->w;
    memset(v, 0, sizeof *v);
    v->equiv = -1.0f;
    if (!w || !io->m || !shown->ran)
        return -1;
    v->model = io->m;
    v->live = io->live;
    if (w->kind == W_SCALING || w->kind == W_COST || w->kind == W_PARAMS) {
        /* an explanation widget: its numbers as shown (export_live.c) */
        v->live_name = widget_params_name(w, io->m);
        return io->live && io->live->ok ? export_what_for_widget(w) : -1;
    }
    v->trace = io->tr.t;
    v->layer = io->layer;
    v->head = io->head;
    v->cross = io->cross;
    v->scores = shown->scores;
    v->input_ids = io->src;
    v->n_input = io->tr.t ? io->tr.t->n : 0;
    switch (w->kind) {
    case W_HEATMAP:
        return !v->trace ? -1 : shown->all_heads ? EXPORT_HEADS : EXPORT_HEATMAP;
    case W_CHIPS:
        v->equiv = shown->equiv;
        return v->trace ? EXPORT_CHIPS : -1;
    case W_MATRIX:
        v->tensor = shown->tensor;
        break;
    case W_LENS: case W_ATTRIB: case W_PATCH: case W_ROLLOUT: case W_EFFECT: case W_PAIR:
        v->step = shown->step; /* the position the widget shows */
        return v->trace && io->live && io->live->probe ? EXPORT_PROBE : -1;
    case W_GENERATE: /* the text so far: its last row is the new query's */
        v->layer = w->start.layer;
        v->head = w->start.head;
        v->input_ids = io->live->gen_ids;
        v->n_input = io->live->gen.n;
        v->gen = &io->live->gen;
        v->gen_temp = io->live->s.sample ? io->live->s.temp : 0.0f;
        v->gen_seed = io->live->s.seed;
        break;
    case W_WORKED: /* a hand-worked trace: positions, not tokens */
        v->model = NULL;
        v->trace = io->live ? io->live->worked : NULL;
        v->layer = v->head = v->cross = 0;
        v->labels = w->worked.labels;
        v->n_labels = w->worked.nq > w->worked.nk ? w->worked.nq : w->worked.nk;
        v->input_ids = NULL;
        break;
    default: /* the passport, the KV cache (its prefix run: the cache as it stands) */
        break;
    }
    return v->trace ? export_what_for_widget(w) : -1;
}

/* ---- what a heatmap reads ---- */

static int is_encdec(const ExportView *v)
{
    return v->model && v->model->cfg.arch == ARCH_ENCDEC;
}

static Stack view_stack(const ExportView *v)
{
    return model_view_stack(v->model, v->cross);
}

static Sublayer view_sub(const ExportView *v)
{
    return model_view_sub(v->model, v->cross);
}

const TraceEntry *export_weights(const ExportView *v, int layer, int head,
                                 const TraceEntry **mask)
{
    Stack st = view_stack(v);
    Sublayer sub = view_sub(v);
    if (mask)
        *mask = trace_find(v->trace, st, layer, sub, -1, T_MASK);
    return trace_find(v->trace, st, layer, sub, head, T_WEIGHTS);
}

const TraceEntry *export_matrix(const ExportView *v, const TraceEntry **mask, char *err,
                                size_t errlen)
{
    *mask = NULL;
    if (v->tensor && v->tensor[0]) {
        const TraceEntry *e = trace_find_name(v->trace, v->tensor);
        if (!e) {
            snprintf(err, errlen, "the run has no tensor \"%s\"", v->tensor);
            return NULL;
        }
        if (e->kind >= T_SCORES && e->kind <= T_WEIGHTS && e->layer >= 0)
            *mask = trace_find(v->trace, e->stack, e->layer, e->sub, -1, T_MASK);
        return e;
    }
    const TraceEntry *e = export_weights(v, v->layer, v->head, mask);
    if (e && v->scores)
        e = trace_find(v->trace, view_stack(v), v->layer, view_sub(v), v->head, T_MASKED);
    if (!e) {
        int nl = v->model ? v->model->cfg.n_layers : 1, nh = v->model ? v->model->cfg.n_heads : 1;
        snprintf(err, errlen, "no %sattention at layer %d, head %d (layers 0..%d, heads 0..%d)",
                 v->cross ? "cross-" : "", v->layer, v->head, nl - 1, nh - 1);
    }
    return e;
}

int export_masked(const TraceEntry *e, const TraceEntry *mask, int i, int j)
{
    if (mask && i < mask->rows && j < mask->cols && isinf(mask->data[(size_t)i * mask->cols + j]))
        return 1;
    float x = e->data[(size_t)i * e->cols + j];
    return isinf(x) && x < 0;
}

static const char *token(const ExportView *v, const int *ids, int i, int n, char *buf,
                         size_t len)
{
    if (v->model && ids && i < n)
        snprintf(buf, len, "%s", vocab_word(&v->model->vocab, ids[i]));
    else if (v->labels && i < v->n_labels)
        snprintf(buf, len, "%s", v->labels[i]);
    else
        snprintf(buf, len, "t%d", i);
    return buf;
}

const char *export_token(const ExportView *v, int i, char *buf, size_t n)
{
    return token(v, v->trace->src, i, v->trace->n, buf, n);
}

const char *export_row_label(const ExportView *v, const TraceEntry *e, int i, char *buf,
                             size_t n)
{
    const Trace *t = v->trace;
    if (e->kind == T_PE) { /* PE depends on the position only, as the player labels it */
        snprintf(buf, n, "pos %d", i);
        return buf;
    }
    if (is_encdec(v) && e->stack == STACK_DEC)
        return token(v, t->tgt, i, t->m, buf, n);
    return token(v, t->src, i, t->n, buf, n);
}

const char *export_col_label(const ExportView *v, const TraceEntry *e, int j, char *buf,
                             size_t n)
{
    const Trace *t = v->trace;
    if (e->kind < T_SCORES || e->kind > T_WEIGHTS) {
        snprintf(buf, n, "%d", j);
        return buf;
    }
    if (is_encdec(v) && e->stack == STACK_DEC && e->sub == SUB_SELF)
        return token(v, t->tgt_in, j, t->m, buf, n);
    return token(v, t->src, j, t->n, buf, n);
}

void export_title(const ExportView *v, const char *what, char *out, size_t n)
{
    const Trace *t = v->trace;
    size_t k = 0;
    char w[64];
    #define ADD(...) do { if (k < n) k += (size_t)snprintf(out + k, n - k, __VA_ARGS__); } while (0)
    if (!v->model) {
        ADD("worked example");
    } else {
        ADD("\u201c");
        /* a model's own tokens carry their spaces (" cat"): written one after the other */
        int sep = !vocab_joins_prev(&v->model->vocab, t->n ? t->src[0] : 0);
        for (int i = 0; i < t->n; i++)
            ADD("%s%s", i && sep ? " " : "", token(v, t->src, i, t->n, w, sizeof w));
        ADD("\u201d");
        if (is_encdec(v)) {
            ADD(" \u2192 \u201c");
            for (int i = 0; i < t->m; i++)
                ADD("%s%s", i ? " " : "", token(v, t->tgt, i, t->m, w, sizeof w));
            ADD("\u201d");
        }
        const char *path = v->model->path, *slash = strrchr(path, '/');
        ADD(" \u00b7 %s", path[0] ? (slash ? slash + 1 : path) : "(in memory)");
    }
    if (what)
        ADD(" \u00b7 %s", what);
    Stack st = view_stack(v);
    Sublayer sub = view_sub(v);
    /* the mask's name as the player, dump and the lessons print it */
    ADD(" \u00b7 mask %s", names_sublayer_mask(v->model, st, sub, t->ctl.causal, t->ctl.padding));
    if (v->model)
        ADD(" \u00b7 PE %s", model_pe_name(t->ctl.pe));
    ADD(" \u00b7 scaling %s", t->ctl.scale ? "1/\u221ad_k" : "off");
    #undef ADD
}

void export_chips_verdict(const Trace *t, float equiv, const char **headline,
                          const char **why)
{
    int ident = 1, match = equiv >= 0.0f && equiv < EXPORT_EQUIV_TOL;
    for (int i = 0; i < t->n; i++)
        if (t->order[i] != i)
            ident = 0;
    *headline = equiv < 0.0f ? "equivariance not computed"
              : match ? "outputs match permutation" : "outputs do not match";
    *why = ident ? "(original order: swap two chips to permute the input)"
         : match ? "same outputs, moved with their tokens: attention alone ignores order"
         : t->ctl.causal ? "changed, not just moved: the causal mask depends on position"
         : t->ctl.pe != PE_NONE ? "changed, not just moved: positional encoding is seen"
                                : "the outputs changed, not just moved";
}

/* ---- CSV (RFC 4180: fields with , " or a line break are quoted, " doubled) ---- */

void export_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}
