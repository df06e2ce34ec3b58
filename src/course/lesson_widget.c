/* lesson_widget.c - the lesson loader's widget part (lesson_widget.h, prefix lw_): a page's
 * "widget" object and its "start" (also a question's "state"), the models they name, worked
 * matrices, params configurations, and a first run of the starting state to catch what only
 * the engine knows. No curses, no printing, no exit(). */
#include "lesson_widget.h"

#include <assert.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath.h"
#include "hf_model.h"
#include "lesson.h"
#include "lab.h"
#include "live.h"
#include "lens.h"
#include "names.h"
#include "widget.h"

static const char *const WIDGET_KEYS[] = {"kind", "sentence", "target", "model", "start",
                                          "controls", "q", "k", "v", "labels", "config", "lab",
                                          "corrupt", "model2", "steps", NULL};
static const char *const WIDGET_REQ[] = {"kind", NULL};

/* Start keys each kind reads; an unknown key is left to the start's own key check (model
 * widgets) or does nothing (explanation widgets, which read few keys). */
static int start_key_ok(WidgetKind k, const char *key)
{
    int sk = course_start_key_parse(key);
    if (sk < 0)
        return !course_kind_is_explain(k);
    return course_start_key_ok(k, (StartKey)sk);
}

/* ---- models ---- */

/* 1 when the file path is inside directory dir (both resolved: links, "..", symlinks). */
static int inside(const char *file_real, const char *dir)
{
    char d[PATH_MAX];
    if (!realpath(dir, d))
        return 0;
    size_t n = strlen(d);
    return !strncmp(file_real, d, n) && (file_real[n] == '/' || (n == 1 && d[0] == '/'));
}

/* A lesson may only open models inside its course or attend's data directory (a lesson file
 * from elsewhere must not make attend read arbitrary files). 0, or -1 with a message. */
static int model_path_allowed(const Course *c, const char *name, const char *path, char *err,
                              size_t errlen)
{
    char real[PATH_MAX], data[1024];
    if (!realpath(path, real))
        return 0; /* missing: model_load says so */
    data_path("data", data, sizeof data);
    if (inside(real, c->dir) || inside(real, data))
        return 0;
    snprintf(err, errlen, "model \"%.60s\" is %.140s, outside the course (%.120s) and attend's "
             "data directory (%.120s): a lesson's model must be in one of them", name, real,
             c->dir, data);
    return -1;
}

/* Index into c->models of the model a widget names (loaded on first use), or -1 when out of
 * memory. The entry may have ok == 0 with its error. */
int lw_course_model(Course *c, const char *name, const char *lesson_file)
{
    char path[1024];
    int opened = !strcmp(name, LESSON_OPENED);
    for (int i = 0; opened && i < c->n_models; i++)
        if (c->models[i]->opened_slot)
            return i;
    if (!*name || opened) { /* "@opened" loads the default until the learner opens one */
        data_path(DATA_LESSON_MODEL, path, sizeof path);
    } else if (strchr(name, '/')) {
        const char *slash = strrchr(lesson_file, '/');
        if (name[0] == '/' || !slash)
            snprintf(path, sizeof path, "%s", name);
        else
            snprintf(path, sizeof path, "%.*s/%s", (int)(slash - lesson_file), lesson_file,
                     name);
    } else {
        char rel[512];
        snprintf(rel, sizeof rel, "data/%s", name);
        data_path(rel, path, sizeof path);
    }
    for (int i = 0; !opened && i < c->n_models; i++)
        if (!c->models[i]->opened_slot && !strcmp(c->models[i]->path, path))
            return i;
    CourseModel **nm = realloc(c->models, sizeof *nm * (size_t)(c->n_models + 1));
    if (!nm)
        return -1;
    c->models = nm;
    CourseModel *cm = calloc(1, sizeof *cm);
    if (!cm)
        return -1;
    snprintf(cm->name, sizeof cm->name, "%s", name);
    cm->opened_slot = opened;
    snprintf(cm->path, sizeof cm->path, "%s", path);
    cm->ok = model_path_allowed(c, name, path, cm->error, sizeof cm->error) == 0 &&
             model_load(&cm->model, path, cm->error, sizeof cm->error) == 0;
    c->models[c->n_models] = cm;
    return c->n_models++;
}

