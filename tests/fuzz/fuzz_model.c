/* fuzz_model.c - libFuzzer harness for the model loader: any bytes as a model file must load
 * or be refused with a message; a loaded model must run a forward pass without a sanitizer
 * report. */
#include "fuzz_common.h"
#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[300], err[1024];
    snprintf(path, sizeof path, "%s/model.json", fuzz_dir("model"));
    if (fuzz_write(path, data, size))
        return 0;
    Model m;
    if (model_load(&m, path, err, sizeof err) == 0) {
        /* a loaded model is valid: a short forward must succeed or say why */
        if (m.n_floats < 200000 && m.cfg.max_len >= 2) {
            Trace *t = trace_new(&m, 2, 2);
            Controls c;
            model_default_controls(&m, &c);
            int ids[2] = {0, 1 % m.cfg.vocab_size};
            if (t)
                model_forward(&m, ids, 2, ids, 2, &c, t, err, sizeof err);
            trace_free(t);
        }
        model_free(&m);
    } else if (!err[0]) {
        abort(); /* a refusal always says why */
    }
    return 0;
}
