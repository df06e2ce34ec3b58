/* test_hf_vocab.c - GPT-2's vocab.json + merges.txt read fast and read right: the flat reader
 * (no cJSON tree) decodes every JSON escape as cJSON does (a surrogate pair, \u00e9, \/, \",
 * \n), leaves anything else to cJSON (ids written 1.0 or 2e0, \u0000, a lone surrogate) with
 * the same table or the same file:line:col message; the readable vocabulary (vocab_start /
 * vocab_push) keeps one copy of each word, in the map, the first id of a word found by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hf_tokenizer.h"
#include "hf_tokenizer_internal.h"
#include "t.h"
#include "vocab.h"

static char dir[256];

/* Writes DIR/vocab.json (text) and a merges.txt of one merge "a b"; loads them. */
static int load(const char *vocab, HfTok **t, char *err, size_t errlen)
{
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/vocab.json", dir);
    snprintf(b, sizeof b, "%s/merges.txt", dir);
    FILE *f = fopen(a, "w");
    fputs(vocab, f);
    fclose(f);
    f = fopen(b, "w");
    fputs("#version: 0.2\na b\n", f);
    fclose(f);
    return hf_tok_load_gpt2(t, a, b, err, errlen);
}

static int id_of(const HfTok *t, const char *s) { return strmap_get(&t->vocab, s, strlen(s)); }

static void test_escapes(void)
{
    HfTok *t = NULL;
    char err[512] = "";
    CHECK(load("{\"a\\ud83d\\ude00\": 0, \"b\": 1, \"ab\": 2,\n \"\\u00e9\\/\\\"\\\\\\n\\t\": 3,"
               " \"\\u0120x\" : 4 }\n", &t, err, sizeof err) == 0, "%s", err);
    CHECK(t && id_of(t, "a\xf0\x9f\x98\x80") == 0, "a surrogate pair is one code point");
    CHECK(t && id_of(t, "\xc3\xa9/\"\\\n\t") == 3, "\\u00e9 \\/ \\\" \\\\ \\n \\t decoded");
    CHECK(t && id_of(t, "\xc4\xa0x") == 4, "\\u0120 (GPT-2's space) is two bytes");
    CHECK(t && hf_tok_size(t) == 5, "5 ids (got %d)", t ? hf_tok_size(t) : -1);
    hf_tok_free(t);
}

/* Ids written as floats go through cJSON: the same table as plain ids. */
static void test_same_table(void)
{
    HfTok *t = NULL, *u = NULL;
    char err[512] = "";
    CHECK(load("{\"a\": 0, \"b\": 1, \"ab\": 2, \"a\": 5}", &t, err, sizeof err) == 0, "%s", err);
    CHECK(load("{\"a\": 0.0, \"b\": 1e0, \"ab\": 2, \"a\": 5}", &u, err, sizeof err) == 0, "%s", err);
    for (int i = 0; t && u && i < 6; i++)
        CHECK((t->id_tok[i] == NULL) == (u->id_tok[i] == NULL) &&
              (!t->id_tok[i] || !strcmp(t->id_tok[i], u->id_tok[i])), "id %d alike", i);
    CHECK(t && u && id_of(t, "a") == id_of(u, "a") && id_of(t, "a") == 0,
          "a key written twice keeps its first id");
    hf_tok_free(t);
    hf_tok_free(u);
    CHECK(load("{\"a\\u0000x\": 0, \"b\": 1}", &t, err, sizeof err) == 0, "%s", err);
    CHECK(t && id_of(t, "a") == 0, "\\u0000 ends the key, as cJSON reads it");
    hf_tok_free(t);
}

static void test_errors(void)
{
    HfTok *t = NULL;
    char err[512] = "";
    CHECK(load("{\"a\": 0, \"b\": 1,", &t, err, sizeof err) != 0 && !t, "cut short");
    CHECK(strstr(err, "vocab.json:1:") && strstr(err, "JSON syntax error"), "%s", err);
    CHECK(load("{\"a\": 0} x", &t, err, sizeof err) != 0, "text after the object");
    CHECK(strstr(err, "vocab.json:1:10: JSON syntax error: text after the end"), "%s", err);
    CHECK(load("{\"a\": 0, \"b\": 3000000}", &t, err, sizeof err) != 0, "an id too large");
    CHECK(strstr(err, "token \"b\" has id 3000000, outside 0..1999999"), "%s", err);
    CHECK(load("{\"a\": \"1\"}", &t, err, sizeof err) != 0, "a string id");
    CHECK(strstr(err, "\"a\" is not a number"), "%s", err);
    CHECK(load("{}", &t, err, sizeof err) != 0, "an empty object");
    CHECK(strstr(err, "not an object of token: id"), "%s", err);
    CHECK(load("{\"a\\ud800\": 0}", &t, err, sizeof err) != 0, "a lone surrogate");
}

/* The readable vocabulary: words in the map, the first id of two that read alike found. */
static void test_readable(void)
{
    HfTok *t = NULL;
    char err[512] = "";
    CHECK(load("{\"\\u0120cat\": 0, \"cat\": 1, \"\\u010a\": 2, \"<|endoftext|>\": 3}", &t, err,
               sizeof err) == 0, "%s", err);
    Vocab v;
    CHECK(t && hf_tok_vocab(t, 4, &v, err, sizeof err) == 0, "%s", err);
    if (!t)
        return;
    CHECK(!strcmp(vocab_word(&v, 0), " cat") && !strcmp(vocab_word(&v, 2), "\\n"),
          "readable: \"%s\" \"%s\"", vocab_word(&v, 0), vocab_word(&v, 2));
    CHECK(vocab_id(&v, " cat") == 0 && vocab_id(&v, "cat") == 1 && vocab_id(&v, "<|endoftext|>") == 3,
          "found by name");
    CHECK(v.words_in_map && v.words[1] == v.map.keys[strmap_index(&v.map, "cat", 3)],
          "one copy of each word: the map's");
    vocab_free(&v);
    Vocab w;
    CHECK(vocab_start(&w, 2, 0, err, sizeof err) == 0, "%s", err);
    CHECK(vocab_push(&w, "x", 1, err, sizeof err) == 0 && vocab_push(&w, "x", 1, err, sizeof err) == 0,
          "two ids that read alike");
    CHECK(vocab_id(&w, "x") == 0 && w.n == 2 && !strcmp(vocab_word(&w, 1), "x"), "the first found");
    CHECK(vocab_push(&w, "y", 1, err, sizeof err) != 0 && strstr(err, "more words"), "%s", err);
    vocab_free(&w);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/attend-hf-vocab-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_escapes();
    test_same_table();
    test_errors();
    test_readable();
    char p[600];
    snprintf(p, sizeof p, "%s/vocab.json", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/merges.txt", dir);
    unlink(p);
    rmdir(dir);
    return t_done("test_hf_vocab");
}
