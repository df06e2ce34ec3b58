/* cmd_quiz.c - the terminal-free half of `attend quiz`: options, loading the course and
 * progress, the teacher's answer key (--answers), the plain-text messages, and cmd_quiz, which
 * hands the terminal to the quiz screen (src/tui/view_quiz.c). */

#include <langinfo.h>
#include <locale.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "fileio.h"
#include "lesson.h"
#include "progress.h"
#include "utf8.h"
#include "quiz.h"
#include "safetext.h"
#include "tui.h"

static const char QUIZ_USAGE[] =
    "usage: attend quiz [--lesson ID] [--count N] [--seed S] [--lessons DIR] [--ascii]\n"
    "       attend quiz --review [--count N]\n"
    "       attend quiz --answers --seed S [--lesson ID] [--count N] [--lessons DIR]\n"
    "       attend quiz --class [--lesson ID] [--time S] [--seed S] [--count N]\n"
    "       attend class serve [--lesson ID] [--count N] [--seed S] [--time S] [--port P]\n"
    "                          [--bind ADDR] [--names] [--results FILE] [--code NNNNNN]\n"
    "                          [--plain]\n"
    "  --lesson ID    only that lesson's questions (default: every lesson)\n"
    "  --count N      ask N questions picked with the seed (default: all, in course order);\n"
    "                 drills come back with fresh numbers when N exceeds the questions\n"
    "  --seed S       the drills' numbers and the pick (default: from the clock; shown)\n"
    "  --review       ask what the review schedule says is due (Leitner boxes)\n"
    "  --answers      print the questions of --seed S with their answers, no terminal\n"
    "                 needed (the teacher's key: the same questions as attend quiz --seed S)\n"
    "  --ascii        ASCII glyphs instead of UTF-8\n"
    "  --class        for a room: one question at a time, large; r reveals the answer,\n"
    "                 n moves on; attend notes shows the answer before it is revealed\n"
    "  --time S       with --class: a countdown of S seconds per question\n"
    "  --serve        with --class (attend class serve): open a room at once; students\n"
    "                 answer from their terminals with attend class join HOST CODE; o\n"
    "                 opens one during a class quiz (docs/classroom.md)\n"
    "  --port P       the room's TCP port (default 7341; 0: any free port)\n"
    "  --bind ADDR    listen on that IPv4 address only (default: every interface)\n"
    "  --names        show students' names on the projector (default: anonymous)\n"
    "  --results FILE write every student's answers and score as JSON as each question\n"
    "                 closes and at the end\n"
    "  --code NNNNNN  a fixed room code (default: six random digits)\n"
    "  --plain        with --serve: the teacher's side as plain lines, no terminal: commands\n"
    "                 on stdin (r, n, s, q, wait answered N), the counts, distribution,\n"
    "                 answer and scores on stdout (docs/classroom.md)\n"
    "Scores and the review schedule are saved with the progress ($XDG_STATE_HOME/attend/).";

typedef struct {
    const char *lesson;      /* --lesson ID or NULL */
    const char *dir;         /* --lessons DIR or NULL (the course's lessons/) */
    int count;               /* --count N, 0 = every question */
    uint64_t seed;           /* --seed S, or drawn from the clock */
    int have_seed;
    int review, answers, ascii;
    int klass;               /* --class: one question at a time for a room */
    int time_s;              /* --time S: the countdown per question (class quiz) */
    TuiClassRoom room;       /* --serve, --port, --bind, --names, --results, --code */
    int plain;               /* --plain with --serve: the teacher's side as lines, no terminal */
} QuizCmd;

/* Parses the options after "quiz" (opts.h). -1 to go on, 0 after --help, 2 on a usage error
 * (message and usage printed). */
