/* export_live.c - figures and tables of the explanation widgets for `x`, `attend export` and
 * the handout: the √d_k experiment and the cost of attention as line plots, the parameter
 * count as a table with a bar per component. Every number is the engine's (explain.c), for
 * the widget's state as shown (docs/export.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export.h"

#define MARGIN 16
#define PLOT_W 560 /* a line plot's axes */
#define PLOT_H 300
#define INK "#1a1a1a"
#define UNSCALED "#b2182b" /* red, dashed: never colour alone */
#define SCALED "#2166ac"   /* blue, solid */

/* n with thousands separators ("151,936"), in buf. */
static const char *group(long long n, char *buf, size_t len)
{
    char d[32];
    int k = snprintf(d, sizeof d, "%lld", n < 0 ? -n : n), o = 0;
    if (n < 0 && len > 1)
        buf[o++] = '-';
    for (int i = 0; i < k && (size_t)o + 2 < len; i++) {
        if (i && (k - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = d[i];
    }
    buf[o] = 0;
    return buf;
}

static int need_live(const ExportView *v, ExportWhat what, char *err, size_t errlen)
{
    if (v->live && v->live->ok && (what != EXPORT_COST || v->model))
        return 0;
    snprintf(err, errlen, "the %s figure needs a %s page's numbers (attend export --lesson ID "
             "--page N, or x on the page)", export_what_name(what), export_what_name(what));
    return -1;
}

/* ---- the plot frame: axes, ticks, labels ---- */
typedef struct {
    double x0, y0, w, h;   /* the axes' box, y0 its top */
    double xlo, xhi, ylo, yhi;
} Plot;

static double px(const Plot *p, double x)
{
    return p->x0 + (x - p->xlo) / (p->xhi - p->xlo) * p->w;
}

static double py(const Plot *p, double y)
{
    return p->y0 + p->h - (y - p->ylo) / (p->yhi - p->ylo) * p->h;
}

/* The axes with a horizontal grid line and label at each of the n_y y ticks, the x labels
 * under the points xs (labels xl), and the axis titles. */
static void plot_frame(FILE *f, const Plot *p, const double *ys, char (*yl)[24], int n_y,
                       const double *xs, char (*xl)[24], int n_x, const char *xtitle,
                       const char *ytitle)
{
    for (int i = 0; i < n_y; i++) {
        double y = py(p, ys[i]);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
                p->x0, y, p->x0 + p->w, y);
        export_svg_text(f, p->x0 - 6, y + 4, 11, "end", "", yl[i]);
    }
    for (int i = 0; i < n_x; i++)
        export_svg_text(f, px(p, xs[i]), p->y0 + p->h + 16, 11, "middle", "", xl[i]);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
               "stroke=\"" INK "\" stroke-width=\"1\"/>\n", p->x0, p->y0, p->w, p->h);
    export_svg_text(f, p->x0 + p->w / 2, p->y0 + p->h + 34, 12, "middle", "", xtitle);
    char tr[64];
    snprintf(tr, sizeof tr, "transform=\"rotate(-90 %.1f %.1f)\"", p->x0 - 48,
             p->y0 + p->h / 2);
    export_svg_text(f, p->x0 - 48, p->y0 + p->h / 2, 12, "middle", tr, ytitle);
}

/* A polyline through (xs[i], ys[i]) with a marker at each point; dashed when dash. */
static void plot_line(FILE *f, const Plot *p, const double *xs, const double *ys, int n,
                      const char *colour, int dash, const char *cls)
{
    fprintf(f, "<g class=\"%s\">\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s "
               "points=\"", cls, colour, dash ? " stroke-dasharray=\"6 4\"" : "");
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%.1f,%.1f", i ? " " : "", px(p, xs[i]), py(p, ys[i]));
    fputs("\"/>\n", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" data-x=\"%.9g\" "
                   "data-y=\"%.9g\"/>\n", px(p, xs[i]), py(p, ys[i]), colour, xs[i], ys[i]);
    fputs("</g>\n", f);
}

