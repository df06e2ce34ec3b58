/* plan_parity.c - one lecture plan, every front end, one plan machine (tests/ref/plan_parity.sh):
 * each plan runs in the presenter (a headless App: space, b through present_key as the
 * teacher presses them, a step's keys through present_press), in plain mode (attend --plain
 * --plan: space, b as lines through plain_command) and headless on a Session
 * (session_plan_space / _back with no hooks, as --check and demo --plain run it). After every
 * move the Session's state (session_state_line) and the plan's step must be the same in all
 * three, whether it is left and its caption in the presenter and headless, and a step's
 * problem too. The moves: space to the end,
 * b twice, the next page opened (the plan left), space (back to the plan), space to the end.
 * Usage: plan_parity [--teeth] LESSONS_DIR PLAN...; prints a line per problem and "N passed,
 * N failed". --teeth: the headless run drops every m a step presses (a front end's own
 * copy of the runner), which the comparison must catch. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_key.h"
#include "app_views.h"
#include "demo_play.h"
#include "plain.h"
#include "present.h"
#include "ui.h"

static int passed, failed;
static int teeth;

/* --teeth: the headless run's own way of pressing keys, which forgets m. */
static void teeth_press(void *ctx, int k)
{
    Request r = REQ_NONE;
    Change ch;
    Session *s = ctx;
    KeyState ks;
    Keymap km[3];
    if (k == 'm')
        return;
    session_key_state(s, &ks);
    int n = session_keymaps(s, km);
    for (int i = 0; i < n && r == REQ_NONE; i++)
        r = keys_lookup(&ks, km[i], k);
    if (r == REQ_NEXT_PAGE || r == REQ_PREV_PAGE)
        session_turn(s, r == REQ_NEXT_PAGE ? 1 : -1, &ch);
    else if (r != REQ_NONE && r != REQ_EXPORT && r != REQ_SAVE)
        session_request(s, r, NULL, &ch);
}

typedef struct {
    App *a;            /* the presenter (a->present->plan) */
    Session *s;        /* headless */
    SessionPlan hp;    /* the headless run's plan */
    Plain *p;          /* plain mode presenting the plan (attend --plain --plan) */
    char *out;         /* its words */
    size_t out_len;
    const char *path;
    PlanHooks th;      /* --teeth's hooks, else NULL */
    const PlanHooks *h;
    char herr[4000];   /* the headless run's last problems */
} Both;

/* Both runs after move what: the same state, step, suspension and caption. */
static void compare(Both *b, const char *what)
{
    static char x[16384], y[16384];
    char sx[120], sy[120];
    SessionMark now;
    int bad = 0;
    session_state_line(b->a->s, x, sizeof x);
    session_state_line(b->s, y, sizeof y);
    if (strcmp(x, y)) {
        printf("FAIL - %s, %s: the state differs\n  presenter: %s\n  headless:  %s\n", b->path,
               what, x, y);
        bad = 1;
    }
    session_state_line(b->p->s, x, sizeof x);
    if (strcmp(x, y)) {
        printf("FAIL - %s, %s: the state differs\n  plain mode: %s\n  headless:   %s\n", b->path,
               what, x, y);
        bad = 1;
    }
    if (b->p->plan->pos != b->hp.pos) {
        printf("FAIL - %s, %s: plain mode stands at step %d, headless at %d\n", b->path, what,
               b->p->plan->pos, b->hp.pos);
        bad = 1;
    }
    demo_status(b->a, sx, sizeof sx);
    session_plan_status(b->s, &b->hp, NULL, sy, sizeof sy);
    if (strcmp(sx, sy)) {
        printf("FAIL - %s, %s: the plan stands at \"%s\" in the presenter, \"%s\" headless\n",
               b->path, what, sx, sy);
        bad = 1;
    }
    const char *cx = present_caption(b->a);
    session_mark(b->s, &now);
    const char *cy = session_plan_caption(&b->hp.st, &now);
    if (!cx != !cy || (cx && strcmp(cx, cy))) {
        printf("FAIL - %s, %s: the caption is \"%s\" in the presenter, \"%s\" headless\n",
               b->path, what, cx ? cx : "(none)", cy ? cy : "(none)");
        bad = 1;
    }
    /* a step's problem: the presenter shows it without the path, as its first line */
    char room[1100], first[1024];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(b->herr, "\n"), b->herr);
    demo_room_error(first, room, sizeof room);
    if (b->herr[0] && !strstr(b->a->msg, room)) {
        printf("FAIL - %s, %s: headless had a problem the presenter did not show: %s (shown: "
               "\"%s\")\n", b->path, what, b->herr, b->a->msg);
        bad = 1;
    }
    if (bad)
        failed++;
    else
        passed++;
}

