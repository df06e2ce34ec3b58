/* cmd_class_serve.c - `attend class serve --plain`: the teacher's side of a room without a
 * terminal (docs/classroom.md). The room (class_net.h) is served as the projector serves it;
 * the teacher's commands come as lines on stdin (r, n, s, q, wait ...) and what the projector
 * would show goes to stdout as plain lines: the question, each change of the count, the
 * distribution, the answer, the scores, the teacher's messages. So a room can be run from a
 * script, and tested without tmux: `wait answered N` holds the script until N answered. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "class_net.h"
#include "cmd.h"
#include "safetext.h"

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
    stop_sig = sig;
}

/* A wait the script asked for: until `what` reaches n (at most until `until`, 0: no limit). */
typedef struct {
    int on;
    char what[16];           /* "answered", "students", "connected" */
    int n;
    long long until;         /* monotonic ms, 0: none */
} Wait;

typedef struct {
    ClassServer *srv;
    ClassRoom *r;
    const QuizSet *s;
    long seen_events;
    int last[3];             /* answered, students, connected as last said */
    int last_q;
    char in[4096];           /* stdin's bytes not yet a whole line */
    size_t in_len;
    int in_open;
    Wait w;
    int failed;              /* a wait gave up: the exit status is 1 */
    int time_s;              /* --time: the countdown per question */
    long long qstart;        /* monotonic ms: when the question was asked */
    int next_mark;           /* the countdown's next line: seconds left (0: time is up, -1:
                                said, or no countdown) */
} Serve;

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The countdown's lines: every minute above one, then at 30, 20, 10 and 5 seconds left. The
 * next mark below left seconds (0 when none: the next line is "time is up"). */
static int mark_below(int left)
{
    static const int marks[] = {30, 20, 10, 5};
    if (left > 60)
        return (left - 1) / 60 * 60;
    for (int i = 0; i < 4; i++)
        if (marks[i] < left)
            return marks[i];
    return 0;
}

static void clock_text(int secs, char *out, size_t n)
{
    snprintf(out, n, "%d:%02d", secs / 60, secs % 60);
}

/* The question as students get it: the lead, the prompt, the setup the engine answered on,
 * a cell question's weights, the choices; the time to answer with --time. */
static void say_question(Serve *v)
{
    int q = class_room_question(v->r);
    const QuizItem *it = &v->s->items[q];
    char line[QUIZ_GRID_MAX * 8 + 40], when[16];
    printf("question %d of %d", q + 1, class_room_n_questions(v->r));
    if (v->time_s > 0) {
        clock_text(v->time_s, when, sizeof when);
        printf(" (%s to answer)", when);
    }
    printf(": %s%s%s\n", it->lead, it->lead[0] ? " " : "", it->prompt);
    if (it->context[0])
        printf("  setup: %s\n", it->context);
    for (int i = 0; class_room_grid_line(it, i, line, sizeof line); i++)
        printf("  %s\n", line);
    for (int c = 0; c < it->n_choices; c++)
        printf("  %c) %s\n", 'a' + c, it->choices[c]);
    v->last_q = q;
    v->last[0] = v->last[1] = v->last[2] = -1;
    v->qstart = now_ms();
    v->next_mark = v->time_s > 0 ? mark_below(v->time_s) : -1;
}

/* The countdown while the question takes answers: a line at each mark, with the count, and
 * "time is up" at 0:00 (the answers stay open until r: the teacher decides). */
static void say_countdown(Serve *v)
{
    if (v->next_mark < 0 || class_room_phase(v->r) != CLASS_ASKING)
        return;
    long long left_ms = (long long)v->time_s * 1000 - (now_ms() - v->qstart);
    if (left_ms > (long long)v->next_mark * 1000)
        return;
    ClassTally t;
    class_room_tally(v->r, &t);
    int q = class_room_question(v->r) + 1;
    if (v->next_mark == 0 || left_ms <= 0) {
        printf("time is up: question %d (answered %d of %d); r closes the answers\n", q,
               t.answered, t.students);
        v->next_mark = -1;
        return;
    }
    int left = (int)((left_ms + 999) / 1000);
    char when[16];
    clock_text(left < v->next_mark ? left : v->next_mark, when, sizeof when);
    printf("%s left: question %d (answered %d of %d)\n", when, q, t.answered, t.students);
    v->next_mark = mark_below(left < v->next_mark ? left : v->next_mark);
}

static void say_count(Serve *v)
{
    ClassTally t;
    class_room_tally(v->r, &t);
    if (t.answered == v->last[0] && t.students == v->last[1] && t.connected == v->last[2])
        return;
    v->last[0] = t.answered, v->last[1] = t.students, v->last[2] = t.connected;
    printf("answered %d of %d student%s (%d connected)\n", t.answered, t.students,
           t.students == 1 ? "" : "s", t.connected);
}

