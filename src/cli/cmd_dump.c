/* dump.c - `attend dump`: run the model headless and print attention weights and the shape
 * passport as text, or every traced tensor as JSON (docs/dump-format.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd.h"
#include "safetext.h"
#include "export.h"
#include "head_stat.h"
#include "heads.h"
#include "json.h"
#include "lens.h"
#include "model.h"
#include "names.h"

static const char DUMP_USAGE[] =
    "usage: attend dump --sentence TEXT [--target TEXT] [--model FILE|DIR] "
    "[--mask none|causal|padding|both] [--pe none|sinusoidal|learned|rope] [--no-scale] "
    "[--order 1,0,2,...] [--layer L] [--head H] [--cross] [--heads] [--pair FROM,TO] [--next K] "
    "[--ablate L.H[,L.H]]... [--lens [--top K]] [--attribute TOKEN] [--position I] "
    "[--patch CORRUPTED --metric TOKEN] [--rollout] "
    "[--format text|json]";

static int usage(const char *msg)
{
    return opts_usage_error("attend dump", DUMP_USAGE, msg);
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

static void dump_text(FILE *f, const Model *m, const Trace *t, int layer, int head, int cross)
{
    const ModelConfig *c = &m->cfg;
    Stack st = model_view_stack(m, cross);
    Sublayer sub = model_view_sub(m, cross);
    const TraceEntry *w = trace_find(t, st, layer, sub, head, T_WEIGHTS);
    const TraceEntry *mk = trace_find(t, st, layer, sub, -1, T_MASK);
    fprintf(f, "model: %s (%s, d_model %d, %d heads of %d, %d layers, %s)\n",
            m->path[0] ? m->path : "(in memory)", model_arch_name(c->arch), c->d_model,
            c->n_heads, c->d_head, c->n_layers, c->name[0] ? c->name : "unnamed");
    fprintf(f, "controls: mask %s, pe %s, scaling %s\n",
            names_mask(t->ctl.causal, t->ctl.padding),
            model_pe_name(t->ctl.pe), t->ctl.scale ? "1/sqrt(d_k)" : "off");
    /* cross-attention rows are named by the word each decoder position produces */
    const int *qids, *kids = t->src;
    trace_view_rows(t, cross, &qids);
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
        const TraceEntry *e = trace_meta(t, i); /* names and shapes: no map computed */
        char shape[32];
        snprintf(shape, sizeof shape, "[%d×%d]", e->rows, e->cols);
        fprintf(f, "  %-26s %-12s %s\n", e->name, shape, trace_kind_symbol(e->kind));
    }
}

/* One line per head of every self-attention layer of the main stack (head_stat_read): "next"
 * only when the run has no causal mask (an encoder). Below 0.4 on all: "content pattern".
 * json: the same numbers as one JSON object (docs/dump-format.md). */
/* One line per self-attention head: previous-token / self / first-token mean weights and a
 * verdict; json: the same as one JSON object (docs/dump-format.md). 0, or -1 if the trace
 * lacks the weights. */
static int dump_heads_summary(FILE *f, const Model *m, const Trace *t, int json)
{
    const ModelConfig *c = &m->cfg;
    Stack st = model_view_stack(m, 0);
    int bidir = !(t->ctl.causal && st == STACK_DEC);
    if (json) {
        fprintf(f, "{\"model\": ");
        json_write_string(f, m->path[0] ? m->path : "(in memory)");
        fprintf(f, ",\n \"mask\": ");
        json_write_string(f, names_mask(t->ctl.causal, t->ctl.padding));
        fprintf(f, ", \"pe\": ");
        json_write_string(f, model_pe_name(t->ctl.pe));
        fprintf(f, ", \"scale\": %s, \"n_layers\": %d, \"n_heads\": %d,\n \"heads\": [",
                t->ctl.scale ? "true" : "false", c->n_layers, c->n_heads);
    } else if (bidir)
        fprintf(f, "%-8s %-6s %8s %8s %8s %8s  %s\n", "layer", "head", "prev", "next", "self",
                "first", "mostly attends to");
    else
        fprintf(f, "%-8s %-6s %8s %8s %8s  %s\n", "layer", "head", "prev", "self", "first",
                "mostly attends to");
    for (int l = 0; l < c->n_layers; l++)
        for (int h = 0; h < c->n_heads; h++) {
            HeadStat s;
            if (head_stat_read(t, st, l, h, bidir, &s))
                return -1;
            if (json) {
                fprintf(f, "%s\n  {\"layer\": %d, \"head\": %d, \"prev\": %.9g, ",
                        l || h ? "," : "", l, h, s.prev);
                if (bidir)
                    fprintf(f, "\"next\": %.9g, ", s.next);
                fprintf(f, "\"self\": %.9g, \"first\": %.9g, \"mostly\": ", s.self, s.first);
                json_write_string(f, s.what);
                fputc('}', f);
            } else if (bidir)
                fprintf(f, "%-8d %-6d %8.3f %8.3f %8.3f %8.3f  %s\n", l, h, s.prev, s.next,
                        s.self, s.first, s.what);
            else
                fprintf(f, "%-8d %-6d %8.3f %8.3f %8.3f  %s\n", l, h, s.prev, s.self, s.first,
                        s.what);
        }
    if (json)
        fprintf(f, "\n ]}\n");
    return 0;
}

