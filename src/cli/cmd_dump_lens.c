/* cmd_dump_lens.c - `attend dump --lens / --attribute / --patch / --rollout`: what the parts of
 * the residual stream do to the next token (src/engine/lens.c), as JSON for tests and
 * notebooks or as text for people (docs/dump-format.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "json.h"
#include "lens.h"

static void word(FILE *f, const Model *m, int id, int json)
{
    if (json)
        json_write_string(f, vocab_word(&m->vocab, id));
    else
        fprintf(f, "\"%s\"", vocab_word(&m->vocab, id));
}

static int dump_lens(FILE *f, const DumpRun *r, int k, int json, char *err, size_t errlen)
{
    const Model *m = &r->m;
    int L = m->cfg.n_layers, n = r->t->n;
    LensTop *top = malloc(sizeof *top * (size_t)(L + 1) * n * k);
    if (!top) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (lens_logit(m, r->t, k, top, err, errlen)) {
        free(top);
        return -1;
    }
    if (json)
        fprintf(f, ",\n \"lens\": [");
    else
        fprintf(f, "logit lens: the %d most likely next tokens read from the residual stream "
                "after each block\n(r0: the embeddings; r%d, the last, is the model's own "
                "output)\n", k, L);
    for (int i = 0; i < n && !json; i++) {
        fprintf(f, "position %d ", i);
        word(f, m, r->t->src[i], 0);
        fputc('\n', f);
        for (int l = 0; l <= L; l++) {
            fprintf(f, "  r%-3d", l);
            const LensTop *t = top + ((size_t)l * n + i) * k;
            for (int j = 0; j < k; j++)
                fprintf(f, "  %-12.12s %.3f", vocab_word(&m->vocab, t[j].id), t[j].p);
            fputc('\n', f);
        }
    }
    for (int l = 0; l <= L && json; l++) {
        fprintf(f, "%s\n  [", l ? "," : "");
        for (int i = 0; i < n; i++) {
            const LensTop *t = top + ((size_t)l * n + i) * k;
            fprintf(f, "%s{\"top\": [", i ? ", " : "");
            for (int j = 0; j < k; j++)
                fprintf(f, "%s[%d, %.9g]", j ? ", " : "", t[j].id, t[j].p);
            fprintf(f, "]}");
        }
        fputc(']', f);
    }
    if (json)
        fprintf(f, "]");
    free(top);
    return 0;
}

static int dump_attribute(FILE *f, const DumpRun *r, int token, int pos, int json, char *err,
                          size_t errlen)
{
    const Model *m = &r->m;
    LensAttribution a;
    if (lens_attribute(m, r->t, token, pos, &a, err, errlen))
        return -1;
    double sum = 0.0;
    for (int i = 0; i < a.n_parts; i++)
        sum += a.parts[i].value;
    if (json) {
        fprintf(f, ",\n \"attribution\": {\"token_id\": %d, \"token\": ", token);
        word(f, m, token, 1);
        fprintf(f, ", \"position\": %d, \"logit\": %.9g, \"scale\": %.9g, \"sum\": %.9g, "
                "\"parts\": [", pos, a.logit, a.scale, sum);
        for (int i = 0; i < a.n_parts; i++) {
            const LensPart *q = &a.parts[i];
            fprintf(f, "%s\n  {\"name\": \"%s\", \"value\": %.9g", i ? "," : "", q->name, q->value);
            if (q->head >= 0)
                fprintf(f, ", \"weight\": %.9g, \"key\": %d", q->peak, q->key);
            fputc('}', f);
        }
        fprintf(f, "]}");
    } else {
        fprintf(f, "direct logit attribution: the logit of ");
        word(f, m, token, 0);
        fprintf(f, " (id %d) at position %d ", token, pos);
        word(f, m, r->t->src[pos], 0);
        fprintf(f, " is %.4f, split into the parts of the residual stream\n(the final norm's "
                "scale frozen at %.4f on this position); beside each head, where it looks from "
                "there:\n", a.logit, a.scale);
        int best = 0;
        for (int i = 0; i < a.n_parts; i++) {
            const LensPart *q = &a.parts[i];
            fprintf(f, "  %-14s %10.4f", q->name, q->value);
            if (q->head >= 0)
                fprintf(f, "   looks %.2f at %d %s", q->peak, q->key,
                        vocab_word(&m->vocab, r->t->src[q->key]));
            fputc('\n', f);
            if (fabs(a.parts[i].value) > fabs(a.parts[best].value))
                best = i;
        }
        fprintf(f, "  %-14s %10.4f  (the logit: %.4f)\nlargest part: %s\n", "sum", sum, a.logit,
                a.parts[best].name);
    }
    lens_attribution_free(&a);
    return 0;
}

static int dump_patch(FILE *f, const DumpRun *r, const char *corrupted, int token, int pos,
                      int json, char *err, size_t errlen)
{
    const Model *m = &r->m;
    int cap = m->cfg.max_len;
    int *ids = calloc((size_t)cap, sizeof *ids);
    if (!ids) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    TokenizeInfo info;
    int n = vocab_tokenize(&m->vocab, corrupted, ids, cap, &info);
    if (info.truncated || n != r->n) {
        snprintf(err, errlen, "--patch: the corrupted sentence has %d tokens and the clean one %d;"
                 " patching puts one run's outputs into the other position by position, so they "
                 "need the same number of tokens", info.n_tokens, r->n);
        free(ids);
        return -1;
    }
    if (r->ctl.order) { /* run both in the same order */
        snprintf(err, errlen, "--patch does not take --order");
        free(ids);
        return -1;
    }
    LensPatch p;
    if (lens_patch(m, r->ids, ids, n, &r->ctl, token, pos, &p, err, errlen)) {
        free(ids);
        return -1;
    }
    if (json) {
        fprintf(f, ",\n \"corrupted_tokens\": [");
        for (int i = 0; i < n; i++) {
            fprintf(f, "%s", i ? ", " : "");
            word(f, m, ids[i], 1);
        }
        fprintf(f, "],\n \"patch\": {\"token_id\": %d, \"token\": ", token);
        word(f, m, token, 1);
        fprintf(f, ", \"position\": %d, \"clean\": %.9g, \"corrupted\": %.9g, \"parts\": [", pos,
                p.clean, p.corrupted);
        for (int i = 0; i < p.n_parts; i++)
            fprintf(f, "%s\n  {\"name\": \"%s\", \"layer\": %d, \"head\": %d, \"logit\": %.9g, "
                    "\"fraction\": %.9g}", i ? "," : "", p.parts[i].name, p.parts[i].layer,
                    p.parts[i].head, p.parts[i].logit, p.parts[i].fraction);
        fprintf(f, "]}");
    } else {
        fprintf(f, "activation patching: the logit of ");
        word(f, m, token, 0);
        fprintf(f, " at position %d is %.4f on the clean sentence, %.4f on the corrupted one.\n"
                "Each part's output put back from the clean run into the corrupted run restores "
                "this fraction\nof the difference (1: all of it, 0: none):\n", pos, p.clean,
                p.corrupted);
        int best = 0;
        for (int i = 0; i < p.n_parts; i++) {
            fprintf(f, "  %-10s %8.3f   (logit %.4f)\n", p.parts[i].name, p.parts[i].fraction,
                    p.parts[i].logit);
            if (p.parts[i].fraction > p.parts[best].fraction)
                best = i;
        }
        fprintf(f, "restores most: %s\n", p.parts[best].name);
    }
    lens_patch_free(&p);
    free(ids);
    return 0;
}

