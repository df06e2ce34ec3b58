/* test_models.c - the shipped trained models mean something: the decoder has a
 * previous-token head, the translation model's cross-attention follows the word alignment of
 * held-out sentence pairs, and the cheating experiment comes out as the course says.
 * Everything is measured here, on held-out data, with the engine's forward pass. Run from the
 * repository root (after `make models`, or with the committed models). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "train.h"

static int load(Model *m, const char *path)
{
    char err[512];
    if (model_load(m, path, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static int load_corpus(Corpus *c, const Model *m, const char *path)
{
    char err[512];
    int rc = m->cfg.arch == ARCH_ENCDEC ? corpus_load_pairs(c, path, &m->vocab, err, sizeof err)
                                        : corpus_load_lm(c, path, &m->vocab, err, sizeof err);
    if (rc)
        fprintf(stderr, "%s\n", err);
    return rc;
}

/* Every lesson sentence tokenizes without <unk> and is in the training corpus. */
static void test_lesson_sentences(const Model *m)
{
    FILE *f = fopen("data/corpus/lessons.txt", "r");
    CHECK(f != NULL, "data/corpus/lessons.txt is readable");
    if (!f)
        return;
    FILE *g = fopen("data/corpus/english.txt", "r");
    char *corpus = NULL;
    size_t clen = 0;
    if (g) {
        fseek(g, 0, SEEK_END);
        clen = (size_t)ftell(g);
        rewind(g);
        corpus = calloc(clen + 2, 1);
        corpus[0] = '\n';
        if (fread(corpus + 1, 1, clen, g) != clen)
            clen = 0;
        fclose(g);
    }
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!line[0])
            continue;
        int ids[64];
        TokenizeInfo info;
        vocab_tokenize(&m->vocab, line, ids, 64, &info);
        CHECK(info.n_unknown == 0, "lesson sentence \"%s\" has unknown word \"%s\"", line,
              info.unknown[0]);
        char needle[520];
        snprintf(needle, sizeof needle, "\n%s\n", line);
        CHECK(corpus && strstr(corpus, needle), "\"%s\" is in the corpus", line);
        n++;
    }
    fclose(f);
    free(corpus);
    CHECK(n >= 10, "%d lesson sentences", n);
}

static void test_decoder(const Model *m)
{
    Corpus held;
    CHECK(load_corpus(&held, m, "data/corpus/english-test.txt") == 0, "held-out English loads");
    int H = m->cfg.n_heads, NL = m->cfg.n_layers;
    HeadStat *hs = calloc((size_t)H * NL, sizeof *hs);
    CHECK(train_head_stats(m, &held, 600, 0, hs) == 0, "head statistics");
    double best = 0.0;
    int bl = -1, bh = -1;
    for (int k = 0; k < H * NL; k++)
        if (hs[k].prev > best) {
            best = hs[k].prev;
            bl = k / H;
            bh = k % H;
        }
    printf("decoder: best previous-token head L%d.h%d, mean weight %.3f over %ld rows\n", bl,
           bh, best, bl >= 0 ? hs[bl * H + bh].rows : 0L);
    CHECK(best >= 0.5, "a head puts mean weight >= 0.5 on the previous token (best %.3f)", best);
    CHECK(hs[0].rows > 2000, "statistics over many rows (%ld)", hs[0].rows);
    free(hs);
    corpus_free(&held);
}

