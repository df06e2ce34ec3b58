/* class_room.c - a classroom quiz's room: the students' protocol (JSON lines), the students
 * and their tokens, answers judged by quiz_check, the counts, the results file
 * (docs/classroom.md). The carrier (class_net.c, or a unit test) hands it lines and sends
 * what it says to send. */
#include "class_room.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "errf.h"
#include "fileio.h"

struct ClassRoom {
    const QuizSet *s;
    int n;                     /* questions asked (s->n, at most CLASS_MAX_QUESTIONS) */
    int q;                     /* the question now */
    ClassPhase phase;
    int names;
    char code[CLASS_CODE_LEN + 1];
    ClassHooks h;
    ClassStudent st[CLASS_MAX_STUDENTS];
    int n_st;
    int *conn_st;              /* (CLASS_MAX_CLIENTS): the student of each connection, -1 */
    char events[CLASS_EVENTS][200];
    long n_events;
    int dropped;               /* connections dropped for breaking the protocol */
    char results[1024];        /* --results: written when answers close and at the end */
    char results_err[800];     /* why the last write failed ("" when it did not) */
};

int class_random(void *buf, size_t n)
{
    if (getrandom(buf, n, 0) == (ssize_t)n)
        return 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, buf, n);
    close(fd);
    return got == (ssize_t)n ? 0 : -1;
}

void class_room_event(ClassRoom *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->events[r->n_events % CLASS_EVENTS], sizeof r->events[0], fmt, ap);
    va_end(ap);
    r->n_events++;
}

const char *class_room_event_at(const ClassRoom *r, int i)
{
    if (i < 0 || i >= CLASS_EVENTS || i >= r->n_events)
        return NULL;
    return r->events[(r->n_events - 1 - i) % CLASS_EVENTS];
}

long class_room_events(const ClassRoom *r)
{
    return r->n_events;
}

ClassRoom *class_room_new(const QuizSet *s, const char *code, int names, ClassHooks hooks,
                          char *err, size_t errlen)
{
    if (!s || s->n < 1) {
        errf(err, errlen, "the quiz has no questions");
        return NULL;
    }
    if (code && (strlen(code) != CLASS_CODE_LEN || strspn(code, "0123456789") != CLASS_CODE_LEN)) {
        errf(err, errlen, "a room code is %d digits, not \"%.20s\"", CLASS_CODE_LEN, code);
        return NULL;
    }
    ClassRoom *r = calloc(1, sizeof *r);
    if (!r || !(r->conn_st = malloc(CLASS_MAX_CLIENTS * sizeof *r->conn_st))) {
        free(r);
        errf(err, errlen, "out of memory");
        return NULL;
    }
    for (int i = 0; i < CLASS_MAX_CLIENTS; i++)
        r->conn_st[i] = -1;
    r->s = s;
    r->n = s->n < CLASS_MAX_QUESTIONS ? s->n : CLASS_MAX_QUESTIONS;
    r->names = names;
    r->h = hooks;
    if (code) {
        snprintf(r->code, sizeof r->code, "%s", code);
    } else {
        unsigned char b[CLASS_CODE_LEN];
        if (class_random(b, sizeof b)) {
            class_room_free(r);
            errf(err, errlen, "no random numbers for the room code");
            return NULL;
        }
        for (int i = 0; i < CLASS_CODE_LEN; i++)
            r->code[i] = (char)('0' + b[i] % 10);
        if (r->code[0] == '0') /* six digits read as six digits */
            r->code[0] = '1';
    }
    return r;
}

void class_room_free(ClassRoom *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->n_st; i++) {
        free(r->st[i].verdict);
        free(r->st[i].pick);
        free(r->st[i].answer);
    }
    free(r->conn_st);
    free(r);
}

const char *class_room_code(const ClassRoom *r) { return r->code; }
ClassPhase class_room_phase(const ClassRoom *r) { return r->phase; }
int class_room_question(const ClassRoom *r) { return r->q; }
int class_room_n_questions(const ClassRoom *r) { return r->n; }
int class_room_n_students(const ClassRoom *r) { return r->n_st; }
int class_room_names(const ClassRoom *r) { return r->names; }