int dump_opts_parse(DumpOpts *o, int argc, char **argv, const char *prog,
                    const char *usage_text, const char *formats, const Opt *extra, int n_extra)
{
    memset(o, 0, sizeof *o);
    o->format = "text";
    o->prog = prog;
    long layer = 0, head = 0;
    const Opt base[] = {
        OPT_S("--sentence", &o->sentence), OPT_S("--target", &o->target),
        OPT_S("--model", &o->model_path), OPT_S("--mask", &o->mask), OPT_S("--pe", &o->pe),
        OPT_S("--order", &o->order_s), OPT_W("--format", &o->format, formats),
        OPT_F("--no-scale", &o->no_scale), OPT_F("--cross", &o->cross),
        OPT_F("--heads", &o->heads_summary), OPT_M("--ablate", o->ablate, &o->n_ablate, 16),
        OPT_I("--layer", &layer, 0, 1000), OPT_I("--head", &head, 0, 1000),
    };
    enum { N_BASE = sizeof base / sizeof base[0], N_MAX = N_BASE + 16 };
    Opt opts[N_MAX];
    int n = 0;
    for (int i = 0; i < N_BASE; i++)
        opts[n++] = base[i];
    for (int i = 0; i < n_extra && n < N_MAX; i++)
        opts[n++] = extra[i];
    int rc = opts_parse(opts, n, argc, argv, prog, usage_text);
    o->layer = (int)layer;
    o->head = (int)head;
    return rc;
}

void dump_run_free(DumpRun *r)
{
    trace_free(r->t);
    free(r->ids);
    free(r->tids);
    free(r->order);
    model_free(&r->m);
    memset(r, 0, sizeof *r);
}

/* dump --pair FROM,TO: the weight query FROM puts on key TO in every head of every layer of
 * the main stack, highest first (the river-bank exercise: which head connects them). */
static int dump_pair(FILE *f, const Model *m, const Trace *t, const char *pair, int json)
{
    char from[128], to[128];
    const char *comma = strchr(pair, ',');
    if (!comma || comma == pair || !comma[1] || (size_t)(comma - pair) >= sizeof from ||
        strlen(comma + 1) >= sizeof to) {
        fprintf(stderr, "attend dump: --pair needs FROM,TO (two tokens of the sentence), got "
                "\"%s\"\n", pair);
        return 1;
    }
    memcpy(from, pair, (size_t)(comma - pair));
    from[comma - pair] = 0;
    snprintf(to, sizeof to, "%s", comma + 1);
    int q = head_stat_find_token(m, t, from, t->n - 1);
    int k = q < 0 ? -1 : head_stat_find_token(m, t, to, q);
    if (q < 0 || k < 0) {
        fprintf(stderr, "attend dump: --pair: %s \"%s\" is not a token of the sentence%s\n",
                q < 0 ? "FROM" : "TO", q < 0 ? from : to,
                q < 0 ? "" : " at or before FROM (a causal model reads only the past)");
        return 1;
    }
    HeadPair *rows = calloc((size_t)m->cfg.n_layers * m->cfg.n_heads, sizeof *rows);
    if (!rows)
        return 1;
    int n = head_stat_pair(m, t, q, k, rows);
    if (json) {
        fprintf(f, "{\"from\": %d, \"to\": %d, \"heads\": [", q, k);
        for (int i = 0; i < n; i++)
            fprintf(f, "%s{\"layer\": %d, \"head\": %d, \"weight\": %.9g}", i ? ", " : "",
                    rows[i].layer, rows[i].head, (double)rows[i].w);
        fprintf(f, "]}\n");
    } else {
        fprintf(f, "weight from \"%s\" (token %d) to \"%s\" (token %d), every head, highest "
                "first:\n", vocab_word(&m->vocab, t->src[q]), q, vocab_word(&m->vocab, t->src[k]), k);
        for (int i = 0; i < n && i < 10; i++)
            fprintf(f, "  layer %-3d head %-3d %.3f\n", rows[i].layer, rows[i].head, (double)rows[i].w);
        if (n > 10)
            fprintf(f, "  (%d more heads below %.3f; --format json lists them all)\n", n - 10,
                    (double)rows[9].w);
    }
    free(rows);
    return 0;
}

