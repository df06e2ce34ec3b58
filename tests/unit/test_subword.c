/* test_subword.c - the WordPiece tokenizer (vocab.c) and its trainer (subword.c): whole words
 * stay whole, other words split into the longest known pieces, bytes as the last resort, never
 * <unk>; training is deterministic; vocabulary and model files keep the tokenizer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "subword.h"
#include "t.h"
#include "vocab.h"

/* The tokens of text under v, joined by '|' into out. */
static const char *toks(const Vocab *v, const char *text, char *out, size_t cap,
                        TokenizeInfo *info)
{
    int ids[256];
    int n = vocab_tokenize(v, text, ids, 256, info);
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < n && o + 1 < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? "|" : "", vocab_word(v, ids[i]));
    return out;
}

/* A hand-made WordPiece vocabulary: the greedy longest match, the byte fallback. */
static void test_handmade(void)
{
    const char *w[] = {"<pad>", "<unk>", "the", "cat", "un", "##believ", "##able", "##a",
                       "##b", "##l", "##e", "a", "b", "l", "e", "s", "##s", ".", "'", "t",
                       "<0xC3>", "<0xA9>", "<0x23>"};
    Vocab v;
    char err[256], out[1024];
    TokenizeInfo info;
    CHECK(vocab_init_kind(&v, VOCAB_WORDPIECE, w, 23, err, sizeof err) == 0, "%s", err);
    CHECK(strcmp(toks(&v, "The CAT.", out, sizeof out, &info), "the|cat|.") == 0, "%s", out);
    CHECK(info.n_split == 0 && info.n_unknown == 0, "whole words: %d split", info.n_split);
    /* longest piece first: "##believ" beats "##b", "##able" beats "##a" */
    CHECK(strcmp(toks(&v, "unbelievable", out, sizeof out, &info), "un|##believ|##able") == 0,
          "%s", out);
    CHECK(info.n_split == 1 && info.n_tokens == 3, "split %d tokens %d", info.n_split,
          info.n_tokens);
    CHECK(strcmp(toks(&v, "cats", out, sizeof out, &info), "cat|##s") == 0, "%s", out);
    /* a byte the pieces do not cover: its byte token; a missing punctuation mark too */
    CHECK(strcmp(toks(&v, "\xc3\xa9 # t", out, sizeof out, &info), "<0xC3>|<0xA9>|<0x23>|t") == 0,
          "%s", out);
    CHECK(info.n_unknown == 0, "%d unknown", info.n_unknown);
    /* what the vocabulary cannot spell is <unk>, reported */
    CHECK(strcmp(toks(&v, "cat z", out, sizeof out, &info), "cat|<unk>") == 0, "%s", out);
    CHECK(info.n_unknown == 1 && strcmp(info.unknown[0], "z") == 0, "unknown %d '%s'",
          info.n_unknown, info.unknown[0]);
    CHECK(strcmp(toks(&v, "<pad> the", out, sizeof out, &info), "<pad>|the") == 0, "%s", out);
    /* joining: pieces glue, bytes become bytes again */
    int ids[16];
    int n = vocab_tokenize(&v, "The cats unbelievable a\xc3\xa9", ids, 16, NULL);
    char joined[128];
    vocab_join(&v, ids, n, joined, sizeof joined);
    CHECK(strcmp(joined, "the cats unbelievable a\xc3\xa9") == 0, "joined '%s'", joined);
    CHECK(vocab_joins_prev(&v, vocab_id(&v, "##s")) && !vocab_joins_prev(&v, vocab_id(&v, "cat")),
          "joins_prev");
    vocab_free(&v);

    /* the same words as a word-level vocabulary: "##" is just a word, "cats" is <unk> */
    CHECK(vocab_init(&v, w, 23, err, sizeof err) == 0, "%s", err);
    CHECK(strcmp(toks(&v, "cats", out, sizeof out, &info), "<unk>") == 0, "%s", out);
    n = vocab_tokenize(&v, "the cat", ids, 16, NULL);
    vocab_join(&v, ids, n, joined, sizeof joined);
    CHECK(strcmp(joined, "the cat") == 0, "word-level join '%s'", joined);
    vocab_free(&v);
}

