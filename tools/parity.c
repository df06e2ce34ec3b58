/* parity.c - the two front ends on one Session, proved page by page (tests/ref/parity.sh):
 * every page of a course opened in the player (a headless App: keys through app_key, as
 * check-lessons walks it) and in plain mode (lines through plain_command), then the same key
 * script sent to both: every key the page offers (its widget's keymap and the shared
 * controls, each key the table binds there but t, which trains), a sentence typed (the
 * page's own, reversed), a swap of the first and last chips, and the keys again; on a lab
 * page, the last check (the lab's show file) as the player's poll hook and plain mode read
 * it; on a train page with a short run (tests/fixtures/parity-train, or a replay page on a
 * model parity.sh trains four steps), t trained to the end in both. After every step the Session's state (session_state_line), its last Change
 * (session_change_line) and its count of handled requests must be the same in both, and no
 * key either front end offers may answer that it does nothing ("key not used", "does
 * nothing"); what went wrong opening a page (Change.issues) is said by both, naming its
 * value. Prints one line per problem and closes with "N passed, N failed".
 * Usage: parity [--teeth | --long] LESSONS_DIR; --teeth gives plain mode its own copy of a
 * key (m answered twice), which the walk must catch; --long walks only the train pages and
 * trains every run to the end, however long (the course's 600 steps, the induction model's
 * recipe: tests/e2e/test_parity_long.sh, make test-long), the two runs' weights compared bit
 * for bit after every key as well. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_key.h"
#include "app_views.h"
#include "plain.h"
#include "repeat_run.h"
#include "watch.h"

static int passed, failed;
static int teeth; /* --teeth: plain mode answers m twice, a front end's own copy of a key */
static int long_runs; /* --long: the course's own train runs trained to the end (make test-long) */

typedef struct {
    App *a;
    Plain *p;
    char *out;       /* plain mode's words (open_memstream) */
    size_t out_len;
    int li, pi;
    long base_a, base_p;  /* requests each Session had handled before the step */
    int trained;          /* --long: t was pressed on this page (one full run each is enough) */
} Both;

/* A step begins: each Session's count of handled requests, to compare what the step adds. */
static void begin(Both *b)
{
    b->base_a = b->a->s->n_requests;
    b->base_p = b->p->s->n_requests;
}

static void fail(Both *b, const char *what, const char *detail)
{
    failed++;
    printf("FAIL - %s page %d: %s\n%s\n", b->a->s->course.lessons[b->li].id, b->pi + 1, what,
           detail);
}

/* The Session of both front ends, after step what: the same state and last Change, and
 * (count) as many requests handled by the step. */
static void compare(Both *b, const char *what, int count)
{
    static char x[16384], y[16384], msg[40000];
    session_state_line(b->a->s, x, sizeof x);
    session_state_line(b->p->s, y, sizeof y);
    if (strcmp(x, y)) {
        snprintf(msg, sizeof msg, "  player: %s\n  plain:  %s", x, y);
        fail(b, what, msg);
        return;
    }
    session_change_line(&b->a->s->last, x, sizeof x);
    session_change_line(&b->p->s->last, y, sizeof y);
    long da = b->a->s->n_requests - b->base_a, dp = b->p->s->n_requests - b->base_p;
    if (strcmp(x, y) || (count && da != dp)) {
        snprintf(msg, sizeof msg, "  player (%ld handled): %s\n  plain  (%ld handled): %s", da,
                 x, dp, y);
        fail(b, what, msg);
        return;
    }
    passed++;
}

/* The weights a train page's run (or a replay page's live run) holds now, NULL when none. */
static const Model *run_model(const Session *s)
{
    if (session_kind(s) != W_TRAIN)
        return NULL;
    if (s->train.rep.run)
        return repeat_run_model(s->train.rep.run);
    return s->train.run ? watch_model(s->train.run) : NULL;
}

/* --long: both front ends' runs hold the same weights, bit for bit, after step what. */
static void compare_weights(Both *b, const char *what)
{
    const Model *x = run_model(b->a->s), *y = run_model(b->p->s);
    if (!x && !y)
        return;
    if (!x || !y || x->n_floats != y->n_floats ||
        memcmp(x->data, y->data, sizeof(float) * x->n_floats)) {
        fail(b, what, "  the two front ends' trained weights differ");
        return;
    }
    passed++;
}

