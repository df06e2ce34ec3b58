/* lesson.c - loads and validates a course: lessons/NN-name.json files into Course structs
 * (format in docs/lessons.md). Every problem becomes one "file:line:col: path: message".
 * No curses, no printing, no exit(). */
#include "lesson.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath.h"
#include "json.h"
#include "quiz.h"

/* ---- name tables ---- */

static const char *const WIDGET_NAMES[W__COUNT] = {"none", "heatmap", "chips", "passport",
                                                   "matrix", "worked", "scaling", "kvcache",
                                                   "cost", "params"};
static const char *const CONTROL_NAMES[] = {"mask", "pe", "scale", "head", "layer",
                                            "all_heads", "cursor", "scores", "edit", "swap",
                                            "reset", "step", "padding", "tensor", "dk", "n",
                                            "tie", "gqa"};
#define N_CONTROLS ((int)(sizeof CONTROL_NAMES / sizeof CONTROL_NAMES[0]))
static const char *const QUESTION_KINDS[] = {"choice", "multi", "number", "shape", "cell",
                                             "text", "drill"};

const char *lesson_widget_name(WidgetKind k)
{
    return (int)k >= 0 && k < W__COUNT ? WIDGET_NAMES[k] : "?";
}

int lesson_widget_parse(const char *s)
{
    for (int i = 0; i < W__COUNT; i++)
        if (!strcmp(s, WIDGET_NAMES[i]))
            return i;
    return -1;
}

const char *lesson_control_name(unsigned bit)
{
    for (int i = 0; i < N_CONTROLS; i++)
        if (bit == 1u << i)
            return CONTROL_NAMES[i];
    return NULL;
}

int lesson_control_parse(const char *s)
{
    for (int i = 0; i < N_CONTROLS; i++)
        if (!strcmp(s, CONTROL_NAMES[i]))
            return 1 << i;
    return -1;
}

unsigned lesson_kind_controls(WidgetKind k)
{
    switch (k) {
    case W_WORKED: return C_MASK | C_SCALE | C_STEP | C_CURSOR | C_RESET;
    case W_SCALING: return C_DK | C_SCALE | C_RESET;
    case W_KVCACHE: return C_STEP | C_RESET;
    case W_COST: return C_N | C_RESET;
    case W_PARAMS: return C_TIE | C_GQA | C_RESET;
    default: return (C_TENSOR << 1) - 1; /* the model widgets: every original control */
    }
}

int lesson_kind_needs_sentence(WidgetKind k)
{
    return k == W_HEATMAP || k == W_CHIPS || k == W_PASSPORT || k == W_MATRIX || k == W_KVCACHE;
}

int lesson_kind_is_explain(WidgetKind k)
{
    return k >= W_WORKED && k < W__COUNT;
}

const char *lesson_mask_name(int causal, int padding)
{
    return causal && padding ? "both" : causal ? "causal" : padding ? "padding" : "none";
}

const char *lesson_sublayer_mask_name(const Model *m, Stack st, Sublayer sub, int causal,
                                      int padding)
{
    /* model_forward: an encoder-decoder's encoder and its cross-attention read the whole
     * source, so the causal control applies to the decoder's self-attention only */
    if (m && m->cfg.arch == ARCH_ENCDEC && (st == STACK_ENC || sub == SUB_CROSS))
        causal = 0;
    return lesson_mask_name(causal, padding);
}

/* The quiz engine's hook: the one place where a question's kind-specific keys get checked
 * (quiz.c, docs/lessons.md "Questions"). */
int lesson_check_question(const char *json, char *err, size_t errlen)
{
    return quiz_check_question(json, err, errlen);
}

/* ---- locating a JSON path in the file text (cJSON keeps no positions) ---- */

static const char *sk_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    return p;
}

static const char *sk_str(const char *p)
{
    p++;
    while (*p && *p != '"') {
        if (*p == '\\' && p[1])
            p++;
        p++;
    }
    return *p ? p + 1 : p;
}

static const char *sk_val(const char *p)
{
    p = sk_ws(p);
    if (*p == '"')
        return sk_str(p);
    if (*p == '{' || *p == '[') {
        int d = 0;
        while (*p) {
            if (*p == '"') {
                p = sk_str(p);
                continue;
            }
            if (*p == '{' || *p == '[')
                d++;
            else if ((*p == '}' || *p == ']') && --d == 0)
                return p + 1;
            p++;
        }
        return p;
    }
    while (*p && *p != ',' && *p != '}' && *p != ']' && !isspace((unsigned char)*p))
        p++;
    return p;
}

/* p at an object: the key (its opening quote) of member name, and *val its value. */
static const char *sk_member(const char *p, const char *name, size_t nlen, const char **val)
{
    p = sk_ws(p);
    if (*p != '{')
        return NULL;
    p++;
    for (;;) {
        p = sk_ws(p);
        if (*p != '"')
            return NULL;
        const char *k = p, *e = sk_str(p);
        p = sk_ws(e);
        if (*p != ':')
            return NULL;
        const char *v = sk_ws(p + 1);
        if ((size_t)(e - k) == nlen + 2 && !memcmp(k + 1, name, nlen)) {
            *val = v;
            return k;
        }
        p = sk_ws(sk_val(v));
        if (*p != ',')
            return NULL;
        p++;
    }
}

static const char *sk_index(const char *p, int idx)
{
    p = sk_ws(p);
    if (*p != '[')
        return NULL;
    p++;
    for (int i = 0;; i++) {
        p = sk_ws(p);
        if (!*p || *p == ']')
            return NULL;
        if (i == idx)
            return p;
        p = sk_ws(sk_val(p));
        if (*p != ',')
            return NULL;
        p++;
    }
}

/* Byte offset of path ("pages[2].widget.kind") in text: the key when want_key, else the
 * value; where the path stops existing, the deepest container that does. */
static size_t locate(const char *text, const char *path, int want_key)
{
    const char *cur = sk_ws(text), *key = NULL;
    const char *p = path;
    while (*p) {
        if (*p == '.') {
            p++;
            continue;
        }
        if (*p == '[') {
            int idx = atoi(p + 1);
            const char *e = sk_index(cur, idx);
            if (!e)
                return (size_t)(cur - text);
            cur = e;
            key = NULL;
            p = strchr(p, ']');
            if (!p)
                break;
            p++;
            continue;
        }
        size_t n = strcspn(p, ".[");
        const char *v = NULL, *k = sk_member(cur, p, n, &v);
        if (!k)
            return (size_t)(cur - text);
        cur = v;
        key = k;
        p += n;
    }
    return (size_t)((want_key && key ? key : cur) - text);
}

/* ---- problems ---- */

typedef struct {
    Course *c;
    int li;            /* lesson index, -1 for the course */
    const char *file;
    const char *text;  /* file text or NULL */
    int n;             /* problems added for this lesson */
    int oom;
} Ctx;

/* A new problem of this lesson at the end of the course's list; NULL when out of memory. */
static LessonProblem *problem_slot(Ctx *x)
{
    Course *c = x->c;
    LessonProblem *np = realloc(c->problems, sizeof *np * (size_t)(c->n_problems + 1));
    if (!np) {
        x->oom = 1;
        return NULL;
    }
    c->problems = np;
    LessonProblem *pr = &np[c->n_problems++];
    pr->lesson = x->li;
    x->n++;
    return pr;
}

