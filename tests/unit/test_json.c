/* test_json.c - json_parse_text gives the tree cJSON gives (long strings lifted out before the
 * parse and put back after), and its syntax errors name the line:col of the original text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

    free(t);
    free(l1);
    free(l2);
    free(l3);
    return t_done("json");
}
