/* lesson_widget.h - private to the lesson loader: a page's "widget" object and a "start" (or a
 * question's "state") read into typed structs, problems reported through lesson_json.h.
 * Prefix lw_. */
#ifndef ATTEND_LESSON_WIDGET_H
#define ATTEND_LESSON_WIDGET_H

#include "course.h"
#include "lesson_json.h"

/* Index into c->models of the model a widget names (loaded on first use), or -1 when out of
 * memory. The entry may have ok == 0 with its error. */
int lw_course_model(Course *c, const char *name, const char *lesson_file);
/* Reads a widget object at path into w (defaults first); every problem is reported. */
void lw_parse_widget(LjCtx *x, const cJSON *obj, const char *path, Widget *w);
/* Reads a start object (or a question's "state") over s. m may be NULL when the model did not
 * load (range checks are skipped). keys (may be NULL) gets the start keys present (1 << SK_*).
 */
void lw_parse_start(LjCtx *x, const cJSON *obj, const char *path, const Model *m,
                    WidgetStart *s, unsigned *keys);

#endif
