/* placeholder_cond.c - the prose around the values: {{if COND}} / {{elif}} / {{else}} / {{end}}
 * blocks, {{assert COND}} guards and the conditions they test ("argmax 5 == 2 and ties 5 == 1"),
 * expanded on one run (placeholder_expand) or checked without one (placeholder_syntax). The
 * values themselves are placeholder.c's. Syntax in docs/lessons.md. Never prints. */
#include "placeholder.h"
#include "errf.h"
#include "placeholder_out.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COND_MAX_CLAUSES 8
#define COND_TERM 160
#define BLOCK_DEPTH 8

enum { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };
static const char *const OPS[] = {"==", "!=", "<", "<=", ">", ">="};

/* One comparison: [not] lhs OP rhs; conn joins it to the clause before (0, 'a'nd, 'o'r). */
typedef struct {
    int neg, op, conn;
    char lhs[COND_TERM], rhs[COND_TERM];
    int lq, rq; /* 1: the side is a quoted word, compared as written */
} Clause;


static int op_of(const char *w)
{
    for (int i = 0; i < (int)(sizeof OPS / sizeof OPS[0]); i++)
        if (!strcmp(w, OPS[i]))
            return i;
    return -1;
}

/* Appends word w to term t (space separated); -1 when it does not fit. */
static int term_add(char *t, const char *w, size_t wl)
{
    size_t l = strlen(t);
    if (l + wl + 2 > COND_TERM)
        return -1;
    if (l)
        t[l++] = ' ';
    memcpy(t + l, w, wl);
    t[l + wl] = 0;
    return 0;
}

static int is_number(const char *s, double *v)
{
    char *end;
    if (!strcmp(s, "-inf") || !strcmp(s, "\xe2\x88\x92\xe2\x88\x9e")) {
        *v = -INFINITY;
        return 1;
    }
    if (!strcmp(s, "inf") || !strcmp(s, "\xe2\x88\x9e")) {
        *v = INFINITY;
        return 1;
    }
    *v = strtod(s, &end);
    return end != s && !*end && !isnan(*v);
}

/* Parses cond into clauses; checks every unquoted, non-numeric side as a placeholder body. */
static int cond_parse(const char *cond, Clause *cl, int *n, char *err, size_t errlen)
{
    *n = 0;
    const char *p = cond;
    int side = 0, conn = 0; /* side 0: before the operator, 1: after */
    Clause *c = NULL;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        const char *w = p;
        size_t wl;
        int quoted = 0;
        if (*p == '\'' || *p == '"') {
            const char *q = strchr(p + 1, *p);
            if (!q)
                return errf(err, errlen, "unclosed quote in \"%s\"", cond);
            w = p + 1;
            wl = (size_t)(q - w);
            p = q + 1;
            quoted = 1;
        } else {
            while (*p && *p != ' ' && *p != '\t')
                p++;
            wl = (size_t)(p - w);
        }
        char word[COND_TERM];
        if (wl >= sizeof word)
            return errf(err, errlen, "a word too long in \"%s\"", cond);
        memcpy(word, w, wl);
        word[wl] = 0;
        if (!quoted && (!strcmp(word, "and") || !strcmp(word, "or"))) {
            if (!c || side == 0 || !c->rhs[0])
                return errf(err, errlen, "\"%s\" must join two comparisons in \"%s\"", word,
                            cond);
            conn = word[0];
            c = NULL;
            continue;
        }
        if (!c) {
            if (*n >= COND_MAX_CLAUSES)
                return errf(err, errlen, "more than %d comparisons in \"%s\"", COND_MAX_CLAUSES,
                            cond);
            c = &cl[(*n)++];
            memset(c, 0, sizeof *c);
            c->conn = conn;
            c->op = -1;
            side = 0;
            if (!quoted && !strcmp(word, "not")) {
                c->neg = 1;
                continue;
            }
        }
        int op = quoted ? -1 : op_of(word);
        if (op >= 0) {
            if (side == 1)
                return errf(err, errlen, "two comparisons without and/or in \"%s\"", cond);
            if (!c->lhs[0])
                return errf(err, errlen, "nothing before %s in \"%s\"", word, cond);
            c->op = op;
            side = 1;
            continue;
        }
        char *t = side ? c->rhs : c->lhs;
        int *tq = side ? &c->rq : &c->lq;
        if (quoted && t[0])
            return errf(err, errlen, "a quoted word must stand alone on its side in \"%s\"",
                        cond);
        if (*tq)
            return errf(err, errlen, "a quoted word must stand alone on its side in \"%s\"",
                        cond);
        if (term_add(t, word, wl))
            return errf(err, errlen, "a side too long in \"%s\"", cond);
        *tq = quoted;
    }
    if (*n == 0)
        return errf(err, errlen, "an empty condition");
    for (int i = 0; i < *n; i++) {
        Clause *k = &cl[i];
        if (k->op < 0)
            return errf(err, errlen, "\"%s\" needs a comparison: ==, !=, <, <=, > or >=", cond);
        if (!k->rhs[0] && !k->rq)
            return errf(err, errlen, "nothing after %s in \"%s\"", OPS[k->op], cond);
        const char *sides[2] = {k->lhs, k->rhs};
        int q[2] = {k->lq, k->rq};
        for (int s = 0; s < 2; s++) {
            double v;
            char e2[300];
            if (!q[s] && !is_number(sides[s], &v) && placeholder_check(sides[s], e2, sizeof e2))
                return errf(err, errlen, "in \"%s\": %s", cond, e2);
        }
    }
    if (conn && !c)
        return errf(err, errlen, "a condition cannot end in and/or: \"%s\"", cond);
    return 0;
}

