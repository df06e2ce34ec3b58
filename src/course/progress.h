/* progress.h - the learner's progress: current lesson and page, pages seen, lessons
 * completed, and opaque JSON slots for other modules (quiz scores, review schedule).
 * Stored in $XDG_STATE_HOME/attend/progress.json, written atomically; two windows saving at
 * once merge (a lock and a merge in progress_save) rather than overwrite. Format in
 * docs/lessons.md. No curses, no printing, no exit(). */
#ifndef ATTEND_PROGRESS_H
#define ATTEND_PROGRESS_H

#include <stddef.h>

#include "strmap.h"

typedef struct {
    char id[48];             /* stable lesson id */
    int n_seen;              /* length of seen[] */
    unsigned char *seen;     /* (n_seen) 1 if page i was seen; owned */
    int completed;
} ProgressLesson;

typedef struct {
    char key[64];            /* e.g. "quiz", "review" */
    char *json;              /* owned JSON text of the value (any JSON value) */
} ProgressSlot;

typedef struct Progress {
    char path[1024];         /* file it is saved to */
    char current_lesson[48]; /* "" when none */
    int current_page;
    int n_lessons;
    ProgressLesson *lessons; /* owned; (cap_lessons) allocated */
    int cap_lessons;
    StrMap index;            /* owned: lesson id -> its lessons[] position (strmap.h);
                              * lookups O(1) */
    int n_slots;
    ProgressSlot *slots;     /* owned */
    int no_save;             /* 1 after a failed load: progress_save refuses (keeps the file) */
    struct Progress *disk;   /* owned: what the file held after this window's last save, so
                              * a save re-reads the file only when another window changed it;
                              * NULL until the first save */
    long long disk_sig[5];   /* the file's device, inode, size and mtime then */
    unsigned long long disk_hash; /* and a hash of its text */
} Progress;

/* Writes the default file name: $XDG_STATE_HOME/attend/progress.json, or
 * $HOME/.local/state/attend/progress.json. 0, or -1 with a message (no HOME). */
int progress_default_path(char *out, size_t outlen, char *err, size_t errlen);

/* Loads path into p (p is initialised first; path is remembered for progress_save).
 * Returns 0 when loaded or when the file does not exist yet (empty progress);
 * 1 when the file was corrupt: it was renamed to PATH.corrupt-YYYYMMDD-HHMMSS, p is empty,
 * and err says so (show it to the learner); -1 on another error (unreadable file, could not
 * move the corrupt file aside) with a message in err — p is empty and saving is refused
 * until a load succeeds, so nothing is overwritten. p must be freed with progress_free. */
int progress_load(Progress *p, const char *path, char *err, size_t errlen);
/* Writes p to p->path, merged with what is there: creates the directory (mode 0700) if
 * missing, takes the lock PATH.lock (flock; waits up to ~5 s for another window's save),
 * removes temp files of dead processes, reads the file on disk (only when it changed since
 * p's last save: p->disk keeps what it held) and merges p into it (pages
 * seen: union; completed: either; current lesson/page: p's; slots: see the merge rules in
 * progress.c and docs/security.md; nothing is ever removed), writes the merge to an exclusive
 * temp file PATH.tmp-PID-RANDOM (O_EXCL|O_NOFOLLOW), fsyncs it, renames it over PATH and
 * fsyncs the directory. p's own records are not changed. Linear in the records. 0, or -1
 * with a message naming PATH; on failure the previous file is intact and no temp file is
 * left. */
int progress_save(Progress *p, char *err, size_t errlen);
void progress_free(Progress *p);

/* Sets the current lesson and page. 0, or -1 if the id is too long. */
int progress_set_current(Progress *p, const char *lesson_id, int page);
/* Marks page (0-based) of a lesson as seen. 0, or -1 (out of memory, bad arguments). */
int progress_mark_seen(Progress *p, const char *lesson_id, int page);
/* 1 if that page was seen, else 0. */
int progress_seen(const Progress *p, const char *lesson_id, int page);
/* Number of distinct pages seen in a lesson. */
int progress_count_seen(const Progress *p, const char *lesson_id);
int progress_set_completed(Progress *p, const char *lesson_id, int completed);
int progress_completed(const Progress *p, const char *lesson_id);

/* Opaque slots: key -> JSON text. get returns borrowed text or NULL. set copies json after
 * checking it parses (0, or -1 with a message); json NULL removes the slot. */
const char *progress_slot_get(const Progress *p, const char *key);
int progress_slot_set(Progress *p, const char *key, const char *json, char *err,
                      size_t errlen);

#endif