void lw_parse_start(LjCtx *x, const cJSON *obj, const char *path, const Model *m,
                    WidgetStart *s, unsigned *keys)
{
    if (keys)
        *keys = 0;
    if (lj_check_keys(x, obj, path, COURSE_START_KEYS, NULL))
        return;
    for (const cJSON *it = obj->child; keys && it; it = it->next) {
        int k = course_start_key_parse(it->string);
        if (k >= 0)
            *keys |= 1u << k;
    }
    char kp[300], buf[64];
    if (lj_get_str(x, obj, path, "mask", buf, sizeof buf) == 1) {
        lj_pjoin(kp, sizeof kp, path, "mask");
        if (!strcmp(buf, "after-softmax")) { /* the worked example's mistake (checked there) */
            s->causal = 2;
            s->padding = 0;
        } else if (names_mask_parse(buf, &s->causal, &s->padding))
            lj_prob(x, kp, "unknown mask \"%s\" (" NAMES_MASK_LIST ")", buf);
    }
    if (lj_get_str(x, obj, path, "pe", buf, sizeof buf) == 1) {
        lj_pjoin(kp, sizeof kp, path, "pe");
        int p = model_pe_parse(buf);
        if (p < 0)
            lj_prob(x, kp, "unknown positional encoding \"%s\" (none, sinusoidal, learned, rope)",
                 buf);
        else
            s->pe = p;
    }
    lj_get_bool(x, obj, path, "scale", &s->scale);
    lj_get_bool(x, obj, path, "cross", &s->cross);
    lj_get_bool(x, obj, path, "scores", &s->scores);
    lj_get_bool(x, obj, path, "all_heads", &s->all_heads);
    int nl = m ? m->cfg.n_layers - 1 : 1000, nh = m ? m->cfg.n_heads - 1 : 1000;
    lj_get_int(x, obj, path, "layer", 0, nl, &s->layer, m ? "the model has layers" : NULL);
    lj_get_int(x, obj, path, "head", 0, nh, &s->head, m ? "the model has heads" : NULL);
    lj_get_int(x, obj, path, "step", 0, 1000, &s->step, NULL);
    lj_get_int(x, obj, path, "d_k", 1, LIVE_DK_MAX, &s->d_k, "d_k");
    lj_get_int(x, obj, path, "n", 1, LIVE_N_MAX, &s->n, "N");
    lj_get_bool(x, obj, path, "tied", &s->tied);
    lj_get_bool(x, obj, path, "gqa", &s->gqa);
    lj_get_str(x, obj, path, "tensor", s->tensor, sizeof s->tensor);
    lj_get_int(x, obj, path, "seed", 0, 2147483647, &s->seed, "seed");
    const cJSON *temp = json_get(obj, "temperature");
    if (temp) {
        lj_pjoin(kp, sizeof kp, path, "temperature");
        double tv = cJSON_IsNumber(temp) ? temp->valuedouble : NAN;
        if (!(tv >= 0.0 && tv <= LIVE_TEMP_MAX)) /* NaN included */
            lj_prob(x, kp, "must be a number from 0 (greedy) to %g", LIVE_TEMP_MAX);
        else
            s->temperature = (float)tv;
    }
    if (s->cross && m && m->cfg.arch != ARCH_ENCDEC) {
        lj_pjoin(kp, sizeof kp, path, "cross");
        lj_prob(x, kp, "cross-attention needs an encoder-decoder model; %s is %s", m->path,
             model_arch_name(m->cfg.arch));
    }
    const cJSON *ord = json_get(obj, "order");
    if (ord) {
        lj_pjoin(kp, sizeof kp, path, "order");
        int k = cJSON_GetArraySize(ord);
        if (!cJSON_IsArray(ord)) {
            lj_prob(x, kp, "must be an array of token positions, not %s", lj_type_name(ord));
        } else if (k > ATTEND_MAX_ORDER) {
            lj_prob(x, kp, "too long (%d entries)", k);
        } else {
            int i = 0, bad = 0;
            for (const cJSON *it = ord->child; it; it = it->next, i++) {
                if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) ||
                    it->valuedouble < 0 || it->valuedouble > 1e6) { /* range before the cast */
                    char ip[320];
                    lj_pindex(ip, sizeof ip, kp, i);
                    lj_prob(x, ip, "must be a token position (0, 1, ...)");
                    bad = 1;
                    continue;
                }
                s->order[i] = (int)it->valuedouble;
            }
            if (!bad)
                s->n_order = k;
        }
    }
}

static int check_sentence(LjCtx *x, const char *path, const char *what, const char *text,
                          const Model *m)
{
    int cap = m->cfg.max_len;
    int *ids = malloc(sizeof(int) * (size_t)cap);
    if (!ids) {
        x->oom = 1;
        return -1;
    }
    TokenizeInfo info;
    int n = vocab_tokenize(&m->vocab, text, ids, cap, &info);
    free(ids);
    int bad = 0;
    char cnt[32];
    if (info.error[0]) {
        lj_prob(x, path, "the %s: %s", what, info.error);
        bad = 1;
    } else if (info.n_tokens == 0) {
        lj_prob(x, path, "the %s has no tokens", what);
        bad = 1;
    } else if (info.truncated) {
        lj_prob(x, path, "the %s has %s tokens; the model %s reads at most %d", what,
                vocab_count_text(&info, cnt, sizeof cnt), m->path, cap);
        bad = 1;
    }
    if (info.n_unknown) {
        char list[300] = "";
        for (int i = 0; i < info.n_unknown && i < VOCAB_MAX_UNKNOWN; i++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s\"%s\"", i ? ", " : "", info.unknown[i]);
        }
        lj_prob(x, path, "%s not in the vocabulary of %s: %s", info.n_unknown == 1 ? "word" : "words",
             m->path, list);
        bad = 1;
    }
    return bad ? -1 : n;
}

