/* placeholder.c - live values in lesson prose: {{weight 2 3}}, {{shape L0.h0.q}}, ...
 * (syntax in docs/lessons.md). Reads the current Trace; never prints. */
#include "placeholder.h"
#include "errf.h"
#include "placeholder_out.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "head_stat.h"
#include "names.h"

#define PH_MAX_ARGS 6



/* Stack and sublayer the widget's heatmap shows (model_view_stack: as every view decides;
 * a trace without a model, a worked example, is one decoder head). */
static void ph_where(const PlaceholderCtx *ctx, Stack *st, Sublayer *sub)
{
    const Model *m = ctx->trace ? ctx->trace->model : ctx->model;
    *st = model_view_stack(m, ctx->cross);
    *sub = model_view_sub(m, ctx->cross);
}

static int parse_index(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 0 || v > 1000000)
        return -1;
    *out = (int)v;
    return 0;
}

static const char *ph_times(const PlaceholderCtx *ctx) { return ctx->ascii ? "x" : "\xc3\x97"; }

/* A real value with the precision asked for (-1: default 2). */
static void fmt_real(const PlaceholderCtx *ctx, double v, int prec, char *out, size_t outlen)
{
    if (isinf(v))
        snprintf(out, outlen, "%s", v < 0 ? (ctx->ascii ? "-inf" : "\xe2\x88\x92\xe2\x88\x9e")
                                          : (ctx->ascii ? "inf" : "\xe2\x88\x9e"));
    else if (isnan(v))
        snprintf(out, outlen, "nan");
    else {
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%.*f", prec < 0 ? 2 : prec, v);
        /* "-0.00" reads oddly next to weights that cannot be negative */
        int allzero = 1;
        for (const char *p = tmp; *p; p++)
            if (*p >= '1' && *p <= '9')
                allzero = 0;
        snprintf(out, outlen, "%s", allzero && tmp[0] == '-' ? tmp + 1 : tmp);
    }
}

/* An index past the end of the run (a sentence shorter than the index): PLACEHOLDER_ABSENT,
 * which a condition reads as false. */
static int absent(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verrf(err, errlen, fmt, ap);
    va_end(ap);
    return PLACEHOLDER_ABSENT;
}

static const TraceEntry *ph_tensor(const PlaceholderCtx *ctx, TensorKind k, char *err,
                                   size_t errlen)
{
    Stack st;
    Sublayer sub;
    ph_where(ctx, &st, &sub);
    const TraceEntry *e = trace_find(ctx->trace, st, ctx->layer, sub, ctx->head, k);
    if (!e)
        errf(err, errlen, "the trace has no %s for layer %d head %d", trace_kind_key(k),
             ctx->layer, ctx->head);
    return e;
}

static int ph_rc(const TraceEntry *e, const char *si, const char *sj, int *i, int *j,
                 char *err, size_t errlen)
{
    if (parse_index(si, i))
        return errf(err, errlen, "row \"%s\" is not a number", si);
    if (*i >= e->rows)
        return absent(err, errlen, "row %d out of range 0..%d", *i, e->rows - 1);
    if (sj) {
        if (parse_index(sj, j))
            return errf(err, errlen, "column \"%s\" is not a number", sj);
        if (*j >= e->cols)
            return absent(err, errlen, "column %d out of range 0..%d", *j, e->cols - 1);
    }
    return 0;
}

static int need_trace(const PlaceholderCtx *ctx, char *err, size_t errlen)
{
    if (!ctx->trace)
        return errf(err, errlen, "this page runs no sentence");
    return 0;
}

/* {{x NAME [,]}}: a value the page's explanation widget publishes. Integers print without
 * decimals unless a precision is given; "," groups digits by three with thin spaces. */
