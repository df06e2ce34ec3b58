/* utf8.h - the one UTF-8 helper: decode one character (strictly: no overlong forms, no
 * surrogates, nothing past U+10FFFF), encode a code point, and step over continuation bytes.
 * The tokenizers, the safe-text filter, JSON positions, the exports and the front ends' text
 * editing all read UTF-8 through it. No curses, no printing. */
#ifndef ATTEND_UTF8_H
#define ATTEND_UTF8_H

#include <stddef.h>

#define UTF8_REPLACEMENT 0xFFFDu /* what an invalid byte reads as */

/* The length (1..4) of the valid UTF-8 character at s (n bytes available), its code point in
 * *cp (may be NULL); 0 when the bytes there are no valid character (a stray continuation
 * byte, a truncated, overlong or surrogate sequence, past U+10FFFF, or n == 0). */
int utf8_decode(const char *s, size_t n, unsigned *cp);
/* Writes code point cp (at most U+10FFFF, no surrogate) as UTF-8 into out (room for 4
 * bytes, not terminated); returns its length 1..4, or 0 for a value no UTF-8 can hold. */
int utf8_encode(unsigned cp, char *out);
/* 1 if byte b is a continuation byte (10xxxxxx). */
int utf8_is_cont(unsigned char b);
/* The position of the character after the one at i in s[0..n): i + 1 past any continuation
 * bytes (n at most). */
size_t utf8_next(const char *s, size_t n, size_t i);
/* The position of the character before i in s: back over continuation bytes (0 at least). */
size_t utf8_prev(const char *s, size_t i);
/* The number of characters in the NUL-terminated s: every byte that is no continuation byte
 * starts one (an invalid lead byte counts as one, a stray continuation byte as none). */
size_t utf8_count(const char *s);

#endif