/* dump --next K: the K most likely next tokens after the last one (the softmax of the last
 * row of the logits), most likely first. */
static int dump_next(FILE *f, const Model *m, const Trace *t, int k, int json)
{
    const TraceEntry *lg = trace_find(t, model_output_stack(m), -1,
                                      SUB_NONE, -1, T_LOGITS);
    if (!lg || m->cfg.arch == ARCH_ENCDEC) {
        fprintf(stderr, "attend dump: --next needs a decoder-only or encoder model\n");
        return 1;
    }
    const float *r = lg->data + (size_t)(lg->rows - 1) * lg->cols;
    LensTop *top = calloc((size_t)k, sizeof *top);
    if (!top)
        return 1;
    int n = k < lg->cols ? k : lg->cols;
    lens_top(r, lg->cols, n, top); /* the lens's softmax: its last row is this */
    if (json)
        fprintf(f, "{\"after\": %d, \"next\": [", lg->rows - 1);
    else
        fprintf(f, "most likely next tokens after \"%s\":\n",
                vocab_word(&m->vocab, t->src[lg->rows - 1]));
    for (int i = 0; i < n; i++) {
        double p = top[i].p;
        if (json) {
            fprintf(f, "%s{\"id\": %d, \"token\": ", i ? ", " : "", top[i].id);
            json_write_string(f, vocab_word(&m->vocab, top[i].id));
            fprintf(f, ", \"p\": %.9g}", p);
        } else {
            fprintf(f, "  %-20s %6.3f  (id %d)\n", vocab_word(&m->vocab, top[i].id), p, top[i].id);
        }
    }
    if (json)
        fprintf(f, "]}\n");
    free(top);
    return 0;
}

/* What knocking the heads out changed on this sentence: the run r (ablated) against the same
 * run with every head in place. 0, or 1 with the message printed. */
static int dump_ablation(FILE *f, const DumpRun *r)
{
    char err[512], names[1024];
    Controls intact = r->ctl;
    memset(intact.ablate, 0, sizeof intact.ablate);
    Trace *a = trace_new(&r->m, r->n, r->mt > 0 ? r->mt : 1);
    if (!a || model_forward(&r->m, r->ids, r->n, r->tids, r->mt, &intact, a, err, sizeof err)) {
        fprintf(stderr, "attend dump: %s\n", a ? err : "out of memory");
        trace_free(a);
        return 1;
    }
    heads_ablate_names(&r->m, r->ctl.ablate, names, sizeof names);
    fprintf(f, "knocked out: %s (output zeroed)\n", names);
    double before = heads_sentence_loss(a), after = heads_sentence_loss(r->t);
    if (isfinite(before))
        fprintf(f, "loss on the sentence (each token predicting the next): %.3f -> %.3f nats\n",
                before, after);
    const Vocab *v = &r->m.vocab;
    int rows = r->m.cfg.arch == ARCH_ENCDEC ? r->mt : r->n, changed = 0;
    fprintf(f, "next-token predictions (intact -> knocked out):\n");
    for (int i = 0; i < rows; i++) {
        double pa, pb;
        int ta = heads_top_next(a, i, &pa), tb = heads_top_next(r->t, i, &pb);
        const int *row_ids = r->m.cfg.arch == ARCH_ENCDEC ? r->t->tgt_in : r->t->src;
        changed += ta != tb;
        fprintf(f, "  %2d %-12s %-12s %.2f  ->  %-12s %.2f%s\n", i, vocab_word(v, row_ids[i]),
                vocab_word(v, ta), pa, vocab_word(v, tb), pb, ta != tb ? "  changed" : "");
    }
    fprintf(f, "%d of %d predictions changed\n", changed, rows);
    int first = r->m.cfg.n_layers, l, h, row;
    for (int k = 0; k < r->m.cfg.n_layers && k < ATTEND_MAX_LAYERS; k++)
        if (r->ctl.ablate[k] && k < first)
            first = k;
    double d = heads_pattern_change(a, r->t, first + 1, &l, &h, &row);
    if (first + 1 >= r->m.cfg.n_layers)
        fprintf(f, "later layers' patterns: none (the last layer's head is knocked out)\n\n");
    else if (l < 0)
        fprintf(f, "later layers' patterns: unchanged\n\n");
    else
        fprintf(f, "later layers' patterns: largest change %.3f, L%d.h%d row %d (%s)\n\n", d, l,
                h, row, vocab_word(v, r->t->src[row]));
    trace_free(a);
    return 0;
}

