/* app_export.c - the player's x key: the current widget as a figure (SVG, and its matrix or
 * the explanation's table as CSV), written by the course's exporter (src/course/export.c) into the current directory or
 * $ATTEND_EXPORT_DIR under a name that says what it is, never over an existing file. */
#include <stdlib.h>
#include <string.h>

#include "app_export.h"
#include "export.h"

/* The figure of the current page as ExportView (what the screen shows now: layer, head,
 * scores, tensor, order, mask): the one mapping export_view_of, as attend export's. -1 when
 * the widget has no figure. */
static int current_view(const App *a, ExportView *v, ExportWhat *what)
{
    WidgetIO io;
    DescribeView shown;
    session_io(a->s, &io);
    session_view(a->s, &shown);
    int w = export_view_of(&io, &shown, v);
    if (w < 0)
        return -1;
    *what = (ExportWhat)w;
    return 0;
}

void app_export(App *a)
{
    ExportView v;
    ExportWhat what = EXPORT_HEATMAP;
    if (current_view(a, &v, &what)) {
        app_msg(a, 1, "this page's widget has no figure to export");
        return;
    }
    const char *dir = getenv("ATTEND_EXPORT_DIR");
    if (!dir || !*dir)
        dir = ".";
    char svg[1024], csv[1024], err[600];
    if (export_write_current(&v, what, EXPORT_SVG, dir, svg, sizeof svg, err, sizeof err)) {
        app_msg(a, 1, "export failed: %s", err);
        return;
    }
    /* a heatmap's numbers too, at full precision, for a spreadsheet or a notebook; the
     * explanation figures' tables too */
    if ((what == EXPORT_HEATMAP || what >= EXPORT_SCALING) &&
        export_write_current(&v, what, EXPORT_CSV, dir, csv, sizeof csv, err, sizeof err) == 0) {
        app_msg(a, 0, "exported %s and %s", svg, strrchr(csv, '/') ? strrchr(csv, '/') + 1 : csv);
        return;
    }
    app_msg(a, 0, "exported %s", svg);
}
