/* test_class.c - the classroom (class_room.c, class_client.c, class_net.c): the protocol's
 * hello, answers judged with the quiz's tolerance, one answer per question, a rejoin by
 * token keeps the score and nobody answers for another, names and texts cleaned, the tally
 * and the results file; then on the loopback (127.0.0.1 only): students joining, garbage,
 * a flood, an oversized message, the cap on connections. Every wait is for a condition,
 * bounded in steps. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "class_client.h"
#include "class_net.h"
#include "class_room.h"
#include "fileio.h"
#include "t.h"

/* ---- a quiz of three questions: a choice, a number (tolerance 0.005), a multi ---- */
static QuizSet *make_quiz(void)
{
    static QuizSet s;
    static QuizItem it[3];
    memset(&s, 0, sizeof s);
    memset(it, 0, sizeof it);
    snprintf(s.title, sizeof s.title, "test quiz");
    it[0].kind = QK_CHOICE;
    snprintf(it[0].key, sizeof it[0].key, "t/choice");
    snprintf(it[0].prompt, sizeof it[0].prompt, "Pick b \x1b[2J now");
    it[0].n_choices = 3;
    snprintf(it[0].choices[0], sizeof it[0].choices[0], "zero");
    snprintf(it[0].choices[1], sizeof it[0].choices[1], "one");
    snprintf(it[0].choices[2], sizeof it[0].choices[2], "two");
    it[0].correct = 1u << 1;
    it[1].kind = QK_NUMBER;
    snprintf(it[1].key, sizeof it[1].key, "t/number");
    snprintf(it[1].prompt, sizeof it[1].prompt, "A quarter?");
    it[1].number = 0.25;
    it[1].tol = 0.005;
    snprintf(it[1].answer, sizeof it[1].answer, "0.25");
    it[2].kind = QK_MULTI;
    snprintf(it[2].key, sizeof it[2].key, "t/multi");
    snprintf(it[2].prompt, sizeof it[2].prompt, "a and c");
    it[2].n_choices = 3;
    for (int c = 0; c < 3; c++)
        snprintf(it[2].choices[c], sizeof it[2].choices[c], "c%d", c);
    it[2].correct = 1u | 4u;
    s.items = it;
    s.n = s.cap = 3;
    return &s;
}

/* ---- the room alone, through hooks that keep what it sends ---- */
typedef struct {
    char last[8][4096]; /* the last line sent to each of 8 connections */
    int sent[8];
    int dropped[8];
} Fake;

static void f_send(void *ctx, int conn, const char *line)
{
    Fake *f = ctx;
    snprintf(f->last[conn], sizeof f->last[conn], "%s", line);
    f->sent[conn]++;
}

static void f_drop(void *ctx, int conn)
{
    ((Fake *)ctx)->dropped[conn]++;
}

static int say(ClassRoom *r, int conn, const char *line)
{
    return class_room_line(r, conn, line, strlen(line), "test");
}