/* The split: fewest pieces, a tie keeps the longer earlier piece ("love ##s", not "lo ##ves",
 * where greedy longest-first would give "lov ##e ##s"); a number whole or its digits; a letter
 * after a digit starts a piece; a byte inside a word is "##<0xHH>" and joins, one starting a
 * word is "<0xHH>" and does not. */
static void test_split_rules(void)
{
    const char *w[] = {"<pad>", "<unk>", "love", "lo", "lov", "##ves", "##s", "##e", "##v",
                       "l", "o", "v", "e", "s", "1", "2", "9", "##1", "##2", "##9", "19",
                       "##19", "b", "##b", "caf", "<0xC3>", "<0xA9>", "##<0xC3>", "##<0xA9>",
                       ".", "a", "##a", "##o", "##l"};
    int nw = (int)(sizeof w / sizeof *w);
    Vocab v;
    char err[256], out[1024];
    TokenizeInfo info;
    CHECK(vocab_init_kind(&v, VOCAB_WORDPIECE, w, nw, err, sizeof err) == 0, "%s", err);
    CHECK(v.cont_bytes == 1, "a vocabulary with ##<0xHH> marks inner bytes");
    CHECK(strcmp(toks(&v, "loves", out, sizeof out, &info), "love|##s") == 0, "%s", out);
    CHECK(info.n_split == 1, "one word split: %d", info.n_split);
    /* a number: whole when known, else one digit a token (never "19 ##9" nor "1 ##99") */
    CHECK(strcmp(toks(&v, "19", out, sizeof out, NULL), "19") == 0, "%s", out);
    CHECK(strcmp(toks(&v, "1992", out, sizeof out, NULL), "1|##9|##9|##2") == 0, "%s", out);
    CHECK(strcmp(toks(&v, "12b", out, sizeof out, NULL), "1|##2|##b") == 0, "%s", out);
    CHECK(strcmp(toks(&v, "b19", out, sizeof out, NULL), "b|##19") == 0, "%s", out);
    /* bytes: é inside a word continues it, at a word's start it starts one */
    CHECK(strcmp(toks(&v, "caf\xc3\xa9", out, sizeof out, NULL), "caf|##<0xC3>|##<0xA9>") == 0,
          "%s", out);
    CHECK(strcmp(toks(&v, "\xc3\xa9" "a", out, sizeof out, NULL), "<0xC3>|##<0xA9>|##a") == 0,
          "%s", out);
    int ids[16];
    int n = vocab_tokenize(&v, "love \xc3\xa9" "a caf\xc3\xa9 1992.", ids, 16, NULL);
    char joined[128];
    vocab_join(&v, ids, n, joined, sizeof joined);
    CHECK(strcmp(joined, "love \xc3\xa9" "a caf\xc3\xa9 1992 .") == 0, "joined '%s'", joined);
    CHECK(!vocab_joins_prev(&v, vocab_id(&v, "<0xC3>")) &&
          vocab_joins_prev(&v, vocab_id(&v, "##<0xA9>")), "which byte tokens join");
    vocab_free(&v);
    /* a vocabulary of before (no ##<0xHH>): its plain byte tokens still continue a word */
    const char *old[] = {"<pad>", "<unk>", "caf", "<0xC3>", "<0xA9>"};
    CHECK(vocab_init_kind(&v, VOCAB_WORDPIECE, old, 5, err, sizeof err) == 0, "%s", err);
    n = vocab_tokenize(&v, "caf\xc3\xa9", ids, 16, NULL);
    vocab_join(&v, ids, n, joined, sizeof joined);
    CHECK(v.cont_bytes == 0 && n == 3 && strcmp(joined, "caf\xc3\xa9") == 0, "old vocabulary: "
          "%d tokens, '%s'", n, joined);
    vocab_free(&v);
}

