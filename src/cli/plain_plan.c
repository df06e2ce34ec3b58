/* plain_plan.c - attend --plain --plan NAME|FILE: a lecture plan presented in plain mode (a
 * screen reader's view of a lecture), on the one plan machine the presenter, --check and
 * demo --plain run (session_plan.h). space (or next) takes the plan's next step, b goes back
 * one, plan says where it stands; each step is said as plain mode says any command (the page
 * it opens, what its keys changed), then its caption. Leaving the plan (back, goto, lesson,
 * keys that change the state) suspends it; space returns to its step on its own page. A
 * replay (b, space back) is quiet but for the page it ends on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plain.h"
#include "session_plan.h"

/* The hooks: a step's page, keys and sentence go through plain mode's own commands. */
static void h_open(void *ctx, int lesson, int page)
{
    plain_open(ctx, lesson, page);
}

static void h_press(void *ctx, int k)
{
    Plain *p = ctx;
    char name[16], line[32];
    KeyState ks;
    Keymap km[3];
    const char *nm = keys_demo_name(k, name, sizeof name);
    session_key_state(p->s, &ks);
    int n = session_keymaps(p->s, km), bound = 0;
    for (int i = 0; i < n; i++)
        bound |= keys_lookup(&ks, km[i], k) != REQ_NONE;
    if (!nm || !bound) /* the presenter's B, F, R: the room's screen, nothing to say here */
        return;
    snprintf(line, sizeof line, "%s", nm);
    plain_command(p, line);
}

static void h_type(void *ctx, const char *sentence)
{
    char line[ATTEND_MAX_SENTENCE + 8];
    snprintf(line, sizeof line, "edit %s", sentence);
    plain_command(ctx, line);
}

static const PlanHooks HOOKS_NONE;

static PlanHooks hooks(Plain *p)
{
    PlanHooks h = HOOKS_NONE;
    h.ctx = p;
    h.open = h_open;
    h.press = h_press;
    h.type = h_type;
    return h;
}

/* Says each of the problems in err (one a line) without the plan's path. */
static void say_problems(Plain *p, const char *err)
{
    while (*err) {
        char one[2000], room[2100];
        size_t l = strcspn(err, "\n");
        snprintf(one, sizeof one, "%.*s", (int)l, err);
        plain_sayf(p, "Problem: %s.", demo_room_error(one, room, sizeof room));
        err += l + (err[l] == '\n');
    }
}

/* Says the plan's step and its caption. */
static void say_where(Plain *p)
{
    const SessionPlan *pl = p->plan;
    char words[700];
    SessionMark now;
    session_mark(p->s, &now);
    const char *cap = session_plan_caption(&pl->st, &now);
    plain_sayf(p, "Plan step %d of %d%s.", pl->pos, pl->demo->n_steps,
               session_plan_suspended(p->s, pl, NULL) ? " (left: space returns)" : "");
    if (cap)
        plain_sayf(p, "Caption: %s", cap);
    session_plan_next_words(p->s, pl, NULL, words, sizeof words);
    plain_sayf(p, "Next (space): %s.", pl->pos >= pl->demo->n_steps ? "the end of the plan"
                                                                      : words);
}

/* One move of the plan: space (1) or b (0). */
static void plan_move(Plain *p, int space)
{
    static char err[8000];
    PlanHooks h = hooks(p);
    SessionPlan *pl = p->plan;
    int replay = !space || session_plan_suspended(p->s, pl, NULL);
    FILE *out = p->out, *quiet = NULL;
    if (replay && (quiet = fopen("/dev/null", "w"))) /* a replay says only where it ends */
        p->out = quiet;
    else if (space && pl->pos < pl->demo->n_steps) {
        char words[700];
        demo_step_words(pl->demo, pl->pos, words, sizeof words);
        plain_sayf(p, "Plan %s", words);
    }
    p->plan_busy = 1;
    PlanMove m = space ? session_plan_space(p->s, pl, &h, 0, err, sizeof err)
                       : session_plan_back(p->s, pl, &h, 0, err, sizeof err);
    p->plan_busy = 0;
    p->out = out;
    if (quiet)
        fclose(quiet);
    switch (m) {
    case PLAN_AT_END:
        plain_say(p, "The end of the plan: b goes back, q quits.");
        return;
    case PLAN_AT_FIRST:
        plain_say(p, "This is the plan's first step.");
        return;
    case PLAN_RESUMED:
        plain_say(p, "Back to the plan, on its own page:");
        plain_say_page(p);
        break;
    case PLAN_BACK:
        plain_say(p, "Back one step:");
        plain_say_page(p);
        break;
    case PLAN_STEPPED:
        if (pl->demo->steps[pl->pos - 1].quiz[0]) /* a class quiz is the room's */
            plain_sayf(p, "A class quiz on %s: in the room the presenter asks it and students "
                       "answer from their terminals; here, lesson %s then quiz asks its "
                       "questions.", pl->demo->steps[pl->pos - 1].quiz,
                       pl->demo->steps[pl->pos - 1].quiz);
        break;
    }
    say_problems(p, err);
    say_where(p);
}

int plain_plan_start(Plain *p, const char *arg, char *err, size_t n)
{
    char path[1024];
    if (demo_resolve(arg, path, sizeof path)) {
        snprintf(err, n, "--plan: no plan \"%s\" (a file, or a shipped name: attend demo --list)",
                 arg);
        return -1;
    }
    SessionPlan *pl = calloc(1, sizeof *pl);
    if (!pl) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    if (session_plan_load(pl, path, 0, err, n)) {
        free(pl);
        return -1;
    }
    p->plan = pl;
    plain_sayf(p, "Lecture plan: %s, %d steps. space (or next) takes the plan's next step, b "
               "goes back one, plan says where it stands; other commands leave the plan and "
               "space returns to it.", pl->demo->title[0] ? pl->demo->title : "untitled",
               pl->demo->n_steps);
    plan_move(p, 1);
    return 0;
}

/* space / next, b, plan while a plan is presented: 1 when cmd (one word) was the plan's. */
static int plan_command(Plain *p, const char *cmd)
{
    if (!p->plan || p->plan_busy)
        return 0;
    if (!strcmp(cmd, "space") || !strcmp(cmd, "next") || !strcmp(cmd, " ")) {
        plan_move(p, 1);
        return 1;
    }
    if (!strcmp(cmd, "b")) {
        plan_move(p, 0);
        return 1;
    }
    if (!strcmp(cmd, "plan")) {
        say_where(p);
        return 1;
    }
    return 0;
}

void plain_plan_line(Plain *p, char *line)
{
    char word[16];
    int used = 0;
    /* the line is one word (spaces around it): the plan's space, next, b, plan */
    if (sscanf(line, " %15s %n", word, &used) == 1 && used > 0 && !line[used])
        if (plan_command(p, word))
            return;
    plain_command(p, line);
}

void plain_plan_end(Plain *p)
{
    if (!p->plan)
        return;
    session_plan_free(p->plan);
    free(p->plan);
    p->plan = NULL;
}
