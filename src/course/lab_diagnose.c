/* lab_diagnose.c - the verdict on a learner's answer: every cell against the engine's, the
 * first wrong cell named, and the misconception recognised by matching the answer against
 * the engine run the wrong way (each lab's LabMistake table). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lab.h"

int lab_close(double want, double got)
{
    if (isnan(want) || isnan(got))
        return isnan(want) && isnan(got);
    if (isinf(want) || isinf(got))
        return want == got;
    return fabs(got - want) <= 1e-4 + 1e-4 * fabs(want);
}

static int same_shape(const LabArray *a, const LabArray *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->dim[i] != b->dim[i])
            return 0;
    return 1;
}

/* Index of the first cell where got differs from want, or -1. Shapes equal. */
static long first_diff(const LabArray *want, const LabArray *got)
{
    for (size_t i = 0; i < want->len; i++)
        if (!lab_close(want->v[i], got->v[i]))
            return (long)i;
    return -1;
}

static void shape_text(const LabArray *a, char *out, size_t n)
{
    int k = snprintf(out, n, "(");
    for (int i = 0; i < a->ndim && k > 0 && (size_t)k < n; i++)
        k += snprintf(out + k, n - (size_t)k, i ? ", %d" : "%d", a->dim[i]);
    if (k > 0 && (size_t)k < n)
        snprintf(out + k, n - (size_t)k, a->ndim == 1 ? ",)" : ")");
}

static void cell_text(const LabArray *a, long at, int *cell, char *out, size_t n)
{
    long rest = at;
    for (int i = a->ndim - 1; i >= 0; i--) {
        int d = a->dim[i] ? a->dim[i] : 1;
        cell[i] = (int)(rest % d);
        rest /= d;
    }
    int k = snprintf(out, n, "%s", a->name);
    for (int i = 0; i < a->ndim && k > 0 && (size_t)k < n; i++)
        k += snprintf(out + k, n - (size_t)k, "[%d]", cell[i]);
}

/* 1 if the answer is the mistake's on every case it applies to and differs from the engine's
 * on at least one; -1 out of memory. */
static int matches(const LabMistake *mk, const LabCases *lc, const LabResult *r)
{
    int applied = 0, differs = 0, ok = 1;
    for (int i = 0; ok && i < lc->n_cases; i++) {
        const LabCase *c = &lc->cases[i];
        LabArray outs[LAB_MAX_OUTS];
        memset(outs, 0, sizeof outs);
        int rc = mk->wrong(c, outs);
        if (rc < 0) {
            for (int k = 0; k < LAB_MAX_OUTS; k++)
                lab_array_free(&outs[k]);
            return -1;
        }
        if (rc == 0) {
            applied++;
            const LabGot *g = i < r->n_cases ? &r->got[i] : NULL;
            ok = g && g->ok && g->n_outs == c->n_outs;
            for (int k = 0; ok && k < c->n_outs; k++) {
                ok = same_shape(&outs[k], &g->outs[k]) && first_diff(&outs[k], &g->outs[k]) < 0;
                differs |= ok && first_diff(&c->want[k], &outs[k]) >= 0;
            }
        }
        for (int k = 0; k < LAB_MAX_OUTS; k++)
            lab_array_free(&outs[k]);
    }
    return ok && applied && differs;
}

/* Words for a wrong cell no mistake explains: NaN from an overflow or a fully masked row,
 * a finite stand-in for −∞. */