/* The value of one side as the reader sees it (ASCII); 1 present, 0 absent, -1 error. */
static int side_value(const char *t, int quoted, const PlaceholderCtx *ctx, char *out,
                      size_t outlen, char *err, size_t errlen)
{
    double v;
    if (quoted || is_number(t, &v)) {
        snprintf(out, outlen, "%s", t);
        return 1;
    }
    PlaceholderCtx c = *ctx;
    c.ascii = 1;
    int rc = placeholder_value(t, &c, out, outlen, err, errlen);
    if (rc == PLACEHOLDER_ABSENT)
        return 0;
    return rc ? -1 : 1;
}

/* One clause on ctx: *truth; why says what the sides were. 0 or -1. */
static int clause_eval(const Clause *k, const PlaceholderCtx *ctx, int *truth, char *why,
                       size_t whylen, char *err, size_t errlen)
{
    char a[256], b[256];
    int ra = side_value(k->lhs, k->lq, ctx, a, sizeof a, err, errlen);
    if (ra < 0)
        return -1;
    int rb = ra ? side_value(k->rhs, k->rq, ctx, b, sizeof b, err, errlen) : 0;
    if (rb < 0)
        return -1;
    if (!ra || !rb) {
        *truth = 0; /* past the end of a shorter sentence: no comparison holds */
        snprintf(why, whylen, "%s is past the end of the sentence", ra ? k->rhs : k->lhs);
        return 0;
    }
    if (k->lq || k->rq) /* a quoted word is its own value */
        snprintf(why, whylen, "%s is %s", k->lq ? k->rhs : k->lhs, k->lq ? b : a);
    else
        snprintf(why, whylen, "%s is %s, %s is %s", k->lhs, a, k->rhs, b);
    double x, y;
    int c;
    if (!k->lq && !k->rq && is_number(a, &x) && is_number(b, &y)) {
        c = x < y ? -1 : x > y ? 1 : 0;
    } else {
        if (k->op != OP_EQ && k->op != OP_NE)
            return errf(err, errlen, "%s: \"%s\" and \"%s\" are not both numbers", OPS[k->op],
                        a, b);
        c = strcmp(a, b) != 0;
    }
    int t = 0;
    switch (k->op) {
    case OP_EQ: t = c == 0; break;
    case OP_NE: t = c != 0; break;
    case OP_LT: t = c < 0; break;
    case OP_LE: t = c <= 0; break;
    case OP_GT: t = c > 0; break;
    default: t = c >= 0; break;
    }
    *truth = k->neg ? !t : t;
    return 0;
}