/* A legend entry at (x, y): a short line in the series' style, then its name. */
static void legend(FILE *f, double x, double y, const char *colour, int dash, const char *name)
{
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
               "stroke-width=\"2\"%s/>\n", x, y - 4, x + 28, y - 4, colour,
            dash ? " stroke-dasharray=\"6 4\"" : "");
    export_svg_text(f, x + 34, y, 12, "start", "", name);
}

/* ---- √d_k: the largest weight of softmax against d_k = 1, 2, 4, ... 1024 ---- */
#define N_DK 11 /* d_k = 2^0 .. 2^10 */

/* The d_k of the plot: the powers of two 1..1024 and the widget's own d_k among them (in
 * order) when it is not one. Returns the count (N_DK or N_DK + 1). */
static int scaling_dks(int cur, int *dks)
{
    int n = 0;
    for (int i = 0; i < N_DK; i++) {
        if (cur < (1 << i) && (i == 0 || cur > (1 << (i - 1))))
            dks[n++] = cur;
        dks[n++] = 1 << i;
    }
    return n;
}

/* The experiment at d_k as the player runs it (its seed); the widget's own as shown. */
static int scaling_at(const ScalingDemo *cur, int dk, ScalingDemo *d, char *err,
                      size_t errlen)
{
    if (dk == cur->d_k) {
        *d = *cur;
        return 0;
    }
    if (explain_scaling(d, dk, LIVE_SCALING_SEED, NULL) == 0)
        return 0;
    snprintf(err, errlen, "the scaling experiment failed at d_k %d", dk);
    return -1;
}

static int svg_scaling(FILE *f, const ExportView *v, char *err, size_t errlen)
{
    const ScalingDemo *cur = &v->live->scaling;
    double xs[N_DK + 1], raw[N_DK + 1], scaled[N_DK + 1], ys[5] = {0, 0.25, 0.5, 0.75, 1};
    double xt[N_DK];
    char xl[N_DK][24], yl[5][24];
    int dks[N_DK + 1], np = scaling_dks(cur->d_k, dks);
    for (int i = 0; i < np; i++) {
        ScalingDemo d;
        if (scaling_at(cur, dks[i], &d, err, errlen))
            return -1;
        xs[i] = log2(dks[i]);
        raw[i] = d.max_raw;
        scaled[i] = d.max_scaled;
    }
    for (int i = 0; i < N_DK; i++) {
        xt[i] = i;
        snprintf(xl[i], sizeof xl[i], "%d", 1 << i);
    }
    for (int i = 0; i < 5; i++)
        snprintf(yl[i], sizeof yl[i], "%.2f", ys[i]);
    int w = 2 * MARGIN + 70 + PLOT_W + 40, h = 64 + 30 + PLOT_H + 60 + 40;
    char title[200], sub[300];
    snprintf(title, sizeof title, "\u221ad_k experiment: the largest softmax weight of one "
             "query over %d keys", SCALING_KEYS);
    snprintf(sub, sizeof sub, "q, k ~ N(0,1). At d_k = %d: var(q\u00b7k) = %.2f, "
             "var(q\u00b7k/\u221ad_k) = %.2f; max weight %.2f unscaled, %.2f scaled",
             cur->d_k, cur->var_raw, cur->var_scaled, (double)cur->max_raw,
             (double)cur->max_scaled);
    export_svg_open(f, v, w, h, title);
    export_svg_title(f, title, sub);
    Plot p = {MARGIN + 70, 94, PLOT_W, PLOT_H, -0.3, N_DK - 0.7, 0, 1};
    plot_frame(f, &p, ys, yl, 5, xt, xl, N_DK, "d_k (doubling)", "largest weight");
    double u = 1.0 / SCALING_KEYS; /* uniform: every key the same */
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888888\" "
               "stroke-dasharray=\"2 3\"/>\n", p.x0, py(&p, u), p.x0 + p.w, py(&p, u));
    char s[80];
    snprintf(s, sizeof s, "uniform 1/%d = %.3f", SCALING_KEYS, u);
    export_svg_text(f, p.x0 + p.w - 4, py(&p, u) - 4, 10, "end", "fill=\"#555555\"", s);
    plot_line(f, &p, xs, raw, np, UNSCALED, 1, "unscaled");
    plot_line(f, &p, xs, scaled, np, SCALED, 0, "scaled");
    double ci = log2(cur->d_k);
    fprintf(f, "<line class=\"current\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
               "stroke=\"" INK "\" stroke-width=\"1\" stroke-dasharray=\"1 3\"/>\n",
            px(&p, ci), p.y0, px(&p, ci), p.y0 + p.h);
    snprintf(s, sizeof s, "d_k = %d (the widget's)", cur->d_k);
    export_svg_text(f, px(&p, ci) + (ci > N_DK / 2 ? -4 : 4), p.y0 + 14, 11,
                    ci > N_DK / 2 ? "end" : "start", "", s);
    double ly = p.y0 + p.h + 58;
    legend(f, p.x0, ly, UNSCALED, 1, "unscaled q\u00b7k: sharper as d_k grows");
    legend(f, p.x0 + 290, ly, SCALED, 0, "scaled q\u00b7k/\u221ad_k: stays put");
    fputs("</svg>\n", f);
    return 0;
}