static int ph_x(int ac, char **av, int prec, const PlaceholderCtx *ctx, char *out,
                size_t outlen, char *err, size_t errlen)
{
    int group = 0;
    if (ac == 3 && !strcmp(av[2], ","))
        group = 1;
    else if (ac != 2)
        return errf(err, errlen, "x takes a value name (and optionally \",\"), e.g. {{x params ,}}");
    if (!ctx->nv)
        return errf(err, errlen, "this page's widget publishes no values");
    const NamedValue *v = explain_get(ctx->nv, av[1]);
    if (!v) {
        char list[400] = "";
        for (int i = 0; i < ctx->nv->n; i++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", ctx->nv->v[i].name);
        }
        return errf(err, errlen, "unknown value \"%s\" (this widget publishes: %s)", av[1], list);
    }
    char num[80];
    if (v->integer && prec < 0)
        snprintf(num, sizeof num, "%.0f", v->value);
    else
        fmt_real(ctx, v->value, prec, num, sizeof num);
    if (!group || !isdigit((unsigned char)num[num[0] == '-'])) {
        snprintf(out, outlen, "%s", num);
        return 0;
    }
    /* thin spaces between groups of the integer part */
    const char *sep = ctx->ascii ? " " : "\xe2\x80\x89";
    const char *digits = num + (num[0] == '-');
    size_t nd = strspn(digits, "0123456789");
    Out o = {out, 0, outlen, 0};
    out[0] = 0;
    if (num[0] == '-')
        out_put(&o, "-", 1);
    for (size_t i = 0; i < nd; i++) {
        if (i && (nd - i) % 3 == 0)
            out_put(&o, sep, strlen(sep));
        out_put(&o, digits + i, 1);
    }
    out_put(&o, digits + nd, strlen(digits + nd));
    return 0;
}

/* The word of key column j of the widget's attention (the encoder's words for
 * cross-attention; a worked example: its label). */
static int ph_key_token(int j, const PlaceholderCtx *ctx, char *out, size_t outlen, char *err,
                        size_t errlen)
{
    const Model *m = ctx->model;
    const Trace *t = ctx->trace;
    if (!m || !t->model) {
        if (!ctx->labels || j >= ctx->n_labels)
            return absent(err, errlen, "column %d has no label", j);
        snprintf(out, outlen, "%s", ctx->labels[j]);
        return 0;
    }
    if (j >= t->n)
        return absent(err, errlen, "column %d out of range 0..%d", j, t->n - 1);
    snprintf(out, outlen, "%s", vocab_word(&m->vocab, t->src[j]));
    return 0;
}

/* {{weight i j}}, {{score i j}}, {{rowsum i}}, {{argmax i}} on the widget's attention. */
static int ph_attention(int ac, char **av, int prec, const PlaceholderCtx *ctx, char *out,
                        size_t outlen, char *err, size_t errlen)
{
    const char *name = av[0];
    int i = 0, j = 0;
    int is_score = !strcmp(name, "score");
    const TraceEntry *e = ph_tensor(ctx, is_score ? T_MASKED : T_WEIGHTS, err, errlen);
    if (!e)
        return -1;
    int rc = ph_rc(e, av[1], ac > 2 ? av[2] : NULL, &i, &j, err, errlen);
    if (rc)
        return rc;
    const float *row = e->data + (size_t)i * e->cols;
    if (!strcmp(name, "rowsum")) {
        double s = 0;
        for (int q = 0; q < e->cols; q++)
            s += row[q];
        fmt_real(ctx, s, prec, out, outlen);
    } else if (!strcmp(name, "argmax") || !strcmp(name, "argtoken") || !strcmp(name, "max") ||
               !strcmp(name, "ties")) {
        int best = 0;
        for (int q = 1; q < e->cols; q++)
            if (row[q] > row[best])
                best = q;
        if (!strcmp(name, "argmax"))
            snprintf(out, outlen, "%d", best);
        else if (!strcmp(name, "max"))
            fmt_real(ctx, row[best], prec, out, outlen);
        else if (!strcmp(name, "ties")) {
            /* the columns a reader sees at the row's largest value, as printed (2 decimals
             * unless the author gives a precision) */
            char top[64], here[64];
            int n = 0;
            fmt_real(ctx, row[best], prec, top, sizeof top);
            for (int q = 0; q < e->cols; q++) {
                fmt_real(ctx, row[q], prec, here, sizeof here);
                n += !strcmp(here, top);
            }
            snprintf(out, outlen, "%d", n);
        } else
            return ph_key_token(best, ctx, out, outlen, err, errlen);
    } else {
        fmt_real(ctx, row[j], prec, out, outlen);
    }
    return 0;
}