/* Runs the engine on the widget's starting state: catches what only a forward pass knows
 * (learned PE longer than the model, a matrix tensor the trace lacks). */
static void check_run(LjCtx *x, const char *path, const Widget *w, const Model *m)
{
    int cap = m->cfg.max_len;
    int *src = malloc(sizeof(int) * (size_t)cap), *tgt = malloc(sizeof(int) * (size_t)cap);
    Trace *t = NULL;
    char err[400];
    Controls ctl;
    int n, mt;
    if (!src || !tgt) {
        x->oom = 1;
        goto out;
    }
    if (widget_state(w, m, &ctl, src, &n, tgt, &mt, cap, err, sizeof err)) {
        lj_prob(x, path, "%s", err);
        goto out;
    }
    t = trace_new(m, n, mt > 0 ? mt : 1);
    if (!t) {
        x->oom = 1;
        goto out;
    }
    if (model_forward(m, src, n, tgt, mt, &ctl, t, err, sizeof err)) {
        lj_prob(x, path, "the engine cannot run this widget: %s", err);
        goto out;
    }
    if (w->kind == W_MATRIX && !trace_find_name(t, w->start.tensor)) {
        char kp[300];
        lj_pjoin(kp, sizeof kp, path, "start.tensor");
        lj_prob(x, kp, "no traced tensor named \"%s\" (see attend dump for the names)",
             w->start.tensor);
    }
out:
    trace_free(t);
    free(src);
    free(tgt);
}

/* A matrix: an array of 1..WORKED_MAX rows, each an array of 1..WORKED_MAX finite numbers,
 * all of the same length. 0, or -1 (reported). */
static int parse_matrix(LjCtx *x, const cJSON *obj, const char *path, const char *key,
                        float *dst, int *rows, int *cols)
{
    char kp[300];
    lj_pjoin(kp, sizeof kp, path, key);
    const cJSON *m = json_get(obj, key);
    *rows = *cols = 0;
    if (!m) {
        lj_prob(x, path, "missing key \"%s\" (a worked widget gives q, k and v)", key);
        return -1;
    }
    int nr = cJSON_GetArraySize(m);
    if (!cJSON_IsArray(m) || nr < 1 || nr > WORKED_MAX) {
        lj_prob(x, kp, "must be an array of 1 to %d rows (arrays of numbers)", WORKED_MAX);
        return -1;
    }
    int i = 0, nc = -1;
    for (const cJSON *row = m->child; row; row = row->next, i++) {
        char rp[320];
        lj_pindex(rp, sizeof rp, kp, i);
        int c = cJSON_GetArraySize(row);
        if (!cJSON_IsArray(row) || c < 1 || c > WORKED_MAX) {
            lj_prob(x, rp, "a row must be an array of 1 to %d numbers", WORKED_MAX);
            return -1;
        }
        if (nc >= 0 && c != nc) {
            lj_prob(x, rp, "row %d has %d numbers, row 0 has %d: rows must have the same length",
                 i, c, nc);
            return -1;
        }
        nc = c;
        int j = 0;
        for (const cJSON *v = row->child; v; v = v->next, j++) {
            double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
            if (!cJSON_IsNumber(v) || !isfinite(d) || fabs(d) > 1e6) {
                char vp[340];
                lj_pindex(vp, sizeof vp, rp, j);
                lj_prob(x, vp, "must be a finite number (|x| <= 1e6)");
                return -1;
            }
            dst[i * nc + j] = (float)d;
        }
    }
    *rows = nr;
    *cols = nc;
    return 0;
}

