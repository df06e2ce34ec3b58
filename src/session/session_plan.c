/* session_plan.c - a lecture plan as a sequence of Session steps (session_plan.h): the step
 * runner both the presenter and the headless run (attend demo --plain, --check) share, the
 * state a step declares it expects, and the mark a caption is bound to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "quiz.h"
#include "session_plan.h"

/* ---- the mark ---- */

/* FNV-1a over n bytes, from h. */
static unsigned long long fnv(unsigned long long h, const void *v, size_t n)
{
    const unsigned char *b = v;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

#define MIX(h, x) do { long long v_ = (long long)(x); h = fnv(h, &v_, sizeof v_); } while (0)

void session_mark(const Session *s, SessionMark *m)
{
    unsigned long long h = 1469598103934665603ull;
    m->lesson = s->lesson;
    m->page = s->page;
    MIX(h, s->ctl.causal); MIX(h, s->ctl.padding); MIX(h, s->ctl.pe); MIX(h, s->ctl.scale);
    for (int l = 0; l < ATTEND_MAX_LAYERS; l++)
        MIX(h, s->ctl.ablate[l]);
    for (int i = 0; i < s->n_src && i < SESSION_MAX_TOK; i++)
        MIX(h, s->order[i]);
    MIX(h, s->layer); MIX(h, s->head); MIX(h, s->cross); MIX(h, s->scores);
    MIX(h, s->all_heads);
    h = fnv(h, s->sentence, strlen(s->sentence) + 1);
    h = fnv(h, s->target, strlen(s->target) + 1);
    const LiveState *l = &s->live.s;
    MIX(h, l->causal); MIX(h, l->scale); MIX(h, l->step); MIX(h, l->d_k); MIX(h, l->n);
    MIX(h, l->tied); MIX(h, l->gqa); MIX(h, l->sample); MIX(h, l->temp * 1000); MIX(h, l->seed);
    m->sig = h;
}

void session_mark_mix(SessionMark *m, long long v)
{
    m->sig = fnv(m->sig, &v, sizeof v);
}

int session_mark_same(const SessionMark *x, const SessionMark *y)
{
    return x->lesson == y->lesson && x->page == y->page && x->sig == y->sig;
}

const char *session_plan_caption(const PlanState *ps, const SessionMark *now)
{
    if (!ps || !ps->cap_on || !ps->caption[0])
        return NULL;
    return session_mark_same(now, &ps->mark) ? ps->caption : NULL;
}

/* ---- the state a step expects ---- */

static void list_words(char *out, size_t n, const int *v, int k);
static void knocked_words(char *out, size_t n, const uint64_t *v);
static int scalar(const Session *s, int k, int expl, int focus, double *v);

const char *session_plan_state_words(const Session *s, char *out, size_t n)
{
    const Page *pg = session_page(s);
    size_t o = 0;
    if (!pg) {
        snprintf(out, n, "no page");
        return out;
    }
    o += (size_t)snprintf(out, n, "page %s:%d", s->course.lessons[s->lesson].id, s->page + 1);
    int expl = s->w && course_kind_is_explain(s->w->kind);
    int model = s->model && !expl && session_kind(s) != W_NONE; /* the page shows the model */
    if (model && o < n)
        o += (size_t)snprintf(out + o, n - o, ", mask %s, PE %s, layer %d, head %d",
                              names_mask(s->ctl.causal, s->ctl.padding),
                              model_pe_name(s->ctl.pe), s->layer, s->head);
    if (s->sentence[0] && o < n)
        o += (size_t)snprintf(out + o, n - o, ", sentence \"%s\"", s->sentence);
    int moved = 0;
    for (int k = 0; k < s->n_src && k < SESSION_MAX_TOK; k++)
        moved |= s->order[k] != k;
    char w[300];
    if (moved && o < n) {
        list_words(w, sizeof w, s->order, s->n_src);
        o += (size_t)snprintf(out + o, n - o, ", order %s", w);
    }
    knocked_words(w, sizeof w, s->ctl.ablate);
    if (model && strcmp(w, "none") && o < n)
        o += (size_t)snprintf(out + o, n - o, ", knocked out %s", w);
    if (model && s->all_heads && o < n)
        o += (size_t)snprintf(out + o, n - o, ", all heads");
    if (model && s->scores && o < n)
        o += (size_t)snprintf(out + o, n - o, ", scores");
    for (int k = 0; expl && k < DX__COUNT && o < n; k++) { /* the explanation widget's */
        double v;
        int kind;
        const char *name = demo_expect_name(k, &kind);
        if (k != DX_SCORES && k != DX_ALL_HEADS && k != DX_FOCUS && scalar(s, k, 1, -1, &v))
            o += (size_t)(kind == 0 ? snprintf(out + o, n - o, ", %s %s", name, v ? "on" : "off")
                                    : snprintf(out + o, n - o, ", %s %g", name, v));
    }
    return out;
}

/* Appends one "expect" mismatch ("; " between them). */
static void add(char *buf, size_t n, const char *fmt, const char *a, const char *b)
{
    size_t l = strlen(buf);
    if (l + 4 < n)
        snprintf(buf + l, n - l, fmt, a, b);
}

/* "1 0 2 3" */
static void list_words(char *out, size_t n, const int *v, int k)
{
    size_t o = 0;
    out[0] = '\0';
    for (int j = 0; j < k && o + 12 < n; j++)
        o += (size_t)snprintf(out + o, n - o, "%s%d", j ? " " : "", v[j]);
}

/* "layer 0 head 1, layer 1 head 3" or "none". */
static void knocked_words(char *out, size_t n, const uint64_t *v)
{
    size_t o = 0;
    snprintf(out, n, "none");
    for (int l = 0; l < ATTEND_MAX_LAYERS; l++)
        for (int h = 0; h < 64; h++)
            if (((v[l] >> h) & 1u) && o + 30 < n)
                o += (size_t)snprintf(out + o, n - o, "%slayer %d head %d", o ? ", " : "", l, h);
}

/* The Session's value of "expect" scalar k (demo.h) in *v; expl: the page's widget is an
 * explanation widget; focus: the front end's focused pane (-1: none). 0 when the page has no
 * such setting. */
static int scalar(const Session *s, int k, int expl, int focus, double *v)
{
    const LiveState *l = &s->live.s;
    WidgetKind w = session_kind(s);
    switch (k) {
    case DX_SCORES: *v = s->scores; return s->model != NULL;
    case DX_ALL_HEADS: *v = s->all_heads; return s->model != NULL;
    case DX_SCALE: *v = expl ? l->scale : s->ctl.scale; return w == W_WORKED || w == W_SCALING ||
                                                               (!expl && s->model);
    case DX_STEP: *v = expl ? l->step : s->step;
        return w == W_WORKED || w == W_KVCACHE || w == W_GENERATE || (s->allowed & C_STEP);
    case DX_D_K: *v = l->d_k; return w == W_SCALING;
    case DX_N: *v = (double)l->n; return w == W_COST;
    case DX_TIED: *v = l->tied; return w == W_PARAMS;
    case DX_GQA: *v = l->gqa; return w == W_PARAMS;
    case DX_SAMPLE: *v = l->sample; return w == W_GENERATE;
    case DX_TEMP: *v = (double)(float)l->temp; return w == W_GENERATE;
    case DX_SEED: *v = l->seed; return w == W_GENERATE;
    case DX_FOCUS: *v = focus; return focus >= 0;
    default: return 0;
    }
}

int session_plan_expect(const Session *s, const Demo *d, int i, int focus, char *err, size_t n)
{
    const DemoStep *st = &d->steps[i];
    const DemoExpect *e = &st->expect;
    if (!e->on || st->bad)
        return 0;
    char got[400], want[400];
    int bad = 0;
    size_t l = 0;
    err[0] = '\0';
#define HEAD(f) do { \
        l = strlen(err); \
        if (l + 2 < n) \
            snprintf(err + l, n - l, "%s%s:%d:%d: step %d: expect: ", l ? "\n" : "", d->path, \
                     e->f.line, e->f.col, i + 1); \
        bad++; \
    } while (0)
    if (e->page.set) {
        char here[120];
        const Page *pg = session_page(s);
        snprintf(here, sizeof here, "%s:%d", pg ? s->course.lessons[s->lesson].id : "(none)",
                 s->page + 1);
        snprintf(want, sizeof want, "%s:%d", e->lesson, e->page_no);
        if (strcmp(here, want)) {
            HEAD(page);
            add(err, n, "page %s, but the screen is on page %s", want, here);
        }
    }
    int model_fields = e->mask.set || e->pe.set || e->layer.set || e->head.set;
    if (model_fields && !s->model) {
        const DemoField *f = e->mask.set ? &e->mask : e->pe.set ? &e->pe
                           : e->layer.set ? &e->layer : &e->head;
        l = strlen(err);
        if (l + 2 < n)
            snprintf(err + l, n - l, "%s%s:%d:%d: step %d: expect: a model's mask, PE, layer or "
                     "head, but this page has no model", l ? "\n" : "", d->path, f->line, f->col,
                     i + 1);
        return -1;
    }
    if (e->mask.set && (e->causal != s->ctl.causal || e->padding != s->ctl.padding)) {
        HEAD(mask);
        add(err, n, "the mask %s, but the screen has %s", names_mask(e->causal, e->padding),
            names_mask(s->ctl.causal, s->ctl.padding));
    }
    if (e->pe.set && e->pe_kind != (int)s->ctl.pe) {
        HEAD(pe);
        add(err, n, "PE %s, but the screen has %s", model_pe_name((PeKind)e->pe_kind),
            model_pe_name(s->ctl.pe));
    }
    if (e->layer.set && e->layer_no != s->layer) {
        HEAD(layer);
        snprintf(want, sizeof want, "%d", e->layer_no);
        snprintf(got, sizeof got, "%d", s->layer);
        add(err, n, "layer %s, but the screen shows layer %s", want, got);
    }
    if (e->head.set && e->head_no != s->head) {
        HEAD(head);
        snprintf(want, sizeof want, "%d", e->head_no);
        snprintf(got, sizeof got, "%d", s->head);
        add(err, n, "head %s, but the screen shows head %s", want, got);
    }
    if (e->sentence.set && strcmp(e->sentence_text, s->sentence)) {
        HEAD(sentence);
        add(err, n, "the sentence \"%s\", but the screen has \"%s\"", e->sentence_text,
            s->sentence);
    }
    if (e->order.set) {
        int same = e->n_order == s->n_src;
        for (int k = 0; same && k < e->n_order; k++)
            same = e->order_v[k] == s->order[k];
        if (!same) {
            HEAD(order);
            list_words(want, sizeof want, e->order_v, e->n_order);
            list_words(got, sizeof got, s->order, s->n_src);
            add(err, n, "the order %s, but the screen has %s", want, got);
        }
    }
    if (e->knocked.set && memcmp(e->knocked_v, s->ctl.ablate, sizeof e->knocked_v)) {
        HEAD(knocked);
        knocked_words(want, sizeof want, e->knocked_v);
        knocked_words(got, sizeof got, s->ctl.ablate);
        add(err, n, "knocked out %s, but the screen has %s", want, got);
    }
    int expl = s->w && course_kind_is_explain(s->w->kind);
    for (int k = 0; k < DX__COUNT; k++) {
        double have;
        int kind;
        const char *name = demo_expect_name(k, &kind);
        if (!e->sc[k].set)
            continue;
        if (!scalar(s, k, expl, focus, &have)) {
            l = strlen(err);
            if (l + 2 < n)
                snprintf(err + l, n - l, "%s%s:%d:%d: step %d: expect: %s, but %s%s%s",
                         l ? "\n" : "", d->path, e->sc[k].line, e->sc[k].col, i + 1, name,
                         k == DX_FOCUS ? "this run has no panes" : "this page's widget (",
                         k == DX_FOCUS ? "" : course_widget_name(session_kind(s)),
                         k == DX_FOCUS ? "" : ") has no such setting");
            bad++;
            continue;
        }
        if ((float)have == (float)e->sc_v[k]) /* temp is a float on the Session */
            continue;
        HEAD(sc[k]);
        if (kind == 0)
            snprintf(want, sizeof want, "%s %s", name, e->sc_v[k] ? "on" : "off"),
            snprintf(got, sizeof got, "%s", have ? "on" : "off");
        else
            snprintf(want, sizeof want, "%s %g", name, e->sc_v[k]),
            snprintf(got, sizeof got, "%g", have);
        add(err, n, "%s, but the screen has %s", want, got);
    }
#undef HEAD
    return bad ? -1 : 0;
}

