/* class_room.h - a classroom quiz's room (docs/classroom.md): the line protocol students'
 * terminals speak (JSON lines, version CLASS_PROTO_VERSION), the students (a secret token
 * each, so a rejoin keeps the score and nobody answers for another), the question asked,
 * answers judged with quiz_check (the quiz's own tolerance), the counts and the distribution
 * the projector shows, and the results file. No sockets (class_net.h carries the lines), no
 * curses, no printing: every message to a student goes through the send hook. */
#ifndef ATTEND_CLASS_ROOM_H
#define ATTEND_CLASS_ROOM_H

#include <stddef.h>

#include "quiz.h"

#define CLASS_PROTO_VERSION 1
#define CLASS_MAX_CLIENTS 200     /* connections at once (class_net refuses more) */
#define CLASS_MAX_STUDENTS 400    /* students remembered, connected or not */
#define CLASS_MAX_LINE 4096       /* bytes of one message from a student, newline included */
#define CLASS_MAX_QUESTIONS 200   /* questions in one room's quiz */
#define CLASS_NAME_MAX 32         /* bytes of a student's name */
#define CLASS_ANSWER_MAX 64       /* bytes of an answer kept for the results */
#define CLASS_CODE_LEN 6          /* digits of the room code */
#define CLASS_TOKEN_LEN 32        /* hex digits of a student's token */
#define CLASS_EVENTS 6            /* the teacher's last messages kept */
#define CLASS_DEFAULT_PORT 7341

typedef enum {
    CLASS_ASKING,   /* the question is open: students answer */
    CLASS_CLOSED,   /* answers closed: the projector shows the distribution */
    CLASS_REVEALED, /* the answer and its explanation are shown */
    CLASS_ENDED,    /* after the last question: the scores */
} ClassPhase;

/* One student, connected or not: what was answered to each question. */
typedef struct {
    char name[CLASS_NAME_MAX + 8];   /* as shown (made unique: "ana (2)") */
    char token[CLASS_TOKEN_LEN + 1]; /* secret: a rejoin names it */
    int conn;                        /* the connection now, -1 when away */
    int score;                       /* questions answered right */
    int answered;                    /* questions answered */
    signed char *verdict;            /* (n questions): 0 none, 1 right, 2 wrong */
    unsigned *pick;                  /* (n): the choices picked (bit i: choice i) */
    char (*answer)[CLASS_ANSWER_MAX]; /* (n): what was answered, as sent (cut) */
} ClassStudent;

/* How many answered the current question, and what. */
typedef struct {
    int connected, students, answered, right, wrong;
    int choice[QUIZ_MAX_CHOICES];    /* choice and multi questions: students per choice */
    int n_top;                       /* other kinds: the most frequent answers */
    char top[3][CLASS_ANSWER_MAX];
    int top_n[3];
} ClassTally;

typedef struct ClassRoom ClassRoom;

/* What the room asks of its carrier (class_net or a test): send one line (no newline) to
 * connection conn; drop the connection after sending it what is queued. */
typedef struct {
    void *ctx;
    void (*send)(void *ctx, int conn, const char *line);
    void (*drop)(void *ctx, int conn);
} ClassHooks;

/* A room asking the questions of s (borrowed; at most CLASS_MAX_QUESTIONS are asked) with
 * room code code (CLASS_CODE_LEN digits; NULL: drawn at random); names: 1 shows students'
 * names on the projector. The first question is open at once. NULL when out of memory or
 * s is empty (err says which). */
ClassRoom *class_room_new(const QuizSet *s, const char *code, int names, ClassHooks hooks,
                          char *err, size_t errlen);
void class_room_free(ClassRoom *r);

/* One message (a line without its newline, len bytes) from connection conn. 0 when
 * handled; 1 when it was the hello that joined conn; -1 when conn must be dropped (why in
 * class_room_event's newest line, an error line already sent to it). */
int class_room_line(ClassRoom *r, int conn, const char *line, size_t len, const char *peer);
/* Connection conn (peer: its address) is gone: closed (why NULL) or dropped for why. Its
 * student stays, away; the teacher is told. */
void class_room_gone(ClassRoom *r, int conn, const char *peer, const char *why);
/* The teacher: close answers (the distribution), reveal the answer, the next question
 * (after the last: the end). Each tells every connected student. */
void class_room_close(ClassRoom *r);
void class_room_reveal(ClassRoom *r);
void class_room_next(ClassRoom *r);
/* Ends the room: every student gets their score and the room's end. */
void class_room_end(ClassRoom *r);

/* Adds a message for the teacher (printf style: "dropped 10.0.0.5: too many messages"). */
void class_room_event(ClassRoom *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The teacher's messages, newest first: i = 0.. (NULL past the last). */
const char *class_room_event_at(const ClassRoom *r, int i);
/* How many messages were ever added (a front end redraws when it changes). */
long class_room_events(const ClassRoom *r);

const char *class_room_code(const ClassRoom *r);
ClassPhase class_room_phase(const ClassRoom *r);
/* The question asked now (0-based) and how many there are. */
int class_room_question(const ClassRoom *r);
int class_room_n_questions(const ClassRoom *r);
/* The current question's counts. */
void class_room_tally(const ClassRoom *r, ClassTally *t);
/* Students, and student i (0-based; NULL past the end). */
int class_room_n_students(const ClassRoom *r);
const ClassStudent *class_room_student(const ClassRoom *r, int i);
/* 1 when names are shown on the projector. */
int class_room_names(const ClassRoom *r);
/* How many students have each score 0..n (counts[0..n], n = questions asked so far). */
int class_room_score_counts(const ClassRoom *r, int *counts, int max);

/* --results: the room writes path (class_room_results_write) each time a question's answers
 * close and at the end, so a crash or a killed projector loses at most the question being
 * asked (path NULL or "": none). A failed write is told to the teacher (an event) and kept
 * for class_room_results_error; the next write tries again. */
void class_room_set_results(ClassRoom *r, const char *path);
/* Why the last results write failed, NULL when it did not (or none was tried). */
const char *class_room_results_error(const ClassRoom *r);

/* The revealed answer as the room reads it: a choice question's letters with their text
 * ("b) Exactly one"), else the engine's answer. */
void class_room_answer_text(const QuizItem *it, char *out, size_t n);
/* Line i of a question's weights as text, the way students get them: i = 0 the key columns'
 * numbers, 1 their tokens, 2..grid_n + 1 the query rows (a cell question's row marked '>',
 * masked cells '.'). 1, or 0 (out "") past the last line or when the question has no grid. */
int class_room_grid_line(const QuizItem *it, int i, char *out, size_t n);
/* "Scores: 3 of 3: 10 students; 2 of 3: 1 student" (anonymous: how many have each score, the
 * best first; no student yet: "Scores:"). Returns out. */
const char *class_room_scores_text(const ClassRoom *r, char *out, size_t n);

/* Writes the results as JSON to path (a temp file renamed over it: fileio.h): the room, each
 * question's counts, each student's name, score and answers. 0, or -1 with a message. */
int class_room_results_write(const ClassRoom *r, const char *path, char *err, size_t errlen);

/* Fills buf with n random bytes (getrandom, else /dev/urandom). 0, or -1. */
int class_random(void *buf, size_t n);

#endif