/* {{token i}}: the word at position i of the query side (a worked example: its label). */
static int ph_token(const char *arg, const PlaceholderCtx *ctx, char *out, size_t outlen,
                    char *err, size_t errlen)
{
    const Model *m = ctx->model;
    const Trace *t = ctx->trace;
    int i = 0;
    if (parse_index(arg, &i))
        return errf(err, errlen, "position \"%s\" is not a number", arg);
    if (!m || !t->model) { /* a worked example: its labels */
        if (!ctx->labels || i >= ctx->n_labels)
            return absent(err, errlen, "position %d out of range 0..%d", i, ctx->n_labels - 1);
        snprintf(out, outlen, "%s", ctx->labels[i]);
        return 0;
    }
    /* the query side of the widget: the decoder's tokens when it shows cross-attention */
    const int *ids;
    int len = trace_view_rows(t, ctx->cross, &ids);
    if (i >= len)
        return absent(err, errlen, "position %d out of range 0..%d", i, len - 1);
    snprintf(out, outlen, "%s", vocab_word(&m->vocab, ids[i]));
    return 0;
}

/* {{equivariance}}: max|Attn(PX) − P·Attn(X)| of the current run, on the scratch traces. */
static int ph_equivariance(int prec, const PlaceholderCtx *ctx, char *out, size_t outlen,
                           char *err, size_t errlen)
{
    const Model *m = ctx->model;
    const Trace *t = ctx->trace;
    if (!ctx->eq_a || !ctx->eq_b)
        return errf(err, errlen, "equivariance needs scratch traces (player bug)");
    int n = t->n;
    int *src = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *ord = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!src || !ord) {
        free(src);
        free(ord);
        return errf(err, errlen, "out of memory");
    }
    /* the trace ran src[order[i]] at position i: undo it */
    for (int q = 0; q < n; q++) {
        ord[q] = t->order[q];
        src[t->order[q]] = t->src[q];
    }
    Controls ctl = t->ctl;
    ctl.order = ord;
    char e2[256];
    float v = model_equivariance(m, src, n, t->tgt, t->m, &ctl, ctx->eq_a, ctx->eq_b, e2,
                                 sizeof e2);
    if (v >= 0) /* the widget's layer: the gap of the rows the chips show */
        v = model_equivariance_layer(m, ctx->eq_a, ctx->eq_b,
                                     ctx->layer >= 0 && ctx->layer < m->cfg.n_layers ? ctx->layer : 0);
    free(src);
    free(ord);
    if (v < 0)
        return errf(err, errlen, "%s", e2);
    if (prec >= 0)
        fmt_real(ctx, v, prec, out, outlen);
    else
        snprintf(out, outlen, "%.3g", (double)v);
    return 0;
}

/* Every placeholder: its name, argument count, whether it takes a precision (a real, or
 * ties: the rounding it compares at) and whether it reads the trace. */
