/* test_models.c - the shipped trained models mean something: the decoder has a
 * previous-token head, the translation model's cross-attention follows the word alignment of
 * held-out sentence pairs, the cheating experiment comes out as the course says, and the
 * masked-LM encoder fills hidden nouns and verbs far better than word frequency alone, using
 * the words after the blank as well as those before it.
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


/* ---- the masked-LM encoder ---- */

/* The nouns and verbs of the grammar (tools/gencorpus.c), and the pronoun of the gendered and
 * animal nouns. */
static const char *const NOUNS_VERBS[] = {
    "cat", "dog", "bird", "mouse", "horse", "fox", "animal", "rabbit", "cow", "man", "boy",
    "king", "woman", "girl", "queen", "lawyer", "witness", "teacher", "doctor", "student",
    "child", "farmer", "judge", "ball", "book", "bone", "apple", "hat", "box", "letter", "key",
    "bag", "cake", "mat", "rug", "bed", "sofa", "floor", "grass", "hill", "table", "chair",
    "tree", "river", "door", "window", "fire", "road", "wall", "bank", "money", "street",
    "friend", "mother", "father", "sat", "slept", "lay", "stood", "waited", "left", "ran",
    "smiled", "jumped", "laughed", "walked", "chased", "saw", "liked", "followed", "watched",
    "helped", "bit", "found", "called", "took", "dropped", "carried", "wanted", "bites", "sees",
    "likes", "chases", "follows", "deposited", "saved", "kept", "read", "recommended", "cross",
    NULL};
static const char *const HE_NOUNS[] = {"man", "boy", "king", NULL};
static const char *const SHE_NOUNS[] = {"woman", "girl", "queen", NULL};
static const char *const IT_NOUNS[] = {"cat", "dog", "bird", "mouse", "horse", "fox", "animal",
                                       "rabbit", "cow", NULL};

static int in_list(const char *w, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(w, list[i]))
            return 1;
    return 0;
}

/* The model's best word for position pos of ids (n tokens): not a special token. */
static int fill(const Model *m, Trace *t, const int *ids, int n, int pos)
{
    Controls c;
    char err[256];
    model_default_controls(m, &c);
    if (model_forward(m, ids, n, NULL, 0, &c, t, err, sizeof err))
        return -1;
    const TraceEntry *lg = trace_find(t, STACK_ENC, -1, SUB_NONE, -1, T_LOGITS);
    if (!lg)
        return -1;
    const float *r = lg->data + (size_t)pos * lg->cols;
    int best = -1;
    for (int j = 0; j < lg->cols; j++)
        if (vocab_word(&m->vocab, j)[0] != '<' && (best < 0 || r[j] > r[best]))
            best = j;
    return best;
}

static const char *const *pronoun_class(const char *w)
{
    return in_list(w, HE_NOUNS) ? HE_NOUNS : in_list(w, SHE_NOUNS) ? SHE_NOUNS
           : in_list(w, IT_NOUNS) ? IT_NOUNS : NULL;
}