/* q, k, v (and labels) of a worked widget. 0, or -1 (reported). */
static int parse_worked(LjCtx *x, const cJSON *obj, const char *path, Widget *w)
{
    WorkedSpec *ws = &w->worked;
    int qc, kc, vr, bad = 0;
    bad |= parse_matrix(x, obj, path, "q", ws->q, &ws->nq, &qc);
    bad |= parse_matrix(x, obj, path, "k", ws->k, &ws->nk, &kc);
    bad |= parse_matrix(x, obj, path, "v", ws->v, &vr, &ws->dv);
    if (bad)
        return -1;
    char kp[300];
    if (qc != kc) {
        lj_pjoin(kp, sizeof kp, path, "k");
        lj_prob(x, kp, "k has %d columns but q has %d: queries and keys need the same d_k", kc, qc);
        return -1;
    }
    if (vr != ws->nk) {
        lj_pjoin(kp, sizeof kp, path, "v");
        lj_prob(x, kp, "v has %d rows but k has %d: one value row per key", vr, ws->nk);
        return -1;
    }
    ws->dk = qc;
    int np = ws->nq > ws->nk ? ws->nq : ws->nk;
    for (int i = 0; i < WORKED_MAX; i++)
        snprintf(ws->labels[i], sizeof ws->labels[i], "t%d", i);
    const cJSON *lab = json_get(obj, "labels");
    if (!lab)
        return 0;
    lj_pjoin(kp, sizeof kp, path, "labels");
    if (!cJSON_IsArray(lab) || cJSON_GetArraySize(lab) != np) {
        lj_prob(x, kp, "must be an array of %d strings: one name per position (max of q's and "
                    "k's rows)", np);
        return -1;
    }
    int i = 0;
    for (const cJSON *it = lab->child; it; it = it->next, i++) {
        char ip[320];
        lj_pindex(ip, sizeof ip, kp, i);
        if (!cJSON_IsString(it) || !it->valuestring[0] ||
            strlen(it->valuestring) >= sizeof ws->labels[0]) {
            lj_prob(x, ip, "must be a name of 1 to %zu bytes", sizeof ws->labels[0] - 1);
            return -1;
        }
        snprintf(ws->labels[i], sizeof ws->labels[i], "%s", it->valuestring);
    }
    return 0;
}

static const char *const CONFIG_KEYS[] = {"d_model", "n_heads", "n_kv_heads", "d_head",
                                          "n_layers", "d_ff", "vocab", "ffn", "tied", "norm",
                                          "bias", "name", NULL};
static const char *const CONFIG_REQ[] = {"d_model", "n_heads", "n_layers", "d_ff", "vocab",
                                         NULL};

/* A params widget's {"file": "hf/NAME/config.json"}: a Hugging Face config.json of the data
 * directory, every count computed from it (hf_param_config). 0, or -1 (reported). */
static int parse_config_file(LjCtx *x, const cJSON *obj, const char *path, Widget *w)
{
    static const char *const KEYS[] = {"file", NULL};
    char kp[300], rel[300], full[1024], err[512];
    if (lj_check_keys(x, obj, path, KEYS, KEYS))
        return -1;
    const cJSON *f = json_get(obj, "file");
    lj_pjoin(kp, sizeof kp, path, "file");
    if (!cJSON_IsString(f) || !f->valuestring[0] || f->valuestring[0] == '/' ||
        strstr(f->valuestring, "..") || strlen(f->valuestring) > 200) {
        lj_prob(x, kp, "a config.json of the data directory, such as \"hf/qwen3-4b/config.json\"");
        return -1;
    }
    snprintf(rel, sizeof rel, "data/%s", f->valuestring);
    data_path(rel, full, sizeof full);
    ModelConfig mc;
    HfInfo in;
    if (hf_config_read(full, &mc, &in, err, sizeof err)) {
        lj_prob(x, kp, "%s", err);
        return -1;
    }
    hf_param_config(&mc, &in, &w->params);
    w->has_params = 1;
    const char *end = strrchr(f->valuestring, '/'), *start = end;
    while (start && start > f->valuestring && start[-1] != '/')
        start--;
    if (end && start < end)
        snprintf(w->params_name, sizeof w->params_name, "%.*s", (int)(end - start), start);
    else
        snprintf(w->params_name, sizeof w->params_name, "%s", mc.name);
    return 0;
}

