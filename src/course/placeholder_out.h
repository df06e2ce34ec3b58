/* placeholder_out.h - the bounded output buffer that placeholder.c (expansion) and
 * placeholder_cond.c (the {{if}} walk) both write prose into. Private to those two files. */
#ifndef ATTEND_PLACEHOLDER_OUT_H
#define ATTEND_PLACEHOLDER_OUT_H

#include <string.h>

typedef struct {
    char *buf;
    size_t len, cap;
    int overflow; /* set when text did not fit: the rest was cut */
} Out;

/* Appends n bytes of s, cut to what fits (always NUL-terminated). */
static inline void out_put(Out *o, const char *s, size_t n)
{
    if (o->cap == 0)
        return;
    if (o->len + n >= o->cap) {
        n = o->cap - 1 - o->len;
        o->overflow = 1;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = 0;
}

#endif
