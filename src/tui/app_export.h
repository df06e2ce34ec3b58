/* app_export.h - the x key (app_export.c): the current widget as a figure file. */
#ifndef ATTEND_APP_EXPORT_H
#define ATTEND_APP_EXPORT_H

#include "app.h"

/* Writes the current widget's figure and says where (app_msg). */
void app_export(App *a);

#endif
