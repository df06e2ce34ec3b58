/* class_client.c - the student's side of the classroom protocol: hello and answer lines
 * built, the room's messages read into the student's state and into plain text, every
 * string escaped (safetext_escape) before it is shown. */
#include "class_client.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safetext.h"

void class_client_hello(const char *code, const char *name, const char *token, char *out,
                        size_t n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "t", "hello");
    cJSON_AddNumberToObject(o, "v", CLASS_PROTO_VERSION);
    cJSON_AddStringToObject(o, "code", code);
    if (name)
        cJSON_AddStringToObject(o, "name", name);
    if (token && token[0])
        cJSON_AddStringToObject(o, "token", token);
    char *s = cJSON_PrintUnformatted(o);
    snprintf(out, n, "%s", s ? s : "");
    free(s);
    cJSON_Delete(o);
}

void class_client_answer(int q, const char *answer, char *out, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "t", "answer");
    cJSON_AddNumberToObject(o, "q", q);
    cJSON_AddStringToObject(o, "a", answer);
    char *s = cJSON_PrintUnformatted(o);
    snprintf(out, n, "%s", s ? s : "");
    free(s);
    cJSON_Delete(o);
}

/* Appends to out: the format, with every %s argument already escaped by the caller. */
static void put(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *out, size_t n, const char *fmt, ...)
{
    size_t l = strlen(out);
    if (l + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + l, n - l, fmt, ap);
    va_end(ap);
}

/* The string field key of o, escaped for the terminal, in buf ("" when absent or not a
 * string). */
static const char *str(const cJSON *o, const char *key, char *buf, size_t n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    buf[0] = '\0';
    if (cJSON_IsString(v))
        safetext_escape(v->valuestring, buf, n);
    return buf;
}

static int num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e6 ? (int)v->valuedouble
                                                                            : 0;
}

static void question(ClassClient *c, const cJSON *o, char *out, size_t n)
{
    char b[2600];
    c->q = num(o, "q");
    c->n = num(o, "n");
    c->open = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "open"));
    c->answered = 0;
    put(out, n, "\nQuestion %d of %d\n", c->q, c->n);
    if (str(o, "lead", b, sizeof b)[0])
        put(out, n, "%s\n", b);
    put(out, n, "%s\n", str(o, "prompt", b, sizeof b));
    if (str(o, "setup", b, sizeof b)[0])
        put(out, n, "Setup: %s\n", b);
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "grid"), *e;
    cJSON_ArrayForEach(e, g) if (cJSON_IsString(e))
        put(out, n, "  %s\n", safetext_escape(e->valuestring, b, sizeof b));
    const cJSON *ch = cJSON_GetObjectItemCaseSensitive(o, "choices");
    int k = 0;
    cJSON_ArrayForEach(e, ch) if (cJSON_IsString(e) && k < 26)
        put(out, n, "  %c) %s\n", 'a' + k++, safetext_escape(e->valuestring, b, sizeof b));
    str(o, "how", c->how, sizeof c->how);
    if (str(o, "answered", b, sizeof b)[0]) {
        c->answered = 1;
        put(out, n, "You answered %s; wait for the reveal.\n", b);
    } else if (c->open) {
        put(out, n, "Answer with %s:\n", c->how);
    }
}

int class_client_line(ClassClient *c, const char *line, size_t len, char *out, size_t n)
{
    char b[2600], m[600];
    out[0] = '\0';
    cJSON *o = cJSON_ParseWithLength(line, len);
    const cJSON *tv = cJSON_GetObjectItemCaseSensitive(o, "t");
    if (!cJSON_IsObject(o) || !cJSON_IsString(tv)) {
        put(out, n, "the room sent something that is not the classroom protocol\n");
        cJSON_Delete(o);
        return -1;
    }
    const char *t = tv->valuestring;
    int rc = 0;
    snprintf(c->last, sizeof c->last, "%s", t);
    if (!strcmp(t, "welcome")) {
        c->joined = 1;
        const cJSON *tok = cJSON_GetObjectItemCaseSensitive(o, "token");
        if (cJSON_IsString(tok) && strlen(tok->valuestring) == CLASS_TOKEN_LEN &&
            strspn(tok->valuestring, "0123456789abcdef") == CLASS_TOKEN_LEN)
            snprintf(c->token, sizeof c->token, "%s", tok->valuestring);
        str(o, "name", c->name, sizeof c->name);
        c->score = num(o, "score");
        int re = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "rejoined"));
        put(out, n, "%s %s as %s: %s, %d question%s%s\n", re ? "Rejoined" : "Joined",
            "the class quiz", c->name, str(o, "title", b, sizeof b), num(o, "n"),
            num(o, "n") == 1 ? "" : "s", re ? "" : ".");
        if (re)
            put(out, n, "Your score so far: %d.\n", c->score);
    } else if (!strcmp(t, "question")) {
        question(c, o, out, n);
    } else if (!strcmp(t, "ack")) {
        c->answered = 1;
        put(out, n, "Answer recorded: %s. Wait for the reveal.\n", str(o, "a", b, sizeof b));
    } else if (!strcmp(t, "invalid")) {
        put(out, n, "! %s\n", str(o, "msg", m, sizeof m));
        if (c->open && !c->answered)
            put(out, n, "Answer with %s:\n", c->how);
    } else if (!strcmp(t, "closed")) {
        c->open = 0;
        put(out, n, "Answers are closed%s.\n", c->answered ? "" : " (you did not answer)");
    } else if (!strcmp(t, "reveal")) {
        c->open = 0;
        c->score = num(o, "score");
        const char *you = str(o, "you", m, sizeof m);
        put(out, n, "Answer: %s\n", str(o, "answer", b, sizeof b));
        if (str(o, "explain", b, sizeof b)[0])
            put(out, n, "%s\n", b);
        put(out, n, "You: %s. Score: %d of %d.\n",
            !strcmp(you, "right") ? "right" : !strcmp(you, "wrong") ? "wrong" : "no answer",
            c->score, num(o, "asked"));
    } else if (!strcmp(t, "end")) {
        c->open = 0;
        c->ended = 1;
        c->score = num(o, "score");
        put(out, n, "\nThe quiz is over. Your score: %d of %d.\n", c->score, num(o, "n"));
        rc = 1;
    } else if (!strcmp(t, "error")) {
        put(out, n, "The room says: %s\n", str(o, "msg", m, sizeof m));
        rc = -1;
    } /* an unknown message from a newer room: nothing to show */
    cJSON_Delete(o);
    return rc;
}