int cmd_dump(int argc, char **argv)
{
    DumpOpts o;
    const char *pair = NULL;
    long next = 0, top = 0, position = -1;
    DumpLensOpts lo = {0};
    const Opt more[] = {OPT_S("--pair", &pair), OPT_I("--next", &next, 1, 100),
                        OPT_F("--lens", &lo.lens), OPT_I("--top", &top, 1, 100),
                        OPT_S("--attribute", &lo.attribute),
                        OPT_I("--position", &position, 0, 100000), OPT_S("--patch", &lo.patch),
                        OPT_S("--metric", &lo.metric), OPT_F("--rollout", &lo.rollout)};
    int rc = dump_opts_parse(&o, argc, argv, "attend dump", DUMP_USAGE, "text json", more,
                             (int)(sizeof more / sizeof more[0]));
    if (rc >= 0)
        return rc;
    const char *format = o.format;
    if (!o.sentence)
        return usage("--sentence is required");
    int lensing = lo.lens || lo.attribute || lo.patch || lo.rollout;
    if (top && !lo.lens)
        return usage("--top goes with --lens");
    if (position >= 0 && !lo.attribute && !lo.patch)
        return usage("--position goes with --attribute or --patch");
    if (!lo.patch != !lo.metric)
        return usage(lo.patch ? "--patch needs --metric TOKEN (the token whose logit is compared)"
                              : "--metric goes with --patch");
    if (lensing && (next || pair || o.heads_summary))
        return usage("--lens, --attribute, --patch and --rollout do not go with --next, --pair "
                     "or --heads");
    lo.top = top ? (int)top : 5;
    lo.position = (int)position;
    if (strcmp(format, "json")) /* text quotes the sentence: no raw control characters */
        safetext_wrap(&stdout, 0);
    DumpRun r;
    o.all_maps = !lensing && !next && !pair && !o.heads_summary && !strcmp(format, "json");
    if (dump_run(&r, &o))
        return 1;
    if (lensing)
        rc = dump_lens_run(stdout, &r, &lo, !strcmp(format, "json")) || fflush(stdout) ? 1 : 0;
    else if (next)
        rc = dump_next(stdout, &r.m, r.t, (int)next, !strcmp(format, "json")) || fflush(stdout)
                 ? 1 : 0;
    else if (pair)
        rc = dump_pair(stdout, &r.m, r.t, pair, !strcmp(format, "json")) || fflush(stdout) ? 1 : 0;
    else if (o.heads_summary)
        rc = dump_heads_summary(stdout, &r.m, r.t, !strcmp(format, "json")) || fflush(stdout)
                 ? 1 : 0;
    else {
        rc = 0;
        if (strcmp(format, "json") == 0) {
            export_json(stdout, &r.m, r.t, r.ids, r.n);
        } else {
            if (o.n_ablate)
                rc = dump_ablation(stdout, &r);
            if (!rc)
                dump_text(stdout, &r.m, r.t, o.layer, o.head, o.cross);
        }
        rc = fflush(stdout) || rc ? 1 : 0;
    }
    dump_run_free(&r);
    return rc;
}

/* Sets ctl's ablate bits from o's --ablate values. 0, or 1 with the message printed. */
static int dump_ablate(const DumpOpts *o, const Model *m, Controls *ctl)
{
    char err[512];
    for (int i = 0; i < o->n_ablate; i++)
        if (heads_ablate_parse(o->ablate[i], m, ctl->ablate, err, sizeof err)) {
            fprintf(stderr, "%s: --ablate %s\n", o->prog, err);
            return 1;
        }
    return 0;
}