const ClassStudent *class_room_student(const ClassRoom *r, int i)
{
    return i >= 0 && i < r->n_st ? &r->st[i] : NULL;
}

/* ---- messages to students ---- */

static void send_obj(ClassRoom *r, int conn, cJSON *o)
{
    char *line = o ? cJSON_PrintUnformatted(o) : NULL;
    if (line)
        r->h.send(r->h.ctx, conn, line);
    free(line);
    cJSON_Delete(o);
}

static cJSON *msg(const char *type)
{
    cJSON *o = cJSON_CreateObject();
    if (o)
        cJSON_AddStringToObject(o, "t", type);
    return o;
}

static void send_error(ClassRoom *r, int conn, const char *text)
{
    cJSON *o = msg("error");
    cJSON_AddStringToObject(o, "msg", text);
    send_obj(r, conn, o);
}

/* How to answer item it, in words for the student's prompt. */
static void how_to_answer(const QuizItem *it, char *out, size_t n)
{
    switch (it->kind) {
    case QK_CHOICE:
        snprintf(out, n, "one letter, a to %c", 'a' + it->n_choices - 1);
        break;
    case QK_MULTI:
        snprintf(out, n, "every right letter, such as a c (a to %c)", 'a' + it->n_choices - 1);
        break;
    case QK_NUMBER:
        if (it->tol > 0)
            snprintf(out, n, "a number (within %g)", it->tol);
        else
            snprintf(out, n, "a whole number");
        break;
    case QK_SHAPE:
        snprintf(out, n, "a shape, such as 6x64");
        break;
    case QK_CELL:
        snprintf(out, n, "a key column, 0 to %d", it->n_cols > 0 ? it->n_cols - 1 : 0);
        break;
    default:
        snprintf(out, n, "a word or a few");
        break;
    }
}

int class_room_grid_line(const QuizItem *it, int i, char *out, size_t n)
{
    if (!n)
        return 0;
    out[0] = '\0';
    if (i < 0 || i > it->grid_n + 1 || !it->grid_n)
        return 0;
    size_t k;
    if (i == 0) { /* the key columns' numbers (a cell question is answered by one) */
        k = (size_t)snprintf(out, n, "%-11s", "  column");
        for (int j = 0; j < it->grid_m && k < n; j++)
            k += (size_t)snprintf(out + k, n - k, " %6d", j);
        return 1;
    }
    if (i == 1) { /* the keys' tokens */
        k = (size_t)snprintf(out, n, "%11s", "");
        for (int j = 0; j < it->grid_m && k < n; j++)
            k += (size_t)snprintf(out + k, n - k, " %6.6s", it->grid_cols[j]);
        return 1;
    }
    int r = i - 2;
    k = (size_t)snprintf(out, n, "%c %-9.9s", it->kind == QK_CELL && r == it->row ? '>' : ' ',
                         it->grid_rows[r]);
    for (int j = 0; j < it->grid_m && k < n; j++) {
        if (it->grid_masked[r * it->grid_m + j])
            k += (size_t)snprintf(out + k, n - k, " %6s", ".");
        else
            k += (size_t)snprintf(out + k, n - k, " %6.2f", (double)it->grid[r * it->grid_m + j]);
    }
    return 1;
}

/* The question's weights (a cell question's, or the grid it shows) as text lines. */
static void add_grid(cJSON *o, const QuizItem *it)
{
    if (!it->grid_n)
        return;
    cJSON *g = cJSON_AddArrayToObject(o, "grid");
    char line[QUIZ_GRID_MAX * 8 + 40];
    for (int i = 0; class_room_grid_line(it, i, line, sizeof line); i++)
        cJSON_AddItemToArray(g, cJSON_CreateString(line));
}

