/* lab_diagnose.c - the verdict on a learner's answer: every cell against the engine's, the
 * first wrong cell named, the inputs a function changed in place, and the misconceptions
 * recognised: for each function that fails, every row of the catalogue (lab_catalogue.c) is
 * run on its cases and the one the answer matches, when it is the only one, is named (then
 * pairs of rows, for two mistakes at once). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_util.h"
#include "lab_way.h"

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

static int case_right(const LabCase *c, const LabGot *g);

/* How the way fits the learner's answers on the cases of func (only case `only` when it is
 * 0 or more): match, when the answer equals the way's outputs on every case the way applies
 * to, at least one of them failing, and the way differs from the engine's somewhere;
 * relevant, when the way differs from the engine's somewhere. 0, or -1 out of memory. */
typedef struct {
    int match, relevant, applied;
} Fit;
static int fit(const LabDef *d, const LabCases *lc, const LabResult *r, const char *func,
               const LabWay *w, int only, Fit *f)
{
    int applied_fail = 0, ok = 1;
    f->match = f->relevant = f->applied = 0;
    for (int i = 0; i < lc->n_cases; i++) {
        const LabCase *c = &lc->cases[i];
        if (strcmp(c->func, func) || (only >= 0 && i != only))
            continue;
        LabArray outs[LAB_MAX_OUTS];
        memset(outs, 0, sizeof outs);
        int rc = lab_way_run(d->name, w, c, outs);
        if (rc == 0) {
            const LabGot *g = i < r->n_cases ? &r->got[i] : NULL;
            f->applied++;
            applied_fail += !case_right(c, g);
            int same = g && g->ok && g->n_outs == c->n_outs;
            for (int k = 0; k < c->n_outs; k++) {
                f->relevant |= first_diff(&c->want[k], &outs[k]) >= 0;
                same = same && same_shape(&outs[k], &g->outs[k]) &&
                       first_diff(&outs[k], &g->outs[k]) < 0;
            }
            ok &= same;
        }
        for (int k = 0; k < LAB_MAX_OUTS; k++)
            lab_array_free(&outs[k]);
        if (rc < 0)
            return -1;
    }
    f->match = ok && applied_fail && f->relevant;
    return 0;
}

/* Adds mk to the verdict's list unless its id is there. */
static void found_add(LabVerdict *v, const LabMistake *mk)
{
    for (int i = 0; i < v->n_found; i++)
        if (!strcmp(v->found[i]->id, mk->id))
            return;
    if (v->n_found < LAB_MAX_FOUND)
        v->found[v->n_found++] = mk;
}

/* The distinct ids among rows (n of them), their count. */
static int distinct(const LabMistake *const *rows, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= !strcmp(rows[i]->id, rows[j]->id);
        k += !seen;
    }
    return k;
}

#define MAX_ROWS 96

/* The misconceptions of function func (its first failing case: fail): a single row of the
 * catalogue the answer matches, when its id is the only one; else a pair of rows, when one
 * pair (by ids) is the only one. Ambiguous ids go to v->maybe. 0, or -1 out of memory. */
static int diagnose_func(const LabDef *d, const LabCases *lc, const LabResult *r,
                         const char *func, int fail, LabVerdict *v)
{
    const LabMistake *hit[MAX_ROWS], *rel[MAX_ROWS];
    int nhit = 0, nrel = 0;
    Fit f;
    for (const LabMistake *mk = LAB_CATALOGUE; mk->id; mk++) {
        if (!lab_mistake_usable(d, mk))
            continue;
        /* the smallest failing case first: most rows part there, cheaply; a row that does
         * not apply to it (its shapes) is tried on every case */
        if (fit(d, lc, r, func, &mk->way, fail, &f))
            return -1;
        if ((f.match || !f.applied) && fit(d, lc, r, func, &mk->way, -1, &f))
            return -1;
        if (f.match && nhit < MAX_ROWS)
            hit[nhit++] = mk;
    }
    if (nhit && distinct(hit, nhit) == 1) {
        found_add(v, hit[0]);
        return 0;
    }
    if (nhit) {
        for (int i = 0; i < nhit; i++) {
            size_t k = strlen(v->maybe);
            if (!strstr(v->maybe, hit[i]->id) && k + strlen(hit[i]->id) + 3 < sizeof v->maybe)
                snprintf(v->maybe + k, sizeof v->maybe - k, "%s%s", k ? ", " : "", hit[i]->id);
        }
        return 0;
    }
    /* two mistakes at once: the rows that change this function's values somewhere */
    for (const LabMistake *mk = LAB_CATALOGUE; mk->id; mk++) {
        if (!lab_mistake_usable(d, mk))
            continue;
        if (fit(d, lc, r, func, &mk->way, -1, &f))
            return -1;
        if (f.relevant && nrel < MAX_ROWS)
            rel[nrel++] = mk;
    }
    const LabMistake *pa = NULL, *pb = NULL;
    int pairs = 0;
    for (int i = 0; i < nrel && pairs < 2; i++)
        for (int j = i + 1; j < nrel && pairs < 2; j++) {
            LabWay w;
            if (!strcmp(rel[i]->id, rel[j]->id) || lab_way_join(&rel[i]->way, &rel[j]->way, &w))
                continue;
            if (fit(d, lc, r, func, &w, fail, &f))
                return -1;
            if (!f.match && f.applied)
                continue;
            if (fit(d, lc, r, func, &w, -1, &f))
                return -1;
            if (f.match && !(pa && ((!strcmp(pa->id, rel[i]->id) && !strcmp(pb->id, rel[j]->id)) ||
                                    (!strcmp(pa->id, rel[j]->id) && !strcmp(pb->id, rel[i]->id))))) {
                pairs++;
                pa = rel[i];
                pb = rel[j];
            }
        }
    if (pairs == 1) {
        found_add(v, pa);
        found_add(v, pb);
    }
    return 0;
}

