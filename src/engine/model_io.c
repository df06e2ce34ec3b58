/* model_io.c - model files: JSON load with full validation, atomic JSON save.
 * The format is documented in docs/model-format.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attend_limits.h"
#include "fileio.h"
#include "hf_model.h"
#include "json.h"
#include "model.h"
#include "model_json.h"

static const char *const CONFIG_KEYS[] = {
    "arch", "vocab_size", "d_model", "n_heads", "d_head", "n_layers", "d_ff", "max_len", "pe",
    "norm", "norm_placement", "ffn", "scale_embed", "final_norm", "tie_embed", "norm_eps",
    "rope_base", "name", "description", NULL};
static const char *const TOP_KEYS[] = {"format", "version", "config", "tokenizer", "vocab",
                                       "weights", "training", NULL};

static int in_list(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

static int get_enum(const cJSON *cfg, const char *key, int (*parse)(const char *), int *out,
                    const char *choices, char *err, size_t errlen)
{
    char what[64];
    snprintf(what, sizeof what, "config.%s", key);
    const char *s = json_get_string(cfg, key, what, err, errlen);
    if (!s)
        return -1;
    int v = parse(s);
    if (v < 0) {
        snprintf(err, errlen, "\"config.%s\" is \"%s\", expected one of %s", key, s, choices);
        return -1;
    }
    *out = v;
    return 0;
}

static int opt_bool(const cJSON *cfg, const char *key, int def, int *out, char *err, size_t errlen)
{
    char what[64];
    snprintf(what, sizeof what, "config.%s", key);
    if (!json_get(cfg, key)) {
        *out = def;
        return 0;
    }
    return json_get_bool(cfg, key, out, what, err, errlen);
}

/* Reads the "config" object into c. vocab_size may be absent (left 0) when allow_no_vocab. */
static int read_config_opt(const cJSON *cj, ModelConfig *c, int allow_no_vocab, char *err,
                           size_t errlen)
{
    model_config_defaults(c);
    if (!cj || !cJSON_IsObject(cj)) {
        snprintf(err, errlen, "missing object \"config\"");
        return -1;
    }
    for (const cJSON *it = cj->child; it; it = it->next)
        if (!in_list(it->string, CONFIG_KEYS)) {
            snprintf(err, errlen, "unknown key \"config.%s\"", it->string);
            return -1;
        }
    int v;
    if (get_enum(cj, "arch", model_arch_parse, &v, "encoder, decoder, encoder-decoder", err, errlen)) return -1;
    c->arch = (Arch)v;
    if (!(allow_no_vocab && !json_get(cj, "vocab_size")) &&
        json_get_int(cj, "vocab_size", 2, 1000000, &c->vocab_size, "config.vocab_size", err, errlen))
        return -1;
    if (json_get_int(cj, "d_model", 1, ATTEND_MAX_D_MODEL, &c->d_model, "config.d_model", err, errlen)) return -1;
    if (json_get_int(cj, "n_heads", 1, ATTEND_MAX_HEADS, &c->n_heads, "config.n_heads", err, errlen)) return -1;
    if (json_get(cj, "d_head")) {
        if (json_get_int(cj, "d_head", 1, 1024, &c->d_head, "config.d_head", err, errlen)) return -1;
    } else {
        if (c->d_model % c->n_heads) {
            snprintf(err, errlen, "\"config.d_model\" (%d) is not divisible by \"config.n_heads\" (%d); give \"config.d_head\"",
                     c->d_model, c->n_heads);
            return -1;
        }
        c->d_head = c->d_model / c->n_heads;
    }
    if (json_get_int(cj, "n_layers", 1, ATTEND_MAX_LAYERS, &c->n_layers, "config.n_layers", err, errlen)) return -1;
    if (json_get_int(cj, "max_len", 1, ATTEND_MAX_LEN, &c->max_len, "config.max_len", err, errlen)) return -1;
    if (get_enum(cj, "pe", model_pe_parse, &v, "none, sinusoidal, learned, rope", err, errlen)) return -1;
    c->pe = (PeKind)v;
    if (get_enum(cj, "norm", model_norm_parse, &v, "layernorm, rmsnorm", err, errlen)) return -1;
    c->norm = (NormKind)v;
    const char *pl = json_get_string(cj, "norm_placement", "config.norm_placement", err, errlen);
    if (!pl) return -1;
    if (strcmp(pl, "pre") && strcmp(pl, "post")) {
        snprintf(err, errlen, "\"config.norm_placement\" is \"%s\", expected pre or post", pl);
        return -1;
    }
    c->pre_norm = strcmp(pl, "pre") == 0;
    if (get_enum(cj, "ffn", model_ffn_parse, &v, "relu, gelu, swiglu, none", err, errlen)) return -1;
    c->ffn = (FfnKind)v;
    if (c->ffn == FFN_NONE) { /* attention-only: d_ff absent or 0 */
        c->d_ff = 0;
        if (json_get(cj, "d_ff")) {
            if (json_get_int(cj, "d_ff", 0, 16384, &c->d_ff, "config.d_ff", err, errlen)) return -1;
            if (c->d_ff != 0) {
                snprintf(err, errlen, "\"config.d_ff\" is %d, but an attention-only model "
                         "(\"ffn\": \"none\") has no FFN: leave d_ff out or make it 0", c->d_ff);
                return -1;
            }
        }
    } else if (json_get_int(cj, "d_ff", 1, 16384, &c->d_ff, "config.d_ff", err, errlen)) {
        return -1;
    }
    if (opt_bool(cj, "scale_embed", 0, &c->scale_embed, err, errlen)) return -1;
    if (opt_bool(cj, "final_norm", 1, &c->final_norm, err, errlen)) return -1;
    if (opt_bool(cj, "tie_embed", 0, &c->tie_embed, err, errlen)) return -1;
    double dv;
    if (json_get(cj, "norm_eps")) {
        if (json_get_number(cj, "norm_eps", &dv, "config.norm_eps", err, errlen)) return -1;
        if (!(dv > 0 && dv <= 1)) { /* also keeps the float conversion in range */
            snprintf(err, errlen, "\"config.norm_eps\" is %g, must be above 0 and at most 1", dv);
            return -1;
        }
        c->norm_eps = (float)dv;
    }
    if (json_get(cj, "rope_base")) {
        if (json_get_number(cj, "rope_base", &dv, "config.rope_base", err, errlen)) return -1;
        if (!(dv > 1 && dv <= 1e9)) { /* also keeps the float conversion in range */
            snprintf(err, errlen, "\"config.rope_base\" is %g, must be above 1 and at most 1e9", dv);
            return -1;
        }
        c->rope_base = (float)dv;
    }
    const char *s;
    if (json_get(cj, "name")) {
        if (!(s = json_get_string(cj, "name", "config.name", err, errlen))) return -1;
        snprintf(c->name, sizeof c->name, "%s", s);
    }
    if (json_get(cj, "description")) {
        if (!(s = json_get_string(cj, "description", "config.description", err, errlen))) return -1;
        snprintf(c->description, sizeof c->description, "%s", s);
    }
    if (allow_no_vocab && c->vocab_size == 0)
        return 0;
    if (model_config_check(c, err, errlen))
        return -1;
    return model_config_check_size(c, err, errlen);
}

