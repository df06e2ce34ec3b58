/* errf.h - the course room's error messages: a printf-style message into the caller's buffer.
 * Every loader and checker here reports through an (err, errlen) pair. */
#ifndef ATTEND_ERRF_H
#define ATTEND_ERRF_H

#include <stdarg.h>
#include <stddef.h>

/* Writes the formatted message into err (when err and errlen are given) and returns -1, so a
 * failing path reads `return errf(err, errlen, "...", ...);`. */
int errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same with a va_list (for helpers that return something other than -1). */
int verrf(char *err, size_t errlen, const char *fmt, va_list ap);

#endif
