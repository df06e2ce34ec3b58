/* repeat.c - the repeated-sequence task (see repeat.h): examples for the trainer and the
 * probes the head scores read. */
#include "repeat.h"

#include <stdio.h>
#include <string.h>

int repeat_pool(const Vocab *v, int *pool, int max)
{
    int k = 0;
    for (int id = 0; id < v->n; id++) {
        const char *w = vocab_word(v, id);
        size_t len = strlen(w);
        if (len >= 2 && w[0] == '<' && w[len - 1] == '>')
            continue;
        if (k < max)
            pool[k] = id;
        k++;
    }
    return k;
}

int repeat_check(const RepeatOpts *o, int len, char *err, size_t errlen)
{
    if (o->min_seg < 2 || o->max_seg < o->min_seg) {
        snprintf(err, errlen, "repeat: min_segment %d and max_segment %d must satisfy 2 <= "
                 "min_segment <= max_segment", o->min_seg, o->max_seg);
        return -1;
    }
    if (1 + 2 * o->max_seg > len) {
        snprintf(err, errlen, "repeat: max_segment %d does not fit twice in seq_len %d (at "
                 "most %d)", o->max_seg, len, (len - 1) / 2);
        return -1;
    }
    return 0;
}

static int below(CorpusRng *rng, int n) /* uniform in 0..n-1 */
{
    return (int)(corpus_rng_next(rng) % (uint32_t)n);
}

void repeat_example(CorpusRng *rng, const RepeatOpts *o, const int *pool, int n_pool, int bos,
                    int len, int *src, int *tgt, RepeatSpan *span)
{
    int head = bos >= 0 ? 1 : 0;
    int n = o->min_seg + below(rng, o->max_seg - o->min_seg + 1);
    int p = below(rng, len - head - 2 * n + 1); /* prefix length 0..len-head-2n */
    int s1 = head + p, s2 = s1 + n;
    /* len + 1 tokens: the last one only as the last target */
    for (int i = 0; i <= len; i++) {
        int tok;
        if (i == 0 && head)
            tok = bos;
        else if (i >= s2 && i < s2 + n)
            tok = src[i - n];
        else
            tok = pool[below(rng, n_pool)];
        if (i < len)
            src[i] = tok;
        if (i > 0)
            tgt[i - 1] = tok;
    }
    for (int i = 0; o->loss != REPEAT_LOSS_ALL && i < len; i++) {
        int second = i >= s2 && i <= s2 + n - 2, first = i >= s1 && i <= s1 + n - 2;
        if (!second && !(first && o->loss == REPEAT_LOSS_COPIES))
            tgt[i] = -1;
    }
    if (span)
        *span = (RepeatSpan){s1, s2, n};
}

int repeat_probe(CorpusRng *rng, const int *pool, int n_pool, int bos, int n, int shuffled,
                 int *src, RepeatSpan *span)
{
    int head = bos >= 0 ? 1 : 0;
    if (head)
        src[0] = bos;
    for (int i = 0; i < n; i++) { /* distinct words when the pool has enough */
        int tok, again;
        do {
            tok = pool[below(rng, n_pool)];
            again = 0;
            for (int j = 0; j < i && n <= n_pool; j++)
                again |= src[head + j] == tok;
        } while (again);
        src[head + i] = tok;
    }
    int *second = src + head + n;
    memcpy(second, src + head, sizeof(int) * (size_t)n);
    if (shuffled)
        for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
            int j = below(rng, i + 1), t = second[i];
            second[i] = second[j];
            second[j] = t;
        }
    if (span)
        *span = (RepeatSpan){head, head + n, n};
    return head + 2 * n;
}

static const char *const LOSS_NAMES[] = {"all", "second-copy", "copies"};

const char *repeat_loss_name(RepeatLoss l)
{
    return (unsigned)l < 3 ? LOSS_NAMES[l] : "?";
}

int repeat_loss_parse(const char *s, RepeatLoss *l)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, LOSS_NAMES[i])) {
            *l = (RepeatLoss)i;
            return 0;
        }
    return -1;
}

int repeat_opts_read(const cJSON *r, const char *where, RepeatOpts *o, int *every, char *err,
                     size_t errlen)
{
    static const char *const KEYS[] = {"min_segment", "max_segment", "loss", "history_every",
                                       NULL};
    char what[64];
    memset(o, 0, sizeof *o);
    if (every)
        *every = 50;
    if (!cJSON_IsObject(r)) {
        snprintf(err, errlen, "\"%s\" must be an object", where);
        return -1;
    }
    for (const cJSON *it = r->child; it; it = it->next) {
        int k = 0;
        while (KEYS[k] && strcmp(KEYS[k], it->string))
            k++;
        if (!KEYS[k]) {
            snprintf(err, errlen, "unknown key \"%s.%s\" (expected min_segment, max_segment, "
                     "loss, history_every)", where, it->string);
            return -1;
        }
    }
    snprintf(what, sizeof what, "%s.min_segment", where);
    if (json_get_int(r, "min_segment", 2, 2047, &o->min_seg, what, err, errlen))
        return -1;
    snprintf(what, sizeof what, "%s.max_segment", where);
    if (json_get_int(r, "max_segment", 2, 2047, &o->max_seg, what, err, errlen))
        return -1;
    snprintf(what, sizeof what, "%s.history_every", where);
    int ev = 50;
    if (json_get(r, "history_every") &&
        json_get_int(r, "history_every", 0, 1000000, &ev, what, err, errlen))
        return -1;
    if (every)
        *every = ev;
    o->loss = REPEAT_LOSS_SECOND;
    if (json_get(r, "loss")) {
        snprintf(what, sizeof what, "%s.loss", where);
        const char *s = json_get_string(r, "loss", what, err, errlen);
        if (!s)
            return -1;
        if (repeat_loss_parse(s, &o->loss)) {
            snprintf(err, errlen, "\"%s.loss\" is \"%s\", expected second-copy, copies or all",
                     where, s);
            return -1;
        }
    }
    o->on = 1;
    return 0;
}

int repeat_record_task(const char *training, RepeatOpts *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    cJSON *rec = training ? json_parse_text("training", training, strlen(training), err, errlen)
                          : NULL;
    const cJSON *task = rec ? json_get(rec, "task") : NULL;
    int rc = -1;
    if (!rec || !cJSON_IsString(task) || strcmp(task->valuestring, "repeat"))
        snprintf(err, errlen, "not trained on the repeated-sequence task (no \"task\": "
                 "\"repeat\" in its training record)");
    else if (!json_get(rec, "repeat"))
        snprintf(err, errlen, "training.repeat is missing");
    else
        rc = repeat_opts_read(json_get(rec, "repeat"), "training.repeat", o, NULL, err, errlen);
    cJSON_Delete(rec);
    return rc;
}
