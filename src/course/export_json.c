/* export_json.c - every traced tensor of one run as one JSON object: the writer of
 * `attend dump --format json` and `attend export --format json` (docs/dump-format.md). */
#include <math.h>
#include <stdio.h>

#include "export.h"
#include "heads.h"
#include "json.h"

static void json_num(FILE *f, float v)
{
    if (isnan(v))
        fputs("\"NaN\"", f); /* never expected; kept distinct from a mask's −∞ */
    else if (isinf(v))
        fputs(v < 0 ? "null" : "\"Infinity\"", f); /* null is −∞ (docs/dump-format.md) */
    else {
        char b[32];
        json_format_g9(b, v);
        fputs(b, f);
    }
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
 * out; with RoPE also q_rot and k_rot, the rotated ones that met in QKᵀ. Named as the trace
 * and the passport name them (L0.h0.q is the projection, L0.h0.q_rot its rotation). */
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
            {"q", q}, {"k", k},
            {"v", trace_find(t, st, l, sub, h, T_V)},
            {"scores", trace_find(t, st, l, sub, h, T_SCORES)},
            {"scaled", trace_find(t, st, l, sub, h, T_SCALED)},
            {"masked", trace_find(t, st, l, sub, h, T_MASKED)},
            {"weights", trace_find(t, st, l, sub, h, T_WEIGHTS)},
            {"out", trace_find(t, st, l, sub, h, T_HEAD_OUT)},
            {"q_rot", qr}, {"k_rot", kr},
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
            const TraceEntry *e = trace_meta(t, i); /* a head's map is not computed to be skipped */
            if (e->stack != st || e->layer != l || e->head >= 0)
                continue;
            e = trace_entry(t, i);
            fprintf(f, ",\n  \"%s\":", e->name);
            json_matrix(f, e);
        }
        fputc('}', f);
    }
    fputc(']', f);
}

/* (contract in export.h) */
void export_json(FILE *f, const Model *m, const Trace *t, const int *orig, int n)
{
    const ModelConfig *c = &m->cfg;
    fputs("{\"tokens\":", f);
    json_tokens(f, &m->vocab, t->src, t->n);
    fputs(",\n\"token_ids\":[", f);
    for (int i = 0; i < t->n; i++)
        fprintf(f, "%s%d", i ? "," : "", t->src[i]);
    fputc(']', f);
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
    fprintf(f, ",\"tokenizer\":\"%s\"",
            m->vocab.tok_encode ? "huggingface" : vocab_kind_name(m->vocab.kind));
    fputc(',', f);
    model_config_write(f, c, "model_pe", ",");
    fprintf(f, ",\"n_kv_heads\":%d,\"pe\":\"%s\",\"causal\":%s,\"padding\":%s,\"scale\":%s}",
            c->n_kv_heads ? c->n_kv_heads : c->n_heads, model_pe_name(t->ctl.pe),
            t->ctl.causal ? "true" : "false", t->ctl.padding ? "true" : "false",
            t->ctl.scale ? "true" : "false");
    char ablated[1024];
    heads_ablate_names(m, t->ctl.ablate, ablated, sizeof ablated);
    if (ablated[0]) { /* heads knocked out (dump --ablate): their outputs are zero */
        fputs(",\n\"ablated\":", f);
        json_write_string(f, ablated);
    }
    Stack main_st = model_view_stack(m, 0);
    fputs(",\n\"layers\":", f);
    json_layers(f, t, main_st);
    if (c->arch == ARCH_ENCDEC) {
        fputs(",\n\"decoder_layers\":", f);
        json_layers(f, t, STACK_DEC);
    }
    fputs(",\n\"tensors\":{", f);
    int first = 1;
    for (int i = 0; i < t->n_entries; i++) {
        const TraceEntry *e = trace_meta(t, i);
        if (e->layer >= 0)
            continue;
        e = trace_entry(t, i);
        fprintf(f, "%s\n \"%s\":", first ? "" : ",", e->name);
        json_matrix(f, e);
        first = 0;
    }
    fputs("},\n\"passport\":[", f);
    for (int i = 0; i < t->n_entries; i++)
        fprintf(f, "%s{\"name\":\"%s\",\"shape\":[%d,%d]}", i ? ",\n " : "\n ",
                trace_meta(t, i)->name, trace_meta(t, i)->rows, trace_meta(t, i)->cols);
    fputs("]}\n", f);
}


/* (contract in export.h) */
void export_generate_json(FILE *f, const ExportView *v)
{
    const GenStep *g = v->gen;
    const Trace *t = v->trace;
    const Vocab *voc = &v->model->vocab;
    fputs("{\"prompt\":", f);
    json_tokens(f, voc, t->src, g->n_prompt);
    fputs(",\"tokens\":", f);
    json_tokens(f, voc, t->src, t->n);
    fprintf(f, ",\"step\":%d,\"greedy\":%s,\"temperature\":%.9g,\"seed\":%d,\"next\":",
            g->step, v->gen_temp > 0.0f ? "false" : "true", (double)v->gen_temp, v->gen_seed);
    json_write_string(f, vocab_word(voc, g->next));
    fprintf(f, ",\"next_p\":%.17g,\"end\":%s,\n\"top\":[", g->next_p, g->end ? "true" : "false");
    for (int k = 0; k < g->n_top; k++) {
        fputs(k ? ",{\"token\":" : "{\"token\":", f);
        json_write_string(f, vocab_word(voc, g->top_id[k]));
        fprintf(f, ",\"p\":%.17g,\"p_temperature\":%.17g}", g->top_p[k], g->top_pt[k]);
    }
    fprintf(f, "],\n\"layer\":%d,\"head\":%d,\"reused_rows\":%d,\"new_rows\":%d,"
               "\"reuse_drift\":%.9g,",
            v->layer, v->head, g->step > 0 ? g->n - 1 : 0, g->step > 0 ? 1 : g->n,
            (double)g->reuse_drift);
    TensorKind kk = t->ctl.pe == PE_ROPE ? T_K_ROT : T_K;
    const TraceEntry *k = trace_find(t, STACK_DEC, v->layer, SUB_SELF, v->head, kk);
    const TraceEntry *val = trace_find(t, STACK_DEC, v->layer, SUB_SELF, v->head, T_V);
    const TraceEntry *w = trace_find(t, STACK_DEC, v->layer, SUB_SELF, v->head, T_WEIGHTS);
    fputs("\n\"k\":", f);
    if (k) json_matrix(f, k); else fputs("null", f);
    fputs(",\n\"v\":", f);
    if (val) json_matrix(f, val); else fputs("null", f);
    fputs(",\n\"query_weights\":[", f);
    for (int j = 0; w && j < w->cols; j++) {
        if (j)
            fputc(',', f);
        json_num(f, w->data[(size_t)(w->rows - 1) * w->cols + j]);
    }
    fprintf(f, "],\n\"rows_cached\":%lld,\"rows_full\":%lld,\"macs_cached\":%lld,"
               "\"macs_full\":%lld}",
            g->rows_cached, g->rows_full, g->macs_cached, g->macs_full);
}