static int dump_rollout(FILE *f, const DumpRun *r, int json, char *err, size_t errlen)
{
    const Model *m = &r->m;
    int L = m->cfg.n_layers, n = r->t->n;
    double *R = malloc(sizeof(double) * (size_t)L * n * n);
    if (!R) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (lens_rollout(m, r->t, R, err, errlen)) {
        free(R);
        return -1;
    }
    if (json) {
        fprintf(f, ",\n \"rollout\": [");
        for (int l = 0; l < L; l++) {
            fprintf(f, "%s\n  [", l ? "," : "");
            for (int i = 0; i < n; i++) {
                fprintf(f, "%s[", i ? ", " : "");
                for (int j = 0; j < n; j++)
                    fprintf(f, "%s%.9g", j ? ", " : "", R[((size_t)l * n + i) * n + j]);
                fputc(']', f);
            }
            fputc(']', f);
        }
        fprintf(f, "]");
    } else {
        const double *F = R + (size_t)(L - 1) * n * n;
        fprintf(f, "attention rollout through all %d layers (Abnar & Zuidema 2020: per layer the "
                "heads' mean weights plus the identity, rows renormalised, multiplied through the "
                "layers).\nA guess at how much each input token flows into each position, "
                "assuming attention mixes the stream and nothing else does: it ignores the values,"
                " W_O and the FFNs.\nrows: positions, columns: input tokens\n", L);
        fprintf(f, "%-12s", "");
        for (int j = 0; j < n; j++)
            fprintf(f, " %6.6s", vocab_word(&m->vocab, r->t->src[j]));
        fputc('\n', f);
        for (int i = 0; i < n; i++) {
            fprintf(f, "%-12.12s", vocab_word(&m->vocab, r->t->src[i]));
            for (int j = 0; j < n; j++)
                fprintf(f, " %6.3f", F[(size_t)i * n + j]);
            fputc('\n', f);
        }
    }
    free(R);
    return 0;
}

