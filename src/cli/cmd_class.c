/* cmd_class.c - `attend class serve` (the class quiz with a room of students open: attend
 * quiz --class --serve) and `attend class join HOST CODE [--name NAME]`, the student's side:
 * plain lines on any terminal or through a pipe, one line of input per answer
 * (docs/classroom.md). */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "class_client.h"
#include "class_net.h"
#include "cmd.h"
#include "fileio.h"
#include "present_state.h"
#include "ui_text.h"

static const char CLASS_USAGE[] =
    "usage: attend class serve [--lesson ID] [--count N] [--seed S] [--time S] [--port P]\n"
    "                          [--bind ADDR] [--names] [--results FILE] [--lessons DIR]\n"
    "                          [--code NNNNNN] [--plain]\n"
    "       attend class join HOST[:PORT] CODE [--name NAME] [--new] [--tries N]\n"
    "                         [--backoff S] [--backoff-max S]\n"
    "  serve          the class quiz on this terminal (the projector) with a room open:\n"
    "                 it shows the room code and the command students type; without a\n"
    "                 terminal (a pipe, a script) or with --plain, plain lines: commands\n"
    "                 on stdin (r, n, s, q, wait), the room and a countdown on stdout\n"
    "  join           answer the room's questions from this terminal (plain lines; a pipe\n"
    "                 works: one line per answer)\n"
    "  --name NAME    the name the teacher sees (shown on the projector only with --names)\n"
    "  --new          join as a new student (by default a rejoin keeps your score)\n"
    "  --tries N      after a dropped connection, reconnect at most N times (default 6;\n"
    "                 0: do not reconnect), with the same token: the score is kept and\n"
    "                 answers typed meanwhile are sent after it\n"
    "  --backoff S    the wait before the first try, in seconds (default 0.2); doubled\n"
    "                 after each try up to --backoff-max S (default 3.2): by default the\n"
    "                 six tries span about 10 s\n"
    "  serve takes attend quiz's options too (attend quiz --help); docs/classroom.md says\n"
    "  how to run it in a lab (the port, the firewall, what leaves the machine).";

#define QUEUE_MAX 32
#define JOIN_TRIES 6          /* default --tries: reconnections tried after a dropped one */
#define JOIN_BACKOFF 0.2      /* default --backoff: the first wait (s), doubled each try */
#define JOIN_BACKOFF_MAX 3.2  /* default --backoff-max: the longest wait (s) */

/* How a student's terminal reconnects (--tries, --backoff, --backoff-max). */
typedef struct {
    int tries;
    long long first_ms, max_ms;
} Retry;

typedef struct {
    int fd;
    ClassClient cc;
    char in[CLASS_CLIENT_MAX_LINE];
    size_t in_len;
    char queue[QUEUE_MAX][256]; /* answers typed before a question took them */
    int nq;
    int pending;               /* an answer sent, its verdict not come yet */
    char sent[256];            /* that answer, sent again after a reconnection if the room */
    int sent_q;                /* ... did not record it for question sent_q */
    int resend_q;              /* queue[0] is that answer, for question resend_q (0: none) */
    char token_path[1200];
} Join;

static long long mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The token file of this room and name: a rejoin finds it (state directory, mode 0700). */
static void token_path(Join *j, const char *host, int port, const char *code, const char *name)
{
    char dir[512], err[600], hex[2 * CLASS_NAME_MAX + 1] = "", safe_host[80];
    j->token_path[0] = '\0';
    if (present_state_dir(dir, sizeof dir, 1, err, sizeof err))
        return;
    for (size_t i = 0; name && name[i] && i < CLASS_NAME_MAX; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)name[i]);
    size_t k = 0;
    for (const char *p = host; *p && k + 1 < sizeof safe_host; p++)
        safe_host[k++] = (*p == '/' || *p == '.') ? '_' : *p;
    safe_host[k] = '\0';
    snprintf(j->token_path, sizeof j->token_path, "%s/class-%s-%d-%s-%s.token", dir, safe_host,
             port, code, hex);
}

static void token_load(Join *j, char *token)
{
    char *text = NULL, err[600];
    size_t len = 0;
    token[0] = '\0';
    if (!j->token_path[0] || fileio_read(j->token_path, 256, &text, &len, err, sizeof err))
        return;
    if (len >= CLASS_TOKEN_LEN && strspn(text, "0123456789abcdef") >= CLASS_TOKEN_LEN)
        snprintf(token, CLASS_TOKEN_LEN + 1, "%s", text);
    free(text);
}

