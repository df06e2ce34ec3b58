/* fuzz_hf_tokenizer.c - libFuzzer harness for tokenizer.json: the input up to the first NUL
 * is a tokenizer.json, the rest a sentence. A file that parses encodes the sentence and a few
 * fixed ones to ids the tokenizer knows, within the cap, and every id reads back as text. */
#include "fuzz_common.h"
#include "hf_tokenizer.h"

static void run(const HfTok *t, const char *text)
{
    int ids[64];
    TokenizeInfo info;
    int n = hf_tok_encode(t, text, ids, 64, &info);
    if (n < 0 || n > 64 || (info.n_tokens > 64) != info.truncated || n > info.n_tokens)
        abort();
    char buf[1100];
    for (int i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= hf_tok_size(t))
            abort();
        hf_tok_readable(t, ids[i], buf, sizeof buf);
        if (strlen(buf) >= sizeof buf)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    size_t jl = strlen(text);
    HfTok *t;
    char err[512];
    if (hf_tok_parse_json(&t, "fuzz.json", text, jl, err, sizeof err) == 0) {
        run(t, jl < size ? text + jl + 1 : "");
        run(t, "She sat by the river bank. It's 12:30 \xf0\x9f\x98\x80 caf\xc3\xa9");
        run(t, "\xff\xfe bad \xc3 bytes");
        hf_tok_free(t);
    } else if (!err[0]) {
        abort();
    }
    free(text);
    return 0;
}
