/* class_client.h - the student's side of the classroom protocol (docs/classroom.md): the
 * hello, an answer, and each message from the room turned into plain text to show. Text
 * only: every string the room sends is shown with its control characters in caret notation
 * (safetext.h), so a room can never drive the student's terminal. No sockets, no curses. */
#ifndef ATTEND_CLASS_CLIENT_H
#define ATTEND_CLASS_CLIENT_H

#include <stddef.h>

#include "class_room.h"

typedef struct {
    int q;                   /* the question shown (1-based; 0: none yet) */
    int open;                /* 1: it takes an answer now */
    int answered;            /* 1: this question's answer was accepted */
    int ended;               /* 1: the room ended (score below) */
    int joined;
    int score, n;
    char name[CLASS_NAME_MAX + 8];
    char token[CLASS_TOKEN_LEN + 1];
    char how[96];            /* how to answer the open question */
    char last[16];           /* the type of the last message read ("ack", "question"...) */
} ClassClient;

/* The hello line for room code, name (NULL: none) and token (NULL or "": a new student). */
void class_client_hello(const char *code, const char *name, const char *token, char *out,
                        size_t n);
/* The answer line for question q. */
void class_client_answer(int q, const char *answer, char *out, size_t n);
/* One message from the room (len bytes, no newline): updates c and writes what to show to
 * out (several lines, each ending in a newline; "" for nothing). 0; 1 when the room said
 * the quiz ended; -1 when it refused us or sent what is not the protocol (out says what). */
int class_client_line(ClassClient *c, const char *line, size_t len, char *out, size_t n);

#endif