/* ---- the student's text on the terminal ---- */

/* The terminal's width, 0 when stdout is not a terminal (a pipe gets the lines whole). */
static int out_width(void)
{
    struct winsize ws;
    if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || ws.ws_col < 20)
        return 0;
    return ws.ws_col;
}

typedef struct {
    int indent, first;
} WrapAt;

static void wrap_line(const char *s, int len, void *ctx)
{
    WrapAt *w = ctx;
    printf("%*s%.*s\n", w->first ? 0 : w->indent, "", len, s);
    w->first = 0;
}

/* Prints one line at width w: whole when it fits, or when it is a row of a question's weights
 * (two spaces and no "x) ": a table the terminal may cut but words must not); else wrapped
 * at spaces, the next lines under the text (a choice's under its words). */
static void show_line(const char *line, int w)
{
    size_t sp = strspn(line, " ");
    int choice = sp == 2 && line[2] >= 'a' && line[2] <= 'z' && line[3] == ')' && line[4] == ' ';
    if (!w || ui_width(line) <= w || (sp >= 2 && !choice)) {
        printf("%s\n", line);
        return;
    }
    WrapAt at = {(int)sp + (choice ? 3 : 0), 1};
    if (at.indent > w / 2)
        at.indent = 0;
    printf("%.*s", (int)sp, line);
    ui_wrap(line + sp, w - at.indent - 1, wrap_line, &at);
}

/* What the room said, as text for this terminal: in ASCII when the locale is not UTF-8
 * ("-inf" for "−∞"), each line wrapped to the terminal's width. */
static void show(const char *text)
{
    static char tr[CLASS_CLIENT_MAX_LINE * 2], line[CLASS_CLIENT_MAX_LINE];
    ui_text(text, tr, sizeof tr);
    int w = out_width();
    for (const char *p = tr; *p;) {
        size_t n = strcspn(p, "\n");
        snprintf(line, sizeof line, "%.*s", (int)n, p);
        show_line(line, w);
        p += n + (p[n] == '\n');
    }
    fflush(stdout);
}

/* Sends the next typed answer when a question takes one. */
static int pump(Join *j)
{
    if (!j->cc.open || j->cc.answered || j->pending || !j->nq)
        return 0;
    char line[600];
    class_client_answer(j->cc.q, j->queue[0], line, sizeof line);
    snprintf(j->sent, sizeof j->sent, "%s", j->queue[0]);
    j->sent_q = j->cc.q;
    memmove(j->queue[0], j->queue[1], (size_t)(j->nq - 1) * sizeof j->queue[0]);
    j->nq--;
    j->pending = 1;
    return class_send_line(j->fd, line);
}

/* The room's whole lines: shown, the state followed. 1 at the end, -1 on an error. */
static int room_lines(Join *j)
{
    static char out[16384];
    size_t start = 0;
    int rc = 0;
    for (size_t e = 0; e < j->in_len && rc == 0; e++) {
        if (j->in[e] != '\n')
            continue;
        char had_token[CLASS_TOKEN_LEN + 1];
        snprintf(had_token, sizeof had_token, "%s", j->cc.token);
        rc = class_client_line(&j->cc, j->in + start, e - start, out, sizeof out);
        show(out);
        start = e + 1;
        if (!strcmp(j->cc.last, "ack") || !strcmp(j->cc.last, "invalid") ||
            !strcmp(j->cc.last, "question"))
            j->pending = 0; /* the answer sent has its verdict, or a new question came */
        if (!strcmp(j->cc.last, "question") && j->resend_q) { /* after a reconnection */
            if ((j->cc.q != j->resend_q || j->cc.answered || !j->cc.open) && j->nq) {
                memmove(j->queue[0], j->queue[1], (size_t)(j->nq - 1) * sizeof j->queue[0]);
                j->nq--; /* recorded before the drop, or too late: not for another question */
            }
            j->resend_q = 0;
        }
        if (strcmp(had_token, j->cc.token) && j->token_path[0]) {
            char err[600];
            if (fileio_write_file(j->token_path, 0600, j->cc.token, strlen(j->cc.token), err,
                                  sizeof err))
                fprintf(stderr, "attend class: a rejoin will not keep the score: %s\n", err);
        }
    }
    memmove(j->in, j->in + start, j->in_len - start);
    j->in_len -= start;
    return rc;
}