/* A word longer than any piece is still covered, one piece after another, never truncated. */
static void test_long_word(const Vocab *v)
{
    char word[400];
    for (int i = 0; i < 399; i++)
        word[i] = (char)('a' + i % 26);
    word[399] = 0;
    int ids[512];
    TokenizeInfo info;
    int n = vocab_tokenize(v, word, ids, 512, &info);
    char back[600];
    vocab_join(v, ids, n, back, sizeof back);
    CHECK(strcmp(back, word) == 0 && info.n_unknown == 0, "a 399-letter word comes back whole "
          "(%d tokens, %d unknown)", n, info.n_unknown);
}

/* Every byte string tokenizes without <unk>, and joins back to its lowercased words. */
static void test_never_unk(const Vocab *v)
{
    unsigned s = 12345;
    int bad = 0;
    for (int round = 0; round < 300; round++) {
        char text[64];
        int len = 1 + (int)(s % 60);
        for (int i = 0; i < len; i++) {
            s = s * 1103515245u + 12345u;
            text[i] = (char)(1 + (s >> 16) % 255);
        }
        text[len] = 0;
        int ids[256];
        TokenizeInfo info;
        vocab_tokenize(v, text, ids, 256, &info);
        bad += info.n_unknown != 0;
    }
    CHECK(bad == 0, "%d of 300 random byte strings had <unk>", bad);
    /* "<mask>" written in the text, in a vocabulary without that special token, reads as its
     * characters (the fuzzer's find, stop 45); "<pad>" is the vocabulary's own */
    char out[256];
    TokenizeInfo info;
    if (vocab_id(v, VOCAB_MASK) < 0) {
        toks(v, "a <mask> b", out, sizeof out, &info);
        CHECK(info.n_unknown == 0 && !strncmp(out, "a|<|", 4) && strstr(out, "|>|b"),
              "<mask> without the token -> %s (%d unknown)", out, info.n_unknown);
    }
    toks(v, "a <pad> b", out, sizeof out, &info);
    CHECK(!strcmp(out, "a|<pad>|b") && info.n_unknown == 0, "<pad> -> %s", out);
}

static const char *TEXT =
    "the cat sat on the mat .\n"
    "the cats sat on the mats .\n"
    "a dog chased the cat and the cats chased the dog .\n"
    "she walked to the station and walked back .\n"
    "they were walking and talking about the walking cats .\n"
    "the dog is sleeping ; the dogs are sleeping .\n";