static void send_question(ClassRoom *r, int conn, const ClassStudent *st)
{
    const QuizItem *it = &r->s->items[r->q];
    char how[96];
    cJSON *o = msg("question");
    cJSON_AddNumberToObject(o, "q", r->q + 1);
    cJSON_AddNumberToObject(o, "n", r->n);
    cJSON_AddStringToObject(o, "kind", quiz_kind_name(it->kind));
    if (it->lead[0])
        cJSON_AddStringToObject(o, "lead", it->lead);
    cJSON_AddStringToObject(o, "prompt", it->prompt);
    if (it->context[0])
        cJSON_AddStringToObject(o, "setup", it->context);
    if (it->n_choices) {
        cJSON *c = cJSON_AddArrayToObject(o, "choices");
        for (int i = 0; i < it->n_choices; i++)
            cJSON_AddItemToArray(c, cJSON_CreateString(it->choices[i]));
    }
    add_grid(o, it);
    how_to_answer(it, how, sizeof how);
    cJSON_AddStringToObject(o, "how", how);
    cJSON_AddBoolToObject(o, "open", r->phase == CLASS_ASKING);
    if (st && st->verdict[r->q])
        cJSON_AddStringToObject(o, "answered", st->answer[r->q]);
    send_obj(r, conn, o);
}

void class_room_answer_text(const QuizItem *it, char *out, size_t n)
{
    if (!it->n_choices) {
        snprintf(out, n, "%s", it->answer);
        return;
    }
    size_t o = 0;
    out[0] = '\0';
    for (int c = 0; c < it->n_choices && o + 1 < n; c++)
        if (it->correct >> c & 1)
            o += (size_t)snprintf(out + o, n - o, "%s%c) %s", o ? "; " : "", 'a' + c,
                                  it->choices[c]);
}

static void send_reveal(ClassRoom *r, int conn, const ClassStudent *st)
{
    const QuizItem *it = &r->s->items[r->q];
    char ans[1400];
    class_room_answer_text(it, ans, sizeof ans);
    cJSON *o = msg("reveal");
    cJSON_AddNumberToObject(o, "q", r->q + 1);
    cJSON_AddStringToObject(o, "answer", ans);
    cJSON_AddStringToObject(o, "explain", it->explain);
    int v = st ? st->verdict[r->q] : 0;
    cJSON_AddStringToObject(o, "you", v == 1 ? "right" : v == 2 ? "wrong" : "none");
    cJSON_AddNumberToObject(o, "score", st ? st->score : 0);
    cJSON_AddNumberToObject(o, "asked", r->q + 1);
    send_obj(r, conn, o);
}

static void send_end(ClassRoom *r, int conn, const ClassStudent *st)
{
    cJSON *o = msg("end");
    cJSON_AddNumberToObject(o, "score", st ? st->score : 0);
    cJSON_AddNumberToObject(o, "n", r->phase == CLASS_ENDED ? r->n : r->q + 1);
    send_obj(r, conn, o);
}

/* What a student who arrives (or comes back) sees of the room now. */
static void send_state(ClassRoom *r, int conn, const ClassStudent *st)
{
    if (r->phase == CLASS_ENDED) {
        send_end(r, conn, st);
        return;
    }
    send_question(r, conn, st);
    if (r->phase == CLASS_CLOSED) {
        cJSON *o = msg("closed");
        cJSON_AddNumberToObject(o, "q", r->q + 1);
        send_obj(r, conn, o);
    } else if (r->phase == CLASS_REVEALED) {
        send_reveal(r, conn, st);
    }
}

/* Every connected student, one message each from fn. */
static void broadcast(ClassRoom *r, void (*fn)(ClassRoom *, int, const ClassStudent *))
{
    for (int i = 0; i < r->n_st; i++)
        if (r->st[i].conn >= 0)
            fn(r, r->st[i].conn, &r->st[i]);
}

/* ---- messages from students ---- */

/* A name as shown: control characters and quotes dropped, UTF-8 cut at a character, spaces
 * squeezed, "student N" when nothing is left, " (2)" when another has it. */