/* ---- cost: N² against N (N/8 .. 2N, doubling, as the widget's bars, and N itself) ---- */
#define MAX_NS 10

static int cost_points(const ExportView *v, long long *ns)
{
    long long n = v->live->cost.n;
    int k = 0, have = 0;
    for (long long x = n / 8 > 0 ? n / 8 : 1; x <= n * 2 && x <= LIVE_N_MAX && k < MAX_NS - 1;
         x *= 2) {
        if (!have && n < x) /* the widget's N between two doublings */
            ns[k++] = n, have = 1;
        if (k == 0 || x != ns[k - 1])
            ns[k++] = x;
        have |= x == n;
    }
    if (!have)
        ns[k++] = n;
    return k;
}

static int svg_cost(FILE *f, const ExportView *v)
{
    const CostPoint *c = &v->live->cost;
    const ModelConfig *mc = &v->model->cfg;
    long long ns[MAX_NS];
    int k = cost_points(v, ns);
    double xs[MAX_NS], ys[MAX_NS], yt[5];
    char xl[MAX_NS][24], yl[5][24], g[48];
    for (int i = 0; i < k; i++) {
        CostPoint cp;
        explain_cost(mc, ns[i], &cp, NULL); /* the engine's count at each N */
        xs[i] = (double)ns[i];
        ys[i] = (double)cp.score_entries;
        snprintf(xl[i], sizeof xl[i], "%lld", ns[i]);
    }
    double top = ys[k - 1];
    for (int i = 0; i < 5; i++) {
        yt[i] = top * i / 4.0;
        group((long long)llround(yt[i]), yl[i], sizeof yl[i]);
    }
    int w = 2 * MARGIN + 90 + PLOT_W + 40, h = 64 + 30 + PLOT_H + 60 + 40;
    char title[200], sub[400], sub2[300], b1[48], b2[48], b3[48];
    snprintf(title, sizeof title, "cost of attention: N = %lld token%s (%d heads, %d layers, "
             "d_k %d)", c->n, c->n == 1 ? "" : "s", mc->n_heads, mc->n_layers, mc->d_head);
    snprintf(sub, sizeof sub, "score matrix per head N\u00b2 = %s %s; the scores of "
             "every head and layer N\u00b2\u00b7h\u00b7L\u00b74 B = %s B",
             group(c->score_entries, g, sizeof g), c->score_entries == 1 ? "entry" : "entries",
             group(c->score_bytes, b1, sizeof b1));
    snprintf(sub2, sizeof sub2, "QK\u1d40: %s multiply-adds (N\u00b2\u00b7d_k\u00b7h\u00b7L) "
             "of a whole forward's %s (%.1f%%)", group(c->qk_macs, b2, sizeof b2),
             group(c->forward_macs, b3, sizeof b3),
             100.0 * (double)c->qk_macs / (double)(c->forward_macs ? c->forward_macs : 1));
    h += 18;
    export_svg_open(f, v, w, h, title);
    export_svg_title(f, title, sub);
    export_svg_text(f, MARGIN, 62, 12, "start", "fill-opacity=\"0.85\"", sub2);
    Plot p = {MARGIN + 90, 112, PLOT_W, PLOT_H, 0, xs[k - 1] * 1.05, 0, top * 1.05};
    /* a point crowding the widget's N (N = 100 beside 96) keeps its marker, not its labels */
    int crowd[MAX_NS];
    for (int i = 0; i < k; i++) {
        crowd[i] = ns[i] != c->n && fabs(px(&p, xs[i]) - px(&p, (double)c->n)) < 36;
        if (crowd[i])
            xl[i][0] = 0;
    }
    plot_frame(f, &p, yt, yl, 5, xs, xl, k, "N (tokens; each step doubles it)",
               "N\u00b2 score entries per head");
    plot_line(f, &p, xs, ys, k, SCALED, 0, "n2");
    for (int i = 0; i < k; i++) {
        int cur = ns[i] == c->n;
        if (crowd[i])
            continue;
        group((long long)ys[i], g, sizeof g);
        export_svg_text(f, px(&p, xs[i]) - 6, py(&p, ys[i]) - 8, cur ? 12 : 10, "end",
                        cur ? "font-weight=\"bold\"" : "fill=\"#555555\"", g);
        if (cur)
            fprintf(f, "<circle class=\"current\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"none\" "
                       "stroke=\"" INK "\" stroke-width=\"1.5\"/>\n", px(&p, xs[i]),
                    py(&p, ys[i]));
    }
    legend(f, p.x0, p.y0 + p.h + 58, SCALED, 0,
           "N\u00b2: doubling N quadruples it (the circle: the widget's N)");
    fputs("</svg>\n", f);
    return 0;
}

