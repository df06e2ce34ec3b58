/* class_net.c - the classroom's sockets: a listening TCP socket and up to CLASS_MAX_CLIENTS
 * non-blocking connections driven by poll(), lines handed to the room (class_room.c), its
 * messages queued per connection (bounded), limits on size, rate and the time to say hello;
 * and the student's connect. */
#include "class_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "errf.h"

typedef struct {
    int fd;                    /* -1: a free slot */
    char peer[64];             /* "10.0.0.5:50123" */
    char in[CLASS_MAX_LINE];   /* bytes read, not yet a whole line */
    size_t in_len;
    char *out;                 /* bytes queued for the student */
    size_t out_len, out_cap;
    double tokens;             /* the rate limit's bucket */
    long long last_ms, since_ms;
    int joined;                /* said hello */
    int closing;               /* dropped: flush what is queued, then close */
    const char *why;           /* closing for this reason (NULL: the room told it why) */
    long long closing_ms;
} Conn;

struct ClassServer {
    int lfd;
    int port;
    char bind[64];
    ClassRoom *room;
    Conn c[CLASS_MAX_CLIENTS];
    int n_open;
    int changed;
};

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- a connection's queue and its end ---- */

/* Closes connection i; why: it was dropped for that (NULL: it closed, or was told). */
static void conn_end(ClassServer *srv, int i, const char *why)
{
    Conn *c = &srv->c[i];
    if (c->fd < 0)
        return;
    close(c->fd);
    c->fd = -1;
    free(c->out);
    c->out = NULL;
    c->out_len = c->out_cap = 0;
    srv->n_open--;
    srv->changed = 1;
    class_room_gone(srv->room, i, c->peer, why);
}

static void conn_close(ClassServer *srv, int i)
{
    conn_end(srv, i, NULL);
}

/* Drops connection i at once (no flush), telling the teacher why. */
static void conn_drop(ClassServer *srv, int i, const char *why)
{
    conn_end(srv, i, why);
}

static void flush(ClassServer *srv, int i)
{
    Conn *c = &srv->c[i];
    while (c->out_len > 0) {
        ssize_t w = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (w <= 0) {
            conn_close(srv, i); /* the student went away */
            return;
        }
        memmove(c->out, c->out + w, c->out_len - (size_t)w);
        c->out_len -= (size_t)w;
    }
    if (c->closing)
        conn_close(srv, i);
}

static void hook_send(void *ctx, int i, const char *line)
{
    ClassServer *srv = ctx;
    Conn *c = &srv->c[i];
    size_t len = strlen(line);
    if (c->fd < 0 || c->closing)
        return;
    if (c->out_len + len + 1 > CLASS_MAX_QUEUE) { /* it stopped reading: never wait for it */
        c->closing = 1;
        c->closing_ms = 0; /* closed at the next step, queue dropped */
        c->out_len = 0;
        c->why = "it does not read its messages";
        return;
    }
    if (c->out_len + len + 1 > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : 4096;
        while (cap < c->out_len + len + 1)
            cap *= 2;
        char *p = realloc(c->out, cap);
        if (!p) {
            c->closing = 1;
            c->closing_ms = 0;
            return;
        }
        c->out = p;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_len, line, len);
    c->out[c->out_len + len] = '\n';
    c->out_len += len + 1;
}

static void hook_drop(void *ctx, int i)
{
    ClassServer *srv = ctx;
    if (srv->c[i].fd >= 0 && !srv->c[i].closing) {
        srv->c[i].closing = 1;
        srv->c[i].closing_ms = now_ms() + 2000;
    }
}

/* ---- opening and closing the room ---- */

ClassServer *class_server_open(const QuizSet *s, const ClassServerOpts *o, char *err,
                               size_t errlen)
{
    ClassServer *srv = calloc(1, sizeof *srv);
    if (!srv) {
        errf(err, errlen, "out of memory");
        return NULL;
    }
    for (int i = 0; i < CLASS_MAX_CLIENTS; i++)
        srv->c[i].fd = -1;
    srv->lfd = -1;
    ClassHooks h = {srv, hook_send, hook_drop};
    srv->room = class_room_new(s, o->code, o->names, h, err, errlen);
    if (!srv->room) {
        free(srv);
        return NULL;
    }
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)(o->port == 0 ? CLASS_DEFAULT_PORT : o->port < 0 ? 0 : o->port));
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    if (o->bind && o->bind[0] && inet_pton(AF_INET, o->bind, &a.sin_addr) != 1) {
        errf(err, errlen, "--bind %.60s: not an IPv4 address (such as 192.168.1.20)", o->bind);
        class_server_free(srv);
        return NULL;
    }
    snprintf(srv->bind, sizeof srv->bind, "%s", o->bind ? o->bind : "");
    int one = 1;
    srv->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (srv->lfd < 0 || setsockopt(srv->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(srv->lfd, (struct sockaddr *)&a, sizeof a) || listen(srv->lfd, SOMAXCONN)) {
        errf(err, errlen, "cannot listen on port %d: %s%s", ntohs(a.sin_port), strerror(errno),
             errno == EADDRINUSE ? " (another room? choose one with --port)" : "");
        class_server_free(srv);
        return NULL;
    }
    socklen_t al = sizeof a;
    getsockname(srv->lfd, (struct sockaddr *)&a, &al);
    srv->port = ntohs(a.sin_port);
    return srv;
}

