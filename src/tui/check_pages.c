/* check_pages.c - check-lessons' walk through the player (tui_check_pages): every page opened
 * in a headless App, its control keys pressed one at a time and in a row, and on pages with a
 * sentence editor random sentences typed in (word salads from the model's vocabulary and, every
 * other one, a real sentence of data/everyday.txt); after each, the screen is laid out by
 * layout_plan (the function the player draws with) and the prose as the player expanded it is
 * searched for an unresolved placeholder or a failed guard. Problems go to the course's list
 * as file:line:col. No drawing: curses is only told the screen size. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_key.h"
#include "app_views.h"
#include "datapath.h"
#include "fileio.h"
#include "layout.h"
#include "lesson_check.h"
#include "lesson_guard.h"
#include "mtable.h"
#include "tui.h"
#include "view_matrix.h"

/* The keys a page may offer (the footer's controls), as tests/e2e/test_fit.sh presses them.
 * Left out: e/E (typed separately), z, x (writes a file), w (writes a model), q, Q, Tab. */
static const char CHECK_KEYS[] = "mdsvahHlLpnNtg+-][r";
#define CHECK_PRESSES 3 /* each key alone: pressed up to 3 times (p cycles four encodings) */

typedef struct {
    Course *report;
    int cols, lines;
    int li, pi;
    int over_prose, over_widget, n_ph; /* problems already reported on this page */
    int over_toggle, over_cited;
    int longer;    /* the typed sentence is longer than the page's own: its widget may scroll */
    size_t ph_off[8];
    int problems, oom;
} Walk;

static void report(Walk *w, const char *msg)
{
    w->problems++;
    if (lesson_check_page_problem(w->report, w->li, w->pi, msg))
        w->oom = 1;
}

/* A cell the prose cites ({{value NAME i j}} of the tensor the matrix widget shows) that the
 * table does not show at this size unscrolled: the learner cannot find it. Once per page. */
static void check_cited(Walk *w, App *a, const LayoutPlan *lp, const char *what)
{
    const Page *p = app_page(a);
    if (w->over_cited || !p || !p->prose || !a->s->ran || !a->s->w || a->s->w->kind != W_MATRIX)
        return;
    const TraceEntry *e = trace_find_name(a->s->t, matrix_view_tensor(a));
    if (!e)
        return;
    int vr, vc;
    mtable_visible(a, e, lp->widget.w, lp->widget.h - matrix_head_rows(a, e, lp->widget.w), &vr,
                   &vc);
    for (const char *s = strstr(p->prose, "{{value "); s; s = strstr(s + 2, "{{value ")) {
        char name[64];
        int i, j;
        if (sscanf(s, "{{value %63s %d %d", name, &i, &j) != 3 || strcmp(name, matrix_view_tensor(a)))
            continue;
        if (i < vr && j < vc)
            continue;
        char msg[600];
        w->over_cited = 1;
        snprintf(msg, sizeof msg, "%s the prose cites %s(%d, %d), but at %dx%d the table shows "
                 "rows 0-%d and columns 0-%d of it: cite a cell on screen", what, name, i, j,
                 w->cols, w->lines, vr - 1, vc - 1);
        w->problems++;
        if (lesson_check_prose_problem(w->report, w->li, w->pi, (size_t)(s - p->prose), msg))
            w->oom = 1;
        return;
    }
}

/* The screen laid out as the player draws it in UTF-8 (*utf) and with the ASCII fallback
 * (*asc; LANG=C: "-inf", "->", "sqrt" are wider than their glyphs). */
static void plan_both(App *a, int cols, int lines, LayoutPlan *utf, LayoutPlan *asc)
{
    static char prose[SESSION_PROSE_MAX];
    layout_plan(a, cols, lines, utf);
    memcpy(prose, a->s->prose, sizeof prose);
    ui.utf8 = 0; /* the prose as the player transliterates it (app.c expand_prose) */
    ui_text(prose, a->s->prose, sizeof a->s->prose);
    layout_plan(a, cols, lines, asc);
    ui.utf8 = 1;
    memcpy(a->s->prose, prose, sizeof prose);
}

