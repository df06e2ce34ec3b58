/* export_probe.c - the probe widgets' figure (`attend export`, the player's x, the handout): the
 * numbers the widget shows at its position and layer (probe.h) as a table of rows, each a
 * label, its numbers in words, a value and a bar, written as SVG or CSV. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "probe.h"

#define ROW_TEXT 160
#define MAX_ROWS 200
typedef struct {
    char label[32];
    char text[ROW_TEXT];
    double value;            /* the row's number (CSV) */
    double bar;              /* 0..1 of the bar's width; NAN: no bar */
} Row;

static const char *tok(const ExportView *v, const Model *m, int id)
{
    (void)v;
    return vocab_word(&m->vocab, id);
}

/* The figure's title and rows for v's probe; returns the number of rows. */
static int rows_of(const ExportView *v, const Probe *p, char *title, size_t tn, Row *rows)
{
    const Model *m = v->model;
    const Trace *t = v->trace;
    int i = v->step < 0 ? 0 : v->step >= p->n ? p->n - 1 : v->step, k = 0;
    switch (p->kind) {
    case W_LENS:
        snprintf(title, tn, "logit lens after \"%s\" (position %d): each block's best guess",
                 tok(v, m, t->src[i]), i);
        for (int l = 0; l <= p->L && k < MAX_ROWS; l++, k++) {
            const LensTop *top = &p->top[((size_t)l * p->n + i) * PROBE_TOP];
            Row *r = &rows[k];
            snprintf(r->label, sizeof r->label, l == 0 ? "embed" : l == p->L ? "output"
                                                               : "after L%d", l - 1);
            snprintf(r->text, sizeof r->text, "%s %.3f, %s %.3f, %s %.3f", tok(v, m, top[0].id),
                     top[0].p, tok(v, m, top[1].id), top[1].p, tok(v, m, top[2].id), top[2].p);
            r->value = r->bar = top[0].p;
        }
        return k;
    case W_ATTRIB: case W_EFFECT: {
        const LensAttribution *a = &p->attr[i];
        if (p->kind == W_ATTRIB) {
            snprintf(title, tn, "the logit of \"%s\" after \"%s\" (position %d) = %.3f, in parts",
                     tok(v, m, a->token), tok(v, m, t->src[i]), i, a->logit);
            double mx = 1e-12;
            for (int x = 0; x < a->n_parts; x++)
                mx = fmax(mx, fabs(a->parts[x].value));
            for (int x = 0; x < a->n_parts && k < MAX_ROWS; x++, k++) {
                const LensPart *q = &a->parts[x];
                snprintf(rows[k].label, sizeof rows[k].label, "%s", q->name);
                if (q->key >= 0)
                    snprintf(rows[k].text, sizeof rows[k].text, "%+.3f (looks at \"%s\" %.2f)",
                             q->value, tok(v, m, t->src[q->key]), q->peak);
                else
                    snprintf(rows[k].text, sizeof rows[k].text, "%+.3f", q->value);
                rows[k].value = q->value;
                rows[k].bar = fabs(q->value) / mx;
            }
            return k;
        }
        snprintf(title, tn, "after \"%s\" (position %d), top guess \"%s\", loss %.3f: each head's "
                 "look, push and loss change knocked out", tok(v, m, t->src[i]), i,
                 tok(v, m, p->target[i]), p->loss[i]);
        for (int h = 0; h < p->n_heads && k < MAX_ROWS; h++, k++) {
            const ProbeHead *q = &p->heads[(size_t)i * p->n_heads + h];
            snprintf(rows[k].label, sizeof rows[k].label, "L%d.h%d", q->layer, q->head);
            snprintf(rows[k].text, sizeof rows[k].text, "looks at \"%s\" %.3f; push %+.3f; loss "
                     "change %+.3f", q->key >= 0 ? tok(v, m, t->src[q->key]) : "?", q->weight,
                     q->direct, q->dloss);
            rows[k].value = q->dloss;
            rows[k].bar = q->weight;
        }
        return k;
    }
    case W_PATCH:
        if (!p->patched) {
            snprintf(title, tn, "patching: %s", p->patch_why);
            return 0;
        }
        snprintf(title, tn, "\"%s\" (position %d) made \"%s\": logit of \"%s\" %.3f -> %.3f; the "
                 "share each part's clean output restores", tok(v, m, t->src[p->corrupt_pos]),
                 p->corrupt_pos, tok(v, m, p->corrupt_tok), tok(v, m, p->patch.token),
                 p->patch.clean, p->patch.corrupted);
        for (int x = 0; x < p->patch.n_parts && k < MAX_ROWS; x++, k++) {
            const LensPatchPart *q = &p->patch.parts[x];
            snprintf(rows[k].label, sizeof rows[k].label, "%s", q->name);
            snprintf(rows[k].text, sizeof rows[k].text, "%.3f", q->fraction);
            rows[k].value = q->fraction;
            rows[k].bar = q->fraction < 0 ? 0 : q->fraction > 1 ? 1 : q->fraction;
        }
        return k;
    case W_ROLLOUT: {
        int l = v->layer < 0 ? 0 : v->layer >= p->L ? p->L - 1 : v->layer, n = p->n;
        snprintf(title, tn, "attention rollout through layer %d: each row's largest share", l);
        const double *R = p->roll + (size_t)l * n * n;
        for (int r = 0; r < n && k < MAX_ROWS; r++, k++) {
            int best = 0;
            for (int j = 1; j < n; j++)
                if (R[(size_t)r * n + j] > R[(size_t)r * n + best])
                    best = j;
            snprintf(rows[k].label, sizeof rows[k].label, "%d %.16s", r, tok(v, m, t->src[r]));
            snprintf(rows[k].text, sizeof rows[k].text, "\"%s\" %.3f", tok(v, m, t->src[best]),
                     R[(size_t)r * n + best]);
            rows[k].value = rows[k].bar = R[(size_t)r * n + best];
        }
        return k;
    }
    case W_PAIR:
        snprintf(title, tn, "two models on fresh random repeats: each copy's loss, each head's "
                 "prev, induction and OV copying scores");
        for (int x = 0; x < 2; x++) {
            const ProbeModel *q = &p->pair[x];
            if (!q->m)
                continue;
            if (k < MAX_ROWS) {
                snprintf(rows[k].label, sizeof rows[k].label, "%.31s", q->m->cfg.name);
                snprintf(rows[k].text, sizeof rows[k].text, "loss first copy %.3f, second %.3f",
                         q->first, q->second);
                rows[k].value = q->second;
                rows[k].bar = NAN;
                k++;
            }
            for (int h = 0; h < q->L * q->H && k < MAX_ROWS; h++, k++) {
                snprintf(rows[k].label, sizeof rows[k].label, "  L%d.h%d", h / q->H, h % q->H);
                snprintf(rows[k].text, sizeof rows[k].text, "prev %.3f, induction %.3f, copy "
                         "%.3f", q->sc[h].prev, q->sc[h].induction, q->hc[h].copy);
                rows[k].value = q->sc[h].induction;
                rows[k].bar = q->sc[h].induction;
            }
        }
        return k;
    default:
        title[0] = 0;
        return 0;
    }
}