/* One move in both: key k (' ' or 'b') or (k 0) the plan left for the next page. */
static void step_both(Both *b, int k, const char *what)
{
    b->a->msg[0] = '\0';
    if (k) {
        char line[8];
        snprintf(line, sizeof line, "%s", k == ' ' ? "space" : "b");
        plain_plan_line(b->p, line);
        present_key(b->a, k);
        if (k == ' ')
            session_plan_space(b->s, &b->hp, b->h, 0, b->herr, sizeof b->herr);
        else
            session_plan_back(b->s, &b->hp, b->h, 0, b->herr, sizeof b->herr);
    } else {
        Change ch;
        int l = b->s->lesson, pg = b->s->page + 1;
        if (pg >= b->s->course.lessons[l].n_pages)
            pg = 0;
        app_open(b->a, l, pg);
        plain_open(b->p, l, pg);
        session_open(b->s, l, pg, &ch);
        b->herr[0] = '\0';
    }
    compare(b, what);
}

static void run(const char *dir, const char *path)
{
    char err[16384], what[80];
    Both b;
    memset(&b, 0, sizeof b);
    b.path = path;
    b.a = app_new();
    b.s = session_new();
    if (!b.a || !b.s || session_load(b.a->s, dir, NULL, 0, err, sizeof err) ||
        session_load(b.s, dir, NULL, 0, err, sizeof err)) {
        printf("FAIL - %s: the course: %s\n", path, b.a && b.s ? err : "out of memory");
        failed++;
        goto out;
    }
    b.p = calloc(1, sizeof *b.p);
    if (!b.p || !(b.p->s = session_new()) || !(b.p->out = open_memstream(&b.out, &b.out_len)) ||
        session_load(b.p->s, dir, NULL, 0, err, sizeof err)) {
        printf("FAIL - %s: plain mode: %s\n", path, err);
        failed++;
        goto out;
    }
    b.a->s->prog_ok = b.s->prog_ok = b.p->s->prog_ok = 0; /* never the learner's progress */
    b.a->present = calloc(1, sizeof *b.a->present);
    if (!b.a->present || session_plan_load(&b.hp, path, 0, err, sizeof err) ||
        demo_start(b.a, path, 0, present_press, err, sizeof err)) {
        printf("FAIL - %s: does not load: %s\n", path, err);
        failed++;
        goto out;
    }
    if (teeth) {
        b.th.ctx = b.s;
        b.th.press = teeth_press;
        b.h = &b.th;
    }
    if (plain_plan_start(b.p, path, err, sizeof err)) {
        printf("FAIL - %s: plain mode does not present it: %s\n", path, err);
        failed++;
        goto out;
    }
    session_plan_space(b.s, &b.hp, b.h, 0, b.herr, sizeof b.herr);
    compare(&b, "step 1");
    int n = b.hp.demo->n_steps;
    for (int i = 1; i < n; i++) {
        snprintf(what, sizeof what, "space to step %d", i + 1);
        step_both(&b, ' ', what);
    }
    step_both(&b, 'b', "b");
    step_both(&b, 'b', "b again");
    step_both(&b, 0, "the plan left (the next page)");
    step_both(&b, ' ', "space back to the plan");
    for (int i = b.hp.pos; i < n; i++) {
        snprintf(what, sizeof what, "space to step %d again", i + 1);
        step_both(&b, ' ', what);
    }
out:
    if (b.p) {
        plain_plan_end(b.p);
        if (b.p->out)
            fclose(b.p->out);
        free(b.out);
        session_delete(b.p->s);
        free(b.p);
    }
    session_plan_free(&b.hp);
    if (b.a && b.a->present) {
        demo_free(b.a);
        free(b.a->present);
        b.a->present = NULL;
    }
    app_delete(b.a);
    session_delete(b.s);
}

int main(int argc, char **argv)
{
    teeth = argc > 1 && !strcmp(argv[1], "--teeth");
    if (argc < 3 + teeth) {
        fprintf(stderr, "usage: plan_parity [--teeth] LESSONS_DIR PLAN...\n");
        return 2;
    }
    for (int i = 2 + teeth; i < argc; i++)
        run(argv[1 + teeth], argv[i]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
