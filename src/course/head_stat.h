/* head_stat.h - what one head does on the sentence it just read (previous token, itself, the
 * first token: the attention sink, the next token): the scores `attend dump --heads` prints and
 * the player's small multiples show. No curses, no printing, no exit(). */
#ifndef ATTEND_HEAD_STAT_H
#define ATTEND_HEAD_STAT_H

#include "model.h"

/* The mean weight each query puts on the previous token, itself and the first token (queries
 * that have a previous token only), and on the next token (queries that have one); what is
 * the largest of them at HEAD_STAT_MIN or more ("previous token", ...), and its short name
 * ("prev", "self", "first", "next"; "mixed" below HEAD_STAT_MIN on all). */
typedef struct {
    double prev, next, self, first;
    const char *what;
    const char *tag;
    double best;      /* the score what names (0 for a content pattern) */
} HeadStat;

#define HEAD_STAT_MIN 0.4

/* The scores of head h of layer l of stack st's self-attention in trace t; bidir: the run
 * has no causal mask there (then "next token" is a verdict too). 0, or -1 when t holds no
 * such head. */
int head_stat_read(const Trace *t, Stack st, int l, int h, int bidir, HeadStat *s);

/* The token of run t that reads as word (case and surrounding spaces ignored): the last one
 * at or before position before; -1 if none. */
int head_stat_find_token(const Model *m, const Trace *t, const char *word, int before);

/* One head's weight from one query on one key. */
typedef struct {
    int layer, head;
    float w;
} HeadPair;
/* The weight query q puts on key k in every self-attention head of the main stack of t
 * (rows: n_layers * n_heads of m), highest first (the river-bank exercise: which head links
 * them). Returns how many rows it wrote. */
int head_stat_pair(const Model *m, const Trace *t, int q, int k, HeadPair *rows);

#endif
