/* export_svg.c - self-contained SVG figures of one run for slides and print: the attention
 * heatmap, all heads of a layer as small multiples, the shape passport's matrices, and the
 * chips verdict. Light background, the viridis ramp with a legend, masked cells hatched on
 * grey (never drawn as small weights), every string XML-escaped (docs/export.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export.h"
#include "utf8.h"

#define FONT "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
#define MARGIN 16
#define MASKED_FILL "#d4d4d4"
#define MAX_STEPS 64
#define PASSPORT_TEXT_W 470 /* the passport's text column, beside the matrices */

/* matplotlib's viridis at 0, 1/8, ..., 1: lightness rises strictly from dark purple to
 * yellow (the 256-colour ramp 53 61 31 36 113 220 of the player samples the same map). */
static const unsigned char VIRIDIS[9][3] = {
    {0x44, 0x01, 0x54}, {0x48, 0x28, 0x78}, {0x3e, 0x49, 0x89}, {0x31, 0x68, 0x8e},
    {0x26, 0x82, 0x8e}, {0x1f, 0x9e, 0x89}, {0x35, 0xb7, 0x79}, {0x6e, 0xce, 0x58},
    {0xfd, 0xe7, 0x25},
};

void export_xml_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
                fputc(' ', f); /* control characters are not allowed in XML 1.0 */
            else
                fputc(*s, f);
        }
    }
}

/* The ramp colour of t in 0..1 as #rrggbb, and 1 when dark text reads better on it. */
static int ramp(float t, char out[8])
{
    if (!(t >= 0.0f))
        t = 0.0f;
    if (t > 1.0f)
        t = 1.0f;
    float x = t * 8.0f;
    int i = (int)x;
    if (i > 7)
        i = 7;
    float u = x - (float)i;
    int rgb[3];
    for (int c = 0; c < 3; c++)
        rgb[c] = (int)lroundf((float)VIRIDIS[i][c] * (1.0f - u) + (float)VIRIDIS[i + 1][c] * u);
    snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
    double lum = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    return lum > 110.0;
}

/* Characters of a UTF-8 string (for layout widths). */
static int ulen(const char *s)
{
    return (int)utf8_count(s);
}

/* The width the title line needs (bold 14px, about 8.6px a character). */
static int title_width(const char *title)
{
    return (int)(8.6 * ulen(title)) + 2 * MARGIN;
}

void export_svg_open(FILE *f, const ExportView *v, int w, int h, const char *title)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"%s\" role=\"img\">\n", w, h, w, h, FONT);
    fputs("<title>", f);
    export_xml_escape(f, title);
    fputs("</title>\n<defs>\n", f);
    fprintf(f, "<pattern id=\"hatch%d\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
               "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"%s\"/>"
               "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#8c8c8c\" "
               "stroke-width=\"2\"/></pattern>\n", v->id, MASKED_FILL);
    fprintf(f, "<linearGradient id=\"ramp%d\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">", v->id);
    for (int i = 0; i < 9; i++)
        fprintf(f, "<stop offset=\"%.3f\" stop-color=\"#%02x%02x%02x\"/>", i / 8.0,
                VIRIDIS[i][0], VIRIDIS[i][1], VIRIDIS[i][2]);
    fputs("</linearGradient>\n</defs>\n", f);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
}

/* A line of text; anchor "start", "middle" or "end"; extra attributes may be "". */
void export_svg_text(FILE *f, double x, double y, int size, const char *anchor,
                     const char *extra, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"%s%s%s>", x,
            y, size, anchor, strstr(extra, "fill=\"") ? "" : " fill=\"#1a1a1a\"",
            extra[0] ? " " : "", extra);
    export_xml_escape(f, s);
    fputs("</text>\n", f);
}

void export_svg_title(FILE *f, const char *title, const char *sub)
{
    export_svg_text(f, MARGIN, 24, 14, "start", "font-weight=\"bold\"", title);
    if (sub)
        export_svg_text(f, MARGIN, 44, 12, "start", "fill-opacity=\"0.85\"", sub);
}