static const struct { const char *name; int args; int real; int trace; } TABLE[] = {
    {"weight", 2, 1, 1}, {"score", 2, 1, 1}, {"rowsum", 1, 1, 1}, {"argmax", 1, 0, 1},
    {"argtoken", 1, 0, 1}, {"max", 1, 1, 1}, {"ties", 1, 1, 1},
    {"token", 1, 0, 1}, {"n", 0, 0, 1}, {"shape", 1, 0, 1}, {"entries", 1, 0, 1},
    {"value", 3, 1, 1}, {"d_model", 0, 0, 0}, {"d_k", 0, 0, 0}, {"heads", 0, 0, 0},
    {"layers", 0, 0, 0}, {"d_ff", 0, 0, 0}, {"vocab", 0, 0, 0}, {"max_len", 0, 0, 0},
    {"params", 0, 0, 0}, {"equivariance", 0, 1, 1}, {"layer", 0, 0, 0}, {"head", 0, 0, 0},
    {"mask", 0, 0, 1}, {"pe", 0, 0, 1}, {"scale", 0, 0, 1}, {"lbrace", 0, 0, 0},
    {"pieces", 0, 0, 1}, {"model", 0, 0, 0}, {"curve", 1, 0, 0}, {"hist", 2, 1, 0},
    {"phase", 0, 0, 0}, {"opened", 0, 0, 0}, {"pairlayer", 2, 0, 1}, {"pairhead", 2, 0, 1},
    {"pairweight", 2, 1, 1}, {"moved", 0, 0, 1}, {"model_pe", 0, 0, 0}, {"knocked", 0, 0, 1},
    {"sentence", 0, 0, 1}, {"target", 0, 0, 1}, {"effect", 2, 1, 1}, {"effectsame", 0, 0, 1},
    {"rollout", 1, 1, 1}, {"circuit", 3, 1, 0}, {"patch", 3, 1, 1}, {"lens", 1, 1, 1},
    {"induct", 1, 1, 0},
};

/* {{pairlayer FROM TO}}, {{pairhead FROM TO}}, {{pairweight FROM TO}}: the head that puts the
 * most weight from token FROM (its last occurrence) on token TO (the last at or before it),
 * over every self-attention head of the model (head_stat_pair); absent when the sentence
 * lacks either. */
static int ph_pair(int ac, char **av, int prec, const PlaceholderCtx *ctx, char *out,
                   size_t outlen, char *err, size_t errlen)
{
    (void)ac;
    const Model *m = ctx->model;
    const Trace *t = ctx->trace;
    if (!m)
        return errf(err, errlen, "this widget has no model");
    int q = head_stat_find_token(m, t, av[1], t->n - 1);
    int k = q < 0 ? -1 : head_stat_find_token(m, t, av[2], q);
    if (q < 0 || k < 0)
        return absent(err, errlen, "\"%s\" is not a token of the sentence%s", q < 0 ? av[1] : av[2],
                      q < 0 ? "" : " before the other");
    HeadPair best[ATTEND_MAX_LAYERS * ATTEND_MAX_HEADS];
    if (m->cfg.n_layers * m->cfg.n_heads > ATTEND_MAX_LAYERS * ATTEND_MAX_HEADS ||
        head_stat_pair(m, t, q, k, best) < 1)
        return errf(err, errlen, "no self-attention heads to rank");
    if (!strcmp(av[0], "pairweight"))
        fmt_real(ctx, best[0].w, prec, out, outlen);
    else
        snprintf(out, outlen, "%d", !strcmp(av[0], "pairlayer") ? best[0].layer : best[0].head);
    return 0;
}

/* {{pieces}}: the sentence's tokens that continue the word before (a WordPiece "##" piece or
 * a byte token; 0 on a word-level model); {{model}}: the model's name. */
static int ph_tokenizer(const char *name, const PlaceholderCtx *ctx, char *out, size_t outlen)
{
    const Model *m = ctx->model;
    if (!strcmp(name, "model")) {
        snprintf(out, outlen, "%s", m->cfg.name[0] ? m->cfg.name : "unnamed");
        return 0;
    }
    int k = 0;
    for (int i = 0; i < ctx->trace->n; i++)
        k += vocab_joins_prev(&m->vocab, ctx->trace->src[i]);
    snprintf(out, outlen, "%d", k);
    return 0;
}