/* A params widget's "config". 0, or -1 (reported). */
static int parse_config(LjCtx *x, const cJSON *obj, const char *path, Widget *w)
{
    if (json_get(obj, "file"))
        return parse_config_file(x, obj, path, w);
    int before = x->n;
    if (lj_check_keys(x, obj, path, CONFIG_KEYS, CONFIG_REQ))
        return -1;
    ParamConfig *p = &w->params;
    memset(p, 0, sizeof *p);
    int d = 0, h = 0, kvh = 0, dh = 0, L = 0, F = 0, V = 0, tied = 0, bias = 0;
    lj_get_int(x, obj, path, "d_model", 1, 1 << 20, &d, NULL);
    lj_get_int(x, obj, path, "n_heads", 1, 4096, &h, NULL);
    lj_get_int(x, obj, path, "n_layers", 1, 4096, &L, NULL);
    lj_get_int(x, obj, path, "d_ff", 1, 1 << 24, &F, NULL);
    lj_get_int(x, obj, path, "vocab", 1, 1 << 24, &V, NULL);
    int has_kv = lj_get_int(x, obj, path, "n_kv_heads", 1, 4096, &kvh, NULL);
    int has_dh = lj_get_int(x, obj, path, "d_head", 1, 1 << 16, &dh, NULL);
    lj_get_bool(x, obj, path, "tied", &tied);
    lj_get_bool(x, obj, path, "bias", &bias);
    char buf[64], kp[300];
    p->swiglu = 0;
    if (lj_get_str(x, obj, path, "ffn", buf, sizeof buf) == 1) {
        int f = model_ffn_parse(buf);
        lj_pjoin(kp, sizeof kp, path, "ffn");
        if (f < 0)
            lj_prob(x, kp, "unknown FFN \"%s\" (relu, gelu, swiglu)", buf);
        p->swiglu = f == FFN_SWIGLU;
    }
    if (lj_get_str(x, obj, path, "norm", buf, sizeof buf) == 1) {
        int nk = model_norm_parse(buf);
        lj_pjoin(kp, sizeof kp, path, "norm");
        if (nk < 0)
            lj_prob(x, kp, "unknown norm \"%s\" (layernorm, rmsnorm)", buf);
        p->rmsnorm = nk == NORM_RMS;
    }
    lj_get_str(x, obj, path, "name", w->params_name, sizeof w->params_name);
    if (x->n != before)
        return -1;
    if (has_kv == 1 && (kvh > h || h % kvh)) {
        lj_pjoin(kp, sizeof kp, path, "n_kv_heads");
        lj_prob(x, kp, "%d must divide n_heads (%d): each KV head serves a group of query heads",
             kvh, h);
        return -1;
    }
    if (has_dh != 1) {
        if (d % h) {
            lj_prob(x, path, "missing key \"d_head\": d_model %d is not a multiple of n_heads %d",
                 d, h);
            return -1;
        }
        dh = d / h;
    }
    p->d_model = d;
    p->n_heads = h;
    p->n_kv_heads = has_kv == 1 ? kvh : h;
    p->d_head = dh;
    p->n_layers = L;
    p->d_ff = F;
    p->vocab = V;
    p->tied = tied;
    p->bias = bias;
    w->has_params = 1;
    return 0;
}

/* NAME of a model written "@opened:NAME" (lesson.h), else NULL. */
static const char *opened_or(const char *name)
{
    size_t k = strlen(LESSON_OPENED);
    return !strncmp(name, LESSON_OPENED, k) && name[k] == ':' && name[k + 1] ? name + k + 1
                                                                             : NULL;
}

/* A pair widget's "model2": the second model (a course model, or "@opened:NAME"), loaded
 * once; a decoder-only or encoder model. */
static void parse_model2(LjCtx *x, const cJSON *obj, const char *path, Widget *w)
{
    char kp[300], err[300];
    lj_pjoin(kp, sizeof kp, path, json_get(obj, "model2") ? "model2" : "kind");
    int got = lj_get_str(x, obj, path, "model2", w->model2_name, sizeof w->model2_name);
    if (got == 0)
        lj_prob(x, kp, "a pair widget names its second model: \"model2\": \"NAME.json\"");
    if (got != 1)
        return;
    if (!strcmp(w->model2_name, LESSON_OPENED)) {
        lj_prob(x, kp, "\"model2\" is a course model, or \"%s:NAME\" (the opened model, "
                "NAME's until one is opened), not \"%s\"", LESSON_OPENED, LESSON_OPENED);
        return;
    }
    const char *name = w->model2_name, *alt = opened_or(name);
    if (alt) {
        int oi = lw_course_model(x->c, LESSON_OPENED, x->file);
        if (oi < 0)
            x->oom = 1;
        else
            w->model2_slot = x->c->models[oi];
        name = alt;
    }
    int mi = lw_course_model(x->c, name, x->file);
    if (mi < 0) {
        x->oom = 1;
    } else if (!x->c->models[mi]->ok) {
        lj_prob(x, kp, "cannot load the model: %s", x->c->models[mi]->error);
    } else if (lens_check_model(&x->c->models[mi]->model, err, sizeof err)) {
        lj_prob(x, kp, "%s", err);
    } else {
        w->model2 = &x->c->models[mi]->model;
    }
}

/* A patching widget's "corrupt": {"position": P, "word": "W"}: the corrupted run is the
 * sentence with position P made W (one token of the model's vocabulary). */