/* The worse of an overflow u (UTF-8) and s (ASCII); *note says when only ASCII has it. */
static int worst(int u, int s, const char **note)
{
    *note = u <= 0 && s > 0 ? " with the ASCII glyphs (LANG=C)" : "";
    return u > s ? u : s;
}

/* Closes what a key opened (the tensor picker) and checks the screen; what names the state
 * ("after m p", "with \"the cat\" typed (e), after m"). Each kind of problem is reported once
 * per page (once per placeholder). */
static void check_now(Walk *w, App *a, const char *what)
{
    char msg[900];
    if (a->overlay)
        app_overlay_close(a);
    LayoutPlan lp, asc;
    const char *note;
    plan_both(a, w->cols, w->lines, &lp, &asc);
    int over = worst(lp.prose_over, asc.prose_over, &note);
    if (over > 0 && !w->over_prose) {
        w->over_prose = 1;
        snprintf(msg, sizeof msg, "does not fit %dx%d %s%s: the prose is %d line%s over (the "
                 "player says \"more below\")", w->cols, w->lines, what, note, over,
                 over == 1 ? "" : "s");
        report(w, msg);
    }
    over = worst(lp.widget_over, asc.widget_over, &note);
    if (over > 0 && !w->over_widget) {
        w->over_widget = 1;
        snprintf(msg, sizeof msg, "does not fit %dx%d %s%s: the widget is %d row%s short (the "
                 "player says \"more rows of the widget\")", w->cols, w->lines, what, note, over,
                 over == 1 ? "" : "s");
        report(w, msg);
    }
    over = worst(lp.widget_hidden, asc.widget_hidden, &note);
    if (over > 0 && !w->over_widget && !w->longer) {
        w->over_widget = 1;
        snprintf(msg, sizeof msg, "does not fit %dx%d %s%s: the %s widget has %d row%s out of "
                 "sight: shorten the prose or the sentence", w->cols, w->lines, what, note,
                 app_cur_view(a)->name, over, over == 1 ? "" : "s");
        report(w, msg);
    }
    check_cited(w, a, &lp, what);
    if (!strstr(a->s->prose, PLACEHOLDER_BAD_OPEN))
        return;
    PlaceholderFail f[4];
    int n = app_prose_fails(a, f, 4);
    for (int i = 0; i < n && i < 4; i++) {
        int seen = 0;
        for (int k = 0; k < w->n_ph; k++)
            seen |= w->ph_off[k] == f[i].off;
        if (seen || w->n_ph >= (int)(sizeof w->ph_off / sizeof w->ph_off[0]))
            continue;
        w->ph_off[w->n_ph++] = f[i].off;
        snprintf(msg, sizeof msg, "%s %s", what, f[i].msg);
        w->problems++;
        if (lesson_check_prose_problem(w->report, w->li, w->pi, f[i].off, msg))
            w->oom = 1;
    }
}

static void press(App *a, int k)
{
    app_key(a, k);
    if (a->overlay && a->overlay->keymap != KM_EDIT)
        app_overlay_close(a);
}

