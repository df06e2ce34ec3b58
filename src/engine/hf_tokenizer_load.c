/* hf_tokenizer_load.c - reading a tokenizer: tokenizer.json (model, added tokens, normalizer,
 * pre-tokenizer, post-processor) or GPT-2's vocab.json + merges.txt (see hf_tokenizer.h). */
#include "hf_tokenizer.h"
#include "hf_tokenizer_internal.h"
#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "json.h"

void hf_tok_free(HfTok *t)
{
    if (!t)
        return;
    strmap_free(&t->vocab);
    strmap_free(&t->merges);
    free(t->id_tok); /* its strings are the vocab map's keys */
    for (int i = 0; i < t->n_steps; i++)
        pcre2_code_free(t->steps[i].re);
    for (int i = 0; i < t->n_norms; i++) {
        free(t->norms[i].a);
        free(t->norms[i].b);
    }
    for (int i = 0; i < t->n_added; i++)
        free(t->added[i].text);
    free(t);
}

int hf_tok_size(const HfTok *t) { return t->n_ids; }

/* Records token s as id (the vocabulary and the id -> text table). */
static int tok_add(HfTok *t, const char *s, int id, const char *fname, char *err, size_t errlen)
{
    if (id < 0 || id >= 2000000) {
        snprintf(err, errlen, "%s: token \"%.60s\" has id %d, outside 0..1999999", fname, s, id);
        return -1;
    }
    if (id >= t->n_ids) {
        int n = id + 1 > 2 * t->n_ids ? id + 1 : 2 * t->n_ids;
        char **nt = realloc(t->id_tok, sizeof *nt * (size_t)n);
        if (!nt) goto oom;
        memset(nt + t->n_ids, 0, sizeof *nt * (size_t)(n - t->n_ids));
        t->id_tok = nt;
        t->n_ids = n;
    }
    int at = strmap_put(&t->vocab, s, strlen(s), id, NULL);
    if (at < 0) goto oom;
    if (!t->id_tok[id])
        t->id_tok[id] = t->vocab.keys[at]; /* the map's copy: kept as long as the map */
    return 0;
oom:
    snprintf(err, errlen, "%s: out of memory", fname);
    return -1;
}

/* Trims n_ids to 1 + the largest id given. */
static void tok_trim(HfTok *t)
{
    while (t->n_ids > 0 && !t->id_tok[t->n_ids - 1])
        t->n_ids--;
}

static int add_merge(HfTok *t, const char *a, const char *b, int rank, const char *fname,
                     char *err, size_t errlen)
{
    size_t la = strlen(a), lb = strlen(b);
    if (!la || !lb) {
        snprintf(err, errlen, "%s: merges[%d] has an empty side", fname, rank);
        return -1;
    }
    char small[256], *key = la + lb + 2 <= sizeof small ? small : malloc(la + lb + 2);
    if (!key) {
        snprintf(err, errlen, "%s: out of memory", fname);
        return -1;
    }
    memcpy(key, a, la);
    key[la] = (char)0xff;
    memcpy(key + la + 1, b, lb + 1);
    int rc = strmap_put(&t->merges, key, la + lb + 1, rank, NULL);
    if (key != small)
        free(key);
    if (rc < 0) {
        snprintf(err, errlen, "%s: out of memory", fname);
        return -1;
    }
    return 0;
}

/* literal: a String pattern; 2: the file's own regex, its steps counted against the work
 * limit per sentence (PCRE2_AUTO_CALLOUT: hf_tokenizer.c); 0: attend's own patterns. */
static pcre2_code *compile(const char *pat, int literal, const char *fname, const char *key,
                           char *err, size_t errlen)
{
    int ec;
    PCRE2_SIZE eo;
    uint32_t opt = PCRE2_UTF | PCRE2_UCP | (literal == 1 ? PCRE2_LITERAL : 0) |
                   (literal ? PCRE2_AUTO_CALLOUT : 0);
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, opt, &ec, &eo, NULL);
    if (!re) {
        PCRE2_UCHAR msg[120];
        pcre2_get_error_message(ec, msg, sizeof msg);
        snprintf(err, errlen, "%s: %s: the pattern does not compile at offset %zu: %s", fname,
                 key, (size_t)eo, (const char *)msg);
    }
    return re;
}

