/* safetext.c - control characters in caret notation, for strings and for output streams
 * (see safetext.h). */
#define _GNU_SOURCE /* fopencookie */
#include "safetext.h"
#include "utf8.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The caret form of byte c if it is a control to escape (into buf, 3 bytes), else NULL. */
static const char *caret(unsigned char c, int keep_cr, char buf[3])
{
    if (c == '\n' || c == '\t' || (c == '\r' && keep_cr) || (c >= 0x20 && c != 0x7f))
        return NULL;
    buf[0] = '^';
    buf[1] = c == 0x7f ? '?' : (char)(c + 0x40);
    buf[2] = 0;
    return buf;
}

char *safetext_escape(const char *s, char *out, size_t n)
{
    size_t o = 0;
    char cb[3];
    if (!n)
        return out;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const char *rep = caret(*p, 0, cb);
        char c1[4];
        if (!rep && p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) { /* a C1 control */
            c1[0] = '^';
            c1[1] = '[';
            c1[2] = (char)(p[1] - 0x40);
            c1[3] = 0;
            rep = c1;
            p++;
        }
        size_t len = rep ? strlen(rep) : 1;
        if (o + len >= n)
            break;
        if (rep) {
            memcpy(out + o, rep, len);
        } else {
            /* a multi-byte character is not cut: its continuation bytes must fit too */
            size_t more = 0;
            while (more < 3 && utf8_is_cont(p[more + 1]))
                more++;
            if (*p >= 0xC0 && o + 1 + more >= n)
                break;
            out[o] = (char)*p;
        }
        o += len;
    }
    out[o] = 0;
    return out;
}

typedef struct {
    int fd;
    int keep_cr;
    int held_c2;  /* the previous chunk ended with 0xC2: a C1 control may follow */
} Sink;

static int put(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
    Sink *s = cookie;
    char out[4096 + 8];
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (o > sizeof out - 8) {
            if (put(s->fd, out, o))
                return -1;
            o = 0;
        }
        if (s->held_c2) {
            s->held_c2 = 0;
            if (c >= 0x80 && c <= 0x9F) {
                out[o++] = '^';
                out[o++] = '[';
                out[o++] = (char)(c - 0x40);
                continue;
            }
            out[o++] = (char)0xC2;
        }
        if (c == 0xC2) {
            s->held_c2 = 1;
            continue;
        }
        char cb[3];
        const char *rep = caret(c, s->keep_cr, cb);
        if (rep) {
            out[o++] = rep[0];
            out[o++] = rep[1];
        } else {
            out[o++] = (char)c;
        }
    }
    if (o && put(s->fd, out, o))
        return -1;
    return (ssize_t)len;
}

static int sink_close(void *cookie)
{
    Sink *s = cookie;
    int rc = s->held_c2 ? put(s->fd, "\xC2", 1) : 0;
    free(s);
    return rc;
}

/* A stream over fd and its sink (*sp, when sp is not NULL). */
static FILE *open_sink(int fd, int keep_cr, Sink **sp)
{
    Sink *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->fd = fd;
    s->keep_cr = keep_cr;
    cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
    FILE *f = fopencookie(s, "w", io);
    if (!f)
        free(s);
    else if (sp)
        *sp = s;
    return f;
}


/* The sinks of the wrapped stdout and stderr: they live until exit (stdio flushes them then),
 * held here so that leak checkers (LeakSanitizer, valgrind) see them as in use. */
static Sink *wrapped[2];

void safetext_wrap(FILE **stream, int keep_cr)
{
    fflush(*stream);
    int line = isatty(fileno(*stream));
    Sink *s = NULL;
    FILE *f = open_sink(fileno(*stream), keep_cr, &s);
    if (!f)
        return;
    wrapped[*stream == stderr] = s;
    if (*stream == stderr)
        setvbuf(f, NULL, _IONBF, 0);
    else if (line)
        setvbuf(f, NULL, _IOLBF, 0);
    *stream = f;
}

const char *safetext_level_glyph(int level, int ascii)
{
    static const char *const BLOCKS[8] = {"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83",
                                          "\xe2\x96\x84", "\xe2\x96\x85", "\xe2\x96\x86",
                                          "\xe2\x96\x87", "\xe2\x96\x88"};
    static const char *const ASCII[8] = {"_", ".", "-", "-", "=", "=", "#", "#"};
    level = level < 0 ? 0 : level > 7 ? 7 : level;
    return ascii ? ASCII[level] : BLOCKS[level];
}

int safetext_block_ascii(const char *s)
{
    unsigned cp;
    if (utf8_decode(s, strnlen(s, 4), &cp) != 3 || cp < 0x2580 || cp > 0x259F)
        return 0;
    if (cp >= 0x2581 && cp <= 0x2588)
        return safetext_level_glyph((int)(cp - 0x2581), 1)[0];
    return cp == 0x2591 ? '.' : cp == 0x2592 ? ':' : cp == 0x2594 ? '-' : '#';
}
