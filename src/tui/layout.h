/* layout.h - the player's screen (layout.c): where everything goes on a cols x lines screen
 * (layout_plan, no curses: check-lessons measures with it) and the full redraw. */
#ifndef ATTEND_LAYOUT_H
#define ATTEND_LAYOUT_H

#include "app.h"

/* Where layout_draw puts everything on a cols x lines screen, computed without curses: the
 * player draws from it and check-lessons measures with it (tui_check_pages). */
typedef struct {
    int too_small;           /* below APP_MIN_COLS x APP_MIN_LINES: only the "enlarge" screen */
    int has_widget, stacked; /* stacked: prose above the widget (below 120 columns) */
    int footer_rows;
    int msg_y;               /* the message line's row, -1 when there is no message */
    int rule_y, rule_x;      /* the rule between the panes (stacked: a row; side by side: a
                                column), 0 when none */
    Rect prose, widget;      /* the panes (the prose pane's first row is the title); h 0: none */
    int prose_total;         /* wrapped prose lines at the pane's width */
    int prose_over;          /* lines of prose the pane cannot show ("more below"), 0: fits */
    int widget_need;         /* rows the widget asks for at its width */
    int widget_over;         /* rows of the widget cut ("more rows of the widget"), 0: fits
                                (a self-scrolling widget compacts and is never cut) */
    int widget_hidden;       /* a self-scrolling widget: rows of its content out of sight
                                (ViewOps.hidden: "rows 1-6 of 8"), 0: all shown */
} LayoutPlan;
void layout_plan(App *a, int cols, int lines, LayoutPlan *p);
/* Draws the whole screen: header, message line, prose and widget panes, footer, overlay. */
void layout_draw(App *a);

#endif