/* ---- the runner ---- */

/* The Session's own hooks: the headless run. */
static void h_open(Session *s, int lesson, int page)
{
    Change ch;
    session_open(s, lesson, page, &ch);
}

static int h_lookup(Session *s, int k, Request *req)
{
    KeyState ks;
    Keymap km[3];
    session_key_state(s, &ks);
    int n = session_keymaps(s, km);
    for (int i = 0; i < n; i++)
        if ((*req = keys_lookup(&ks, km[i], k)) != REQ_NONE)
            return 1;
    Request pr = keys_lookup(&ks, KM_PRESENT, k); /* the presenter's own: the room's screen */
    *req = pr;
    return pr == REQ_BLANK || pr == REQ_FREEZE || pr == REQ_REVEAL;
}

static void h_press(Session *s, int k)
{
    Request req;
    Change ch;
    if (!h_lookup(s, k, &req) || req == REQ_EXPORT || req == REQ_SAVE)
        return; /* headless writes no file (x exports a figure, w saves a model) */
    if (req == REQ_NEXT_PAGE || req == REQ_PREV_PAGE)
        session_turn(s, req == REQ_NEXT_PAGE ? 1 : -1, &ch);
    else
        session_request(s, req, NULL, &ch); /* overlays, export, B/F/R: nothing headless */
}

