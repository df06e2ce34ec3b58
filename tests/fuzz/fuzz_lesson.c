/* fuzz_lesson.c - libFuzzer harness for the lesson loader: any bytes as a lesson file load
 * (kept broken with problems named) or not, and a loaded course's placeholders are checked by
 * running the engine. Models are loaded once for the whole run, not on every input: the
 * harness is linked with -Wl,--wrap=model_load,--wrap=model_free so the loader gets a shared
 * read-only copy from a cache (the loader only reads its models). */
#include "fuzz_common.h"
#include "lesson.h"
#include "lesson_check.h"

int __real_model_load(Model *m, const char *path, char *err, size_t errlen);
void __real_model_free(Model *m);

typedef struct {
    char path[1024];
    int rc;
    char err[600];
    Model m;
} Cached;
static Cached cache[16];
static int n_cache;

int __wrap_model_load(Model *m, const char *path, char *err, size_t errlen)
{
    for (int i = 0; i < n_cache; i++)
        if (!strcmp(cache[i].path, path)) {
            if (cache[i].rc) {
                memset(m, 0, sizeof *m);
                snprintf(err, errlen, "%s", cache[i].err);
                return cache[i].rc;
            }
            *m = cache[i].m; /* shares the cached arrays; __wrap_model_free leaves them */
            return 0;
        }
    if (n_cache == 16)
        return __real_model_load(m, path, err, errlen);
    Cached *c = &cache[n_cache++];
    snprintf(c->path, sizeof c->path, "%s", path);
    c->rc = __real_model_load(&c->m, path, c->err, sizeof c->err);
    return __wrap_model_load(m, path, err, errlen);
}

void __wrap_model_free(Model *m)
{
    for (int i = 0; i < n_cache; i++)
        if (!cache[i].rc && m->data && m->data == cache[i].m.data) {
            memset(m, 0, sizeof *m);
            return;
        }
    __real_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fuzz_dir("lesson");
    char path[300], err[1024];
    fuzz_clean(dir, NULL);
    snprintf(path, sizeof path, "%s/01-fuzz.json", dir);
    if (fuzz_write(path, data, size))
        return 0;
    Course c;
    if (lesson_load_dir(&c, dir, err, sizeof err) == 0) {
        for (int i = 0; i < c.n_problems; i++)
            if (!c.problems[i].msg[0])
                abort(); /* every problem is named */
        if (c.n_problems == 0)
            lesson_check_placeholders(&c);
    }
    lesson_free_course(&c);
    return 0;
}
