/* lesson.h - the lesson loader: lessons/NN-name.json files (docs/lessons.md) read and
 * validated into the typed Course of course.h. cJSON stays inside the loader. No curses, no
 * printing, no exit(). */
#ifndef ATTEND_LESSON_H
#define ATTEND_LESSON_H

#include <stddef.h>

#include "course.h"

/* Loads every DIR/NN-*.json (file names starting with a digit, sorted) into c, and every
 * model their widgets name. Each file is validated strictly (docs/lessons.md): syntax with
 * file:line:col, unknown and missing keys by JSON path and line:col, widget kinds, control
 * names, layer/head ranges, sentence words and length, start.order, and every question
 * (read once into its typed Question). A lesson with any problem is kept with broken = 1, no
 * pages, and its first problem in error; every problem is appended to c->problems.
 * Placeholders, and the problems of a question's "state", are reported by
 * lesson_check_placeholders (lesson_check.h). Returns 0 when the directory was read (even if
 * some lessons are broken; see c->n_problems), -1 with a message in err when the directory
 * cannot be read at all (c is then empty but still safe to free). The caller owns c:
 * lesson_free_course. */
int lesson_load_dir(Course *c, const char *dir, char *err, size_t errlen);
/* Frees everything c owns and zeroes it. Safe on a zeroed or failed Course. */
void lesson_free_course(Course *c);
/* Index of the lesson with this id, or -1. */
int lesson_find(const Course *c, const char *id);
/* A lesson named by a learner: its exact id, its number in the course (1 = the first lesson,
 * as the player's "lesson 9/23" counts), or a prefix of exactly one id ("multi" for
 * multi-head). Returns the index, or -1 with err saying what the name matched (nothing, or
 * which ids share the prefix) and how lessons are named. */
int lesson_lookup(const Course *c, const char *name, char *err, size_t errlen);
/* The model of a page's widget, or NULL (the model failed to load). */
const Model *lesson_model(const Course *c, const Page *p);

/* A widget's "model" that names the model the learner opened (attend --model PATH); until
 * one is opened, such pages run on the lessons' default model. "@opened:NAME" (a "model" or a
 * pair's "model2"): the opened model, and NAME (a course model) until one is opened. */
#define LESSON_OPENED "@opened"
/* Hands the learner's model m to c (taken over: *m is zeroed; c frees it): every page whose
 * widget says "model": "@opened" runs on it from now on. 0, or -1 with a message when no page
 * of c takes an opened model (m is then left to the caller). */
int lesson_open_model(Course *c, Model *m, char *err, size_t errlen);
/* 1 if page p runs on the model the learner opened, else 0. */
int lesson_model_opened(const Course *c, const Page *p);

#endif
