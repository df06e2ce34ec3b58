/* cmd_present.c - `attend present`: the player in presenter mode (src/tui/present.c);
 * `attend present --plan FILE [--check]`: a lecture plan (a demo script of lesson pages and
 * steps, docs/demos.md) checked, then stepped through with space, as `attend demo` does. */
#include <string.h>

#include "cmd.h"
#include "tui.h"

int cmd_present(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--plan"))
            continue;
        if (i + 1 >= argc) {
            char *none[] = {NULL};
            return cmd_demo(0, none); /* "which demo?" and the usage */
        }
        /* the plan is attend demo's script: FILE first, the other options after it */
        char *args[72];
        int n = 0;
        args[n++] = argv[i + 1];
        for (int j = 0; j < argc && n < 70; j++)
            if (j != i && j != i + 1)
                args[n++] = argv[j];
        args[n] = NULL;
        return cmd_demo(n, args);
    }
    /* tui_present_main reads argv[1..] as options, as tui_main does */
    return tui_present_main(argc + 1, argv - 1);
}
