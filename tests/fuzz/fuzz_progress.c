/* fuzz_progress.c - libFuzzer harness for the progress file: any bytes load (or are moved
 * aside as corrupt) and the result saves and reloads to the same records. */
#include "fuzz_common.h"
#include "progress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fuzz_dir("progress");
    char path[300], err[2048];
    fuzz_clean(dir, NULL);
    snprintf(path, sizeof path, "%s/progress.json", dir);
    if (fuzz_write(path, data, size))
        return 0;
    Progress p;
    int rc = progress_load(&p, path, err, sizeof err);
    if (rc == 0) {
        progress_mark_seen(&p, "fuzz", 3);
        if (progress_save(&p, err, sizeof err) != 0)
            abort(); /* a loaded progress always saves */
        Progress q;
        if (progress_load(&q, path, err, sizeof err) != 0 || !progress_seen(&q, "fuzz", 3))
            abort(); /* and reloads */
        for (int i = 0; i < p.n_lessons; i++)
            if (progress_count_seen(&q, p.lessons[i].id) !=
                progress_count_seen(&p, p.lessons[i].id))
                abort();
        progress_free(&q);
    } else if (!err[0]) {
        abort();
    }
    progress_free(&p);
    return 0;
}
