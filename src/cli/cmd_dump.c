/* dump.c - `attend dump`: run the model headless and print attention weights and the shape
 * passport as text, or every traced tensor as JSON (docs/dump-format.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "json.h"
#include "model.h"

static const char DUMP_USAGE[] =
    "usage: attend dump --sentence TEXT [--target TEXT] [--model FILE] "
    "[--mask none|causal|padding|both] [--pe none|sinusoidal|learned|rope] [--no-scale] "
    "[--order 1,0,2,...] [--layer L] [--head H] [--cross] [--heads] [--format text|json]";

static int usage(const char *msg)
{
    if (msg)
        fprintf(stderr, "attend dump: %s\n", msg);
    fprintf(stderr, "%s\n", DUMP_USAGE);
    return 2;
}

/* Parses "1,0,2" into order; returns count or -1. */
static int parse_order(const char *s, int *order, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 100000 || n >= max)
            return -1;
        order[n++] = (int)v;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return n;
}

static void json_num(FILE *f, float v)
{
    if (isnan(v))
        fputs("\"NaN\"", f); /* never expected; kept distinct from a mask's −∞ */
    else if (isinf(v))
        fputs(v < 0 ? "null" : "\"Infinity\"", f); /* null is −∞ (docs/dump-format.md) */
    else
        fprintf(f, "%.9g", (double)v);
}

static void json_matrix(FILE *f, const TraceEntry *e)
{
    fputc('[', f);
    for (int r = 0; r < e->rows; r++) {
        fputs(r ? ",[" : "[", f);
        for (int c = 0; c < e->cols; c++) {
            if (c)
                fputc(',', f);
            json_num(f, e->data[(size_t)r * e->cols + c]);
        }
        fputc(']', f);
    }
    fputc(']', f);
}

static void json_tokens(FILE *f, const Vocab *v, const int *ids, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        json_write_string(f, vocab_word(v, ids[i]));
    }
    fputc(']', f);
}

/* The heads of one attention sublayer: q, k, v, scores (before scaling and masking), weights,
 * out; with RoPE, q and k are the rotated ones that met in QKᵀ, and q_proj/k_proj the raw. */
static void json_heads(FILE *f, const Trace *t, Stack st, int l, Sublayer sub)
{
    const ModelConfig *c = &t->model->cfg;
    fputc('[', f);
    for (int h = 0; h < c->n_heads; h++) {
        const TraceEntry *q = trace_find(t, st, l, sub, h, T_Q);
        const TraceEntry *k = trace_find(t, st, l, sub, h, T_K);
        const TraceEntry *qr = trace_find(t, st, l, sub, h, T_Q_ROT);
        const TraceEntry *kr = trace_find(t, st, l, sub, h, T_K_ROT);
        struct { const char *key; const TraceEntry *e; } items[] = {
            {"q", qr ? qr : q}, {"k", kr ? kr : k},
            {"v", trace_find(t, st, l, sub, h, T_V)},
            {"scores", trace_find(t, st, l, sub, h, T_SCORES)},
            {"scaled", trace_find(t, st, l, sub, h, T_SCALED)},
            {"masked", trace_find(t, st, l, sub, h, T_MASKED)},
            {"weights", trace_find(t, st, l, sub, h, T_WEIGHTS)},
            {"out", trace_find(t, st, l, sub, h, T_HEAD_OUT)},
            {"q_proj", qr ? q : NULL}, {"k_proj", kr ? k : NULL},
        };
        fputs(h ? ",\n   {" : "\n   {", f);
        int first = 1;
        for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
            if (!items[i].e)
                continue;
            fprintf(f, "%s\"%s\":", first ? "" : ",", items[i].key);
            json_matrix(f, items[i].e);
            first = 0;
        }
        fputc('}', f);
    }
    fputc(']', f);
}

/* One stack's layers: heads, cross_heads, and every other tensor of the layer by name. */
static void json_layers(FILE *f, const Trace *t, Stack st)
{
    const ModelConfig *c = &t->model->cfg;
    fputc('[', f);
    for (int l = 0; l < c->n_layers; l++) {
        fprintf(f, "%s\"heads\":", l ? ",\n {" : "\n {");
        json_heads(f, t, st, l, SUB_SELF);
        if (st == STACK_DEC && c->arch == ARCH_ENCDEC) {
            fputs(",\n  \"cross_heads\":", f);
            json_heads(f, t, st, l, SUB_CROSS);
        }
        for (int i = 0; i < t->n_entries; i++) {
            const TraceEntry *e = &t->entries[i];
            if (e->stack != st || e->layer != l || e->head >= 0)
                continue;
            fprintf(f, ",\n  \"%s\":", e->name);
            json_matrix(f, e);
        }
        fputc('}', f);
    }
    fputc(']', f);
}