static void clean_name(const ClassRoom *r, const char *in, char *out, size_t n)
{
    char b[CLASS_NAME_MAX + 1];
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && o < CLASS_NAME_MAX; p++) {
        if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
            continue;
        if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) { /* a C1 control */
            p++;
            continue;
        }
        if (*p == ' ' && (o == 0 || b[o - 1] == ' '))
            continue;
        b[o++] = (char)*p;
    }
    while (o > 0 && (b[o - 1] == ' ' || ((unsigned char)b[o - 1] & 0xC0) == 0xC0))
        o--; /* a trailing space, or a lead byte whose continuation was cut */
    while (o > 0 && ((unsigned char)b[o - 1] & 0xC0) == 0x80) { /* a cut sequence */
        size_t s = o - 1;
        while (s > 0 && ((unsigned char)b[s] & 0xC0) == 0x80)
            s--;
        unsigned char lead = (unsigned char)b[s];
        size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        if (o - s == want)
            break;
        o = s;
    }
    b[o] = '\0';
    if (!b[0])
        snprintf(b, sizeof b, "student %d", r->n_st + 1);
    snprintf(out, n, "%s", b);
    for (int k = 2; k < 1000; k++) {
        int taken = 0;
        for (int i = 0; i < r->n_st && !taken; i++)
            taken = !strcmp(r->st[i].name, out);
        if (!taken)
            return;
        snprintf(out, n, "%s (%d)", b, k);
    }
}

/* Tells conn why it is dropped, and the teacher; its student (if any) is away from now. */
static int drop(ClassRoom *r, int conn, const char *peer, const char *why)
{
    send_error(r, conn, why);
    ClassStudent *st = r->conn_st[conn] >= 0 ? &r->st[r->conn_st[conn]] : NULL;
    class_room_event(r, "dropped %s%s%s%s: %s", peer ? peer : "a connection", st ? " (" : "",
                     st ? st->name : "", st ? ")" : "", why);
    r->dropped++;
    if (st) {
        st->conn = -1;
        r->conn_st[conn] = -1;
    }
    return -1;
}

static int hello(ClassRoom *r, int conn, const cJSON *o, const char *peer)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "v");
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(o, "code");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    const cJSON *token = cJSON_GetObjectItemCaseSensitive(o, "token");
    if (!cJSON_IsNumber(v) || v->valuedouble != CLASS_PROTO_VERSION)
        return drop(r, conn, peer, "this room speaks version 1 of the protocol: update attend");
    if (!cJSON_IsString(code) || strcmp(code->valuestring, r->code))
        return drop(r, conn, peer, "wrong room code");
    if ((name && !cJSON_IsString(name)) || (token && !cJSON_IsString(token)))
        return drop(r, conn, peer, "a name and a token are strings");
    int si = -1;
    if (token && strlen(token->valuestring) == CLASS_TOKEN_LEN)
        for (int i = 0; i < r->n_st && si < 0; i++)
            if (!strcmp(r->st[i].token, token->valuestring))
                si = i;
    int rejoined = si >= 0;
    if (si >= 0 && r->st[si].conn >= 0 && r->st[si].conn != conn) {
        int old = r->st[si].conn; /* the same student on a new connection: the old one goes */
        send_error(r, old, "you joined again from another connection");
        r->conn_st[old] = -1;
        r->st[si].conn = -1;
        r->h.drop(r->h.ctx, old);
    }
    if (si < 0) {
        if (r->n_st >= CLASS_MAX_STUDENTS)
            return drop(r, conn, peer, "the room has as many students as it can keep");
        ClassStudent *st = &r->st[r->n_st];
        memset(st, 0, sizeof *st);
        unsigned char b[CLASS_TOKEN_LEN / 2];
        st->verdict = calloc((size_t)r->n, sizeof *st->verdict);
        st->pick = calloc((size_t)r->n, sizeof *st->pick);
        st->answer = calloc((size_t)r->n, sizeof *st->answer);
        if (!st->verdict || !st->pick || !st->answer || class_random(b, sizeof b)) {
            free(st->verdict);
            free(st->pick);
            free(st->answer);
            return drop(r, conn, peer, "the room is out of memory");
        }
        for (size_t i = 0; i < sizeof b; i++)
            snprintf(st->token + 2 * i, 3, "%02x", b[i]);
        clean_name(r, name ? name->valuestring : "", st->name, sizeof st->name);
        si = r->n_st++;
    }
    ClassStudent *st = &r->st[si];
    st->conn = conn;
    r->conn_st[conn] = si;
    class_room_event(r, "%s %s", st->name, rejoined ? "rejoined" : "joined");
    cJSON *w = msg("welcome");
    cJSON_AddNumberToObject(w, "v", CLASS_PROTO_VERSION);
    cJSON_AddStringToObject(w, "name", st->name);
    cJSON_AddStringToObject(w, "token", st->token);
    cJSON_AddNumberToObject(w, "score", st->score);
    cJSON_AddBoolToObject(w, "rejoined", rejoined);
    cJSON_AddStringToObject(w, "title", r->s->title);
    cJSON_AddNumberToObject(w, "n", r->n);
    send_obj(r, conn, w);
    send_state(r, conn, st);
    return 1;
}

