/* lesson.c - loads and validates a course: lessons/NN-name.json files into the typed Course
 * of course.h (format in docs/lessons.md): lessons, pages, questions (read by quiz_question.c)
 * and their "state" (typed deltas). Every problem becomes one "file:line:col: path: message".
 * Widgets are read by lesson_widget.c. No curses, no printing, no exit(). */
#include "lesson.h"

#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson_json.h"
#include "lesson_widget.h"
#include "quiz_question.h"
#include "quiz_question_json.h"

static const char *const LESSON_KEYS[] = {"id", "title", "requires", "pages", NULL};
static const char *const LESSON_REQ[] = {"id", "title", "pages", NULL};
static const char *const PAGE_KEYS[] = {"title", "prose", "widget", "notes", "questions",
                                        "concepts", NULL};
static const char *const PAGE_REQ[] = {"title", "prose", NULL};
static const char *const QUESTION_REQ[] = {"id", "kind", "prompt", NULL};
static const char *const QUESTION_KINDS[] = {"choice", "multi", "number", "shape", "cell",
                                             "text", "drill"};

/* A question's "state" key that does something on a page showing widget kind k: the start
 * keys of the kind. A page without a widget runs nothing, so no key does anything there. */
static int state_key_ok(WidgetKind k, StartKey key)
{
    return k != W_NONE && course_start_key_ok(k, key);
}


/* Reports the keys of a question's "state" that do nothing on the page's widget kind
 * (kind_known: the page has no widget or a widget of a known kind; otherwise the widget's
 * own problem is reported). Unknown keys are left to parse_start. */
static void check_state_keys(LjCtx *x, const cJSON *q, const char *qp, const Page *P,
                             int kind_known)
{
    const cJSON *st = json_get(q, "state");
    if (!kind_known || !cJSON_IsObject(st))
        return;
    const char *kind = course_widget_name(P->widget.kind);
    char sp[320], kp[400], takes[200];
    lj_pjoin(sp, sizeof sp, qp, "state");
    takes[0] = 0;
    for (int i = 0; i < SK__COUNT; i++)
        if (state_key_ok(P->widget.kind, (StartKey)i))
            snprintf(takes + strlen(takes), sizeof takes - strlen(takes), "%s%s",
                     takes[0] ? " " : "", COURSE_START_KEYS[i]);
    for (const cJSON *it = st->child; it; it = it->next) {
        int k = course_start_key_parse(it->string);
        if (k < 0 || state_key_ok(P->widget.kind, (StartKey)k))
            continue;
        lj_pjoin(kp, sizeof kp, sp, it->string);
        if (P->widget.kind == W_NONE)
            lj_prob_key(x, kp, "state key \"%s\" does nothing: the page has no widget to run",
                        it->string);
        else
            lj_prob_key(x, kp, "state key \"%s\" does nothing for a question on a %s page "
                               "(it takes: %s)", it->string, kind, takes);
    }
}

/* A question's "state", read once into its typed delta on the page's model. Its problems
 * (ranges, names, types) are kept with the question: check-lessons reports them when it runs
 * the question (lesson_check.c), and a lesson stays playable with them, as before states were
 * typed. A page whose model did not load keeps no state (its questions cannot run). */
static void read_state(LjCtx *x, const cJSON *q, const char *qp, const Page *P, Question *Q)
{
    const cJSON *st = json_get(q, "state");
    int mi = P->widget.model_index;
    if (!cJSON_IsObject(st) || mi < 0 || !x->c->models[mi]->ok)
        return;
    assert(!Q->has_state && !Q->state_problems);
    Course scratch;
    memset(&scratch, 0, sizeof scratch);
    LjCtx sx = {&scratch, x->li, x->file, x->text, 0, 0};
    char sp[320];
    lj_pjoin(sp, sizeof sp, qp, "state");
    course_start_defaults(&Q->state.v);
    lw_parse_start(&sx, st, sp, &x->c->models[mi]->model, &Q->state.v, &Q->state.keys);
    Q->has_state = 1;
    lj_take_problems(&sx, &Q->state_problems, &Q->n_state_problems);
    if (sx.oom)
        x->oom = 1;
}