/* The TABLE row of name and the checks that need no run; -1 with a message. */
static int ph_lookup(int ac, char **av, int prec, char *err, size_t errlen)
{
    const char *name = av[0];
    int k = -1;
    for (size_t i = 0; i < sizeof TABLE / sizeof TABLE[0]; i++)
        if (!strcmp(TABLE[i].name, name))
            k = (int)i;
    if (k < 0)
        return errf(err, errlen, "unknown placeholder \"%s\"", name);
    if (ac - 1 != TABLE[k].args)
        return errf(err, errlen, "%s takes %d argument%s, got %d", name, TABLE[k].args,
                    TABLE[k].args == 1 ? "" : "s", ac - 1);
    if (prec >= 0 && !TABLE[k].real)
        return errf(err, errlen, "%s is not a real number; it takes no precision", name);
    return k;
}

/* {{sentence}}, {{target}} (the words run, in the sentence's own order), {{model_pe}} (the
 * model's own encoding), {{moved}} (positions run out of order), {{knocked}} (heads knocked
 * out): what a run is, besides its numbers. */
static int ph_run_state(const char *name, const PlaceholderCtx *ctx, char *out, size_t outlen,
                        char *err, size_t errlen)
{
    const Model *m = ctx->model;
    const ModelConfig *c = &m->cfg;
    const Trace *t = ctx->trace;
    if (!strcmp(name, "sentence") || !strcmp(name, "target")) {
        /* the words the engine runs, in the sentence's own order (chips may run another) */
        int tgt = name[0] == 't', n = tgt ? t->m : t->n;
        if (tgt && m->cfg.arch != ARCH_ENCDEC)
            return errf(err, errlen, "{{target}} needs an encoder-decoder model");
        size_t len = 0;
        out[0] = 0;
        for (int p = 0; p < n; p++) {
            int id = tgt ? t->tgt[p] : t->src[p];
            for (int q = 0; !tgt && q < n; q++)
                if (t->order[q] == p)
                    id = t->src[q];
            const char *wd = vocab_word(&m->vocab, id);
            int w_ = snprintf(out + len, outlen - len, "%s%s", p ? " " : "", wd ? wd : "?");
            if (w_ < 0 || (size_t)w_ >= outlen - len)
                return errf(err, errlen, "the sentence is too long to write here");
            len += (size_t)w_;
        }
        return 0;
    }
    if (!strcmp(name, "model_pe")) {
        snprintf(out, outlen, "%s", model_pe_name(c->pe));
        return 0;
    }
    if (!strcmp(name, "moved")) { /* positions run out of the sentence's order (chips) */
        int moved = 0;
        for (int p = 0; p < t->n; p++)
            moved += t->order[p] != p;
        snprintf(out, outlen, "%d", moved);
        return 0;
    }
    if (!strcmp(name, "knocked")) { /* heads knocked out (X) */
        int out_ = 0;
        for (int l = 0; l < ATTEND_MAX_LAYERS; l++)
            out_ += __builtin_popcountll(t->ctl.ablate[l]);
        snprintf(out, outlen, "%d", out_);
        return 0;
    }
    return errf(err, errlen, "unknown placeholder \"%s\"", name);
}