/* ---- params: one row per component, its formula, count, share and a bar ---- */
static int svg_params(FILE *f, const ExportView *v)
{
    const LiveWidget *l = v->live;
    const ParamConfig *c = &l->pc;
    int row_h = 26, bar_x = MARGIN + 470, bar_w = 260;
    int w = bar_x + bar_w + 190, h = 80 + (l->n_rows + 1) * row_h + 40;
    char title[200], sub[300], g[48];
    double t = (double)l->total;
    snprintf(title, sizeof title, "parameters of %s: %s (%.2f %s)",
             v->live_name && v->live_name[0] ? v->live_name : "the model",
             group(l->total, g, sizeof g), t >= 1e9 ? t / 1e9 : t >= 1e6 ? t / 1e6 : t / 1e3,
             t >= 1e9 ? "B" : t >= 1e6 ? "M" : "K");
    snprintf(sub, sizeof sub, "d_model %lld, %lld heads (%lld KV) of %lld, %lld layers, d_ff "
             "%lld, vocab %lld, %s, %s%s%s", c->d_model, c->n_heads, c->n_kv_heads, c->d_head,
             c->n_layers, c->d_ff, c->vocab, c->attn_only ? "no FFN" : c->swiglu ? "SwiGLU" : "ReLU/GELU",
             c->rmsnorm ? "RMSNorm" : "LayerNorm", c->bias ? ", FFN biases" : "",
             c->tied ? ", tied embeddings" : "");
    export_svg_open(f, v, w, h, title);
    export_svg_title(f, title, sub);
    int y = 80;
    const char *hb = "font-weight=\"bold\"";
    export_svg_text(f, MARGIN, y, 12, "start", hb, "component");
    export_svg_text(f, MARGIN + 170, y, 12, "start", hb, "formula");
    export_svg_text(f, bar_x - 10, y, 12, "end", hb, "count");
    export_svg_text(f, bar_x, y, 12, "start", hb, "share");
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"" INK "\"/>\n", MARGIN,
            y + 6, w - MARGIN, y + 6);
    for (int i = 0; i < l->n_rows; i++) {
        const ParamRow *r = &l->rows[i];
        double share = t > 0 ? (double)r->count / t : 0.0;
        y += row_h;
        fprintf(f, "<g class=\"row\" data-name=\"");
        export_xml_escape(f, r->name);
        fprintf(f, "\" data-count=\"%lld\">\n", r->count);
        export_svg_text(f, MARGIN, y, 12, "start", "", r->name);
        export_svg_text(f, MARGIN + 170, y, 11, "start", "fill-opacity=\"0.8\"", r->formula);
        export_svg_text(f, bar_x - 10, y, 12, "end", "", group(r->count, g, sizeof g));
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"" SCALED "\"/>\n",
                bar_x, y - 11, share * bar_w);
        char pct[32];
        snprintf(pct, sizeof pct, "%.1f%%", 100.0 * share);
        export_svg_text(f, bar_x + share * bar_w + 6, y, 11, "start", "", pct);
        fputs("</g>\n", f);
    }
    y += 10;
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"" INK "\"/>\n", MARGIN, y,
            w - MARGIN, y);
    y += row_h - 6;
    export_svg_text(f, MARGIN, y, 12, "start", hb, "total");
    export_svg_text(f, bar_x - 10, y, 12, "end", hb, group(l->total, g, sizeof g));
    export_svg_text(f, bar_x, y, 12, "start", "", "100%");
    fputs("</svg>\n", f);
    return 0;
}