/* The legend at (x, y): the ramp from lo to hi, and the masked swatch. */
static void svg_legend(FILE *f, const ExportView *v, int x, int y, const char *lo,
                       const char *hi, const char *masked)
{
    export_svg_text(f, x, y + 11, 11, "start", "", lo);
    int bx = x + 8 + 7 * ulen(lo);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"160\" height=\"14\" fill=\"url(#ramp%d)\" "
               "stroke=\"#555555\" stroke-width=\"0.5\"/>\n", bx, y, v->id);
    export_svg_text(f, bx + 166, y + 11, 11, "start", "", hi);
    if (!masked)
        return;
    int mx = bx + 180 + 7 * ulen(hi);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"url(#hatch%d)\" "
               "stroke=\"#555555\" stroke-width=\"0.5\"/>\n", mx, y, v->id);
    export_svg_text(f, mx + 20, y + 11, 11, "start", "", masked);
}

/* The legend of a matrix whose unmasked entries are all one value (a mask M: 0 where a key
 * may be read): that value's swatch, the ramp's middle as its cells are drawn, instead of a
 * ramp from the value to itself. */
static void svg_legend_one(FILE *f, const ExportView *v, int x, int y, float value,
                           const char *masked)
{
    char col[8], text[64];
    ramp(0.5f, col);
    snprintf(text, sizeof text, "every entry not masked: %.2f", (double)value);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\" "
               "stroke=\"#555555\" stroke-width=\"0.5\"/>\n", x, y, col);
    export_svg_text(f, x + 20, y + 11, 11, "start", "", text);
    if (!masked)
        return;
    int mx = x + 40 + 7 * ulen(text);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"url(#hatch%d)\" "
               "stroke=\"#555555\" stroke-width=\"0.5\"/>\n", mx, y, v->id);
    export_svg_text(f, mx + 20, y + 11, 11, "start", "", masked);
}

/* Range of the finite values of e that are not masked. */
static void finite_range(const TraceEntry *e, const TraceEntry *mask, float *lo, float *hi)
{
    int any = 0;
    for (int i = 0; i < e->rows; i++)
        for (int j = 0; j < e->cols; j++) {
            float x = e->data[(size_t)i * e->cols + j];
            if (!isfinite(x) || export_masked(e, mask, i, j))
                continue;
            if (!any || x < *lo)
                *lo = x;
            if (!any || x > *hi)
                *hi = x;
            any = 1;
        }
    if (!any)
        *lo = 0.0f, *hi = 1.0f;
}

/* Where a grid of cells sits and how it is drawn. */
typedef struct {
    int x0, y0, cw, ch;     /* top-left corner and cell size */
    int values;             /* 1: print the value in each cell */
    int label_size;         /* font size of the token labels (0: no labels) */
    float lo, hi;           /* the ramp's range */
    int weights;            /* 1: attention weights (masked cells "·"), 0: other values */
    const char *fmt;        /* value format in cells */
} Grid;