static int h_quits(Session *s, int k)
{
    KeyState ks;
    session_key_state(s, &ks);
    Request r = keys_lookup(&ks, KM_GLOBAL, k);
    return r == REQ_QUIT || r == REQ_QUIT_NOW;
}

/* A class quiz headless: built (its lesson's questions checked), never asked. */
static int h_quiz(Session *s, const DemoStep *st, const char *where, char *err, size_t n)
{
    char qerr[600];
    QuizSet *q = calloc(1, sizeof *q);
    int rc = !q || quiz_build(q, &s->course, st->quiz, st->quiz_count, st->quiz_seed, qerr,
                              sizeof qerr);
    if (rc)
        snprintf(err, n, "%s: \"quiz\": %s", where, q ? qerr : "out of memory");
    if (q && !rc)
        quiz_set_free(q);
    free(q);
    return rc ? -1 : 0;
}

static void mark(Session *s, const PlanHooks *h, SessionMark *m)
{
    if (h && h->mark)
        h->mark(h->ctx, m);
    else
        session_mark(s, m);
}

static int run_step(Session *s, const Demo *d, int i, int depth, const PlanHooks *h,
                    PlanState *ps, char *err, size_t n);

/* A "demo" step: another demo or plan by name, its first demo_to steps (all: 0) run here as
 * one step; depth counts the nesting (a demo that names itself ends). */