static int quiz_cmd_parse(QuizCmd *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    long count = 0, time_s = 0, port = -2;
    unsigned long long seed = 0;
    const Opt opts[] = {
        OPT_S("--lesson", &o->lesson), OPT_S("--lessons", &o->dir),
        OPT_I("--count", &count, 1, 1000),
        {"--seed", OPT_U64, &seed, 0, 0, NULL, &o->have_seed, 0},
        OPT_F("--review", &o->review), OPT_F("--answers", &o->answers),
        OPT_F("--class", &o->klass), OPT_I("--time", &time_s, 1, 3600),
        OPT_F("--ascii", &o->ascii),
        OPT_F("--serve", &o->room.open), OPT_I("--port", &port, 0, 65535),
        OPT_S("--bind", &o->room.o.bind), OPT_F("--names", &o->room.o.names),
        OPT_S("--results", &o->room.results), OPT_S("--code", &o->room.o.code),
        OPT_F("--plain", &o->plain),
    };
    int rc = opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc, argv, "attend quiz",
                        QUIZ_USAGE);
    if (rc >= 0)
        return rc;
    o->count = (int)count;
    o->time_s = (int)time_s;
    o->seed = (uint64_t)seed;
    o->room.o.port = port == -2 ? 0 : port == 0 ? -1 : (int)port; /* 0 asks for any port */
    if ((o->room.open || port != -2 || o->room.o.bind || o->room.o.names || o->room.results ||
         o->room.o.code) && !o->klass)
        return opts_usage_error("attend quiz", QUIZ_USAGE,
                                "--serve, --port, --bind, --names, --results and --code are "
                                "for the class quiz (--class, attend class serve)");
    if (o->plain && !o->room.open)
        return opts_usage_error("attend quiz", QUIZ_USAGE,
                                "--plain is for a room's teacher (attend class serve --plain)");
    if (o->room.results && !o->room.open)
        return opts_usage_error("attend quiz", QUIZ_USAGE, "--results needs --serve");
    if (o->room.results) {
        char ferr[1200];
        if (fileio_check_target(o->room.results, ferr, sizeof ferr))
            return opts_usage_error("attend quiz", QUIZ_USAGE, ferr);
    }
    if (o->answers && !o->have_seed)
        return opts_usage_error("attend quiz", QUIZ_USAGE,
                                "--answers needs --seed S: the seed the class's quiz uses");
    if (o->answers && o->review)
        return opts_usage_error("attend quiz", QUIZ_USAGE,
                                "--answers and --review do not go together (a review depends "
                                "on one learner's progress)");
    if (!o->have_seed) /* different every run, shown on screen so it can be reused */
        o->seed = ((uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid()) % 1000000u;
    return -1;
}

/* Loads the course (o->dir or the default) and checks o->lesson. 0, or -1 with a message;
 * c is the caller's to free either way. */
static int quiz_cmd_load(const QuizCmd *o, Course *c, char *err, size_t errlen)
{
    char dirbuf[1024];
    const char *dir = o->dir;
    if (!dir) {
        data_path("lessons", dirbuf, sizeof dirbuf);
        dir = dirbuf;
    }
    if (lesson_load_dir(c, dir, err, errlen))
        return -1;
    if (o->lesson) {
        char why[300];
        int li = lesson_lookup(c, o->lesson, why, sizeof why);
        if (li < 0) {
            snprintf(err, errlen, "--lesson: %s (lessons in %.300s)", why, dir);
            return -1;
        }
        if (c->lessons[li].broken) {
            snprintf(err, errlen, "lesson \"%s\" is broken: %s", o->lesson,
                     c->lessons[li].error);
            return -1;
        }
    }
    return 0;
}

/* Loads the learner's progress. 0 (warn may still say a corrupt file was moved aside), or
 * -1 when it cannot be saved (warn says why; p is empty and safe to use read-only). */
static int quiz_cmd_progress(Progress *p, char *warn, size_t warnlen)
{
    char path[1024], err[600];
    warn[0] = 0;
    if (progress_default_path(path, sizeof path, err, sizeof err)) {
        memset(p, 0, sizeof *p);
        snprintf(warn, warnlen, "scores will not be saved: %s", err);
        return -1;
    }
    int r = progress_load(p, path, err, sizeof err);
    if (r == 1)
        snprintf(warn, warnlen, "%s", err);
    else if (r < 0) {
        snprintf(warn, warnlen, "scores will not be saved: %s", err);
        return -1;
    }
    return 0;
}