static void parse_corrupt(LjCtx *x, const cJSON *obj, const char *path, Widget *w,
                          const Model *m, int n_tokens)
{
    static const char *const KEYS[] = {"position", "word", NULL};
    char kp[300], err[300];
    const cJSON *c = json_get(obj, "corrupt");
    lj_pjoin(kp, sizeof kp, path, c ? "corrupt" : "kind");
    if (!c) {
        lj_prob(x, kp, "a patching widget names its corrupted run: \"corrupt\": {\"position\": "
                       "P, \"word\": \"WORD\"}");
        return;
    }
    if (!cJSON_IsObject(c)) {
        lj_prob(x, kp, "must be an object {\"position\": P, \"word\": \"WORD\"}, not %s",
                lj_type_name(c));
        return;
    }
    if (lj_check_keys(x, c, kp, KEYS, KEYS))
        return;
    int hi = n_tokens > 0 ? n_tokens - 1 : ATTEND_MAX_ORDER - 1;
    if (lj_get_int(x, c, kp, "position", 0, hi, &w->start.corrupt_pos, "the sentence's "
                   "positions") != 1 ||
        lj_get_str(x, c, kp, "word", w->start.corrupt, sizeof w->start.corrupt) != 1)
        return;
    int tok;
    char wp[320];
    lj_pjoin(wp, sizeof wp, kp, "word");
    if (m && lens_token_parse(m, w->start.corrupt, "word", &tok, err, sizeof err))
        lj_prob(x, wp, "%s", err);
}

/* Start keys each explanation kind reads (the model widgets read the original ones). */
static int check_kind(LjCtx *x, const cJSON *obj, const char *path, Widget *w, const Model *m,
                      int n_tokens)
{
    char kp[300], sp[300];
    int before = x->n;
    const char *kind = course_widget_name(w->kind);
    lj_pjoin(sp, sizeof sp, path, "start");
    static const char *const WORKED_ONLY[] = {"q", "k", "v", "labels", NULL};
    for (int i = 0; WORKED_ONLY[i]; i++)
        if (w->kind != W_WORKED && json_get(obj, WORKED_ONLY[i])) {
            lj_pjoin(kp, sizeof kp, path, WORKED_ONLY[i]);
            lj_prob_key(x, kp, "only worked widgets take \"%s\" (this one is %s)", WORKED_ONLY[i],
                     kind);
        }
    const cJSON *lab = json_get(obj, "lab");
    lj_pjoin(kp, sizeof kp, path, lab || w->kind != W_LAB ? "lab" : "kind");
    if (lab && w->kind != W_LAB)
        lj_prob_key(x, kp, "only lab widgets take \"lab\" (this one is %s)", kind);
    else if (w->kind == W_LAB && !cJSON_IsString(lab))
        lj_prob(x, kp, "a lab widget names its lab: \"lab\": \"NAME\" (attend lab list)");
    else if (lab && !lab_find(lab->valuestring))
        lj_prob(x, kp, "no lab named \"%.40s\" (attend lab list)", lab->valuestring);
    else if (lab)
        snprintf(w->lab, sizeof w->lab, "%s", lab->valuestring);
    const cJSON *steps = json_get(obj, "steps");
    if (steps) {
        lj_pjoin(kp, sizeof kp, path, "steps");
        double sv = cJSON_IsNumber(steps) ? steps->valuedouble : NAN;
        if (w->kind != W_TRAIN)
            lj_prob_key(x, kp, "only train widgets take \"steps\" (this one is %s)", kind);
        else if (!(sv >= 1 && sv <= LIVE_TRAIN_STEPS_MAX) || sv != (int)sv)
            lj_prob(x, kp, "must be a whole number of steps from 1 to %d", LIVE_TRAIN_STEPS_MAX);
        else
            w->train_steps = (int)sv;
    }
    if (json_get(obj, "model2") && w->kind != W_PAIR) {
        lj_pjoin(kp, sizeof kp, path, "model2");
        lj_prob_key(x, kp, "only pair widgets take \"model2\" (this one is %s)", kind);
    } else if (w->kind == W_PAIR) {
        parse_model2(x, obj, path, w);
    }
    if (json_get(obj, "corrupt") && w->kind != W_PATCH) {
        lj_pjoin(kp, sizeof kp, path, "corrupt");
        lj_prob_key(x, kp, "only patching widgets take \"corrupt\" (this one is %s)", kind);
    }
    if (course_kind_is_probe(w->kind) && m && lens_check_model(m, kp, sizeof kp)) {
        char mp[300];
        lj_pjoin(mp, sizeof mp, path, json_get(obj, "model") ? "model" : "kind");
        lj_prob(x, mp, "the %s widget cannot read %s: %s", kind, m->path, kp);
    }
    const cJSON *cfg = json_get(obj, "config");
    if (cfg && w->kind != W_PARAMS) {
        lj_pjoin(kp, sizeof kp, path, "config");
        lj_prob_key(x, kp, "only params widgets take \"config\" (this one is %s)", kind);
    }
    if (course_kind_is_explain(w->kind) && !course_kind_needs_sentence(w->kind)) {
        static const char *const NO[] = {"sentence", "target", NULL};
        for (int i = 0; NO[i]; i++)
            if (json_get(obj, NO[i])) {
                lj_pjoin(kp, sizeof kp, path, NO[i]);
                lj_prob_key(x, kp, "a %s widget runs no sentence", kind);
            }
    }
    const cJSON *st = json_get(obj, "start");
    if (cJSON_IsObject(st))
        for (const cJSON *it = st->child; it; it = it->next)
            if (!start_key_ok(w->kind, it->string)) {
                lj_pjoin(kp, sizeof kp, sp, it->string);
                lj_prob_key(x, kp, "start key \"%s\" does nothing on a %s widget", it->string,
                         kind);
            }
    const cJSON *step = cJSON_IsObject(st) ? json_get(st, "step") : NULL;
    lj_pjoin(kp, sizeof kp, sp, "step");
    if (w->kind != W_WORKED && w->start.causal == 2) {
        lj_pjoin(kp, sizeof kp, sp, "mask");
        lj_prob(x, kp, "mask \"after-softmax\" (the mistake, shown live) is the worked "
                       "example's only");
    }
    if (w->kind == W_WORKED) {
        parse_worked(x, obj, path, w);
        if (w->start.padding > 0) {
            lj_pjoin(kp, sizeof kp, sp, "mask");
            lj_prob(x, kp, "a worked widget's mask is \"none\", \"causal\" or \"after-softmax\"");
        }
        if (w->start.step >= LIVE_WORKED_STEPS)
            lj_prob(x, kp, "%d is out of range: the worked example has steps 0..%d", w->start.step,
                 LIVE_WORKED_STEPS - 1);
    } else if (w->kind == W_KVCACHE) {
        if (m && m->cfg.arch != ARCH_DECODER) {
            lj_pjoin(kp, sizeof kp, path, json_get(obj, "model") ? "model" : "kind");
            lj_prob(x, kp, "the KV cache widget needs a decoder-only model; %s is %s", m->path,
                 model_arch_name(m->cfg.arch));
        } else if (step && n_tokens > 0 && (w->start.step < 1 || w->start.step > n_tokens)) {
            lj_prob(x, kp, "%d is out of range: the sentence has tokens 1..%d", w->start.step,
                 n_tokens);
        }
    } else if (w->kind == W_GENERATE) {
        if (m && m->cfg.arch != ARCH_DECODER) {
            lj_pjoin(kp, sizeof kp, path, json_get(obj, "model") ? "model" : "kind");
            lj_prob(x, kp, "the generate widget needs a decoder-only model; %s is %s", m->path,
                 model_arch_name(m->cfg.arch));
        }
    } else if (w->kind == W_PATCH) {
        parse_corrupt(x, obj, path, w, m, n_tokens);
    } else if (w->kind == W_PARAMS) {
        if (cfg) {
            lj_pjoin(kp, sizeof kp, path, "config");
            parse_config(x, cfg, kp, w);
        } else if (m) {
            explain_param_config(&m->cfg, &w->params);
            snprintf(w->params_name, sizeof w->params_name, "%s", m->cfg.name);
        }
    }
    if (course_kind_is_probe(w->kind) && step && n_tokens > 0 &&
        (w->start.step < 0 || w->start.step >= n_tokens))
        lj_prob(x, kp, "%d is out of range: the sentence has positions 0..%d", w->start.step,
                n_tokens - 1);
    return x->n == before ? 0 : -1;
}

