/* test_plan_steps.c - a lecture plan as a sequence of Session steps (src/session/session_plan.c)
 * without a terminal or a front end: steps open pages and press keys on the Session, the
 * caption is bound to the screen its step left (a key that changes the state hides it, the
 * way back shows it), a step's "expect" is checked at its field's FILE:LINE:COL, q is refused,
 * a key that means nothing on the page is named; the plan machine (space, the plan left and
 * resumed on its own page with its caption, b, the end, --auto's schedule and P) and a key
 * that would open an overlay refused, naming the step that does its work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session_plan.h"
#include "t.h"

/* Writes text to a temp plan file; its path in path. */
static void plan_file(char *path, size_t n, const char *text)
{
    snprintf(path, n, "/tmp/attend-test-plan-XXXXXX");
    int fd = mkstemp(path);
    if (fd >= 0) {
        if (write(fd, text, strlen(text)) < 0)
            path[0] = '\0';
        close(fd);
    }
}

int main(void)
{
    char err[4096], path[64];
    static Demo d;
    Session *s = session_new();
    CHECK(s && session_load(s, "lessons", NULL, 0, err, sizeof err) == 0, "the course: %s", err);
    if (!s)
        return t_done("test_plan_steps");
    s->prog_ok = 0;
    plan_file(path, sizeof path,
              "{\"steps\": [\n"
              "  {\"open\": \"causal-mask\", \"page\": 1, \"expect\": {\"mask\": \"none\"}},\n"
              "  {\"keys\": \"m\", \"caption\": \"masked\",\n"
              "   \"expect\": {\"mask\": \"causal\", \"page\": \"causal-mask:1\"}},\n"
              "  {\"keys\": \"m\", \"expect\": {\"mask\": \"causal\",\n"
              "                              \"layer\": 1}},\n"
              "  {\"keys\": \"q\"},\n"
              "  {\"keys\": \"Z\"}\n"
              "]}\n");
    CHECK(demo_load(&d, path, err, sizeof err) == 0, "the plan loads: %s", err);
    PlanState ps;
    memset(&ps, 0, sizeof ps);
    SessionMark now;
    CHECK(session_plan_step(s, &d, 0, NULL, &ps, err, sizeof err) == 0, "step 1: %s", err);
    CHECK(!strcmp(s->course.lessons[s->lesson].id, "causal-mask") && s->page == 0 &&
              !s->ctl.causal, "step 1 opened causal-mask page 1, mask off");
    CHECK(session_plan_step(s, &d, 1, NULL, &ps, err, sizeof err) == 0, "step 2: %s", err);
    CHECK(s->ctl.causal == 1, "step 2 pressed m on the Session: the mask is on");
    session_mark(s, &now);
    CHECK(session_plan_caption(&ps, &now) && !strcmp(session_plan_caption(&ps, &now), "masked"),
          "the caption shows on the screen its step left");
    Change ch;
    session_request(s, REQ_TOGGLE_MASK, NULL, &ch); /* the teacher's own key: the state changes */
    session_mark(s, &now);
    CHECK(session_plan_caption(&ps, &now) == NULL, "a key that changes the state hides it");
    session_request(s, REQ_TOGGLE_MASK, NULL, &ch);
    session_mark(s, &now);
    CHECK(session_plan_caption(&ps, &now) != NULL, "back to the step's screen: it shows again");
    /* step 3 turns the mask off again: its expect says causal and layer 1 */
    CHECK(session_plan_step(s, &d, 2, NULL, &ps, err, sizeof err) == -1, "step 3 fails its expect");
    char want[200];
    snprintf(want, sizeof want, "%s:5:28: step 3: expect: the mask causal, but the screen has none",
             path);
    CHECK(strstr(err, want) != NULL, "the mask at its field's line:col: %s", err);
    snprintf(want, sizeof want, "%s:6:31: step 3: expect: layer 1, but the screen shows layer 0",
             path);
    CHECK(strstr(err, want) != NULL, "and the layer, every mismatch: %s", err);
    CHECK(session_plan_step(s, &d, 3, NULL, &ps, err, sizeof err) == -1 &&
              strstr(err, "would end the lecture"), "q is refused: %s", err);
    CHECK(session_plan_step(s, &d, 4, NULL, &ps, err, sizeof err) == -1 &&
              strstr(err, "key \"Z\" does nothing on causal-mask page 1"), "Z is named: %s", err);
    unlink(path);

    /* the plan machine: space, leaving and resuming, b, the end; overlay keys refused */
    plan_file(path, sizeof path,
              "{\"steps\": [\n"
              "  {\"open\": \"causal-mask\", \"page\": 1},\n"
              "  {\"keys\": \"m\", \"caption\": \"masked\"},\n"
              "  {\"open\": \"causal-mask\", \"page\": 2}\n"
              "]}\n");
    SessionPlan p;
    CHECK(session_plan_load(&p, path, 0, err, sizeof err) == 0, "the plan loads: %s", err);
    CHECK(session_plan_space(s, &p, NULL, 0, err, sizeof err) == PLAN_STEPPED && p.pos == 1 &&
              !err[0], "space: step 1 (%s)", err);
    CHECK(session_plan_space(s, &p, NULL, 0, err, sizeof err) == PLAN_STEPPED && p.pos == 2 &&
              s->ctl.causal, "space: step 2, the mask on");
    CHECK(!session_plan_suspended(s, &p, NULL), "the screen is the step's: not left");
    session_open(s, s->lesson, 4, &ch); /* the teacher goes elsewhere (G) */
    char words[300];
    CHECK(session_plan_suspended(s, &p, NULL), "a page of the teacher's: the plan is left");
    CHECK(strstr(session_plan_status(s, &p, NULL, words, sizeof words), "left: space returns") &&
              !strcmp(session_plan_next_words(s, &p, NULL, words, sizeof words),
                      "back to the plan: step 2/3"), "status and notes say so: %s", words);
    CHECK(session_plan_space(s, &p, NULL, 0, err, sizeof err) == PLAN_RESUMED && p.pos == 2 &&
              s->page == 0 && s->ctl.causal, "space returns to step 2 on its own page, masked");
    session_mark(s, &now);
    CHECK(session_plan_caption(&p.st, &now) && !strcmp(session_plan_caption(&p.st, &now),
                                                       "masked"), "with its caption");
    CHECK(session_plan_space(s, &p, NULL, 0, err, sizeof err) == PLAN_STEPPED && p.pos == 3 &&
              s->page == 1, "space: step 3");
    CHECK(session_plan_space(s, &p, NULL, 0, err, sizeof err) == PLAN_AT_END && p.pos == 3,
          "space after the last step: the end");
    CHECK(session_plan_back(s, &p, NULL, 0, err, sizeof err) == PLAN_BACK && p.pos == 2 &&
              s->page == 0 && s->ctl.causal, "b: step 2 replayed");
    CHECK(session_plan_back(s, &p, NULL, 0, err, sizeof err) == PLAN_BACK && p.pos == 1 &&
              !s->ctl.causal, "b: step 1 replayed, the mask off");
    CHECK(session_plan_back(s, &p, NULL, 0, err, sizeof err) == PLAN_AT_FIRST, "b on step 1");
    CHECK(session_plan_pause(&p, 0) == -1, "P without --auto: no");
    session_plan_free(&p);
    unlink(path);
    /* --auto: a step when its time comes, none while paused */
    plan_file(path, sizeof path,
              "{\"steps\": [\n"
              "  {\"open\": \"causal-mask\", \"page\": 1, \"pause\": 1},\n"
              "  {\"keys\": \"m\"},\n"
              "  {\"keys\": \"G\"},\n"
              "  {\"open\": \"why-attention\", \"page\": 4, \"keys\": \"e\"},\n"
              "  {\"keys\": \"?\"}\n"
              "]}\n");
    CHECK(session_plan_load(&p, path, 2, err, sizeof err) == 0, "an --auto plan: %s", err);
    session_plan_space(s, &p, NULL, 1000, err, sizeof err);
    CHECK(p.next_ms == 1000 + 3000, "the next step in 2 s plus the step's pause of 1");
    CHECK(!session_plan_tick(s, &p, NULL, 3999, 0, err, sizeof err) && p.pos == 1, "not yet");
    CHECK(!session_plan_tick(s, &p, NULL, 4000, 1, err, sizeof err) && p.pos == 1,
          "an overlay open: it waits");
    CHECK(session_plan_pause(&p, 4000) == 1 && !session_plan_tick(s, &p, NULL, 4000, 0, err,
                                                                  sizeof err), "P holds it");
    CHECK(session_plan_pause(&p, 4000) == 0 && p.next_ms == 4000 + 3000, "P again: rescheduled");
    CHECK(session_plan_tick(s, &p, NULL, 7000, 0, err, sizeof err) && p.pos == 2 &&
              s->ctl.causal, "its time: step 2 ran");
    CHECK(session_plan_space(s, &p, NULL, 0, err, sizeof err) == PLAN_STEPPED &&
              strstr(err, "key \"G\" opens the go-to box over the page: a plan moves with "
                          "\"open\""), "G is refused, \"open\" named: %s", err);
    session_plan_space(s, &p, NULL, 0, err, sizeof err);
    CHECK(strstr(err, "key \"e\" opens the sentence editor over the page: a plan types with "
                      "\"type\""), "e is refused, \"type\" named: %s", err);
    session_plan_space(s, &p, NULL, 0, err, sizeof err);
    CHECK(strstr(err, "key \"?\" opens the help over the page"), "? is refused: %s", err);
    session_plan_free(&p);
    unlink(path);
    session_delete(s);
    return t_done("test_plan_steps");
}
