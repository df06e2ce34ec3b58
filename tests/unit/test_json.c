/* test_json.c - json_parse_text gives the tree cJSON gives (long strings lifted out before the
 * parse and put back after), and its syntax errors name the line:col of the original text;
 * json_parse_file_borrow gives the same tree and messages without copying the long strings;
 * base64 weights decode bit for bit at every length; json_format_g9 is printf's %.9g. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "t.h"

/* A string of n base64-like characters (no quote, no backslash), seeded by c. */
static char *longstr(size_t n, char c)
{
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = "ABCxyz019+/"[(i * 7 + (size_t)c) % 11];
    s[n] = 0;
    return s;
}

/* json_parse_text(t) prints as cJSON's own parse of t prints. */
static void same_tree(const char *t, const char *what)
{
    char err[256] = "";
    cJSON *a = json_parse_text("t.json", t, strlen(t), err, sizeof err);
    cJSON *b = cJSON_ParseWithLength(t, strlen(t));
    CHECK(a && b, "%s: both parse (%s)", what, err);
    if (a && b) {
        char *pa = cJSON_PrintUnformatted(a), *pb = cJSON_PrintUnformatted(b);
        CHECK(pa && pb && strcmp(pa, pb) == 0, "%s: same tree", what);
        free(pa);
        free(pb);
    }
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* json_parse_text(t) fails with exactly want. */
static void fails_with(const char *t, const char *want, const char *what)
{
    char err[256] = "";
    cJSON *a = json_parse_text("t.json", t, strlen(t), err, sizeof err);
    CHECK(!a && strcmp(err, want) == 0, "%s: got \"%s\" want \"%s\"", what, err, want);
    cJSON_Delete(a);
}

/* t written to a file: json_parse_file_borrow gives cJSON's tree (its long strings inside the
 * file's buffer, not copies), or the very message json_parse_file gives. */
static void borrow_same(const char *t, const char *what)
{
    char path[64], e1[256] = "", e2[256] = "";
    snprintf(path, sizeof path, "/tmp/attend-test-json-%d.json", (int)getpid());
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "%s: temp file", what);
    if (!f)
        return;
    fwrite(t, 1, strlen(t), f);
    fclose(f);
    char *buf = NULL;
    size_t blen = 0;
    cJSON *a = json_parse_file_borrow(path, &buf, &blen, e1, sizeof e1);
    cJSON *c = json_parse_file(path, NULL, e2, sizeof e2);
    remove(path);
    CHECK(!a == !c && strcmp(e1, e2) == 0, "%s: same outcome (\"%s\" vs \"%s\")", what, e1, e2);
    if (a && c) {
        char *pa = cJSON_PrintUnformatted(a), *pc = cJSON_PrintUnformatted(c);
        CHECK(pa && pc && strcmp(pa, pc) == 0, "%s: same tree", what);
        free(pa);
        free(pc);
        size_t inside = 0, len = strlen(t); /* strings of 4096+ bytes point into buf */
        CHECK(blen == len, "%s: the buffer holds the file (%zu bytes, want %zu)", what, blen, len);
        const cJSON *stack[64];
        int top = 0;
        stack[top++] = a;
        while (top) {
            const cJSON *n = stack[--top];
            for (; n; n = n->next) {
                if (cJSON_IsString(n) && strlen(n->valuestring) >= 4096)
                    inside += n->valuestring > buf && n->valuestring < buf + len;
                if (n->child && top < 64)
                    stack[top++] = n->child;
            }
        }
        CHECK(inside > 0, "%s: long strings borrowed from the buffer", what);
    } else {
        CHECK(buf == NULL, "%s: no buffer after a failure", what);
    }
    cJSON_Delete(a);
    cJSON_Delete(c);
    free(buf);
}

/* n floats (bit patterns from seed, all finite, but an infinity or a NaN at index bad if
 * bad < n) written as base64 and read back: bit equal, or refused naming index bad. */
static void b64_read(size_t n, unsigned seed, size_t bad)
{
    float *x = malloc(sizeof *x * (n + 1)), *y = malloc(sizeof *y * (n + 1));
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        uint32_t u = seed ^ (seed >> 7) << 11;
        u &= ~(0xffu << 23) | (uint32_t)(seed % 254 + 1) << 23; /* exponent never all ones */
        memcpy(&x[i], &u, 4);
    }
    if (bad < n)
        x[bad] = bad % 2 ? INFINITY : NAN;
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    fprintf(f, "{\"shape\": [%zu], \"f32\": \"", n);
    json_write_f32_base64(f, x, n);
    fputs("\"}", f);
    fclose(f);
    char err[256] = "";
    cJSON *j = json_parse_text("t.json", text, tlen, err, sizeof err);
    y[n] = 7.0f; /* a guard after the last value: the decoder must not write past it */
    int rc = j ? json_read_matrix(j, y, 1, (int)n, "w", err, sizeof err) : -1;
    if (bad < n) {
        char want[64];
        snprintf(want, sizeof want, "\"w\" value %zu is not finite", bad);
        CHECK(rc == -1 && strcmp(err, want) == 0, "%zu floats, bad at %zu: \"%s\"", n, bad, err);
    } else {
        CHECK(rc == 0 && memcmp(x, y, sizeof *x * n) == 0 && y[n] == 7.0f,
              "%zu floats decode bit for bit (%s)", n, err);
    }
    cJSON_Delete(j);
    free(text);
    free(x);
    free(y);
}