static void dump_json(FILE *f, const Model *m, const Trace *t, const int *orig, int n)
{
    const ModelConfig *c = &m->cfg;
    fputs("{\"tokens\":", f);
    json_tokens(f, &m->vocab, t->src, t->n);
    fputs(",\n\"input_tokens\":", f);
    json_tokens(f, &m->vocab, orig, n);
    fputs(",\n\"order\":[", f);
    for (int i = 0; i < t->n; i++)
        fprintf(f, "%s%d", i ? "," : "", t->order[i]);
    fputc(']', f);
    if (c->arch == ARCH_ENCDEC) {
        fputs(",\n\"target_tokens\":", f);
        json_tokens(f, &m->vocab, t->tgt, t->m);
        fputs(",\n\"decoder_input_tokens\":", f);
        json_tokens(f, &m->vocab, t->tgt_in, t->m);
    }
    fputs(",\n\"config\":{\"model\":", f);
    json_write_string(f, m->path);
    fprintf(f, ",\"arch\":\"%s\",\"vocab_size\":%d,\"d_model\":%d,"
               "\"n_heads\":%d,\"d_head\":%d,\"n_layers\":%d,\"d_ff\":%d,\"max_len\":%d,"
               "\"model_pe\":\"%s\",\"norm\":\"%s\",\"norm_placement\":\"%s\",\"ffn\":\"%s\","
               "\"scale_embed\":%s,\"final_norm\":%s,\"tie_embed\":%s,\"norm_eps\":%.9g,"
               "\"rope_base\":%.9g,\"pe\":\"%s\",\"causal\":%s,\"padding\":%s,\"scale\":%s}",
            model_arch_name(c->arch), c->vocab_size, c->d_model, c->n_heads, c->d_head,
            c->n_layers, c->d_ff, c->max_len, model_pe_name(c->pe), model_norm_name(c->norm),
            c->pre_norm ? "pre" : "post", model_ffn_name(c->ffn), c->scale_embed ? "true" : "false",
            c->final_norm ? "true" : "false", c->tie_embed ? "true" : "false", (double)c->norm_eps,
            (double)c->rope_base, model_pe_name(t->ctl.pe), t->ctl.causal ? "true" : "false",
            t->ctl.padding ? "true" : "false", t->ctl.scale ? "true" : "false");
    Stack main_st = c->arch == ARCH_DECODER ? STACK_DEC : STACK_ENC;
    fputs(",\n\"layers\":", f);
    json_layers(f, t, main_st);
    if (c->arch == ARCH_ENCDEC) {
        fputs(",\n\"decoder_layers\":", f);
        json_layers(f, t, STACK_DEC);
    }
    fputs(",\n\"tensors\":{", f);
    int first = 1;
    for (int i = 0; i < t->n_entries; i++) {
        const TraceEntry *e = &t->entries[i];
        if (e->layer >= 0)
            continue;
        fprintf(f, "%s\n \"%s\":", first ? "" : ",", e->name);
        json_matrix(f, e);
        first = 0;
    }
    fputs("},\n\"passport\":[", f);
    for (int i = 0; i < t->n_entries; i++)
        fprintf(f, "%s{\"name\":\"%s\",\"shape\":[%d,%d]}", i ? ",\n " : "\n ",
                t->entries[i].name, t->entries[i].rows, t->entries[i].cols);
    fputs("]}\n", f);
}