/* cond on ctx; why (may be NULL) names the sides of the last comparison that decided. */
static int cond_eval(const char *cond, const PlaceholderCtx *ctx, int *truth, char *why,
                     size_t whylen, char *err, size_t errlen)
{
    Clause cl[COND_MAX_CLAUSES];
    int n;
    char w[900] = "";
    if (cond_parse(cond, cl, &n, err, errlen))
        return -1;
    /* "or" of "and"s, left to right, each side evaluated only when it decides something */
    int any = 0, all = 1;
    for (int i = 0; i < n; i++) {
        if (cl[i].conn == 'o') {
            any |= all;
            all = 1;
        }
        if (any || !all)
            continue;
        int t = 0;
        if (clause_eval(&cl[i], ctx, &t, w, sizeof w, err, errlen))
            return -1;
        all = t;
    }
    *truth = any | all;
    if (why && whylen)
        snprintf(why, whylen, "%s", w);
    return 0;
}

int placeholder_condition(const char *cond, const PlaceholderCtx *ctx, int *truth, char *err,
                          size_t errlen)
{
    return cond_eval(cond, ctx, truth, NULL, 0, err, errlen);
}

/* ---- the walk over a text: plain runs and {{...}} tags ---- */


enum { TAG_TEXT, TAG_OPEN, TAG_VALUE, TAG_IF, TAG_ELIF, TAG_ELSE, TAG_END, TAG_ASSERT };

/* The next piece of text from *p: plain text up to a "{{" (len bytes), a tag with its body
 * (the condition after if/elif/assert in *arg), or an unclosed "{{" (TAG_OPEN). */
typedef struct {
    int kind;
    const char *at;  /* where it starts */
    size_t len;      /* bytes it covers */
    char body[256];  /* a tag's text between the braces */
    const char *arg; /* into body: the condition */
} Piece;

static int next_piece(const char *p, Piece *pc)
{
    if (!*p)
        return 0;
    pc->at = p;
    pc->arg = "";
    const char *open = strstr(p, "{{");
    if (open != p) {
        pc->kind = TAG_TEXT;
        pc->len = open ? (size_t)(open - p) : strlen(p);
        return 1;
    }
    const char *close = strstr(p + 2, "}}"), *nl = strchr(p + 2, '\n');
    if (!close || (nl && nl < close)) {
        pc->kind = TAG_OPEN;
        pc->len = 2;
        return 1;
    }
    size_t blen = (size_t)(close - p - 2);
    if (blen >= sizeof pc->body)
        blen = sizeof pc->body - 1;
    memcpy(pc->body, p + 2, blen);
    pc->body[blen] = 0;
    pc->len = (size_t)(close + 2 - p);
    char *b = pc->body;
    while (*b == ' ')
        b++;
    size_t wl = strcspn(b, " \t");
    static const struct { const char *w; int kind; } WORDS[] = {
        {"if", TAG_IF}, {"elif", TAG_ELIF}, {"else", TAG_ELSE}, {"end", TAG_END},
        {"assert", TAG_ASSERT},
    };
    pc->kind = TAG_VALUE;
    for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++)
        if (wl == strlen(WORDS[i].w) && !strncmp(b, WORDS[i].w, wl)) {
            pc->kind = WORDS[i].kind;
            pc->arg = b + wl + strspn(b + wl, " \t");
        }
    return 1;
}

/* What a walk over blocks keeps per open {{if}}. */
typedef struct {
    int parent;  /* 1: the text around the block is shown */
    int taking;  /* 1: the current branch is shown (when parent is) */
    int taken;   /* 1: a branch has been chosen */
    int in_else; /* 1: after {{else}} */
    size_t off;
} Level;

typedef struct {
    const char *prose;
    PlaceholderFail *fails;
    int max, n;
} Fails;