/* One try to reconnect to host:port as the same student (its token; the room's new one
 * when it gave one). An answer sent whose verdict never came goes first in the queue again.
 * 0, or -1 when the try failed. */
static int reconnect(Join *j, const char *host, int port, const char *code, const char *name,
                     const char *token)
{
    char err[600], line[800];
    j->fd = class_connect(host, port, 3000, err, sizeof err);
    j->in_len = 0;
    if (j->fd < 0)
        return -1;
    if (j->pending && j->sent[0] && j->nq < QUEUE_MAX) { /* its verdict never came */
        memmove(j->queue[1], j->queue[0], (size_t)j->nq * sizeof j->queue[0]);
        snprintf(j->queue[0], sizeof j->queue[0], "%s", j->sent);
        j->nq++;
        j->resend_q = j->sent_q;
    }
    j->pending = 0;
    j->cc.open = 0;
    class_client_hello(code, name, j->cc.token[0] ? j->cc.token : token, line, sizeof line);
    return class_send_line(j->fd, line) ? -1 : 0;
}

/* The wait before try number k (0-based): the first doubled k times, at most the longest. */
static long long retry_wait(const Retry *rt, int k)
{
    long long w = rt->first_ms;
    for (int i = 0; i < k && w < rt->max_ms; i++)
        w *= 2;
    return w < rt->max_ms ? w : rt->max_ms;
}

static int join_main(const char *hostport, const char *code, const char *name, int fresh,
                     const Retry *rt)
{
    char host[256], err[600], token[CLASS_TOKEN_LEN + 1] = "", line[800];
    int port = CLASS_DEFAULT_PORT;
    snprintf(host, sizeof host, "%s", hostport);
    char *colon = strrchr(host, ':');
    if (colon && strchr(host, ':') == colon) { /* HOST:PORT (an IPv6 address has several) */
        char *end;
        long p = strtol(colon + 1, &end, 10);
        if (*end || p < 1 || p > 65535) {
            fprintf(stderr, "attend class join: \"%s\": the port after ':' is 1..65535\n",
                    hostport);
            return 2;
        }
        port = (int)p;
        *colon = '\0';
    }
    if (strlen(code) != CLASS_CODE_LEN || strspn(code, "0123456789") != CLASS_CODE_LEN) {
        fprintf(stderr, "attend class join: the room code is the %d digits on the projector, "
                "not \"%s\"\n", CLASS_CODE_LEN, code);
        return 2;
    }
    if (name && strlen(name) > CLASS_NAME_MAX) {
        fprintf(stderr, "attend class join: --name: at most %d bytes\n", CLASS_NAME_MAX);
        return 2;
    }
    setlocale(LC_ALL, "");
    const char *cs = nl_langinfo(CODESET);
    ui.utf8 = cs && !strcmp(cs, "UTF-8"); /* else the room's text in ASCII */
    Join *j = calloc(1, sizeof *j);
    if (!j) {
        fprintf(stderr, "attend class join: out of memory\n");
        return 1;
    }
    token_path(j, host, port, code, name);
    if (!fresh)
        token_load(j, token);
    j->fd = class_connect(host, port, 10000, err, sizeof err);
    if (j->fd < 0) {
        fprintf(stderr, "attend class join: %s\n", err);
        free(j);
        return 1;
    }
    class_client_hello(code, name, token, line, sizeof line);
    int rc = class_send_line(j->fd, line) ? -2 : 0, stdin_open = 1, tries = 0;
    long long retry_at = 0, lost_at = 0;
    while (rc == 0 || rc == -2) {
        if (rc == -2) { /* the connection dropped: reconnect after a wait, keeping the token */
            if (j->fd >= 0) {
                close(j->fd);
                j->fd = -1;
            }
            if (tries == 0)
                lost_at = mono_ms();
            if (tries >= rt->tries) {
                if (rt->tries == 0)
                    fprintf(stderr, "attend class join: the connection dropped (%s:%d; --tries "
                            "0: no reconnection); run the same command again to rejoin (your "
                            "score is kept)\n", host, port);
                else
                    fprintf(stderr, "attend class join: the room did not come back: gave up "
                            "after %d tr%s over %lld s (%s:%d); run the same command again to "
                            "rejoin (your score is kept)\n", rt->tries,
                            rt->tries == 1 ? "y" : "ies", (mono_ms() - lost_at + 500) / 1000,
                            host, port);
                rc = -1;
                break;
            }
            retry_at = mono_ms() + retry_wait(rt, tries);
            tries++;
            fprintf(stderr, "attend class join: the connection dropped; reconnecting (try %d of "
                    "%d)\n", tries, rt->tries);
            rc = 0;
        }
        if (j->fd < 0 && mono_ms() >= retry_at) {
            rc = reconnect(j, host, port, code, name, token) ? -2 : 0;
            continue;
        }
        long long left = j->fd < 0 ? retry_at - mono_ms() : -1;
        struct pollfd p[2] = {{j->fd, POLLIN, 0}, {stdin_open ? STDIN_FILENO : -1, POLLIN, 0}};
        if (poll(p, 2, left < 0 ? -1 : (int)left) < 0) { /* fd -1: poll skips it */
            if (errno == EINTR)
                continue;
            rc = -1;
            break;
        }
        if (j->fd >= 0 && p[0].revents) {
            if (j->in_len == sizeof j->in) {
                fprintf(stderr, "attend class join: the room sent a message too long\n");
                rc = -1;
                break;
            }
            ssize_t r = read(j->fd, j->in + j->in_len, sizeof j->in - j->in_len);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                rc = -2;
                continue;
            }
            tries = 0; /* the room answers again */
            j->in_len += (size_t)r;
            rc = room_lines(j);
        }
        if (stdin_open && (p[1].revents & (POLLIN | POLLHUP))) {
            if (!fgets(line, sizeof line, stdin)) {
                stdin_open = 0; /* a script ended: its answers are queued, the room goes on */
            } else {
                line[strcspn(line, "\r\n")] = '\0';
                if (line[0] && j->nq < QUEUE_MAX)
                    snprintf(j->queue[j->nq++], sizeof j->queue[0], "%.255s", line);
                if (line[0] && !(j->cc.open && !j->cc.answered) && isatty(STDIN_FILENO))
                    printf("(no question takes an answer now; kept for the next one)\n");
            }
        }
        if (rc == 0 && j->fd >= 0 && pump(j))
            rc = -2;
    }
    if (j->fd >= 0)
        close(j->fd);
    free(j);
    return rc == 1 ? 0 : 1;
}