/* The choices an answer picks (choice and multi questions): letters or numbers. */
static unsigned picked(const QuizItem *it, const char *a)
{
    unsigned set = 0;
    char b[CLASS_ANSWER_MAX];
    snprintf(b, sizeof b, "%s", a);
    for (char *save = NULL, *t = strtok_r(b, " ,", &save); t; t = strtok_r(NULL, " ,", &save)) {
        int c = -1;
        if (t[0] && !t[1] && ((t[0] | 32) >= 'a' && (t[0] | 32) <= 'z'))
            c = (t[0] | 32) - 'a';
        else if (t[0] >= '1' && t[0] <= '9' && !t[1])
            c = t[0] - '1';
        if (c >= 0 && c < it->n_choices)
            set |= 1u << c;
    }
    return set;
}

static int answer(ClassRoom *r, int conn, const cJSON *o)
{
    int si = r->conn_st[conn];
    ClassStudent *st = &r->st[si];
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(o, "q");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "a");
    cJSON *m;
    if (!cJSON_IsNumber(q) || !cJSON_IsString(a))
        return -1;
    if ((int)q->valuedouble != r->q + 1 || r->phase != CLASS_ASKING) {
        m = msg("invalid");
        cJSON_AddNumberToObject(m, "q", q->valuedouble);
        cJSON_AddStringToObject(m, "msg", r->phase == CLASS_ENDED ? "the quiz is over"
                                          : "answers to that question are closed");
        send_obj(r, conn, m);
        return 0;
    }
    if (st->verdict[r->q]) {
        m = msg("invalid");
        cJSON_AddNumberToObject(m, "q", r->q + 1);
        cJSON_AddStringToObject(m, "msg", "you have answered this question already");
        send_obj(r, conn, m);
        return 0;
    }
    const QuizItem *it = &r->s->items[r->q];
    char why[300];
    QuizVerdict v = quiz_check(it, a->valuestring, why, sizeof why);
    if (v == QV_INVALID) { /* not counted: the student tries again */
        m = msg("invalid");
        cJSON_AddNumberToObject(m, "q", r->q + 1);
        cJSON_AddStringToObject(m, "msg", why);
        send_obj(r, conn, m);
        return 0;
    }
    st->verdict[r->q] = v == QV_RIGHT ? 1 : 2;
    st->score += v == QV_RIGHT;
    st->answered++;
    snprintf(st->answer[r->q], sizeof st->answer[0], "%s", a->valuestring);
    if (it->n_choices)
        st->pick[r->q] = picked(it, a->valuestring);
    m = msg("ack");
    cJSON_AddNumberToObject(m, "q", r->q + 1);
    cJSON_AddStringToObject(m, "a", st->answer[r->q]);
    send_obj(r, conn, m);
    return 0;
}

int class_room_line(ClassRoom *r, int conn, const char *line, size_t len, const char *peer)
{
    if (conn < 0 || conn >= CLASS_MAX_CLIENTS)
        return -1;
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(line, len, &end, 0);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "t");
    int rc;
    if (!cJSON_IsObject(o) || !cJSON_IsString(t))
        rc = drop(r, conn, peer, "not attend's classroom protocol (JSON lines)");
    else if (!strcmp(t->valuestring, "hello"))
        rc = r->conn_st[conn] >= 0 ? drop(r, conn, peer, "hello twice")
                                   : hello(r, conn, o, peer);
    else if (r->conn_st[conn] < 0)
        rc = drop(r, conn, peer, "say hello first");
    else if (!strcmp(t->valuestring, "answer"))
        rc = answer(r, conn, o) ? drop(r, conn, peer, "an answer is {\"q\": N, \"a\": TEXT}") : 0;
    else if (!strcmp(t->valuestring, "ping"))
        rc = 0;
    else
        rc = drop(r, conn, peer, "unknown message");
    cJSON_Delete(o);
    return rc;
}

