/* utf8.c - the one UTF-8 helper (utf8.h). */
#include "utf8.h"

int utf8_decode(const char *s, size_t n, unsigned *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0)
        return 0;
    unsigned c = u[0];
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!len || (size_t)len > n)
        return 0;
    unsigned v = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
    for (int i = 1; i < len; i++) {
        if ((u[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (u[i] & 0x3f);
    }
    if ((len == 2 && v < 0x80) || (len == 3 && v < 0x800) || (len == 4 && v < 0x10000) ||
        v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    if (cp)
        *cp = v;
    return len;
}

int utf8_encode(unsigned cp, char *o)
{
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | cp >> 18);
    o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

int utf8_is_cont(unsigned char b)
{
    return (b & 0xc0) == 0x80;
}

size_t utf8_next(const char *s, size_t n, size_t i)
{
    if (i >= n)
        return n;
    i++;
    while (i < n && utf8_is_cont((unsigned char)s[i]))
        i++;
    return i;
}

size_t utf8_prev(const char *s, size_t i)
{
    if (i == 0)
        return 0;
    i--;
    while (i > 0 && utf8_is_cont((unsigned char)s[i]))
        i--;
    return i;
}

size_t utf8_count(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += !utf8_is_cont((unsigned char)*s);
    return n;
}
