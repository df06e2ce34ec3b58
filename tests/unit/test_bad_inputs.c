/* test_bad_inputs.c - the bad-input table for what needs no process (issue 11; the command
 * line, model, vocabulary and lesson rows are in tests/ref/bad_inputs.sh): progress files
 * (each refused or moved aside with a message naming the problem, the learner's bytes kept)
 * and quiz answers (each unreadable answer is QV_INVALID with a message saying why, never
 * counted as wrong, never a crash). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "progress.h"
#include "quiz.h"
#include "safetext.h"
#include "t.h"
#include "vocab.h"

static char tmpdir[128];

/* 1 if every '|'-separated key word of keys is in s. */
static int has_all(const char *s, const char *keys)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", keys);
    for (char *save = NULL, *k = strtok_r(buf, "|", &save); k; k = strtok_r(NULL, "|", &save))
        if (!strstr(s, k))
            return 0;
    return 1;
}

typedef struct {
    const char *name, *content; /* content NULL: the row makes its own file */
    int rc;                     /* progress_load's return */
    const char *keys;
} ProgressRow;

static const ProgressRow PROGRESS_ROWS[] = {
    {"empty", "", 1, "corrupt|unexpected end of file"},
    {"syntax", "{\"version\": 1,", 1, "corrupt|JSON syntax error"},
    {"garbage", "\x7f" "ELF\x02\x01", 1, "corrupt|JSON syntax error"},
    {"nul", "{\"version\": 1}\0xx", 1, "corrupt"},
    {"array", "[1, 2]", 1, "corrupt|not a JSON object"},
    {"no-version", "{}", 1, "corrupt|version"},
    {"version-99", "{\"version\": 99}", -1, "newer attend|format 99|kept"},
    {"version-huge", "{\"version\": 1e300}", -1, "newer attend|format 1e+300|kept"},
    {"version-str", "{\"version\": \"1\"}", 1, "corrupt|version"},
    {"current-not-obj", "{\"version\": 1, \"current\": 3}", 1, "corrupt|current.lesson"},
    {"current-page", "{\"version\": 1, \"current\": {\"lesson\": \"a\", \"page\": -1}}", 1,
     "corrupt|current.page"},
    {"current-page-huge", "{\"version\": 1, \"current\": {\"lesson\": \"a\", \"page\": 1e19}}", 1,
     "corrupt|current.page"},
    {"current-long-id", "{\"version\": 1, \"current\": {\"lesson\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", \"page\": 0}}", 1, "corrupt|current.lesson"},
    {"lessons-array", "{\"version\": 1, \"lessons\": []}", 1, "corrupt|lessons: not an object"},
    {"lesson-not-obj", "{\"version\": 1, \"lessons\": {\"a\": 1}}", 1, "corrupt|lessons.a"},
    {"seen-string", "{\"version\": 1, \"lessons\": {\"a\": {\"seen\": \"all\"}}}", 1,
     "corrupt|lessons.a.seen"},
    {"seen-huge", "{\"version\": 1, \"lessons\": {\"a\": {\"seen\": [1e300]}}}", 1,
     "corrupt|lessons.a.seen"},
    {"seen-negative-huge", "{\"version\": 1, \"lessons\": {\"a\": {\"seen\": [-1e19]}}}", 1,
     "corrupt|lessons.a.seen"},
    {"seen-fraction", "{\"version\": 1, \"lessons\": {\"a\": {\"seen\": [1.5]}}}", 1,
     "corrupt|lessons.a.seen"},
    {"seen-too-far", "{\"version\": 1, \"lessons\": {\"a\": {\"seen\": [10000]}}}", 1,
     "corrupt|lessons.a.seen"},
    {"completed-num", "{\"version\": 1, \"lessons\": {\"a\": {\"completed\": 1}}}", 1,
     "corrupt|lessons.a.completed"},
    {"slots-array", "{\"version\": 1, \"slots\": [1]}", 1, "corrupt|slots: not an object"},
    {"directory", NULL, -1, "not a regular file"},
    {"ok-minimal", "{\"version\": 1}", 0, ""},
    {"ok-unknown-slot", "{\"version\": 1, \"slots\": {\"future\": {\"x\": [1, 2]}}}", 0, ""},
};

