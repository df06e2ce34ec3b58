/* placeholder_hist.c - the placeholders that replay a model's recorded training history
 * (heads_history_read): {{curve SERIES}} a one-line chart of a series over the steps,
 * {{hist SERIES STEP}} its value at a recorded step, {{phase}} the step of the phase change. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errf.h"
#include "heads.h"
#include "placeholder.h"
#include "safetext.h"

#define CURVE_COLS 40 /* the chart's width in characters */

/* Writes the chart of v[0..n-1] (NANs skipped), each column the mean of its points, scaled
 * from 0 to the series' maximum (at least 1, so scores in 0..1 keep their scale). */
static void curve(const float *v, int n, int ascii, char *out, size_t outlen)
{
    double top = 1.0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > top)
            top = v[i];
    int cols = n < CURVE_COLS ? n : CURVE_COLS;
    size_t k = 0;
    out[0] = 0;
    for (int c = 0; c < cols; c++) {
        int a = c * n / cols, b = (c + 1) * n / cols;
        double s = 0.0;
        int m = 0;
        for (int i = a; i < b; i++)
            if (isfinite(v[i])) {
                s += v[i];
                m++;
            }
        int lvl = m ? (int)lround(s / m / top * 7.0) : 0;
        lvl = lvl < 0 ? 0 : lvl > 7 ? 7 : lvl;
        const char *g = safetext_level_glyph(lvl, ascii);
        size_t gl = strlen(g);
        if (k + gl + 1 > outlen)
            break;
        memcpy(out + k, g, gl);
        k += gl;
        out[k] = 0;
    }
}

/* The history is parsed from the model's training record (JSON text), yet every redraw of a
 * page (and check-lessons' walk, in every state) evaluates its placeholders again: the last
 * model's parsed history is kept, keyed by the model's address, its file and a copy of the
 * record's text (compared whole). One thread evaluates placeholders. */
static struct {
    const Model *m;
    char path[512];
    char *training; /* owned copy; NULL: empty */
    HeadsHistory h;
} hist_memo;

/* The history of m (owned here, valid until the next call), or NULL with a message. */
static const HeadsHistory *history_of(const Model *m, char *err, size_t errlen)
{
    if (hist_memo.training && hist_memo.m == m && m->training &&
        !strcmp(hist_memo.path, m->path) && !strcmp(hist_memo.training, m->training))
        return &hist_memo.h;
    if (hist_memo.training) {
        heads_history_free(&hist_memo.h);
        free(hist_memo.training);
        hist_memo.training = NULL;
    }
    HeadsHistory h;
    if (heads_history_read(m, &h, err, errlen))
        return NULL;
    char *copy = strdup(m->training); /* read succeeded: the record exists */
    if (!copy) {
        heads_history_free(&h);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    hist_memo.m = m;
    snprintf(hist_memo.path, sizeof hist_memo.path, "%s", m->path);
    hist_memo.training = copy;
    hist_memo.h = h;
    return &hist_memo.h;
}

int placeholder_history(int ac, char **av, int prec, const PlaceholderCtx *ctx, char *out,
                        size_t outlen, char *err, size_t errlen)
{
    (void)ac; /* placeholder.c checked the count against its table */
    const Model *m = ctx->model;
    if (!m)
        return errf(err, errlen, "no model");
    char e2[300];
    const HeadsHistory *hp = history_of(m, e2, sizeof e2);
    if (!hp)
        return errf(err, errlen, "%s", e2);
    const HeadsHistory h = *hp; /* borrowed */
    int rc = 0;
    if (!strcmp(av[0], "phase")) {
        int s = heads_history_phase(&h);
        if (s < 0)
            rc = errf(err, errlen, "the second-copy loss never fell below half its start");
        else
            snprintf(out, outlen, "%d", s);
        return rc;
    }
    float *v = malloc(sizeof(float) * (size_t)h.n);
    if (!v)
        return errf(err, errlen, "out of memory");
    if (heads_history_series(&h, m, av[1], v, e2, sizeof e2)) {
        rc = errf(err, errlen, "%s", e2);
    } else if (!strcmp(av[0], "curve")) {
        curve(v, h.n, ctx->ascii, out, outlen);
    } else { /* hist SERIES STEP: the value at that recorded step, or "last" */
        int j = -1;
        if (!strcmp(av[2], "last"))
            j = h.n - 1;
        else
            for (int i = 0; i < h.n; i++)
                if (h.step[i] == atoi(av[2]) && av[2][strspn(av[2], "0123456789")] == 0)
                    j = i;
        if (j < 0)
            rc = errf(err, errlen, "step \"%s\" was not recorded (every %d steps, %d..%d, or "
                      "last)", av[2], h.n > 1 ? h.step[1] - h.step[0] : 0, h.step[0],
                      h.step[h.n - 1]);
        else if (!isfinite(v[j]))
            rc = errf(err, errlen, "%s was not measured at step %d", av[1], h.step[j]);
        else
            snprintf(out, outlen, "%.*f", prec < 0 ? 2 : prec, (double)v[j]);
    }
    free(v);
    return rc;
}
