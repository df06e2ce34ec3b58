/* class_bench.c - the classroom's room under a long quiz (bench/class_bench.sh, make bench):
 * a server on 127.0.0.1 in this process, 100 students in a child process answering every
 * question as it comes, 120 questions (answers, close, reveal, next; one every 250 ms, within
 * the students' rate limit). Prints the server's CPU per question over the first and the last
 * 40 questions and its resident memory after each
 * stretch: flat when nothing grows with the questions asked. Not a test: a measurement. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "class_client.h"
#include "class_net.h"

#define STUDENTS 100
#define QUESTIONS 120
#define STRETCH 40     /* questions in the first and the last stretch measured */
#define PACE_MS 250    /* a question at most every 250 ms: students' rate limit is 5/s */

static double cpu_ms(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

static long rss_kb(void)
{
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* The students: each answers every question it is asked, a letter from its number. */
static int students(int port)
{
    static int fd[STUDENTS];
    static char buf[STUDENTS][8192];
    static size_t len[STUDENTS];
    static ClassClient cc[STUDENTS];
    char err[300], line[400], out[16384];
    for (int i = 0; i < STUDENTS; i++) {
        fd[i] = class_connect("127.0.0.1", port, 10000, err, sizeof err);
        if (fd[i] < 0)
            return 1;
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        class_client_hello("111111", name, NULL, line, sizeof line);
        class_send_line(fd[i], line);
    }
    int ended = 0;
    while (ended < STUDENTS) {
        struct pollfd p[STUDENTS];
        for (int i = 0; i < STUDENTS; i++)
            p[i] = (struct pollfd){fd[i], POLLIN, 0};
        if (poll(p, STUDENTS, 10000) <= 0)
            return 1;
        for (int i = 0; i < STUDENTS; i++) {
            if (!p[i].revents)
                continue;
            ssize_t r = read(fd[i], buf[i] + len[i], sizeof buf[i] - len[i]);
            if (r <= 0)
                return 1;
            len[i] += (size_t)r;
            size_t start = 0;
            for (size_t e = 0; e < len[i]; e++) {
                if (buf[i][e] != '\n')
                    continue;
                int rc = class_client_line(&cc[i], buf[i] + start, e - start, out, sizeof out);
                start = e + 1;
                if (rc == 1)
                    ended++;
                if (!strcmp(cc[i].last, "question") && cc[i].open) {
                    char a[2] = {(char)('a' + (i + cc[i].q) % 3), 0};
                    class_client_answer(cc[i].q, a, line, sizeof line);
                    class_send_line(fd[i], line);
                }
            }
            memmove(buf[i], buf[i] + start, len[i] - start);
            len[i] -= start;
        }
    }
    return 0;
}

int main(void)
{
    static QuizSet s;
    static QuizItem items[QUESTIONS];
    snprintf(s.title, sizeof s.title, "bench");
    for (int q = 0; q < QUESTIONS; q++) {
        QuizItem *it = &items[q];
        it->kind = QK_CHOICE;
        snprintf(it->key, sizeof it->key, "bench/q%d", q);
        snprintf(it->prompt, sizeof it->prompt, "Question %d: which one? A prompt of a few words "
                 "as the course's are, with a setup line below it.", q);
        snprintf(it->context, sizeof it->context, "Sentence \"the cat sat on the mat\"; mask causal");
        it->n_choices = 3;
        for (int c = 0; c < 3; c++)
            snprintf(it->choices[c], sizeof it->choices[c], "choice %d of question %d", c, q);
        it->correct = 1u << (q % 3);
        snprintf(it->explain, sizeof it->explain, "Because of the reason %d.", q);
    }
    s.items = items;
    s.n = s.cap = QUESTIONS;
    char err[300];
    ClassServerOpts o = {"127.0.0.1", -1, "111111", 0};
    ClassServer *srv = class_server_open(&s, &o, err, sizeof err);
    if (!srv) {
        fprintf(stderr, "class_bench: %s\n", err);
        return 1;
    }
    pid_t kid = fork();
    if (kid == 0)
        _exit(students(class_server_port(srv)));
    ClassRoom *r = class_server_room(srv);
    double c0 = cpu_ms(), c50 = 0, c150 = 0;
    long rss50 = 0;
    time_t t0 = time(NULL);
    for (int q = 0; q < QUESTIONS; q++) {
        ClassTally t;
        struct timespec qs;
        clock_gettime(CLOCK_MONOTONIC, &qs);
        long long until = (long long)qs.tv_sec * 1000 + qs.tv_nsec / 1000000 + PACE_MS;
        do {
            if (class_server_step(srv, 100) < 0 || time(NULL) - t0 > 300) {
                fprintf(stderr, "class_bench: the students stopped answering (%s)\n",
                        class_room_event_at(r, 0) ? class_room_event_at(r, 0) : "");
                kill(kid, SIGKILL);
                return 1;
            }
            class_room_tally(r, &t);
        } while (t.answered < STUDENTS);
        for (;;) { /* the pace: the room keeps serving meanwhile */
            clock_gettime(CLOCK_MONOTONIC, &qs);
            long long now = (long long)qs.tv_sec * 1000 + qs.tv_nsec / 1000000;
            if (now >= until)
                break;
            class_server_step(srv, (int)(until - now));
        }
        class_room_close(r);
        class_room_reveal(r);
        class_room_next(r);
        if (q == STRETCH - 1) {
            c50 = cpu_ms();
            rss50 = rss_kb();
        }
        if (q == QUESTIONS - STRETCH - 1)
            c150 = cpu_ms();
    }
    double c200 = cpu_ms();
    long rss200 = rss_kb();
    for (int i = 0; i < 200 && class_server_connections(srv) > 0; i++)
        class_server_step(srv, 50); /* the students read the end and leave */
    int st = 0;
    waitpid(kid, &st, 0);
    printf("== class room: %d students on 127.0.0.1, %d questions (answer, close, reveal, next)\n",
           STUDENTS, QUESTIONS);
    printf("  server CPU per question: %.2f ms (questions 1-%d), %.2f ms (%d-%d); "
           "RSS %ld KB after %d, %ld KB after %d%s\n",
           (c50 - c0) / STRETCH, STRETCH, (c200 - c150) / STRETCH, QUESTIONS - STRETCH + 1,
           QUESTIONS, rss50, STRETCH, rss200, QUESTIONS,
           WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "" : " (a student failed)");
    class_server_free(srv);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