static int ph_eval(int ac, char **av, int prec, const PlaceholderCtx *ctx, char *out,
                   size_t outlen, char *err, size_t errlen)
{
    const char *name = av[0];
    const Model *m = ctx->model;
    if (!strcmp(name, "x"))
        return ph_x(ac, av, prec, ctx, out, outlen, err, errlen);
    int k = ph_lookup(ac, av, prec, err, errlen);
    if (k < 0)
        return -1;
    if (TABLE[k].trace && need_trace(ctx, err, errlen))
        return -1;
    /* a worked example's trace has no model: what reads the model's sizes, vocabulary or
     * weights needs one; what reads the trace does not */
    int needs_model = !TABLE[k].trace || !strcmp(name, "equivariance") || !strcmp(name, "pieces") ||
                      (!strcmp(name, "token") && !ctx->labels);
    if (!strcmp(name, "lbrace") || !strcmp(name, "layer") || !strcmp(name, "head") ||
        !strcmp(name, "opened"))
        needs_model = 0;
    if (!m && needs_model)
        return errf(err, errlen, ctx->trace ? "this widget has no model (its own sizes are "
                                              "{{x NAME}} values)"
                                            : "no model");
    const ModelConfig *c = m ? &m->cfg : NULL;
    const Trace *t = ctx->trace;
    int i = 0, j = 0;

    if (!strcmp(name, "weight") || !strcmp(name, "score") || !strcmp(name, "rowsum") ||
        !strcmp(name, "argmax") || !strcmp(name, "argtoken") || !strcmp(name, "max") ||
        !strcmp(name, "ties"))
        return ph_attention(ac, av, prec, ctx, out, outlen, err, errlen);
    if (!strcmp(name, "token"))
        return ph_token(av[1], ctx, out, outlen, err, errlen);
    if (!strncmp(name, "pair", 4))
        return ph_pair(ac, av, prec, ctx, out, outlen, err, errlen);
    if (!strcmp(name, "pieces") || !strcmp(name, "model"))
        return ph_tokenizer(name, ctx, out, outlen);
    if (!strcmp(name, "curve") || !strcmp(name, "hist") || !strcmp(name, "phase"))
        return placeholder_history(ac, av, prec, ctx, out, outlen, err, errlen);
    if (!strncmp(name, "effect", 6) || !strcmp(name, "rollout") || !strcmp(name, "circuit") ||
        !strcmp(name, "patch") || !strcmp(name, "lens") || !strcmp(name, "induct"))
        return placeholder_lens(ac, av, prec, ctx, out, outlen, err, errlen);
    if (!strcmp(name, "n")) {
        snprintf(out, outlen, "%d", t->n);
        return 0;
    }
    if (!strcmp(name, "shape") || !strcmp(name, "entries") || !strcmp(name, "value")) {
        const TraceEntry *e = trace_find_name(t, av[1]);
        if (!e)
            return errf(err, errlen, "no traced tensor named \"%s\"", av[1]);
        if (!strcmp(name, "shape"))
            snprintf(out, outlen, "%d%s%d", e->rows, ph_times(ctx), e->cols);
        else if (!strcmp(name, "entries"))
            snprintf(out, outlen, "%d", e->rows * e->cols);
        else {
            int rc = ph_rc(e, av[2], av[3], &i, &j, err, errlen);
            if (rc)
                return rc;
            fmt_real(ctx, e->data[(size_t)i * e->cols + j], prec, out, outlen);
        }
        return 0;
    }
    if (!strcmp(name, "equivariance"))
        return ph_equivariance(prec, ctx, out, outlen, err, errlen);
    if (!strcmp(name, "lbrace")) {
        snprintf(out, outlen, "{{");
        return 0;
    }
    if (!strcmp(name, "mask")) {
        Stack st;
        Sublayer sub;
        ph_where(ctx, &st, &sub);
        snprintf(out, outlen, "%s", names_sublayer_mask(t->model, st, sub, t->ctl.causal,
                                                        t->ctl.padding));
        return 0;
    }
    if (!strcmp(name, "pe")) {
        snprintf(out, outlen, "%s", model_pe_name(t->ctl.pe));
        return 0;
    }
    if (!strcmp(name, "scale")) {
        snprintf(out, outlen, "%s", t->ctl.scale ? "on" : "off");
        return 0;
    }
    if (!strcmp(name, "sentence") || !strcmp(name, "target") || !strcmp(name, "model_pe") ||
        !strcmp(name, "moved") || !strcmp(name, "knocked"))
        return ph_run_state(name, ctx, out, outlen, err, errlen);
    long v = 0;
    if (!strcmp(name, "d_model")) v = c->d_model;
    else if (!strcmp(name, "d_k")) v = c->d_head;
    else if (!strcmp(name, "heads")) v = c->n_heads;
    else if (!strcmp(name, "layers")) v = c->n_layers;
    else if (!strcmp(name, "d_ff")) v = c->d_ff;
    else if (!strcmp(name, "vocab")) v = c->vocab_size;
    else if (!strcmp(name, "max_len")) v = c->max_len;
    else if (!strcmp(name, "params")) v = (long)m->n_floats;
    else if (!strcmp(name, "layer")) v = ctx->layer;
    else if (!strcmp(name, "head")) v = ctx->head;
    else if (!strcmp(name, "opened")) v = ctx->opened;
    snprintf(out, outlen, "%ld", v);
    return 0;
}