int model_config_check_size(const ModelConfig *c, char *err, size_t errlen)
{
    size_t n = model_config_param_count(c);
    if (n > MODEL_MAX_PARAMS) {
        snprintf(err, errlen, "the config asks for %zu weights (%.1f GB), more than attend's limit "
                 "of %zu million weights (%.1f GB): make d_model, d_ff, n_layers, max_len or "
                 "vocab_size smaller", n, (double)n * 4 / 1e9, (size_t)MODEL_MAX_PARAMS / 1000000,
                 (double)MODEL_MAX_PARAMS * 4 / 1e9);
        return -1;
    }
    return 0;
}

int model_config_read(const cJSON *obj, ModelConfig *c, char *err, size_t errlen)
{
    return read_config_opt(obj, c, 1, err, errlen);
}

/* Reads "vocab" (and "tokenizer": absent is "words", the word-level tokenizer) into v. */
static int read_vocab(const cJSON *root, int vocab_size, Vocab *v, char *err, size_t errlen)
{
    const cJSON *vj = json_get(root, "vocab"), *tj = json_get(root, "tokenizer");
    int kind = VOCAB_WORDS;
    if (tj) {
        kind = cJSON_IsString(tj) ? vocab_kind_parse(tj->valuestring) : -1;
        if (kind < 0) {
            snprintf(err, errlen, "\"tokenizer\" must be \"words\" or \"wordpiece\"");
            return -1;
        }
    }
    if (!vj || !cJSON_IsArray(vj)) {
        snprintf(err, errlen, "missing array \"vocab\"");
        return -1;
    }
    int n = cJSON_GetArraySize(vj);
    if (n != vocab_size) {
        snprintf(err, errlen, "\"vocab\" has %d words but \"config.vocab_size\" is %d", n,
                 vocab_size);
        return -1;
    }
    const char **words = malloc(sizeof *words * (size_t)n);
    if (!words) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int i = 0;
    for (const cJSON *w = vj->child; w; w = w->next, i++) {
        if (!cJSON_IsString(w)) {
            snprintf(err, errlen, "\"vocab\"[%d] is not a string", i);
            free(words);
            return -1;
        }
        words[i] = w->valuestring;
    }
    char e2[200];
    int rc = vocab_init_kind(v, (VocabKind)kind, words, n, e2, sizeof e2);
    free(words);
    if (rc)
        snprintf(err, errlen, "\"vocab\": %s", e2);
    return rc;
}