/* The distribution once the answers are closed: per choice, or right / wrong and the most
 * given answers. */
static void say_distribution(Serve *v, int revealed)
{
    ClassTally t;
    const QuizItem *it = &v->s->items[class_room_question(v->r)];
    class_room_tally(v->r, &t);
    printf("distribution:");
    if (it->n_choices) {
        for (int c = 0; c < it->n_choices; c++)
            printf("%s %c) %d%s", c ? "," : "", 'a' + c, t.choice[c],
                   revealed && (it->correct >> c & 1) ? " (right)" : "");
        printf("\n");
        return;
    }
    printf(" right %d, wrong %d", t.right, t.wrong);
    for (int k = 0; k < t.n_top; k++)
        printf("%s\"%s\" %d", k ? ", " : "; most given: ", t.top[k], t.top_n[k]);
    printf("\n");
}

static void say_scores(Serve *v, int names)
{
    char line[800];
    printf("%s\n", class_room_scores_text(v->r, line, sizeof line));
    if (!names)
        return;
    for (int i = 0; i < class_room_n_students(v->r); i++) {
        const ClassStudent *st = class_room_student(v->r, i);
        printf("  %s: %d of %d\n", st->name, st->score, st->answered);
    }
}

static void say_reveal(Serve *v)
{
    const QuizItem *it = &v->s->items[class_room_question(v->r)];
    char ans[1400];
    class_room_answer_text(it, ans, sizeof ans);
    if (it->n_choices) /* the right choices marked */
        say_distribution(v, 1);
    printf("answer: %s\n", ans);
    if (it->explain[0])
        printf("why: %s\n", it->explain);
    say_scores(v, class_room_names(v->r));
}

static void say_events(Serve *v)
{
    long n = class_room_events(v->r), k = n - v->seen_events;
    if (k > CLASS_EVENTS)
        k = CLASS_EVENTS;
    for (long i = k - 1; i >= 0; i--)
        printf("room: %s\n", class_room_event_at(v->r, (int)i));
    v->seen_events = n;
}

/* 1 when the wait's condition holds. */
static int wait_done(Serve *v)
{
    ClassTally t;
    class_room_tally(v->r, &t);
    int have = !strcmp(v->w.what, "answered") ? t.answered
               : !strcmp(v->w.what, "students") ? t.students : t.connected;
    return have >= v->w.n;
}

static const char HELP[] =
    "commands: r (close the answers, then reveal), n (the next question; after the last, the "
    "end), s (the count now), wait answered|students|connected N [SECONDS], q (end the room)";

/* One teacher's line. 1 when the room is to end. */
static int command(Serve *v, char *line)
{
    char word[32] = "", what[16] = "";
    int n = -1;
    double secs = 0;
    int got = sscanf(line, "%31s %15s %d %lf", word, what, &n, &secs);
    if (got < 1 || word[0] == '#')
        return 0;
    if (!strcmp(word, "r") || !strcmp(word, "reveal")) {
        if (class_room_phase(v->r) == CLASS_ASKING) {
            class_room_close(v->r);
            say_events(v);
            say_count(v);
            printf("closed: question %d takes no more answers\n", class_room_question(v->r) + 1);
            say_distribution(v, 0);
        } else if (class_room_phase(v->r) == CLASS_CLOSED) {
            class_room_reveal(v->r);
            say_reveal(v);
        } else {
            printf("(question %d is revealed already: n goes on)\n",
                   class_room_question(v->r) + 1);
        }
    } else if (!strcmp(word, "n") || !strcmp(word, "next")) {
        class_room_next(v->r);
        if (class_room_phase(v->r) == CLASS_ENDED)
            return 1;
        say_question(v);
        say_count(v);
    } else if (!strcmp(word, "s") || !strcmp(word, "status")) {
        v->last[0] = -1;
        say_count(v);
    } else if (!strcmp(word, "q") || !strcmp(word, "quit") || !strcmp(word, "end")) {
        return 1;
    } else if (!strcmp(word, "wait")) {
        if (got < 3 || n < 0 || (strcmp(what, "answered") && strcmp(what, "students") &&
                                 strcmp(what, "connected")) || secs < 0) {
            printf("wait: \"%s\": wait answered|students|connected N [SECONDS]\n", line);
            return 0;
        }
        snprintf(v->w.what, sizeof v->w.what, "%s", what);
        v->w.n = n;
        v->w.until = got >= 4 && secs > 0 ? now_ms() + (long long)(secs * 1000) : 0;
        v->w.on = 1;
    } else if (!strcmp(word, "help") || !strcmp(word, "?")) {
        printf("%s\n", HELP);
    } else {
        printf("unknown command \"%s\"; %s\n", word, HELP);
    }
    return 0;
}