/* Plain mode's words start again (those of the key about to be sent). */
static void fresh_out(Both *b)
{
    if (b->p->out)
        fclose(b->p->out);
    free(b->out);
    b->out = NULL;
    b->out_len = 0;
    if (!(b->p->out = open_memstream(&b->out, &b->out_len))) {
        fprintf(stderr, "parity: out of memory\n");
        exit(1);
    }
}

/* One key to the player (an overlay it opens is closed) and its name to plain mode; neither
 * may answer that the key does nothing. */
static void press(Both *b, int k, int check_used)
{
    char name[16], line[64], what[80];
    const char *nm = keys_demo_name(k, name, sizeof name);
    if (!nm)
        return;
    begin(b);
    app_key(b->a, k);
    if (b->a->overlay)
        app_overlay_close(b->a);
    /* the player trains in slices between keys (its view's tick), plain mode to the end at
     * once: the player's slices run out before the two are compared */
    const ViewOps *vo = app_cur_view(b->a);
    for (long i = 0; vo->tick && i < 1000000 && vo->tick(b->a); i++)
        ;
    fresh_out(b);
    snprintf(line, sizeof line, "%s", nm);
    plain_command(b->p, line);
    if (teeth && k == 'm')
        plain_command(b->p, line);
    fflush(b->p->out);
    snprintf(what, sizeof what, "key %s", nm);
    if (check_used && strstr(b->a->msg, "key not used"))
        fail(b, what, "  the player offers it and says: key not used on this page");
    if (check_used && b->out && strstr(b->out, "does nothing"))
        fail(b, what, "  plain mode offers it and says it does nothing");
    compare(b, what, 1);
    if (long_runs) {
        compare_weights(b, what);
        fprintf(stderr, "parity --long: %s page %d, %s compared\n",
                b->a->s->course.lessons[b->li].id, b->pi + 1, what);
    }
}

/* A train page whose run is short enough to train to the end in both front ends at every t:
 * the widget's "steps" (tests/fixtures/parity-train), or a replay page's recorded recipe (a
 * model parity.sh trains for a few steps); the course's own runs (600 steps, the induction
 * model's 4,500) only with --long (make test-long). */
#define PARITY_TRAIN_STEPS 50
static int short_run(const Session *s)
{
    TrainOpts o;
    int every;
    char err[300];
    if (session_kind(s) != W_TRAIN)
        return 0;
    if (long_runs)
        return 1;
    if (session_train_repeat_page(s->model))
        return !repeat_recipe_read(s->model, &o, &every, err, sizeof err) &&
               o.steps <= PARITY_TRAIN_STEPS;
    return s->w->train_steps > 0 && s->w->train_steps <= PARITY_TRAIN_STEPS;
}

/* The keys a page offers: those its widget's keymap and the shared controls bind now,
 * leaving out what a front end takes its own way (typed text), training but a short run,
 * and after one, w (it would write attend-trained.json where the test runs). */
static int offered(Both *b, int *keys, int max)
{
    static const int NAMED[] = {' ', '\r', UI_KEY_LEFT, UI_KEY_RIGHT, UI_KEY_UP, UI_KEY_DOWN,
                                UI_KEY_HOME, UI_KEY_END};
    KeyState ks;
    Keymap km[3];
    int n = 0, nk = session_keymaps(b->a->s, km), shortrun = short_run(b->a->s);
    int train = shortrun && !(long_runs && b->trained); /* --long: t once a page */
    session_key_state(b->a->s, &ks);
    for (int c = 0; c < 127 + (int)(sizeof NAMED / sizeof NAMED[0]) && n < max; c++) {
        int k = c < 127 ? c : NAMED[c - 127];
        if (c < 127 && (c <= ' ' || c == 127))
            continue;
        for (int i = 0; i + 1 < nk; i++) {
            Request r = keys_lookup(&ks, km[i], k);
            if (r == REQ_NONE)
                continue;
            if (r != REQ_EDIT && r != REQ_EDIT_DECODER && r != REQ_PICK_TENSOR &&
                (r != REQ_TRAIN_RUN || train) && (r != REQ_SAVE || !shortrun))
                keys[n++] = k;
            if (r == REQ_TRAIN_RUN && train && long_runs)
                b->trained = 1;
            break;
        }
    }
    return n;
}

