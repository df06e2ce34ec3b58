/* test_progress.c - progress file: round trip, default path, atomic save (also under a
 * file-size limit), corrupt file moved aside (never overwritten), opaque slots, no writing
 * through planted symlinks, stale temp files cleaned, two windows merged (in one process and
 * in two processes saving interleaved). */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progress.h"
#include "t.h"

static char tmpdir[256];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* Number of entries of dir whose name starts with prefix; the last one's name in out. */
static int count_prefix(const char *dir, const char *prefix, char *out, size_t outlen)
{
    DIR *d = opendir(dir);
    int k = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (!strncmp(e->d_name, prefix, strlen(prefix))) {
            k++;
            if (out)
                snprintf(out, outlen, "%s/%s", dir, e->d_name);
        }
    closedir(d);
    return k;
}

static void test_default_path(void)
{
    char out[512], err[256];
    setenv("XDG_STATE_HOME", "/x/state", 1);
    CHECK(progress_default_path(out, sizeof out, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(out, "/x/state/attend/progress.json"), "got %s", out);
    unsetenv("XDG_STATE_HOME");
    setenv("HOME", "/home/learner", 1);
    CHECK(progress_default_path(out, sizeof out, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(out, "/home/learner/.local/state/attend/progress.json"), "got %s", out);
    setenv("XDG_STATE_HOME", "relative/dir", 1); /* ignored per the XDG spec */
    CHECK(progress_default_path(out, sizeof out, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(out, "/home/learner/.local/state/attend/progress.json"), "got %s", out);
    unsetenv("XDG_STATE_HOME");
}

static void test_round_trip(void)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/deep/er/attend/progress.json", tmpdir);
    Progress p;
    CHECK(progress_load(&p, path, err, sizeof err) == 0, "missing file is a fresh start: %s", err);
    CHECK(p.n_lessons == 0 && p.current_lesson[0] == 0, "fresh progress is empty");
    CHECK(progress_set_current(&p, "causal-mask", 3) == 0, "set current");
    CHECK(progress_mark_seen(&p, "self-attention", 0) == 0, "seen 0");
    CHECK(progress_mark_seen(&p, "self-attention", 2) == 0, "seen 2");
    CHECK(progress_mark_seen(&p, "self-attention", 2) == 0, "seen 2 again");
    CHECK(progress_mark_seen(&p, "causal-mask", 5) == 0, "seen 5");
    CHECK(progress_mark_seen(&p, "causal-mask", -1) == -1, "negative page refused");
    CHECK(progress_set_completed(&p, "self-attention", 1) == 0, "completed");
    CHECK(progress_slot_set(&p, "quiz", "{\"self-attention/q1\": {\"right\": 2, \"wrong\": 1}}",
                            err, sizeof err) == 0, "slot: %s", err);
    CHECK(progress_slot_set(&p, "bad", "{nope", err, sizeof err) == -1, "invalid slot JSON refused");
    CHECK(progress_slot_get(&p, "bad") == NULL, "refused slot absent");
    CHECK(progress_save(&p, err, sizeof err) == 0, "save: %s", err);
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode), "file written, directories created");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/deep/er/attend", tmpdir);
    CHECK(count_prefix(dir, "progress.json.tmp", NULL, 0) == 0, "no temp file left behind");
    progress_free(&p);

    Progress q;
    CHECK(progress_load(&q, path, err, sizeof err) == 0, "reload: %s", err);
    CHECK(!strcmp(q.current_lesson, "causal-mask") && q.current_page == 3, "current %s %d",
          q.current_lesson, q.current_page);
    CHECK(progress_seen(&q, "self-attention", 0) && !progress_seen(&q, "self-attention", 1) &&
          progress_seen(&q, "self-attention", 2), "seen pages of self-attention");
    CHECK(progress_count_seen(&q, "self-attention") == 2, "count %d",
          progress_count_seen(&q, "self-attention"));
    CHECK(progress_count_seen(&q, "causal-mask") == 1 && progress_seen(&q, "causal-mask", 5),
          "causal-mask page 5");
    CHECK(progress_completed(&q, "self-attention") && !progress_completed(&q, "causal-mask"),
          "completion marks");
    CHECK(!progress_completed(&q, "never-heard-of"), "unknown lesson not completed");
    const char *slot = progress_slot_get(&q, "quiz");
    CHECK(slot && !strcmp(slot, "{\"self-attention/q1\":{\"right\":2,\"wrong\":1}}"),
          "slot kept: %s", slot ? slot : "(null)");
    /* removing a slot */
    CHECK(progress_slot_set(&q, "quiz", NULL, err, sizeof err) == 0 &&
          progress_slot_get(&q, "quiz") == NULL, "slot removed");
    progress_free(&q);
}

