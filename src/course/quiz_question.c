/* quiz_question.c - the question schema (docs/lessons.md "Questions"): one question object
 * checked and read into the typed Question the quiz uses later. Called one-way by the lesson
 * loader (quiz_question_json.h). No curses, no printing, no exit(). */
#include "quiz_question.h"
#include "errf.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson_json.h"
#include "quiz_answer.h"
#include "quiz_question_json.h"


/* ---- kinds and drills by name ---- */

static const char *const KIND_NAMES[QK__COUNT] = {"choice", "number", "shape", "cell",
                                                  "multi", "text", "drill"};
static const QuizKind KIND_ORDER[QK__COUNT] = {QK_CHOICE, QK_NUMBER, QK_SHAPE, QK_CELL,
                                               QK_MULTI, QK_TEXT, QK_DRILL};

const char *quiz_kind_name(QuizKind k)
{
    for (int i = 0; i < QK__COUNT; i++)
        if (KIND_ORDER[i] == k)
            return KIND_NAMES[i];
    return "?";
}

/* The kind of a name (quiz_kind_name reversed), -1 if unknown. */
static int quiz_kind_parse(const char *s)
{
    for (int i = 0; i < QK__COUNT; i++)
        if (!strcmp(s, KIND_NAMES[i]))
            return (int)KIND_ORDER[i];
    return -1;
}

const char *const QUIZ_DRILLS[] = {"qk-entries", "d-k", "score-shape", "q-shape", "softmax",
                                   "causal-zero", "row-sum", "equivariance", NULL};
static const char *const DRILL_ABOUT[] = {
    "entries of QKᵀ for N tokens (d_k given as a distractor)",
    "d_k from d_model and the number of heads",
    "shape of one head's score matrix for a sequence length L",
    "shape of one head's Q from N, d_model and h",
    "one entry of a 3×3 softmax of small integer scores, by hand",
    "a weight above the diagonal under the causal mask, on a lesson sentence",
    "what a row of attention weights sums to (mask on or off), on a lesson sentence",
    "is max|Attn(PX) − P·Attn(X)| zero? for a random permutation and PE",
};

const char *quiz_drill_about(const char *name)
{
    for (int i = 0; QUIZ_DRILLS[i]; i++)
        if (!strcmp(QUIZ_DRILLS[i], name))
            return DRILL_ABOUT[i];
    return NULL;
}

/* ---- the schema ---- */

static int is_whole(const cJSON *it, double lo, double hi)
{
    return cJSON_IsNumber(it) && it->valuedouble == floor(it->valuedouble) &&
           it->valuedouble >= lo && it->valuedouble <= hi;
}

static void copy_str(char *dst, size_t cap, const cJSON *it)
{
    snprintf(dst, cap, "%s", cJSON_IsString(it) ? it->valuestring : "");
}

/* Keys every kind allows, then the kind's own. */
static const char *const COMMON_KEYS[] = {"id", "kind", "prompt", "explain", "state", "hints",
                                          NULL};
static const char *kind_keys(QuizKind k)
{
    switch (k) {
    case QK_CHOICE: return "choices answer why";
    case QK_MULTI: return "choices answers";
    case QK_NUMBER: return "compute answer tolerance";
    case QK_SHAPE: return "compute answer";
    case QK_CELL: return "row compute answer";
    case QK_TEXT: return "answers";
    case QK_DRILL: return "drill";
    default: return "";
    }
}

static int key_allowed(QuizKind k, const char *key)
{
    for (int i = 0; COMMON_KEYS[i]; i++)
        if (!strcmp(COMMON_KEYS[i], key))
            return !(k == QK_DRILL && !strcmp(key, "state"));
    const char *list = kind_keys(k);
    size_t n = strlen(key);
    for (const char *p = list; *p;) {
        size_t w = strcspn(p, " ");
        if (w == n && !strncmp(p, key, n))
            return 1;
        p += w;
        while (*p == ' ')
            p++;
    }
    return 0;
}

