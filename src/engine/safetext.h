/* safetext.h - text made safe for a terminal: control characters (C0 but newline and tab, DEL,
 * and the UTF-8-encoded C1 controls U+0080..U+009F) shown in caret notation (ESC as "^[", the
 * CSI U+009B as "^[["), the way the player's curses shows them, so a lesson, a model or a
 * sentence cannot send escape sequences (OSC, CSI) to the learner's terminal. No curses. */
#ifndef ATTEND_SAFETEXT_H
#define ATTEND_SAFETEXT_H

#include <stddef.h>
#include <stdio.h>

/* Copies s into out (n bytes, always NUL-terminated, cut at a character boundary when it
 * does not fit) with control characters in caret notation. Returns out. */
char *safetext_escape(const char *s, char *out, size_t n);

/* Replaces *stream (stdout or stderr) by a stdio stream over its descriptor that writes every
 * control character but newline, tab and carriage return (keep_cr: 1, for progress lines) in
 * caret notation, flushing it first; keeps the old stream when out of memory. */
void safetext_wrap(FILE **stream, int keep_cr);

/* ---- block elements: one glyph rule for the player, plain mode and the placeholders ---- */

/* Level 0..7 (clamped) of a one-line chart: the eighth block U+2581..U+2588 ("▁".."█"), or
 * with ascii its ASCII glyph, "_.--==##"[level] (the full block is '#' everywhere). */
const char *safetext_level_glyph(int level, int ascii);
/* The ASCII glyph of the block element U+2580..U+259F that s starts with (UTF-8): the eighth
 * blocks by the rule above, the shades ░▒▓ '.', ':', '#', the upper eighth '-', the others
 * '#'; 0 when s does not start with one. */
int safetext_block_ascii(const char *s);

#endif