static void test_progress_rows(void)
{
    for (size_t i = 0; i < sizeof PROGRESS_ROWS / sizeof PROGRESS_ROWS[0]; i++) {
        const ProgressRow *r = &PROGRESS_ROWS[i];
        char dir[256], path[300], err[2048];
        snprintf(dir, sizeof dir, "%s/%s", tmpdir, r->name);
        mkdir(dir, 0700);
        snprintf(path, sizeof path, "%s/progress.json", dir);
        size_t len = 0;
        if (r->content) {
            len = strlen(r->content);
            if (!strcmp(r->name, "nul"))
                len += 3; /* a NUL byte inside the file */
            FILE *f = fopen(path, "wb");
            if (f) {
                fwrite(r->content, 1, len, f);
                fclose(f);
            }
        } else {
            mkdir(path, 0700);
        }
        Progress p;
        err[0] = 0;
        int rc = progress_load(&p, path, err, sizeof err);
        CHECK(rc == r->rc, "%s: progress_load returned %d, want %d (%s)", r->name, rc, r->rc, err);
        CHECK(has_all(err, r->keys), "%s: message lacks \"%s\": %s", r->name, r->keys, err);
        if (rc == 1) {
            /* the learner's bytes moved aside, never lost; a fresh file saves */
            DIR *d = opendir(dir);
            int moved = 0;
            for (struct dirent *e; d && (e = readdir(d));)
                moved += !strncmp(e->d_name, "progress.json.corrupt-", 22);
            if (d)
                closedir(d);
            CHECK(moved == 1, "%s: corrupt file moved aside (%d)", r->name, moved);
            CHECK(progress_save(&p, err, sizeof err) == 0, "%s: a fresh save works: %s", r->name,
                  err);
        }
        if (rc == -1)
            CHECK(progress_save(&p, err, sizeof err) == -1, "%s: nothing saved over it", r->name);
        progress_free(&p);
    }
}

typedef struct {
    QuizKind kind;
    const char *answer;
    QuizVerdict want;
    const char *keys;
} AnswerRow;