static void print_wrapped(FILE *f, const char *indent, const char *text)
{
    /* keeps the author's line breaks; wraps long lines at 88 columns on spaces */
    const int W = 88;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        while (len > 0) {
            size_t take = len;
            if ((int)take > W) {
                take = (size_t)W;
                while (take > 0 && p[take] != ' ')
                    take--;
                if (take == 0)
                    take = (size_t)W;
            }
            fprintf(f, "%s%.*s\n", indent, (int)take, p);
            p += take;
            len -= take;
            while (len > 0 && *p == ' ') {
                p++;
                len--;
            }
        }
        if (!nl)
            break;
        p = nl + 1;
    }
}

/* s in w columns (one a character; cut at w, spaces after), right-aligned when right. */
static void put_col(FILE *f, const char *s, int w, int right)
{
    int chars = 0;
    size_t end = 0;
    while (s[end] && chars < w) {
        end++;
        while (utf8_is_cont((unsigned char)s[end]))
            end++;
        chars++;
    }
    if (right)
        fprintf(f, "%*s", w - chars, "");
    fprintf(f, "%.*s", (int)end, s);
    if (!right)
        fprintf(f, "%*s", w - chars, "");
}

/* A cell question's weights, as the quiz shows them: rows are queries (the question's row
 * marked '>'), masked cells "·" ("x" with ascii, the player's G_MASKED), never 0.00. */
static void print_grid(FILE *f, const QuizItem *it, int ascii)
{
    int m = it->grid_m;
    fprintf(f, "   Weights (rows: queries, columns: keys; %s masked):\n", ascii ? "x" : "·");
    fprintf(f, "     %9s", "");
    for (int j = 0; j < m; j++) {
        fputc(' ', f);
        put_col(f, it->grid_cols[j], 6, 1);
    }
    fprintf(f, "\n");
    for (int i = 0; i < it->grid_n; i++) {
        fprintf(f, "   %c ", i == it->row ? '>' : ' ');
        put_col(f, it->grid_rows[i], 9, 0);
        for (int j = 0; j < m; j++) {
            if (it->grid_masked[i * m + j])
                fprintf(f, " %5s%s", "", ascii ? "x" : "·");
            else
                fprintf(f, " %6.2f", (double)it->grid[i * m + j]);
        }
        fprintf(f, "\n");
    }
}

/* The teacher's answer key for s (plain text). */
static void quiz_print_key(FILE *f, const QuizSet *s, const QuizCmd *o)
{
    const char *cs = nl_langinfo(CODESET);
    int ascii = o->ascii || !cs || strcmp(cs, "UTF-8");
    fprintf(f, "attend quiz - answer key, seed %llu, %s: %d question%s\n",
            (unsigned long long)s->seed, o->lesson ? o->lesson : "every lesson", s->n,
            s->n == 1 ? "" : "s");
    fprintf(f, "The class sees the same questions with: attend quiz --seed %llu%s%s",
            (unsigned long long)s->seed, o->lesson ? " --lesson " : "",
            o->lesson ? o->lesson : "");
    if (o->count)
        fprintf(f, " --count %d", o->count);
    fprintf(f, "\n");
    if (s->n_skipped)
        fprintf(f, "(%d question%s could not be built and %s left out: %s)\n", s->n_skipped,
                s->n_skipped == 1 ? "" : "s", s->n_skipped == 1 ? "is" : "are", s->skipped);
    for (int i = 0; i < s->n; i++) {
        const QuizItem *it = &s->items[i];
        fprintf(f, "\n%d. [%s] %s%s%s\n", i + 1, it->key, quiz_kind_name(it->kind),
                it->drill[0] ? ", drill " : "", it->drill);
        if (it->lead[0])
            print_wrapped(f, "   ", it->lead);
        print_wrapped(f, "   ", it->prompt);
        if (it->context[0]) {
            char setup[500];
            snprintf(setup, sizeof setup, "Setup: %s", it->context);
            print_wrapped(f, "   ", setup);
        }
        for (int c = 0; c < it->n_choices; c++) {
            fprintf(f, "     %d) %s\n", c + 1, it->choices[c]);
            if (it->why[c][0]) {
                char why[QUIZ_WHY_MAX + 16];
                snprintf(why, sizeof why, "Why not: %s", it->why[c]);
                print_wrapped(f, "        ", why);
            }
        }
        char ans[300];
        quiz_key_answer(it, ans, sizeof ans);
        fprintf(f, "   Answer: %s\n", ans);
        if (it->kind == QK_CELL && it->grid_n)
            print_grid(f, it, ascii);
        if (it->explain[0]) {
            fprintf(f, "   Why:\n");
            print_wrapped(f, "     ", it->explain);
        }
    }
}

