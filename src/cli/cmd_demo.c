/* cmd_demo.c - `attend demo FILE [--auto S] [player options]` plays a demo script in the
 * presenter (src/tui/demo_play.c); `attend demo --check FILE` validates it (docs/demos.md). */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "datapath.h"
#include "tui.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: attend demo FILE [--auto SECONDS] [--lessons DIR] [--theme T] [--ascii]\n"
               "       attend demo --check FILE [--lessons DIR]\n"
               "  Plays a demo script (docs/demos.md) in the presenter: space runs the next\n"
               "  step, b goes back one step, q quits.\n"
               "  --auto SECONDS  run a step every SECONDS (plus a step's pause)\n"
               "  --check         validate the script against the course: FILE:LINE:COL\n"
               "  --lessons DIR   the course (default: the shipped lessons/)\n");
}

int cmd_demo(int argc, char **argv)
{
    const char *file = NULL, *dir = NULL;
    int check = 0;
    char *pass[64];
    int np = 0;
    char dirbuf[1024];
    pass[np++] = "demo";
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--check")) {
            check = 1;
        } else if (argv[i][0] != '-' && !file) {
            file = argv[i];
        } else if (np < 60) {
            if (!strcmp(argv[i], "--lessons") && i + 1 < argc)
                dir = argv[i + 1];
            pass[np++] = argv[i];
        }
    }
    if (!file) {
        fprintf(stderr, "attend demo: which demo script? (demos/*.json)\n");
        usage(stderr);
        return 2;
    }
    if (check) {
        if (!dir) {
            data_path("lessons", dirbuf, sizeof dirbuf);
            dir = dirbuf;
        }
        return tui_demo_check(file, dir);
    }
    pass[np++] = "--demo";
    pass[np++] = (char *)file;
    pass[np] = NULL;
    return tui_present_main(np, pass);
}
