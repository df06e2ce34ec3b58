/* fuzz_safetensors.c - libFuzzer harness for the safetensors header check: the input is a whole
 * .safetensors file image. A file that passes has every tensor inside the data and no two
 * overlapping; each 1-D or 2-D F32/F16/BF16 tensor is then read (converted) without fault. */
#include "fuzz_common.h"
#include "safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    StSet s;
    char err[512];
    if (st_parse_buffer(&s, "fuzz.safetensors", data, size, err, sizeof err)) {
        if (!err[0])
            abort(); /* a refusal always says why */
        return 0;
    }
    size_t data_size = size - s.files[0].data_off;
    for (int i = 0; i < s.n; i++) {
        const StTensor *t = &s.t[i];
        if (t->begin > t->end || t->end > data_size)
            abort();
        if (i && strcmp(s.t[i - 1].name, t->name) >= 0)
            abort(); /* sorted, no name twice */
        if (t->ndim == 1 || t->ndim == 2) {
            int64_t rows = t->ndim == 2 ? t->shape[0] : 0, cols = t->shape[t->ndim - 1];
            const float *p = st_matrix(&s, t->name, rows, cols, err, sizeof err);
            if (!p != (t->kind == ST_OTHER))
                abort();
            if (p && t->end > t->begin) {
                volatile float x = p[0];
                (void)x;
            }
        }
    }
    st_close(&s);
    return 0;
}
