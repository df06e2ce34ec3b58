/* fuzz_subword.c - libFuzzer harness for the WordPiece vocabulary attend trains (subword.h):
 * any text trains a vocabulary that vocab_init_kind accepts, that tokenizes that text and
 * any other without <unk>, and that subword_save writes as a file vocab_load_file reads back
 * word for word. The input's part after the first NUL byte is the other text. */
#include "fuzz_common.h"
#include "subword.h"

static void count_unk(const char *tok, void *ctx)
{
    *(int *)ctx += !strcmp(tok, "<unk>");
}

/* The only <unk> tokens are the ones the text spells out as "<unk>". */
static void no_unknown(const Vocab *v, const char *text)
{
    int ids[64], spelled = 0, seen = 0;
    TokenizeInfo info;
    vocab_split(text, count_unk, &spelled);
    int n = vocab_tokenize(v, text, ids, 64, &info);
    if (n < 0 || info.n_unknown > spelled)
        abort(); /* every letter, digit, punctuation mark and byte has a token */
    for (int i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= v->n)
            abort();
        seen += ids[i] == v->unk_id;
    }
    if (seen > spelled)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0; /* training is quadratic-ish in distinct words; keep runs fast */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    size_t tl = strlen(text);
    /* the first bytes choose the options (small, so merges run out as well as not) */
    SubwordOpts o = {.n_words = size > 0 ? data[0] % 16 : 4,
                     .min_count = size > 1 ? 1 + data[1] % 3 : 2,
                     .n_pieces = size > 2 ? data[2] % 48 : 8};
    o.natural = size > 3 && (data[3] & 1); /* the natural split's vocabulary, half the inputs */
    Vocab v;
    char err[512] = "";
    if (subword_train(text, &o, &v, err, sizeof err)) {
        fprintf(stderr, "fuzz_subword: %s\n", err);
        abort(); /* training never refuses a text (only memory can fail) */
    }
    if (v.kind != VOCAB_WORDPIECE)
        abort();
    no_unknown(&v, text);
    if (tl < size)
        no_unknown(&v, text + tl + 1);
    char path[300];
    snprintf(path, sizeof path, "%s/vocab.txt", fuzz_dir("subword"));
    Vocab back;
    if (subword_save(&v, path, err, sizeof err) ||
        vocab_load_file(&back, path, err, sizeof err)) {
        fprintf(stderr, "fuzz_subword: %s\n", err);
        abort(); /* what attend writes, it reads */
    }
    if (back.kind != v.kind || back.n != v.n)
        abort();
    for (int i = 0; i < v.n; i++)
        if (strcmp(back.words[i], v.words[i]))
            abort();
    vocab_free(&back);
    vocab_free(&v);
    fuzz_clean(fuzz_dir("subword"), NULL);
    free(text);
    return 0;
}