static void parse_questions(LjCtx *x, const cJSON *arr, const char *path, Page *P,
                            int kind_known)
{
    if (!cJSON_IsArray(arr)) {
        lj_prob(x, path, "must be an array of question objects, not %s", lj_type_name(arr));
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
        lj_pindex(qp, sizeof qp, path, i);
        if (!cJSON_IsObject(q)) {
            lj_prob(x, qp, "must be an object, not %s", lj_type_name(q));
            continue;
        }
        for (int r = 0; QUESTION_REQ[r]; r++)
            if (!json_get(q, QUESTION_REQ[r]))
                lj_prob(x, qp, "missing key \"%s\"", QUESTION_REQ[r]);
        Question *Q = &P->questions[P->n_questions++];
        if (lj_get_str(x, q, qp, "id", Q->id, sizeof Q->id) == 1 && !lj_valid_id(Q->id)) {
            lj_pjoin(kp, sizeof kp, qp, "id");
            lj_prob(x, kp, "\"%s\": use letters, digits, - and _ only", Q->id);
        }
        if (lj_get_str(x, q, qp, "kind", Q->kind_name, sizeof Q->kind_name) == 1) {
            int known = 0;
            for (size_t j = 0; j < sizeof QUESTION_KINDS / sizeof QUESTION_KINDS[0]; j++)
                if (!strcmp(Q->kind_name, QUESTION_KINDS[j]))
                    known = 1;
            if (!known) {
                lj_pjoin(kp, sizeof kp, qp, "kind");
                lj_prob(x, kp, "unknown question kind \"%s\" (choice, multi, number, shape, "
                               "cell, text, drill)", Q->kind_name);
            }
        }
        const cJSON *pr = json_get(q, "prompt");
        if (pr && !cJSON_IsString(pr)) {
            lj_pjoin(kp, sizeof kp, qp, "prompt");
            lj_prob(x, kp, "must be a string, not %s", lj_type_name(pr));
        }
        char err[300], where[32];
        if (quiz_question_parse(q, Q, where, sizeof where, err, sizeof err)) {
            lj_pjoin(kp, sizeof kp, qp, where);
            lj_prob(x, where[0] ? kp : qp, "%s", err);
            continue;
        }
        check_state_keys(x, q, qp, P, kind_known);
        read_state(x, q, qp, P, Q);
    }
}

static void parse_page(LjCtx *x, const cJSON *obj, const char *path, Page *P)
{
    memset(P, 0, sizeof *P);
    P->widget.kind = W_NONE;
    course_start_defaults(&P->widget.start);
    P->widget.model_index = -1;
    P->widget.opened_index = -1;
    if (lj_check_keys(x, obj, path, PAGE_KEYS, PAGE_REQ))
        return;
    lj_get_str(x, obj, path, "title", P->title, sizeof P->title);
    lj_get_dup(x, obj, path, "prose", &P->prose);
    lj_get_dup(x, obj, path, "notes", &P->notes);
    char kp[300];
    /* "concepts": the course-coverage tags this page teaches (tests/ref/coverage.sh). */
    const cJSON *cs = json_get(obj, "concepts");
    if (cs) {
        lj_pjoin(kp, sizeof kp, path, "concepts");
        if (!cJSON_IsArray(cs)) {
            lj_prob(x, kp, "must be an array of strings");
        } else {
            int i = 0;
            for (const cJSON *c = cs->child; c; c = c->next, i++)
                if (!cJSON_IsString(c) || !c->valuestring[0]) {
                    char ip[320];
                    snprintf(ip, sizeof ip, "%s[%d]", kp, i);
                    lj_prob(x, ip, "must be a non-empty string");
                }
        }
    }
    const cJSON *w = json_get(obj, "widget");
    if (w) {
        lj_pjoin(kp, sizeof kp, path, "widget");
        lw_parse_widget(x, w, kp, &P->widget);
    } else {
        int mi = lw_course_model(x->c, "", x->file);
        if (mi >= 0 && x->c->models[mi]->ok)
            P->widget.model_index = mi;
    }
    const cJSON *qs = json_get(obj, "questions");
    if (qs) {
        lj_pjoin(kp, sizeof kp, path, "questions");
        const cJSON *wk = cJSON_IsObject(w) ? json_get(w, "kind") : NULL;
        int kind_known = !w || (cJSON_IsString(wk) && course_widget_parse(wk->valuestring) >= 0);
        parse_questions(x, qs, kp, P, kind_known);
        for (int i = 0; i < P->n_questions; i++)
            for (int j = 0; j < i; j++)
                if (P->questions[i].id[0] && !strcmp(P->questions[i].id, P->questions[j].id)) {
                    char qp[320];
                    snprintf(qp, sizeof qp, "%s[%d].id", kp, i);
                    lj_prob(x, qp, "question id \"%s\" is used twice on this page",
                         P->questions[i].id);
                }
    }
}

