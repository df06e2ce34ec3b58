/* cmd_train_repeat.c - `attend train` on the repeated-sequence task: the config's "repeat"
 * object, the history measured while training, and the model's training record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_train_repeat.h"

static const char *const REPEAT_KEYS[] = {"min_segment", "max_segment", "loss", "history_every",
                                          NULL};

int train_repeat_read(const cJSON *r, RepeatOpts *o, int *every, char *msg, size_t msglen)
{
    memset(o, 0, sizeof *o);
    *every = 50;
    if (!cJSON_IsObject(r)) {
        snprintf(msg, msglen, "\"repeat\" must be an object");
        return -1;
    }
    for (const cJSON *it = r->child; it; it = it->next) {
        int k = 0;
        while (REPEAT_KEYS[k] && strcmp(REPEAT_KEYS[k], it->string))
            k++;
        if (!REPEAT_KEYS[k]) {
            snprintf(msg, msglen, "unknown key \"repeat.%s\" (expected min_segment, "
                     "max_segment, loss, history_every)", it->string);
            return -1;
        }
    }
    if (json_get_int(r, "min_segment", 2, 2047, &o->min_seg, "repeat.min_segment", msg, msglen) ||
        json_get_int(r, "max_segment", 2, 2047, &o->max_seg, "repeat.max_segment", msg, msglen))
        return -1;
    if (json_get(r, "history_every") &&
        json_get_int(r, "history_every", 0, 1000000, every, "repeat.history_every", msg, msglen))
        return -1;
    o->loss = REPEAT_LOSS_SECOND;
    if (json_get(r, "loss")) {
        const char *s = json_get_string(r, "loss", "repeat.loss", msg, msglen);
        if (!s)
            return -1;
        if (strcmp(s, "second-copy") && strcmp(s, "copies") && strcmp(s, "all")) {
            snprintf(msg, msglen, "\"repeat.loss\" is \"%s\", expected second-copy, copies or "
                     "all", s);
            return -1;
        }
        o->loss = !strcmp(s, "all") ? REPEAT_LOSS_ALL : !strcmp(s, "copies") ? REPEAT_LOSS_COPIES
                                                                            : REPEAT_LOSS_SECOND;
    }
    o->on = 1;
    return 0;
}

char *train_repeat_record(const char *cfg_path, const TrainOpts *o, int every, int done,
                          double avg, const HeadsHistory *h, double first, double second,
                          long tokens)
{
    char *hist = h->n ? heads_history_json(h) : NULL;
    if (h->n && !hist)
        return NULL;
    char head[1024];
    snprintf(head, sizeof head,
             "{\"config\": \"%s\", \"task\": \"repeat\", \"repeat\": {\"min_segment\": %d, "
             "\"max_segment\": %d, \"loss\": \"%s\"}, \"seq_len\": %d, \"steps\": %d, "
             "\"batch\": %d, \"lr\": %.6g, \"seed\": %llu, \"causal_mask\": true, \"warmup\": %d, "
             "\"min_lr_ratio\": %.6g, \"weight_decay\": %.6g, \"clip\": %.6g, "
             "\"history_every\": %d, "
             "\"final_train_loss\": %.4f, \"loss_first_copy\": %.4f, "
             "\"loss_second_copy\": %.4f, \"tokens\": %ld",
             cfg_path, o->repeat.min_seg, o->repeat.max_seg,
             o->repeat.loss == REPEAT_LOSS_SECOND   ? "second-copy"
             : o->repeat.loss == REPEAT_LOSS_COPIES ? "copies"
                                                    : "all",
             o->seq_len, done,
             o->batch, (double)o->lr, (unsigned long long)o->seed, o->warmup,
             (double)o->min_lr_ratio, (double)o->weight_decay, (double)o->clip, every, avg, first,
             second, tokens);
    size_t n = strlen(head) + (hist ? strlen(hist) : 0) + 32;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s%s%s}", head, hist ? ", \"history\": " : "", hist ? hist : "");
    free(hist);
    return out;
}