/* Under a file-size limit (ulimit -f) a save fails with a message: the old file intact, no
 * temp file left, the process alive (SIGXFSZ ignored, as main.c does). */
static void test_atomic(void)
{
    char path[600], err[1024], dir[300];
    snprintf(dir, sizeof dir, "%s/atomic", tmpdir);
    snprintf(path, sizeof path, "%s/progress.json", dir);
    Progress p;
    CHECK(progress_load(&p, path, err, sizeof err) == 0, "%s", err);
    progress_set_current(&p, "one", 1);
    CHECK(progress_save(&p, err, sizeof err) == 0, "first save: %s", err);
    char before[8192];
    char *b = read_file(path);
    snprintf(before, sizeof before, "%s", b ? b : "");
    CHECK(strstr(before, "\"one\"") != NULL, "first save has the lesson");
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 16; /* bytes: smaller than any progress file */
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "limit set");
    progress_set_current(&p, "two", 2);
    int rc = progress_save(&p, err, sizeof err);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(rc == -1, "save fails under a file-size limit");
    CHECK(strstr(err, path) && strstr(err, "too large"), "message names the file and why: %s",
          err);
    b = read_file(path);
    CHECK(b && !strcmp(b, before), "old file intact after a failed save");
    CHECK(count_prefix(dir, "progress.json.tmp", NULL, 0) == 0, "no partial temp file left");
    CHECK(progress_save(&p, err, sizeof err) == 0, "save works again: %s", err);
    b = read_file(path);
    CHECK(b && strstr(b, "\"two\"") && !strstr(b, "\"one\""), "new content replaced the old");
    progress_free(&p);
}

/* A symlink planted at the old predictable temp name, at the lock, or at the file itself
 * never makes a save write through it. */
static void test_symlink(void)
{
    char dir[512], path[600], victim[600], link[700], err[1024];
    snprintf(dir, sizeof dir, "%s/symlink", tmpdir);
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/progress.json", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    write_file(victim, "precious");
    snprintf(link, sizeof link, "%s.tmp-%ld", path, (long)getpid());
    CHECK(symlink(victim, link) == 0, "planted %s", link);
    Progress p;
    CHECK(progress_load(&p, path, err, sizeof err) == 0, "%s", err);
    progress_mark_seen(&p, "a", 0);
    CHECK(progress_save(&p, err, sizeof err) == 0, "save beside a planted link: %s", err);
    char *v = read_file(victim);
    CHECK(v && !strcmp(v, "precious"), "victim untouched by the temp file");
    unlink(link);
    /* the progress file itself a link: refused (docs/security.md), the link and its target
     * untouched */
    unlink(path);
    CHECK(symlink(victim, path) == 0, "progress.json -> victim");
    CHECK(progress_save(&p, err, sizeof err) == -1 && strstr(err, "symbolic link") &&
          strstr(err, path), "save over a link refused, naming it: %s", err);
    Progress q;
    CHECK(progress_load(&q, path, err, sizeof err) == -1 && q.no_save &&
          strstr(err, "symbolic link"), "a linked progress file is not loaded: %s", err);
    progress_free(&q);
    char lbuf[700];
    ssize_t ll = readlink(path, lbuf, sizeof lbuf - 1);
    CHECK(ll > 0 && (lbuf[ll] = 0, !strcmp(lbuf, victim)), "the link itself is kept");
    v = read_file(victim);
    CHECK(v && !strcmp(v, "precious"), "victim untouched through progress.json");
    unlink(path);
    /* the lock a link: refused, victim untouched */
    char lock[700];
    snprintf(lock, sizeof lock, "%s.lock", path);
    unlink(lock);
    CHECK(symlink(victim, lock) == 0, "lock -> victim");
    CHECK(progress_save(&p, err, sizeof err) == -1 && strstr(err, "lock"), "linked lock refused: %s",
          err);
    v = read_file(victim);
    CHECK(v && !strcmp(v, "precious"), "victim untouched through the lock");
    unlink(lock);
    progress_free(&p);
}