void class_room_gone(ClassRoom *r, int conn, const char *peer, const char *why)
{
    ClassStudent *st = conn >= 0 && conn < CLASS_MAX_CLIENTS && r->conn_st[conn] >= 0
                           ? &r->st[r->conn_st[conn]] : NULL;
    if (why) {
        r->dropped++;
        class_room_event(r, "dropped %s%s%s%s: %s", peer ? peer : "a connection",
                         st ? " (" : "", st ? st->name : "", st ? ")" : "", why);
    } else if (st) {
        class_room_event(r, "%s left", st->name);
    }
    if (!st)
        return;
    st->conn = -1;
    r->conn_st[conn] = -1;
}

/* ---- the teacher ---- */

static void closed_to(ClassRoom *r, int conn, const ClassStudent *st)
{
    (void)st;
    cJSON *o = msg("closed");
    cJSON_AddNumberToObject(o, "q", r->q + 1);
    send_obj(r, conn, o);
}

/* The results file after answers closed (or the end): the counts of every question closed
 * so far, each student's score; a failure is told to the teacher and kept. */
static void save_results(ClassRoom *r)
{
    if (!r->results[0])
        return;
    if (class_room_results_write(r, r->results, r->results_err, sizeof r->results_err)) {
        class_room_event(r, "results not written: %s", r->results_err);
        return;
    }
    r->results_err[0] = '\0';
}

void class_room_close(ClassRoom *r)
{
    if (r->phase != CLASS_ASKING)
        return;
    r->phase = CLASS_CLOSED;
    broadcast(r, closed_to);
    save_results(r);
}

void class_room_reveal(ClassRoom *r)
{
    if (r->phase == CLASS_ASKING)
        class_room_close(r);
    if (r->phase != CLASS_CLOSED)
        return;
    r->phase = CLASS_REVEALED;
    broadcast(r, send_reveal);
}

void class_room_end(ClassRoom *r)
{
    if (r->phase == CLASS_ENDED)
        return;
    if (r->phase == CLASS_ASKING)
        class_room_close(r);
    r->phase = CLASS_ENDED;
    broadcast(r, send_end);
    save_results(r);
}

void class_room_set_results(ClassRoom *r, const char *path)
{
    snprintf(r->results, sizeof r->results, "%s", path ? path : "");
    r->results_err[0] = '\0';
}

const char *class_room_results_error(const ClassRoom *r)
{
    return r->results_err[0] ? r->results_err : NULL;
}

void class_room_next(ClassRoom *r)
{
    if (r->phase == CLASS_ENDED)
        return;
    if (r->q + 1 >= r->n) {
        class_room_end(r);
        return;
    }
    if (r->phase == CLASS_ASKING)
        class_room_close(r);
    r->q++;
    r->phase = CLASS_ASKING;
    broadcast(r, send_question);
}

void class_room_tally(const ClassRoom *r, ClassTally *t)
{
    memset(t, 0, sizeof *t);
    const QuizItem *it = &r->s->items[r->q];
    t->students = r->n_st;
    for (int i = 0; i < r->n_st; i++) {
        const ClassStudent *st = &r->st[i];
        t->connected += st->conn >= 0;
        if (!st->verdict[r->q])
            continue;
        t->answered++;
        t->right += st->verdict[r->q] == 1;
        t->wrong += st->verdict[r->q] == 2;
        for (int c = 0; c < it->n_choices; c++)
            t->choice[c] += st->pick[r->q] >> c & 1;
        if (it->n_choices)
            continue;
        char norm[CLASS_ANSWER_MAX];
        quiz_normalise(st->answer[r->q], norm, sizeof norm);
        int k = 0;
        while (k < t->n_top && strcmp(t->top[k], norm))
            k++;
        if (k < t->n_top) {
            t->top_n[k]++;
        } else if (t->n_top < 3) {
            snprintf(t->top[t->n_top], sizeof t->top[0], "%s", norm);
            t->top_n[t->n_top++] = 1;
        }
    }
}

int class_room_score_counts(const ClassRoom *r, int *counts, int max)
{
    int n = r->phase == CLASS_ENDED ? r->n : r->q + 1;
    if (n >= max)
        n = max - 1;
    for (int i = 0; i <= n; i++)
        counts[i] = 0;
    for (int i = 0; i < r->n_st; i++)
        counts[r->st[i].score <= n ? r->st[i].score : n]++;
    return n;
}