/* The key bound to req in keymap km now, or -1. */
static int key_for(Both *b, Keymap km, Request req)
{
    static const int NAMED[] = {'\r', UI_KEY_LEFT, UI_KEY_RIGHT, UI_KEY_HOME, UI_KEY_END,
                                KEY_ESCAPE};
    KeyState ks;
    session_key_state(b->a->s, &ks);
    for (size_t i = 0; i < sizeof NAMED / sizeof NAMED[0]; i++)
        if (keys_lookup(&ks, km, NAMED[i]) == req)
            return NAMED[i];
    for (int c = '!'; c < 127; c++)
        if (keys_lookup(&ks, km, c) == req)
            return c;
    return -1;
}

/* The page's own sentence, its words in reverse order (words its model knows). */
static void reversed(const char *s, char *out, size_t n)
{
    char words[64][64];
    int nw = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *w = strtok(buf, " "); w && nw < 64; w = strtok(NULL, " "))
        snprintf(words[nw++], sizeof words[0], "%s", w);
    size_t k = 0;
    out[0] = '\0';
    for (int i = nw - 1; i >= 0 && k < n; i--)
        k += (size_t)snprintf(out + k, n - k, "%s%s", k ? " " : "", words[i]);
}

/* Types text into the sentence editor (key e, or E: the decoder's sentence) and plain mode's
 * edit (or E) line. */
static void type_sentence(Both *b, int key, const char *text)
{
    char line[400];
    begin(b);
    app_key(b->a, key);
    app_key(b->a, KEY_CTRL('u'));
    for (const char *c = text; *c; c++)
        app_key(b->a, (unsigned char)*c);
    app_key(b->a, '\r');
    if (b->a->overlay)
        app_overlay_close(b->a);
    snprintf(line, sizeof line, "%s %s", key == 'E' ? "E" : "edit", text);
    plain_command(b->p, line);
    snprintf(line, sizeof line, "%c \"%.60s\"", key, text);
    compare(b, line, 1);
}

/* Swaps chips i and j: the player with its chip keys, plain mode with swap I J. */
static void swap_chips(Both *b, int i, int j)
{
    char line[64];
    int first = key_for(b, KM_CHIPS, REQ_CHIP_FIRST), right = key_for(b, KM_CHIPS, REQ_CHIP_RIGHT);
    int pick = key_for(b, KM_CHIPS, REQ_PICK);
    if (first < 0 || right < 0 || pick < 0) {
        fail(b, "swap", "  the chips keymap binds no first/right/pick key");
        return;
    }
    if (b->a->s->chip_pick >= 0) /* a pick left by the keys before: dropped in both */
        press(b, key_for(b, KM_CHIPS, REQ_DROP_PICK), 0);
    begin(b);
    int at[2] = {i, j};
    for (int s = 0; s < 2; s++) {
        app_key(b->a, first);
        for (int r = 0; r < at[s]; r++)
            app_key(b->a, right);
        app_key(b->a, pick);
    }
    snprintf(line, sizeof line, "swap %d %d", i, j);
    plain_command(b->p, line);
    compare(b, line, 0); /* the player's chip keys are requests too */
}

static int n_issues; /* pages opened with an issue (Change.issues), worded by both */

/* What went wrong opening the page (the Change's issues, the same in both: compare): each
 * front end's words name every offending value. */
static void issues_worded(Both *b)
{
    const PageIssues *is = &b->a->s->last.issues;
    if (!is->bits)
        return;
    fflush(b->p->out);
    for (int i = 0; i < ISSUE__COUNT; i++) {
        char what[400];
        if (!(is->bits >> i & 1u))
            continue;
        snprintf(what, sizeof what, "  issue %d (%.300s)", i, is->value[i]);
        if (!strstr(b->a->msg, is->value[i]))
            fail(b, "the player does not say what went wrong opening the page", what);
        else if (!b->out || !strstr(b->out, is->value[i]))
            fail(b, "plain mode does not say what went wrong opening the page", what);
        else
            passed++;
    }
    n_issues++;
}