/* Temp files of dead processes are removed by the next save; a live process's are kept. */
static void test_stale(void)
{
    char dir[512], path[600], dead1[700], dead2[700], live[700], err[512];
    snprintf(dir, sizeof dir, "%s/stale", tmpdir);
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/progress.json", dir);
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0); /* a pid that no longer runs */
    snprintf(dead1, sizeof dead1, "%s.tmp-%ld-0123456789abcdef", path, (long)child);
    snprintf(dead2, sizeof dead2, "%s.tmp-%ld", path, (long)child);
    snprintf(live, sizeof live, "%s.tmp-%ld-feedfeedfeedfeed", path, (long)getppid());
    write_file(dead1, "{\"half");
    write_file(dead2, "{\"half");
    write_file(live, "{\"writing");
    Progress p;
    CHECK(progress_load(&p, path, err, sizeof err) == 0, "%s", err);
    progress_mark_seen(&p, "a", 1);
    CHECK(progress_save(&p, err, sizeof err) == 0, "%s", err);
    CHECK(access(dead1, F_OK) != 0 && access(dead2, F_OK) != 0, "dead processes' temp files gone");
    CHECK(access(live, F_OK) == 0, "a live process's temp file kept");
    unlink(live);
    progress_free(&p);
}

/* Two windows, each loaded once: every page and record either saved survives. */
static void test_merge(void)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/merge/progress.json", tmpdir);
    Progress a, b;
    CHECK(progress_load(&a, path, err, sizeof err) == 0, "%s", err);
    CHECK(progress_load(&b, path, err, sizeof err) == 0, "%s", err);
    progress_mark_seen(&a, "l1", 0);
    progress_mark_seen(&a, "l1", 2);
    progress_set_completed(&a, "l2", 1);
    progress_set_current(&a, "l1", 2);
    CHECK(progress_slot_set(&a, "quiz", "{\"version\":1,\"scores\":{\"l1\":{\"right\":1,\"asked\":2,"
                            "\"when\":100,\"best\":0.9}},\"schedule\":{\"x\":{\"box\":3,\"last\":100},"
                            "\"z\":{\"box\":2,\"last\":10}}}", err, sizeof err) == 0, "%s", err);
    CHECK(progress_save(&a, err, sizeof err) == 0, "a saves: %s", err);
    progress_mark_seen(&b, "l1", 1);
    progress_mark_seen(&b, "l3", 4);
    progress_set_current(&b, "l3", 4);
    CHECK(progress_slot_set(&b, "quiz", "{\"version\":1,\"scores\":{\"l1\":{\"right\":2,\"asked\":2,"
                            "\"when\":200,\"best\":0.5}},\"schedule\":{\"x\":{\"box\":1,\"last\":50},"
                            "\"y\":{\"box\":2,\"last\":60}}}", err, sizeof err) == 0, "%s", err);
    CHECK(progress_slot_set(&b, "other", "[1,2]", err, sizeof err) == 0, "%s", err);
    CHECK(progress_save(&b, err, sizeof err) == 0, "b saves: %s", err);
    Progress m;
    CHECK(progress_load(&m, path, err, sizeof err) == 0, "%s", err);
    CHECK(progress_seen(&m, "l1", 0) && progress_seen(&m, "l1", 1) && progress_seen(&m, "l1", 2),
          "pages seen: union of both windows");
    CHECK(progress_seen(&m, "l3", 4) && progress_completed(&m, "l2"), "each window's records kept");
    CHECK(!strcmp(m.current_lesson, "l3") && m.current_page == 4, "current: the last save's");
    const char *q = progress_slot_get(&m, "quiz");
    CHECK(q && strstr(q, "\"x\":{\"box\":3,\"last\":100}"), "schedule: the newer record of x: %s",
          q ? q : "");
    CHECK(q && strstr(q, "\"y\":{") && strstr(q, "\"z\":{"), "schedule: keys of both kept: %s",
          q ? q : "");
    CHECK(q && strstr(q, "\"right\":2,\"asked\":2,\"when\":200,\"best\":0.9"),
          "scores: the newer session, the best of both: %s", q ? q : "");
    CHECK(progress_slot_get(&m, "other") != NULL, "a slot only one window has is kept");
    progress_free(&a);
    progress_free(&b);
    progress_free(&m);
}

