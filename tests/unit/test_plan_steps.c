/* test_plan_steps.c - a lecture plan as a sequence of Session steps (src/session/session_plan.c)
 * without a terminal or a front end: steps open pages and press keys on the Session, the
 * caption is bound to the screen its step left (a key that changes the state hides it, the
 * way back shows it), a step's "expect" is checked at its field's FILE:LINE:COL, q is refused,
 * a key that means nothing on the page is named. */
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
    session_delete(s);
    return t_done("test_plan_steps");
}