static int run_demo(Session *s, const DemoStep *st, int depth, const PlanHooks *h,
                    PlanState *ps, const char *where, char *err, size_t n)
{
    char path[1024], e2[4000];
    if (depth >= 3) {
        snprintf(err, n, "%s: \"demo\": demos nested deeper than 3 (one plays itself?)", where);
        return -1;
    }
    if (demo_resolve(st->demo, path, sizeof path)) {
        snprintf(err, n, "%s: \"demo\": no demo \"%s\" (a file, or a shipped name: attend demo "
                 "--list)", where, st->demo);
        return -1;
    }
    Demo *d = malloc(sizeof *d);
    if (!d) {
        snprintf(err, n, "%s: out of memory", where);
        return -1;
    }
    if (demo_load(d, path, e2, sizeof e2)) {
        snprintf(err, n, "%s: \"demo\": %s does not load: %s", where, st->demo, e2);
        free(d);
        return -1;
    }
    int to = st->demo_to ? st->demo_to : d->n_steps, rc = 0;
    if (to > d->n_steps) {
        snprintf(err, n, "%s: \"to\": %s has %d steps, not %d", where, st->demo, d->n_steps, to);
        free(d);
        return -1;
    }
    if (ps)
        ps->cap_on = 0;
    for (int i = 0; i < to && !rc; i++)
        rc = run_step(s, d, i, depth + 1, h, ps, err, n);
    free(d);
    return rc;
}