/* The cells of e (with token labels on both axes when g->label_size). */
static void svg_grid(FILE *f, const ExportView *v, const TraceEntry *e, const TraceEntry *mask,
                     const Grid *g)
{
    char a[64], b[64], col[8], num[32], hatch[32];
    snprintf(hatch, sizeof hatch, "url(#hatch%d)", v->id);
    for (int j = 0; g->label_size && j < e->cols; j++) {
        char tr[96];
        double x = g->x0 + j * g->cw + g->cw / 2.0, y = g->y0 - 6;
        snprintf(tr, sizeof tr, "transform=\"rotate(-45 %.1f %.1f)\"", x, y);
        export_svg_text(f, x, y, g->label_size, "start", tr, export_col_label(v, e, j, b, sizeof b));
    }
    for (int i = 0; i < e->rows; i++) {
        if (g->label_size)
            export_svg_text(f, g->x0 - 6, g->y0 + i * g->ch + g->ch / 2.0 + g->label_size * 0.35,
                     g->label_size, "end", "", export_row_label(v, e, i, a, sizeof a));
        for (int j = 0; j < e->cols; j++) {
            float x = e->data[(size_t)i * e->cols + j];
            int masked = export_masked(e, mask, i, j);
            int cx = g->x0 + j * g->cw, cy = g->y0 + i * g->ch;
            float t = g->hi > g->lo ? (x - g->lo) / (g->hi - g->lo) : 0.5f;
            int dark = ramp(t, col);
            fprintf(f, "<rect class=\"cell\" data-i=\"%d\" data-j=\"%d\" data-v=\"%.9g\"%s "
                       "x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
                       "stroke=\"#ffffff\" stroke-width=\"%s\"><title>",
                    i, j, (double)x, masked ? " data-masked=\"1\"" : "", cx, cy, g->cw, g->ch,
                    masked ? hatch : col, g->cw >= 6 ? "1" : "0");
            export_xml_escape(f, export_row_label(v, e, i, a, sizeof a));
            fprintf(f, " (%d) \u2192 ", i);
            export_xml_escape(f, export_col_label(v, e, j, b, sizeof b));
            fprintf(f, " (%d): ", j);
            if (masked)
                fputs(g->weights ? "masked, weight 0" : "masked (\u2212\u221e)", f);
            else
                fprintf(f, "%.9g", (double)x);
            fputs("</title></rect>\n", f);
            if (!g->values && !masked)
                continue;
            if (!g->values && g->cw < (g->weights ? 20 : 30))
                continue; /* the hatching alone marks a small masked cell */
            if (masked)
                snprintf(num, sizeof num, "%s", g->weights ? "\u00b7" : "\u2212\u221e");
            else
                snprintf(num, sizeof num, g->fmt, (double)x);
            char fill[40];
            snprintf(fill, sizeof fill, "fill=\"%s\"", masked ? "#404040" : dark ? "#111111"
                                                                                 : "#ffffff");
            export_svg_text(f, cx + g->cw / 2.0, cy + g->ch / 2.0 + 4, masked && g->weights ? 16 : 11,
                     "middle", fill, num);
        }
    }
}

static int label_width(const ExportView *v, const TraceEntry *e, int rows, int size)
{
    char b[64];
    int w = 0;
    for (int i = 0; i < (rows ? e->rows : e->cols); i++) {
        int l = ulen(rows ? export_row_label(v, e, i, b, sizeof b)
                          : export_col_label(v, e, i, b, sizeof b));
        if (l > w)
            w = l;
    }
    return (int)(w * size * 0.62) + 10;
}

