/* quiz_schedule.c - scores and the Leitner schedule in the progress slot "quiz"
 * (quiz_schedule.h, docs/quiz.md): the slot's JSON is read and written here only, through
 * progress_slot_get / progress_slot_set. No curses, no printing, no exit(). */
#include "quiz_schedule.h"
#include "errf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"


const int QUIZ_BOX_DAYS[QUIZ_BOXES + 1] = {0, 0, 1, 3, 7, 21};

/* The slot parsed, or a fresh {"version":1,"scores":{},"schedule":{}}; never NULL unless
 * out of memory. Wrong shapes inside are replaced. */
static cJSON *slot_load(const Progress *p)
{
    const char *txt = p ? progress_slot_get(p, QUIZ_SLOT) : NULL;
    cJSON *o = txt ? cJSON_Parse(txt) : NULL;
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        o = cJSON_CreateObject();
        if (!o)
            return NULL;
    }
    if (!cJSON_IsNumber(json_get(o, "version"))) {
        cJSON_DeleteItemFromObjectCaseSensitive(o, "version");
        cJSON_AddNumberToObject(o, "version", 1);
    }
    const char *subs[] = {"scores", "schedule"};
    for (int i = 0; i < 2; i++)
        if (!cJSON_IsObject(json_get(o, subs[i]))) {
            cJSON_DeleteItemFromObjectCaseSensitive(o, subs[i]);
            cJSON_AddObjectToObject(o, subs[i]);
        }
    return o;
}

static int slot_save(Progress *p, cJSON *o, char *err, size_t errlen)
{
    char *txt = cJSON_PrintUnformatted(o);
    if (!txt)
        return errf(err, errlen, "out of memory");
    int rc = progress_slot_set(p, QUIZ_SLOT, txt, err, errlen);
    cJSON_free(txt);
    return rc;
}

static double num_or(const cJSON *o, const char *k, double dflt)
{
    const cJSON *it = json_get(o, k);
    return cJSON_IsNumber(it) && isfinite(it->valuedouble) ? it->valuedouble : dflt;
}

static void set_num(cJSON *o, const char *k, double v)
{
    cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
    if (cJSON_IsNumber(it))
        cJSON_SetNumberValue(it, v);
    else {
        cJSON_DeleteItemFromObjectCaseSensitive(o, k);
        cJSON_AddNumberToObject(o, k, v);
    }
}

/* The member k of obj as an object, created (or replaced when not an object). */
static cJSON *obj_member(cJSON *obj, const char *k)
{
    cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, k);
    if (cJSON_IsObject(it))
        return it;
    cJSON_DeleteItemFromObjectCaseSensitive(obj, k);
    return cJSON_AddObjectToObject(obj, k);
}

int quiz_record(Progress *p, const char *key, QuizResult res, long now, char *err,
                size_t errlen)
{
    cJSON *o = slot_load(p);
    if (!o)
        return errf(err, errlen, "out of memory");
    cJSON *e = obj_member(cJSON_GetObjectItemCaseSensitive(o, "schedule"), key);
    if (!e) {
        cJSON_Delete(o);
        return errf(err, errlen, "out of memory");
    }
    int box = (int)num_or(e, "box", 0);
    if (box < 1 || box > QUIZ_BOXES)
        box = 0; /* new */
    switch (res) {
    case QR_RIGHT:
        box = box < 1 ? 2 : box < QUIZ_BOXES ? box + 1 : QUIZ_BOXES;
        set_num(e, "right", num_or(e, "right", 0) + 1);
        break;
    case QR_RIGHT_HINTED:
        box = box < 1 ? 1 : box;
        set_num(e, "right", num_or(e, "right", 0) + 1);
        break;
    case QR_WRONG:
    case QR_SKIPPED:
        box = 1;
        set_num(e, res == QR_WRONG ? "wrong" : "skipped",
                num_or(e, res == QR_WRONG ? "wrong" : "skipped", 0) + 1);
        break;
    }
    set_num(e, "box", box);
    set_num(e, "due", (double)now + 86400.0 * QUIZ_BOX_DAYS[box]);
    set_num(e, "last", (double)now);
    int rc = slot_save(p, o, err, errlen);
    cJSON_Delete(o);
    return rc;
}

