/* fuzz_lab_result.c - libFuzzer harness for the lab harness's answer (docs/labs.md): any
 * bytes either parse into arrays whose lengths match their shapes, or give a message; the
 * verdict on a parsed answer never crashes. */
#include "fuzz_common.h"
#include "lab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    LabResult r;
    char err[512] = "";
    int rc = lab_result_parse((const char *)data, size, &r, err, sizeof err);
    if (rc != 0 && !err[0])
        abort(); /* a refusal always says why */
    if (rc == 0) {
        for (int i = 0; i < r.n_cases; i++)
            for (int k = 0; k < r.got[i].n_outs; k++) {
                const LabArray *a = &r.got[i].outs[k];
                size_t len = 1;
                for (int d = 0; d < a->ndim; d++)
                    len *= (size_t)a->dim[d];
                if (len != a->len || (len && !a->v))
                    abort();
            }
        static LabCases lc;
        static int made;
        if (!made && lab_cases_make(lab_find("attention"), &lc, err, sizeof err) == 0)
            made = 1;
        LabVerdict v;
        if (made && lab_diagnose(lab_find("attention"), &lc, &r, &v) == 0 && v.pass &&
            r.n_cases < lc.n_cases)
            abort(); /* a pass needs every case */
    }
    lab_result_free(&r);
    return 0;
}
