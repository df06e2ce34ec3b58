/* opts.c - the one table-driven parser of the player's and every subcommand's options (opts.h). */
#include "opts.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int opts_usage_error(const char *prog, const char *usage, const char *msg)
{
    fprintf(stderr, "%s: %s\n", prog, msg);
    if (usage)
        fprintf(stderr, "%s\n", usage);
    return 2;
}

/* 1 when w is one of the space-separated words. */
static int is_word(const char *words, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = words; *p;) {
        const char *e = strchr(p, ' ');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (n && len == n && !strncmp(p, w, n))
            return 1;
        p += len + (e ? 1 : 0);
    }
    return 0;
}

/* "a or b", "one of a, b, c" (the words of an OPT_WORD, for its message). */
static void say_words(const char *words, char *out, size_t n)
{
    int count = 1;
    for (const char *p = words; *p; p++)
        count += *p == ' ';
    size_t k = (size_t)snprintf(out, n, "%s", count > 2 ? "one of " : "");
    int i = 0;
    for (const char *p = words; *p && k < n; i++) {
        const char *e = strchr(p, ' ');
        int len = e ? (int)(e - p) : (int)strlen(p);
        const char *sep = !i ? "" : count == 2 ? " or " : ", ";
        k += (size_t)snprintf(out + k, n - k, "%s%.*s", sep, len, p);
        p += len + (e ? 1 : 0);
    }
}

/* Stores value v of option o. 0, or 2 with the message printed. */
static int store(const Opt *o, const char *v, const char *prog)
{
    char msg[400], *end;
    errno = 0;
    switch (o->kind) {
    case OPT_TEXT:
        *(const char **)o->dst = v;
        return 0;
    case OPT_INT: {
        long x = strtol(v, &end, 10);
        if (!errno && end != v && !*end && x >= o->lo && x <= o->hi) {
            *(long *)o->dst = x;
            return 0;
        }
        snprintf(msg, sizeof msg, "%s needs a whole number from %.0f to %.0f, not \"%s\"",
                 o->name, o->lo, o->hi, v);
        break;
    }
    case OPT_U64: {
        unsigned long long x = strtoull(v, &end, 10);
        if (!errno && end != v && !*end && *v != '-' && *v != '+') {
            *(unsigned long long *)o->dst = x;
            return 0;
        }
        snprintf(msg, sizeof msg, "%s needs a whole number from 0 to 18446744073709551615, "
                 "not \"%s\"", o->name, v);
        break;
    }
    case OPT_REAL: {
        double x = strtod(v, &end);
        if (!errno && end != v && !*end && isfinite(x) && x <= o->hi &&
            (o->lo == 0.0 ? x > 0.0 : x >= o->lo)) {
            *(double *)o->dst = x;
            return 0;
        }
        if (o->lo == 0.0)
            snprintf(msg, sizeof msg, "%s needs a number above 0 and at most %g, not \"%s\"",
                     o->name, o->hi, v);
        else
            snprintf(msg, sizeof msg, "%s needs a number from %g to %g, not \"%s\"", o->name,
                     o->lo, o->hi, v);
        break;
    }
    case OPT_WORD: {
        if (is_word(o->words, v)) {
            *(const char **)o->dst = v;
            return 0;
        }
        char w[200];
        say_words(o->words, w, sizeof w);
        snprintf(msg, sizeof msg, "%s is %s, not \"%s\"", o->name, w, v);
        break;
    }
    case OPT_MULTI:
        if (*o->count < o->max) {
            ((const char **)o->dst)[(*o->count)++] = v;
            return 0;
        }
        snprintf(msg, sizeof msg, "at most %d %s options", o->max, o->name);
        break;
    default:
        return 0;
    }
    return opts_usage_error(prog, NULL, msg);
}

int opts_parse(const Opt *opts, int n, int argc, char **argv, const char *prog,
               const char *usage)
{
    char msg[300];
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("%s\n", usage);
            return 0;
        }
        const Opt *o = NULL;
        int named = a[0] == '-' && a[1];
        for (int k = 0; k < n && !o; k++) {
            if (named ? opts[k].kind != OPT_ARG && !strcmp(opts[k].name, a)
                      : opts[k].kind == OPT_ARG && !*(const char **)opts[k].dst)
                o = &opts[k];
        }
        if (!o) {
            snprintf(msg, sizeof msg, named ? "unknown option \"%s\"" : "unexpected argument \"%s\"",
                     a);
            return opts_usage_error(prog, usage, msg);
        }
        if (o->kind == OPT_ARG) {
            *(const char **)o->dst = a;
        } else if (o->kind == OPT_FLAG) {
            *(int *)o->dst = 1;
        } else if (i + 1 >= argc) {
            snprintf(msg, sizeof msg, "%s needs a value", a);
            return opts_usage_error(prog, usage, msg);
        } else if (store(o, argv[++i], prog)) {
            return 2;
        }
        if (o->count && o->kind != OPT_MULTI)
            ++*o->count;
    }
    return -1;
}