static Step *new_step(HfTok *t, StepKind k, const char *fname, char *err, size_t errlen)
{
    if (t->n_steps == HF_TOK_MAX_STEPS) {
        snprintf(err, errlen, "%s: pre_tokenizer: more than %d steps", fname, HF_TOK_MAX_STEPS);
        return NULL;
    }
    Step *s = &t->steps[t->n_steps++];
    memset(s, 0, sizeof *s);
    s->kind = k;
    return s;
}

static int is_true(const cJSON *o, const char *key, int def)
{
    const cJSON *it = json_get(o, key);
    return cJSON_IsBool(it) ? cJSON_IsTrue(it) : def;
}

static int read_pre(HfTok *t, const cJSON *p, const char *fname, char *err, size_t errlen)
{
    if (!p || cJSON_IsNull(p))
        return 0;
    const cJSON *ty = json_get(p, "type");
    const char *type = cJSON_IsString(ty) ? ty->valuestring : "";
    Step *s;
    if (!strcmp(type, "Sequence")) {
        const cJSON *list = json_get(p, "pretokenizers"), *it;
        cJSON_ArrayForEach(it, list)
            if (read_pre(t, it, fname, err, errlen))
                return -1;
        return 0;
    }
    if (!strcmp(type, "ByteLevel")) {
        if (!(s = new_step(t, PT_BYTELEVEL, fname, err, errlen))) return -1;
        s->prefix_space = is_true(p, "add_prefix_space", 0);
        t->byte_level = 1;
        if (is_true(p, "use_regex", 1) &&
            !(s->re = compile(HF_TOK_GPT2_PATTERN, 0, fname, "pre_tokenizer", err, errlen)))
            return -1;
        return 0;
    }
    if (!strcmp(type, "Split")) {
        const cJSON *pat = json_get(p, "pattern"), *rx = json_get(pat, "Regex"),
                    *st = json_get(pat, "String"), *beh = json_get(p, "behavior");
        const char *b = cJSON_IsString(beh) ? beh->valuestring : "";
        if (is_true(p, "invert", 0) || (strcmp(b, "Isolated") && strcmp(b, "Removed"))) {
            snprintf(err, errlen, "%s: pre_tokenizer Split with behavior \"%.30s\"%s is not "
                     "supported (attend knows Isolated and Removed)", fname, b,
                     is_true(p, "invert", 0) ? " and invert" : "");
            return -1;
        }
        if (!cJSON_IsString(rx) && !cJSON_IsString(st)) {
            snprintf(err, errlen, "%s: pre_tokenizer Split: \"pattern\" has neither Regex nor String", fname);
            return -1;
        }
        if (!(s = new_step(t, PT_SPLIT, fname, err, errlen))) return -1;
        s->removed = !strcmp(b, "Removed");
        s->re = compile(cJSON_IsString(rx) ? rx->valuestring : st->valuestring,
                        cJSON_IsString(rx) ? 2 : 1, fname, "pre_tokenizer.pattern", err, errlen);
        return s->re ? 0 : -1;
    }
    if (!strcmp(type, "Digits")) {
        if (!(s = new_step(t, PT_DIGITS, fname, err, errlen))) return -1;
        s->re = compile(is_true(p, "individual_digits", 0) ? "\\p{N}" : "\\p{N}+", 0, fname,
                        "pre_tokenizer", err, errlen);
        return s->re ? 0 : -1;
    }
    if (!strcmp(type, "Metaspace")) {
        const cJSON *ps = json_get(p, "prepend_scheme");
        if (!(s = new_step(t, PT_METASPACE, fname, err, errlen))) return -1;
        s->split = is_true(p, "split", 1);
        s->prepend = cJSON_IsString(ps) ? (!strcmp(ps->valuestring, "always") ? 1
                                           : !strcmp(ps->valuestring, "first") ? 2 : 0)
                                        : is_true(p, "add_prefix_space", 1);
        return 0;
    }
    snprintf(err, errlen, "%s: pre_tokenizer type \"%.40s\" is not supported (attend knows "
             "ByteLevel, Split, Digits, Metaspace and Sequence)", fname, type);
    return -1;
}

