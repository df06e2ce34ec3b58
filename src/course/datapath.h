/* datapath.h - locating attend's data files (the shipped models, vocabulary and lessons).
 * No curses, no printing. */
#ifndef ATTEND_DATAPATH_H
#define ATTEND_DATAPATH_H

#include <stddef.h>

/* The model a subcommand (dump, export, generate) uses when none is named: the real-English
 * model, whose WordPiece tokenizer reads any sentence without <unk>. */
#define DATA_DEFAULT_MODEL "data/wordnet.json"
/* The model a lesson page uses when it names none: the course's word-level decoder, which the
 * lessons' chosen sentences were written for (a page where the learner types names
 * "wordnet.json"). */
#define DATA_LESSON_MODEL "data/decoder.json"
/* Everyday sentences written for attend (tests, check-lessons' typing). */
#define DATA_EVERYDAY "data/everyday.txt"

/* Locates a data file or directory rel ("lessons", "data/vocab.txt"): the first root holding
 * it, in this order: $ATTEND_DATA; the installed data directory compiled in (ATTEND_DATADIR,
 * $(PREFIX)/share/attend); the source tree the binary was built in (ATTEND_SRCDIR); the
 * binary's own directory and its ../share/attend. A binary still inside its build tree looks
 * in that tree before the installed directory, so a clone never runs an older installed
 * course. An absolute rel, or one found nowhere, is written as given (relative to the
 * current directory). Writes the path to out and returns a static label of where it was
 * found ("$ATTEND_DATA", "installed", "build tree", "next to the binary", or "not found"). */
const char *data_locate(const char *rel, char *out, size_t outlen);

/* data_locate without the label. */
void data_path(const char *rel, char *out, size_t outlen);

/* The model a --model value names, for every command that takes one (dump, export, heads,
 * generate): NULL is DATA_DEFAULT_MODEL; a value that is a path here (it has a '/', or a file
 * or directory of that name is in the current directory) is itself; else a shipped model's
 * bare name, "wordnet.json" or "wordnet", is data/wordnet.json wherever data_locate finds
 * it; a name that is none of these is itself, for the loader's "No such file" message.
 * Writes the path to out and returns out. */
const char *data_model_path(const char *value, char *out, size_t outlen);

#endif
