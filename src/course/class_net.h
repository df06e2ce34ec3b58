/* class_net.h - the classroom's sockets (docs/classroom.md): a room (class_room.h) served
 * over TCP, poll()-driven, one thread: at most CLASS_MAX_CLIENTS connections, a message at
 * most CLASS_MAX_LINE bytes, a rate limit per connection, a hello within
 * CLASS_HELLO_SECONDS, a bounded queue to each student (one that stops reading is dropped,
 * never waited for). The student's side: connect, send a line, read lines. No curses. */
#ifndef ATTEND_CLASS_NET_H
#define ATTEND_CLASS_NET_H

#include <stddef.h>

#include "class_room.h"

#define CLASS_HELLO_SECONDS 10     /* a connection says hello within this, or is dropped */
#define CLASS_RATE_BURST 20        /* messages a student may send at once */
#define CLASS_RATE_PER_S 5         /* then this many a second */
#define CLASS_MAX_QUEUE (256 * 1024) /* bytes waiting for one student to read */
#define CLASS_CLIENT_MAX_LINE 65536 /* bytes of one message from the room (the student's side) */

typedef struct ClassServer ClassServer;

typedef struct {
    const char *bind;        /* address to listen on (NULL: every interface) */
    int port;                /* 0: CLASS_DEFAULT_PORT; -1: any free port (tests) */
    const char *code;        /* the room code (NULL: random) */
    int names;               /* 1: names on the projector */
} ClassServerOpts;

/* Opens a room for s (borrowed, kept until class_server_free) listening as o says. NULL with
 * a message (the port taken, no such address, ...). */
ClassServer *class_server_open(const QuizSet *s, const ClassServerOpts *o, char *err,
                               size_t errlen);
/* Closes every connection (students are told the room ended) and frees the server. */
void class_server_free(ClassServer *srv);
ClassRoom *class_server_room(ClassServer *srv);
/* The port listened on. */
int class_server_port(const ClassServer *srv);
/* The address students type: the bound one, else this machine's first non-loopback IPv4
 * address, else its host name. Written to out; returns out. */
const char *class_server_host(const ClassServer *srv, char *out, size_t n);
/* Connections open now. */
int class_server_connections(const ClassServer *srv);
/* Waits at most timeout_ms (0: not at all) for the network, then accepts, reads, answers
 * and drops what is due. Returns 1 when something changed (a redraw), 0 when not, -1 when
 * poll failed (err). */
int class_server_step(ClassServer *srv, int timeout_ms);

/* ---- the student's side ---- */

/* Connects to host:port (a name or an address), waiting at most timeout_ms. The socket
 * (blocking, close-on-exec), or -1 with a message. */
int class_connect(const char *host, int port, int timeout_ms, char *err, size_t errlen);
/* Sends line and a newline, all of it (retrying short writes). 0, or -1. */
int class_send_line(int fd, const char *line);

#endif