/* 1 if s is valid UTF-8 throughout (the tokenizer matches with PCRE2_NO_UTF_CHECK). */
static int valid_utf8(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        int l = utf8_decode(s + i, n - i, NULL);
        if (!l)
            return 0;
        i += (size_t)l;
    }
    return 1;
}

static int read_norm(HfTok *t, const cJSON *p, const char *fname, char *err, size_t errlen)
{
    if (!p || cJSON_IsNull(p))
        return 0;
    const cJSON *ty = json_get(p, "type");
    const char *type = cJSON_IsString(ty) ? ty->valuestring : "";
    if (!strcmp(type, "Sequence")) {
        const cJSON *it;
        cJSON_ArrayForEach(it, json_get(p, "normalizers"))
            if (read_norm(t, it, fname, err, errlen))
                return -1;
        return 0;
    }
    if (!strcmp(type, "NFC"))
        return 0; /* text typed or pasted is NFC already: see docs/models.md */
    const cJSON *a = !strcmp(type, "Prepend") ? json_get(p, "prepend")
                     : !strcmp(type, "Replace") ? json_get(json_get(p, "pattern"), "String") : NULL;
    const cJSON *b = json_get(p, "content");
    if (!cJSON_IsString(a) || (!strcmp(type, "Replace") && !cJSON_IsString(b))) {
        snprintf(err, errlen, "%s: normalizer \"%.40s\" is not supported (attend knows Prepend, "
                 "Replace of a String, NFC and Sequence)", fname, type);
        return -1;
    }
    if (t->n_norms == HF_TOK_MAX_STEPS) {
        snprintf(err, errlen, "%s: normalizer: more than %d steps", fname, HF_TOK_MAX_STEPS);
        return -1;
    }
    if (!valid_utf8(a->valuestring) || (cJSON_IsString(b) && !valid_utf8(b->valuestring))) {
        snprintf(err, errlen, "%s: normalizer %s: a string that is not valid UTF-8", fname, type);
        return -1;
    }
    Norm *n = &t->norms[t->n_norms++];
    n->kind = !strcmp(type, "Prepend") ? NM_PREPEND : NM_REPLACE;
    n->a = strdup(a->valuestring);
    n->b = n->kind == NM_REPLACE ? strdup(b->valuestring) : NULL;
    if (!n->a || (n->kind == NM_REPLACE && !n->b)) {
        snprintf(err, errlen, "%s: out of memory", fname);
        return -1;
    }
    return 0;
}

/* TemplateProcessing's "single": the special tokens before and after the sequence. */
static int read_post(HfTok *t, const cJSON *p, const char *fname, char *err, size_t errlen)
{
    if (!p || cJSON_IsNull(p))
        return 0;
    const cJSON *ty = json_get(p, "type");
    const char *type = cJSON_IsString(ty) ? ty->valuestring : "";
    if (!strcmp(type, "Sequence")) {
        const cJSON *it;
        cJSON_ArrayForEach(it, json_get(p, "processors"))
            if (read_post(t, it, fname, err, errlen))
                return -1;
        return 0;
    }
    if (!strcmp(type, "ByteLevel"))
        return 0;
    if (strcmp(type, "TemplateProcessing")) {
        snprintf(err, errlen, "%s: post_processor type \"%.40s\" is not supported (attend "
                 "knows TemplateProcessing, ByteLevel and Sequence)", fname, type);
        return -1;
    }
    const cJSON *it, *sp = json_get(p, "special_tokens");
    int after = 0;
    cJSON_ArrayForEach(it, json_get(p, "single")) {
        if (json_get(it, "Sequence")) {
            after = 1;
            continue;
        }
        const cJSON *id = json_get(json_get(it, "SpecialToken"), "id");
        const cJSON *ids = json_get(json_get(sp, cJSON_IsString(id) ? id->valuestring : ""), "ids");
        const cJSON *x;
        if (!cJSON_IsString(id) || !cJSON_IsArray(ids)) {
            snprintf(err, errlen, "%s: post_processor.single: a special token without its ids "
                     "in special_tokens", fname);
            return -1;
        }
        cJSON_ArrayForEach(x, ids) {
            int *n = after ? &t->n_suffix : &t->n_prefix;
            if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble >= t->n_ids || *n == HF_TOK_MAX_AFFIX) {
                snprintf(err, errlen, "%s: post_processor.special_tokens[\"%.40s\"]: an id is "
                         "not a token of the vocabulary", fname, id->valuestring);
                return -1;
            }
            (after ? t->suffix : t->prefix)[(*n)++] = x->valueint;
        }
    }
    return 0;
}