/* 1 when every weight can be decoded into the file's own buffer (buf, len bytes), at its place
 * in the model's weight block (buf + 4 x offset), so that the weights need no memory of their
 * own: each weight's place starts at or before its own "f32" string when that string lies in
 * buf (decoding in place reads each character before writing over it), and ends before the
 * string of every later weight starts. Weights in any other form (arrays, short strings
 * copied by the parser) only need the second. Shipped models always fit. */
static int fits_in_place(const Model *m, const cJSON *wj, const char *buf, size_t len)
{
    size_t limit = len; /* where the strings of the weights after this one start */
    for (int i = m->n_params - 1; i >= 0; i--) {
        const Param *p = &m->params[i];
        const cJSON *it = json_get(wj, p->name), *f = json_get(it, "f32");
        const char *s = cJSON_IsString(f) ? f->valuestring : NULL;
        size_t at = s && s >= buf && s < buf + len ? (size_t)(s - buf) : len;
        size_t dst = p->offset * sizeof(float), end = dst + (size_t)p->rows * p->cols * sizeof(float);
        if (end > limit || (at < len && dst > at))
            return 0;
        if (at < limit)
            limit = at;
    }
    return 1;
}

/* Reads the model in root; the weights go into the file's buffer text (len bytes) when they
 * fit there (fits_in_place: m then owns text and *taken is 1), else into the block model_new
 * allocated. */
