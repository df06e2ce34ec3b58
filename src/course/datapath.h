/* datapath.h - locating attend's data files (the shipped models, vocabulary and lessons).
 * No curses, no printing. */
#ifndef ATTEND_DATAPATH_H
#define ATTEND_DATAPATH_H

#include <stddef.h>

/* The model a widget or a subcommand uses when none is named. */
#define DATA_DEFAULT_MODEL "data/decoder.json"

/* Locates a data file: $ATTEND_DATA/rel, ./rel, then next to the binary (and its
 * ../share/attend/). Writes the first that exists to out (or rel itself). */
void data_path(const char *rel, char *out, size_t outlen);

#endif