static void test_room(void)
{
    static Fake f;
    memset(&f, 0, sizeof f);
    ClassHooks h = {&f, f_send, f_drop};
    char err[300];
    ClassRoom *r = class_room_new(make_quiz(), "123456", 0, h, err, sizeof err);
    CHECK(r != NULL, "%s", err);
    CHECK(class_room_new(make_quiz(), "12ab56", 0, h, err, sizeof err) == NULL &&
              strstr(err, "6 digits"), "a bad code is refused: %s", err);
    CHECK(say(r, 0, "{\"t\":\"hello\",\"v\":1,\"code\":\"654321\",\"name\":\"x\"}") == -1 &&
              strstr(f.last[0], "wrong room code"), "wrong code: %s", f.last[0]);
    CHECK(say(r, 0, "{\"t\":\"hello\",\"v\":2,\"code\":\"123456\"}") == -1 &&
              strstr(f.last[0], "version"), "another version: %s", f.last[0]);
    CHECK(say(r, 0, "not json at all") == -1, "garbage is dropped");
    CHECK(say(r, 0, "{\"t\":\"answer\",\"q\":1,\"a\":\"b\"}") == -1 &&
              strstr(f.last[0], "hello first"), "an answer before hello: %s", f.last[0]);
    CHECK(class_room_n_students(r) == 0, "nobody joined yet");
    /* ana joins; her name's escape sequence is dropped */
    CHECK(say(r, 1, "{\"t\":\"hello\",\"v\":1,\"code\":\"123456\",\"name\":\"ana\\u001b[31m\"}") == 1,
          "ana joins");
    CHECK(!strcmp(class_room_student(r, 0)->name, "ana[31m"), "name cleaned: \"%s\"",
          class_room_student(r, 0)->name);
    CHECK(strstr(f.last[1], "\"t\":\"question\"") && strstr(f.last[1], "\"q\":1"),
          "she gets question 1: %s", f.last[1]);
    char token[CLASS_TOKEN_LEN + 1];
    snprintf(token, sizeof token, "%s", class_room_student(r, 0)->token);
    CHECK(strlen(token) == CLASS_TOKEN_LEN, "a token");
    /* bob joins with the same name: told apart */
    CHECK(say(r, 2, "{\"t\":\"hello\",\"v\":1,\"code\":\"123456\",\"name\":\"ana[31m\"}") == 1, "bob");
    CHECK(!strcmp(class_room_student(r, 1)->name, "ana[31m (2)"), "a second name: \"%s\"",
          class_room_student(r, 1)->name);
    CHECK(say(r, 1, "{\"t\":\"answer\",\"q\":1,\"a\":\"z\"}") == 0 && strstr(f.last[1], "invalid"),
          "an unreadable choice is not counted: %s", f.last[1]);
    CHECK(say(r, 1, "{\"t\":\"answer\",\"q\":1,\"a\":\"b\"}") == 0 && strstr(f.last[1], "ack"),
          "b is recorded: %s", f.last[1]);
    CHECK(say(r, 1, "{\"t\":\"answer\",\"q\":1,\"a\":\"c\"}") == 0 && strstr(f.last[1], "already"),
          "one answer per question: %s", f.last[1]);
    CHECK(say(r, 2, "{\"t\":\"answer\",\"q\":1,\"a\":\"a\"}") == 0, "bob answers a");
    ClassTally t;
    class_room_tally(r, &t);
    CHECK(t.answered == 2 && t.right == 1 && t.choice[0] == 1 && t.choice[1] == 1 && t.choice[2] == 0,
          "tally: %d answered, %d right, %d %d %d", t.answered, t.right, t.choice[0], t.choice[1],
          t.choice[2]);
    class_room_close(r);
    CHECK(strstr(f.last[2], "closed"), "closing tells the students: %s", f.last[2]);
    CHECK(say(r, 2, "{\"t\":\"answer\",\"q\":1,\"a\":\"b\"}") == 0 && strstr(f.last[2], "closed"),
          "no answer after closing: %s", f.last[2]);
    class_room_reveal(r);
    CHECK(strstr(f.last[1], "\"you\":\"right\"") && strstr(f.last[2], "\"you\":\"wrong\""),
          "the reveal says who was right: %s / %s", f.last[1], f.last[2]);
    class_room_next(r);
    CHECK(class_room_phase(r) == CLASS_ASKING && class_room_question(r) == 1, "question 2");
    /* the number question: within its tolerance */
    CHECK(say(r, 2, "{\"t\":\"answer\",\"q\":2,\"a\":\"0.253\"}") == 0 && strstr(f.last[2], "ack"),
          "0.253 is within 0.005");
    /* ana's connection drops; she rejoins with her token on connection 3 and keeps her score */
    class_room_gone(r, 1, "test", NULL);
    char hello[300];
    class_client_hello("123456", "someone", token, hello, sizeof hello);
    CHECK(say(r, 3, hello) == 1, "ana rejoins");
    CHECK(class_room_n_students(r) == 2 && class_room_student(r, 0)->conn == 3 &&
              class_room_student(r, 0)->score == 1, "the same student, score kept");
    CHECK(strstr(f.last[3], "question"), "she gets the question open now: %s", f.last[3]);
    /* a second connection with her token takes over; the old one is dropped */
    CHECK(say(r, 4, hello) == 1 && f.dropped[3] == 1 && class_room_student(r, 0)->conn == 4,
          "one connection per student");
    /* a made-up token is a new student, never ana */
    class_client_hello("123456", "eve", "0123456789abcdef0123456789abcdef", hello, sizeof hello);
    CHECK(say(r, 5, hello) == 1 && class_room_n_students(r) == 3 &&
              class_room_student(r, 2)->score == 0, "a guessed token is not ana's");
    CHECK(say(r, 4, "{\"t\":\"answer\",\"q\":2,\"a\":\"1/4\"}") == 0, "ana answers 1/4");
    class_room_reveal(r);
    class_room_next(r);
    CHECK(say(r, 4, "{\"t\":\"answer\",\"q\":3,\"a\":\"c a\"}") == 0, "multi: c a");
    CHECK(say(r, 2, "{\"t\":\"answer\",\"q\":3,\"a\":\"a\"}") == 0, "multi: a");
    class_room_tally(r, &t);
    CHECK(t.choice[0] == 2 && t.choice[2] == 1 && t.right == 1, "multi tally");
    class_room_next(r);
    CHECK(class_room_phase(r) == CLASS_ENDED && strstr(f.last[4], "\"t\":\"end\"") &&
              strstr(f.last[4], "\"score\":3"), "the end: %s", f.last[4]);
    int counts[8];
    int n = class_room_score_counts(r, counts, 8);
    CHECK(n == 3 && counts[3] == 1 && counts[1] == 1 && counts[0] == 1, "scores 3, 1, 0");
    /* the results file */
    char path[] = "/tmp/attend-test-class-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK(class_room_results_write(r, path, err, sizeof err) == 0, "%s", err);
    char *text = NULL;
    size_t len;
    CHECK(fileio_read(path, 1 << 20, &text, &len, err, sizeof err) == 0, "%s", err);
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    cJSON *st = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "students"), 0);
    CHECK(cJSON_GetObjectItem(st, "score") && cJSON_GetObjectItem(st, "score")->valueint == 3,
          "ana's score in the results");
    cJSON *q0 = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "questions"), 0);
    CHECK(q0 && cJSON_GetObjectItem(q0, "answered")->valueint == 2 &&
              cJSON_GetArrayItem(cJSON_GetObjectItem(q0, "choices"), 1)->valueint == 1,
          "question 1's counts in the results");
    cJSON_Delete(o);
    free(text);
    unlink(path);
    class_room_free(r);
}

