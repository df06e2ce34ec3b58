/* cmd_present.c - `attend present`: the player in presenter mode (src/tui/present.c). */
#include "cmd.h"
#include "tui.h"

int cmd_present(int argc, char **argv)
{
    /* tui_present_main reads argv[1..] as options, as tui_main does */
    return tui_present_main(argc + 1, argv - 1);
}