/* "choices": 2 to QUIZ_MAX_CHOICES non-empty strings, copied into q. */
static int read_choices(const cJSON *obj, Question *q, char *err, size_t errlen)
{
    const cJSON *ch = json_get(obj, "choices");
    if (!ch)
        return errf(err, errlen, "missing key \"choices\" (2 to %d strings)", QUIZ_MAX_CHOICES);
    if (!cJSON_IsArray(ch))
        return errf(err, errlen, "choices: must be an array of strings, not %s",
                    lj_type_name(ch));
    int n = cJSON_GetArraySize(ch);
    if (n < 2 || n > QUIZ_MAX_CHOICES)
        return errf(err, errlen, "choices: %d given; give 2 to %d", n, QUIZ_MAX_CHOICES);
    int i = 0;
    for (const cJSON *it = ch->child; it; it = it->next, i++) {
        if (!cJSON_IsString(it) || !it->valuestring[0])
            return errf(err, errlen, "choices[%d]: must be a non-empty string", i);
        if (strlen(it->valuestring) >= sizeof q->choices[0])
            return errf(err, errlen, "choices[%d]: too long (at most %zu bytes)", i,
                        sizeof q->choices[0] - 1);
        copy_str(q->choices[i], sizeof q->choices[0], it);
    }
    q->n_choices = n;
    return 0;
}

/* "why" of a choice question (optional): one entry per choice, null for the answer, a
 * non-empty string for each wrong choice saying why it is wrong (placeholders allowed). A
 * problem names the offending entry in where ("why" or "why[2]"). */
static int read_why(const cJSON *obj, Question *q, char *where, size_t wlen, char *err,
                    size_t errlen)
{
    const cJSON *w = json_get(obj, "why");
    if (!w)
        return 0;
    snprintf(where, wlen, "why");
    int n = cJSON_GetArraySize(w);
    if (!cJSON_IsArray(w))
        return errf(err, errlen, "must be an array with one entry per choice (null for the "
                                 "answer, a string for each wrong choice), not %s",
                    lj_type_name(w));
    if (n != q->n_choices)
        return errf(err, errlen, "%d entr%s for %d choices: give one per choice (null for the "
                                 "answer)", n, n == 1 ? "y" : "ies", q->n_choices);
    int i = 0;
    for (const cJSON *it = w->child; it; it = it->next, i++) {
        snprintf(where, wlen, "why[%d]", i);
        if (q->correct & (1u << i)) {
            if (!cJSON_IsNull(it))
                return errf(err, errlen, "choice %d is the answer: its entry must be null, "
                                         "not %s", i, lj_type_name(it));
            continue;
        }
        if (!cJSON_IsString(it) || !it->valuestring[0])
            return errf(err, errlen, "must say why choice %d is wrong (a non-empty string), "
                                     "not %s", i, lj_type_name(it));
        if (strlen(it->valuestring) >= sizeof q->why[0])
            return errf(err, errlen, "too long (at most %zu bytes)", sizeof q->why[0] - 1);
        copy_str(q->why[i], sizeof q->why[0], it);
    }
    where[0] = 0;
    return 0;
}

/* "compute" XOR "answer", as the kind wants; the answer read into q. */
static int read_compute_or_answer(const cJSON *obj, Question *q, char *err, size_t errlen)
{
    const cJSON *c = json_get(obj, "compute"), *a = json_get(obj, "answer");
    QuizKind k = q->kind;
    if (c && a)
        return errf(err, errlen, "give either \"compute\" or \"answer\", not both");
    if (!c && !a)
        return errf(err, errlen, "missing key \"compute\" (a placeholder body such as "
                                 "\"weight 2 3\") or \"answer\"");
    if (c && (!cJSON_IsString(c) || !c->valuestring[0]))
        return errf(err, errlen, "compute: must be a placeholder body such as \"weight 2 3\", "
                                 "not %s", lj_type_name(c));
    if (c) {
        copy_str(q->compute, sizeof q->compute, c);
        return 0;
    }
    if (k == QK_NUMBER) {
        if (!(cJSON_IsNumber(a) && isfinite(a->valuedouble)))
            return errf(err, errlen, "answer: must be a number, not %s", lj_type_name(a));
        q->number = a->valuedouble;
    } else if (k == QK_CELL) {
        if (!is_whole(a, 0, 4096))
            return errf(err, errlen, "answer: must be a key column (0, 1, ...)");
        q->col = (int)a->valuedouble;
    } else if (k == QK_SHAPE) {
        int r = cJSON_GetArraySize(a);
        if (!cJSON_IsArray(a) || r < 1 || r > QUIZ_MAX_RANK)
            return errf(err, errlen, "answer: must be an array of 1 to %d sizes, "
                                     "such as [6, 64]", QUIZ_MAX_RANK);
        for (const cJSON *it = a->child; it; it = it->next)
            if (!is_whole(it, 1, 1e9))
                return errf(err, errlen, "answer: sizes are whole numbers >= 1");
        for (const cJSON *it = a->child; it; it = it->next)
            q->dims[q->rank++] = (int)it->valuedouble;
    }
    return 0;
}