static void test_train(void)
{
    Vocab a, b;
    char err[256], out[512];
    SubwordOpts o = {.n_words = 6, .min_count = 2, .n_pieces = 20};
    CHECK(subword_train(TEXT, &o, &a, err, sizeof err) == 0, "%s", err);
    CHECK(subword_train(TEXT, &o, &b, err, sizeof err) == 0, "%s", err);
    int same = a.n == b.n && a.kind == VOCAB_WORDPIECE;
    for (int i = 0; same && i < a.n; i++)
        same = strcmp(a.words[i], b.words[i]) == 0;
    CHECK(same, "the same text trains the same vocabulary (%d vs %d tokens)", a.n, b.n);
    /* the most frequent words are whole: "the" (10 times), "cat", "cats" */
    TokenizeInfo info;
    CHECK(strcmp(toks(&a, "the cat", out, sizeof out, &info), "the|cat") == 0, "%s", out);
    /* exactly n_words whole words: the base, then 6 words, then the pieces */
    int first_word = vocab_id(&a, "the");
    CHECK(first_word > 0 && strcmp(a.words[first_word + 6], "the") != 0 &&
          vocab_id(&a, "##s") >= 0 && vocab_id(&a, "z") >= 0 && vocab_id(&a, "##9") >= 0 &&
          vocab_id(&a, "<0xC3>") >= 0 && vocab_id(&a, "#") >= 0,
          "base tokens present; first whole word at %d", first_word);
    /* a merge was learned from "walked"/"walking"/"talking": some piece longer than a letter */
    int longer = 0;
    for (int i = first_word + 6; i < a.n; i++)
        longer += strlen(a.words[i]) > 3;
    CHECK(longer > 0, "%d learned pieces longer than one letter", longer);
    toks(&a, "walking", out, sizeof out, &info);
    CHECK(info.n_tokens < 7 && info.n_unknown == 0, "walking -> %s", out);
    test_long_word(&a);
    test_never_unk(&a);
    CHECK(!a.cont_bytes && vocab_id(&a, "##<0xC3>") < 0, "the vocabulary of before by default");
    /* natural: no piece holds a digit or a byte; every byte token has its ##<0xHH> twin */
    SubwordOpts on = o;
    on.natural = 1;
    on.n_words = 1; /* "the": every other word goes to the merges */
    Vocab nat;
    char numbers[1024];
    snprintf(numbers, sizeof numbers, "%s1999 1999 1999 2019 2019 ab12 ab12\n", TEXT);
    CHECK(subword_train(numbers, &on, &nat, err, sizeof err) == 0, "%s", err);
    int bad = 0, first_nat = vocab_id(&nat, "the");
    for (int i = first_nat + 1; i < nat.n; i++)
        bad += strpbrk(nat.words[i], "0123456789<") != NULL;
    CHECK(bad == 0 && vocab_id(&nat, "##<0xC3>") >= 0 && nat.cont_bytes && first_nat > 0,
          "%d pieces with a digit or a byte", bad);
    CHECK(strcmp(toks(&nat, "1999", out, sizeof out, &info), "1|##9|##9|##9") == 0, "%s", out);
    vocab_free(&nat);
    /* everyday words are kept whole after the counted ones, once, if only letters */
    const char *every[] = {"the", "zebra", "Zebra", "x-ray", "zebra", "quokka"};
    SubwordOpts oe = o;
    oe.everyday = every;
    oe.n_everyday = 6;
    Vocab e;
    CHECK(subword_train(TEXT, &oe, &e, err, sizeof err) == 0, "%s", err);
    CHECK(e.n == a.n + 2 && vocab_id(&e, "zebra") == first_word + 6 &&
          vocab_id(&e, "quokka") == first_word + 7 && vocab_id(&e, "x-ray") < 0,
          "everyday words: %d tokens (%d before), zebra at %d", e.n, a.n, vocab_id(&e, "zebra"));
    CHECK(strcmp(toks(&e, "quokka", out, sizeof out, &info), "quokka") == 0, "%s", out);
    vocab_free(&e);

    /* a vocabulary file keeps the kind and "#" as a token */
    char path[128];
    snprintf(path, sizeof path, "/tmp/attend-test-subword-%d.txt", (int)getpid());
    CHECK(subword_save(&a, path, err, sizeof err) == 0, "%s", err);
    Vocab c;
    CHECK(vocab_load_file(&c, path, err, sizeof err) == 0, "%s", err);
    same = c.n == a.n && c.kind == VOCAB_WORDPIECE;
    for (int i = 0; same && i < a.n; i++)
        same = strcmp(a.words[i], c.words[i]) == 0;
    CHECK(same, "saved and loaded vocabulary is the same (%d vs %d)", c.n, a.n);
    vocab_free(&c);

    /* a model keeps its tokenizer; a word-level model writes no "tokenizer" key */
    ModelConfig mc;
    model_config_defaults(&mc);
    mc.vocab_size = a.n; mc.d_model = 4; mc.n_heads = 2; mc.d_head = 2; mc.n_layers = 1;
    mc.d_ff = 4; mc.max_len = 8;
    Model m;
    CHECK(model_new(&m, &mc, &a, err, sizeof err) == 0, "%s", err);
    model_init_random(&m, 1);
    snprintf(path, sizeof path, "/tmp/attend-test-subword-%d.json", (int)getpid());
    CHECK(model_save(&m, path, err, sizeof err) == 0, "%s", err);
    model_free(&m);
    Model back;
    CHECK(model_load(&back, path, err, sizeof err) == 0, "%s", err);
    CHECK(back.vocab.kind == VOCAB_WORDPIECE, "kind after load %d", back.vocab.kind);
    model_free(&back);
    vocab_free(&b);
    unlink(path);
    snprintf(path, sizeof path, "/tmp/attend-test-subword-%d.txt", (int)getpid());
    unlink(path);
}