/* Reads what stdin has; runs its whole lines (none while a wait holds). 1: the room ends. */
static int read_commands(Serve *v)
{
    if (v->in_open) {
        struct pollfd p = {STDIN_FILENO, POLLIN, 0};
        if (poll(&p, 1, 0) > 0 && p.revents) {
            ssize_t r = read(STDIN_FILENO, v->in + v->in_len, sizeof v->in - 1 - v->in_len);
            if (r > 0)
                v->in_len += (size_t)r;
            else if (r == 0 || errno != EINTR)
                v->in_open = 0;
        }
    }
    while (!v->w.on) {
        char *nl = memchr(v->in, '\n', v->in_len);
        if (!nl && v->in_len == sizeof v->in - 1)
            nl = v->in + v->in_len - 1; /* a line too long: taken as it is */
        if (!nl) {
            if (!v->in_open && v->in_len == 0) {
                printf("(end of the teacher's input: the room ends)\n");
                return 1;
            }
            if (!v->in_open) { /* a last line without its newline */
                v->in[v->in_len] = '\n';
                continue;
            }
            return 0;
        }
        *nl = '\0';
        size_t used = (size_t)(nl - v->in) + 1;
        char line[4096];
        snprintf(line, sizeof line, "%s", v->in);
        memmove(v->in, v->in + used, v->in_len - used);
        v->in_len -= used;
        line[strcspn(line, "\r")] = '\0';
        if (command(v, line))
            return 1;
    }
    return 0;
}

int cmd_class_serve_plain(const QuizSet *s, const ClassServerOpts *o, const char *results,
                          int time_s)
{
    char err[800], host[80];
    safetext_wrap(&stdout, 0); /* lessons and students' names: never escape sequences */
    setvbuf(stdout, NULL, _IOLBF, 0);
    Serve *v = calloc(1, sizeof *v);
    if (!v) {
        fprintf(stderr, "attend class serve: out of memory\n");
        return 1;
    }
    v->srv = class_server_open(s, o, err, sizeof err);
    if (!v->srv) {
        fprintf(stderr, "attend class serve: %s\n", err);
        free(v);
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    v->r = class_server_room(v->srv);
    v->s = s;
    v->in_open = 1;
    v->time_s = time_s;
    class_room_set_results(v->r, results);
    int port = class_server_port(v->srv);
    class_server_host(v->srv, host, sizeof host);
    if (port == CLASS_DEFAULT_PORT)
        printf("room %s: attend class join %s %s\n", class_room_code(v->r), host,
               class_room_code(v->r));
    else
        printf("room %s: attend class join %s:%d %s\n", class_room_code(v->r), host, port,
               class_room_code(v->r));
    printf("class quiz: %s (seed %llu), %d question%s; %s\n", s->title,
           (unsigned long long)s->seed, class_room_n_questions(v->r),
           class_room_n_questions(v->r) == 1 ? "" : "s", HELP);
    say_question(v);
    int rc = 0;
    while (!stop_sig) {
        if (class_server_step(v->srv, 20) < 0 && errno != EINTR) {
            fprintf(stderr, "attend class serve: the network: %s\n", strerror(errno));
            rc = 1;
            break;
        }
        say_events(v);
        say_count(v);
        say_countdown(v);
        if (v->w.on && wait_done(v)) {
            v->w.on = 0;
            printf("waited: %s %d\n", v->w.what, v->w.n);
        } else if (v->w.on && v->w.until && now_ms() >= v->w.until) {
            v->w.on = 0;
            v->failed = 1;
            printf("wait: gave up waiting for %s %d\n", v->w.what, v->w.n);
            fprintf(stderr, "attend class serve: a wait gave up: %s %d\n", v->w.what, v->w.n);
        }
        if (read_commands(v))
            break;
    }
    class_room_end(v->r); /* every student told; --results written a last time */
    class_server_step(v->srv, 0);
    say_events(v);
    printf("the end: %d question%s, %d student%s\n", class_room_n_questions(v->r),
           class_room_n_questions(v->r) == 1 ? "" : "s", class_room_n_students(v->r),
           class_room_n_students(v->r) == 1 ? "" : "s");
    say_scores(v, class_room_names(v->r));
    if (results && class_room_results_error(v->r)) {
        fprintf(stderr, "attend class serve: results not written: %s\n",
                class_room_results_error(v->r));
        rc = 1;
    } else if (results) {
        printf("results in %s\n", results);
    }
    class_server_free(v->srv);
    rc = stop_sig ? 128 + stop_sig : rc ? rc : v->failed;
    free(v);
    return rc;
}