static int dump_lens_to(FILE *f, const DumpRun *r, const DumpLensOpts *o, int json)
{
    const Model *m = &r->m;
    char err[1024];
    int token = -1, metric = -1, pos = o->position >= 0 ? o->position : r->n - 1;
    if (lens_check_model(m, err, sizeof err) ||
        (o->attribute && lens_token_parse(m, o->attribute, "--attribute", &token, err, sizeof err)) ||
        (o->patch && lens_token_parse(m, o->metric, "--metric", &metric, err, sizeof err))) {
        fprintf(stderr, "attend dump: %s\n", err);
        return 1;
    }
    if (pos >= r->n) {
        fprintf(stderr, "attend dump: --position %d: the sentence has positions 0..%d\n", pos,
                r->n - 1);
        return 1;
    }
    if (json) {
        fprintf(f, "{\"tokens\": [");
        for (int i = 0; i < r->n; i++) {
            fprintf(f, "%s", i ? ", " : "");
            word(f, m, r->t->src[i], 1);
        }
        fprintf(f, "],\n \"token_ids\": [");
        for (int i = 0; i < r->n; i++)
            fprintf(f, "%s%d", i ? ", " : "", r->t->src[i]);
        fprintf(f, "]");
    }
    int rc = 0;
    if (o->lens)
        rc = dump_lens(f, r, o->top, json, err, sizeof err);
    if (!rc && o->attribute) {
        if (!json && o->lens)
            fputc('\n', f);
        rc = dump_attribute(f, r, token, pos, json, err, sizeof err);
    }
    if (!rc && o->patch) {
        if (!json && (o->lens || o->attribute))
            fputc('\n', f);
        rc = dump_patch(f, r, o->patch, metric, pos, json, err, sizeof err);
    }
    if (!rc && o->rollout) {
        if (!json && (o->lens || o->attribute || o->patch))
            fputc('\n', f);
        rc = dump_rollout(f, r, json, err, sizeof err);
    }
    if (json)
        fprintf(f, "}\n");
    if (rc) {
        fprintf(stderr, "attend dump: %s\n", err);
        return 1;
    }
    return 0;
}

/* (contract in cmd.h) Everything is written to a buffer first: stdout gets the whole JSON
 * object or text, or nothing after an error. */
int dump_lens_run(FILE *out, const DumpRun *r, const DumpLensOpts *o, int json)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        fprintf(stderr, "attend dump: out of memory\n");
        return 1;
    }
    int rc = dump_lens_to(f, r, o, json);
    if (fclose(f) == 0 && rc == 0)
        rc = fwrite(text, 1, len, out) == len ? 0 : 1;
    free(text);
    return rc ? 1 : 0;
}