/* Two processes saving interleaved, each loaded once at its start: nothing is lost. */
static void test_two_processes(void)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/procs/progress.json", tmpdir);
    enum { PAGES = 60 };
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            Progress p;
            char e[512];
            if (progress_load(&p, path, e, sizeof e) < 0)
                _exit(3);
            int bad = 0;
            for (int i = 0; i < PAGES; i++) {
                progress_mark_seen(&p, k ? "b" : "a", i);
                progress_mark_seen(&p, "shared", 2 * i + k);
                progress_set_current(&p, k ? "b" : "a", i);
                bad |= progress_save(&p, e, sizeof e) != 0;
            }
            progress_free(&p);
            _exit(bad ? 4 : 0);
        }
    }
    for (int k = 0; k < 2; k++) {
        int st = -1;
        waitpid(kids[k], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %d saved every time (status %d)", k,
              st);
    }
    Progress m;
    CHECK(progress_load(&m, path, err, sizeof err) == 0, "the file is valid: %s", err);
    CHECK(progress_count_seen(&m, "a") == PAGES && progress_count_seen(&m, "b") == PAGES,
          "every page of both writers kept: a %d, b %d of %d", progress_count_seen(&m, "a"),
          progress_count_seen(&m, "b"), PAGES);
    CHECK(progress_count_seen(&m, "shared") == 2 * PAGES, "shared lesson: %d of %d pages",
          progress_count_seen(&m, "shared"), 2 * PAGES);
    progress_free(&m);
}

/* A progress file that is not a regular file is neither read nor replaced. */
static void test_not_regular(void)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/notreg", tmpdir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/notreg/progress.json", tmpdir);
    mkdir(path, 0700);
    Progress p;
    CHECK(progress_load(&p, path, err, sizeof err) == -1 && strstr(err, "not a regular file"),
          "a directory at progress.json: %s", err);
    CHECK(progress_save(&p, err, sizeof err) == -1, "and not saved over");
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode), "the directory is still there");
    progress_free(&p);
}

/* 10,000 records, most of lessons no course has: all kept through loads, saves and merges;
 * a save after another window's save merges it (the file is re-read when it changed, even
 * when its size and time stamp are the same as before). Timing is bench/progress_bench.sh's. */
static void test_many(void)
{
    enum { N = 10000 };
    char dir[512], path[600], err[1024], id[48];
    snprintf(dir, sizeof dir, "%s/many", tmpdir);
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/progress.json", dir);
    Progress a, b, m;
    CHECK(progress_load(&a, path, err, sizeof err) == 0, "%s", err);
    for (int i = 0; i < N; i++) {
        snprintf(id, sizeof id, "gone-%05d", i);
        progress_mark_seen(&a, id, i % 7);
        progress_set_completed(&a, id, i % 3 == 0);
    }
    CHECK(progress_save(&a, err, sizeof err) == 0, "save of %d records: %s", N, err);
    CHECK(progress_load(&b, path, err, sizeof err) == 0, "load of %d records: %s", N, err);
    int bad = b.n_lessons != N;
    for (int i = 0; i < N && !bad; i++) {
        snprintf(id, sizeof id, "gone-%05d", i);
        bad = progress_count_seen(&b, id) != 1 || !progress_seen(&b, id, i % 7) ||
              progress_completed(&b, id) != (i % 3 == 0);
    }
    CHECK(!bad, "every record read back as written (%d of %d records)", b.n_lessons, N);
    /* a saves twice (the second from its kept copy), b saves between a's saves */
    progress_mark_seen(&a, "x", 0);
    CHECK(progress_save(&a, err, sizeof err) == 0, "%s", err);
    progress_mark_seen(&b, "y", 1);
    CHECK(progress_save(&b, err, sizeof err) == 0, "%s", err);
    progress_mark_seen(&a, "x", 3);
    CHECK(progress_save(&a, err, sizeof err) == 0, "%s", err);
    CHECK(progress_load(&m, path, err, sizeof err) == 0, "%s", err);
    CHECK(m.n_lessons == N + 2 && progress_seen(&m, "y", 1) && progress_seen(&m, "x", 0) &&
          progress_seen(&m, "x", 3), "both windows' records merged: %d records", m.n_lessons);
    progress_free(&m);
    /* the file rewritten in place, same size and time stamps: still noticed and merged */
    struct stat st;
    char *text = NULL;
    size_t len = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        stat(path, &st);
        text = malloc((size_t)st.st_size + 1);
        len = text ? fread(text, 1, (size_t)st.st_size, f) : 0;
        fclose(f);
    }
    char *hit = text && len ? strstr(text, "\"gone-00005\"") : NULL;
    CHECK(hit != NULL, "the record to rename is in the file");
    if (hit) {
        hit[1] = 'G'; /* "Gone-00005": the same length */
        f = fopen(path, "r+");
        if (f) {
            fwrite(text, 1, len, f);
            fclose(f);
        }
        struct timespec ts[2] = {st.st_atim, st.st_mtim};
        utimensat(AT_FDCWD, path, ts, 0);
        progress_mark_seen(&a, "x", 4);
        CHECK(progress_save(&a, err, sizeof err) == 0, "%s", err);
        CHECK(progress_load(&m, path, err, sizeof err) == 0, "%s", err);
        CHECK(progress_seen(&m, "Gone-00005", 5) && progress_seen(&m, "x", 4),
              "a change of the same size and time stamp is merged, not overwritten");
        progress_free(&m);
    }
    free(text);
    progress_free(&a);
    progress_free(&b);
}

