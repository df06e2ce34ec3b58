/* test_repeat_recipe.c - the repeated-sequence recipe has one writer (repeat_recipe_write) and
 * one reader (repeat_opts_read, under repeat_record_task and repeat_recipe_read): every loss
 * round-trips, and an unknown loss name or key is an error naming it (it used to become
 * second-copy silently when read back from a model's record). */
#include <stdlib.h>
#include <string.h>

#include "heads.h"
#include "json.h"
#include "repeat.h"
#include "repeat_run.h"
#include "t.h"

static int read_text(const char *text, RepeatOpts *o, int *every, char *err, size_t errlen)
{
    cJSON *r = json_parse_text("test", text, strlen(text), err, errlen);
    if (!r)
        return -2;
    int rc = repeat_opts_read(r, "repeat", o, every, err, errlen);
    cJSON_Delete(r);
    return rc;
}

static void test_config_object(void)
{
    RepeatOpts o;
    int every;
    char err[256];
    CHECK(read_text("{\"min_segment\": 6, \"max_segment\": 20}", &o, &every, err, sizeof err) == 0 &&
              o.on && o.min_seg == 6 && o.max_seg == 20 && o.loss == REPEAT_LOSS_SECOND && every == 50,
          "defaults: %s", err);
    CHECK(read_text("{\"min_segment\": 3, \"max_segment\": 4, \"loss\": \"copies\", "
                    "\"history_every\": 7}", &o, &every, err, sizeof err) == 0 &&
              o.loss == REPEAT_LOSS_COPIES && every == 7, "copies, every 7: %s", err);
    CHECK(read_text("{\"min_segment\": 3, \"max_segment\": 4, \"loss\": \"second_copy\"}", &o,
                    &every, err, sizeof err) == -1 && strstr(err, "\"second_copy\"") &&
              strstr(err, "repeat.loss"), "an unknown loss is named: %s", err);
    CHECK(read_text("{\"min_segment\": 3, \"max_segment\": 4, \"los\": \"all\"}", &o, &every, err,
                    sizeof err) == -1 && strstr(err, "repeat.los\""), "an unknown key is named: %s",
          err);
    CHECK(read_text("{\"max_segment\": 4}", &o, &every, err, sizeof err) == -1 &&
              strstr(err, "min_segment"), "a missing key is named: %s", err);
}

static void test_record_round_trip(void)
{
    char err[256];
    for (int l = 0; l < 3; l++) {
        TrainOpts o;
        train_opts_defaults(&o);
        o.repeat = (RepeatOpts){1, 5, 9, (RepeatLoss)l};
        o.seq_len = 32;
        o.steps = 100;
        HeadsHistory h;
        memset(&h, 0, sizeof h);
        char *rec = repeat_recipe_write("cfg.json", &o, 25, 100, 1.5, &h, 4.0, 0.5, 3200);
        CHECK(rec != NULL, "written");
        if (!rec)
            continue;
        RepeatOpts back;
        CHECK(repeat_record_task(rec, &back, err, sizeof err) == 0 && back.on &&
                  back.min_seg == 5 && back.max_seg == 9 && back.loss == (RepeatLoss)l,
              "loss %s round-trips: %s", repeat_loss_name((RepeatLoss)l), err);
        Model m;
        memset(&m, 0, sizeof m);
        m.cfg.max_len = 48;
        m.training = rec;
        TrainOpts ro;
        int every = 0;
        CHECK(repeat_recipe_read(&m, &ro, &every, err, sizeof err) == 0 && every == 25 &&
                  ro.steps == 100 && ro.seq_len == 32 && ro.repeat.loss == (RepeatLoss)l,
              "the recipe reads back (%s): %s", repeat_loss_name((RepeatLoss)l), err);
        free(rec);
    }
    /* a record whose loss is no loss: an error naming it, never second-copy */
    static const char bad[] = "{\"task\": \"repeat\", \"repeat\": {\"min_segment\": 5, "
                              "\"max_segment\": 9, \"loss\": \"everything\"}, \"seq_len\": 32, "
                              "\"steps\": 10, \"batch\": 4, \"lr\": 0.001, \"seed\": 1, "
                              "\"warmup\": 0, \"min_lr_ratio\": 1, \"weight_decay\": 0, "
                              "\"clip\": 1, \"history_every\": 5}";
    Model m;
    memset(&m, 0, sizeof m);
    m.cfg.max_len = 48;
    m.training = (char *)bad;
    TrainOpts ro;
    int every;
    CHECK(repeat_recipe_read(&m, &ro, &every, err, sizeof err) == -1 &&
              strstr(err, "\"everything\"") && strstr(err, "training.repeat.loss"),
          "a record's unknown loss is named: %s", err);
    RepeatOpts o;
    CHECK(repeat_record_task("{\"task\": \"corpus\"}", &o, err, sizeof err) == -1 &&
              strstr(err, "repeat"), "another task is refused: %s", err);
    CHECK(repeat_record_task(NULL, &o, err, sizeof err) == -1, "no record is refused");
}

int main(void)
{
    test_config_object();
    test_record_round_trip();
    return t_done("test_repeat_recipe");
}