static int read_model(HfTok *t, const cJSON *mo, const char *fname, char *err, size_t errlen)
{
    const cJSON *ty = json_get(mo, "type"), *vocab = json_get(mo, "vocab"),
                *merges = json_get(mo, "merges"), *it;
    const cJSON *csp = json_get(mo, "continuing_subword_prefix"), *ews = json_get(mo, "end_of_word_suffix");
    if (!cJSON_IsString(ty) || strcmp(ty->valuestring, "BPE")) {
        snprintf(err, errlen, "%s: model.type \"%.40s\" is not supported: attend reads BPE "
                 "tokenizers", fname, cJSON_IsString(ty) ? ty->valuestring : "(missing)");
        return -1;
    }
    if ((cJSON_IsString(csp) && csp->valuestring[0]) || (cJSON_IsString(ews) && ews->valuestring[0])) {
        snprintf(err, errlen, "%s: model.%s is not supported", fname,
                 cJSON_IsString(csp) && csp->valuestring[0] ? "continuing_subword_prefix" : "end_of_word_suffix");
        return -1;
    }
    if (!cJSON_IsObject(vocab) || !vocab->child || !cJSON_IsArray(merges)) {
        snprintf(err, errlen, "%s: model.%s is missing or of the wrong type", fname,
                 !cJSON_IsObject(vocab) || !vocab->child ? "vocab" : "merges");
        return -1;
    }
    if (strmap_reserve(&t->vocab, cJSON_GetArraySize(vocab), 0) ||
        strmap_reserve(&t->merges, cJSON_GetArraySize(merges), 0)) {
        snprintf(err, errlen, "%s: out of memory", fname);
        return -1;
    }
    cJSON_ArrayForEach(it, vocab) {
        if (!cJSON_IsNumber(it)) {
            snprintf(err, errlen, "%s: model.vocab[\"%.60s\"] is not a number", fname, it->string);
            return -1;
        }
        if (tok_add(t, it->string, it->valueint, fname, err, errlen))
            return -1;
    }
    int rank = 0;
    cJSON_ArrayForEach(it, merges) {
        char a[1024], b[1024];
        const char *sp = cJSON_IsString(it) ? strchr(it->valuestring, ' ') : NULL;
        if (sp && !strchr(sp + 1, ' ') && (size_t)(sp - it->valuestring) < sizeof a &&
            strlen(sp + 1) < sizeof b) {
            memcpy(a, it->valuestring, (size_t)(sp - it->valuestring));
            a[sp - it->valuestring] = 0;
            snprintf(b, sizeof b, "%s", sp + 1);
        } else if (cJSON_IsArray(it) && cJSON_GetArraySize(it) == 2 &&
                   cJSON_IsString(cJSON_GetArrayItem(it, 0)) && cJSON_IsString(cJSON_GetArrayItem(it, 1)) &&
                   strlen(cJSON_GetArrayItem(it, 0)->valuestring) < sizeof a &&
                   strlen(cJSON_GetArrayItem(it, 1)->valuestring) < sizeof b) {
            snprintf(a, sizeof a, "%s", cJSON_GetArrayItem(it, 0)->valuestring);
            snprintf(b, sizeof b, "%s", cJSON_GetArrayItem(it, 1)->valuestring);
        } else {
            snprintf(err, errlen, "%s: model.merges[%d] is not \"LEFT RIGHT\" or [LEFT, RIGHT]",
                     fname, rank);
            return -1;
        }
        if (add_merge(t, a, b, rank, fname, err, errlen))
            return -1;
        rank++;
    }
    t->byte_fallback = is_true(mo, "byte_fallback", 0);
    t->ignore_merges = is_true(mo, "ignore_merges", 0);
    const cJSON *unk = json_get(mo, "unk_token");
    t->unk_id = cJSON_IsString(unk) ? strmap_get(&t->vocab, unk->valuestring, strlen(unk->valuestring)) : -1;
    return 0;
}

