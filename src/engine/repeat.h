/* repeat.h - the repeated-sequence task that forms induction heads: a random prefix, a
 * random segment of varied length, the same segment again, random filler. No curses, no
 * printing, no exit(). */
#ifndef ATTEND_REPEAT_H
#define ATTEND_REPEAT_H

#include "corpus.h"
#include "json.h"

/* Which positions carry a loss: every position, only the second copy's, or both copies'
 * (the first copy's random words keep its predictions calibrated near ln(words)). */
typedef enum { REPEAT_LOSS_ALL, REPEAT_LOSS_SECOND, REPEAT_LOSS_COPIES } RepeatLoss;

typedef struct {
    int on;            /* 1: train on this task instead of a corpus */
    int min_seg;       /* segment lengths n, uniform in min_seg..max_seg (>= 2) */
    int max_seg;
    RepeatLoss loss;   /* where the targets are (REPEAT_LOSS_SECOND: the second copy only) */
} RepeatOpts;

/* The recipe's one reader and the names its writer uses (repeat_run.c writes the record):
 * the loss's name in configs and training records, "all", "second-copy" or "copies". */
const char *repeat_loss_name(RepeatLoss l);
/* 0 and *l, or -1 when s names no loss. */
int repeat_loss_parse(const char *s, RepeatLoss *l);
/* Reads a "repeat" object (a training config's or a training record's, docs/training.md):
 * min_segment and max_segment (2..2047), loss (absent: second-copy), history_every (0..10⁶,
 * into *every when every is not NULL; absent: 50). where names the object in messages
 * ("repeat", "training.repeat"). A key or a loss it does not know is an error naming it. Sets
 * o->on. 0, or -1 with a message. */
int repeat_opts_read(const cJSON *r, const char *where, RepeatOpts *o, int *every, char *err,
                     size_t errlen);
/* The task of a training record (a model's "training" object as text, docs/model-format.md):
 * 0 with o filled from its "repeat" object when its "task" is "repeat"; -1 with a message when
 * there is no record, another task, or a bad "repeat" object. */
int repeat_record_task(const char *training, RepeatOpts *o, char *err, size_t errlen);

/* Where one example's copies are: the first copy at s1..s1+n-1, the second at
 * s2 = s1+n .. s2+n-1. Position i "of the first copy" predicts its next token, the segment's
 * token i-s1+1 (i in s1..s1+n-2: a random token, unpredictable); "of the second copy" i in
 * s2..s2+n-2 predicts the token after the earlier occurrence of its own token (what an
 * induction head copies). The copies' last positions predict the token after the copy. */
typedef struct {
    int s1, s2, n;
} RepeatSpan;

/* The tokens a repeated sequence is drawn from: every id of v except the special <...>
 * words. Writes at most max ids to pool; returns how many there are. */
int repeat_pool(const Vocab *v, int *pool, int max);

/* 0 if o is usable for sequences of len tokens (2 <= min_seg <= max_seg, 1 + 2·max_seg <=
 * len), else -1 with a message naming the key. */
int repeat_check(const RepeatOpts *o, int len, char *err, size_t errlen);

/* One training example of len tokens, deterministic from rng: src[0] = bos (when bos >= 0),
 * a random prefix, a segment of n tokens (n uniform in min_seg..max_seg), the segment again,
 * random filler; every token drawn uniformly from pool. tgt[i] is the token after src[i] (the
 * last one drawn too), or -1 where o->loss puts no loss: REPEAT_LOSS_SECOND keeps only the
 * second copy's positions s2..s2+n-2, REPEAT_LOSS_COPIES those and the first copy's
 * s1..s1+n-2. span (may be NULL) gets the copies' positions. The
 * caller checked o with repeat_check. */
void repeat_example(CorpusRng *rng, const RepeatOpts *o, const int *pool, int n_pool, int bos,
                    int len, int *src, int *tgt, RepeatSpan *span);

/* The plain probe [bos, R, R] of 1 + 2n tokens (no prefix, no filler; without bos, 2n
 * tokens), R n random tokens from pool, all different when n <= n_pool; shuffled 1: the second copy is R in a random order
 * instead (the prefix-matching probe). Returns the number of tokens written to src. */
int repeat_probe(CorpusRng *rng, const int *pool, int n_pool, int bos, int n, int shuffled,
                 int *src, RepeatSpan *span);

#endif