/* reads path's JSON (NULL when there is none) */
static cJSON *read_json(const char *path)
{
    char *text = NULL, err[300];
    size_t len;
    if (fileio_read(path, 1 << 20, &text, &len, err, sizeof err))
        return NULL;
    cJSON *o = cJSON_Parse(text);
    free(text);
    return o;
}

static int num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valueint : -1;
}

/* --results is written each time a question's answers close, not only at the end: a killed
 * projector loses at most the question being asked; a write that fails is told, not fatal */
static void test_results_each_question(void)
{
    static Fake f;
    memset(&f, 0, sizeof f);
    ClassHooks h = {&f, f_send, f_drop};
    char err[300], dir[] = "/tmp/attend-test-results-XXXXXX", path[400];
    CHECK(mkdtemp(dir) != NULL, "a temp dir");
    snprintf(path, sizeof path, "%s/results.json", dir);
    ClassRoom *r = class_room_new(make_quiz(), "123456", 0, h, err, sizeof err);
    class_room_set_results(r, path);
    CHECK(say(r, 1, "{\"t\":\"hello\",\"v\":1,\"code\":\"123456\",\"name\":\"ana\"}") == 1, "ana");
    CHECK(say(r, 2, "{\"t\":\"hello\",\"v\":1,\"code\":\"123456\",\"name\":\"bob\"}") == 1, "bob");
    CHECK(say(r, 1, "{\"t\":\"answer\",\"q\":1,\"a\":\"b\"}") == 0, "ana answers b");
    CHECK(access(path, F_OK) != 0, "no results while question 1 is open");
    class_room_close(r);
    cJSON *o = read_json(path);
    CHECK(o && num(o, "closed") == 1 && num(o, "asked") == 1 &&
              cJSON_IsFalse(cJSON_GetObjectItem(o, "ended")),
          "question 1 closed: the results are written (closed %d)", num(o, "closed"));
    cJSON *q0 = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "questions"), 0);
    cJSON *ana = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "students"), 0);
    CHECK(num(q0, "answered") == 1 && num(q0, "right") == 1 && num(ana, "score") == 1,
          "question 1's count and ana's score in the file after question 1");
    cJSON_Delete(o);
    class_room_reveal(r);
    class_room_next(r);
    CHECK(say(r, 2, "{\"t\":\"answer\",\"q\":2,\"a\":\"0.25\"}") == 0, "bob answers 0.25");
    class_room_close(r);
    o = read_json(path);
    cJSON *bob = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "students"), 1);
    CHECK(o && num(o, "closed") == 2 && num(bob, "score") == 1,
          "question 2 closed: rewritten (closed %d, bob %d)", num(o, "closed"), num(bob, "score"));
    cJSON_Delete(o);
    /* the target becomes a directory: the write fails, the teacher is told, the room goes on */
    unlink(path);
    CHECK(mkdir(path, 0700) == 0, "a directory where the file was");
    class_room_next(r);
    class_room_close(r);
    CHECK(class_room_results_error(r) != NULL && class_room_event_at(r, 0) &&
              strstr(class_room_event_at(r, 0), "results not written"),
          "a failed write is the teacher's message: %s", class_room_event_at(r, 0));
    rmdir(path);
    class_room_end(r);
    o = read_json(path);
    CHECK(o && cJSON_IsTrue(cJSON_GetObjectItem(o, "ended")) && num(o, "closed") == 3 &&
              !class_room_results_error(r), "the end: written again, ended");
    cJSON_Delete(o);
    class_room_free(r);
    unlink(path);
    rmdir(dir);
}

