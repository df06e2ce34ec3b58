/* fuzz_tokenizer.c - libFuzzer harness for the tokenizer and sentence parser: the first line
 * of the input (up to a NUL) is a vocabulary file, the rest a sentence tokenized with the
 * shipped vocabulary and with that one. Ids stay in range; counts agree with vocab_split (a
 * WordPiece vocabulary, whose file starts with VOCAB_DIRECTIVE, writes at least as many). */
#include "fuzz_common.h"
#include "vocab.h"

static void count_tok(const char *tok, void *ctx)
{
    if (!tok[0])
        abort(); /* never an empty token */
    ++*(int *)ctx;
}

static void run(const Vocab *v, const char *text)
{
    int ids[64];
    TokenizeInfo info;
    int n = vocab_tokenize(v, text, ids, 64, &info);
    int k = 0;
    vocab_split(text, count_tok, &k);
    /* a WordPiece vocabulary may write several tokens for a word, never fewer */
    int words = v->kind == VOCAB_WORDS;
    if (n < 0 || n > 64 || (words ? info.n_tokens != k : info.n_tokens < k) ||
        (info.n_tokens > 64) != info.truncated)
        abort();
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= v->n)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static Vocab shipped;
    static int loaded;
    char err[1024];
    if (!loaded) {
        loaded = vocab_load_file(&shipped, "data/vocab.txt", err, sizeof err) == 0 ? 1 : -1;
        if (loaded < 0)
            fprintf(stderr, "fuzz_tokenizer: %s (run from the repository root)\n", err);
    }
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    if (loaded > 0)
        run(&shipped, text);
    /* the part before the first NUL byte as a vocabulary file */
    char path[300];
    snprintf(path, sizeof path, "%s/vocab.txt", fuzz_dir("tokenizer"));
    size_t vl = strlen(text);
    Vocab v;
    if (fuzz_write(path, data, vl) == 0 && vocab_load_file(&v, path, err, sizeof err) == 0) {
        for (int i = 0; i < v.n; i++)
            if (strpbrk(v.words[i], " \t\n"))
                abort(); /* words with whitespace are refused at load */
        run(&v, vl < size ? text + vl + 1 : text);
        vocab_free(&v);
    }
    free(text);
    return 0;
}