static int read_added(HfTok *t, const cJSON *list, const char *fname, char *err, size_t errlen)
{
    const cJSON *it;
    int i = 0;
    cJSON_ArrayForEach(it, list) {
        const cJSON *id = json_get(it, "id"), *c = json_get(it, "content");
        if (!cJSON_IsNumber(id) || !cJSON_IsString(c) || !c->valuestring[0]) {
            snprintf(err, errlen, "%s: added_tokens[%d] needs an \"id\" and a non-empty \"content\"", fname, i);
            return -1;
        }
        if (t->n_added == HF_TOK_MAX_ADDED) {
            snprintf(err, errlen, "%s: more than %d added_tokens", fname, HF_TOK_MAX_ADDED);
            return -1;
        }
        if (tok_add(t, c->valuestring, id->valueint, fname, err, errlen))
            return -1;
        t->added[t->n_added].text = strdup(c->valuestring);
        if (!t->added[t->n_added].text) {
            snprintf(err, errlen, "%s: out of memory", fname);
            return -1;
        }
        t->added[t->n_added].len = strlen(c->valuestring);
        t->added[t->n_added++].id = id->valueint;
        i++;
    }
    return 0;
}

/* Byte fallback's <0xHH> tokens. */
static void find_bytes(HfTok *t)
{
    for (int b = 0; b < 256; b++) {
        char nm[8];
        snprintf(nm, sizeof nm, "<0x%02X>", b);
        t->byte_id[b] = strmap_get(&t->vocab, nm, strlen(nm));
    }
}

static HfTok *tok_new(void)
{
    HfTok *t = calloc(1, sizeof *t);
    if (t)
        t->unk_id = -1;
    return t;
}

int hf_tok_parse_json(HfTok **out, const char *name, const char *text, size_t len, char *err,
                      size_t errlen)
{
    *out = NULL;
    cJSON *root = json_parse_text(name, text, len, err, errlen);
    if (!root)
        return -1;
    HfTok *t = tok_new();
    int rc = !t ? -1 : 0;
    if (!t)
        snprintf(err, errlen, "%s: out of memory", name);
    if (!rc && !cJSON_IsObject(json_get(root, "model"))) {
        snprintf(err, errlen, "%s: key \"model\" is missing", name);
        rc = -1;
    }
    if (!rc)
        rc = read_model(t, json_get(root, "model"), name, err, errlen) ||
             read_added(t, json_get(root, "added_tokens"), name, err, errlen) ||
             read_norm(t, json_get(root, "normalizer"), name, err, errlen) ||
             read_pre(t, json_get(root, "pre_tokenizer"), name, err, errlen);
    if (!rc) {
        tok_trim(t);
        rc = read_post(t, json_get(root, "post_processor"), name, err, errlen);
    }
    cJSON_Delete(root);
    if (rc) {
        hf_tok_free(t);
        return -1;
    }
    find_bytes(t);
    *out = t;
    return 0;
}