void class_server_free(ClassServer *srv)
{
    if (!srv)
        return;
    if (srv->room) {
        class_room_end(srv->room); /* every student hears the end, as far as it can be sent */
        for (int i = 0; i < CLASS_MAX_CLIENTS; i++)
            if (srv->c[i].fd >= 0 && srv->c[i].out_len)
                send(srv->c[i].fd, srv->c[i].out, srv->c[i].out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    for (int i = 0; i < CLASS_MAX_CLIENTS; i++)
        if (srv->c[i].fd >= 0) {
            close(srv->c[i].fd);
            free(srv->c[i].out);
        }
    if (srv->lfd >= 0)
        close(srv->lfd);
    class_room_free(srv->room);
    free(srv);
}

ClassRoom *class_server_room(ClassServer *srv) { return srv->room; }
int class_server_port(const ClassServer *srv) { return srv->port; }
int class_server_connections(const ClassServer *srv) { return srv->n_open; }

const char *class_server_host(const ClassServer *srv, char *out, size_t n)
{
    if (srv->bind[0] && strcmp(srv->bind, "0.0.0.0")) {
        snprintf(out, n, "%s", srv->bind);
        return out;
    }
    struct ifaddrs *ifs = NULL;
    out[0] = '\0';
    if (!getifaddrs(&ifs)) {
        for (struct ifaddrs *f = ifs; f && !out[0]; f = f->ifa_next) {
            if (!f->ifa_addr || f->ifa_addr->sa_family != AF_INET || (f->ifa_flags & IFF_LOOPBACK) ||
                !(f->ifa_flags & IFF_UP))
                continue;
            inet_ntop(AF_INET, &((struct sockaddr_in *)f->ifa_addr)->sin_addr, out, (socklen_t)n);
        }
        freeifaddrs(ifs);
    }
    if (!out[0] && gethostname(out, n))
        snprintf(out, n, "127.0.0.1");
    return out;
}

/* ---- one step ---- */

static void accept_new(ClassServer *srv)
{
    for (int k = 0; k < 64; k++) {
        struct sockaddr_in a;
        socklen_t al = sizeof a;
        int fd = accept(srv->lfd, (struct sockaddr *)&a, &al);
        if (fd < 0)
            return;
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        char ip[INET_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
        int i = 0;
        while (i < CLASS_MAX_CLIENTS && srv->c[i].fd >= 0)
            i++;
        if (i == CLASS_MAX_CLIENTS) {
            static const char full[] = "{\"t\":\"error\",\"msg\":\"the room is full\"}\n";
            send(fd, full, sizeof full - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
            close(fd);
            class_room_event(srv->room, "refused %s:%d: the room is full (%d)", ip,
                             ntohs(a.sin_port), CLASS_MAX_CLIENTS);
            srv->changed = 1;
            continue;
        }
        Conn *c = &srv->c[i];
        memset(c, 0, sizeof *c);
        c->fd = fd;
        snprintf(c->peer, sizeof c->peer, "%s:%d", ip, ntohs(a.sin_port));
        c->tokens = CLASS_RATE_BURST;
        c->last_ms = c->since_ms = now_ms();
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        srv->n_open++;
    }
}

/* The whole lines in connection i's buffer, each to the room; a drop ends it. */
static void lines(ClassServer *srv, int i)
{
    Conn *c = &srv->c[i];
    size_t start = 0;
    for (size_t e = 0; e < c->in_len && c->fd >= 0 && !c->closing; e++) {
        if (c->in[e] != '\n')
            continue;
        long long t = now_ms();
        c->tokens += (double)(t - c->last_ms) * CLASS_RATE_PER_S / 1000.0;
        if (c->tokens > CLASS_RATE_BURST)
            c->tokens = CLASS_RATE_BURST;
        c->last_ms = t;
        if (c->tokens < 1) {
            conn_drop(srv, i, "too many messages (a rate limit)");
            return;
        }
        c->tokens -= 1;
        size_t len = e - start;
        if (len && c->in[start + len - 1] == '\r')
            len--;
        if (len) {
            if (memchr(c->in + start, '\0', len)) {
                conn_drop(srv, i, "a NUL byte in a message");
                return;
            }
            int rc = class_room_line(srv->room, i, c->in + start, len, c->peer);
            if (rc < 0) { /* the room has told it why: flush that, then close */
                hook_drop(srv, i);
            } else if (rc == 1) {
                c->joined = 1;
            }
            srv->changed = 1;
        }
        start = e + 1;
    }
    if (c->fd < 0)
        return;
    memmove(c->in, c->in + start, c->in_len - start);
    c->in_len -= start;
}

static void read_conn(ClassServer *srv, int i)
{
    Conn *c = &srv->c[i];
    for (int k = 0; k < 4 && c->fd >= 0 && !c->closing; k++) {
        if (c->in_len == sizeof c->in) {
            conn_drop(srv, i, "a message longer than the limit");
            return;
        }
        ssize_t r = recv(c->fd, c->in + c->in_len, sizeof c->in - c->in_len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (r <= 0) {
            conn_close(srv, i);
            return;
        }
        c->in_len += (size_t)r;
        lines(srv, i);
    }
}

int class_server_step(ClassServer *srv, int timeout_ms)
{
    struct pollfd p[CLASS_MAX_CLIENTS + 1];
    int idx[CLASS_MAX_CLIENTS + 1];
    int n = 0;
    p[n].fd = srv->lfd;
    p[n].events = POLLIN;
    idx[n++] = -1;
    for (int i = 0; i < CLASS_MAX_CLIENTS; i++) {
        Conn *c = &srv->c[i];
        if (c->fd < 0)
            continue;
        p[n].fd = c->fd;
        p[n].events = (short)((c->closing ? 0 : POLLIN) | (c->out_len ? POLLOUT : 0));
        idx[n++] = i;
    }
    int pr = poll(p, (nfds_t)n, timeout_ms);
    if (pr < 0 && errno != EINTR)
        return -1;
    srv->changed = 0;
    long long t = now_ms();
    for (int k = 1; pr > 0 && k < n; k++) {
        int i = idx[k];
        if (srv->c[i].fd != p[k].fd)
            continue;
        if (p[k].revents & (POLLIN | POLLHUP | POLLERR))
            read_conn(srv, i);
        if (srv->c[i].fd >= 0 && (p[k].revents & POLLOUT))
            flush(srv, i);
    }
    if (pr > 0 && (p[0].revents & POLLIN))
        accept_new(srv);
    for (int i = 0; i < CLASS_MAX_CLIENTS; i++) {
        Conn *c = &srv->c[i];
        if (c->fd < 0)
            continue;
        if (c->out_len && !c->closing)
            flush(srv, i); /* what the room said this step goes out now */
        if (c->fd < 0)
            continue;
        if (c->closing && (c->out_len == 0 || t >= c->closing_ms))
            conn_end(srv, i, c->why);
        else if (!c->joined && !c->closing && t - c->since_ms > CLASS_HELLO_SECONDS * 1000)
            conn_drop(srv, i, "no hello in time");
    }
    return srv->changed;
}

/* ---- the student's side ---- */

int class_connect(const char *host, int port, int timeout_ms, char *err, size_t errlen)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int g = getaddrinfo(host, ps, &hints, &res);
    if (g) {
        errf(err, errlen, "%.100s: %s", host, gai_strerror(g));
        return -1;
    }
    int fd = -1, e = ECONNREFUSED;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
            e = errno;
            close(fd);
            fd = -1;
            continue;
        }
        struct pollfd pf = {fd, POLLOUT, 0};
        int soe = 0;
        socklen_t sl = sizeof soe;
        if (poll(&pf, 1, timeout_ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soe, &sl) ||
            soe) {
            e = soe ? soe : ETIMEDOUT;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        errf(err, errlen, "cannot reach %.100s port %d: %s", host, port, strerror(e));
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int class_send_line(int fd, const char *line)
{
    size_t len = strlen(line);
    char *b = malloc(len + 1);
    if (!b)
        return -1;
    memcpy(b, line, len);
    b[len] = '\n';
    size_t off = 0;
    while (off < len + 1) {
        ssize_t w = send(fd, b + off, len + 1 - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            free(b);
            return -1;
        }
        off += (size_t)w;
    }
    free(b);
    return 0;
}