static void dump_text(FILE *f, const Model *m, const Trace *t, int layer, int head, int cross)
{
    const ModelConfig *c = &m->cfg;
    Stack st = c->arch == ARCH_ENCODER ? STACK_ENC : c->arch == ARCH_DECODER ? STACK_DEC
             : cross ? STACK_DEC : STACK_ENC;
    Sublayer sub = cross ? SUB_CROSS : SUB_SELF;
    const TraceEntry *w = trace_find(t, st, layer, sub, head, T_WEIGHTS);
    const TraceEntry *mk = trace_find(t, st, layer, sub, -1, T_MASK);
    fprintf(f, "model: %s (%s, d_model %d, %d heads of %d, %d layers, %s)\n",
            m->path[0] ? m->path : "(in memory)", model_arch_name(c->arch), c->d_model,
            c->n_heads, c->d_head, c->n_layers, c->name[0] ? c->name : "unnamed");
    fprintf(f, "controls: mask %s, pe %s, scaling %s\n",
            t->ctl.causal && t->ctl.padding ? "causal+padding" : t->ctl.causal ? "causal"
            : t->ctl.padding ? "padding" : "none",
            model_pe_name(t->ctl.pe), t->ctl.scale ? "1/sqrt(d_k)" : "off");
    const int *qids = (c->arch == ARCH_ENCDEC && st == STACK_DEC) ? t->tgt : t->src;
    /* Decoder rows are named by the word they produce; its self-attention keys by the word
     * each position reads (<bos> first). */
    const int *kids = (c->arch == ARCH_ENCDEC && st == STACK_DEC && !cross) ? t->tgt_in : t->src;
    fprintf(f, "%s attention weights, layer %d, head %d (rows: queries, columns: keys; "
               "-- marks a masked cell):\n",
            cross ? "cross" : "self", layer, head);
    int wcol = 7;
    for (int j = 0; j < w->cols; j++) {
        int len = (int)strlen(vocab_word(&m->vocab, kids[j]));
        if (len + 1 > wcol)
            wcol = len + 1 > 12 ? 12 : len + 1;
    }
    int wrow = 6;
    for (int i = 0; i < w->rows; i++) {
        int len = (int)strlen(vocab_word(&m->vocab, qids[i]));
        if (len > wrow)
            wrow = len > 14 ? 14 : len;
    }
    fprintf(f, "%*s", wrow, "");
    for (int j = 0; j < w->cols; j++)
        fprintf(f, " %*.*s", wcol - 1, wcol - 1, vocab_word(&m->vocab, kids[j]));
    fprintf(f, " | %6s\n", "sum");
    for (int i = 0; i < w->rows; i++) {
        fprintf(f, "%-*.*s", wrow, wrow, vocab_word(&m->vocab, qids[i]));
        double sum = 0;
        for (int j = 0; j < w->cols; j++) {
            float v = w->data[(size_t)i * w->cols + j];
            sum += v;
            if (mk && isinf(mk->data[(size_t)i * mk->cols + j]))
                fprintf(f, " %*s", wcol - 1, "--");
            else
                fprintf(f, " %*.3f", wcol - 1, (double)v);
        }
        fprintf(f, " | %6.3f\n", sum);
    }
    fprintf(f, "\nshape passport (%d tensors, in the order computed):\n", t->n_entries);
    for (int i = 0; i < t->n_entries; i++) {
        const TraceEntry *e = &t->entries[i];
        char shape[32];
        snprintf(shape, sizeof shape, "[%d×%d]", e->rows, e->cols);
        fprintf(f, "  %-26s %-12s %s\n", e->name, shape, trace_kind_symbol(e->kind));
    }
}

/* One line per head of every self-attention layer of the main stack: what it mostly attends
 * to, from the mean weight each query puts on the previous token, itself and the first token
 * (queries that have a previous token only) and, when the run has no causal mask (an encoder),
 * on the next token (queries that have one). Below 0.4 on all of them: "content pattern". */
int dump_heads_summary(FILE *f, const Model *m, const Trace *t)
{
    const ModelConfig *c = &m->cfg;
    Stack st = c->arch == ARCH_DECODER ? STACK_DEC : STACK_ENC;
    int bidir = !(t->ctl.causal && st == STACK_DEC);
    if (bidir)
        fprintf(f, "%-8s %-6s %8s %8s %8s %8s  %s\n", "layer", "head", "prev", "next", "self",
                "first", "mostly attends to");
    else
        fprintf(f, "%-8s %-6s %8s %8s %8s  %s\n", "layer", "head", "prev", "self", "first",
                "mostly attends to");
    for (int l = 0; l < c->n_layers; l++)
        for (int h = 0; h < c->n_heads; h++) {
            const TraceEntry *w = trace_find(t, st, l, SUB_SELF, h, T_WEIGHTS);
            if (!w)
                return -1;
            double prev = 0, self = 0, first = 0, next = 0;
            int nq = 0, nn = 0;
            for (int i = 0; i < w->rows; i++) {
                const float *r = w->data + (size_t)i * w->cols;
                if (i + 1 < w->cols) {
                    next += r[i + 1];
                    nn++;
                }
                if (i == 0)
                    continue;
                prev += r[i - 1];
                self += r[i];
                first += r[0];
                nq++;
            }
            if (nq) {
                prev /= nq;
                self /= nq;
                first /= nq;
            }
            if (nn)
                next /= nn;
            const char *what = "content pattern (spread by meaning, not position)";
            double best = 0.4;
            if (prev >= best) { what = "previous token"; best = prev; }
            if (bidir && next >= best) { what = "next token"; best = next; }
            if (self >= best) { what = "itself"; best = self; }
            if (first >= best) { what = "first token"; best = first; }
            if (bidir)
                fprintf(f, "%-8d %-6d %8.3f %8.3f %8.3f %8.3f  %s\n", l, h, prev, next, self,
                        first, what);
            else
                fprintf(f, "%-8d %-6d %8.3f %8.3f %8.3f  %s\n", l, h, prev, self, first, what);
        }
    return 0;
}