/* "Nothing is due ..." with when the next question is due. */
static void quiz_print_nothing_due(FILE *f, const Progress *p, long now)
{
    /* the soonest future due time among scheduled questions */
    long next;
    int scheduled = quiz_scheduled(p, &next);
    if (!scheduled) {
        fprintf(f, "Nothing to review yet: answer some questions first (attend quiz).\n");
        return;
    }
    double days = (double)(next - now) / 86400.0;
    fprintf(f, "Nothing is due for review. %d question%s scheduled; the next is due in ",
            scheduled, scheduled == 1 ? " is" : "s are");
    if (days < 1)
        fprintf(f, "%.0f hour%s.\n", days * 24 < 1 ? 1 : days * 24,
                days * 24 < 1.5 ? "" : "s");
    else
        fprintf(f, "%.0f day%s.\n", days, days < 1.5 ? "" : "s");
}

/* ---- attend quiz: the terminal half (tui_quiz, tui_class_quiz: the player's loop) ---- */

/* The quiz's screen (attend quiz, --class), then its summary on stdout once the terminal is
 * back. Returns the exit status. */
static int quiz_screen(QuizCmd *o, QuizSet *s, Progress *prog)
{
    char err[1024];
    int rc = 0;
    if (o->klass) {
        int shown;
        TuiClassRoom *room = &o->room;
        rc = tui_class_quiz(s, o->time_s, o->ascii, room, &shown, err, sizeof err);
        if (rc == 1) {
            fprintf(stderr, "attend quiz: %s\n", err);
            return rc;
        }
        printf("class quiz (seed %llu): %d question%s, %d answer%s revealed\n",
               (unsigned long long)s->seed, s->n, s->n == 1 ? "" : "s", shown,
               shown == 1 ? "" : "s");
        if (room->opened)
            printf("room (%s): %d student%s joined%s%s\n", room->join, room->students,
                   room->students == 1 ? "" : "s", room->results && !room->results_failed
                   ? "; results in " : "", room->results && !room->results_failed
                   ? room->results : "");
        if (room->results_failed) {
            fprintf(stderr, "attend quiz: results not written: %s\n", room->err);
            rc = rc ? rc : 1;
        }
    } else {
        QuizTally t;
        char serr[300];
        rc = tui_quiz(s, prog, !o->review, o->ascii, &t, serr, sizeof serr,
                      err, sizeof err);
        if (rc == 1) {
            fprintf(stderr, "attend quiz: %s\n", err);
        } else {
            printf("quiz (seed %llu): %d of %d right at the first try, %d hint%s, %d skipped%s\n",
                   (unsigned long long)s->seed, t.right, t.asked, t.hints, t.hints == 1 ? "" : "s",
                   t.skipped, t.quit ? " (stopped early)" : "");
            if (s->n_skipped)
                printf("%d question%s could not be built: %s\n", s->n_skipped,
                       s->n_skipped == 1 ? "" : "s", s->skipped);
            if (serr[0]) {
                fprintf(stderr, "attend quiz: results not saved: %s\n", serr);
                rc = rc ? rc : 1;
            }
        }
    }
    return rc;
}