/* JSON's white space. */
static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* Four hex digits at p as a number, or -1. */
static long hex4(const char *p, const char *e)
{
    long v = 0;
    for (int i = 0; i < 4; i++, p++) {
        if (p >= e)
            return -1;
        int c = *p, d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* The JSON string whose opening quote is at *pp, decoded in place (never longer than its text)
 * and NUL-terminated there; *pp moves past its closing quote. The string, or NULL for anything
 * the fast reader leaves to cJSON: a control byte, an unknown escape, \u0000, a lone
 * surrogate, no closing quote. */
static char *flat_string(char **pp, char *e)
{
    char *p = *pp + 1, *o = p, *start = p;
    while (p < e && *p != '"') {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20)
            return NULL;
        if (c != '\\') {
            *o++ = *p++;
            continue;
        }
        if (++p >= e)
            return NULL;
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *simple = *p ? strchr(from, *p) : NULL;
        if (simple) {
            *o++ = to[simple - from];
            p++;
            continue;
        }
        long cp = *p == 'u' ? hex4(p + 1, e) : -1;
        p += 5;
        if (cp >= 0xd800 && cp <= 0xdbff && p + 6 <= e && p[0] == '\\' && p[1] == 'u') {
            long lo = hex4(p + 2, e);
            if (lo >= 0xdc00 && lo <= 0xdfff) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                p += 6;
            }
        }
        char u[4];
        int l = cp > 0 ? utf8_encode((unsigned)cp, u) : 0; /* 0: a surrogate left alone */
        if (!l)
            return NULL;
        memcpy(o, u, (size_t)l);
        o += l;
    }
    if (p >= e)
        return NULL;
    *o = 0; /* o <= p: the closing quote's place at the latest */
    *pp = p + 1;
    return start;
}

/* A vocab.json as GPT-2's is written, {"token": id, ...} with plain integer ids, read without
 * building a cJSON tree (50,257 pairs: a third of the tokenizer's load): every token put in
 * the file's order, as the cJSON path would. text (len bytes, NUL-terminated) is decoded in
 * place. 0 when read; 1 when the text is anything else (nothing put: the caller reads it with
 * cJSON, which names any problem); -1 out of memory. */