/* ---- the student's side: only text, control characters shown, never sent ---- */
static void test_client(void)
{
    ClassClient c;
    char out[4096];
    memset(&c, 0, sizeof c);
    const char *q = "{\"t\":\"question\",\"q\":1,\"n\":3,\"prompt\":\"hi \\u001b]0;pwned\\u0007 "
                    "\\u009b2J\",\"choices\":[\"a\\u001b[31m\"],\"how\":\"one letter\",\"open\":true}";
    CHECK(class_client_line(&c, q, strlen(q), out, sizeof out) == 0, "a question");
    CHECK(!strchr(out, '\x1b') && !strchr(out, '\a') && !strstr(out, "\xc2\x9b"),
          "no control character reaches the terminal: %s", out);
    CHECK(strstr(out, "^[]0;pwned^G") && strstr(out, "a) a^[[31m"), "shown escaped: %s", out);
    CHECK(c.open && c.q == 1, "the question is open");
    CHECK(class_client_line(&c, "[1,2]", 5, out, sizeof out) == -1, "not the protocol");
    const char *e = "{\"t\":\"end\",\"score\":2,\"n\":3}";
    CHECK(class_client_line(&c, e, strlen(e), out, sizeof out) == 1 && strstr(out, "2 of 3"),
          "the end: %s", out);
}

/* ---- on the loopback ---- */

/* Steps the server until cond(ctx) holds, at most 2000 steps of at most 50 ms. */
static int step_until(ClassServer *srv, int (*cond)(void *), void *ctx)
{
    for (int i = 0; i < 2000; i++) {
        if (cond(ctx))
            return 1;
        class_server_step(srv, 50);
    }
    return cond(ctx);
}

typedef struct {
    ClassServer *srv;
    int want;
} Want;

static int students_are(void *p)
{
    Want *w = p;
    return class_room_n_students(class_server_room(w->srv)) == w->want;
}

static int connections_are(void *p)
{
    Want *w = p;
    return class_server_connections(w->srv) == w->want;
}

static int answered_are(void *p)
{
    Want *w = p;
    ClassTally t;
    class_room_tally(class_server_room(w->srv), &t);
    return t.answered == w->want;
}

typedef struct {
    ClassServer *srv;
    const char *what;
} Said;

/* The teacher has been told what (among the last events). */
static int told(void *p)
{
    Said *s = p;
    for (int i = 0; i < CLASS_EVENTS; i++) {
        const char *e = class_room_event_at(class_server_room(s->srv), i);
        if (e && strstr(e, s->what))
            return 1;
    }
    return 0;
}

/* Reads what fd has until a line containing what arrives (the server stepped meanwhile). */
static int read_until(ClassServer *srv, int fd, const char *what)
{
    static char buf[65536];
    size_t len = 0;
    for (int i = 0; i < 2000; i++) {
        class_server_step(srv, 10);
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 10) == 1) {
            ssize_t r = read(fd, buf + len, sizeof buf - 1 - len);
            if (r <= 0)
                return 0;
            len += (size_t)r;
            buf[len] = '\0';
            if (strstr(buf, what))
                return 1;
            if (len > sizeof buf / 2)
                len = 0;
        }
    }
    return 0;
}