int dump_run(DumpRun *r, const DumpOpts *o)
{
    const char *sentence = o->sentence, *target = o->target, *model_path = o->model_path;
    const char *mask = o->mask, *pe = o->pe, *order_s = o->order_s;
    int layer = o->layer, head = o->head, no_scale = o->no_scale, cross = o->cross;
    memset(r, 0, sizeof *r);
    char path[1024], err[1024];
    model_path = data_model_path(model_path, path, sizeof path);
    Model *m = &r->m;
    if (model_load_progress(m, model_path, cmd_load_progress, (void *)model_path, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", o->prog, err);
        return 1;
    }
    const ModelConfig *c = &m->cfg;
    int rc = 1;
    Trace *t = NULL;
    int *ids = NULL, *tids = NULL, *order = NULL;
    Controls ctl;
    model_default_controls(m, &ctl);
    if (mask) {
        if (names_mask_parse(mask, &ctl.causal, &ctl.padding)) {
            fprintf(stderr, "%s: --mask must be none, causal, padding or both, got \"%s\"\n", o->prog, mask);
            goto out;
        }
    }
    if (pe) {
        int p = model_pe_parse(pe);
        if (p < 0) {
            fprintf(stderr, "%s: --pe must be none, sinusoidal, learned or rope, got \"%s\"\n", o->prog, pe);
            goto out;
        }
        ctl.pe = (PeKind)p;
    }
    ctl.scale = !no_scale;
    if (dump_ablate(o, m, &ctl))
        goto out;
    int cap = c->max_len;
    ids = calloc((size_t)cap, sizeof *ids);
    tids = calloc((size_t)cap, sizeof *tids);
    order = calloc((size_t)cap, sizeof *order);
    if (!ids || !tids || !order) {
        fprintf(stderr, "%s: out of memory\n", o->prog);
        goto out;
    }
    TokenizeInfo info;
    char cnt[32], why[300];
    int n = vocab_tokenize(&m->vocab, sentence, ids, cap, &info);
    if (vocab_tokenize_problem(&info, n, cap, "sentence", why, sizeof why)) {
        fprintf(stderr, "%s: %s\n", o->prog, why);
        goto out;
    }
    for (int i = 0; i < info.n_unknown && i < VOCAB_MAX_UNKNOWN; i++)
        fprintf(stderr, "%s: note: \"%s\" is not in the vocabulary; it runs as <unk>\n", o->prog,
                info.unknown[i]);
    int mt = 0;
    if (c->arch == ARCH_ENCDEC) {
        if (!target) {
            fprintf(stderr, "%s: this is an encoder-decoder model; give --target TEXT too\n", o->prog);
            goto out;
        }
        TokenizeInfo ti;
        mt = vocab_tokenize(&m->vocab, target, tids, cap, &ti);
        if (ti.error[0]) {
            fprintf(stderr, "%s: the target: %s\n", o->prog, ti.error);
            goto out;
        }
        if (ti.truncated || mt == 0) {
            fprintf(stderr, "%s: the target has %s tokens; it needs 1 to %d\n", o->prog,
                    vocab_count_text(&ti, cnt, sizeof cnt), cap);
            goto out;
        }
        for (int i = 0; i < ti.n_unknown && i < VOCAB_MAX_UNKNOWN; i++)
            fprintf(stderr, "%s: note: \"%s\" is not in the vocabulary; it runs as <unk>\n", o->prog,
                    ti.unknown[i]);
    } else if (cross) {
        fprintf(stderr, "%s: --cross needs an encoder-decoder model\n", o->prog);
        goto out;
    }
    if (order_s) {
        int k = parse_order(order_s, order, cap);
        if (k != n) {
            fprintf(stderr, "%s: --order must list each of the %d token positions 0..%d once, "
                            "separated by commas; got \"%s\"\n", o->prog, n, n - 1, order_s);
            goto out;
        }
        ctl.order = order;
    }
    if (layer >= c->n_layers) {
        fprintf(stderr, "%s: --layer %d: this model has layers 0..%d\n", o->prog, layer, c->n_layers - 1);
        goto out;
    }
    if (head >= c->n_heads) {
        fprintf(stderr, "%s: --head %d: this model has heads 0..%d\n", o->prog, head, c->n_heads - 1);
        goto out;
    }
    size_t need = trace_bytes(m, n, mt > 0 ? mt : 1);
    if (need > TRACE_MAX_BYTES) {
        fprintf(stderr, "%s: a run of %d tokens would need %zu MiB for its trace (every "
                "tensor of the run), more than the limit of %zu MiB: give a shorter sentence\n", o->prog,
                n > mt ? n : mt, need >> 20, TRACE_MAX_BYTES >> 20);
        goto out;
    }
    t = trace_new(m, n, mt > 0 ? mt : 1);
    if (!t) {
        fprintf(stderr, "%s: out of memory\n", o->prog);
        goto out;
    }
    trace_want_maps(t, o->all_maps); /* within the map cache's budget, as when read */
    if (model_forward(m, ids, n, tids, mt, &ctl, t, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", o->prog, err);
        goto out;
    }
    r->t = t, r->ids = ids, r->tids = tids, r->order = order;
    r->n = n, r->mt = mt, r->ctl = ctl;
    return 0;
out:
    trace_free(t);
    free(ids);
    free(tids);
    free(order);
    model_free(m);
    return rc;
}