static int flat_vocab(HfTok *t, char *text, size_t len, const char *fname, char *err, size_t errlen)
{
    char *p = text, *e = text + len;
    size_t cap = len / 8 + 16, n = 0;
    char **keys = malloc(cap * sizeof *keys);
    int *ids = malloc(cap * sizeof *ids);
    int rc = !keys || !ids ? -1 : 1;
    p = (char *)skip_ws(p, e);
    if (rc > 0 && p < e && *p++ == '{')
        for (;;) { /* one pair, then ',' or '}' */
            p = (char *)skip_ws(p, e);
            char *key = p < e && *p == '"' ? flat_string(&p, e) : NULL;
            p = key ? (char *)skip_ws(p, e) : e;
            if (p >= e || *p++ != ':')
                break;
            p = (char *)skip_ws(p, e);
            int neg = p < e && *p == '-', digits = 0;
            long id = 0;
            for (p += neg; p < e && *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
                id = id * 10 + (*p - '0');
            p = digits ? (char *)skip_ws(p, e) : e;
            if (p >= e || (*p != ',' && *p != '}'))
                break;
            if (n == cap) {
                char **nk = realloc(keys, 2 * cap * sizeof *keys);
                keys = nk ? nk : keys;
                int *ni = nk ? realloc(ids, 2 * cap * sizeof *ids) : NULL;
                ids = ni ? ni : ids;
                if (!nk || !ni) {
                    rc = -1;
                    break;
                }
                cap *= 2;
            }
            keys[n] = key;
            ids[n++] = (int)(neg ? -id : id);
            if (*p++ == '}') {
                rc = skip_ws(p, e) == e && n > 0 ? 0 : 1;
                break;
            }
        }
    if (!rc && strmap_reserve(&t->vocab, (int)n, len))
        rc = -1;
    for (size_t i = 0; !rc && i < n; i++)
        if (tok_add(t, keys[i], ids[i], fname, err, errlen))
            rc = -2; /* tok_add's own message */
    free(keys);
    free(ids);
    if (rc == -1)
        snprintf(err, errlen, "%s: out of memory", fname);
    return rc < 0 ? -1 : rc;
}

int hf_tok_load_gpt2(HfTok **out, const char *vocab_json, const char *merges_txt, char *err,
                     size_t errlen)
{
    *out = NULL;
    char *text = NULL, *vtext = NULL;
    size_t len, vlen;
    HfTok *t = tok_new();
    if (!t || fileio_read(vocab_json, FILEIO_MAX_BYTES, &vtext, &vlen, err, errlen)) {
        if (!t)
            snprintf(err, errlen, "%s: out of memory", vocab_json);
        free(t);
        return -1;
    }
    int fast = flat_vocab(t, vtext, vlen, vocab_json, err, errlen);
    free(vtext);
    if (fast < 0) {
        hf_tok_free(t);
        return -1;
    }
    cJSON *v = fast ? json_parse_file(vocab_json, NULL, err, errlen) : NULL;
    if (fast && !v) {
        hf_tok_free(t);
        return -1;
    }
    int rc = fileio_read(merges_txt, FILEIO_MAX_BYTES, &text, &len, err, errlen) ? -1 : 0;
    const cJSON *it;
    if (!rc && v && (!cJSON_IsObject(v) || !v->child)) {
        snprintf(err, errlen, "%s: not an object of token: id", vocab_json);
        rc = -1;
    }
    if (!rc) { /* one allocation for the tables: the keys' count, their bytes within the files' */
        int lines = 0;
        for (const char *q = text; q && *q; q++)
            lines += *q == '\n';
        if ((v && strmap_reserve(&t->vocab, cJSON_GetArraySize(v), 0)) ||
            strmap_reserve(&t->merges, lines + 1, len)) {
            snprintf(err, errlen, "%s: out of memory", merges_txt);
            rc = -1;
        }
    }
    if (!rc && v)
        cJSON_ArrayForEach(it, v) {
            if (!cJSON_IsNumber(it)) {
                snprintf(err, errlen, "%s: \"%.60s\" is not a number", vocab_json, it->string);
                rc = -1;
                break;
            }
            if ((rc = tok_add(t, it->string, it->valueint, vocab_json, err, errlen)))
                break;
        }
    int line = 0, rank = 0;
    for (char *p = text, *nl; !rc && p && *p; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        if (nl) *nl = 0;
        line++;
        size_t l = strlen(p);
        if (l && p[l - 1] == '\r') p[--l] = 0;
        if ((line == 1 && !strncmp(p, "#version", 8)) || !l)
            continue;
        char *sp = strchr(p, ' ');
        if (!sp || sp == p || !sp[1] || strchr(sp + 1, ' ')) {
            snprintf(err, errlen, "%s:%d: a merge is two tokens separated by one space", merges_txt, line);
            rc = -1;
            break;
        }
        *sp = 0;
        rc = add_merge(t, p, sp + 1, rank++, merges_txt, err, errlen);
    }
    free(text);
    cJSON_Delete(v);
    if (!rc) {
        Step *s = new_step(t, PT_BYTELEVEL, vocab_json, err, errlen);
        t->byte_level = 1;
        rc = !s || !(s->re = compile(HF_TOK_GPT2_PATTERN, 0, vocab_json, "pattern", err, errlen));
        int eot = strmap_get(&t->vocab, "<|endoftext|>", 13);
        if (!rc && eot >= 0) {
            t->added[0].text = strdup("<|endoftext|>");
            t->added[0].len = 13;
            t->added[0].id = eot;
            t->n_added = t->added[0].text != NULL;
        }
    }
    if (rc) {
        hf_tok_free(t);
        return -1;
    }
    tok_trim(t);
    find_bytes(t);
    *out = t;
    return 0;
}

int hf_tok_load_dir(HfTok **out, const char *dir, int bos_id, char *err, size_t errlen)
{
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/tokenizer.json", dir);
    int ab = fileio_absent(a, err, errlen);
    if (ab == 2)
        return -1; /* a dangling link, named */
    if (ab) {
        snprintf(a, sizeof a, "%s/vocab.json", dir);
        snprintf(b, sizeof b, "%s/merges.txt", dir);
        if (access(a, F_OK) != 0 || access(b, F_OK) != 0) {
            snprintf(err, errlen, "%s: no tokenizer: neither tokenizer.json nor vocab.json + "
                     "merges.txt is there", dir);
            return -1;
        }
        return hf_tok_load_gpt2(out, a, b, err, errlen);
    }
    char *text;
    size_t len;
    if (fileio_read(a, FILEIO_MAX_BYTES, &text, &len, err, errlen))
        return -1;
    int rc = hf_tok_parse_json(out, a, text, len, err, errlen);
    free(text);
    if (rc)
        return -1;
    /* tokenizer_config.json's add_bos_token, when the post-processor adds none */
    snprintf(b, sizeof b, "%s/tokenizer_config.json", dir);
    cJSON *tc = access(b, F_OK) == 0 ? json_parse_file(b, NULL, err, errlen) : NULL;
    if (tc && is_true(tc, "add_bos_token", 0) && (*out)->n_prefix == 0 && bos_id >= 0 &&
        bos_id < (*out)->n_ids)
        (*out)->prefix[(*out)->n_prefix++] = bos_id;
    cJSON_Delete(tc);
    return 0;
}

void hf_tok_readable(const HfTok *t, int id, char *buf, size_t n)
{
    const char *raw = id >= 0 && id < t->n_ids ? t->id_tok[id] : NULL;
    size_t k = 0;
    if (!raw) {
        snprintf(buf, n, "<id %d>", id);
        return;
    }
    unsigned char bytes[HF_TOK_MAX_PIECE];
    size_t nb = 0;
    int added = 0;
    for (int i = 0; i < t->n_added && !added; i++)
        added = t->added[i].id == id;
    size_t rl = strlen(raw);
    for (size_t i = 0; raw[i] && nb + 4 < sizeof bytes;) {
        if ((unsigned char)raw[i] < 0x80) { /* ASCII: its own byte, byte-level or not */
            bytes[nb++] = (unsigned char)raw[i++];
            continue;
        }
        unsigned cp = UTF8_REPLACEMENT; /* a stray byte maps to no byte: copied as it is */
        int l = utf8_decode(raw + i, rl - i, &cp);
        if (!l) l = 1;
        int by = t->byte_level && !added ? hf_tok_char_byte(cp) : -1;
        if (by >= 0) {
            bytes[nb++] = (unsigned char)by;
        } else if (cp == 0x2581 && !added) { /* SentencePiece's space */
            bytes[nb++] = ' ';
        } else {
            memcpy(bytes + nb, raw + i, (size_t)l);
            nb += (size_t)l;
        }
        i += (size_t)l;
    }
    /* valid UTF-8 as it is; control characters and stray bytes escaped */
    for (size_t i = 0; i < nb && k + 8 < n;) {
        if (bytes[i] >= 0x20 && bytes[i] < 0x7f) { /* printable ASCII */
            buf[k++] = (char)bytes[i++];
            continue;
        }
        int l = utf8_decode((const char *)bytes + i, nb - i, NULL);
        if (l > 1 || (l == 1 && bytes[i] >= 0x20 && bytes[i] != 0x7f)) {
            memcpy(buf + k, bytes + i, (size_t)l);
            k += (size_t)l;
            i += (size_t)l;
            continue;
        }
        unsigned c = bytes[i++];
        k += (size_t)snprintf(buf + k, n - k, c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : "\\x%02x", c);
    }
    buf[k < n ? k : n - 1] = 0;
}

static int encode_hook(const void *tok, const char *text, int *ids, int max_ids, TokenizeInfo *info)
{
    return hf_tok_encode(tok, text, ids, max_ids, info);
}

static void free_hook(void *tok) { hf_tok_free(tok); }

int hf_tok_vocab(HfTok *t, int vocab_size, Vocab *v, char *err, size_t errlen)
{
    char buf[HF_TOK_MAX_PIECE * 4 + 16];
    size_t bytes = 0; /* about the readable words' bytes: the raw tokens' */
    for (int i = 0; i < vocab_size && i < t->n_ids; i++)
        bytes += t->id_tok[i] ? strlen(t->id_tok[i]) + 1 : 8;
    int rc = vocab_start(v, vocab_size, bytes, err, errlen);
    for (int i = 0; !rc && i < vocab_size; i++) { /* each word copied once, into the map */
        hf_tok_readable(t, i, buf, sizeof buf);
        rc = vocab_push(v, buf, strlen(buf), err, errlen);
    }
    if (rc) {
        vocab_free(v);
        hf_tok_free(t);
        return -1;
    }
    v->unk_id = t->unk_id >= 0 && t->unk_id < vocab_size ? vocab_id(v, v->words[t->unk_id]) : -1;
    v->tok = t;
    v->tok_encode = encode_hook;
    v->tok_free = free_hook;
    return 0;
}