static const AnswerRow ANSWER_ROWS[] = {
    {QK_NUMBER, "", QV_INVALID, "Empty answer"},
    {QK_NUMBER, "   ", QV_INVALID, "Empty answer"},
    {QK_NUMBER, "abc", QV_INVALID, "\"abc\" is not a number"},
    {QK_NUMBER, "nan", QV_INVALID, "NaN"},
    {QK_NUMBER, "NaN", QV_INVALID, "NaN"},
    {QK_NUMBER, "inf", QV_INVALID, "infinite"},
    {QK_NUMBER, "1e999", QV_INVALID, "far too large"},
    {QK_NUMBER, "99999999999999999999999999", QV_INVALID, "far too large"},
    {QK_NUMBER, "1/0", QV_INVALID, "divides by zero"},
    {QK_NUMBER, "--1", QV_INVALID, "not a number"},
    {QK_NUMBER, "1..2", QV_INVALID, "not a number"},
    {QK_NUMBER, "1,5", QV_INVALID, "point"},
    {QK_NUMBER, "0x10", QV_INVALID, "not a number"},
    {QK_NUMBER, "\xff\xfe", QV_INVALID, "not a number"},
    {QK_NUMBER, "0.25", QV_RIGHT, "Right"},
    {QK_NUMBER, "1e-400", QV_WRONG, "not right"},
    {QK_SHAPE, "", QV_INVALID, "Empty answer"},
    {QK_SHAPE, "6", QV_INVALID, "has 1 size"},
    {QK_SHAPE, "6x", QV_INVALID, "is not a shape"},
    {QK_SHAPE, "x64", QV_INVALID, "is not a shape"},
    {QK_SHAPE, "6x64x2x3x4", QV_INVALID, "more than 4 sizes"},
    {QK_SHAPE, "6x-1", QV_INVALID, "at least 1"},
    {QK_SHAPE, "6x0", QV_INVALID, "at least 1"},
    {QK_SHAPE, "[6,64", QV_INVALID, "is not a shape"},
    {QK_SHAPE, "99999999999x2", QV_INVALID, "far too large"},
    {QK_SHAPE, "6xx64", QV_INVALID, "is not a shape"},
    {QK_SHAPE, "(,)", QV_INVALID, "is not a shape"},
    {QK_SHAPE, "[6, 64]", QV_RIGHT, "Right"},
    {QK_CHOICE, "", QV_INVALID, "Empty answer"},
    {QK_CHOICE, "d", QV_INVALID, "not a choice|1 to 3"},
    {QK_CHOICE, "0", QV_INVALID, "not a choice"},
    {QK_CHOICE, "4", QV_INVALID, "not a choice"},
    {QK_CHOICE, "-1", QV_INVALID, "not a choice"},
    {QK_CHOICE, "99999999999", QV_INVALID, "not a choice"},
    {QK_CHOICE, "1.5", QV_INVALID, "not a choice"},
    {QK_CHOICE, "a b", QV_INVALID, "Pick one choice"},
    {QK_CHOICE, "b", QV_RIGHT, "Right"},
    {QK_MULTI, "", QV_INVALID, "Empty answer"},
    {QK_MULTI, "a,z", QV_INVALID, "\"z\" is not a choice"},
    {QK_MULTI, "e", QV_INVALID, "not a choice|1 to 4"},
    {QK_MULTI, "0", QV_INVALID, "not a choice"},
    {QK_MULTI, "a,c", QV_RIGHT, "Right"},
    {QK_TEXT, "", QV_INVALID, "Empty answer"},
    {QK_TEXT, "\"\"", QV_INVALID, "Type a word"},
    {QK_TEXT, "...", QV_INVALID, "Type a word"},
    {QK_TEXT, "Softmax.", QV_RIGHT, "Right"},
    {QK_CELL, "", QV_INVALID, "Empty answer"},
    {QK_CELL, "9", QV_INVALID, "Column 9 does not exist"},
    {QK_CELL, "-1", QV_INVALID, "not a column number"},
    {QK_CELL, "x", QV_INVALID, "not a column number"},
    {QK_CELL, "0", QV_RIGHT, "Right"},
};

static void test_answer_rows(void)
{
    static QuizItem it;
    for (size_t i = 0; i < sizeof ANSWER_ROWS / sizeof ANSWER_ROWS[0]; i++) {
        const AnswerRow *r = &ANSWER_ROWS[i];
        memset(&it, 0, sizeof it);
        it.kind = r->kind;
        it.number = 0.25, it.tol = 0.01;                     /* number */
        it.rank = 2, it.dims[0] = 6, it.dims[1] = 64;        /* shape */
        it.n_choices = r->kind == QK_MULTI ? 4 : 3;          /* choice: b; multi: a and c */
        it.correct = r->kind == QK_MULTI ? 5 : 2;
        it.n_text = 1;
        snprintf(it.text[0], sizeof it.text[0], "softmax");
        it.row = 1, it.col = 0, it.n_cols = 6;               /* cell */
        char msg[400] = "";
        QuizVerdict v = quiz_check(&it, r->answer, msg, sizeof msg);
        CHECK(v == r->want, "%s \"%s\": verdict %d, want %d (%s)", quiz_kind_name(r->kind),
              r->answer, (int)v, (int)r->want, msg);
        CHECK(has_all(msg, r->keys), "%s \"%s\": message lacks \"%s\": %s",
              quiz_kind_name(r->kind), r->answer, r->keys, msg);
    }
}

/* Vocabulary words: refused when the tokenizer could never produce them (issue 23). */
typedef struct {
    const char *word;
    const char *keys; /* NULL: accepted */
} VocabRow;

static const VocabRow VOCAB_ROWS[] = {
    {"Zebra", "has a capital letter|could never be produced"},
    {"a.b", "contains \".\"|punctuation"},
    {"it's", "contains \"'\""},
    {"tab\there", "whitespace"},
    {"##Ing", "capital"},
    {"zebra", NULL},
    {".", NULL},
    {"<bos>", NULL},
    {"<0x41>", NULL},
    {"##ing", NULL},
    {"caf\xc3\xa9", NULL},
};

