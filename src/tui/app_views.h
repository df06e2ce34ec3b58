/* app_views.h - the view registry (app_views.c): every view, widget or overlay, listed once
 * there; app_new gives an App all of them. docs/architecture.md: "How to add a view". */
#ifndef ATTEND_APP_VIEWS_H
#define ATTEND_APP_VIEWS_H

#include "app.h"

/* A new App with every registered view (app_alloc); NULL when out of memory. Free it with
 * app_delete. */
App *app_new(void);

/* The views, each defined in its view_*.c. */
extern const ViewOps VIEW_HEATMAP, VIEW_CHIPS, VIEW_PASSPORT, VIEW_MATRIX, VIEW_NONE;
extern const ViewOps VIEW_WORKED, VIEW_SCALING, VIEW_KVCACHE, VIEW_COST, VIEW_PARAMS;
extern const ViewOps VIEW_TRAIN, VIEW_GENERATE;
/* The probe widgets (view_probe.c, view_pair.c): lens, attribution, effect, patching, rollout;
 * two models side by side. */
extern const ViewOps VIEW_LENS, VIEW_ATTRIB, VIEW_EFFECT, VIEW_PATCH, VIEW_ROLLOUT, VIEW_PAIR;
extern const ViewOps VIEW_LAB; /* a lab's commands and its last check (view_lab.c) */
/* Overlays. */
extern const ViewOps VIEW_HELP, VIEW_NOTES, VIEW_MENU, VIEW_EDIT, VIEW_TENSOR, VIEW_QUIZ;
extern const ViewOps VIEW_GOTO;
/* Screens of their own (App.solo): attend quiz --class, attend notes. */
extern const ViewOps VIEW_CLASS_QUIZ, VIEW_NOTES_SCREEN;

#endif