static void test_translate(const Model *m)
{
    Corpus train, held;
    CHECK(load_corpus(&train, m, "data/corpus/parallel-train.txt") == 0, "pairs load");
    CHECK(load_corpus(&held, m, "data/corpus/parallel-test.txt") == 0, "held-out pairs load");
    /* choose the head on (the first 300) training pairs, then measure on held-out pairs */
    int keep = train.n_pairs;
    train.n_pairs = keep < 300 ? keep : 300;
    double best = -1.0;
    int bl = 0, bh = 0;
    for (int l = 0; l < m->cfg.n_layers; l++)
        for (int h = 0; h < m->cfg.n_heads; h++) {
            double wa, pa;
            if (train_cross_alignment(m, &train, l, h, &wa, &pa) == 0 && wa > best) {
                best = wa;
                bl = l;
                bh = h;
            }
        }
    train.n_pairs = keep;
    double wa = 0, pa = 0;
    CHECK(train_cross_alignment(m, &held, bl, bh, &wa, &pa) == 0, "alignment measured");
    printf("translate: cross-attention L%d.h%d on %d held-out pairs: %.1f%% of French words, "
           "%.1f%% of pairs entirely aligned\n", bl, bh, held.n_pairs, 100 * wa, 100 * pa);
    CHECK(pa >= 0.8, "argmax follows the alignment in >= 80%% of held-out pairs (%.3f)", pa);
    CHECK(wa >= 0.9, "and for >= 90%% of French words (%.3f)", wa);
    /* no held-out pair is a training pair */
    int overlap = 0;
    for (int a = 0; a < held.n_pairs && !overlap; a++)
        for (int b = 0; b < train.n_pairs; b++) {
            const CorpusPair *x = &held.pairs[a], *y = &train.pairs[b];
            if (x->src_len == y->src_len && x->tgt_len == y->tgt_len &&
                !memcmp(held.ids + x->src_off, train.ids + y->src_off,
                        sizeof(int) * (size_t)x->src_len) &&
                !memcmp(held.ids + x->tgt_off, train.ids + y->tgt_off,
                        sizeof(int) * (size_t)x->tgt_len)) {
                overlap = 1;
                break;
            }
        }
    CHECK(!overlap, "held-out pairs are not in the training set");
    TrainOpts o;
    train_opts_defaults(&o);
    double ev = train_eval_loss(m, &held, &o, 1, 300);
    printf("translate: held-out loss %.4f\n", ev);
    CHECK(ev < 0.2, "translation loss on held-out pairs is low (%.4f)", ev);
    corpus_free(&train);
    corpus_free(&held);
}

/* Trained without the causal mask, the decoder reads the answer: its (unmasked) training loss
 * is far lower, yet with the mask restored its loss on held-out text is higher. */
static void test_cheating(const Model *masked, const Model *cheat)
{
    Corpus tr, held;
    CHECK(load_corpus(&tr, masked, "data/corpus/english.txt") == 0, "corpus loads");
    CHECK(load_corpus(&held, masked, "data/corpus/english-test.txt") == 0, "held-out loads");
    TrainOpts o;
    train_opts_defaults(&o);
    o.seq_len = masked->cfg.max_len;
    double m_train = train_eval_loss(masked, &tr, &o, 1, 150);
    double c_train = train_eval_loss(cheat, &tr, &o, 0, 150);
    double m_eval = train_eval_loss(masked, &held, &o, 1, 150);
    double c_eval = train_eval_loss(cheat, &held, &o, 1, 150);
    printf("cheating: training loss masked %.3f, unmasked %.3f; held-out loss with the mask: "
           "masked-trained %.3f, unmasked-trained %.3f\n", m_train, c_train, m_eval, c_eval);
    CHECK(c_train < m_train, "the unmasked run's training loss is lower (%.3f < %.3f)", c_train,
          m_train);
    CHECK(c_eval > m_eval, "its masked evaluation loss is higher (%.3f > %.3f)", c_eval, m_eval);
    CHECK(c_eval > 2.0 * m_eval, "much higher (%.3f vs %.3f)", c_eval, m_eval);
    corpus_free(&tr);
    corpus_free(&held);
}

int main(void)
{
    Model dec, tr, cheat;
    int ok_dec = load(&dec, "data/decoder.json") == 0;
    int ok_tr = load(&tr, "data/translate.json") == 0;
    int ok_ch = load(&cheat, "data/decoder-cheat.json") == 0;
    CHECK(ok_dec && ok_tr && ok_ch, "the shipped models load (run from the repository root)");
    if (ok_dec) {
        CHECK(dec.cfg.arch == ARCH_DECODER && dec.cfg.n_heads == 4 && dec.cfg.n_layers == 2 &&
              dec.cfg.max_len == 32 && dec.cfg.d_model >= 32 && dec.cfg.d_model <= 64,
              "decoder shape");
        CHECK(dec.training != NULL, "decoder records how it was trained");
        test_lesson_sentences(&dec);
        test_decoder(&dec);
    }
    if (ok_tr) {
        CHECK(tr.cfg.arch == ARCH_ENCDEC, "translate is an encoder-decoder");
        test_translate(&tr);
    }
    if (ok_dec && ok_ch)
        test_cheating(&dec, &cheat);
    if (ok_dec)
        model_free(&dec);
    if (ok_tr)
        model_free(&tr);
    if (ok_ch)
        model_free(&cheat);
    return t_done("models");
}