static void test_loopback(void)
{
    char err[300], line[300];
    ClassServerOpts o = {"127.0.0.1", -1, "424242", 0};
    ClassServer *srv = class_server_open(make_quiz(), &o, err, sizeof err);
    CHECK(srv != NULL, "%s", err);
    if (!srv)
        return;
    int port = class_server_port(srv);
    char host[64];
    CHECK(!strcmp(class_server_host(srv, host, sizeof host), "127.0.0.1"), "the host: %s", host);
    enum { N = 30 };
    int fd[N];
    for (int i = 0; i < N; i++) {
        fd[i] = class_connect("127.0.0.1", port, 5000, err, sizeof err);
        CHECK(fd[i] >= 0, "%s", err);
        char name[32];
        snprintf(name, sizeof name, "s%d", i);
        class_client_hello("424242", name, NULL, line, sizeof line);
        class_send_line(fd[i], line);
        class_server_step(srv, 0);
    }
    Want w = {srv, N};
    CHECK(step_until(srv, students_are, &w), "30 students joined");
    for (int i = 0; i < N; i++) {
        class_client_answer(1, i % 3 == 1 ? "b" : "a", line, sizeof line);
        class_send_line(fd[i], line);
    }
    w.want = N;
    CHECK(step_until(srv, answered_are, &w), "30 answered");
    ClassTally t;
    class_room_tally(class_server_room(srv), &t);
    CHECK(t.choice[1] == 10 && t.choice[0] == 20, "the distribution: %d %d", t.choice[0],
          t.choice[1]);
    /* garbage: dropped, and the teacher is told */
    int g = class_connect("127.0.0.1", port, 5000, err, sizeof err);
    class_send_line(g, "\x01\x02 GET / HTTP/1.0");
    CHECK(read_until(srv, g, "classroom protocol"), "garbage is answered with the protocol's name");
    close(g);
    /* a flood: dropped by the rate limit */
    int fl = class_connect("127.0.0.1", port, 5000, err, sizeof err);
    class_client_hello("424242", "flood", NULL, line, sizeof line);
    class_send_line(fl, line);
    for (int i = 0; i < 200; i++)
        if (class_send_line(fl, "{\"t\":\"ping\"}"))
            break;
    Said said = {srv, "too many messages"};
    CHECK(step_until(srv, told, &said), "the flood is dropped, and the teacher reads why: %s",
          class_room_event_at(class_server_room(srv), 0));
    close(fl);
    /* a message over the size limit */
    int big = class_connect("127.0.0.1", port, 5000, err, sizeof err);
    char *huge = malloc(CLASS_MAX_LINE * 2);
    memset(huge, 'x', CLASS_MAX_LINE * 2 - 1);
    huge[CLASS_MAX_LINE * 2 - 1] = '\0';
    class_send_line(big, huge);
    free(huge);
    said.what = "longer than the limit";
    CHECK(step_until(srv, told, &said), "an oversized message is dropped");
    close(big);
    w.want = N;
    CHECK(step_until(srv, connections_are, &w), "back to %d connections (%d)", N,
          class_server_connections(srv));
    /* the cap: CLASS_MAX_CLIENTS connections, the next is refused with a message */
    int extra[CLASS_MAX_CLIENTS];
    int n_extra = CLASS_MAX_CLIENTS - N;
    for (int i = 0; i < n_extra; i++) { /* accepted as they come (the backlog is bounded) */
        extra[i] = class_connect("127.0.0.1", port, 5000, err, sizeof err);
        class_server_step(srv, 0);
    }
    w.want = CLASS_MAX_CLIENTS;
    CHECK(step_until(srv, connections_are, &w), "%d connections", CLASS_MAX_CLIENTS);
    int over = class_connect("127.0.0.1", port, 5000, err, sizeof err);
    CHECK(read_until(srv, over, "the room is full"), "connection %d is refused",
          CLASS_MAX_CLIENTS + 1);
    close(over);
    for (int i = 0; i < n_extra; i++)
        close(extra[i]);
    w.want = N;
    CHECK(step_until(srv, connections_are, &w), "the extra connections close");
    /* the students' answers survived all that */
    class_room_tally(class_server_room(srv), &t);
    CHECK(t.answered == N && t.students == N + 1, "still 30 answered, of 31 (the flood joined)");
    for (int i = 0; i < N; i++)
        close(fd[i]);
    class_server_free(srv);
}

int main(void)
{
    test_room();
    test_results_each_question();
    test_client();
    test_loopback();
    return t_done("class");
}
