/* lab_solution.c - the solution of each lab, real code that passes its check
 * (data/labs/solutions/NAME.py, NAME.c), which `attend lab solution` shows only after a pass or
 * after several failed checks. */
#include <stdio.h>

#include "datapath.h"
#include "fileio.h"
#include "lab.h"

char *lab_solution_text(const LabDef *d, const char *lang, char *err, size_t errlen)
{
    char rel[128], path[1024];
    snprintf(rel, sizeof rel, "data/labs/solutions/%s.%s", d->name, lang);
    data_path(rel, path, sizeof path);
    char *text = NULL;
    size_t len;
    if (fileio_read(path, (size_t)1 << 20, &text, &len, err, errlen))
        return NULL;
    return text;
}
