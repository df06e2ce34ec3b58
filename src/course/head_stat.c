/* head_stat.c - one head's scores on the sentence it read (head_stat.h). */
#include "head_stat.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int head_stat_read(const Trace *t, Stack st, int l, int h, int bidir, HeadStat *s)
{
    const TraceEntry *w = trace_find(t, st, l, SUB_SELF, h, T_WEIGHTS);
    if (!w)
        return -1;
    double prev = 0, self = 0, first = 0, next = 0;
    int nq = 0, nn = 0;
    for (int i = 0; i < w->rows; i++) {
        const float *r = w->data + (size_t)i * w->cols;
        if (i + 1 < w->cols) {
            next += r[i + 1];
            nn++;
        }
        if (i == 0)
            continue;
        prev += r[i - 1];
        self += r[i];
        first += r[0];
        nq++;
    }
    if (nq) {
        prev /= nq;
        self /= nq;
        first /= nq;
    }
    if (nn)
        next /= nn;
    const char *what = "content pattern (spread by meaning, not position)", *tag = "mixed";
    double best = HEAD_STAT_MIN, score = 0;
    if (prev >= best) { what = "previous token"; tag = "prev"; best = score = prev; }
    if (bidir && next >= best) { what = "next token"; tag = "next"; best = score = next; }
    if (self >= best) { what = "itself"; tag = "self"; best = score = self; }
    if (first >= best) { what = "first token"; tag = "first"; best = score = first; }
    *s = (HeadStat){prev, next, self, first, what, tag, score};
    return 0;
}

int head_stat_find_token(const Model *m, const Trace *t, const char *word, int before)
{
    size_t wl = strlen(word);
    for (int i = before < t->n ? before : t->n - 1; i >= 0; i--) {
        const char *w = vocab_word(&m->vocab, t->src[i]);
        while (*w == ' ')
            w++;
        size_t l = strlen(w);
        while (l && w[l - 1] == ' ')
            l--;
        if (l == wl && !strncasecmp(w, word, wl))
            return i;
    }
    return -1;
}

static int cmp_pair(const void *a, const void *b)
{
    float x = ((const HeadPair *)a)->w, y = ((const HeadPair *)b)->w;
    return x < y ? 1 : x > y ? -1 : 0;
}

int head_stat_pair(const Model *m, const Trace *t, int q, int k, HeadPair *rows)
{
    const ModelConfig *c = &m->cfg;
    Stack st = model_self_stack(m);
    int n = 0;
    /* one row of each head's weights (trace_map_row: the whole map's bits, without computing
     * or caching every head's n×n maps, which a long sentence's cache cannot hold) */
    float *row = malloc(sizeof(float) * (size_t)(t->n > t->m ? t->n : t->m > 0 ? t->m : 1));
    if (!row)
        return 0;
    for (int l = 0; l < c->n_layers; l++)
        for (int h = 0; h < c->n_heads; h++)
            if (k >= 0 && k < t->n &&
                !trace_map_row(t, st, l, SUB_SELF, h, T_WEIGHTS, q, row))
                rows[n++] = (HeadPair){l, h, row[k]};
    free(row);
    qsort(rows, (size_t)n, sizeof *rows, cmp_pair);
    return n;
}
