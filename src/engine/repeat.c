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
