/* test_strmap.c - the one string map (strmap.c) and the one UTF-8 helper (utf8.c): keys by
 * length (not by NUL), insertion order, first value kept, growth past many keys; strict
 * decoding (overlong, surrogates, truncated, past U+10FFFF refused), encoding round trips,
 * stepping over continuation bytes. */
#include <stdio.h>
#include <string.h>

#include "strmap.h"
#include "t.h"
#include "utf8.h"

static void test_strmap(void)
{
    StrMap m = {0};
    int added = -1;
    CHECK(strmap_get(&m, "a", 1) == -1 && strmap_index(&m, "a", 1) == -1, "empty map");
    CHECK(strmap_put(&m, "cat", 3, 7, &added) == 0 && added == 1, "first key index 0");
    CHECK(strmap_put(&m, "catalogue", 3, 9, &added) == 0 && added == 0,
          "the first 3 bytes of \"catalogue\" are the key \"cat\": found, not added");
    CHECK(strmap_get(&m, "cat", 3) == 7, "the first value is kept: %d", strmap_get(&m, "cat", 3));
    CHECK(strmap_get(&m, "ca", 2) == -1 && strmap_get(&m, "cats", 4) == -1, "a prefix or a "
          "longer string is another key");
    CHECK(strmap_put(&m, "", 0, 3, &added) == 1 && added == 1 && strmap_get(&m, "", 0) == 3,
          "the empty string is a key like any other");
    /* many keys: growth keeps every one, in insertion order */
    char k[32];
    int bad = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf(k, sizeof k, "w%d", i);
        bad += strmap_put(&m, k, strlen(k), i * 2, NULL) != i + 2;
    }
    CHECK(bad == 0, "%d keys not added at their index", bad);
    for (int i = 0; i < 5000; i++) {
        snprintf(k, sizeof k, "w%d", i);
        bad += strmap_get(&m, k, strlen(k)) != i * 2 || strcmp(m.keys[i + 2], k) != 0;
    }
    CHECK(bad == 0 && m.n == 5002, "%d keys wrong after growth, n %d", bad, m.n);
    CHECK(m.tcap > 2 * m.n, "at most half full: %d slots for %d keys", m.tcap, m.n);
    /* bytes past ASCII, and a byte that is 0xff (the HF merges' separator) */
    CHECK(strmap_put(&m, "a\xff" "b", 3, 11, NULL) >= 0 && strmap_get(&m, "a\xff" "b", 3) == 11,
          "any byte but NUL");
    strmap_free(&m);
    CHECK(m.n == 0 && m.keys == NULL && strmap_get(&m, "cat", 3) == -1, "freed map is empty");
}

static void test_utf8(void)
{
    unsigned cp = 0;
    CHECK(utf8_decode("A", 1, &cp) == 1 && cp == 'A', "ASCII");
    CHECK(utf8_decode("\xc3\xa9", 2, &cp) == 2 && cp == 0xe9, "é: %x", cp);
    CHECK(utf8_decode("\xe2\x96\x88", 3, &cp) == 3 && cp == 0x2588, "█: %x", cp);
    CHECK(utf8_decode("\xf0\x9f\x98\x80", 4, &cp) == 4 && cp == 0x1f600, "emoji: %x", cp);
    CHECK(utf8_decode("\xc3\xa9", 1, NULL) == 0, "truncated by n");
    CHECK(utf8_decode("\xc3" "A", 2, NULL) == 0, "no continuation byte");
    CHECK(utf8_decode("\xa9", 1, NULL) == 0, "a stray continuation byte");
    CHECK(utf8_decode("\xc0\xaf", 2, NULL) == 0, "overlong '/'");
    CHECK(utf8_decode("\xe0\x80\xaf", 3, NULL) == 0, "overlong in three bytes");
    CHECK(utf8_decode("\xed\xa0\x80", 3, NULL) == 0, "a surrogate (U+D800)");
    CHECK(utf8_decode("\xf4\x90\x80\x80", 4, NULL) == 0, "past U+10FFFF");
    CHECK(utf8_decode("\xff", 1, NULL) == 0 && utf8_decode("", 0, NULL) == 0, "0xff, n 0");
    char o[4];
    int bad = 0;
    for (unsigned c = 0; c <= 0x10ffff; c += c < 0x3000 ? 1 : 97) {
        int l = utf8_encode(c, o);
        unsigned back = 0;
        if (c >= 0xd800 && c <= 0xdfff)
            bad += l != 0;
        else
            bad += l < 1 || utf8_decode(o, (size_t)l, &back) != l || back != c;
    }
    CHECK(bad == 0, "%d code points do not round-trip", bad);
    CHECK(utf8_encode(0x110000, o) == 0, "past U+10FFFF is not encoded");
    const char *s = "a\xc3\xa9z"; /* a é z */
    CHECK(utf8_next(s, 4, 0) == 1 && utf8_next(s, 4, 1) == 3 && utf8_next(s, 4, 3) == 4 &&
          utf8_next(s, 4, 4) == 4, "next over é");
    CHECK(utf8_prev(s, 4) == 3 && utf8_prev(s, 3) == 1 && utf8_prev(s, 1) == 0 &&
          utf8_prev(s, 0) == 0, "prev over é");
    CHECK(utf8_count(s) == 3 && utf8_count("") == 0 && utf8_count("\xa9\xa9") == 0,
          "characters counted by their first bytes");
    CHECK(utf8_is_cont(0x80) && utf8_is_cont(0xbf) && !utf8_is_cont(0xc3) && !utf8_is_cont('a'),
          "continuation bytes");
}

/* strmap_reserve: the tables sized once (no growth after), keys kept across the key blocks,
 * reserve after puts keeps what is there, and a key longer than any block. */
static void test_reserve(void)
{
    StrMap m = {0};
    CHECK(strmap_put(&m, "first", 5, 1, NULL) == 0, "a key before the reserve");
    CHECK(strmap_reserve(&m, 20000, 100000) == 0 && m.cap >= 20000 && m.tcap > 40000,
          "room for 20000 keys: cap %d, %d slots", m.cap, m.tcap);
    int cap = m.cap, tcap = m.tcap, bad = 0;
    char k[48];
    for (int i = 1; i < 20000; i++) {
        snprintf(k, sizeof k, "key number %d with some length", i);
        bad += strmap_put(&m, k, strlen(k), i, NULL) != i;
    }
    CHECK(bad == 0 && m.cap == cap && m.tcap == tcap, "20000 keys put without growing "
          "(%d bad, cap %d -> %d, slots %d -> %d)", bad, cap, m.cap, tcap, m.tcap);
    static char big[100000];
    memset(big, 'x', sizeof big - 1);
    CHECK(strmap_put(&m, big, sizeof big - 1, 42, NULL) == 20000 &&
          strmap_get(&m, big, sizeof big - 1) == 42, "a key of 99999 bytes");
    for (int i = 1; i < 20000; i++) {
        snprintf(k, sizeof k, "key number %d with some length", i);
        bad += strmap_get(&m, k, strlen(k)) != i || strcmp(m.keys[i], k) != 0;
    }
    CHECK(bad == 0 && strmap_get(&m, "first", 5) == 1 && strcmp(m.keys[0], "first") == 0,
          "every key still there after the big one: %d bad", bad);
    strmap_free(&m);
}

int main(void)
{
    test_strmap();
    test_reserve();
    test_utf8();
    return t_done("strmap");
}
