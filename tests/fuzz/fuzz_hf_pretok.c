/* fuzz_hf_pretok.c - libFuzzer harness for tokenizer.json's normalizers and pre-tokenizers
 * (issue 39): the input, split at 0x01 bytes, is a plan (its first field: one byte per step)
 * and the strings the steps use (Replace's pattern and content, Prepend's text, a Split's
 * regex or string), the last field the sentence. Each input must end within the harness's
 * time and memory budget (make fuzz: -timeout and -rss_limit_mb per input): the tokenizer's
 * limits per sentence (text bytes, normalizer growth, the work budget over regex steps and BPE
 * lookups) make every input cheap, and a limit hit is an error with no ids, never other ids. */
#include <cjson/cJSON.h>

#include "fuzz_common.h"
#include "hf_tokenizer.h"

typedef struct {
    const char *f[16];
    size_t n[16];
    int k, at;
} Fields;

/* The next string field (a copy, NUL-terminated; "" when none are left). */
static char *next(Fields *fs)
{
    if (fs->at >= fs->k)
        return strdup("");
    char *s = malloc(fs->n[fs->at] + 1);
    if (!s)
        abort();
    memcpy(s, fs->f[fs->at], fs->n[fs->at]);
    s[fs->n[fs->at]] = 0;
    fs->at++;
    return s;
}

static void add_str(cJSON *o, const char *key, Fields *fs)
{
    char *s = next(fs);
    cJSON_AddStringToObject(o, key, s);
    free(s);
}

static cJSON *vocab(void)
{
    cJSON *v = cJSON_CreateObject();
    char k[8];
    int id = 0;
    for (int c = 32; c < 127; c++) {
        snprintf(k, sizeof k, "%c", c);
        cJSON_AddNumberToObject(v, k, id++);
    }
    static const char *const more[] = {"ab", "th", "the", "\xe2\x96\x81", "\xc4\xa0", "<unk>"};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        cJSON_AddNumberToObject(v, more[i], id++);
    for (int b = 0; b < 256; b++) {
        snprintf(k, sizeof k, "<0x%02X>", b);
        cJSON_AddNumberToObject(v, k, id++);
    }
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Fields fs = {{0}, {0}, 0, 1};
    size_t start = 0;
    for (size_t i = 0; i <= size && fs.k < 16; i++)
        if (i == size || data[i] == 1) {
            fs.f[fs.k] = (const char *)data + start;
            fs.n[fs.k++] = i - start;
            start = i + 1;
        }
    if (fs.k < 2)
        return 0;
    const char *sentence_p = fs.f[fs.k - 1];
    size_t sentence_n = fs.n[fs.k - 1];
    fs.k--; /* the last field is the sentence */
    cJSON *root = cJSON_CreateObject(), *model = cJSON_AddObjectToObject(root, "model");
    cJSON_AddStringToObject(model, "type", "BPE");
    cJSON_AddItemToObject(model, "vocab", vocab());
    cJSON *merges = cJSON_AddArrayToObject(model, "merges");
    cJSON_AddItemToArray(merges, cJSON_CreateString("a b"));
    cJSON_AddItemToArray(merges, cJSON_CreateString("t h"));
    cJSON_AddItemToArray(merges, cJSON_CreateString("th e"));
    const uint8_t *plan = (const uint8_t *)fs.f[0];
    size_t np = fs.n[0] < 12 ? fs.n[0] : 12;
    int flags = np ? plan[0] : 0;
    if (flags & 1)
        cJSON_AddStringToObject(model, "unk_token", "<unk>");
    if (flags & 2)
        cJSON_AddTrueToObject(model, "byte_fallback");
    cJSON *norms = cJSON_CreateArray(), *pres = cJSON_CreateArray();
    for (size_t i = 1; i < np; i++) {
        cJSON *st = cJSON_CreateObject();
        switch (plan[i] % 8) {
        case 0: /* Replace */
            cJSON_AddStringToObject(st, "type", "Replace");
            add_str(cJSON_AddObjectToObject(st, "pattern"), "String", &fs);
            add_str(st, "content", &fs);
            cJSON_AddItemToArray(norms, st);
            break;
        case 1:
            cJSON_AddStringToObject(st, "type", "Prepend");
            add_str(st, "prepend", &fs);
            cJSON_AddItemToArray(norms, st);
            break;
        case 2: /* Split by a regex from the input */
        case 3: /* by a string */
            cJSON_AddStringToObject(st, "type", "Split");
            add_str(cJSON_AddObjectToObject(st, "pattern"), plan[i] % 8 == 2 ? "Regex" : "String", &fs);
            cJSON_AddStringToObject(st, "behavior", plan[i] & 8 ? "Removed" : "Isolated");
            cJSON_AddItemToArray(pres, st);
            break;
        case 4:
            cJSON_AddStringToObject(st, "type", "Digits");
            cJSON_AddBoolToObject(st, "individual_digits", (plan[i] & 8) != 0);
            cJSON_AddItemToArray(pres, st);
            break;
        case 5:
            cJSON_AddStringToObject(st, "type", "Metaspace");
            cJSON_AddStringToObject(st, "prepend_scheme",
                                    plan[i] & 8 ? "always" : plan[i] & 16 ? "first" : "never");
            cJSON_AddBoolToObject(st, "split", (plan[i] & 32) != 0);
            cJSON_AddItemToArray(pres, st);
            break;
        case 6:
            cJSON_AddStringToObject(st, "type", "ByteLevel");
            cJSON_AddBoolToObject(st, "add_prefix_space", (plan[i] & 8) != 0);
            cJSON_AddBoolToObject(st, "use_regex", (plan[i] & 16) != 0);
            cJSON_AddItemToArray(pres, st);
            break;
        default:
            cJSON_AddStringToObject(st, "type", "NFC");
            cJSON_AddItemToArray(norms, st);
            break;
        }
    }
    cJSON *n = cJSON_AddObjectToObject(root, "normalizer"), *p = cJSON_AddObjectToObject(root, "pre_tokenizer");
    cJSON_AddStringToObject(n, "type", "Sequence");
    cJSON_AddItemToObject(n, "normalizers", norms);
    cJSON_AddStringToObject(p, "type", "Sequence");
    cJSON_AddItemToObject(p, "pretokenizers", pres);
    char *json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!json)
        return 0;
    HfTok *t;
    char err[512] = "";
    if (hf_tok_parse_json(&t, "fuzz.json", json, strlen(json), err, sizeof err) == 0) {
        char *sentence = malloc(sentence_n + 1);
        memcpy(sentence, sentence_p, sentence_n);
        sentence[sentence_n] = 0;
        int ids[64];
        TokenizeInfo info;
        int cnt = hf_tok_encode(t, sentence, ids, 64, &info);
        if (cnt < 0 || cnt > 64 || (info.error[0] && (cnt || info.n_tokens)) ||
            (!info.error[0] && cnt > info.n_tokens))
            abort();
        for (int i = 0; i < cnt; i++)
            if (ids[i] < 0 || ids[i] >= hf_tok_size(t))
                abort();
        free(sentence);
        hf_tok_free(t);
    } else if (!err[0]) {
        abort();
    }
    free(json);
    return 0;
}