/* The page's "controls": known names, each once, that do something on the kind. */
static void parse_controls(LjCtx *x, const cJSON *obj, const char *path, Widget *w,
                           int have_kind)
{
    char kp[300];
    const cJSON *ctl = json_get(obj, "controls");
    if (!ctl)
        return;
    lj_pjoin(kp, sizeof kp, path, "controls");
    if (!cJSON_IsArray(ctl)) {
        lj_prob(x, kp, "must be an array of control names, not %s", lj_type_name(ctl));
        return;
    }
    int i = 0;
    for (const cJSON *it = ctl->child; it; it = it->next, i++) {
        char ip[320], list[300];
        lj_pindex(ip, sizeof ip, kp, i);
        int bit = cJSON_IsString(it) ? course_control_parse(it->valuestring) : -1;
        if (bit < 0) {
            course_control_list(~0u, ", ", list, sizeof list);
            if (cJSON_IsString(it))
                lj_prob(x, ip, "unknown control \"%s\" (known: %s)", it->valuestring, list);
            else
                lj_prob(x, ip, "must be a control name, not %s", lj_type_name(it));
        } else if (w->controls & (unsigned)bit) {
            lj_prob(x, ip, "control \"%s\" is listed twice", it->valuestring);
        } else if (have_kind && !(course_kind_controls(w->kind) & (unsigned)bit)) {
            course_control_list(course_kind_controls(w->kind), ", ", list, 200);
            lj_prob(x, ip, "control \"%s\" does nothing on a %s widget (it takes: %s)",
                    it->valuestring, course_widget_name(w->kind), list);
        } else {
            w->controls |= (unsigned)bit;
        }
    }
}