static void add_fail(Fails *f, const char *at, const char *fmt, ...)
{
    if (f->fails && f->n < f->max) {
        PlaceholderFail *x = &f->fails[f->n];
        x->off = (size_t)(at - f->prose);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(x->msg, sizeof x->msg, fmt, ap);
        va_end(ap);
    }
    f->n++;
}

/* The structural part shared by the expansion and the syntax check: applies an if / elif /
 * else / end piece to the stack (truth: the condition's value when it was evaluated).
 * Returns 0, or -1 after recording the problem. */
static int block_step(Level *lv, int *depth, const Piece *pc, int active, int truth, Fails *f)
{
    Level *top = *depth ? &lv[*depth - 1] : NULL;
    switch (pc->kind) {
    case TAG_IF:
        if (*depth >= BLOCK_DEPTH) {
            add_fail(f, pc->at, "{{if}} blocks nested deeper than %d", BLOCK_DEPTH);
            return -1;
        }
        lv[(*depth)++] = (Level){active, truth, truth, 0, (size_t)(pc->at - f->prose)};
        return 0;
    case TAG_ELIF:
    case TAG_ELSE:
        if (!top || top->in_else) {
            add_fail(f, pc->at, "{{%s}} %s", pc->kind == TAG_ELIF ? "elif" : "else",
                     top ? "after {{else}}" : "without {{if}}");
            return -1;
        }
        top->taking = !top->taken && (pc->kind == TAG_ELSE || truth);
        top->taken |= top->taking;
        top->in_else = pc->kind == TAG_ELSE;
        return 0;
    default: /* TAG_END */
        if (!top) {
            add_fail(f, pc->at, "{{end}} without {{if}}");
            return -1;
        }
        (*depth)--;
        return 0;
    }
}

static int block_active(const Level *lv, int depth)
{
    return depth == 0 || (lv[depth - 1].parent && lv[depth - 1].taking);
}

int placeholder_expand_fails(const char *prose, const PlaceholderCtx *ctx, char *out,
                             size_t outlen, PlaceholderFail *fails, int max, int *n_fails)
{
    Out o = {out, 0, outlen, 0};
    Fails f = {prose, fails, max, 0};
    Level lv[BLOCK_DEPTH];
    int depth = 0;
    if (outlen)
        out[0] = 0;
    Piece pc;
    for (const char *p = prose; next_piece(p, &pc); p += pc.len) {
        int active = block_active(lv, depth);
        int truth = 0;
        char err[300], why[900], val[256];
        switch (pc.kind) {
        case TAG_TEXT:
            if (active)
                out_put(&o, pc.at, pc.len);
            break;
        case TAG_OPEN:
            if (!active)
                break;
            add_fail(&f, pc.at, "{{ without a closing }} on the same line");
            out_put(&o, PLACEHOLDER_BAD_OPEN "{{]", strlen(PLACEHOLDER_BAD_OPEN "{{]"));
            break;
        case TAG_IF:
        case TAG_ELIF:
        case TAG_ASSERT: {
            Level *top = depth ? &lv[depth - 1] : NULL;
            /* an elif is evaluated only when no branch before it was taken */
            int eval = pc.kind == TAG_ELIF ? top && top->parent && !top->taken && !top->in_else
                                           : active;
            int bad = 0;
            if (eval && cond_eval(pc.arg, ctx, &truth, why, sizeof why, err, sizeof err)) {
                add_fail(&f, pc.at, "{{%s}}: %s", pc.body, err);
                bad = 1;
                truth = 0;
            } else if (eval && pc.kind == TAG_ASSERT && !truth) {
                add_fail(&f, pc.at, "{{%s}} does not hold: %s", pc.body, why);
                bad = 1;
            }
            if (bad) {
                out_put(&o, PLACEHOLDER_BAD_OPEN, strlen(PLACEHOLDER_BAD_OPEN));
                out_put(&o, pc.body, strlen(pc.body));
                out_put(&o, "]", 1);
            }
            if (pc.kind != TAG_ASSERT && block_step(lv, &depth, &pc, active, truth, &f) &&
                active && !bad) {
                out_put(&o, PLACEHOLDER_BAD_OPEN, strlen(PLACEHOLDER_BAD_OPEN));
                out_put(&o, pc.body, strlen(pc.body));
                out_put(&o, "]", 1);
            }
            break;
        }
        case TAG_ELSE:
        case TAG_END:
            if (block_step(lv, &depth, &pc, active, 0, &f) && active) {
                out_put(&o, PLACEHOLDER_BAD_OPEN, strlen(PLACEHOLDER_BAD_OPEN));
                out_put(&o, pc.body, strlen(pc.body));
                out_put(&o, "]", 1);
            }
            break;
        default:
            if (!active)
                break;
            if (placeholder_value(pc.body, ctx, val, sizeof val, err, sizeof err)) {
                add_fail(&f, pc.at, "%s", err);
                out_put(&o, PLACEHOLDER_BAD_OPEN, strlen(PLACEHOLDER_BAD_OPEN));
                out_put(&o, pc.body, strlen(pc.body));
                out_put(&o, "]", 1);
            } else {
                out_put(&o, val, strlen(val));
            }
        }
    }
    if (depth) {
        add_fail(&f, prose + lv[0].off, "{{if}} without {{end}}");
        out_put(&o, PLACEHOLDER_BAD_OPEN "end]", strlen(PLACEHOLDER_BAD_OPEN "end]"));
    }
    if (n_fails)
        *n_fails = f.n;
    if (o.overflow) {
        if (fails && max > 0) {
            f.n = 0;
            add_fail(&f, prose, "prose too long (more than %zu bytes after expansion)", outlen);
        }
        return -1;
    }
    return f.n;
}

