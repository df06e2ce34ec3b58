/* train_heads.c - what a trained model's heads do: attention statistics over a corpus and the
 * cross-attention alignment of an encoder-decoder. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"

/* ======================= what the heads do ======================= */

/* Runs one sentence through model_forward; NULL on error. */
static int run_pair(const Model *m, Trace *t, const int *src, int n, const int *dec, int mm_)
{
    Controls c;
    char err[256];
    model_default_controls(m, &c);
    /* model_forward takes the target words and reads them shifted right behind <bos>;
     * dec is that input (<bos> first), so the targets are dec[1..]: mm_ - 1 rows, each the
     * step that produces one French word. */
    if (m->cfg.arch == ARCH_ENCDEC)
        return model_forward(m, src, n, dec + 1, mm_ - 1, &c, t, err, sizeof err);
    return model_forward(m, src, n, dec, mm_, &c, t, err, sizeof err);
}

/* The example of line/pair e of c: src (and dec with <bos>); returns 0 or -1 if too long. */
static int corpus_example(const Model *m, const Corpus *c, int e, int *src, int *n, int *dec,
                          int *mm_)
{
    int L = m->cfg.max_len;
    if (c->kind == CORPUS_LM) {
        int start = c->starts[e], end = e + 1 < c->n_lines ? c->starts[e + 1] : c->n_ids;
        if (end - start > L || end == start)
            return -1;
        memcpy(src, c->ids + start, sizeof(int) * (size_t)(end - start));
        *n = end - start;
        *mm_ = 0;
        return 0;
    }
    const CorpusPair *p = &c->pairs[e];
    if (p->src_len > L || p->tgt_len + 1 > L)
        return -1;
    memcpy(src, c->ids + p->src_off, sizeof(int) * (size_t)p->src_len);
    dec[0] = vocab_id(&m->vocab, "<bos>");
    memcpy(dec + 1, c->ids + p->tgt_off, sizeof(int) * (size_t)p->tgt_len);
    *n = p->src_len;
    *mm_ = p->tgt_len + 1;
    return 0;
}

int train_head_stats(const Model *m, const Corpus *c, int max_lines, int enc, HeadStat *out)
{
    const ModelConfig *cfg = &m->cfg;
    int L = cfg->max_len, H = cfg->n_heads;
    int encdec = cfg->arch == ARCH_ENCDEC;
    if ((c->kind == CORPUS_PAIRS) != encdec)
        return -1;
    Stack st = encdec && !enc ? STACK_DEC : model_self_stack(m); /* enc: the encoder */
    Trace *t = trace_new(m, L, L);
    int *src = malloc(sizeof(int) * (size_t)L), *dec = malloc(sizeof(int) * (size_t)L);
    int rc = -1;
    if (!t || !src || !dec)
        goto out;
    memset(out, 0, sizeof *out * (size_t)cfg->n_layers * H);
    int lines = c->kind == CORPUS_LM ? c->n_lines : c->n_pairs;
    for (int e = 0; e < lines && e < max_lines; e++) {
        int n, mm_;
        if (corpus_example(m, c, e, src, &n, dec, &mm_) || run_pair(m, t, src, n, dec, mm_))
            continue;
        for (int l = 0; l < cfg->n_layers; l++)
            for (int h = 0; h < H; h++) {
                const TraceEntry *w = trace_find(t, st, l, SUB_SELF, h, T_WEIGHTS);
                if (!w)
                    goto out;
                HeadStat *hs = &out[l * H + h];
                for (int i = 0; i < w->rows; i++) {
                    const float *r = w->data + (size_t)i * w->cols;
                    if (i + 1 < w->cols) {
                        hs->next += r[i + 1];
                        hs->next_rows++;
                    }
                    if (i == 0)
                        continue;
                    hs->prev += r[i - 1];
                    hs->self += r[i];
                    hs->first += r[0];
                    hs->rows++;
                }
            }
    }
    for (int k = 0; k < cfg->n_layers * H; k++) {
        if (out[k].rows) {
            out[k].prev /= out[k].rows;
            out[k].self /= out[k].rows;
            out[k].first /= out[k].rows;
        }
        if (out[k].next_rows)
            out[k].next /= out[k].next_rows;
    }
    rc = 0;
out:
    trace_free(t);
    free(src);
    free(dec);
    return rc;
}

int train_cross_alignment(const Model *m, const Corpus *c, int layer, int head,
                          double *word_acc, double *pair_acc)
{
    const ModelConfig *cfg = &m->cfg;
    int L = cfg->max_len;
    *word_acc = *pair_acc = 0.0;
    if (cfg->arch != ARCH_ENCDEC || c->kind != CORPUS_PAIRS || layer < 0 ||
        layer >= cfg->n_layers || head < -1 || head >= cfg->n_heads)
        return -1;
    Trace *t = trace_new(m, L, L);
    int *src = malloc(sizeof(int) * (size_t)L), *dec = malloc(sizeof(int) * (size_t)L);
    float *avg = malloc(sizeof(float) * (size_t)L * L);
    long words = 0, good_words = 0, pairs = 0, good_pairs = 0;
    int rc = -1;
    if (!t || !src || !dec || !avg)
        goto out;
    for (int e = 0; e < c->n_pairs; e++) {
        int n, mm_;
        if (!c->pairs[e].n_links || corpus_example(m, c, e, src, &n, dec, &mm_))
            continue;
        if (run_pair(m, t, src, n, dec, mm_))
            goto out;
        memset(avg, 0, sizeof(float) * (size_t)mm_ * n);
        for (int h = 0; h < cfg->n_heads; h++) {
            if (head >= 0 && h != head)
                continue;
            const TraceEntry *w = trace_find(t, STACK_DEC, layer, SUB_CROSS, h, T_WEIGHTS);
            if (!w)
                goto out;
            /* the decoder's mm_ - 1 rows (one per French word), not mm_: the map holds no
             * row for the last input word, and a lazily computed map ends right there */
            for (int k = 0; k < w->rows * w->cols && k < (mm_ - 1) * n; k++)
                avg[k] += w->data[k];
        }
        int all = 1;
        for (int j = 0; j < mm_ - 1; j++) { /* row j produces French word j */
            const float *r = avg + (size_t)j * n;
            int best = 0;
            for (int i = 1; i < n; i++)
                if (r[i] > r[best])
                    best = i;
            int ok = corpus_linked(c, e, best, j);
            good_words += ok;
            all &= ok;
            words++;
        }
        good_pairs += all;
        pairs++;
    }
    if (!pairs)
        goto out;
    *word_acc = (double)good_words / words;
    *pair_acc = (double)good_pairs / pairs;
    rc = 0;
out:
    trace_free(t);
    free(src);
    free(dec);
    free(avg);
    return rc;
}
