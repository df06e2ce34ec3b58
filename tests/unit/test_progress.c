/* test_progress.c - progress file: round trip, default path, atomic save, corrupt file moved
 * aside (never overwritten), opaque slots. */
#include <dirent.h>
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

static void test_atomic(void)
{
    char path[512], err[512], tmp[600];
    snprintf(path, sizeof path, "%s/atomic/progress.json", tmpdir);
    Progress p;
    CHECK(progress_load(&p, path, err, sizeof err) == 0, "%s", err);
    progress_set_current(&p, "one", 1);
    CHECK(progress_save(&p, err, sizeof err) == 0, "first save: %s", err);
    char before[8192];
    char *b = read_file(path);
    snprintf(before, sizeof before, "%s", b ? b : "");
    CHECK(strstr(before, "\"one\"") != NULL, "first save has the lesson");
    /* Block the temp file name: the save must fail and leave the old file untouched. */
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    CHECK(mkdir(tmp, 0700) == 0, "blocker made");
    progress_set_current(&p, "two", 2);
    CHECK(progress_save(&p, err, sizeof err) == -1, "save fails when the temp file cannot be made");
    b = read_file(path);
    CHECK(b && !strcmp(b, before), "old file intact after a failed save");
    rmdir(tmp);
    CHECK(progress_save(&p, err, sizeof err) == 0, "save works again: %s", err);
    b = read_file(path);
    CHECK(b && strstr(b, "\"two\"") && !strstr(b, "\"one\""), "new content replaced the old");
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
    test_corrupt("syntax", "{\"version\": 1, \"lessons\": {");
    test_corrupt("shape", "{\"version\": 1, \"lessons\": {\"a\": {\"seen\": \"all\"}}}");
    test_corrupt("version", "{\"version\": 99}");
    test_corrupt("empty", "");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return t_done("progress");
}