void lw_parse_widget(LjCtx *x, const cJSON *obj, const char *path, Widget *w)
{
    memset(w, 0, sizeof *w);
    course_start_defaults(&w->start);
    w->model_index = -1;
    w->opened_index = -1;
    char kp[300];
    if (lj_check_keys(x, obj, path, WIDGET_KEYS, WIDGET_REQ))
        return;
    char kind[32];
    int have_kind = lj_get_str(x, obj, path, "kind", kind, sizeof kind) == 1;
    if (have_kind) {
        int k = course_widget_parse(kind);
        if (k < 0) {
            lj_pjoin(kp, sizeof kp, path, "kind");
            lj_prob(x, kp, "unknown widget kind \"%s\" (%s)", kind, course_widget_list());
            have_kind = 0;
        } else {
            w->kind = (WidgetKind)k;
        }
    }
    int has_model = lj_get_str(x, obj, path, "model", w->start.model, sizeof w->start.model);
    const char *name = has_model == 1 ? w->start.model : "";
    const char *alt = opened_or(name);
    if (alt) { /* "@opened:NAME": checked on NAME, run on the opened model once there is one */
        int oi = lw_course_model(x->c, LESSON_OPENED, x->file);
        if (oi < 0)
            x->oom = 1;
        w->opened_index = oi;
        name = alt;
    }
    int mi = lw_course_model(x->c, name, x->file);
    const Model *m = NULL;
    if (mi < 0) {
        x->oom = 1;
    } else if (!x->c->models[mi]->ok) {
        lj_pjoin(kp, sizeof kp, path, "model");
        lj_prob(x, has_model == 1 ? kp : path, "cannot load the model: %s",
             x->c->models[mi]->error);
    } else {
        w->model_index = mi;
        m = &x->c->models[mi]->model;
    }
    int has_sentence = lj_get_str(x, obj, path, "sentence", w->start.sentence,
                               sizeof w->start.sentence);
    int has_target = lj_get_str(x, obj, path, "target", w->start.target, sizeof w->start.target);
    int ok = 1;
    if (has_sentence == 0 && have_kind && course_kind_needs_sentence(w->kind)) {
        lj_prob(x, path, "missing key \"sentence\" (a %s widget runs a sentence)", kind);
        ok = 0;
    }
    int n = -1;
    if (has_sentence == 1 && m && (!have_kind || course_kind_needs_sentence(w->kind) ||
                                   w->kind == W_NONE)) {
        lj_pjoin(kp, sizeof kp, path, "sentence");
        n = check_sentence(x, kp, "sentence", w->start.sentence, m);
    }
    if (has_sentence < 0 || has_target < 0)
        ok = 0;
    if (m && m->cfg.arch == ARCH_ENCDEC && has_sentence == 1 && has_target == 0) {
        lj_prob(x, path, "missing key \"target\": %s is an encoder-decoder model", m->path);
        ok = 0;
    }
    if (m && m->cfg.arch != ARCH_ENCDEC && has_target == 1) {
        lj_pjoin(kp, sizeof kp, path, "target");
        lj_prob(x, kp, "only encoder-decoder models take a target; %s is %s", m->path,
             model_arch_name(m->cfg.arch));
        ok = 0;
    }
    if (has_target == 1 && m && m->cfg.arch == ARCH_ENCDEC) {
        lj_pjoin(kp, sizeof kp, path, "target");
        if (check_sentence(x, kp, "target", w->start.target, m) < 0)
            ok = 0;
    }
    if (w->kind == W_MATRIX)
        snprintf(w->start.tensor, sizeof w->start.tensor, "L0.h0.weights");
    if (course_kind_is_probe(w->kind))
        w->start.step = -1; /* no "step": the last position (the next token's guess) */
    const cJSON *st = json_get(obj, "start");
    int before = x->n;
    if (st) {
        lj_pjoin(kp, sizeof kp, path, "start");
        lw_parse_start(x, st, kp, m, &w->start, NULL);
    }
    if (x->n != before)
        ok = 0;
    if (w->start.n_order > 0 && n > 0) {
        lj_pjoin(kp, sizeof kp, path, "start.order");
        int seen[ATTEND_MAX_ORDER] = {0}, bad = w->start.n_order != n;
        assert(w->start.n_order <= ATTEND_MAX_ORDER); /* only n == n_order is scanned */
        for (int i = 0; !bad && i < n; i++) {
            if (w->start.order[i] >= n || seen[w->start.order[i]]++)
                bad = 1;
        }
        if (bad) {
            lj_prob(x, kp, "must be a permutation of the %d token positions 0..%d (each once)", n,
                 n - 1);
            ok = 0;
        }
    }
    parse_controls(x, obj, path, w, have_kind);
    if (have_kind && check_kind(x, obj, path, w, m, n))
        ok = 0;
    if (ok && m && n > 0 && have_kind && course_kind_needs_sentence(w->kind))
        check_run(x, path, w, m);
}
