/* lab_show.c - the file `attend lab watch` leaves in the state directory after every check,
 * and the player's lab page reads: the verdict in one line and one case's matrix, the
 * learner's beside the engine's (format in docs/labs.md). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "errf.h"
#include "fileio.h"
#include "lab.h"

#define SHOW_MAX 64 /* rows and columns kept of a matrix */
#define SHOW_FILE_MAX ((size_t)1 << 20)

int lab_show_path(const char *name, char *out, size_t outlen, char *err, size_t errlen)
{
    const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    if (x && x[0] == '/')
        snprintf(out, outlen, "%s/attend/lab-%s.show", x, name);
    else if (home && *home)
        snprintf(out, outlen, "%s/.local/state/attend/lab-%s.show", home, name);
    else
        return errf(err, errlen, "neither XDG_STATE_HOME nor HOME is set");
    return 0;
}

typedef struct {
    char *s;
    size_t len, cap;
    int oom;
} SBuf;

static void add(SBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(SBuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0 || b->oom)
        return;
    size_t n = (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1;
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, tmp, n);
    b->len += n;
    b->s[b->len] = '\0';
}

/* The 2-D view of a (first slice of a 3-D array, a 1-D as one row), cut to SHOW_MAX. */
static void add_matrix(SBuf *b, const char *tag, const LabArray *a)
{
    int rows = a->ndim == 1 ? 1 : a->dim[a->ndim - 2], cols = a->dim[a->ndim - 1];
    int r = rows < SHOW_MAX ? rows : SHOW_MAX, c = cols < SHOW_MAX ? cols : SHOW_MAX;
    add(b, "%s %d %d\n", tag, r, c);
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++)
            add(b, "%.6g%s", a->v[(size_t)i * cols + j], i == r - 1 && j == c - 1 ? "\n" : " ");
    if (!r || !c)
        add(b, "\n");
}

/* One line of text, control characters replaced. */
static void add_line(SBuf *b, const char *key, const char *text)
{
    char buf[320];
    size_t k = 0;
    for (; text[k] && k < sizeof buf - 1; k++)
        buf[k] = (unsigned char)text[k] < 0x20 ? ' ' : text[k];
    buf[k] = '\0';
    add(b, "%s %s\n", key, buf);
}

int lab_show_write(const char *path, const LabDef *d, const char *file, const LabCheck *c,
                   char *err, size_t errlen)
{
    SBuf b = {NULL, 0, 0, 0};
    const LabVerdict *v = &c->verdict;
    const char *status = !c->ran ? "error" : v->pass ? "pass" : "fail";
    add(&b, "attend-lab-show 1\nlab %s\nstatus %s\nwhen %.0f\n", d->name, status,
        (double)time(NULL));
    add_line(&b, "file", file);
    char line[64];
    snprintf(line, sizeof line, "all %d cases right", c->cases.n_cases);
    add_line(&b, "line", !c->ran ? c->problem : v->pass ? line : v->message);
    if (c->ran && v->mistake) { /* its id and first sentence */
        char dg[320];
        const char *w = v->mistake->words, *dot = strstr(w, ": ");
        const char *stop = strstr(w, ". ");
        size_t n = stop ? (size_t)(stop - w) + 1 : strlen(w);
        (void)dot;
        snprintf(dg, sizeof dg, "%s: %.*s", v->mistake->id, (int)(n < 280 ? n : 280), w);
        add_line(&b, "diagnosis", dg);
    }
    int ci = c->ran ? (v->pass ? 0 : v->wrong_case) : -1;
    const LabGot *g = ci >= 0 && ci < c->result.n_cases ? &c->result.got[ci] : NULL;
    if (g && g->ok) {
        const LabCase *cs = &c->cases.cases[ci];
        int k = cs->n_outs - 1; /* the weights when there are some, else the wrong output */
        if (k >= g->n_outs || g->outs[k].ndim != cs->want[k].ndim ||
            memcmp(g->outs[k].dim, cs->want[k].dim, sizeof g->outs[k].dim))
            k = v->pass ? -1 : v->wrong_out;
        if (k >= 0 && k < g->n_outs && g->outs[k].ndim == cs->want[k].ndim &&
            !memcmp(g->outs[k].dim, cs->want[k].dim, sizeof g->outs[k].dim)) {
            add(&b, "what case %d: %s\n", ci + 1, cs->want[k].name);
            add_matrix(&b, "got", &g->outs[k]);
            add_matrix(&b, "want", &cs->want[k]);
        }
    }
    if (b.oom) {
        free(b.s);
        return errf(err, errlen, "out of memory");
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *sl = dir + 1; (sl = strchr(sl, '/')); sl++) { /* the state directory, 0700 */
        *sl = '\0';
        if (mkdir(dir, 0700) && errno != EEXIST)
            break;
        *sl = '/';
    }
    int rc = fileio_write_file(path, 0600, b.s, b.len, err, errlen);
    free(b.s);
    return rc;
}