int export_svg_heatmap(FILE *f, const ExportView *v, char *err, size_t errlen)
{
    const TraceEntry *mask, *e = export_matrix(v, &mask, err, errlen);
    if (!e)
        return -1;
    int weights = e->kind == T_WEIGHTS;
    Grid g = {0};
    int n = e->cols > e->rows ? e->cols : e->rows;
    g.cw = n <= 12 ? 56 : n <= 48 ? 672 / n : 14;
    g.ch = g.cw > 32 ? 32 : g.cw;
    g.values = g.cw >= 44;
    g.label_size = 12;
    g.weights = weights;
    g.fmt = weights ? "%.3f" : "%.2f";
    g.lo = 0.0f, g.hi = 1.0f;
    if (!weights)
        finite_range(e, mask, &g.lo, &g.hi);
    int rl = label_width(v, e, 1, 12), cl = (int)(label_width(v, e, 0, 12) * 0.75) + 8;
    g.x0 = MARGIN + rl;
    g.y0 = 64 + cl;
    int sumw = weights ? 60 : 0;
    char title[1200], sub[300], what[120];
    if (v->tensor && v->tensor[0])
        snprintf(what, sizeof what, "%s [%d\u00d7%d]", e->name, e->rows, e->cols);
    else
        snprintf(what, sizeof what, "layer %d, head %d%s", v->layer, v->head,
                 v->cross ? ", cross-attention" : "");
    export_title(v, what, title, sizeof title);
    int attn = e->kind >= T_SCORES && e->kind <= T_WEIGHTS;
    snprintf(sub, sizeof sub, "%s (%s); %s",
             weights ? "attention weights" : e->kind == T_MASKED ? "scores before softmax"
                                                                 : trace_kind_symbol(e->kind),
             weights ? "softmax of the masked, scaled scores" : e->name,
             attn ? "rows: queries, columns: keys" : "rows: tokens, columns: vector components");
    int w = g.x0 + e->cols * g.cw + sumw + MARGIN, h = g.y0 + e->rows * g.ch + 70;
    int tw = title_width(title);
    if (w < tw)
        w = tw > 1400 ? 1400 : tw;
    if (w < 520)
        w = 520;
    export_svg_open(f, v, w, h, title);
    export_svg_title(f, title, sub);
    fprintf(f, "<g id=\"grid%d\">\n", v->id);
    svg_grid(f, v, e, mask, &g);
    fputs("</g>\n", f);
    for (int i = 0; weights && i < e->rows; i++) {
        double s = 0;
        char num[32];
        for (int j = 0; j < e->cols; j++)
            s += e->data[(size_t)i * e->cols + j];
        snprintf(num, sizeof num, "%.3f", s);
        export_svg_text(f, g.x0 + e->cols * g.cw + sumw - 8, g.y0 + i * g.ch + g.ch / 2.0 + 4, 11,
                 "end", "class=\"rowsum\"", num);
    }
    if (weights)
        export_svg_text(f, g.x0 + e->cols * g.cw + sumw - 8, g.y0 - 6, 11, "end", "", "sum");
    char lo[32], hi[32];
    snprintf(lo, sizeof lo, weights ? "%.0f" : "%.2f", (double)g.lo);
    snprintf(hi, sizeof hi, weights ? "%.0f" : "%.2f", (double)g.hi);
    int ly = g.y0 + e->rows * g.ch + 18;
    const char *masked = mask ? (weights ? "masked (score \u2212\u221e, weight 0)"
                                         : "masked (\u2212\u221e)") : NULL;
    if (!weights && !(g.hi > g.lo))
        svg_legend_one(f, v, MARGIN, ly, g.lo, masked);
    else
        svg_legend(f, v, MARGIN, ly, lo, hi, masked);
    export_svg_text(f, MARGIN, ly + 36, 10, "start", "fill-opacity=\"0.7\"",
             g.values ? "values rounded as shown; each cell's title holds 9 significant digits"
                      : "each cell's title holds its value to 9 significant digits");
    fputs("</svg>\n", f);
    return 0;
}