static const Probe *probe_of(const ExportView *v, char *err, size_t errlen)
{
    const Probe *p = v->live ? v->live->probe : NULL;
    if (!p || !v->trace || !v->model || p->n < 1) {
        snprintf(err, errlen, "the probe figure needs a probe page's numbers (a lens, "
                 "attribution, effect, patching, rollout or pair page: attend export --lesson "
                 "ID --page N, or x on the page)");
        return NULL;
    }
    return p;
}

int export_svg_probe(FILE *f, const ExportView *v, char *err, size_t errlen)
{
    static Row rows[MAX_ROWS];
    char title[400];
    const Probe *p = probe_of(v, err, errlen);
    if (!p)
        return -1;
    int k = rows_of(v, p, title, sizeof title, rows), row_h = 22, lw = 140, bar_w = 200;
    int w = 16 + lw + 420 + bar_w + 16, h = 70 + (k > 0 ? k : 1) * row_h + 20;
    export_svg_open(f, v, w, h, title);
    export_svg_title(f, title, v->model->cfg.name);
    for (int i = 0; i < k; i++) {
        int y = 70 + i * row_h + 14;
        fprintf(f, "<g class=\"row\" data-value=\"%.9g\">\n", rows[i].value);
        export_svg_text(f, 16, y, 12, "start", "font-weight=\"bold\"", rows[i].label);
        export_svg_text(f, 16 + lw, y, 12, "start", "", rows[i].text);
        if (!isnan(rows[i].bar))
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"12\" "
                       "fill=\"#2166ac\"/>\n", 16 + lw + 420, y - 11,
                    (rows[i].bar < 0 ? 0 : rows[i].bar > 1 ? 1 : rows[i].bar) * bar_w);
        fputs("</g>\n", f);
    }
    fputs("</svg>\n", f);
    return 0;
}

int export_csv_probe(FILE *f, const ExportView *v, char *err, size_t errlen)
{
    static Row rows[MAX_ROWS];
    char title[400];
    const Probe *p = probe_of(v, err, errlen);
    if (!p)
        return -1;
    int k = rows_of(v, p, title, sizeof title, rows);
    fputs("row,numbers,value\n", f);
    for (int i = 0; i < k; i++) {
        export_csv_field(f, rows[i].label);
        fputc(',', f);
        export_csv_field(f, rows[i].text);
        fprintf(f, ",%.9g\n", rows[i].value);
    }
    return 0;
}