const char *class_room_scores_text(const ClassRoom *r, char *out, size_t n)
{
    int counts[CLASS_MAX_QUESTIONS + 1];
    int k = class_room_score_counts(r, counts, CLASS_MAX_QUESTIONS + 1);
    size_t o = (size_t)snprintf(out, n, "Scores:");
    for (int s = k; s >= 0 && o + 40 < n; s--)
        if (counts[s])
            o += (size_t)snprintf(out + o, n - o, " %d of %d: %d student%s;", s, k, counts[s],
                                  counts[s] == 1 ? "" : "s");
    if (o > 0 && o < n && out[o - 1] == ';')
        out[o - 1] = '\0';
    return out;
}

/* ---- the results file ---- */

static cJSON *results_json(const ClassRoom *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "version", 1);
    cJSON_AddStringToObject(o, "title", r->s->title);
    cJSON_AddNumberToObject(o, "seed", (double)r->s->seed);
    cJSON_AddStringToObject(o, "code", r->code);
    int asked = r->phase == CLASS_ENDED ? r->n : r->q + 1;
    cJSON_AddNumberToObject(o, "asked", asked);
    /* questions whose answers are final (the current one once closed); ended: the room's end */
    cJSON_AddNumberToObject(o, "closed", r->phase == CLASS_ASKING ? asked - 1 : asked);
    cJSON_AddBoolToObject(o, "ended", r->phase == CLASS_ENDED);
    cJSON_AddNumberToObject(o, "dropped", r->dropped);
    cJSON *qs = cJSON_AddArrayToObject(o, "questions");
    for (int q = 0; q < asked; q++) {
        const QuizItem *it = &r->s->items[q];
        cJSON *j = cJSON_CreateObject();
        int answered = 0, right = 0;
        for (int i = 0; i < r->n_st; i++) {
            answered += r->st[i].verdict[q] != 0;
            right += r->st[i].verdict[q] == 1;
        }
        cJSON_AddStringToObject(j, "key", it->key);
        cJSON_AddStringToObject(j, "kind", quiz_kind_name(it->kind));
        cJSON_AddNumberToObject(j, "answered", answered);
        cJSON_AddNumberToObject(j, "right", right);
        if (it->n_choices) {
            cJSON *c = cJSON_AddArrayToObject(j, "choices");
            for (int k = 0; k < it->n_choices; k++) {
                int n = 0;
                for (int i = 0; i < r->n_st; i++)
                    n += r->st[i].verdict[q] && (r->st[i].pick[q] >> k & 1);
                cJSON_AddItemToArray(c, cJSON_CreateNumber(n));
            }
        }
        cJSON_AddItemToArray(qs, j);
    }
    cJSON *ss = cJSON_AddArrayToObject(o, "students");
    for (int i = 0; i < r->n_st; i++) {
        const ClassStudent *st = &r->st[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "name", st->name);
        cJSON_AddNumberToObject(j, "score", st->score);
        cJSON_AddNumberToObject(j, "answered", st->answered);
        cJSON *as = cJSON_AddArrayToObject(j, "answers");
        for (int q = 0; q < asked; q++) {
            if (!st->verdict[q]) {
                cJSON_AddItemToArray(as, cJSON_CreateNull());
                continue;
            }
            cJSON *a = cJSON_CreateObject();
            cJSON_AddStringToObject(a, "answer", st->answer[q]);
            cJSON_AddBoolToObject(a, "right", st->verdict[q] == 1);
            cJSON_AddItemToArray(as, a);
        }
        cJSON_AddItemToArray(ss, j);
    }
    return o;
}

int class_room_results_write(const ClassRoom *r, const char *path, char *err, size_t errlen)
{
    cJSON *o = results_json(r);
    char *text = o ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    if (!text)
        return errf(err, errlen, "%s: out of memory", path);
    size_t len = strlen(text);
    text[len] = '\n'; /* the NUL becomes the last newline; written by length */
    int rc = fileio_write_file(path, 0644, text, len + 1, err, errlen);
    free(text);
    return rc;
}