/* A progress file of a newer attend is kept where it is, reported as such, never saved over. */
static void test_newer(void)
{
    char dir[512], path[600], err[1024];
    snprintf(dir, sizeof dir, "%s/newer", tmpdir);
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/progress.json", dir);
    const char *content = "{\"version\": 7, \"lessons\": {\"a\": {\"seen\": [0]}}, \"new\": 1}\n";
    write_file(path, content);
    Progress p;
    CHECK(progress_load(&p, path, err, sizeof err) == -1 && p.no_save,
          "a newer format: not loaded, saving off");
    CHECK(strstr(err, path) && strstr(err, "newer attend") && strstr(err, "format 7") &&
          !strstr(err, "corrupt"), "the message says it is a newer attend's: %s", err);
    progress_mark_seen(&p, "b", 0);
    CHECK(progress_save(&p, err, sizeof err) == -1, "and not saved over");
    char *kept = read_file(path);
    CHECK(kept && !strcmp(kept, content), "the file is kept byte for byte, at its name");
    CHECK(count_prefix(dir, "progress.json.", NULL, 0) == 0, "nothing moved aside");
    progress_free(&p);
}

static void test_corrupt(const char *name, const char *content)
{
    char dir[512], path[600], err[1024], aside[1200];
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/progress.json", dir);
    write_file(path, content);
    Progress p;
    int rc = progress_load(&p, path, err, sizeof err);
    CHECK(rc == 1, "%s: corrupt file reported (rc %d)", name, rc);
    CHECK(strstr(err, "corrupt") && strstr(err, "progress.json.corrupt-"), "%s: message: %s",
          name, err);
    CHECK(access(path, F_OK) != 0, "%s: corrupt file no longer at its name", name);
    CHECK(count_prefix(dir, "progress.json.corrupt-", aside, sizeof aside) == 1,
          "%s: exactly one file moved aside", name);
    char *moved = read_file(aside);
    CHECK(moved && !strcmp(moved, content), "%s: moved file keeps the learner's bytes", name);
    CHECK(p.n_lessons == 0 && p.current_lesson[0] == 0, "%s: progress starts empty", name);
    /* the next save writes a fresh file and leaves the corrupt copy alone */
    progress_mark_seen(&p, "a", 0);
    CHECK(progress_save(&p, err, sizeof err) == 0, "%s: save after corrupt: %s", name, err);
    moved = read_file(aside);
    CHECK(moved && !strcmp(moved, content), "%s: corrupt copy untouched by the save", name);
    progress_free(&p);
}

/* Issue 39: top-level keys this attend does not know (a newer attend's, another tool's) are
 * kept on save, and merged between two windows; many slots and a slot of 20,000 records merge
 * whole. */