int export_svg_heads(FILE *f, const ExportView *v, char *err, size_t errlen)
{
    int nh = v->model ? v->model->cfg.n_heads : 1;
    const TraceEntry *mask, *e0 = export_weights(v, v->layer, 0, &mask);
    if (!e0) {
        snprintf(err, errlen, "no attention weights at layer %d", v->layer);
        return -1;
    }
    int per_row = nh < 4 ? nh : 4, n = e0->cols > e0->rows ? e0->cols : e0->rows;
    Grid g = {0};
    g.cw = g.ch = n <= 8 ? 24 : n <= 24 ? 192 / n : 8;
    g.label_size = g.cw >= 12 ? 10 : 0;
    g.weights = 1;
    g.lo = 0.0f, g.hi = 1.0f;
    int rl = g.label_size ? label_width(v, e0, 1, 10) : 8;
    int cl = g.label_size ? (int)(label_width(v, e0, 0, 10) * 0.75) + 8 : 8;
    int pw = rl + e0->cols * g.cw + 18, ph = 22 + cl + e0->rows * g.ch + 14;
    int rows = (nh + per_row - 1) / per_row;
    char title[1200], what[80];
    snprintf(what, sizeof what, "layer %d, all %d heads%s", v->layer, nh,
             v->cross ? " (cross-attention)" : "");
    export_title(v, what, title, sizeof title);
    int w = 2 * MARGIN + per_row * pw, h = 56 + rows * ph + 40;
    int tw = title_width(title);
    if (w < tw)
        w = tw > 1400 ? 1400 : tw;
    if (w < 520)
        w = 520;
    export_svg_open(f, v, w, h, title);
    export_svg_title(f, title, "attention weights of every head, one panel each; rows: queries, "
                        "columns: keys");
    for (int hd = 0; hd < nh; hd++) {
        const TraceEntry *e = export_weights(v, v->layer, hd, NULL);
        if (!e)
            continue;
        int px = MARGIN + (hd % per_row) * pw, py = 56 + (hd / per_row) * ph;
        char lab[32];
        snprintf(lab, sizeof lab, "head %d", hd);
        export_svg_text(f, px + rl, py + 14, 12, "start", "font-weight=\"bold\"", lab);
        g.x0 = px + rl;
        g.y0 = py + 22 + cl;
        fprintf(f, "<g class=\"head\" data-head=\"%d\">\n", hd);
        svg_grid(f, v, e, mask, &g);
        fputs("</g>\n", f);
    }
    svg_legend(f, v, MARGIN, 56 + rows * ph + 8, "0", "1",
               mask ? "masked (score \u2212\u221e, weight 0)" : NULL);
    fputs("</svg>\n", f);
    return 0;
}

/* The passport's steps for v's layer and head, as the player's passport shows them
 * (widget_passport_steps). */
static int passport_steps(const ExportView *v, int *idx)
{
    Stack st = model_self_stack(v->model);
    return widget_passport_steps(v->trace, st, v->layer, v->head, idx, MAX_STEPS);
}

/* Cell size of a passport thumbnail of c columns. */
static int thumb_cell(int c)
{
    int cs = 400 / (c > 0 ? c : 1);
    return cs > 14 ? 14 : cs < 2 ? 2 : cs;
}

int export_svg_passport(FILE *f, const ExportView *v, char *err, size_t errlen)
{
    int idx[MAX_STEPS], n = passport_steps(v, idx);
    if (n == 0) {
        snprintf(err, errlen, "the run has no tensors at layer %d, head %d", v->layer, v->head);
        return -1;
    }
    const Trace *t = v->trace;
    int h = 70;
    for (int s = 0; s < n; s++) {
        const TraceEntry *e = trace_entry(t, idx[s]);
        int th = e->rows * thumb_cell(e->cols) + 18;
        h += th > 48 ? th : 48;
    }
    h += 40;
    char title[1200], what[80];
    snprintf(what, sizeof what, "shape passport, layer %d, head %d", v->layer, v->head);
    export_title(v, what, title, sizeof title);
    int w = 2 * MARGIN + 400 + PASSPORT_TEXT_W, tw = title_width(title);
    if (w < tw)
        w = tw > 1400 ? 1400 : tw;
    export_svg_open(f, v, w, h, title);
    export_svg_title(f, title, "every tensor of the block in the order computed, with its shape; each "
                        "matrix coloured from its own minimum (dark) to maximum (light)");
    int y = 64;
    for (int s = 0; s < n; s++) {
        const TraceEntry *e = trace_entry(t, idx[s]);
        char line[160], sym[32], formula[200];
        snprintf(line, sizeof line, "%d. %s  [%d\u00d7%d]", s + 1,
                 widget_passport_symbol(e, v->layer, sym, sizeof sym), e->rows, e->cols);
        fprintf(f, "<g class=\"step\" data-name=\"");
        export_xml_escape(f, e->name);
        fprintf(f, "\" data-rows=\"%d\" data-cols=\"%d\">\n", e->rows, e->cols);
        export_svg_text(f, MARGIN, y + 14, 13, "start", "font-weight=\"bold\"", line);
        export_svg_text(f, MARGIN, y + 30, 11, "start", "", e->name);
        export_svg_text(f, MARGIN, y + 44, 10, "start", "fill-opacity=\"0.75\"",
                 widget_passport_formula(e, v->layer, formula, sizeof formula));
        Grid g = {0};
        g.cw = g.ch = thumb_cell(e->cols);
        g.x0 = MARGIN + PASSPORT_TEXT_W;
        g.y0 = y + 4;
        g.weights = e->kind == T_WEIGHTS;
        finite_range(e, NULL, &g.lo, &g.hi);
        if (g.weights)
            g.lo = 0.0f, g.hi = 1.0f;
        svg_grid(f, v, e, NULL, &g);
        fputs("</g>\n", f);
        int th = e->rows * g.ch + 18;
        y += th > 48 ? th : 48;
    }
    svg_legend(f, v, MARGIN, y + 6, "min", "max", "\u2212\u221e (masked)");
    fputs("</svg>\n", f);
    return 0;
}

