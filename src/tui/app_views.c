/* app_views.c - the view registry: every view, widget or overlay, is listed once here and
 * nowhere else. The player reaches a page's view by its widget kind, an overlay by the
 * request it registers for (ViewOps.opens), a view's state, click and key_state through its
 * ViewOps: adding a view is one ViewOps, one line here (docs/architecture.md). */
#include "app_views.h"

static const ViewOps *const VIEWS[] = {
    &VIEW_NONE,  &VIEW_HEATMAP, &VIEW_CHIPS, &VIEW_PASSPORT, &VIEW_MATRIX, &VIEW_WORKED,
    &VIEW_SCALING, &VIEW_KVCACHE, &VIEW_COST, &VIEW_PARAMS, &VIEW_HELP, &VIEW_NOTES,
    &VIEW_MENU,  &VIEW_EDIT,    &VIEW_TENSOR, &VIEW_QUIZ, &VIEW_TRAIN, &VIEW_GOTO,
    &VIEW_GENERATE, &VIEW_LAB, &VIEW_CLASS_QUIZ, &VIEW_NOTES_SCREEN,
    &VIEW_LENS, &VIEW_ATTRIB, &VIEW_EFFECT, &VIEW_PATCH, &VIEW_ROLLOUT,
    &VIEW_PAIR};

App *app_new(void)
{
    return app_alloc(VIEWS, (int)(sizeof VIEWS / sizeof VIEWS[0]));
}
