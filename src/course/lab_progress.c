/* lab_progress.c - each lab's record in the progress file's "labs" slot: checks, failures,
 * hints taken, passed, the time of the last check. A record carries "last" and "best", so two
 * windows merge as progress.c merges stamped records (the newer wins, "best" keeps the larger:
 * a lab once passed stays passed); and the "lab_current" slot: the lab the learner works on and
 * its file, which `attend lab` alone continues. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "lab.h"

static int num(const cJSON *o, const char *k)
{
    const cJSON *v = json_get(o, k);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e9 ? (int)v->valuedouble
                                                                            : 0;
}

void lab_progress_get(const char *slot_json, const char *name, LabProgress *p)
{
    memset(p, 0, sizeof *p);
    cJSON *root = slot_json && *slot_json ? cJSON_Parse(slot_json) : NULL;
    const cJSON *r = json_get(root, name);
    if (cJSON_IsObject(r)) {
        p->checks = num(r, "checks");
        p->fails = num(r, "fails");
        p->hints = num(r, "hints");
        p->passed = num(r, "best") >= 1;
        const cJSON *l = json_get(r, "last");
        p->last = cJSON_IsNumber(l) ? l->valuedouble : 0;
    }
    cJSON_Delete(root);
}

char *lab_progress_put(const char *slot_json, const char *name, const LabProgress *p)
{
    cJSON *root = slot_json && *slot_json ? cJSON_Parse(slot_json) : NULL;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        root = cJSON_CreateObject();
    }
    cJSON *r = cJSON_CreateObject();
    int ok = root && r && cJSON_AddNumberToObject(r, "last", p->last) &&
             cJSON_AddNumberToObject(r, "best", p->passed ? 1 : 0) &&
             cJSON_AddNumberToObject(r, "checks", p->checks) &&
             cJSON_AddNumberToObject(r, "fails", p->fails) &&
             cJSON_AddNumberToObject(r, "hints", p->hints);
    if (ok) {
        cJSON_DeleteItemFromObjectCaseSensitive(root, name);
        ok = cJSON_AddItemToObject(root, name, r);
        r = NULL;
    }
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(r);
    cJSON_Delete(root);
    return text;
}

int lab_current_get(const char *slot_json, char *lab, size_t nl, char *file, size_t nf)
{
    lab[0] = file[0] = '\0';
    cJSON *root = slot_json && *slot_json ? cJSON_Parse(slot_json) : NULL;
    const cJSON *l = json_get(root, "lab"), *f = json_get(root, "file");
    int ok = cJSON_IsString(l) && cJSON_IsString(f) && lab_find(l->valuestring) &&
             strlen(l->valuestring) < nl && strlen(f->valuestring) < nf;
    if (ok) {
        memcpy(lab, l->valuestring, strlen(l->valuestring) + 1);
        memcpy(file, f->valuestring, strlen(f->valuestring) + 1);
    }
    cJSON_Delete(root);
    return ok ? 0 : -1;
}

char *lab_current_put(const char *lab, const char *file, double when)
{
    cJSON *root = cJSON_CreateObject();
    char *text = root && cJSON_AddNumberToObject(root, "last", when) &&
                         cJSON_AddStringToObject(root, "lab", lab) &&
                         cJSON_AddStringToObject(root, "file", file)
                     ? cJSON_PrintUnformatted(root)
                     : NULL;
    cJSON_Delete(root);
    return text;
}