int export_svg_chips(FILE *f, const ExportView *v, char *err, size_t errlen)
{
    const Trace *t = v->trace;
    if (t->n <= 0) {
        snprintf(err, errlen, "the run has no tokens");
        return -1;
    }
    char title[1200], b[64], line[400];
    export_title(v, "token chips", title, sizeof title);
    int x = MARGIN, y = 80, rowx = 0, maxw = 760;
    int xs[256], ys[256], ws[256];
    for (int i = 0; i < t->n && i < 256; i++) { /* lay out, wrapping at maxw */
        ws[i] = 9 * ulen(export_token(v, i, b, sizeof b)) + 24;
        if (x + ws[i] > MARGIN + maxw && x > MARGIN)
            x = MARGIN, y += 56;
        xs[i] = x, ys[i] = y;
        x += ws[i] + 10;
        if (x > rowx)
            rowx = x;
    }
    int w = rowx + MARGIN, tw = title_width(title), h = y + 150;
    if (w < tw)
        w = tw > 1400 ? 1400 : tw;
    if (w < 560)
        w = 560;
    export_svg_open(f, v, w, h, title);
    export_svg_title(f, title, "the tokens in the order run (position above each chip)");
    for (int i = 0; i < t->n && i < 256; i++) {
        snprintf(b, sizeof b, "%d", i);
        export_svg_text(f, xs[i] + ws[i] / 2.0, ys[i] - 6, 10, "middle", "fill-opacity=\"0.7\"", b);
        fprintf(f, "<rect class=\"chip\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"30\" rx=\"8\" "
                   "fill=\"#eef3fb\" stroke=\"#3e4989\" stroke-width=\"1.5\"/>\n",
                xs[i], ys[i], ws[i]);
        export_svg_text(f, xs[i] + ws[i] / 2.0, ys[i] + 20, 14, "middle", "",
                 export_token(v, i, b, sizeof b));
    }
    y += 58;
    int k = snprintf(line, sizeof line, "order (input position run at each position):");
    for (int i = 0; i < t->n && k < (int)sizeof line - 8; i++)
        k += snprintf(line + k, sizeof line - (size_t)k, " %d", t->order[i]);
    export_svg_text(f, MARGIN, y, 12, "start", "", line);
    const char *head, *why;
    export_chips_verdict(t, v->equiv, &head, &why);
    int match = v->equiv >= 0.0f && v->equiv < EXPORT_EQUIV_TOL;
    snprintf(line, sizeof line, "%s %s", v->equiv < 0.0f ? "?" : match ? "\u2713" : "\u2717",
             head);
    export_svg_text(f, MARGIN, y + 28, 15, "start", "font-weight=\"bold\" class=\"verdict\"", line);
    if (v->equiv >= 0.0f) {
        snprintf(line, sizeof line, "max|Attn(PX) \u2212 P\u00b7Attn(X)| = %.3g", (double)v->equiv);
        export_svg_text(f, MARGIN, y + 50, 12, "start", "class=\"equiv\"", line);
    }
    export_svg_text(f, MARGIN, y + 70, 12, "start", "", why);
    fputs("</svg>\n", f);
    return 0;
}