int cmd_quiz(int argc, char **argv)
{
    QuizCmd o;
    char err[1024];
    int prc = quiz_cmd_parse(&o, argc, argv);
    if (prc >= 0)
        return prc;
    setlocale(LC_ALL, "");
    if (o.room.open && !o.plain && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        /* a room's teacher without a terminal (a pipe, a script): the plain lines */
        fprintf(stderr, "attend class serve: no terminal: the room runs as plain lines "
                        "(--plain): commands on stdin, the room on stdout\n");
        o.plain = 1;
    }
    if (!o.answers && !o.plain && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        fprintf(stderr, "attend quiz: the quiz is interactive and needs a terminal (stdin and "
                        "stdout).\nFor a printable answer key: attend quiz --answers --seed S"
                        "%s%s\n", o.lesson ? " --lesson " : "", o.lesson ? o.lesson : "");
        return 1;
    }
    Course c;
    memset(&c, 0, sizeof c);
    if (quiz_cmd_load(&o, &c, err, sizeof err)) {
        fprintf(stderr, "attend quiz: %s\n", err);
        lesson_free_course(&c);
        return 1;
    }
    /* a broken lesson is named with every problem check-lessons reports for it; the quiz
     * goes on with the lessons that load */
    int broken = 0;
    for (int li = 0; li < c.n_lessons; li++) {
        if (!c.lessons[li].broken || (o.lesson && strcmp(o.lesson, c.lessons[li].id)))
            continue;
        broken++;
        for (int i = 0; i < c.n_problems; i++)
            if (c.problems[i].lesson == li)
                fprintf(stderr, "attend quiz: %s\n", c.problems[i].msg);
    }
    if (broken)
        fprintf(stderr, "attend quiz: %d lesson%s skipped (attend check-lessons%s%s lists the "
                "problems); quizzing on the rest\n", broken, broken == 1 ? "" : "s",
                o.dir ? " " : "", o.dir ? o.dir : "");
    QuizSet s;
    int rc = 0;
    if (o.answers) {
        if (quiz_build(&s, &c, o.lesson, o.count, o.seed, err, sizeof err)) {
            fprintf(stderr, "attend quiz: %s\n", err);
            lesson_free_course(&c);
            return 1;
        }
        safetext_wrap(&stdout, 0); /* the key quotes lessons: never their escape sequences */
        quiz_print_key(stdout, &s, &o);
        quiz_set_free(&s);
        lesson_free_course(&c);
        return 0;
    }
    Progress prog;
    char warn[700];
    int can_save = quiz_cmd_progress(&prog, warn, sizeof warn) == 0;
    if (warn[0])
        fprintf(stderr, "attend quiz: %s\n", warn);
    long now = (long)time(NULL);
    int built = o.review ? quiz_build_review(&s, &c, &prog, now, o.count, o.seed, err,
                                             sizeof err)
                         : quiz_build(&s, &c, o.lesson, o.count, o.seed, err, sizeof err);
    if (built) {
        fprintf(stderr, "attend quiz: %s\n", err);
        progress_free(&prog);
        lesson_free_course(&c);
        return 1;
    }
    if (o.review && s.n == 0) {
        quiz_print_nothing_due(stdout, &prog, now);
        quiz_set_free(&s);
        progress_free(&prog);
        lesson_free_course(&c);
        return 0;
    }
    if (o.plain) /* the teacher's side without a terminal (cmd_class_serve.c) */
        rc = cmd_class_serve_plain(&s, &o.room.o, o.room.results, o.time_s);
    else
        rc = quiz_screen(&o, &s, can_save ? &prog : NULL);
    quiz_set_free(&s);
    progress_free(&prog);
    lesson_free_course(&c);
    return rc;
}