static int load_inner(Model *m, const cJSON *root, char *text, size_t len, int *taken, char *err,
                      size_t errlen)
{
    if (!cJSON_IsObject(root)) {
        snprintf(err, errlen, "the top level must be an object");
        return -1;
    }
    for (const cJSON *it = root->child; it; it = it->next)
        if (!in_list(it->string, TOP_KEYS)) {
            snprintf(err, errlen, "unknown top-level key \"%s\"", it->string);
            return -1;
        }
    const char *fmt = json_get_string(root, "format", "format", err, errlen);
    if (!fmt) return -1;
    if (strcmp(fmt, "attend-model")) {
        snprintf(err, errlen, "\"format\" is not \"attend-model\": not an attend model file");
        return -1;
    }
    int version;
    if (json_get_int(root, "version", 1, 1, &version, "version", err, errlen)) return -1;
    ModelConfig cfg;
    if (read_config_opt(json_get(root, "config"), &cfg, 0, err, errlen)) return -1;
    Vocab v;
    if (read_vocab(root, cfg.vocab_size, &v, err, errlen)) return -1;
    if (model_new(m, &cfg, &v, err, errlen)) {
        vocab_free(&v);
        return -1;
    }
    const cJSON *wj = json_get(root, "weights");
    if (!wj || !cJSON_IsObject(wj)) {
        snprintf(err, errlen, "missing object \"weights\"");
        return -1;
    }
    for (const cJSON *it = wj->child; it; it = it->next)
        if (!model_param(m, it->string)) {
            snprintf(err, errlen, "unexpected weight \"%s\" (not part of a %s with this config)",
                     it->string, model_arch_name(cfg.arch));
            return -1;
        }
    const cJSON *tr = json_get(root, "training");
    if (tr) {
        if (!cJSON_IsObject(tr)) {
            snprintf(err, errlen, "\"training\" must be an object");
            return -1;
        }
        m->training = cJSON_PrintUnformatted(tr);
    }
    if (fits_in_place(m, wj, text, len)) { /* the file's pages become the weights' */
        free(m->data);
        m->data = (float *)(void *)text; /* malloc'd: aligned for any type */
        *taken = 1;
        model_bind(m);
    } else {
        fileio_prefault(m->data, m->n_floats * sizeof *m->data); /* every weight is written */
    }
    for (int i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        char what[64];
        snprintf(what, sizeof what, "weights.%s", p->name);
        if (json_read_matrix(json_get(wj, p->name), m->data + p->offset, p->rows, p->cols, what,
                             err, errlen))
            return -1;
    }
    return 0;
}

int model_load(Model *m, const char *path, char *err, size_t errlen)
{
    return model_load_progress(m, path, NULL, NULL, err, errlen);
}

int model_load_progress(Model *m, const char *path, ModelProgress progress, void *ctx, char *err,
                        size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (hf_is_dir(path)) /* a Hugging Face model directory (docs/models.md) */
        return hf_model_load(m, path, progress, ctx, err, errlen);
    char e2[400], *text;
    size_t len;
    cJSON *root = json_parse_file_borrow(path, &text, &len, err, errlen); /* weights: not copied */
    if (!root)
        return -1;
    char dup[200];
    if (json_find_duplicate(root, dup, sizeof dup)) { /* not "missing key" further on */
        snprintf(err, errlen, "%s: key \"%s\" appears twice", path, dup);
        cJSON_Delete(root);
        free(text);
        return -1;
    }
    int taken = 0;
    int rc = load_inner(m, root, text, len, &taken, e2, sizeof e2);
    cJSON_Delete(root);
    if (!taken) {
        free(text);
    } else if (rc == 0 && m->n_floats) { /* give back the file's text after the weights */
        float *d = realloc(m->data, m->n_floats * sizeof *m->data);
        if (d && d != m->data) {
            m->data = d;
            model_bind(m);
        }
    }
    if (rc) {
        snprintf(err, errlen, "%s: %s", path, e2);
        model_free(m);
        return -1;
    }
    snprintf(m->path, sizeof m->path, "%s", path);
    return 0;
}