static void walk_page(Both *b)
{
    int keys[200];
    b->trained = 0;
    begin(b);
    app_open(b->a, b->li, b->pi);
    plain_open(b->p, b->li, b->pi);
    compare(b, "opened", 1);
    issues_worded(b);
    WidgetKind k = session_kind(b->a->s);
    if (k == W_LAB) { /* the last check: the player's poll hook, plain mode's words */
        char widget[] = "widget";
        app_cur_view(b->a)->poll(b->a);
        fresh_out(b);
        plain_command(b->p, widget);
        fflush(b->p->out);
        if (!b->out || !strstr(b->out, "Your last check"))
            fail(b, "lab", "  plain mode does not say the last check");
        compare(b, "the lab's last check", 0);
    }
    int n = offered(b, keys, 200);
    for (int i = 0; i < n; i++)
        press(b, keys[i], 1);
    if ((b->a->s->allowed & C_EDIT) && b->a->s->ran && b->a->s->sentence[0]) {
        char text[256];
        reversed(b->a->s->sentence, text, sizeof text);
        type_sentence(b, 'e', text);
        if (b->a->s->model->cfg.arch == ARCH_ENCDEC && b->a->s->target[0]) {
            reversed(b->a->s->target, text, sizeof text);
            type_sentence(b, 'E', text);
        }
    }
    if (k == W_CHIPS && (b->a->s->allowed & C_SWAP) && b->a->s->ran && b->a->s->t->n > 1)
        swap_chips(b, 0, b->a->s->t->n - 1);
    n = offered(b, keys, 200);
    for (int i = 0; i < n; i++)
        press(b, keys[i], 1);
}

int main(int argc, char **argv)
{
    char err[1024];
    teeth = argc == 3 && !strcmp(argv[1], "--teeth");
    long_runs = argc == 3 && !strcmp(argv[1], "--long");
    if (argc != 2 + teeth + long_runs) {
        fprintf(stderr, "usage: parity [--teeth | --long] LESSONS_DIR\n");
        return 2;
    }
    Both b = {0};
    b.a = app_new();
    b.p = calloc(1, sizeof *b.p);
    if (!b.a || !b.p || !(b.p->s = session_new()) ||
        !(b.p->out = open_memstream(&b.out, &b.out_len))) {
        fprintf(stderr, "parity: out of memory\n");
        return 1;
    }
    const char *dir = argv[argc - 1];
    if (session_load(b.a->s, dir, NULL, 0, err, sizeof err) ||
        session_load(b.p->s, dir, NULL, 0, err, sizeof err)) {
        fprintf(stderr, "parity: %s\n", err);
        return 1;
    }
    /* a test never touches the learner's progress; PARITY_PROGRESS=1 (parity.sh, in a state
     * directory of its own) saves it, to see both front ends say a save that failed */
    const char *keep = getenv("PARITY_PROGRESS");
    if (!keep || strcmp(keep, "1"))
        b.a->s->prog_ok = b.p->s->prog_ok = 0;
    COLS = 80; /* app_key reads the screen's size; nothing is drawn */
    LINES = 24;
    int pages = 0;
    for (b.li = 0; b.li < b.a->s->course.n_lessons; b.li++) {
        const Lesson *l = &b.a->s->course.lessons[b.li];
        for (b.pi = 0; !l->broken && b.pi < l->n_pages; b.pi++, pages++) {
            if (long_runs && l->pages[b.pi].widget.kind != W_TRAIN) { /* --long: train pages */
                pages--;
                continue;
            }
            walk_page(&b);
            fresh_out(&b);
        }
    }
    printf("%d pages walked in both front ends, %d opened with an issue both said\n", pages,
           n_issues);
    printf("%d passed, %d failed\n", passed, failed);
    app_delete(b.a);
    fclose(b.p->out);
    free(b.out);
    session_delete(b.p->s);
    free(b.p);
    return failed ? 1 : 0;
}