static void test_unknown_keys(void)
{
    char dir[512], path[600], err[1024];
    snprintf(dir, sizeof dir, "%s/unknown", tmpdir);
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/progress.json", dir);
    write_file(path, "{\"version\": 1, \"future\": {\"streak\": 5, \"list\": [1, 2]}, "
                     "\"lessons\": {}, \"theme\": \"dark\"}");
    Progress a, b, m;
    CHECK(progress_load(&a, path, err, sizeof err) == 0, "%s", err);
    CHECK(progress_load(&b, path, err, sizeof err) == 0, "%s", err);
    progress_mark_seen(&a, "intro", 1);
    CHECK(progress_save(&a, err, sizeof err) == 0, "%s", err);
    char *t = read_file(path);
    CHECK(t && strstr(t, "\"future\":{\"streak\":5,\"list\":[1,2]}") && strstr(t, "\"theme\":\"dark\""),
          "unknown top-level keys kept on save: %s", t ? t : "(none)");
    /* another tool adds a key; b (loaded before) saves: both kept */
    write_file(path, "{\"version\": 1, \"future\": {\"streak\": 6}, \"lessons\": {\"intro\": "
                     "{\"seen\": [1], \"completed\": false}}, \"theme\": \"dark\", \"more\": 1}");
    progress_mark_seen(&b, "intro", 2);
    CHECK(progress_save(&b, err, sizeof err) == 0, "%s", err);
    CHECK(progress_load(&m, path, err, sizeof err) == 0, "%s", err);
    CHECK(m.extra && strstr(m.extra, "\"more\":1") && strstr(m.extra, "\"theme\":\"dark\"") &&
              strstr(m.extra, "\"list\":[1,2]") && progress_seen(&m, "intro", 1) &&
              progress_seen(&m, "intro", 2), "merged: %s", m.extra ? m.extra : "(none)");
    progress_free(&m);
    progress_free(&a);
    progress_free(&b);
    /* 2,000 slots, and a slot of 20,000 records, saved by two windows: merged whole */
    snprintf(path, sizeof path, "%s/slots.json", dir);
    CHECK(progress_load(&a, path, err, sizeof err) == 0, "%s", err);
    CHECK(progress_load(&b, path, err, sizeof err) == 0, "%s", err);
    char key[64], *big = malloc(20000 * 48 + 16);
    size_t k = 0;
    k += (size_t)sprintf(big + k, "{");
    for (int i = 0; i < 20000; i++)
        k += (size_t)sprintf(big + k, "%s\"l%05d\": {\"best\": %d, \"when\": %d}", i ? "," : "", i,
                             i % 7, i);
    sprintf(big + k, "}");
    for (int i = 0; i < 2000; i++) {
        snprintf(key, sizeof key, "s%04d", i);
        progress_slot_set(i % 2 ? &a : &b, key, "{\"v\": 1}", err, sizeof err);
    }
    CHECK(progress_slot_set(&a, "quiz", big, err, sizeof err) == 0, "%s", err);
    CHECK(progress_slot_set(&b, "quiz", "{\"l19999\": {\"best\": 9, \"when\": 1}, \"new\": 1}", err,
                            sizeof err) == 0, "%s", err);
    CHECK(progress_save(&a, err, sizeof err) == 0 && progress_save(&b, err, sizeof err) == 0, "%s", err);
    CHECK(progress_load(&m, path, err, sizeof err) == 0, "%s", err);
    const char *q = progress_slot_get(&m, "quiz");
    CHECK(m.n_slots == 2001 && q && strstr(q, "\"l00000\":{\"best\":0,\"when\":0}") &&
              strstr(q, "\"l19999\":{\"best\":9,\"when\":19999}") && strstr(q, "\"new\":1") &&
              progress_slot_get(&m, "s0000") && progress_slot_get(&m, "s1999"),
          "2,001 slots and 20,001 records merged (%d slots)", m.n_slots);
    CHECK(progress_slot_set(&m, "s0000", NULL, err, sizeof err) == 0 && !progress_slot_get(&m, "s0000") &&
              progress_slot_get(&m, "s1999") && progress_slot_get(&m, "quiz"), "a slot removed");
    free(big);
    progress_free(&m);
    progress_free(&a);
    progress_free(&b);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/attend-test-progress-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_default_path();
    test_round_trip();
    test_atomic();
    test_symlink();
    test_stale();
    test_merge();
    test_two_processes();
    test_not_regular();
    test_corrupt("syntax", "{\"version\": 1, \"lessons\": {");
    test_corrupt("shape", "{\"version\": 1, \"lessons\": {\"a\": {\"seen\": \"all\"}}}");
    test_corrupt("version", "{\"version\": 0}");
    test_many();
    test_newer();
    test_unknown_keys();
    test_corrupt("empty", "");
    test_corrupt("huge-page", "{\"version\": 1, \"lessons\": {\"a\": {\"seen\": [1e300]}}}");
    test_corrupt("nan-page", "{\"version\": 1, \"lessons\": {\"a\": {\"seen\": [-1e19]}}}");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return t_done("progress");
}