/* 1 (with the message in err) when key k (named t) would open an overlay over the page:
 * the go-to box, the sentence editor, the help, the lesson menu, the quiz, the notes, the
 * tensor picker. A plan never opens one: headless there is none, so a plan whose keys went
 * through one would not run the same in the presenter and in --check or --plain; what the
 * overlay is for is a step of its own ("open", "type", "quiz"). */
static int overlay_key(Session *s, int k, const char *t, const char *where, char *err,
                       size_t n)
{
    Request r;
    if (!h_lookup(s, k, &r))
        return 0;
    const char *what = NULL, *instead = "a plan step never opens an overlay";
    switch (r) {
    case REQ_GOTO_PAGE:
        what = "the go-to box", instead = "a plan moves with \"open\": LESSON, \"page\": N";
        break;
    case REQ_EDIT:
    case REQ_EDIT_DECODER:
        what = "the sentence editor", instead = "a plan types with \"type\": \"SENTENCE\"";
        break;
    case REQ_HELP: what = "the help"; break;
    case REQ_LESSON_MENU: what = "the lesson menu"; break;
    case REQ_QUIZ: what = "the quiz", instead = "a class quiz is a \"quiz\": LESSON step"; break;
    case REQ_NOTES: what = "the notes", instead = "speaker notes are attend notes'"; break;
    case REQ_PICK_TENSOR: what = "the tensor picker"; break;
    default: return 0;
    }
    snprintf(err, n, "%s: key \"%s\" opens %s over the page: %s", where, t, what, instead);
    return 1;
}