int cmd_class(int argc, char **argv)
{
    if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
        fprintf(argc < 1 ? stderr : stdout, "%s\n", CLASS_USAGE);
        return argc < 1 ? 2 : 0;
    }
    if (!strcmp(argv[0], "serve")) {
        char *args[80];
        int n = 0;
        args[n++] = "--class";
        args[n++] = "--serve";
        for (int i = 1; i < argc && n < 78; i++)
            args[n++] = argv[i];
        args[n] = NULL;
        return cmd_quiz(n, args);
    }
    if (strcmp(argv[0], "join")) {
        fprintf(stderr, "attend class: \"%s\": serve or join\n%s\n", argv[0], CLASS_USAGE);
        return 2;
    }
    const char *host = NULL, *code = NULL, *name = NULL;
    int fresh = 0;
    long tries = JOIN_TRIES;
    double backoff = JOIN_BACKOFF, backoff_max = JOIN_BACKOFF_MAX;
    const Opt opts[] = {
        OPT_A("HOST", &host), OPT_A("CODE", &code), OPT_S("--name", &name),
        OPT_F("--new", &fresh), OPT_I("--tries", &tries, 0, 100),
        OPT_R("--backoff", &backoff, 0.01, 60), OPT_R("--backoff-max", &backoff_max, 0.01, 600),
    };
    int rc = opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc - 1, argv + 1,
                        "attend class join", CLASS_USAGE);
    if (rc >= 0)
        return rc;
    if (!host || !code)
        return opts_usage_error("attend class join", CLASS_USAGE,
                                "which room? HOST and CODE, as the projector shows them");
    if (backoff_max < backoff) {
        char msg[200];
        snprintf(msg, sizeof msg, "--backoff-max %g is shorter than --backoff %g (the first "
                 "wait)", backoff_max, backoff);
        return opts_usage_error("attend class join", CLASS_USAGE, msg);
    }
    Retry rt = {(int)tries, (long long)(backoff * 1000 + 0.5),
                (long long)(backoff_max * 1000 + 0.5)};
    return join_main(host, code, name, fresh, &rt);
}