/* A small deterministic generator (the same problems on every run). */
static unsigned next_rand(unsigned *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* A random sentence of 1..max words of m's vocabulary (no special tokens) into out; exactly
 * max words when exact is 1. */
static void random_sentence(const Model *m, int max, int exact, unsigned *seed, char *out,
                            size_t n)
{
    int words = exact ? max : 1 + (int)(next_rand(seed) % (unsigned)(max > 0 ? max : 1));
    out[0] = 0;
    for (int i = 0; i < words; i++) {
        const char *wd;
        do
            wd = vocab_word(&m->vocab, (int)(next_rand(seed) % (unsigned)m->vocab.n));
        while (!wd || wd[0] == '<');
        size_t l = strlen(out);
        if (l + strlen(wd) + 2 >= n)
            break;
        snprintf(out + l, n - l, "%s%s", l ? " " : "", wd);
    }
}

/* The everyday sentences (data/everyday.txt, '#' lines skipped): n of them in lines, pointing
 * into *text (the caller frees both). 0 sentences when the file cannot be read. */
static int everyday_load(char **text, char ***lines)
{
    char path[1024], err[300];
    size_t len;
    int n = 0;
    *lines = NULL;
    data_path(DATA_EVERYDAY, path, sizeof path);
    if (fileio_read(path, (size_t)1 << 20, text, &len, err, sizeof err)) {
        *text = NULL;
        return 0;
    }
    for (char *p = *text; *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        if (*p && *p != '#' && strlen(p) < 200) {
            char **nw = realloc(*lines, sizeof *nw * (size_t)(n + 1));
            if (!nw)
                break;
            *lines = nw;
            (*lines)[n++] = p;
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    return n;
}

/* Types s into the editor that key (e or E) opens, as a learner would. 1 if it was taken. */
static int type_sentence(App *a, int key, const char *s)
{
    app_key(a, key);
    if (!a->overlay)
        return 0;
    app_key(a, KEY_CTRL('u'));
    for (const char *c = s; *c; c++)
        app_key(a, (unsigned char)*c);
    app_key(a, '\r');
    if (a->overlay) { /* refused (it says why): not the check's concern */
        app_overlay_close(a);
        return 0;
    }
    return 1;
}

/* The toggles whose numbers a sentence must name: masks, encoding, scaling, tying, GQA,
 * greedy/sampling (the keys that switch a state, not those that step through one). */
static const char TOGGLE_KEYS[] = "mdpstg";

/* After toggle k from the page's start: a sentence whose numbers changed and words did not
 * claims a number without naming the state it depends on. Reported once per page. */
static void check_toggle(Walk *w, App *a, const char *before, int k)
{
    static char s[1200], was[1200];
    char msg[900];
    if (w->over_toggle || !strchr(TOGGLE_KEYS, k) ||
        !lesson_guard_numbers(before, a->s->prose, s, sizeof s, was, sizeof was))
        return;
    w->over_toggle = 1;
    snprintf(msg, sizeof msg, "after %c the numbers of \"%.160s\" change (was \"%.160s\") but "
             "not its words: name the state it assumes ({{mask}}, {{pe}}, {{scale}}, {{x ...}}) "
             "or guard it with {{if}}", k, s, was);
    report(w, msg);
}

/* Every key alone from the page's start, pressed up to CHECK_PRESSES times. */
static void walk_keys(Walk *w, App *a)
{
    char what[700];
    static char before[SESSION_PROSE_MAX];
    for (const char *k = CHECK_KEYS; *k; k++) {
        app_open(a, w->li, w->pi);
        snprintf(before, sizeof before, "%s", a->s->prose);
        for (int i = 0; i < CHECK_PRESSES; i++) {
            press(a, *k);
            if (i == 0)
                check_toggle(w, a, before, *k);
            snprintf(what, sizeof what, "after %c%s", *k,
                     i ? (i == 1 ? " twice" : " three times") : "");
            check_now(w, a, what);
        }
    }
}

/* Every key in a row from the current state; prefix says how it was reached. */
static void walk_row(Walk *w, App *a, const char *prefix)
{
    char what[700], seq[64] = "";
    for (const char *k = CHECK_KEYS; *k; k++) {
        press(a, *k);
        size_t l = strlen(seq);
        snprintf(seq + l, sizeof seq - l, "%s%c", l ? " " : "", *k);
        snprintf(what, sizeof what, "%safter %s", prefix, seq);
        check_now(w, a, what);
    }
}

/* One page: its start, each key, the row of keys, and samples random sentences (every other
 * one an everyday sentence, when there are any; every fourth as many words as the page's own
 * sentence has tokens). A typed sentence longer than the page's own may make a heatmap or a
 * table scroll (the learner chose it; the editor says how many rows show): only the screens
 * of sentences at most as long must show the widget whole. */
static void walk_page(Walk *w, App *a, int samples, unsigned *seed, char **everyday, int n_ev)
{
    app_open(a, w->li, w->pi);
    check_now(w, a, "on its first screen");
    walk_keys(w, a);
    app_open(a, w->li, w->pi);
    walk_row(w, a, "");
    if (!(a->s->allowed & C_EDIT) || !a->s->model)
        return;
    const Model *m = a->s->model;
    int max = m->cfg.max_len < APP_MAX_TOK ? m->cfg.max_len : APP_MAX_TOK;
    int own[2] = {a->s->n_src, a->s->n_tgt}; /* the page's own sentence and decoder sentence */
    for (int i = 0; i < samples; i++) {
        char s[256], prefix[400], first[500];
        int key = m->cfg.arch == ARCH_ENCDEC && (i & 1) ? 'E' : 'e', t = key == 'E';
        /* every fourth sample is short (1 to 6 words): the sentences that break a guard on
         * {{token 5}} and the like; every fourth as long as the page's own; the everyday
         * sentences are all longer */
        if ((i & 3) == 1 && own[t] > 0)
            random_sentence(m, own[t] < max ? own[t] : max, 1, seed, s, sizeof s);
        else
            random_sentence(m, (i & 3) == 0 && max > 6 ? 6 : max, 0, seed, s, sizeof s);
        if (n_ev && (i & 2))
            snprintf(s, sizeof s, "%s", everyday[next_rand(seed) % (unsigned)n_ev]);
        app_open(a, w->li, w->pi);
        if (!type_sentence(a, key, s))
            continue;
        w->longer = (t ? a->s->n_tgt : a->s->n_src) > own[t];
        snprintf(prefix, sizeof prefix, "with \"%s\" typed (%c), ", s, key);
        snprintf(first, sizeof first, "%son its first screen", prefix);
        check_now(w, a, first);
        walk_row(w, a, prefix);
        w->longer = 0;
    }
}

int tui_check_pages(Course *report, const char *dir, int cols, int lines, int samples)
{
    char err[1024];
    App *a = app_new();
    if (!a)
        return -1;
    if (lesson_load_dir(&a->s->course, dir, err, sizeof err) ||
        a->s->course.n_lessons != report->n_lessons) {
        app_delete(a);
        return -1;
    }
    a->s->prog_ok = 0; /* checking never touches the learner's progress */
    int sc = COLS, sl = LINES, su = ui.utf8;
    UiColorMode scol = ui.color;
    /* the keys are dispatched as on a screen of this size (app_key reads it); nothing is
     * drawn. The player draws UTF-8 glyphs, whose widths the layout measures, in colour (the
     * heatmap's legend is widest then: two columns a ramp step) */
    COLS = cols;
    LINES = lines;
    ui.utf8 = 1;
    ui.color = UI_COLOR_256;
    unsigned seed = 0x2545F491u;
    char *ev_text, **everyday;
    int n_ev = everyday_load(&ev_text, &everyday);
    Walk w = {.report = report, .cols = cols, .lines = lines};
    for (int li = 0; li < a->s->course.n_lessons && !w.oom; li++) {
        /* a lesson with problems already reported is walked once it is fixed */
        int known = a->s->course.lessons[li].broken;
        for (int i = 0; i < report->n_problems; i++)
            known |= report->problems[i].lesson == li;
        if (known)
            continue;
        for (int pi = 0; pi < a->s->course.lessons[li].n_pages && !w.oom; pi++) {
            w.li = li;
            w.pi = pi;
            w.over_prose = w.over_widget = w.n_ph = w.over_toggle = w.over_cited = 0;
            walk_page(&w, a, samples, &seed, everyday, n_ev);
        }
    }
    COLS = sc;
    LINES = sl;
    ui.utf8 = su;
    ui.color = scol;
    free(everyday);
    free(ev_text);
    app_delete(a);
    return w.oom ? -1 : w.problems;
}