int cmd_dump(int argc, char **argv)
{
    const char *sentence = NULL, *target = NULL, *model_path = NULL, *mask = NULL, *pe = NULL;
    const char *order_s = NULL, *format = "text";
    int layer = 0, head = 0, no_scale = 0, cross = 0, heads_summary = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "--sentence") == 0) slot = &sentence;
        else if (strcmp(a, "--target") == 0) slot = &target;
        else if (strcmp(a, "--model") == 0) slot = &model_path;
        else if (strcmp(a, "--mask") == 0) slot = &mask;
        else if (strcmp(a, "--pe") == 0) slot = &pe;
        else if (strcmp(a, "--order") == 0) slot = &order_s;
        else if (strcmp(a, "--format") == 0) slot = &format;
        else if (strcmp(a, "--no-scale") == 0) { no_scale = 1; continue; }
        else if (strcmp(a, "--cross") == 0) { cross = 1; continue; }
        else if (strcmp(a, "--heads") == 0) { heads_summary = 1; continue; }
        else if (strcmp(a, "--layer") == 0 || strcmp(a, "--head") == 0) {
            if (i + 1 >= argc) return usage("missing value after an option");
            char *end;
            long v = strtol(argv[i + 1], &end, 10);
            if (*end || end == argv[i + 1] || v < 0 || v > 1000) {
                fprintf(stderr, "attend dump: %s must be a number, got \"%s\"\n", a, argv[i + 1]);
                return 1;
            }
            *(strcmp(a, "--layer") == 0 ? &layer : &head) = (int)v;
            i++;
            continue;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("%s\n", DUMP_USAGE);
            return 0;
        } else {
            char msg[200];
            snprintf(msg, sizeof msg, "unknown option \"%s\"", a);
            return usage(msg);
        }
        if (i + 1 >= argc) {
            char msg[200];
            snprintf(msg, sizeof msg, "%s needs a value", a);
            return usage(msg);
        }
        *slot = argv[++i];
    }
    if (!sentence)
        return usage("--sentence is required");
    if (strcmp(format, "text") && strcmp(format, "json")) {
        fprintf(stderr, "attend dump: --format must be text or json, got \"%s\"\n", format);
        return 1;
    }
    char path[1024], err[1024];
    if (!model_path) {
        data_path(DATA_DEFAULT_MODEL, path, sizeof path);
        model_path = path;
    } else if (!strchr(model_path, '/') && access(model_path, R_OK) != 0) {
        /* A bare name such as "translate.json" means the shipped model, as in lessons. */
        char rel[600];
        snprintf(rel, sizeof rel, "data/%s", model_path);
        data_path(rel, path, sizeof path);
        if (access(path, R_OK) == 0)
            model_path = path;
    }
    Model m;
    if (model_load(&m, model_path, err, sizeof err)) {
        fprintf(stderr, "attend dump: %s\n", err);
        return 1;
    }
    const ModelConfig *c = &m.cfg;
    int rc = 1;
    Trace *t = NULL;
    int *ids = NULL, *tids = NULL, *order = NULL;
    Controls ctl;
    model_default_controls(&m, &ctl);
    if (mask) {
        if (!strcmp(mask, "none")) ctl.causal = 0, ctl.padding = 0;
        else if (!strcmp(mask, "causal")) ctl.causal = 1, ctl.padding = 0;
        else if (!strcmp(mask, "padding")) ctl.causal = 0, ctl.padding = 1;
        else if (!strcmp(mask, "both")) ctl.causal = 1, ctl.padding = 1;
        else {
            fprintf(stderr, "attend dump: --mask must be none, causal, padding or both, got \"%s\"\n", mask);
            goto out;
        }
    }
    if (pe) {
        int p = model_pe_parse(pe);
        if (p < 0) {
            fprintf(stderr, "attend dump: --pe must be none, sinusoidal, learned or rope, got \"%s\"\n", pe);
            goto out;
        }
        ctl.pe = (PeKind)p;
    }
    ctl.scale = !no_scale;
    int cap = c->max_len;
    ids = calloc((size_t)cap, sizeof *ids);
    tids = calloc((size_t)cap, sizeof *tids);
    order = calloc((size_t)cap, sizeof *order);
    if (!ids || !tids || !order) {
        fprintf(stderr, "attend dump: out of memory\n");
        goto out;
    }
    TokenizeInfo info;
    int n = vocab_tokenize(&m.vocab, sentence, ids, cap, &info);
    if (info.truncated) {
        fprintf(stderr, "attend dump: the sentence has %d tokens; this model reads at most %d\n",
                info.n_tokens, cap);
        goto out;
    }
    if (n == 0) {
        fprintf(stderr, "attend dump: the sentence has no tokens\n");
        goto out;
    }
    for (int i = 0; i < info.n_unknown && i < VOCAB_MAX_UNKNOWN; i++)
        fprintf(stderr, "attend dump: note: \"%s\" is not in the vocabulary; it runs as <unk>\n",
                info.unknown[i]);
    int mt = 0;
    if (c->arch == ARCH_ENCDEC) {
        if (!target) {
            fprintf(stderr, "attend dump: this is an encoder-decoder model; give --target TEXT too\n");
            goto out;
        }
        TokenizeInfo ti;
        mt = vocab_tokenize(&m.vocab, target, tids, cap, &ti);
        if (ti.truncated || mt == 0) {
            fprintf(stderr, "attend dump: the target has %d tokens; it needs 1 to %d\n",
                    ti.n_tokens, cap);
            goto out;
        }
        for (int i = 0; i < ti.n_unknown && i < VOCAB_MAX_UNKNOWN; i++)
            fprintf(stderr, "attend dump: note: \"%s\" is not in the vocabulary; it runs as <unk>\n",
                    ti.unknown[i]);
    } else if (cross) {
        fprintf(stderr, "attend dump: --cross needs an encoder-decoder model\n");
        goto out;
    }
    if (order_s) {
        int k = parse_order(order_s, order, cap);
        if (k != n) {
            fprintf(stderr, "attend dump: --order must list each of the %d token positions 0..%d once, "
                            "separated by commas; got \"%s\"\n", n, n - 1, order_s);
            goto out;
        }
        ctl.order = order;
    }
    if (layer >= c->n_layers) {
        fprintf(stderr, "attend dump: --layer %d: this model has layers 0..%d\n", layer, c->n_layers - 1);
        goto out;
    }
    if (head >= c->n_heads) {
        fprintf(stderr, "attend dump: --head %d: this model has heads 0..%d\n", head, c->n_heads - 1);
        goto out;
    }
    size_t need = trace_bytes(&m, n, mt > 0 ? mt : 1);
    if (need > TRACE_MAX_BYTES) {
        fprintf(stderr, "attend dump: a run of %d tokens would need %zu MiB for its trace (every "
                "tensor of the run), more than the limit of %zu MiB: give a shorter sentence\n",
                n > mt ? n : mt, need >> 20, TRACE_MAX_BYTES >> 20);
        goto out;
    }
    t = trace_new(&m, n, mt > 0 ? mt : 1);
    if (!t) {
        fprintf(stderr, "attend dump: out of memory\n");
        goto out;
    }
    if (model_forward(&m, ids, n, tids, mt, &ctl, t, err, sizeof err)) {
        fprintf(stderr, "attend dump: %s\n", err);
        goto out;
    }
    if (heads_summary) {
        rc = dump_heads_summary(stdout, &m, t) ? 1 : 0;
        goto out;
    }
    if (strcmp(format, "json") == 0)
        dump_json(stdout, &m, t, ids, n);
    else
        dump_text(stdout, &m, t, layer, head, cross);
    rc = fflush(stdout) ? 1 : 0;
out:
    trace_free(t);
    free(ids);
    free(tids);
    free(order);
    model_free(&m);
    return rc;
}