int quiz_record_score(Progress *p, const char *lesson, int right, int asked, int hints,
                      long now, char *err, size_t errlen)
{
    cJSON *o = slot_load(p);
    if (!o)
        return errf(err, errlen, "out of memory");
    cJSON *e = obj_member(cJSON_GetObjectItemCaseSensitive(o, "scores"), lesson);
    if (!e) {
        cJSON_Delete(o);
        return errf(err, errlen, "out of memory");
    }
    double best = num_or(e, "best", -1);
    double frac = asked > 0 ? (double)right / asked : 0;
    set_num(e, "right", right);
    set_num(e, "asked", asked);
    set_num(e, "hints", hints);
    set_num(e, "when", (double)now);
    set_num(e, "sessions", num_or(e, "sessions", 0) + 1);
    set_num(e, "best", frac > best ? frac : best);
    int rc = slot_save(p, o, err, errlen);
    cJSON_Delete(o);
    return rc;
}

int quiz_score(const Progress *p, const char *lesson, int *right, int *asked)
{
    const char *txt = p ? progress_slot_get(p, QUIZ_SLOT) : NULL;
    cJSON *o = txt ? cJSON_Parse(txt) : NULL;
    const cJSON *e = json_get(json_get(o, "scores"), lesson);
    int rc = -1;
    if (cJSON_IsObject(e) && cJSON_IsNumber(json_get(e, "asked"))) {
        *right = (int)num_or(e, "right", 0);
        *asked = (int)num_or(e, "asked", 0);
        rc = *asked > 0 && *right >= 0 && *right <= *asked ? 0 : -1;
    }
    cJSON_Delete(o);
    return rc;
}

int quiz_schedule(const Progress *p, const char *key, int *box, long *due)
{
    const char *txt = p ? progress_slot_get(p, QUIZ_SLOT) : NULL;
    cJSON *o = txt ? cJSON_Parse(txt) : NULL;
    const cJSON *e = json_get(json_get(o, "schedule"), key);
    int rc = -1;
    if (cJSON_IsObject(e)) {
        int b = (int)num_or(e, "box", 0);
        if (b >= 1 && b <= QUIZ_BOXES) {
            *box = b;
            *due = (long)num_or(e, "due", 0);
            rc = 0;
        }
    }
    cJSON_Delete(o);
    return rc;
}


static int due_cmp(const void *a, const void *b)
{
    const QuizDue *x = a, *y = b;
    if (x->due != y->due)
        return x->due < y->due ? -1 : 1;
    return strcmp(x->key, y->key);
}

QuizDue *quiz_due_list(const Progress *p, long now, int *n)
{
    *n = 0;
    const char *txt = p ? progress_slot_get(p, QUIZ_SLOT) : NULL;
    cJSON *o = txt ? cJSON_Parse(txt) : NULL;
    const cJSON *sch = json_get(o, "schedule");
    int cap = cJSON_IsObject(sch) ? cJSON_GetArraySize(sch) : 0;
    QuizDue *d = calloc((size_t)(cap ? cap : 1), sizeof *d);
    if (!d) {
        cJSON_Delete(o);
        return NULL;
    }
    for (const cJSON *e = cap ? sch->child : NULL; e; e = e->next) {
        int b = (int)num_or(e, "box", 0);
        long due = (long)num_or(e, "due", 0);
        if (!cJSON_IsObject(e) || b < 1 || b > QUIZ_BOXES || due > now ||
            strlen(e->string) >= sizeof d->key)
            continue;
        snprintf(d[*n].key, sizeof d->key, "%s", e->string);
        d[*n].due = due;
        (*n)++;
    }
    cJSON_Delete(o);
    qsort(d, (size_t)*n, sizeof *d, due_cmp);
    return d;
}

int quiz_due_count(const Progress *p, long now)
{
    int n;
    QuizDue *d = quiz_due_list(p, now, &n);
    free(d);
    return d ? n : 0;
}

int quiz_scheduled(const Progress *p, long *next)
{
    const char *txt = p ? progress_slot_get(p, QUIZ_SLOT) : NULL;
    cJSON *o = txt ? cJSON_Parse(txt) : NULL;
    const cJSON *sch = json_get(o, "schedule");
    int scheduled = 0;
    *next = -1;
    for (const cJSON *e = cJSON_IsObject(sch) ? sch->child : NULL; e; e = e->next) {
        int box;
        long due;
        if (quiz_schedule(p, e->string, &box, &due) == 0) {
            scheduled++;
            if (*next < 0 || due < *next)
                *next = due;
        }
    }
    cJSON_Delete(o);
    return scheduled;
}