/* Words for a wrong cell no mistake explains: NaN from an overflow or a fully masked row,
 * a finite stand-in for −∞. */
static void generic_words(const LabCase *c, const LabArray *want, const LabArray *got, long at,
                          int lang_c, char *out, size_t n)
{
    out[0] = '\0';
    double w = want->v[at], g = got->v[at];
    size_t nan = 0;
    for (size_t i = 0; i < got->len; i++)
        nan += isnan(got->v[i]) != 0;
    if (isnan(g) && c->large)
        snprintf(out, n, "NaN where the scores are large: e^x overflowed to infinity and "
                         "∞/∞ is NaN. Subtract each row's max before the exponential.");
    else if (nan == got->len && !isnan(w) && lang_c)
        snprintf(out, n, "Every cell of %s is NaN: nothing was written to it (the C harness "
                         "leaves its cells NaN until your code fills them).", got->name);
    else if (isnan(g) && w == 0.0)
        snprintf(out, n, "NaN where the engine has 0: a row that is masked everywhere gives "
                         "0/0 (or −∞ − (−∞)) in a plain softmax. The convention here: its "
                         "weights are all 0, and so is its output.");
    else if (isnan(g))
        snprintf(out, n, "NaN: somewhere 0/0, ∞ − ∞ or ∞/∞. Check the exponential and the "
                         "sum.");
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
            generic_words(c, w, o, d, r->lang_c, words, sizeof words);
            snprintf(m, room, "%s is %.6g, expected %.6g (attend's engine)%s%s", cell, o->v[d],
                     w->v[d], words[0] ? "\n" : "", words);
            return;
        }
        if (g->mutated[0]) {
            snprintf(m, room, "%s changed its argument%s %s in place: the caller's arrays are "
                     "not yours to change (compute into new arrays, or copy first: "
                     "X = X.copy())", c->func, strchr(g->mutated, ' ') ? "s" : "", g->mutated);
            return;
        }
    }
    v->wrong_case = -1;
    v->message[0] = '\0';
}

static int case_right(const LabCase *c, const LabGot *g)
{
    if (!g || !g->ok || g->n_outs != c->n_outs || g->mutated[0])
        return 0;
    for (int k = 0; k < c->n_outs; k++)
        if (!same_shape(&c->want[k], &g->outs[k]) || first_diff(&c->want[k], &g->outs[k]) >= 0)
            return 0;
    return 1;
}

int lab_mistake_applies(const LabDef *d, const LabCases *lc, const LabMistake *mk)
{
    if (!lab_mistake_usable(d, mk))
        return 0;
    int differs = 0;
    for (int i = 0; !differs && i < lc->n_cases; i++) {
        const LabCase *c = &lc->cases[i];
        LabArray outs[LAB_MAX_OUTS];
        memset(outs, 0, sizeof outs);
        int rc = lab_way_run(d->name, &mk->way, c, outs);
        for (int k = 0; rc == 0 && k < c->n_outs; k++)
            differs |= !same_shape(&c->want[k], &outs[k]) || first_diff(&c->want[k], &outs[k]) >= 0;
        for (int k = 0; k < LAB_MAX_OUTS; k++)
            lab_array_free(&outs[k]);
        if (rc < 0)
            return -1;
    }
    return differs;
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
    /* each function that fails, in the order of its first failing case */
    for (int i = 0; i < lc->n_cases; i++) {
        const LabCase *c = &lc->cases[i];
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= !strcmp(lc->cases[j].func, c->func) &&
                    !case_right(&lc->cases[j], j < r->n_cases ? &r->got[j] : NULL);
        if (seen || case_right(c, i < r->n_cases ? &r->got[i] : NULL))
            continue;
        /* the rows are tried on the smallest failing case of the function that answered */
        int small = i;
        for (int j = i; j < lc->n_cases; j++) {
            const LabGot *g = j < r->n_cases ? &r->got[j] : NULL;
            const LabGot *gs = small < r->n_cases ? &r->got[small] : NULL;
            if (!strcmp(lc->cases[j].func, c->func) && !case_right(&lc->cases[j], g) && g &&
                g->ok && (!gs || !gs->ok || lc->cases[j].want[0].len <
                                                lc->cases[small].want[0].len))
                small = j;
        }
        if (diagnose_func(d, lc, r, c->func, small, v))
            return -1;
    }
    v->mistake = v->n_found ? v->found[0] : NULL;
    return 0;
}