static void free_page(Page *P)
{
    free(P->prose);
    free(P->notes);
    for (int i = 0; i < P->n_questions; i++)
        quiz_question_free(&P->questions[i]);
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

static void parse_lesson(LjCtx *x, const cJSON *root, Lesson *L)
{
    if (lj_check_keys(x, root, "", LESSON_KEYS, LESSON_REQ))
        return;
    if (lj_get_str(x, root, "", "id", L->id, sizeof L->id) == 1 && !lj_valid_id(L->id))
        lj_prob(x, "id", "\"%s\": use letters, digits, - and _ only", L->id);
    lj_get_str(x, root, "", "title", L->title, sizeof L->title);
    const cJSON *req = json_get(root, "requires");
    if (req) {
        int k = cJSON_GetArraySize(req);
        if (!cJSON_IsArray(req)) {
            lj_prob(x, "requires", "must be an array of lesson ids, not %s", lj_type_name(req));
        } else if (k > 0) {
            L->requires = calloc((size_t)k, sizeof *L->requires);
            if (!L->requires) {
                x->oom = 1;
                return;
            }
            int i = 0;
            for (const cJSON *it = req->child; it; it = it->next, i++) {
                char ip[64];
                lj_pindex(ip, sizeof ip, "requires", i);
                if (!cJSON_IsString(it) || !lj_valid_id(it->valuestring) ||
                    strlen(it->valuestring) >= sizeof L->requires[0])
                    lj_prob(x, ip, "must be a lesson id");
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
            lj_prob(x, "pages", "must be an array of pages, not %s", lj_type_name(pages));
        } else if (k == 0) {
            lj_prob(x, "pages", "a lesson needs at least one page");
        } else {
            L->pages = calloc((size_t)k, sizeof *L->pages);
            if (!L->pages) {
                x->oom = 1;
                return;
            }
            int i = 0;
            for (const cJSON *p = pages->child; p; p = p->next, i++) {
                char pp[64];
                lj_pindex(pp, sizeof pp, "pages", i);
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
        LjCtx x = {c, i, L->file, NULL, 0, 0};
        int first = c->n_problems;
        char *text = NULL;
        char perr[600];
        cJSON *root = json_parse_file(L->file, &text, perr, sizeof perr);
        if (!root) {
            lj_prob(&x, NULL, "%s", perr);
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
        LjCtx x = {c, i, L->file, text, 0, 0};
        int first = c->n_problems;
        for (int j = 0; j < i; j++)
            if (L->id[0] && !strcmp(L->id, c->lessons[j].id))
                lj_prob(&x, "id", "lesson id \"%s\" is already used by %s", L->id,
                     c->lessons[j].file);
        for (int r = 0; r < L->n_requires; r++) {
            char rp[64];
            lj_pindex(rp, sizeof rp, "requires", r);
            if (lesson_find(c, L->requires[r]) < 0)
                lj_prob(&x, rp, "no lesson in this course has id \"%s\"", L->requires[r]);
            else if (!strcmp(L->requires[r], L->id))
                lj_prob(&x, rp, "a lesson cannot require itself");
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

int lesson_lookup(const Course *c, const char *name, char *err, size_t errlen)
{
    int i = lesson_find(c, name);
    if (i >= 0)
        return i;
    size_t n = strlen(name);
    if (n > 0 && n <= 4 && strspn(name, "0123456789") == n) {
        int k = atoi(name);
        if (k >= 1 && k <= c->n_lessons)
            return k - 1;
        snprintf(err, errlen, "no lesson %s: the course has lessons 1 to %d", name, c->n_lessons);
        return -1;
    }
    int found = -1, count = 0;
    char many[200] = "";
    for (int j = 0; n > 0 && j < c->n_lessons; j++)
        if (!strncmp(c->lessons[j].id, name, n)) {
            found = j;
            if (count++ < 4) {
                size_t l = strlen(many);
                snprintf(many + l, sizeof many - l, "%s%s", count > 1 ? ", " : "",
                         c->lessons[j].id);
            }
        }
    if (count == 1)
        return found;
    if (count > 1)
        snprintf(err, errlen, "lesson \"%.40s\" could be %s%s: give more of its id", name, many,
                 count > 4 ? ", ..." : "");
    else
        snprintf(err, errlen,
                 "no lesson \"%.40s\": give its number (1 to %d) or its id (the first is \"%s\")",
                 name, c->n_lessons, c->n_lessons ? c->lessons[0].id : "");
    return -1;
}

/* The index of the model page p runs on: the opened slot's for "@opened:NAME" once a model
 * is opened there, else its own. */
static int page_model_index(const Course *c, const Page *p)
{
    int o = p->widget.opened_index;
    if (o >= 0 && o < c->n_models && c->models[o]->opened && c->models[o]->ok)
        return o;
    return p->widget.model_index;
}

const Model *lesson_model(const Course *c, const Page *p)
{
    int i = page_model_index(c, p);
    if (i < 0 || i >= c->n_models || !c->models[i]->ok)
        return NULL;
    return &c->models[i]->model;
}

int lesson_open_model(Course *c, Model *m, char *err, size_t errlen)
{
    for (int i = 0; i < c->n_models; i++) {
        CourseModel *cm = c->models[i];
        if (!cm->opened_slot)
            continue;
        if (cm->ok)
            model_free(&cm->model);
        cm->model = *m;
        memset(m, 0, sizeof *m);
        cm->ok = cm->opened = 1;
        cm->error[0] = 0;
        snprintf(cm->path, sizeof cm->path, "%s", cm->model.path);
        return 0;
    }
    snprintf(err, errlen, "no page of the course in %.400s runs on an opened model (a widget "
             "\"model\": \"%s\", docs/lessons.md)", c->dir, LESSON_OPENED);
    return -1;
}

int lesson_model_opened(const Course *c, const Page *p)
{
    int i = page_model_index(c, p);
    return i >= 0 && i < c->n_models && c->models[i]->opened;
}