/* json_format_g9(v) is snprintf's "%.9g" of v, byte for byte; counts the values tried. */
static int g9_mismatches, g9_tried;
static void g9_same(float v)
{
    char a[32], b[32];
    json_format_g9(a, v);
    snprintf(b, sizeof b, "%.9g", (double)v);
    g9_tried++;
    if (strcmp(a, b) && g9_mismatches++ < 5)
        fprintf(stderr, "g9: %a gives \"%s\", printf \"%s\"\n", (double)v, a, b);
}

static void g9_checks(void)
{
    unsigned s = 12345;
    for (int i = 0; i < 150000; i++) { /* any bits: every exponent, subnormals, inf, nan */
        s = s * 1103515245u + 12345u;
        uint32_t u = s ^ (s >> 15) << 7;
        float v;
        memcpy(&v, &u, 4);
        g9_same(v);
    }
    for (int i = 0; i < 150000; i++) { /* the usual magnitudes, 1e-14 .. 1e16, both signs */
        s = s * 1103515245u + 12345u;
        double x = pow(10.0, -14.0 + 30.0 * (s >> 8) / 16777216.0);
        g9_same((float)((s & 1) ? -x : x));
    }
    for (int p = -13; p <= 16; p++) { /* around every power of ten and 9.99999999 10^p */
        float c[2] = {(float)pow(10.0, p), (float)(9.999999995 * pow(10.0, p))};
        for (int j = 0; j < 2; j++) {
            float v = c[j];
            for (int n = 0; n < 40; n++)
                v = nextafterf(v, 0.0f);
            for (int n = 0; n < 80; n++, v = nextafterf(v, INFINITY))
                g9_same(v);
        }
    }
    /* Exact ties at the ninth digit (a float with ten digits ending in 5): half to even. */
    for (uint32_t m = 100000001u; m < 100000001u + 4000u; m += 2) {
        g9_same((float)(m * 5.0 / 8.0)); /* some are exact: 10 digits ending in 5, or near */
        g9_same((float)(m / 1024.0));
    }
    g9_same(0.0f);
    g9_same(-0.0f);
    g9_same(1234567.875f);
    g9_same(-1234567.625f);
    CHECK(g9_mismatches == 0, "json_format_g9 differs from %%.9g on %d of %d values",
          g9_mismatches, g9_tried);
}

int main(void)
{
    char *l1 = longstr(5000, 'a'), *l2 = longstr(9000, 'b'), *l3 = longstr(4096, 'c');
    size_t cap = 64000;
    char *t = malloc(cap);

    /* Long values in an object, an array, after escaped strings, beside a long key. */
    snprintf(t, cap,
             "{\"a\\\"b\": \"x\\\\\", \"w\": {\"shape\": [2], \"f32\": \"%s\"},\n"
             " \"list\": [\"%s\", \"short\", \"%s\"], \"%s\": \"%s\", \"n\": [1, {\"k\": \"%s\"}]}",
             l1, l2, l3, l1, l2, l3);
    same_tree(t, "long strings everywhere");
    snprintf(t, cap, "\"%s\"", l2);
    same_tree(t, "a long string alone");
    snprintf(t, cap, "[\"%s\\n%s\", \"%s\"]", l1, l3, l2);
    same_tree(t, "a long string with an escape beside one without");

    /* Errors after a lifted string: the column counts the string's bytes. */
    snprintf(t, cap, "{\"w\": \"%s\" \"v\": 1}", l1);
    char want[128];
    snprintf(want, sizeof want, "t.json:1:%d: JSON syntax error at a '\"'", 7 + 5000 + 3);
    fails_with(t, want, "missing comma after a long string");
    snprintf(t, cap, "{\"w\": [\"%s\",\n \"%s\"]] }", l1, l2);
    snprintf(want, sizeof want, "t.json:2:%d: JSON syntax error at ']'", 2 + 9000 + 3);
    fails_with(t, want, "a stray ] on the next line");
    snprintf(t, cap, "{\"w\": \"%s\"} x", l2);
    snprintf(want, sizeof want,
             "t.json:1:%d: JSON syntax error: text after the end of the value", 7 + 9000 + 4);
    fails_with(t, want, "text after the value");
    snprintf(t, cap, "{\"w\": \"%s", l3);
    fails_with(t, "t.json:1:8: JSON syntax error at a letter (a word that is not a JSON value, or a "
                  "missing quote)", "an unclosed long string");

    /* The same through json_parse_file_borrow, and its errors: text after the value on a later
     * line counts lines past the long strings (the NUL it writes must come after). */
    snprintf(t, cap, "{\"a\": \"%s\",\n \"list\": [\"%s\", \"x\\\"y\", \"%s\"],\n \"%s\": 1}", l1,
             l2, l3, l1);
    borrow_same(t, "borrowed strings");
    snprintf(t, cap, "{\"a\": \"%s\",\n \"b\": \"%s\"}\n\n x", l1, l2);
    borrow_same(t, "borrow: text after the value");
    snprintf(t, cap, "{\"a\": \"%s\",\n \"b\": \"%s\"", l1, l2);
    borrow_same(t, "borrow: unexpected end");

    /* Every length around the decoder's 8-character steps and its tail. */
    for (size_t n = 0; n <= 40; n++)
        b64_read(n, (unsigned)n * 7919u + 1u, n);
    b64_read(4099, 5u, 4099);
    /* A value that is not finite is named by its index, inside or after a vector's block. */
    size_t bads[] = {0, 1, 7, 8, 9, 15, 16, 33, 4090, 4098};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++)
        b64_read(4099, 11u, bads[i]);
    b64_read(20, 3u, 19);

    g9_checks();

    free(t);
    free(l1);
    free(l2);
    free(l3);
    return t_done("json");
}
