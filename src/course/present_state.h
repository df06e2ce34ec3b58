/* present_state.h - what a running presenter publishes for `attend notes`: one state file per
 * presenter session in $XDG_RUNTIME_DIR/attend/ (else a private 0700 directory under /tmp
 * named per uid), written atomically (temp file + rename). Terminal-free. */
#ifndef ATTEND_PRESENT_STATE_H
#define ATTEND_PRESENT_STATE_H

#include <stddef.h>

typedef struct {
    char session[64];        /* "<pid>-<start time>": its file is dir/<session>.state */
    long pid;                /* the presenter's process */
    long started;            /* when the presentation began (Unix seconds) */
    long seq;                /* counts publishes */
    char lesson_id[64], lesson_title[256];
    int lesson_no, n_lessons; /* 1-based */
    int page, n_pages;       /* 1-based */
    char page_title[256];
    char next_title[300];    /* the next page's title ("" at the end of the course) */
    char keys[1024];         /* the keys the page invites: "m mask:on  p PE:none ..." */
    char notes[8192];        /* the page's speaker notes ("" when none) */
    char answer[2048];       /* class quiz: the answer about to be revealed ("" when none) */
    char room[160];          /* what the room sees beyond the page: "blank", "frozen", the class
                                quiz's countdown and whether the answer is revealed ("" none) */
} PresentState;

/* Fills dir with the directory presenters publish in, creating it (mode 0700) when create
 * is 1. 0, or -1 with a message (an unsafe directory: not ours, or open to others). */
int present_state_dir(char *dir, size_t n, int create, char *err, size_t errlen);

/* Writes s to dir/<session>.state atomically: a reader sees the old file or the new one.
 * Lines "key<TAB>value" with \n, \t and \\ escaped. 0, or -1 with a message. */
int present_state_write(const char *dir, const PresentState *s, char *err, size_t errlen);

/* Reads a state file. 0, or -1 with a message naming the file. */
int present_state_read(const char *path, PresentState *s, char *err, size_t errlen);

/* 1 if the presenter that wrote s is still running. */
int present_state_live(const PresentState *s);
/* The state file to follow in dir: session's when given (NULL: the most recently written
 * file of a presenter that is still running). Only regular files are read (a FIFO named
 * *.state is skipped without being opened); the file of a presenter that no longer runs is
 * removed. Fills path; 0, or -1 when there is none. */
int present_state_find(const char *dir, const char *session, char *path, size_t n);

/* Removes the session's file (the presenter quits). */
void present_state_remove(const char *dir, const char *session);

#endif