static void vproblem(Ctx *x, const char *path, int want_key, const char *fmt, va_list ap)
{
    LessonProblem *pr = problem_slot(x);
    if (!pr)
        return;
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (x->text && path) {
        int line, col;
        json_line_col(x->text, locate(x->text, path, want_key), &line, &col);
        if (*path)
            snprintf(pr->msg, sizeof pr->msg, "%s:%d:%d: %s: %s", x->file, line, col, path, msg);
        else
            snprintf(pr->msg, sizeof pr->msg, "%s:%d:%d: %s", x->file, line, col, msg);
    } else if (path && *path) {
        snprintf(pr->msg, sizeof pr->msg, "%s: %s: %s", x->file, path, msg);
    } else {
        snprintf(pr->msg, sizeof pr->msg, "%s: %s", x->file, msg);
    }
}

/* A problem about the value at path. */
static void prob(Ctx *x, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem(x, path, 0, fmt, ap);
    va_end(ap);
}

/* A problem about the key at path (unknown key, duplicate). */
static void prob_key(Ctx *x, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem(x, path, 1, fmt, ap);
    va_end(ap);
}

/* A problem at a byte offset of the text (placeholders inside a string). */
static void prob_at(Ctx *x, size_t off, const char *path, const char *fmt, ...)
{
    LessonProblem *pr = problem_slot(x);
    if (!pr)
        return;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line, col;
    json_line_col(x->text, off, &line, &col);
    snprintf(pr->msg, sizeof pr->msg, "%s:%d:%d: %s: %s", x->file, line, col, path, msg);
}

/* Paths are cut when absurdly deep; the return value is checked only to say so. */
static void pjoin(char *out, size_t n, const char *base, const char *key)
{
    if (snprintf(out, n, "%s%s%s", base, *base ? "." : "", key) >= (int)n)
        out[n - 1] = 0;
}

static void pindex(char *out, size_t n, const char *base, int i)
{
    if (snprintf(out, n, "%s[%d]", base, i) >= (int)n)
        out[n - 1] = 0;
}

static const char *type_name(const cJSON *it)
{
    if (cJSON_IsString(it)) return "a string";
    if (cJSON_IsNumber(it)) return "a number";
    if (cJSON_IsBool(it)) return "true/false";
    if (cJSON_IsNull(it)) return "null";
    if (cJSON_IsArray(it)) return "an array";
    if (cJSON_IsObject(it)) return "an object";
    return "invalid";
}

/* Unknown, duplicate and missing keys of an object. required: NULL-terminated, may be NULL.
 * Returns 0 if obj is an object (even with key problems), -1 if not. */
static int check_keys(Ctx *x, const cJSON *obj, const char *path, const char *const *allowed,
                      const char *const *required)
{
    if (!cJSON_IsObject(obj)) {
        prob(x, path, "must be an object, not %s", type_name(obj));
        return -1;
    }
    for (const cJSON *it = obj->child; it; it = it->next) {
        char kp[300];
        pjoin(kp, sizeof kp, path, it->string);
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            if (!strcmp(allowed[i], it->string))
                ok = 1;
        if (!ok) {
            char list[300] = "";
            for (int i = 0; allowed[i]; i++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", allowed[i]);
            }
            prob_key(x, kp, "unknown key \"%s\" (known keys: %s)", it->string, list);
            continue;
        }
        for (const cJSON *b = obj->child; b != it; b = b->next)
            if (!strcmp(b->string, it->string)) {
                /* locate finds the first one; point at the object instead */
                prob(x, path, "key \"%s\" appears twice", it->string);
                break;
            }
    }
    for (int i = 0; required && required[i]; i++)
        if (!json_get(obj, required[i]))
            prob(x, path, "missing key \"%s\"", required[i]);
    return 0;
}

/* Copies a string member into dst (size cap). Returns 1 if present and valid, 0 if absent,
 * -1 on a problem (reported). */
static int get_str(Ctx *x, const cJSON *obj, const char *path, const char *key, char *dst,
                   size_t cap)
{
    const cJSON *it = json_get(obj, key);
    if (!it)
        return 0;
    char kp[300];
    pjoin(kp, sizeof kp, path, key);
    if (!cJSON_IsString(it)) {
        prob(x, kp, "must be a string, not %s", type_name(it));
        return -1;
    }
    if (strlen(it->valuestring) >= cap) {
        prob(x, kp, "too long (%zu bytes; at most %zu)", strlen(it->valuestring), cap - 1);
        return -1;
    }
    snprintf(dst, cap, "%s", it->valuestring);
    return 1;
}

/* A string member copied with strdup. */
static int get_dup(Ctx *x, const cJSON *obj, const char *path, const char *key, char **dst)
{
    const cJSON *it = json_get(obj, key);
    if (!it)
        return 0;
    char kp[300];
    pjoin(kp, sizeof kp, path, key);
    if (!cJSON_IsString(it)) {
        prob(x, kp, "must be a string, not %s", type_name(it));
        return -1;
    }
    *dst = strdup(it->valuestring);
    if (!*dst) {
        x->oom = 1;
        return -1;
    }
    return 1;
}

static int get_bool(Ctx *x, const cJSON *obj, const char *path, const char *key, int *dst)
{
    const cJSON *it = json_get(obj, key);
    if (!it)
        return 0;
    char kp[300];
    pjoin(kp, sizeof kp, path, key);
    if (!cJSON_IsBool(it)) {
        prob(x, kp, "must be true or false, not %s", type_name(it));
        return -1;
    }
    *dst = cJSON_IsTrue(it) ? 1 : 0;
    return 1;
}

static int get_int(Ctx *x, const cJSON *obj, const char *path, const char *key, int lo, int hi,
                   int *dst, const char *range_what)
{
    const cJSON *it = json_get(obj, key);
    if (!it)
        return 0;
    char kp[300];
    pjoin(kp, sizeof kp, path, key);
    if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble)) { /* no cast: UB out of range */
        prob(x, kp, "must be a whole number, not %s", type_name(it));
        return -1;
    }
    double v = it->valuedouble;
    if (v < lo || v > hi) {
        if (range_what)
            prob(x, kp, "%g is out of range: %s %d..%d", v, range_what, lo, hi);
        else
            prob(x, kp, "%g is out of range %d..%d", v, lo, hi);
        return -1;
    }
    *dst = (int)v;
    return 1;
}

static int valid_id(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
            return 0;
    return 1;
}

/* ---- models ---- */

/* Index into c->models of the model a widget names (loaded on first use), or -1 when out of
 * memory. The entry may have ok == 0 with its error. */