/* The step's keys, each checked where it is pressed. */
static int run_keys(Session *s, const DemoStep *st, const PlanHooks *h, PlanState *ps,
                    const char *where, char *err, size_t n)
{
    int replaying = ps && ps->replaying;
    char keys[256];
    snprintf(keys, sizeof keys, "%s", st->keys);
    for (char *save = NULL, *t = strtok_r(keys, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        int k = keys_parse_name(t);
        Request req;
        if (k < 0) {
            snprintf(err, n, "%s: unknown key \"%s\" (a character, space, enter, esc, tab, "
                     "backspace, up, down, left, right, home, end, pgup, pgdn, del, ctrl-x)",
                     where, t);
            return -1;
        }
        if (h && h->quits ? h->quits(h->ctx, k) : h_quits(s, k)) {
            snprintf(err, n, "%s: key \"%s\" would end the lecture (the room would see a "
                     "shell); a plan never quits: q at the end is the teacher's", where, t);
            return -1;
        }
        if (overlay_key(s, k, t, where, err, n))
            return -1;
        if (!(h && h->used ? h->used(h->ctx, k) : h_lookup(s, k, &req))) {
            const Page *pg = session_page(s);
            snprintf(err, n, "%s: key \"%s\" does nothing on %s page %d (%s)%s", where, t,
                     pg ? s->course.lessons[s->lesson].id : "this", s->page + 1,
                     pg ? pg->title : "no page",
                     h && h->overlay && h->overlay(h->ctx) ? " with an overlay open" : "");
            return -1;
        }
        if (replaying && h_lookup(s, k, &req) && (req == REQ_EXPORT || req == REQ_SAVE))
            continue; /* a replay writes no file again (x, w were pressed when it ran) */
        int lesson = s->lesson, page = s->page;
        if (h && h->press)
            h->press(h->ctx, k);
        else
            h_press(s, k);
        if (ps && (lesson != s->lesson || page != s->page)) /* a new page: prose and widget */
            ps->focus = 0;
        else if (ps && h_lookup(s, k, &req) && req == REQ_FOCUS && session_kind(s) != W_NONE)
            ps->focus = !ps->focus; /* z, as the player's pane (headless: the plan keeps it) */
        if (h && h->ended && h->ended(h->ctx)) { /* the rule for demos and plans alike */
            snprintf(err, n, "%s: key \"%s\" quits the presenter: a step must not end the "
                     "show (the presenter quits with q after the last step)", where, t);
            return -1;
        }
    }
    return 0;
}

static int run_step(Session *s, const Demo *d, int i, int depth, const PlanHooks *h,
                    PlanState *ps, char *err, size_t n)
{
    const DemoStep *st = &d->steps[i];
    char where[700];
    snprintf(where, sizeof where, "%s:%d:%d: step %d", d->path, st->line, st->col, i + 1);
    if (st->bad) /* its problem was reported when the script loaded */
        return 0;
    if (st->demo[0] && run_demo(s, st, depth, h, ps, where, err, n))
        return -1;
    /* a class quiz is an event, not a screen: asked when its step is taken, never again when
     * a replay (b, space back to the plan, a recorded position) passes it */
    if (st->quiz[0]) {
        int now = depth == 0 && !(ps && ps->replaying);
        if (h && h->quiz ? h->quiz(h->ctx, st, now, where, err, n)
                         : h_quiz(s, st, where, err, n))
            return -1;
    }
    if (st->lesson[0]) {
        int li = lesson_find(&s->course, st->lesson);
        if (li < 0) {
            snprintf(err, n, "%s: no lesson \"%s\" in the course", where, st->lesson);
            return -1;
        }
        const Lesson *l = &s->course.lessons[li];
        if (l->broken || st->page > l->n_pages) {
            snprintf(err, n, "%s: lesson %s has no page %d (1..%d)%s", where, st->lesson,
                     st->page, l->n_pages, l->broken ? "; it is broken" : "");
            return -1;
        }
        if (ps)
            ps->focus = 0;
        if (h && h->open)
            h->open(h->ctx, li, st->page - 1);
        else
            h_open(s, li, st->page - 1);
    }
    if (st->type[0]) {
        if (!session_page(s) || !(s->allowed & C_EDIT)) {
            snprintf(err, n, "%s: \"type\": this page's widget takes no sentence (no e key)",
                     where);
            return -1;
        }
        if (h && h->type) {
            h->type(h->ctx, st->type);
        } else {
            Change ch;
            session_set_sentence(s, 0, st->type, &ch);
        }
    }
    if (run_keys(s, st, h, ps, where, err, n))
        return -1;
    if (ps) { /* the caption belongs to this step: it leaves with it */
        if (st->caption[0]) {
            snprintf(ps->caption, sizeof ps->caption, "%s", st->caption);
            ps->cap_on = 1;
        } else if (!st->demo[0]) {
            ps->cap_on = 0;
        }
        mark(s, h, &ps->mark);
    }
    return session_plan_expect(s, d, i, h && h->focus ? h->focus(h->ctx) : ps ? ps->focus : 0,
                               err, n);
}

int session_plan_step(Session *s, const Demo *d, int i, const PlanHooks *h, PlanState *ps,
                      char *err, size_t n)
{
    return run_step(s, d, i, 0, h, ps, err, n);
}

/* ---- the plan machine: where it stands, space, b, --auto ---- */

int session_plan_load(SessionPlan *p, const char *path, double auto_s, char *err, size_t n)
{
    memset(p, 0, sizeof *p);
    Demo *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    if (demo_load(d, path, err, n)) {
        free(d);
        return -1;
    }
    p->demo = d;
    p->auto_s = auto_s;
    /* a recording names a shipped plan by its name, any other by its path */
    const char *slash = strrchr(path, '/');
    char name[300], again[1024];
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : path);
    size_t l = strlen(name);
    if (l > 5 && !strcmp(name + l - 5, ".json"))
        name[l - 5] = '\0';
    int shipped = slash && !demo_resolve(name, again, sizeof again) && !strcmp(again, path) &&
                  strcmp(name, path);
    snprintf(p->name, sizeof p->name, "%s", shipped ? name : path);
    return 0;
}

void session_plan_free(SessionPlan *p)
{
    free(p->demo);
    p->demo = NULL;
}

int session_plan_suspended(Session *s, const SessionPlan *p, const PlanHooks *h)
{
    SessionMark now;
    if (!p->demo || p->pos == 0)
        return 0;
    mark(s, h, &now);
    return !session_mark_same(&now, &p->st.mark);
}