/* The keys every kind shares: allowed keys, explain, prompt, state, hints. */
static int read_common(const cJSON *obj, Question *q, const char *kind, char *err,
                       size_t errlen)
{
    QuizKind k = q->kind;
    for (const cJSON *it = obj->child; it; it = it->next)
        if (!key_allowed(k, it->string))
            return errf(err, errlen, "unknown key \"%s\" for a %s question (allowed: id kind "
                                     "prompt explain %shints %s)", it->string, kind,
                        k == QK_DRILL ? "" : "state ", kind_keys(k));
    const cJSON *ex = json_get(obj, "explain");
    if (ex && !cJSON_IsString(ex))
        return errf(err, errlen, "explain: must be a string, not %s", lj_type_name(ex));
    if (ex && strlen(ex->valuestring) >= sizeof q->explain)
        return errf(err, errlen, "explain: too long");
    copy_str(q->explain, sizeof q->explain, ex);
    const cJSON *pr = json_get(obj, "prompt");
    if (pr && cJSON_IsString(pr) && strlen(pr->valuestring) >= sizeof q->prompt)
        return errf(err, errlen, "prompt: too long (at most %zu bytes)", sizeof q->prompt);
    copy_str(q->prompt, sizeof q->prompt, pr);
    const cJSON *st = json_get(obj, "state");
    if (st && !cJSON_IsObject(st))
        return errf(err, errlen, "state: must be an object of start keys, not %s",
                    lj_type_name(st));
    const cJSON *h = json_get(obj, "hints");
    if (!h)
        return 0;
    int n = cJSON_GetArraySize(h);
    if (!cJSON_IsArray(h) || n < 1 || n > QUIZ_MAX_HINTS - 1)
        return errf(err, errlen, "hints: must be an array of 1 to %d strings",
                    QUIZ_MAX_HINTS - 1);
    for (const cJSON *it = h->child; it; it = it->next) {
        if (!cJSON_IsString(it) || !it->valuestring[0] ||
            strlen(it->valuestring) >= sizeof q->hints[0])
            return errf(err, errlen, "hints: each hint is a non-empty string of at most %zu "
                                     "bytes", sizeof q->hints[0] - 1);
        assert(q->n_hints < QUIZ_MAX_HINTS - 1);
        copy_str(q->hints[q->n_hints++], sizeof q->hints[0], it);
    }
    return 0;
}

static int read_multi(const cJSON *obj, Question *q, char *err, size_t errlen)
{
    int n = q->n_choices;
    const cJSON *a = json_get(obj, "answers");
    if (!a)
        return errf(err, errlen, "missing key \"answers\" (0-based indices of the right "
                                 "choices)");
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1)
        return errf(err, errlen, "answers: must be a non-empty array of choice indices");
    for (const cJSON *it = a->child; it; it = it->next) {
        if (!is_whole(it, 0, n - 1))
            return errf(err, errlen, "answers: each must be a choice index 0..%d", n - 1);
        unsigned bit = 1u << (int)it->valuedouble;
        if (q->correct & bit)
            return errf(err, errlen, "answers: index %d is listed twice",
                        (int)it->valuedouble);
        q->correct |= bit;
    }
    return 0;
}

static int read_text(const cJSON *obj, Question *q, char *err, size_t errlen)
{
    const cJSON *a = json_get(obj, "answers");
    int na = cJSON_GetArraySize(a);
    if (!a || !cJSON_IsArray(a) || na < 1 || na > QUIZ_MAX_TEXT)
        return errf(err, errlen, "answers: must be an array of 1 to %d accepted answers",
                    QUIZ_MAX_TEXT);
    for (const cJSON *it = a->child; it; it = it->next) {
        char norm[200];
        if (!cJSON_IsString(it) || strlen(it->valuestring) >= sizeof q->text[0] ||
            !quiz_normalise(it->valuestring, norm, sizeof norm)[0])
            return errf(err, errlen, "answers: each must be a non-empty string under 100 "
                                     "bytes");
        assert(q->n_text < QUIZ_MAX_TEXT);
        copy_str(q->text[q->n_text++], sizeof q->text[0], it);
    }
    return 0;
}