/* Common words are kept whole when the text has them min_count times; natural: an everyday or
 * common word that is a kept word plus an inflection is not, it reads as stem + piece. */
static void test_common(void)
{
    const char *every[] = {"walk", "chase"};
    /* "cats" before "cat": the stems are decided first whatever the lists' order */
    const char *common[] = {"walking", "cats", "chased", "sleeping", "station", "quokka", "cat"};
    SubwordOpts o = {.n_words = 1, .min_count = 2, .n_pieces = 0, .natural = 1, /* no merges */
                     .everyday = every, .n_everyday = 2, .common = common, .n_common = 7};
    Vocab v;
    char err[256], out[512];
    TokenizeInfo info;
    CHECK(subword_train(TEXT, &o, &v, err, sizeof err) == 0, "%s", err);
    static const char *const SPLIT[][2] = {
        {"walking", "walk|##ing"}, {"chased", "chase|##d"}, {"cats", "cat|##s"},
        {"sleeping", "sleeping"}, {"walk", "walk"}, {"cat", "cat"}};
    for (size_t i = 0; i < sizeof SPLIT / sizeof *SPLIT; i++)
        CHECK(strcmp(toks(&v, SPLIT[i][0], out, sizeof out, &info), SPLIT[i][1]) == 0,
              "%s is %s, not %s", SPLIT[i][0], out, SPLIT[i][1]);
    /* too rare in the text (station once, quokka never): not kept; the inflections are pieces */
    CHECK(vocab_id(&v, "station") < 0 && vocab_id(&v, "quokka") < 0 && vocab_id(&v, "cats") < 0,
          "station %d, quokka %d, cats %d", vocab_id(&v, "station"), vocab_id(&v, "quokka"),
          vocab_id(&v, "cats"));
    CHECK(vocab_id(&v, "##ing") >= 0 && vocab_id(&v, "##ers") >= 0 && vocab_id(&v, "##est") >= 0,
          "the inflections are pieces");
    /* the kept words come after the counted one, in the lists' order */
    int the = vocab_id(&v, "the");
    CHECK(vocab_id(&v, "walk") == the + 1 && vocab_id(&v, "chase") == the + 2 &&
          vocab_id(&v, "sleeping") == the + 3 && vocab_id(&v, "cat") == the + 4,
          "walk %d chase %d sleeping %d cat %d after the %d", vocab_id(&v, "walk"),
          vocab_id(&v, "chase"), vocab_id(&v, "sleeping"), vocab_id(&v, "cat"), the);
    vocab_free(&v);
    /* not natural: the same counts, no inflection rule, no inflection pieces */
    o.natural = 0;
    CHECK(subword_train(TEXT, &o, &v, err, sizeof err) == 0, "%s", err);
    CHECK(vocab_id(&v, "cats") >= 0 && vocab_id(&v, "walking") >= 0 &&
          vocab_id(&v, "station") < 0 && vocab_id(&v, "##ers") < 0,
          "greedy: cats %d walking %d", vocab_id(&v, "cats"), vocab_id(&v, "walking"));
    vocab_free(&v);
}

/* The shipped word-level model files have no "tokenizer" and load as VOCAB_WORDS. */
static void test_old_models(void)
{
    Model m;
    char err[512];
    CHECK(model_load(&m, "data/decoder.json", err, sizeof err) == 0, "%s", err);
    CHECK(m.vocab.kind == VOCAB_WORDS, "decoder.json is word-level");
    int ids[8];
    TokenizeInfo info;
    vocab_tokenize(&m.vocab, "the zeppelin", ids, 8, &info);
    CHECK(info.n_unknown == 1 && ids[1] == m.vocab.unk_id, "old models still say <unk>");
    model_free(&m);
}

int main(void)
{
    test_handmade();
    test_split_rules();
    test_train();
    test_common();
    test_old_models();
    return t_done("test_subword");
}
