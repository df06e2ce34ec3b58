/* cmd_notes.c - `attend notes [--session ID]`: speaker notes in a second terminal, following
 * the running presenter (src/tui/view_notes_screen.c draws; src/course/present_state.c reads). */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "tui.h"

int cmd_notes(int argc, char **argv)
{
    const char *session = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--session") && i + 1 < argc) {
            session = argv[++i];
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: attend notes [--session ID]\n"
                   "  Shows the speaker notes of the page attend present is on, the next\n"
                   "  page, the keys the page invites and the time since the start; follows\n"
                   "  the most recent presenter, or session ID (its state file's name).\n"
                   "  State: $XDG_RUNTIME_DIR/attend/, else /tmp/attend-UID/ (mode 0700).\n");
            return 0;
        } else {
            fprintf(stderr, "attend notes: unknown option \"%s\" (try --help)\n", argv[i]);
            return 2;
        }
    }
    return tui_notes_main(session);
}