void model_config_write(FILE *f, const ModelConfig *c, const char *pe_key, const char *sep)
{
    const char *s = sep;
    fprintf(f, "\"arch\": \"%s\"%s\"vocab_size\": %d%s\"d_model\": %d%s\"n_heads\": %d%s"
               "\"d_head\": %d%s\"n_layers\": %d%s\"d_ff\": %d%s\"max_len\": %d%s",
            model_arch_name(c->arch), s, c->vocab_size, s, c->d_model, s, c->n_heads, s,
            c->d_head, s, c->n_layers, s, c->d_ff, s, c->max_len, s);
    fprintf(f, "\"%s\": \"%s\"%s\"norm\": \"%s\"%s\"norm_placement\": \"%s\"%s\"ffn\": \"%s\"%s",
            pe_key, model_pe_name(c->pe), s, model_norm_name(c->norm), s,
            c->pre_norm ? "pre" : "post", s, model_ffn_name(c->ffn), s);
    fprintf(f, "\"scale_embed\": %s%s\"final_norm\": %s%s\"tie_embed\": %s%s\"norm_eps\": %.9g%s"
               "\"rope_base\": %.9g",
            c->scale_embed ? "true" : "false", s, c->final_norm ? "true" : "false", s,
            c->tie_embed ? "true" : "false", s, (double)c->norm_eps, s, (double)c->rope_base);
}

int model_save(const Model *m, const char *path, char *err, size_t errlen)
{
    const ModelConfig *c = &m->cfg;
    fileio_clean_stale(path);
    FileioTmp t;
    if (fileio_tmp_open(&t, path, 0644, err, errlen))
        return -1;
    FILE *f = fileio_tmp_stream(&t, 0);
    if (!f) {
        snprintf(err, errlen, "%s: cannot save: out of memory", path);
        fileio_tmp_abort(&t);
        return -1;
    }
    fprintf(f, "{\n\"format\": \"attend-model\",\n\"version\": 1,\n\"config\": {\n");
    fprintf(f, "  \"name\": ");
    json_write_string(f, c->name);
    fprintf(f, ",\n  \"description\": ");
    json_write_string(f, c->description);
    fputs(",\n  ", f);
    model_config_write(f, c, "pe", ", ");
    fputs("\n},\n", f);
    if (m->training)
        fprintf(f, "\"training\": %s,\n", m->training);
    if (m->vocab.kind != VOCAB_WORDS)
        fprintf(f, "\"tokenizer\": \"%s\",\n", vocab_kind_name(m->vocab.kind));
    fprintf(f, "\"vocab\": [");
    for (int i = 0; i < m->vocab.n; i++) {
        fputs(i ? (i % 12 ? ", " : ",\n  ") : "\n  ", f);
        json_write_string(f, m->vocab.words[i]);
    }
    fprintf(f, "\n],\n\"weights\": {\n");
    for (int i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        const float *x = m->data + p->offset;
        fprintf(f, "%s\"%s\": ", i ? ",\n" : "", p->name);
        if (!m->save_arrays) {
            if (p->rows == 1)
                fprintf(f, "{\"shape\": [%d], \"f32\": \"", p->cols);
            else
                fprintf(f, "{\"shape\": [%d, %d], \"f32\": \"", p->rows, p->cols);
            json_write_f32_base64(f, x, (size_t)p->rows * p->cols);
            fputs("\"}", f);
        } else if (p->rows == 1) {
            fputc('[', f);
            for (int j = 0; j < p->cols; j++)
                fprintf(f, "%s%.9g", j ? "," : "", (double)x[j]);
            fputc(']', f);
        } else {
            fputc('[', f);
            for (int r = 0; r < p->rows; r++) {
                fputs(r ? ",\n  [" : "\n  [", f);
                for (int j = 0; j < p->cols; j++)
                    fprintf(f, "%s%.9g", j ? "," : "", (double)x[(size_t)r * p->cols + j]);
                fputc(']', f);
            }
            fputc(']', f);
        }
    }
    fprintf(f, "\n}\n}\n");
    /* A write error (a full disk, EFBIG under a file-size limit) is kept by the stream and
     * reported by the commit, which then leaves the previous file as it was. */
    return fileio_tmp_commit(&t, err, errlen);
}