/* The kind's own keys. */
static int read_kind(const cJSON *obj, Question *q, char *where, size_t wlen, char *err,
                     size_t errlen)
{
    switch (q->kind) {
    case QK_CHOICE: {
        if (read_choices(obj, q, err, errlen))
            return -1;
        const cJSON *a = json_get(obj, "answer");
        if (!a)
            return errf(err, errlen, "missing key \"answer\" (the 0-based index of the right "
                                     "choice)");
        if (!is_whole(a, 0, q->n_choices - 1))
            return errf(err, errlen, "answer: must be a choice index 0..%d", q->n_choices - 1);
        q->correct = 1u << (int)a->valuedouble;
        return read_why(obj, q, where, wlen, err, errlen);
    }
    case QK_MULTI:
        return read_choices(obj, q, err, errlen) || read_multi(obj, q, err, errlen) ? -1 : 0;
    case QK_NUMBER: {
        if (read_compute_or_answer(obj, q, err, errlen))
            return -1;
        const cJSON *t = json_get(obj, "tolerance");
        if (t && !(cJSON_IsNumber(t) && t->valuedouble >= 0 && t->valuedouble <= 1e6))
            return errf(err, errlen, "tolerance: must be a number >= 0 (absolute)");
        q->has_tolerance = t != NULL;
        q->tolerance = t ? t->valuedouble : 0;
        return 0;
    }
    case QK_SHAPE:
        return read_compute_or_answer(obj, q, err, errlen);
    case QK_CELL: {
        const cJSON *r = json_get(obj, "row");
        if (!r || !is_whole(r, 0, QUIZ_GRID_MAX - 1))
            return errf(err, errlen, "%s \"row\": the query row (0..%d) whose key column is "
                                     "asked", r ? "bad" : "missing key", QUIZ_GRID_MAX - 1);
        q->row = (int)r->valuedouble;
        return read_compute_or_answer(obj, q, err, errlen);
    }
    case QK_TEXT:
        return read_text(obj, q, err, errlen);
    case QK_DRILL: {
        const cJSON *d = json_get(obj, "drill");
        if (!cJSON_IsString(d))
            return errf(err, errlen, "missing key \"drill\": one of qk-entries, d-k, "
                                     "score-shape, q-shape, softmax, causal-zero, row-sum, "
                                     "equivariance");
        if (!quiz_drill_about(d->valuestring))
            return errf(err, errlen, "unknown drill \"%s\" (qk-entries, d-k, score-shape, "
                                     "q-shape, softmax, causal-zero, row-sum, equivariance)",
                        d->valuestring);
        copy_str(q->drill, sizeof q->drill, d);
        return 0;
    }
    default:
        return 0;
    }
}

int quiz_question_parse(const cJSON *obj, Question *q, char *where, size_t wlen, char *err,
                        size_t errlen)
{
    q->ok = 0;
    where[0] = 0;
    if (!cJSON_IsObject(obj))
        return errf(err, errlen, "a question must be a JSON object");
    const cJSON *kind = json_get(obj, "kind");
    if (!cJSON_IsString(kind))
        return errf(err, errlen, "missing or bad key \"kind\" (choice, multi, number, shape, "
                                 "cell, text, drill)");
    int k = quiz_kind_parse(kind->valuestring);
    if (k < 0)
        return errf(err, errlen, "unknown question kind \"%s\" (choice, multi, number, shape, "
                                 "cell, text, drill)", kind->valuestring);
    q->kind = (QuizKind)k;
    if (read_common(obj, q, kind->valuestring, err, errlen) || read_kind(obj, q, where, wlen, err, errlen))
        return -1;
    q->ok = 1;
    return 0;
}

int quiz_question_from_text(Question *q, const char *json, char *err, size_t errlen)
{
    memset(q, 0, sizeof *q);
    cJSON *obj = cJSON_Parse(json);
    char where[32], e[300];
    int rc = quiz_question_parse(obj, q, where, sizeof where, e, sizeof e);
    if (rc)
        snprintf(err, errlen, "%s%s%s", where, where[0] ? ": " : "", e);
    if (rc == 0) {
        copy_str(q->id, sizeof q->id, json_get(obj, "id"));
        copy_str(q->kind_name, sizeof q->kind_name, json_get(obj, "kind"));
    }
    cJSON_Delete(obj);
    return rc;
}

void quiz_question_free(Question *q)
{
    free(q->state_problems);
    q->state_problems = NULL;
    q->n_state_problems = 0;
}