int export_svg_live(FILE *f, const ExportView *v, ExportWhat what, char *err, size_t errlen)
{
    if (need_live(v, what, err, errlen))
        return -1;
    switch (what) {
    case EXPORT_SCALING:
        return svg_scaling(f, v, err, errlen);
    case EXPORT_COST:
        return svg_cost(f, v);
    case EXPORT_PARAMS:
        return svg_params(f, v);
    default:
        snprintf(err, errlen, "not an explanation figure: %s", export_what_name(what));
        return -1;
    }
}

int export_csv_live(FILE *f, const ExportView *v, ExportWhat what, char *err, size_t errlen)
{
    if (need_live(v, what, err, errlen))
        return -1;
    const LiveWidget *l = v->live;
    if (what == EXPORT_PARAMS) {
        fputs("component,formula,count,share\n", f);
        for (int i = 0; i < l->n_rows; i++) {
            export_csv_field(f, l->rows[i].name);
            fputc(',', f);
            export_csv_field(f, l->rows[i].formula);
            fprintf(f, ",%lld,%.9g\n", l->rows[i].count,
                    l->total ? (double)l->rows[i].count / (double)l->total : 0.0);
        }
        fprintf(f, "total,,%lld,1\n", l->total);
    } else if (what == EXPORT_COST) {
        long long ns[MAX_NS];
        int k = cost_points(v, ns);
        fputs("n,score_entries,score_bytes,qk_macs,forward_macs\n", f);
        for (int i = 0; i < k; i++) {
            CostPoint cp;
            explain_cost(&v->model->cfg, ns[i], &cp, NULL);
            fprintf(f, "%lld,%lld,%lld,%lld,%lld\n", cp.n, cp.score_entries, cp.score_bytes,
                    cp.qk_macs, cp.forward_macs);
        }
    } else if (what == EXPORT_SCALING) {
        fputs("d_k,var_raw,var_scaled,max_raw,max_scaled,entropy_raw,entropy_scaled\n", f);
        int dks[N_DK + 1], np = scaling_dks(l->scaling.d_k, dks);
        for (int i = 0; i < np; i++) {
            ScalingDemo d;
            if (scaling_at(&l->scaling, dks[i], &d, err, errlen))
                return -1;
            fprintf(f, "%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", d.d_k, d.var_raw, d.var_scaled,
                    (double)d.max_raw, (double)d.max_scaled, d.entropy_raw, d.entropy_scaled);
        }
    } else {
        snprintf(err, errlen, "not an explanation figure: %s", export_what_name(what));
        return -1;
    }
    return 0;
}