/* --auto: the next step's time, from now. */
static void schedule(SessionPlan *p, long long now_ms)
{
    if (p->auto_s > 0 && p->pos > 0)
        p->next_ms = now_ms + (long long)((p->auto_s + p->demo->steps[p->pos - 1].pause) * 1000);
}

/* Runs steps from..to-1, each uncovered first; every problem, one a line, appended to err.
 * The plan stands at step to after it, its mark where the screen is. */
static void run_range(Session *s, SessionPlan *p, const PlanHooks *h, int from, int to,
                      char *err, size_t n)
{
    char one[2000];
    err[0] = '\0';
    for (int i = from; i < to; i++) {
        if (h && h->uncover)
            h->uncover(h->ctx);
        if (session_plan_step(s, p->demo, i, h, &p->st, one, sizeof one)) {
            size_t l = strlen(err);
            if (l + 2 < n)
                snprintf(err + l, n - l, "%s%s", l ? "\n" : "", one);
        }
    }
    p->pos = to;
    mark(s, h, &p->st.mark);
}

/* Replays steps 0..to-1 from a fresh start: no class quiz is asked again. */
static void replay(Session *s, SessionPlan *p, const PlanHooks *h, int to, long long now_ms,
                   char *err, size_t n)
{
    p->st.cap_on = 0;
    p->st.replaying = 1;
    run_range(s, p, h, 0, to, err, n);
    p->st.replaying = 0;
    schedule(p, now_ms);
}

PlanMove session_plan_space(Session *s, SessionPlan *p, const PlanHooks *h, long long now_ms,
                            char *err, size_t n)
{
    err[0] = '\0';
    if (session_plan_suspended(s, p, h)) {
        replay(s, p, h, p->pos, now_ms, err, n);
        return PLAN_RESUMED;
    }
    if (p->pos >= p->demo->n_steps)
        return PLAN_AT_END;
    run_range(s, p, h, p->pos, p->pos + 1, err, n);
    schedule(p, now_ms);
    return PLAN_STEPPED;
}

PlanMove session_plan_back(Session *s, SessionPlan *p, const PlanHooks *h, long long now_ms,
                           char *err, size_t n)
{
    err[0] = '\0';
    if (p->pos <= 1)
        return PLAN_AT_FIRST;
    replay(s, p, h, p->pos - 1, now_ms, err, n);
    return PLAN_BACK;
}

int session_plan_tick(Session *s, SessionPlan *p, const PlanHooks *h, long long now_ms,
                      int covered, char *err, size_t n)
{
    err[0] = '\0';
    if (!p->demo || p->auto_s <= 0 || p->paused || covered || p->pos >= p->demo->n_steps ||
        now_ms < p->next_ms || session_plan_suspended(s, p, h))
        return 0;
    return session_plan_space(s, p, h, now_ms, err, n) == PLAN_STEPPED;
}

int session_plan_pause(SessionPlan *p, long long now_ms)
{
    if (p->auto_s <= 0)
        return -1;
    p->paused = !p->paused;
    if (!p->paused)
        schedule(p, now_ms);
    return p->paused;
}

const char *session_plan_status(Session *s, const SessionPlan *p, const PlanHooks *h,
                                char *out, size_t n)
{
    snprintf(out, n, "step %d/%d%s", p->pos, p->demo ? p->demo->n_steps : 0,
             session_plan_suspended(s, p, h) ? " (left: space returns)" : "");
    return out;
}

const char *session_plan_next_words(Session *s, const SessionPlan *p, const PlanHooks *h,
                                    char *out, size_t n)
{
    if (session_plan_suspended(s, p, h))
        snprintf(out, n, "back to the plan: step %d/%d", p->pos, p->demo->n_steps);
    else
        demo_step_words(p->demo, p->pos, out, n);
    return out;
}

int session_plan_run_all(Session *s, const Demo *d, PlanState *ps,
                         void (*every)(void *arg, const Session *s, const Demo *d, int i,
                                       const PlanState *ps, const char *problem),
                         void *arg, char *err, size_t n)
{
    int bad = 0;
    for (int i = 0; i < d->n_steps; i++) {
        err[0] = '\0';
        if (session_plan_step(s, d, i, NULL, ps, err, n))
            bad++;
        if (every)
            every(arg, s, d, i, ps, err);
    }
    return bad;
}