/* "TAG R C" then R·C numbers on the next line. */
static int read_matrix(char **p, const char *tag, LabArray *a)
{
    int r, c, used = 0;
    char fmt[32];
    snprintf(fmt, sizeof fmt, "%s %%d %%d%%n", tag);
    if (sscanf(*p, fmt, &r, &c, &used) != 2 || r < 0 || c < 0 || r > SHOW_MAX || c > SHOW_MAX)
        return -1;
    char *nl = strchr(*p, '\n');
    if (!nl || lab_array_alloc(a, tag, 2, r, c, 0))
        return -1;
    char *q = nl + 1;
    for (size_t i = 0; i < a->len; i++) {
        char *e;
        a->v[i] = strtod(q, &e);
        if (e == q)
            return -1;
        q = e;
    }
    nl = strchr(q, '\n');
    *p = nl ? nl + 1 : q + strlen(q);
    return 0;
}

/* The value after "KEY " on the line at *p into out; advances *p. 0 or -1. */
static int read_kv(char **p, const char *key, char *out, size_t n)
{
    size_t k = strlen(key);
    if (strncmp(*p, key, k) || (*p)[k] != ' ')
        return -1;
    char *s = *p + k + 1, *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), s);
    *p = nl ? nl + 1 : s + len;
    return 0;
}

int lab_show_read(const char *path, LabShow *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    char *text = NULL, when[32], lab[32];
    size_t len;
    if (fileio_read(path, SHOW_FILE_MAX, &text, &len, err, errlen))
        return -1;
    char *p = text;
    int rc = -1;
    if (strncmp(p, "attend-lab-show 1\n", 18))
        goto bad;
    p += 18;
    if (read_kv(&p, "lab", lab, sizeof lab) || read_kv(&p, "status", s->status, sizeof s->status) ||
        read_kv(&p, "when", when, sizeof when) || read_kv(&p, "file", s->file, sizeof s->file) ||
        read_kv(&p, "line", s->line, sizeof s->line))
        goto bad;
    s->when = strtod(when, NULL);
    read_kv(&p, "diagnosis", s->diagnosis, sizeof s->diagnosis); /* optional */
    if (!read_kv(&p, "what", s->what, sizeof s->what)) {
        if (read_matrix(&p, "got", &s->got) || read_matrix(&p, "want", &s->want) ||
            s->got.dim[0] != s->want.dim[0] || s->got.dim[1] != s->want.dim[1])
            goto bad;
        s->have = 1;
    }
    rc = 0;
bad:
    if (rc) {
        lab_show_free(s);
        errf(err, errlen, "%s: not a lab show file", path);
    }
    free(text);
    return rc;
}

void lab_show_free(LabShow *s)
{
    lab_array_free(&s->got);
    lab_array_free(&s->want);
    s->have = 0;
}