/* Splits body (copied into buf) into av and its precision; the count, or -1 with a message. */
static int ph_split(const char *body, char *buf, size_t buflen, char **av, int *prec, char *err,
                    size_t errlen)
{
    if (strlen(body) >= buflen)
        return errf(err, errlen, "{{%.40s...}}: too long", body);
    snprintf(buf, buflen, "%s", body);
    int ac = 0;
    for (char *save = NULL, *p = strtok_r(buf, " \t\n", &save); p;
         p = strtok_r(NULL, " \t\n", &save)) {
        if (ac >= PH_MAX_ARGS + 1)
            return errf(err, errlen, "{{%s}}: too many arguments", body);
        av[ac++] = p;
    }
    if (ac == 0)
        return errf(err, errlen, "{{}}: empty placeholder");
    *prec = -1;
    const char *last = av[ac - 1];
    if (ac > 1 && last[0] == '.' && isdigit((unsigned char)last[1])) {
        if (last[2] || last[1] > '6')
            return errf(err, errlen, "{{%s}}: precision must be .0 to .6", body);
        *prec = last[1] - '0';
        ac--;
    }
    return ac;
}

int placeholder_value(const char *body, const PlaceholderCtx *ctx, char *out, size_t outlen,
                      char *err, size_t errlen)
{
    char buf[256];
    char *av[PH_MAX_ARGS + 2];
    int prec;
    if (outlen)
        out[0] = 0;
    int ac = ph_split(body, buf, sizeof buf, av, &prec, err, errlen);
    if (ac < 0)
        return -1;
    char e2[300];
    int rc = ph_eval(ac, av, prec, ctx, out, outlen, e2, sizeof e2);
    if (rc) {
        if (outlen)
            out[0] = 0;
        errf(err, errlen, "{{%s}}: %s", body, e2);
        return rc == PLACEHOLDER_ABSENT ? rc : -1;
    }
    return 0;
}

int placeholder_check(const char *body, char *err, size_t errlen)
{
    char buf[256], e2[300];
    char *av[PH_MAX_ARGS + 2];
    int prec;
    int ac = ph_split(body, buf, sizeof buf, av, &prec, err, errlen);
    if (ac < 0)
        return -1;
    if (!strcmp(av[0], "x")) /* its names depend on the widget: checked on the run */
        return 0;
    if (ph_lookup(ac, av, prec, e2, sizeof e2) < 0)
        return errf(err, errlen, "{{%s}}: %s", body, e2);
    return 0;
}

int placeholder_number(const char *body, const PlaceholderCtx *ctx, double *v, int *exact,
                       char *err, size_t errlen)
{
    /* The value as printed, with 6 decimals unless the author gave a precision: the number
     * a learner reads in the prose is the number the quiz expects. */
    char b6[300], out[256];
    PlaceholderCtx c = *ctx;
    c.ascii = 1;
    snprintf(b6, sizeof b6, "%s .6", body);
    const char *last = strrchr(body, ' ');
    int has_prec = last && last[1] == '.';
    if (has_prec || placeholder_value(b6, &c, out, sizeof out, NULL, 0))
        if (placeholder_value(body, &c, out, sizeof out, err, errlen))
            return -1;
    if (!strcmp(out, "-inf"))
        *v = -INFINITY;
    else if (!strcmp(out, "inf"))
        *v = INFINITY;
    else {
        char *end;
        *v = strtod(out, &end);
        if (end == out || *end || isnan(*v))
            return errf(err, errlen, "{{%s}} is \"%s\", not a number", body, out);
    }
    if (exact) /* printed as written: no decimals, no exponent, not infinite */
        *exact = !placeholder_value(body, &c, out, sizeof out, NULL, 0) && !strpbrk(out, ".ei");
    return 0;
}
