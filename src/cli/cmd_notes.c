/* cmd_notes.c - `attend notes [--session ID]`: speaker notes in a second terminal, following
 * the running presenter (src/tui/view_notes_screen.c draws; src/course/present_state.c reads). */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "opts.h"
#include "tui.h"

static const char NOTES_USAGE[] =
    "usage: attend notes [--session ID]\n"
    "  Shows the speaker notes of the page attend present is on, the next\n"
    "  page, the keys the page invites and the time since the start; follows\n"
    "  the most recent presenter, or session ID (its state file's name).\n"
    "  State: $XDG_RUNTIME_DIR/attend/, else /tmp/attend-UID/ (mode 0700).";

int cmd_notes(int argc, char **argv)
{
    const char *session = NULL;
    const Opt opts[] = {OPT_S("--session", &session)};
    int rc = opts_parse(opts, 1, argc, argv, "attend notes", NOTES_USAGE);
    if (rc >= 0)
        return rc;
    return tui_notes_main(session);
}