static void generic_words(const LabCase *c, const LabArray *want, const LabArray *got, long at,
                          char *out, size_t n)
{
    out[0] = '\0';
    double w = want->v[at], g = got->v[at];
    size_t nan = 0;
    for (size_t i = 0; i < got->len; i++)
        nan += isnan(got->v[i]) != 0;
    if (nan == got->len && !isnan(w))
        snprintf(out, n, "Every cell of %s is NaN: nothing was written to it (a C harness "
                         "leaves its cells NaN until your code fills them).", got->name);
    else if (isnan(g) && c->large)
        snprintf(out, n, "NaN where the scores are large: e^x overflowed to infinity and "
                         "∞/∞ is NaN. Subtract each row's max before the exponential.");
    else if (isnan(g) && w == 0.0)
        snprintf(out, n, "NaN where the engine has 0: a row that is masked everywhere gives "
                         "0/0 in a plain softmax. The convention here: its weights are all 0, "
                         "and so is its output.");
    else if (isnan(g))
        snprintf(out, n, "NaN: somewhere 0/0 or ∞ − ∞. Check the exponential and the sum.");
    else if (isinf(w) && w < 0 && isfinite(g) && g < -1e3)
        snprintf(out, n, "A large negative number is not −∞: the mask holds -np.inf itself, "
                         "so that e^(−∞) is exactly 0.");
}

/* The first wrong case's words into v->message. */
static void first_wrong(const LabCases *lc, const LabResult *r, LabVerdict *v)
{
    char sh[64], sh2[64], cell[96], words[400];
    for (int i = 0; i < lc->n_cases; i++) {
        const LabCase *c = &lc->cases[i];
        const LabGot *g = i < r->n_cases ? &r->got[i] : NULL;
        int at = snprintf(v->message, sizeof v->message, "case %d (%s): ", i + 1, c->label);
        char *m = v->message + at;
        size_t room = sizeof v->message - (size_t)at;
        v->wrong_case = i;
        if (!g) {
            snprintf(m, room, "no answer (the harness stopped after %d of %d cases)",
                     r->n_cases, lc->n_cases);
            return;
        }
        if (!g->ok) {
            snprintf(m, room, "%s raised %s", c->func, g->error);
            return;
        }
        if (g->n_outs != c->n_outs) {
            snprintf(m, room, "%s returned %d array%s, expected %d (%s%s%s)", c->func, g->n_outs,
                     g->n_outs == 1 ? "" : "s", c->n_outs, c->want[0].name,
                     c->n_outs > 1 ? ", " : "", c->n_outs > 1 ? c->want[1].name : "");
            return;
        }
        for (int k = 0; k < c->n_outs; k++) {
            const LabArray *w = &c->want[k], *o = &g->outs[k];
            v->wrong_out = k;
            if (!same_shape(w, o)) {
                shape_text(o, sh, sizeof sh);
                shape_text(w, sh2, sizeof sh2);
                snprintf(m, room, "%s has shape %s, expected %s", w->name, sh, sh2);
                return;
            }
            long d = first_diff(w, o);
            if (d < 0)
                continue;
            cell_text(w, d, v->cell, cell, sizeof cell);
            v->expected = w->v[d];
            v->got = o->v[d];
            generic_words(c, w, o, d, words, sizeof words);
            snprintf(m, room, "%s is %.6g, expected %.6g (attend's engine)%s%s", cell, o->v[d],
                     w->v[d], words[0] ? "\n" : "", words);
            return;
        }
    }
    v->wrong_case = -1;
    v->message[0] = '\0';
}

static int case_right(const LabCase *c, const LabGot *g)
{
    if (!g || !g->ok || g->n_outs != c->n_outs)
        return 0;
    for (int k = 0; k < c->n_outs; k++)
        if (!same_shape(&c->want[k], &g->outs[k]) || first_diff(&c->want[k], &g->outs[k]) >= 0)
            return 0;
    return 1;
}

int lab_diagnose(const LabDef *d, const LabCases *lc, const LabResult *r, LabVerdict *v)
{
    memset(v, 0, sizeof *v);
    v->wrong_case = -1;
    for (int i = 0; i < lc->n_cases; i++)
        v->cases_ok += case_right(&lc->cases[i], i < r->n_cases ? &r->got[i] : NULL);
    if (v->cases_ok == lc->n_cases) {
        v->pass = 1;
        return 0;
    }
    first_wrong(lc, r, v);
    for (const LabMistake *mk = d->mistakes; mk && mk->id; mk++) {
        int rc = matches(mk, lc, r);
        if (rc < 0)
            return -1;
        if (rc) {
            v->mistake = mk;
            break;
        }
    }
    return 0;
}