static void test_encoder(const Model *m)
{
    Corpus tr, held;
    CHECK(load_corpus(&tr, m, "data/corpus/english.txt") == 0, "corpus loads");
    CHECK(load_corpus(&held, m, "data/corpus/english-test.txt") == 0, "held-out loads");
    const Vocab *v = &m->vocab;
    int V = m->cfg.vocab_size, L = m->cfg.max_len, mask = train_mask_id(m);
    CHECK(!strcmp(vocab_word(v, mask), "<mask>"), "the vocabulary has <mask>");
    /* the unigram baseline: the most frequent noun or verb of the training text, always */
    long *freq = calloc((size_t)V, sizeof *freq);
    for (int i = 0; i < tr.n_ids; i++)
        freq[tr.ids[i]]++;
    int uni = -1;
    for (int j = 0; j < V; j++)
        if (in_list(vocab_word(v, j), NOUNS_VERBS) && (uni < 0 || freq[j] > freq[uni]))
            uni = j;
    Trace *t = trace_new(m, L, 0);
    int ids[64];
    CorpusRng rng;
    corpus_rng_seed(&rng, 2024);
    long n = 0, hit = 0, hit_uni = 0, n_r = 0, hit_r = 0, hit_rr = 0, hit_lr = 0;
    for (int s = 0; s < held.n_lines; s++) {
        int start = held.starts[s];
        int len = (s + 1 < held.n_lines ? held.starts[s + 1] : held.n_ids) - start;
        if (len > L)
            continue;
        const int *sent = held.ids + start;
        for (int i = 0; i < len; i++) {
            if (!in_list(vocab_word(v, sent[i]), NOUNS_VERBS))
                continue;
            memcpy(ids, sent, sizeof(int) * (size_t)len);
            ids[i] = mask;
            int got = fill(m, t, ids, len, i);
            n++;
            hit += got == sent[i];
            hit_uni += uni == sent[i];
            /* with words on both sides (besides the final "."): replace the right-hand ones by
             * random words of the corpus, then (separately) the left-hand ones */
            if (i == 0 || i + 1 >= len - 1)
                continue;
            n_r++;
            hit_r += got == sent[i];
            for (int k = i + 1; k < len - 1; k++)
                ids[k] = tr.ids[corpus_rng_next(&rng) % (uint32_t)tr.n_ids];
            hit_rr += fill(m, t, ids, len, i) == sent[i];
            memcpy(ids, sent, sizeof(int) * (size_t)len);
            ids[i] = mask;
            for (int k = 0; k < i; k++)
                ids[k] = tr.ids[corpus_rng_next(&rng) % (uint32_t)tr.n_ids];
            hit_lr += fill(m, t, ids, len, i) == sent[i];
        }
    }
    double acc = (double)hit / n, acc_uni = (double)hit_uni / n;
    double acc_r = (double)hit_r / n_r, acc_rr = (double)hit_rr / n_r, acc_lr = (double)hit_lr / n_r;
    printf("encoder: a masked noun or verb of %d held-out sentences (%ld blanks): top-1 %.1f%%, "
           "unigram baseline (\"%s\") %.1f%%\n", held.n_lines, n, 100 * acc, vocab_word(v, uni),
           100 * acc_uni);
    printf("encoder: blanks with words on both sides (%ld): %.1f%%; right-hand words replaced "
           "by random words %.1f%%; left-hand words replaced %.1f%%\n", n_r, 100 * acc_r,
           100 * acc_rr, 100 * acc_lr);
    CHECK(n > 1000, "many blanks (%ld)", n);
    /* Many blanks have several right answers ("the _ sat on the mat": any of ~25 animals and
     * people), so top-1 accuracy stays well below 1 even for a perfect model of the grammar. */
    CHECK(acc >= 5 * acc_uni && acc >= acc_uni + 0.15, "top-1 %.3f beats the unigram baseline "
          "%.3f by a clear margin", acc, acc_uni);
    CHECK(acc_rr <= 0.85 * acc_r && acc_rr <= acc_r - 0.04, "replacing the words after the "
          "blank costs accuracy (%.3f -> %.3f): the encoder reads to the right", acc_r, acc_rr);

    /* "the [mask] sat on the bed because she was tired .": only the pronoun, to the right of
     * the blank, says whether the subject is a woman, a man or an animal. Swap the pronoun and
     * the prediction follows it. */
    int id_he = vocab_id(v, "he"), id_she = vocab_id(v, "she"), id_because = vocab_id(v, "because");
    long np = 0, good = 0, good_sw = 0;
    for (int s = 0; s < held.n_lines; s++) {
        int start = held.starts[s];
        int len = (s + 1 < held.n_lines ? held.starts[s + 1] : held.n_ids) - start;
        const int *sent = held.ids + start;
        int subj = -1, pron = -1;
        for (int i = 0; i < len && i < 3; i++)
            if (pronoun_class(vocab_word(v, sent[i])))
                subj = i;
        for (int i = 1; i + 1 < len; i++)
            if (sent[i - 1] == id_because && (sent[i] == id_he || sent[i] == id_she))
                pron = i;
        if (subj < 0 || pron < 0 || len > L)
            continue;
        memcpy(ids, sent, sizeof(int) * (size_t)len);
        ids[subj] = mask;
        int got = fill(m, t, ids, len, subj);
        const char *const *want = sent[pron] == id_he ? HE_NOUNS : SHE_NOUNS;
        good += got >= 0 && pronoun_class(vocab_word(v, got)) == want;
        ids[pron] = sent[pron] == id_he ? id_she : id_he;
        got = fill(m, t, ids, len, subj);
        want = ids[pron] == id_he ? HE_NOUNS : SHE_NOUNS;
        good_sw += got >= 0 && pronoun_class(vocab_word(v, got)) == want;
        np++;
    }
    double pg = np ? (double)good / np : 0, pgs = np ? (double)good_sw / np : 0;
    printf("encoder: \"the _ ... because he/she was ...\" (%ld held-out sentences): the blank "
           "gets a noun of the pronoun's gender %.1f%%, %.1f%% with he and she swapped\n", np,
           100 * pg, 100 * pgs);
    CHECK(np >= 20, "enough he/she sentences (%ld)", np);
    CHECK(pg >= 0.8 && pgs >= 0.8, "the blank's gender follows the pronoun after it (%.3f, "
          "swapped %.3f)", pg, pgs);
    trace_free(t);
    free(freq);
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
    Model enc;
    int ok_enc = load(&enc, "data/encoder.json") == 0;
    CHECK(ok_enc, "data/encoder.json loads");
    if (ok_enc) {
        CHECK(enc.cfg.arch == ARCH_ENCODER && enc.cfg.n_heads == 4 && enc.cfg.n_layers == 2 &&
              enc.cfg.max_len == 32 && enc.cfg.d_model >= 32 && enc.cfg.d_model <= 48,
              "encoder shape");
        CHECK(enc.training != NULL && strstr(enc.training, "masked-lm"),
              "the encoder records its masked-LM training");
        test_encoder(&enc);
        model_free(&enc);
    }
    if (ok_dec)
        model_free(&dec);
    if (ok_tr)
        model_free(&tr);
    if (ok_ch)
        model_free(&cheat);
    return t_done("models");
}
