/* errf.c - see errf.h. */
#include "errf.h"

#include <stdio.h>

int verrf(char *err, size_t errlen, const char *fmt, va_list ap)
{
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    return -1;
}

int errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verrf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}