static int course_model(Course *c, const char *name, const char *lesson_file)
{
    char path[1024];
    if (!*name) {
        data_path(DATA_DEFAULT_MODEL, path, sizeof path);
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
    for (int i = 0; i < c->n_models; i++)
        if (!strcmp(c->models[i]->path, path))
            return i;
    CourseModel **nm = realloc(c->models, sizeof *nm * (size_t)(c->n_models + 1));
    if (!nm)
        return -1;
    c->models = nm;
    CourseModel *cm = calloc(1, sizeof *cm);
    if (!cm)
        return -1;
    snprintf(cm->name, sizeof cm->name, "%s", name);
    snprintf(cm->path, sizeof cm->path, "%s", path);
    cm->ok = model_load(&cm->model, path, cm->error, sizeof cm->error) == 0;
    c->models[c->n_models] = cm;
    return c->n_models++;
}

/* ---- widget state ---- */

int lesson_widget_state(const Widget *w, const Model *m, Controls *ctl, int *src, int *n,
                        int *tgt, int *n_tgt, int cap, char *err, size_t errlen)
{
    const WidgetStart *s = &w->start;
    model_default_controls(m, ctl);
    if (s->causal >= 0)
        ctl->causal = s->causal;
    if (s->padding >= 0)
        ctl->padding = s->padding;
    if (s->pe >= 0)
        ctl->pe = (PeKind)s->pe;
    ctl->scale = s->scale;
    ctl->order = s->n_order > 0 ? s->order : NULL;
    *n = 0;
    *n_tgt = 0;
    if (!s->sentence[0]) {
        snprintf(err, errlen, "this page has no sentence");
        return -1;
    }
    TokenizeInfo info;
    *n = vocab_tokenize(&m->vocab, s->sentence, src, cap, &info);
    if (info.truncated || *n == 0) {
        snprintf(err, errlen, "the sentence has %d tokens; it needs 1 to %d", info.n_tokens,
                 cap);
        return -1;
    }
    if (s->n_order > 0 && s->n_order != *n) {
        snprintf(err, errlen, "start.order has %d entries for %d tokens", s->n_order, *n);
        return -1;
    }
    if (m->cfg.arch == ARCH_ENCDEC) {
        *n_tgt = vocab_tokenize(&m->vocab, s->target, tgt, cap, &info);
        if (info.truncated || *n_tgt == 0) {
            snprintf(err, errlen, "the target has %d tokens; it needs 1 to %d", info.n_tokens,
                     cap);
            return -1;
        }
    }
    return 0;
}

/* ---- parsing ---- */

static const char *const LESSON_KEYS[] = {"id", "title", "requires", "pages", NULL};
static const char *const LESSON_REQ[] = {"id", "title", "pages", NULL};
static const char *const PAGE_KEYS[] = {"title", "prose", "widget", "notes", "questions",
                                        "concepts", NULL};
static const char *const PAGE_REQ[] = {"title", "prose", NULL};
static const char *const WIDGET_KEYS[] = {"kind", "sentence", "target", "model", "start",
                                          "controls", "q", "k", "v", "labels", "config", NULL};
static const char *const WIDGET_REQ[] = {"kind", NULL};
static const char *const START_KEYS[] = {"mask", "pe", "scale", "layer", "head", "cross",
                                         "scores", "all_heads", "order", "step", "tensor",
                                         "d_k", "n", "tied", "gqa", NULL};
static const char *const QUESTION_REQ[] = {"id", "kind", "prompt", NULL};

static void start_defaults(WidgetStart *s)
{
    memset(s, 0, sizeof *s);
    s->causal = -1;
    s->padding = -1;
    s->pe = -1;
    s->scale = 1;
    s->tied = -1;
    s->gqa = -1;
}

/* Reads a start object (or a question's "state" overrides) into s. m may be NULL when the
 * model did not load (range checks are skipped). */
static void parse_start(Ctx *x, const cJSON *obj, const char *path, const Model *m,
                        WidgetStart *s)
{
    if (check_keys(x, obj, path, START_KEYS, NULL))
        return;
    char kp[300], buf[64];
    if (get_str(x, obj, path, "mask", buf, sizeof buf) == 1) {
        pjoin(kp, sizeof kp, path, "mask");
        if (!strcmp(buf, "none")) s->causal = 0, s->padding = 0;
        else if (!strcmp(buf, "causal")) s->causal = 1, s->padding = 0;
        else if (!strcmp(buf, "padding")) s->causal = 0, s->padding = 1;
        else if (!strcmp(buf, "both")) s->causal = 1, s->padding = 1;
        else prob(x, kp, "unknown mask \"%s\" (none, causal, padding, both)", buf);
    }
    if (get_str(x, obj, path, "pe", buf, sizeof buf) == 1) {
        pjoin(kp, sizeof kp, path, "pe");
        int p = model_pe_parse(buf);
        if (p < 0)
            prob(x, kp, "unknown positional encoding \"%s\" (none, sinusoidal, learned, rope)",
                 buf);
        else
            s->pe = p;
    }
    get_bool(x, obj, path, "scale", &s->scale);
    get_bool(x, obj, path, "cross", &s->cross);
    get_bool(x, obj, path, "scores", &s->scores);
    get_bool(x, obj, path, "all_heads", &s->all_heads);
    int nl = m ? m->cfg.n_layers - 1 : 1000, nh = m ? m->cfg.n_heads - 1 : 1000;
    get_int(x, obj, path, "layer", 0, nl, &s->layer, m ? "the model has layers" : NULL);
    get_int(x, obj, path, "head", 0, nh, &s->head, m ? "the model has heads" : NULL);
    get_int(x, obj, path, "step", 0, 1000, &s->step, NULL);
    get_int(x, obj, path, "d_k", 1, LIVE_DK_MAX, &s->d_k, "d_k");
    get_int(x, obj, path, "n", 1, LIVE_N_MAX, &s->n, "N");
    get_bool(x, obj, path, "tied", &s->tied);
    get_bool(x, obj, path, "gqa", &s->gqa);
    get_str(x, obj, path, "tensor", s->tensor, sizeof s->tensor);
    if (s->cross && m && m->cfg.arch != ARCH_ENCDEC) {
        pjoin(kp, sizeof kp, path, "cross");
        prob(x, kp, "cross-attention needs an encoder-decoder model; %s is %s", m->path,
             model_arch_name(m->cfg.arch));
    }
    const cJSON *ord = json_get(obj, "order");
    if (ord) {
        pjoin(kp, sizeof kp, path, "order");
        int k = cJSON_GetArraySize(ord);
        if (!cJSON_IsArray(ord)) {
            prob(x, kp, "must be an array of token positions, not %s", type_name(ord));
        } else if (k > (int)(sizeof s->order / sizeof s->order[0])) {
            prob(x, kp, "too long (%d entries)", k);
        } else {
            int i = 0, bad = 0;
            for (const cJSON *it = ord->child; it; it = it->next, i++) {
                if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) ||
                    it->valuedouble < 0 || it->valuedouble > 1e6) { /* range before the cast */
                    char ip[320];
                    pindex(ip, sizeof ip, kp, i);
                    prob(x, ip, "must be a token position (0, 1, ...)");
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

/* A question's "state" overrides applied outside the loader (quiz.c): the same parser as
 * start objects, its first problem returned as the message. */
int lesson_apply_state(const char *json, const Model *m, WidgetStart *s, char *err,
                       size_t errlen)
{
    Course tmp;
    memset(&tmp, 0, sizeof tmp);
    Ctx x = {&tmp, -1, "question", NULL, 0, 0};
    cJSON *o = cJSON_Parse(json);
    if (!o) {
        snprintf(err, errlen, "question: state is not valid JSON");
        return -1;
    }
    parse_start(&x, o, "state", m, s);
    cJSON_Delete(o);
    int rc = 0;
    if (tmp.n_problems) {
        snprintf(err, errlen, "%s", tmp.problems[0].msg);
        rc = -1;
    } else if (x.oom) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    free(tmp.problems);
    return rc;
}

/* Checks the sentence against the model; returns its token count or -1. */
static int check_sentence(Ctx *x, const char *path, const char *what, const char *text,
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
    if (info.n_tokens == 0) {
        prob(x, path, "the %s has no tokens", what);
        bad = 1;
    } else if (info.truncated) {
        prob(x, path, "the %s has %d tokens; the model %s reads at most %d", what, info.n_tokens,
             m->path, cap);
        bad = 1;
    }
    if (info.n_unknown) {
        char list[300] = "";
        for (int i = 0; i < info.n_unknown && i < VOCAB_MAX_UNKNOWN; i++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s\"%s\"", i ? ", " : "", info.unknown[i]);
        }
        prob(x, path, "%s not in the vocabulary of %s: %s", info.n_unknown == 1 ? "word" : "words",
             m->path, list);
        bad = 1;
    }
    return bad ? -1 : n;
}

/* Runs the engine on the widget's starting state: catches what only a forward pass knows
 * (learned PE longer than the model, a matrix tensor the trace lacks). */
static void check_run(Ctx *x, const char *path, const Widget *w, const Model *m)
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
    if (lesson_widget_state(w, m, &ctl, src, &n, tgt, &mt, cap, err, sizeof err)) {
        prob(x, path, "%s", err);
        goto out;
    }
    t = trace_new(m, n, mt > 0 ? mt : 1);
    if (!t) {
        x->oom = 1;
        goto out;
    }
    if (model_forward(m, src, n, tgt, mt, &ctl, t, err, sizeof err)) {
        prob(x, path, "the engine cannot run this widget: %s", err);
        goto out;
    }
    if (w->kind == W_MATRIX && !trace_find_name(t, w->start.tensor)) {
        char kp[300];
        pjoin(kp, sizeof kp, path, "start.tensor");
        prob(x, kp, "no traced tensor named \"%s\" (see attend dump for the names)",
             w->start.tensor);
    }
out:
    trace_free(t);
    free(src);
    free(tgt);
}

/* A matrix: an array of 1..WORKED_MAX rows, each an array of 1..WORKED_MAX finite numbers,
 * all of the same length. 0, or -1 (reported). */
static int parse_matrix(Ctx *x, const cJSON *obj, const char *path, const char *key,
                        float *dst, int *rows, int *cols)
{
    char kp[300];
    pjoin(kp, sizeof kp, path, key);
    const cJSON *m = json_get(obj, key);
    *rows = *cols = 0;
    if (!m) {
        prob(x, path, "missing key \"%s\" (a worked widget gives q, k and v)", key);
        return -1;
    }
    int nr = cJSON_GetArraySize(m);
    if (!cJSON_IsArray(m) || nr < 1 || nr > WORKED_MAX) {
        prob(x, kp, "must be an array of 1 to %d rows (arrays of numbers)", WORKED_MAX);
        return -1;
    }
    int i = 0, nc = -1;
    for (const cJSON *row = m->child; row; row = row->next, i++) {
        char rp[320];
        pindex(rp, sizeof rp, kp, i);
        int c = cJSON_GetArraySize(row);
        if (!cJSON_IsArray(row) || c < 1 || c > WORKED_MAX) {
            prob(x, rp, "a row must be an array of 1 to %d numbers", WORKED_MAX);
            return -1;
        }
        if (nc >= 0 && c != nc) {
            prob(x, rp, "row %d has %d numbers, row 0 has %d: rows must have the same length",
                 i, c, nc);
            return -1;
        }
        nc = c;
        int j = 0;
        for (const cJSON *v = row->child; v; v = v->next, j++) {
            double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
            if (!cJSON_IsNumber(v) || !isfinite(d) || fabs(d) > 1e6) {
                char vp[340];
                pindex(vp, sizeof vp, rp, j);
                prob(x, vp, "must be a finite number (|x| <= 1e6)");
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
static int parse_worked(Ctx *x, const cJSON *obj, const char *path, Widget *w)
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
        pjoin(kp, sizeof kp, path, "k");
        prob(x, kp, "k has %d columns but q has %d: queries and keys need the same d_k", kc, qc);
        return -1;
    }
    if (vr != ws->nk) {
        pjoin(kp, sizeof kp, path, "v");
        prob(x, kp, "v has %d rows but k has %d: one value row per key", vr, ws->nk);
        return -1;
    }
    ws->dk = qc;
    int np = ws->nq > ws->nk ? ws->nq : ws->nk;
    for (int i = 0; i < WORKED_MAX; i++)
        snprintf(ws->labels[i], sizeof ws->labels[i], "t%d", i);
    const cJSON *lab = json_get(obj, "labels");
    if (!lab)
        return 0;
    pjoin(kp, sizeof kp, path, "labels");
    if (!cJSON_IsArray(lab) || cJSON_GetArraySize(lab) != np) {
        prob(x, kp, "must be an array of %d strings: one name per position (max of q's and "
                    "k's rows)", np);
        return -1;
    }
    int i = 0;
    for (const cJSON *it = lab->child; it; it = it->next, i++) {
        char ip[320];
        pindex(ip, sizeof ip, kp, i);
        if (!cJSON_IsString(it) || !it->valuestring[0] ||
            strlen(it->valuestring) >= sizeof ws->labels[0]) {
            prob(x, ip, "must be a name of 1 to %zu bytes", sizeof ws->labels[0] - 1);
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

/* A params widget's "config". 0, or -1 (reported). */
static int parse_config(Ctx *x, const cJSON *obj, const char *path, Widget *w)
{
    int before = x->n;
    if (check_keys(x, obj, path, CONFIG_KEYS, CONFIG_REQ))
        return -1;
    ParamConfig *p = &w->params;
    memset(p, 0, sizeof *p);
    int d = 0, h = 0, kvh = 0, dh = 0, L = 0, F = 0, V = 0, tied = 0, bias = 0;
    get_int(x, obj, path, "d_model", 1, 1 << 20, &d, NULL);
    get_int(x, obj, path, "n_heads", 1, 4096, &h, NULL);
    get_int(x, obj, path, "n_layers", 1, 4096, &L, NULL);
    get_int(x, obj, path, "d_ff", 1, 1 << 24, &F, NULL);
    get_int(x, obj, path, "vocab", 1, 1 << 24, &V, NULL);
    int has_kv = get_int(x, obj, path, "n_kv_heads", 1, 4096, &kvh, NULL);
    int has_dh = get_int(x, obj, path, "d_head", 1, 1 << 16, &dh, NULL);
    get_bool(x, obj, path, "tied", &tied);
    get_bool(x, obj, path, "bias", &bias);
    char buf[64], kp[300];
    p->swiglu = 0;
    if (get_str(x, obj, path, "ffn", buf, sizeof buf) == 1) {
        int f = model_ffn_parse(buf);
        pjoin(kp, sizeof kp, path, "ffn");
        if (f < 0)
            prob(x, kp, "unknown FFN \"%s\" (relu, gelu, swiglu)", buf);
        p->swiglu = f == FFN_SWIGLU;
    }
    if (get_str(x, obj, path, "norm", buf, sizeof buf) == 1) {
        int nk = model_norm_parse(buf);
        pjoin(kp, sizeof kp, path, "norm");
        if (nk < 0)
            prob(x, kp, "unknown norm \"%s\" (layernorm, rmsnorm)", buf);
        p->rmsnorm = nk == NORM_RMS;
    }
    get_str(x, obj, path, "name", w->params_name, sizeof w->params_name);
    if (x->n != before)
        return -1;
    if (has_kv == 1 && (kvh > h || h % kvh)) {
        pjoin(kp, sizeof kp, path, "n_kv_heads");
        prob(x, kp, "%d must divide n_heads (%d): each KV head serves a group of query heads",
             kvh, h);
        return -1;
    }
    if (has_dh != 1) {
        if (d % h) {
            prob(x, path, "missing key \"d_head\": d_model %d is not a multiple of n_heads %d",
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

/* Start keys each explanation kind reads (the model widgets read the original ones). */
static int start_key_ok(WidgetKind k, const char *key)
{
    static const char *const NEW[] = {"d_k", "n", "tied", "gqa", NULL};
    static const char *const PER[][5] = {
        [W_WORKED] = {"mask", "scale", "step", NULL},
        [W_SCALING] = {"d_k", "scale", NULL},
        [W_KVCACHE] = {"step", "layer", "head", NULL},
        [W_COST] = {"n", NULL},
        [W_PARAMS] = {"tied", "gqa", NULL},
    };
    if (!lesson_kind_is_explain(k)) {
        for (int i = 0; NEW[i]; i++)
            if (!strcmp(NEW[i], key))
                return 0;
        return 1;
    }
    for (int i = 0; PER[k][i]; i++)
        if (!strcmp(PER[k][i], key))
            return 1;
    return 0;
}

/* A question's "state" key that does something on a page showing widget kind k: the start
 * keys of the kind (start_key_ok). A page without a widget runs nothing, so no key does
 * anything there. */
static int state_key_ok(WidgetKind k, const char *key)
{
    return k != W_NONE && start_key_ok(k, key);
}

/* Kind-specific keys and start values of a widget (the kind is known). */
static int check_kind(Ctx *x, const cJSON *obj, const char *path, Widget *w, const Model *m,
                      int n_tokens)
{
    char kp[300], sp[300];
    int before = x->n;
    const char *kind = lesson_widget_name(w->kind);
    pjoin(sp, sizeof sp, path, "start");
    static const char *const WORKED_ONLY[] = {"q", "k", "v", "labels", NULL};
    for (int i = 0; WORKED_ONLY[i]; i++)
        if (w->kind != W_WORKED && json_get(obj, WORKED_ONLY[i])) {
            pjoin(kp, sizeof kp, path, WORKED_ONLY[i]);
            prob_key(x, kp, "only worked widgets take \"%s\" (this one is %s)", WORKED_ONLY[i],
                     kind);
        }
    const cJSON *cfg = json_get(obj, "config");
    if (cfg && w->kind != W_PARAMS) {
        pjoin(kp, sizeof kp, path, "config");
        prob_key(x, kp, "only params widgets take \"config\" (this one is %s)", kind);
    }
    if (lesson_kind_is_explain(w->kind) && !lesson_kind_needs_sentence(w->kind)) {
        static const char *const NO[] = {"sentence", "target", NULL};
        for (int i = 0; NO[i]; i++)
            if (json_get(obj, NO[i])) {
                pjoin(kp, sizeof kp, path, NO[i]);
                prob_key(x, kp, "a %s widget runs no sentence", kind);
            }
    }
    const cJSON *st = json_get(obj, "start");
    if (cJSON_IsObject(st))
        for (const cJSON *it = st->child; it; it = it->next)
            if (!start_key_ok(w->kind, it->string)) {
                pjoin(kp, sizeof kp, sp, it->string);
                prob_key(x, kp, "start key \"%s\" does nothing on a %s widget", it->string,
                         kind);
            }
    const cJSON *step = cJSON_IsObject(st) ? json_get(st, "step") : NULL;
    pjoin(kp, sizeof kp, sp, "step");
    if (w->kind == W_WORKED) {
        parse_worked(x, obj, path, w);
        if (w->start.padding > 0) {
            pjoin(kp, sizeof kp, sp, "mask");
            prob(x, kp, "a worked widget's mask is \"none\" or \"causal\"");
        }
        if (w->start.step >= LIVE_WORKED_STEPS)
            prob(x, kp, "%d is out of range: the worked example has steps 0..%d", w->start.step,
                 LIVE_WORKED_STEPS - 1);
    } else if (w->kind == W_KVCACHE) {
        if (m && m->cfg.arch != ARCH_DECODER) {
            pjoin(kp, sizeof kp, path, json_get(obj, "model") ? "model" : "kind");
            prob(x, kp, "the KV cache widget needs a decoder-only model; %s is %s", m->path,
                 model_arch_name(m->cfg.arch));
        } else if (step && n_tokens > 0 && (w->start.step < 1 || w->start.step > n_tokens)) {
            prob(x, kp, "%d is out of range: the sentence has tokens 1..%d", w->start.step,
                 n_tokens);
        }
    } else if (w->kind == W_PARAMS) {
        if (cfg) {
            pjoin(kp, sizeof kp, path, "config");
            parse_config(x, cfg, kp, w);
        } else if (m) {
            explain_param_config(&m->cfg, &w->params);
            snprintf(w->params_name, sizeof w->params_name, "%s", m->cfg.name);
        }
    }
    return x->n == before ? 0 : -1;
}

static void parse_widget(Ctx *x, const cJSON *obj, const char *path, Widget *w)
{
    memset(w, 0, sizeof *w);
    start_defaults(&w->start);
    w->model_index = -1;
    char kp[300];
    if (check_keys(x, obj, path, WIDGET_KEYS, WIDGET_REQ))
        return;
    char kind[32];
    int have_kind = get_str(x, obj, path, "kind", kind, sizeof kind) == 1;
    if (have_kind) {
        int k = lesson_widget_parse(kind);
        if (k < 0) {
            pjoin(kp, sizeof kp, path, "kind");
            char list[200] = "";
            for (int i = 0; i < W__COUNT; i++) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", WIDGET_NAMES[i]);
            }
            prob(x, kp, "unknown widget kind \"%s\" (%s)", kind, list);
            have_kind = 0;
        } else {
            w->kind = (WidgetKind)k;
        }
    }
    int has_model = get_str(x, obj, path, "model", w->start.model, sizeof w->start.model);
    int mi = course_model(x->c, has_model == 1 ? w->start.model : "", x->file);
    const Model *m = NULL;
    if (mi < 0) {
        x->oom = 1;
    } else if (!x->c->models[mi]->ok) {
        pjoin(kp, sizeof kp, path, "model");
        prob(x, has_model == 1 ? kp : path, "cannot load the model: %s",
             x->c->models[mi]->error);
    } else {
        w->model_index = mi;
        m = &x->c->models[mi]->model;
    }
    int has_sentence = get_str(x, obj, path, "sentence", w->start.sentence,
                               sizeof w->start.sentence);
    int has_target = get_str(x, obj, path, "target", w->start.target, sizeof w->start.target);
    int ok = 1;
    if (has_sentence == 0 && have_kind && lesson_kind_needs_sentence(w->kind)) {
        prob(x, path, "missing key \"sentence\" (a %s widget runs a sentence)", kind);
        ok = 0;
    }
    int n = -1;
    if (has_sentence == 1 && m && (!have_kind || lesson_kind_needs_sentence(w->kind) ||
                                   w->kind == W_NONE)) {
        pjoin(kp, sizeof kp, path, "sentence");
        n = check_sentence(x, kp, "sentence", w->start.sentence, m);
    }
    if (has_sentence < 0 || has_target < 0)
        ok = 0;
    if (m && m->cfg.arch == ARCH_ENCDEC && has_sentence == 1 && has_target == 0) {
        prob(x, path, "missing key \"target\": %s is an encoder-decoder model", m->path);
        ok = 0;
    }
    if (m && m->cfg.arch != ARCH_ENCDEC && has_target == 1) {
        pjoin(kp, sizeof kp, path, "target");
        prob(x, kp, "only encoder-decoder models take a target; %s is %s", m->path,
             model_arch_name(m->cfg.arch));
        ok = 0;
    }
    if (has_target == 1 && m && m->cfg.arch == ARCH_ENCDEC) {
        pjoin(kp, sizeof kp, path, "target");
        if (check_sentence(x, kp, "target", w->start.target, m) < 0)
            ok = 0;
    }
    if (w->kind == W_MATRIX)
        snprintf(w->start.tensor, sizeof w->start.tensor, "L0.h0.weights");
    const cJSON *st = json_get(obj, "start");
    int before = x->n;
    if (st) {
        pjoin(kp, sizeof kp, path, "start");
        parse_start(x, st, kp, m, &w->start);
    }
    if (x->n != before)
        ok = 0;
    if (w->start.n_order > 0 && n > 0) {
        pjoin(kp, sizeof kp, path, "start.order");
        int seen[64] = {0}, bad = w->start.n_order != n;
        for (int i = 0; !bad && i < n; i++) {
            if (w->start.order[i] >= n || seen[w->start.order[i]]++)
                bad = 1;
        }
        if (bad) {
            prob(x, kp, "must be a permutation of the %d token positions 0..%d (each once)", n,
                 n - 1);
            ok = 0;
        }
    }
    const cJSON *ctl = json_get(obj, "controls");
    if (ctl) {
        pjoin(kp, sizeof kp, path, "controls");
        if (!cJSON_IsArray(ctl)) {
            prob(x, kp, "must be an array of control names, not %s", type_name(ctl));
        } else {
            int i = 0;
            for (const cJSON *it = ctl->child; it; it = it->next, i++) {
                char ip[320];
                pindex(ip, sizeof ip, kp, i);
                int bit = cJSON_IsString(it) ? lesson_control_parse(it->valuestring) : -1;
                if (bit < 0) {
                    char list[300] = "";
                    for (int k = 0; k < N_CONTROLS; k++) {
                        size_t l = strlen(list);
                        snprintf(list + l, sizeof list - l, "%s%s", k ? ", " : "",
                                 CONTROL_NAMES[k]);
                    }
                    if (cJSON_IsString(it))
                        prob(x, ip, "unknown control \"%s\" (known: %s)", it->valuestring, list);
                    else
                        prob(x, ip, "must be a control name, not %s", type_name(it));
                } else if (w->controls & (unsigned)bit) {
                    prob(x, ip, "control \"%s\" is listed twice", it->valuestring);
                } else if (have_kind && !(lesson_kind_controls(w->kind) & (unsigned)bit)) {
                    char list[200] = "";
                    unsigned kc = lesson_kind_controls(w->kind);
                    for (int b = 0; b < N_CONTROLS; b++)
                        if (kc & (1u << b)) {
                            size_t l = strlen(list);
                            snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "",
                                     CONTROL_NAMES[b]);
                        }
                    prob(x, ip, "control \"%s\" does nothing on a %s widget (it takes: %s)",
                         it->valuestring, lesson_widget_name(w->kind), list);
                } else {
                    w->controls |= (unsigned)bit;
                }
            }
        }
    }
    if (have_kind && check_kind(x, obj, path, w, m, n))
        ok = 0;
    if (ok && m && n > 0 && have_kind && lesson_kind_needs_sentence(w->kind))
        check_run(x, path, w, m);
}

/* Reports the keys of a question's "state" that do nothing on the page's widget kind
 * (kind_known: the page has no widget or a widget of a known kind; otherwise the widget's
 * own problem is reported). Unknown keys are left to parse_start. */
static void check_state_keys(Ctx *x, const cJSON *q, const char *qp, const Page *P,
                             int kind_known)
{
    const cJSON *st = json_get(q, "state");
    if (!kind_known || !cJSON_IsObject(st))
        return;
    const char *kind = lesson_widget_name(P->widget.kind);
    char sp[320], kp[400], takes[200];
    pjoin(sp, sizeof sp, qp, "state");
    takes[0] = 0;
    for (int i = 0; START_KEYS[i]; i++)
        if (state_key_ok(P->widget.kind, START_KEYS[i]))
            snprintf(takes + strlen(takes), sizeof takes - strlen(takes), "%s%s",
                     takes[0] ? " " : "", START_KEYS[i]);
    for (const cJSON *it = st->child; it; it = it->next) {
        int known = 0;
        for (int i = 0; START_KEYS[i]; i++)
            known |= !strcmp(START_KEYS[i], it->string);
        if (!known || state_key_ok(P->widget.kind, it->string))
            continue;
        pjoin(kp, sizeof kp, sp, it->string);
        if (P->widget.kind == W_NONE)
            prob_key(x, kp, "state key \"%s\" does nothing: the page has no widget to run",
                     it->string);
        else
            prob_key(x, kp, "state key \"%s\" does nothing for a question on a %s page "
                            "(it takes: %s)", it->string, kind, takes);
    }
}

static void parse_questions(Ctx *x, const cJSON *arr, const char *path, Page *P,
                            int kind_known)
{
    if (!cJSON_IsArray(arr)) {
        prob(x, path, "must be an array of question objects, not %s", type_name(arr));
        return;
    }
    int k = cJSON_GetArraySize(arr);
    if (k == 0)
        return;
    P->questions = calloc((size_t)k, sizeof *P->questions);
    if (!P->questions) {
        x->oom = 1;
        return;
    }
    int i = 0;
    for (const cJSON *q = arr->child; q; q = q->next, i++) {
        char qp[300], kp[320];
        pindex(qp, sizeof qp, path, i);
        if (!cJSON_IsObject(q)) {
            prob(x, qp, "must be an object, not %s", type_name(q));
            continue;
        }
        for (int r = 0; QUESTION_REQ[r]; r++)
            if (!json_get(q, QUESTION_REQ[r]))
                prob(x, qp, "missing key \"%s\"", QUESTION_REQ[r]);
        Question *Q = &P->questions[P->n_questions++];
        if (get_str(x, q, qp, "id", Q->id, sizeof Q->id) == 1 && !valid_id(Q->id)) {
            pjoin(kp, sizeof kp, qp, "id");
            prob(x, kp, "\"%s\": use letters, digits, - and _ only", Q->id);
        }
        if (get_str(x, q, qp, "kind", Q->kind, sizeof Q->kind) == 1) {
            int known = 0;
            for (size_t j = 0; j < sizeof QUESTION_KINDS / sizeof QUESTION_KINDS[0]; j++)
                if (!strcmp(Q->kind, QUESTION_KINDS[j]))
                    known = 1;
            if (!known) {
                pjoin(kp, sizeof kp, qp, "kind");
                prob(x, kp, "unknown question kind \"%s\" (choice, multi, number, shape, "
                            "cell, text, drill)",
                     Q->kind);
            }
        }
        const cJSON *pr = json_get(q, "prompt");
        if (pr && !cJSON_IsString(pr)) {
            pjoin(kp, sizeof kp, qp, "prompt");
            prob(x, kp, "must be a string, not %s", type_name(pr));
        }
        Q->json = cJSON_PrintUnformatted(q);
        if (!Q->json) {
            x->oom = 1;
            continue;
        }
        char err[300];
        if (lesson_check_question(Q->json, err, sizeof err))
            prob(x, qp, "%s", err);
        else
            check_state_keys(x, q, qp, P, kind_known);
    }
}

static void parse_page(Ctx *x, const cJSON *obj, const char *path, Page *P)
{
    memset(P, 0, sizeof *P);
    P->widget.kind = W_NONE;
    start_defaults(&P->widget.start);
    P->widget.model_index = -1;
    if (check_keys(x, obj, path, PAGE_KEYS, PAGE_REQ))
        return;
    get_str(x, obj, path, "title", P->title, sizeof P->title);
    get_dup(x, obj, path, "prose", &P->prose);
    get_dup(x, obj, path, "notes", &P->notes);
    char kp[300];
    /* "concepts": the course-coverage tags this page teaches (tests/ref/coverage.sh). */
    const cJSON *cs = json_get(obj, "concepts");
    if (cs) {
        pjoin(kp, sizeof kp, path, "concepts");
        if (!cJSON_IsArray(cs)) {
            prob(x, kp, "must be an array of strings");
        } else {
            int i = 0;
            for (const cJSON *c = cs->child; c; c = c->next, i++)
                if (!cJSON_IsString(c) || !c->valuestring[0]) {
                    char ip[320];
                    snprintf(ip, sizeof ip, "%s[%d]", kp, i);
                    prob(x, ip, "must be a non-empty string");
                }
        }
    }
    const cJSON *w = json_get(obj, "widget");
    if (w) {
        pjoin(kp, sizeof kp, path, "widget");
        parse_widget(x, w, kp, &P->widget);
    } else {
        int mi = course_model(x->c, "", x->file);
        if (mi >= 0 && x->c->models[mi]->ok)
            P->widget.model_index = mi;
    }
    const cJSON *qs = json_get(obj, "questions");
    if (qs) {
        pjoin(kp, sizeof kp, path, "questions");
        const cJSON *wk = cJSON_IsObject(w) ? json_get(w, "kind") : NULL;
        int kind_known = !w || (cJSON_IsString(wk) && lesson_widget_parse(wk->valuestring) >= 0);
        parse_questions(x, qs, kp, P, kind_known);
        for (int i = 0; i < P->n_questions; i++)
            for (int j = 0; j < i; j++)
                if (P->questions[i].id[0] && !strcmp(P->questions[i].id, P->questions[j].id)) {
                    char qp[320];
                    snprintf(qp, sizeof qp, "%s[%d].id", kp, i);
                    prob(x, qp, "question id \"%s\" is used twice on this page",
                         P->questions[i].id);
                }
    }
}

static void free_page(Page *P)
{
    free(P->prose);
    free(P->notes);
    for (int i = 0; i < P->n_questions; i++)
        free(P->questions[i].json);
    free(P->questions);
    memset(P, 0, sizeof *P);
}

static void free_lesson_pages(Lesson *L)
{
    for (int i = 0; i < L->n_pages; i++)
        free_page(&L->pages[i]);
    free(L->pages);
    L->pages = NULL;
    L->n_pages = 0;
}

static void parse_lesson(Ctx *x, const cJSON *root, Lesson *L)
{
    if (check_keys(x, root, "", LESSON_KEYS, LESSON_REQ))
        return;
    if (get_str(x, root, "", "id", L->id, sizeof L->id) == 1 && !valid_id(L->id))
        prob(x, "id", "\"%s\": use letters, digits, - and _ only", L->id);
    get_str(x, root, "", "title", L->title, sizeof L->title);
    const cJSON *req = json_get(root, "requires");
    if (req) {
        int k = cJSON_GetArraySize(req);
        if (!cJSON_IsArray(req)) {
            prob(x, "requires", "must be an array of lesson ids, not %s", type_name(req));
        } else if (k > 0) {
            L->requires = calloc((size_t)k, sizeof *L->requires);
            if (!L->requires) {
                x->oom = 1;
                return;
            }
            int i = 0;
            for (const cJSON *it = req->child; it; it = it->next, i++) {
                char ip[64];
                pindex(ip, sizeof ip, "requires", i);
                if (!cJSON_IsString(it) || !valid_id(it->valuestring) ||
                    strlen(it->valuestring) >= sizeof L->requires[0])
                    prob(x, ip, "must be a lesson id");
                else
                    snprintf(L->requires[L->n_requires++], sizeof L->requires[0], "%s",
                             it->valuestring);
            }
        }
    }
    const cJSON *pages = json_get(root, "pages");
    if (pages) {
        int k = cJSON_GetArraySize(pages);
        if (!cJSON_IsArray(pages)) {
            prob(x, "pages", "must be an array of pages, not %s", type_name(pages));
        } else if (k == 0) {
            prob(x, "pages", "a lesson needs at least one page");
        } else {
            L->pages = calloc((size_t)k, sizeof *L->pages);
            if (!L->pages) {
                x->oom = 1;
                return;
            }
            int i = 0;
            for (const cJSON *p = pages->child; p; p = p->next, i++) {
                char pp[64];
                pindex(pp, sizeof pp, "pages", i);
                parse_page(x, p, pp, &L->pages[i]);
                L->n_pages = i + 1;
            }
        }
    }
}

/* Marks a lesson broken with its first problem (index first) and drops its pages. */
static void break_lesson(Course *c, int li, int first)
{
    Lesson *L = &c->lessons[li];
    if (!L->broken && first < c->n_problems)
        snprintf(L->error, sizeof L->error, "%.*s", (int)sizeof L->error - 1,
                 c->problems[first].msg);
    L->broken = 1;
    free_lesson_pages(L);
}

static int is_lesson_file(const char *name)
{
    size_t n = strlen(name);
    return isdigit((unsigned char)name[0]) && n > 5 && !strcmp(name + n - 5, ".json");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int lesson_load_dir(Course *c, const char *dir, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot open the lessons directory", dir);
        return -1;
    }
    char **names = NULL;
    int n = 0, oom = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!is_lesson_file(e->d_name))
            continue;
        char **nn = realloc(names, sizeof *nn * (size_t)(n + 1));
        if (!nn || !(nn[n] = strdup(e->d_name))) {
            names = nn ? nn : names;
            oom = 1;
            break;
        }
        names = nn;
        n++;
    }
    closedir(d);
    if (!oom && n > 0) {
        qsort(names, (size_t)n, sizeof *names, cmp_str);
        c->lessons = calloc((size_t)n, sizeof *c->lessons);
        oom = !c->lessons;
    }
    for (int i = 0; !oom && i < n; i++) {
        Lesson *L = &c->lessons[i];
        c->n_lessons = i + 1;
        size_t dl = strlen(dir);
        snprintf(L->file, sizeof L->file, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/",
                 names[i]);
        Ctx x = {c, i, L->file, NULL, 0, 0};
        int first = c->n_problems;
        char *text = NULL;
        char perr[600];
        cJSON *root = json_parse_file(L->file, &text, perr, sizeof perr);
        if (!root) {
            prob(&x, NULL, "%s", perr);
            /* json_parse_file already names the file: keep its message as is */
            if (c->n_problems > first)
                snprintf(c->problems[c->n_problems - 1].msg, sizeof c->problems[0].msg, "%s",
                         perr);
        } else {
            x.text = text;
            parse_lesson(&x, root, L);
            cJSON_Delete(root);
        }
        free(text);
        if (x.oom)
            oom = 1;
        if (x.n > 0)
            break_lesson(c, i, first);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (oom) {
        lesson_free_course(c);
        snprintf(err, errlen, "%s: out of memory loading the course", dir);
        return -1;
    }
    /* Course-wide: unique ids, requires that exist. */
    for (int i = 0; i < c->n_lessons; i++) {
        Lesson *L = &c->lessons[i];
        int any = 0;
        for (int j = 0; j < i; j++)
            any |= L->id[0] && !strcmp(L->id, c->lessons[j].id);
        for (int r = 0; r < L->n_requires; r++)
            any |= lesson_find(c, L->requires[r]) < 0 || !strcmp(L->requires[r], L->id);
        if (!any)
            continue;
        /* re-read the text only to give positions */
        char *text = NULL, perr[600];
        cJSON_Delete(json_parse_file(L->file, &text, perr, sizeof perr));
        Ctx x = {c, i, L->file, text, 0, 0};
        int first = c->n_problems;
        for (int j = 0; j < i; j++)
            if (L->id[0] && !strcmp(L->id, c->lessons[j].id))
                prob(&x, "id", "lesson id \"%s\" is already used by %s", L->id,
                     c->lessons[j].file);
        for (int r = 0; r < L->n_requires; r++) {
            char rp[64];
            pindex(rp, sizeof rp, "requires", r);
            if (lesson_find(c, L->requires[r]) < 0)
                prob(&x, rp, "no lesson in this course has id \"%s\"", L->requires[r]);
            else if (!strcmp(L->requires[r], L->id))
                prob(&x, rp, "a lesson cannot require itself");
        }
        free(text);
        if (x.n > 0)
            break_lesson(c, i, first);
    }
    for (int i = 0; i < c->n_lessons; i++)
        c->n_pages += c->lessons[i].n_pages;
    return 0;
}

void lesson_free_course(Course *c)
{
    for (int i = 0; i < c->n_lessons; i++) {
        free_lesson_pages(&c->lessons[i]);
        free(c->lessons[i].requires);
    }
    free(c->lessons);
    for (int i = 0; i < c->n_models; i++) {
        if (c->models[i]->ok)
            model_free(&c->models[i]->model);
        free(c->models[i]);
    }
    free(c->models);
    free(c->problems);
    memset(c, 0, sizeof *c);
}

int lesson_find(const Course *c, const char *id)
{
    for (int i = 0; i < c->n_lessons; i++)
        if (!strcmp(c->lessons[i].id, id))
            return i;
    return -1;
}

const Model *lesson_model(const Course *c, const Page *p)
{
    int i = p->widget.model_index;
    if (i < 0 || i >= c->n_models || !c->models[i]->ok)
        return NULL;
    return &c->models[i]->model;
}

/* ---- placeholder check: run every page's starting state ---- */

void lesson_run_free(LessonRun *r)
{
    live_free(&r->live);
    free(r->src);
    free(r->tgt);
    trace_free(r->t);
    trace_free(r->a);
    trace_free(r->b);
    memset(r, 0, sizeof *r);
}

int lesson_run(LessonRun *r, const Widget *w, const Model *m, PlaceholderCtx *ctx, char *err,
               size_t errlen)
{
    memset(ctx, 0, sizeof *ctx);
    memset(r, 0, sizeof *r);
    ctx->model = m;
    ctx->layer = w->start.layer;
    ctx->head = w->start.head;
    ctx->cross = w->start.cross;
    if (lesson_kind_is_explain(w->kind) && !lesson_kind_needs_sentence(w->kind)) {
        live_start(&r->live, w, m);
        if (live_run(&r->live, w, m, NULL, 0, NULL, NULL, err, errlen))
            return -1;
        live_ctx(&r->live, w, m, NULL, ctx);
        return 0;
    }
    if (!w->start.sentence[0])
        return 0; /* sizes only: {{d_model}} and friends */
    int cap = m->cfg.max_len, n, mt;
    r->src = malloc(sizeof(int) * (size_t)cap);
    r->tgt = malloc(sizeof(int) * (size_t)cap);
    if (!r->src || !r->tgt) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    Controls ctl;
    if (lesson_widget_state(w, m, &ctl, r->src, &n, r->tgt, &mt, cap, err, errlen))
        return -1;
    r->t = trace_new(m, n, mt > 0 ? mt : 1);
    r->a = trace_new(m, n, mt > 0 ? mt : 1);
    r->b = trace_new(m, n, mt > 0 ? mt : 1);
    if (!r->t || !r->a || !r->b) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (w->kind == W_KVCACHE) { /* t: the prefix run, a: the full run */
        live_start(&r->live, w, m);
        if (live_run(&r->live, w, m, r->src, n, r->a, r->t, err, errlen))
            return -1;
        live_ctx(&r->live, w, m, r->t, ctx);
        return 0;
    }
    if (model_forward(m, r->src, n, r->tgt, mt, &ctl, r->t, err, errlen))
        return -1;
    ctx->trace = r->t;
    ctx->eq_a = r->a;
    ctx->eq_b = r->b;
    return 0;
}

/* Reports every placeholder of s that does not resolve; path names the string. */
static void check_string(Ctx *x, const char *path, const char *s, const PlaceholderCtx *ctx)
{
    size_t base = x->text ? locate(x->text, path, 0) : 0;
    const char *p = s;
    while ((p = strstr(p, "{{"))) {
        const char *close = strstr(p + 2, "}}"), *nl = strchr(p + 2, '\n');
        char body[256], val[256], err[400];
        size_t blen = close ? (size_t)(close - p - 2) : 0;
        if (blen >= sizeof body)
            blen = sizeof body - 1;
        memcpy(body, p + 2, blen);
        body[blen] = 0;
        int bad = !close || (nl && nl < close);
        if (bad)
            snprintf(err, sizeof err, "{{ without a closing }} on the same line");
        else
            bad = placeholder_value(body, ctx, val, sizeof val, err, sizeof err) != 0;
        if (bad) {
            /* find this placeholder in the file text after the string's start */
            char needle[270];
            snprintf(needle, sizeof needle, "{{%s", body);
            const char *hit = x->text ? strstr(x->text + base, needle) : NULL;
            if (hit)
                prob_at(x, (size_t)(hit - x->text), path, "%s", err);
            else
                prob(x, path, "%s", err);
        }
        p = close && !(nl && nl < close) ? close + 2 : p + 2;
    }
}

static void check_question(Ctx *x, const char *qpath, const Question *Q, const Widget *pw,
                           const Model *m, const PlaceholderCtx *page_ctx)
{
    cJSON *q = cJSON_Parse(Q->json);
    if (!q) {
        x->oom = 1;
        return;
    }
    const cJSON *state = json_get(q, "state");
    const cJSON *compute = json_get(q, "compute");
    const cJSON *prompt = json_get(q, "prompt");
    PlaceholderCtx ctx = *page_ctx;
    LessonRun r = {0};
    int own = 0;
    char kp[320], err[400];
    if (state) {
        Widget w = *pw;
        pjoin(kp, sizeof kp, qpath, "state");
        int before = x->n;
        parse_start(x, state, kp, m, &w.start);
        if (x->n != before)
            goto out;
        if (lesson_run(&r, &w, m, &ctx, err, sizeof err)) {
            lesson_run_free(&r); /* a failed run may hold traces already */
            prob(x, kp, "the engine cannot run this state: %s", err);
            goto out;
        }
        own = 1;
    }
    if (cJSON_IsString(prompt)) {
        pjoin(kp, sizeof kp, qpath, "prompt");
        check_string(x, kp, prompt->valuestring, &ctx);
    }
    if (compute) {
        pjoin(kp, sizeof kp, qpath, "compute");
        char val[256];
        if (!cJSON_IsString(compute))
            prob(x, kp, "must be a placeholder body such as \"weight 2 3\", not %s",
                 type_name(compute));
        else if (placeholder_value(compute->valuestring, &ctx, val, sizeof val, err, sizeof err))
            prob(x, kp, "%s", err);
    }
out:
    if (own)
        lesson_run_free(&r);
    cJSON_Delete(q);
}

int lesson_check_placeholders(Course *c)
{
    int before = c->n_problems;
    for (int li = 0; li < c->n_lessons; li++) {
        Lesson *L = &c->lessons[li];
        if (L->broken)
            continue;
        char *text = NULL, err[600];
        cJSON *root = json_parse_file(L->file, &text, err, sizeof err);
        cJSON_Delete(root); /* only the text is needed, for positions */
        Ctx x = {c, li, L->file, text, 0, 0};
        for (int pi = 0; pi < L->n_pages; pi++) {
            Page *P = &L->pages[pi];
            const Model *m = lesson_model(c, P);
            char path[64], kp[96];
            pindex(path, sizeof path, "pages", pi);
            if (!m)
                continue;
            LessonRun r;
            PlaceholderCtx ctx;
            if (lesson_run(&r, &P->widget, m, &ctx, err, sizeof err)) {
                pjoin(kp, sizeof kp, path, "widget");
                prob(&x, kp, "the engine cannot run this page: %s", err);
                lesson_run_free(&r);
                continue;
            }
            pjoin(kp, sizeof kp, path, "prose");
            if (P->prose)
                check_string(&x, kp, P->prose, &ctx);
            for (int qi = 0; qi < P->n_questions; qi++) {
                char qp[128];
                snprintf(qp, sizeof qp, "%s.questions[%d]", path, qi);
                check_question(&x, qp, &P->questions[qi], &P->widget, m, &ctx);
            }
            lesson_run_free(&r);
        }
        free(text);
        if (x.oom)
            return -1;
    }
    return c->n_problems - before;
}
