/* fuzz_demo.c - libFuzzer harness for demo scripts and lecture plans (`attend demo`, `attend
 * present --plan`, docs/demos.md): the course-level loader (demo_load) and the key names of
 * each step (keys_parse_name), the headless part of --check below the player. A refusal
 * names the file; a loaded script keeps every documented bound. */
#include "fuzz_common.h"
#include "demo.h"
#include "keys.h"

static int terminated(const char *s, size_t n)
{
    return memchr(s, 0, n) != NULL;
}

static void check_step(const DemoStep *s, int first)
{
    if (!terminated(s->lesson, sizeof s->lesson) || !terminated(s->keys, sizeof s->keys) ||
        !terminated(s->type, sizeof s->type) || !terminated(s->caption, sizeof s->caption) ||
        !terminated(s->demo, sizeof s->demo) || !terminated(s->quiz, sizeof s->quiz) ||
        !terminated(s->quiz_bind, sizeof s->quiz_bind))
        abort();
    if (s->page < 1 || s->page > 10000 || !(s->pause >= 0 && s->pause <= 600) ||
        s->line < 1 || s->col < 1 || (first && !s->lesson[0] && !s->demo[0]) || s->bad ||
        s->demo_to < 0 || s->demo_to > DEMO_MAX_STEPS || s->quiz_count < 0 || s->quiz_count > 200)
        abort();
    if (!s->lesson[0] && s->page != 1)
        abort(); /* "page" needs "open" */
    char keys[sizeof s->keys];
    snprintf(keys, sizeof keys, "%s", s->keys);
    for (char *save = NULL, *t = strtok_r(keys, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        int k = keys_parse_name(t);
        char buf[64];
        const char *back = k >= 0 ? keys_demo_name(k, buf, sizeof buf) : NULL;
        /* a key a script names has a name a script can use again (the inverse) */
        if (k >= 0 && (!back || keys_parse_name(back) < 0))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static Demo d; /* about 250 KB */
    char path[300], err[1200] = "";
    snprintf(path, sizeof path, "%s/plan.json", fuzz_dir("demo"));
    if (fuzz_write(path, data, size))
        return 0;
    if (demo_load(&d, path, err, sizeof err)) {
        if (strncmp(err, path, strlen(path)))
            abort(); /* a refusal names the file (FILE:LINE:COL) */
        return 0;
    }
    if (d.n_steps < 1 || d.n_steps > DEMO_MAX_STEPS || !terminated(d.title, sizeof d.title))
        abort();
    for (int i = 0; i < d.n_steps; i++)
        check_step(&d.steps[i], i == 0);
    return 0;
}
