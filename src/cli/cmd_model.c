/* cmd_model.c - `attend init-model`: a seeded random model from a config and a vocabulary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "cmd.h"
#include "fileio.h"
#include "json.h"
#include "model.h"
#include "model_json.h"
#include "opts.h"

static const char INIT_USAGE[] =
    "usage: attend init-model --config FILE --vocab FILE --out FILE [--seed S] [--arrays]";

int cmd_check_out(const char *out, char *err, size_t errlen)
{
    struct stat st;
    if (!*out) {
        snprintf(err, errlen, "--out: the file name is empty");
        return -1;
    }
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "--out %s: is a directory; give a file name such as %s/model.json",
                 out, out);
        return -1;
    }
    FileioTmp t; /* the target may be replaced, and a file can be created beside it */
    char e2[1200];
    if (fileio_tmp_open(&t, out, 0600, e2, sizeof e2)) {
        snprintf(err, errlen, "--out %s", e2);
        return -1;
    }
    fileio_tmp_abort(&t);
    return 0;
}

int cmd_init_model(int argc, char **argv)
{
    const char *cfg_path = NULL, *vocab_path = NULL, *out = NULL;
    unsigned long long seed = 1;
    int arrays = 0;
    const Opt opts[] = {
        OPT_S("--config", &cfg_path), OPT_S("--vocab", &vocab_path), OPT_S("--out", &out),
        OPT_U("--seed", &seed), OPT_F("--arrays", &arrays),
    };
    int prc = opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc, argv,
                         "attend init-model", INIT_USAGE);
    if (prc >= 0)
        return prc;
    if (!cfg_path || !vocab_path || !out) {
        fprintf(stderr, "attend init-model: missing %s%s%s%s%s\n%s\n", !cfg_path ? "--config FILE" : "",
                !cfg_path && (!vocab_path || !out) ? ", " : "", !vocab_path ? "--vocab FILE" : "",
                !vocab_path && !out ? ", " : "", !out ? "--out FILE" : "", INIT_USAGE);
        return 2;
    }
    char err[1024];
    if (cmd_check_out(out, err, sizeof err)) {
        fprintf(stderr, "attend init-model: %s\n", err);
        return 1;
    }
    cJSON *root = json_parse_file(cfg_path, NULL, err, sizeof err);
    if (!root) {
        fprintf(stderr, "attend init-model: %s\n", err);
        return 1;
    }
    char dup[200];
    if (json_find_duplicate(root, dup, sizeof dup)) {
        fprintf(stderr, "attend init-model: %s: key \"%s\" appears twice\n", cfg_path, dup);
        cJSON_Delete(root);
        return 1;
    }
    const cJSON *cj = json_get(root, "config");
    ModelConfig cfg;
    char e2[512];
    int rc = model_config_read(cj ? cj : root, &cfg, e2, sizeof e2);
    cJSON_Delete(root);
    if (rc) {
        fprintf(stderr, "attend init-model: %s: %s\n", cfg_path, e2);
        return 1;
    }
    Vocab v;
    if (vocab_load_file(&v, vocab_path, err, sizeof err)) {
        fprintf(stderr, "attend init-model: %s\n", err);
        return 1;
    }
    if (cfg.vocab_size == 0)
        cfg.vocab_size = v.n;
    if (model_config_check_size(&cfg, err, sizeof err)) {
        vocab_free(&v);
        fprintf(stderr, "attend init-model: %s: %s\n", cfg_path, err);
        return 1;
    }
    Model m;
    if (model_new(&m, &cfg, &v, err, sizeof err)) {
        vocab_free(&v);
        fprintf(stderr, "attend init-model: %s: %s\n", cfg_path, err);
        return 1;
    }
    model_init_random(&m, seed);
    char note[128];
    snprintf(note, sizeof note, "{\"kind\":\"random-init\",\"seed\":%llu}", seed);
    m.training = strdup(note);
    m.save_arrays = arrays;
    rc = model_save(&m, out, err, sizeof err);
    model_free(&m);
    if (rc) {
        fprintf(stderr, "attend init-model: %s\n", err);
        return 1;
    }
    return 0;
}

void cmd_load_progress(void *ctx, size_t done, size_t total)
{
    static int last = -1;
    if (total < ((size_t)64 << 20) || !isatty(2))
        return;
    int pct = (int)(done * 100 / total);
    if (pct == last && done < total)
        return;
    last = pct;
    char bar[21];
    for (int i = 0; i < 20; i++)
        bar[i] = i < pct / 5 ? '#' : '.';
    bar[20] = 0;
    fprintf(stderr, "\rloading %.50s  [%s] %3d%%  %zu of %zu MB", (const char *)ctx, bar, pct,
            done >> 20, total >> 20);
    if (done >= total) {
        fprintf(stderr, "\r%*s\r", 100, "");
        last = -1;
    }
    fflush(stderr);
}