int placeholder_expand(const char *prose, const PlaceholderCtx *ctx, char *out, size_t outlen,
                       char *err, size_t errlen)
{
    PlaceholderFail first;
    int n = 0;
    if (err && errlen)
        err[0] = 0;
    int rc = placeholder_expand_fails(prose, ctx, out, outlen, &first, 1, &n);
    if ((rc != 0 || n) && err && errlen)
        snprintf(err, errlen, "%s", first.msg);
    return rc;
}

int placeholder_syntax(const char *prose, PlaceholderFail *fail1)
{
    Fails f = {prose, fail1, 1, 0};
    Level lv[BLOCK_DEPTH];
    int depth = 0;
    Piece pc;
    char err[300];
    for (const char *p = prose; next_piece(p, &pc) && !f.n; p += pc.len) {
        Clause cl[COND_MAX_CLAUSES];
        int n;
        switch (pc.kind) {
        case TAG_TEXT:
            break;
        case TAG_OPEN:
            add_fail(&f, pc.at, "{{ without a closing }} on the same line");
            break;
        case TAG_IF:
        case TAG_ELIF:
        case TAG_ASSERT:
            if (!*pc.arg)
                add_fail(&f, pc.at, "{{%s}} needs a condition, e.g. {{%s argmax 2 == 1}}",
                         pc.body, pc.body);
            else if (cond_parse(pc.arg, cl, &n, err, sizeof err))
                add_fail(&f, pc.at, "{{%s}}: %s", pc.body, err);
            else if (pc.kind != TAG_ASSERT)
                block_step(lv, &depth, &pc, 1, 0, &f);
            break;
        case TAG_ELSE:
        case TAG_END:
            if (pc.arg[0] && strspn(pc.arg, " \t") != strlen(pc.arg))
                add_fail(&f, pc.at, "{{%s}} takes nothing after the word", pc.body);
            else
                block_step(lv, &depth, &pc, 1, 0, &f);
            break;
        default:
            if (placeholder_check(pc.body, err, sizeof err))
                add_fail(&f, pc.at, "%s", err);
        }
    }
    if (!f.n && depth)
        add_fail(&f, prose + lv[depth - 1].off, "{{if}} without {{end}}");
    return f.n ? -1 : 0;
}