static void test_vocab_rows(void)
{
    for (size_t i = 0; i < sizeof VOCAB_ROWS / sizeof VOCAB_ROWS[0]; i++) {
        const VocabRow *r = &VOCAB_ROWS[i];
        const char *words[] = {"<pad>", "<unk>", r->word};
        for (int kind = VOCAB_WORDS; kind <= VOCAB_WORDPIECE; kind++) {
            Vocab v;
            char err[300] = "";
            int rc = vocab_init_kind(&v, (VocabKind)kind, words, 3, err, sizeof err);
            if (r->keys)
                CHECK(rc == -1 && has_all(err, r->keys) && strstr(err, "word 2"),
                      "vocab \"%s\" (%s) refused: %s", r->word, vocab_kind_name(kind), err);
            else
                CHECK(rc == 0, "vocab \"%s\" (%s) accepted: %s", r->word, vocab_kind_name(kind),
                      err);
            if (rc == 0)
                vocab_free(&v);
        }
    }
}

/* Duplicate keys are found, named by their path, in small and large objects. */
static void test_duplicate_keys(void)
{
    char path[200];
    cJSON *a = cJSON_Parse("{\"config\": {\"arch\": 1, \"d\": 2, \"arch\": 3}, \"x\": [1]}");
    CHECK(a && json_find_duplicate(a, path, sizeof path) && !strcmp(path, "config.arch"),
          "a nested duplicate named: %s", path);
    cJSON_Delete(a);
    a = cJSON_Parse("{\"w\": [{\"k\": 1}, {\"k\": 1, \"k\": 2}]}");
    CHECK(a && json_find_duplicate(a, path, sizeof path) && !strcmp(path, "w[1].k"),
          "in an array's object: %s", path);
    cJSON_Delete(a);
    char big[4000];
    size_t o = (size_t)snprintf(big, sizeof big, "{");
    for (int i = 0; i < 100; i++)
        o += (size_t)snprintf(big + o, sizeof big - o, "\"k%03d\": %d, ", i, i);
    snprintf(big + o, sizeof big - o, "\"k042\": 0}");
    a = cJSON_Parse(big);
    CHECK(a && json_find_duplicate(a, path, sizeof path) && !strcmp(path, "k042"),
          "in a 101-key object: %s", path);
    cJSON_Delete(a);
    a = cJSON_Parse("{\"a\": {\"b\": 1}, \"b\": {\"a\": 1}}");
    CHECK(a && !json_find_duplicate(a, path, sizeof path), "no duplicate: none reported");
    cJSON_Delete(a);
}

/* Control characters in caret notation, UTF-8 kept whole. */
static void test_safetext(void)
{
    char out[64];
    CHECK(!strcmp(safetext_escape("a\x1b]0;x\x07" "b", out, sizeof out), "a^[]0;x^Gb"), "OSC: %s", out);
    CHECK(!strcmp(safetext_escape("\xc2\x9b" "2J\x7f", out, sizeof out), "^[[2J^?"), "C1 CSI, DEL: %s",
          out);
    CHECK(!strcmp(safetext_escape("caf\xc3\xa9\nok\t\r", out, sizeof out), "caf\xc3\xa9\nok\t^M"),
          "UTF-8, newline and tab kept, a carriage return escaped: %s", out);
    CHECK(!strcmp(safetext_escape("ab\xc3\xa9", out, 4), "ab"), "a character is never cut: %s", out);
    /* issue 39: a raw 0x80..0x9F byte outside a character is a C1 control too (an 8-bit
     * terminal reads 0x9B as CSI); continuation bytes of real characters are kept */
    CHECK(!strcmp(safetext_escape("a\x9b" "2J\x85z", out, sizeof out), "a^[[2J^[Ez"), "raw C1: %s", out);
    CHECK(!strcmp(safetext_escape("\xe2\x80\x9c\xc4\x80\xf0\x9f\x98\x80", out, sizeof out),
                  "\xe2\x80\x9c\xc4\x80\xf0\x9f\x98\x80"), "continuation bytes kept: %s", out);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/attend-test-bad-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_progress_rows();
    test_answer_rows();
    test_vocab_rows();
    test_duplicate_keys();
    test_safetext();
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return t_done("bad_inputs");
}
