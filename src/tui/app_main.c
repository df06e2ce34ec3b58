/* app_main.c - attend and attend present: the player's options, the course loaded, the one
 * loop (draw -> key -> recompute; a busy view's tick between keys), signals (the loop ends
 * cleanly; a crash restores the terminal). */
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_model.h"
#include "app_views.h"
#include "datapath.h"
#include "keys.h"
#include "layout.h"
#include "opts.h"
#include "present.h"
#include "present_state.h"
#include "tui.h"
#include "ui.h"
#include "view_notes_screen.h"
#include "view_quiz.h"

/* ---- signals: the handler only sets a flag; the loop ends cleanly ---- */
static volatile sig_atomic_t app_signal;

static void on_signal(int sig)
{
    app_signal = sig;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a blocked read returns so the loop sees the flag */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    /* the crash handler is ui_start's, the same for every curses screen */
}

static const char USAGE[] =
    "usage: attend [present] [--lessons DIR] [--lesson ID] [--page N] [--theme T]\n"
    "              [--model DIR|FILE] [--record FILE] [--ascii] [--mouse|--no-mouse]\n"
    "       attend present --plan FILE [--check] [--lessons DIR] [--theme T]\n"
    "  present        presenter mode: key echo, quiet footer, attend notes follows\n"
    "  --lessons DIR  play the course in DIR (default: lessons/)\n"
    "  --lesson ID    open that lesson: its id, number or the start of its id\n"
    "                 (paging stays in it; g opens others)\n"
    "  --page N       open page N (of --lesson ID, else of the lesson it opens)\n"
    "  --model DIR    a Hugging Face model directory (or a model JSON file): the\n"
    "                 pages on \"your model\" run on it (docs/models.md); without\n"
    "                 --lesson, the player opens on the first of them\n"
    "  --theme T      dark, light (white background), projector or auto\n"
    "                 (COLORFGBG); default dark, presenter auto\n"
    "  --record FILE  write the pages and keys of the session as a demo script\n"
    "                 (docs/demos.md) that attend demo FILE plays back\n"
    "  --plan FILE    present: a lecture plan (lesson pages and demo steps in\n"
    "                 order, docs/demos.md), checked first; space steps through\n"
    "  --check        with --plan: check the plan only (FILE:LINE:COL)\n"
    "  --ascii        ASCII glyphs instead of UTF-8 blocks\n"
    "  --mouse        click chips with the mouse (off by default: mouse capture\n"
    "                 stops the terminal's own copy and paste)\n"
    "Environment: NO_COLOR turns colour off; XDG_STATE_HOME for progress.";

/* The one loop of every curses screen (the player, the presenter, attend quiz, attend
 * notes): draw, a busy view's tick, a key to app_key (through the presenter), until a->quit
 * or a signal. */
static void app_loop(App *a)
{
    timeout(250); /* wake up to notice signals even with no key */
    int dirty = 1;
    /* ATTEND_CRASH_TEST=segv|abort (undocumented, for tests/e2e): raise that signal after
     * the first draw, to prove the crash handler restores the terminal. It only raises a
     * signal; nothing is corrupted. */
    const char *crash = getenv("ATTEND_CRASH_TEST");
    while (!a->quit && !app_signal) {
        /* a screen that changes with no key (a clock, a file it follows): the open overlay,
         * else the page's view (the lab page follows its show file) */
        const ViewOps *ov = a->overlay ? a->overlay : app_cur_view(a);
        if (ov->poll && ov->poll(a))
            dirty = 1;
        if (dirty)
            layout_draw(a);
        if (crash && crash[0])
            raise(!strcmp(crash, "abort") ? SIGABRT : SIGSEGV);
        dirty = 0;
        /* a view working between keys (training) runs one slice, then polls the keyboard */
        const ViewOps *cv = a->overlay ? NULL : app_cur_view(a);
        int busy = cv && cv->tick && cv->tick(a);
        timeout(busy ? 0 : ov->poll ? ov->poll_ms : 250);
        dirty = busy;
        int k = ui_read_key();
        if (k < 0) {
            dirty = present_tick(a) || busy; /* the presenter's key echo expires; training */
            continue;
        }
        present_key(a, k); /* app_key, and in presenter mode the echo and the notes */
        dirty = 1;
    }
}

/* A screen of its own (attend quiz, attend notes): an App with no course, a->solo, the view
 * opened by start(a, ctx) after the terminal starts, the one loop until it closes. Returns
 * 0, 1 (err says why), or 128 + the signal that stopped it. */
static int app_solo(int ascii, int (*start)(App *a, void *ctx), void *ctx, char *err,
                    size_t errlen)
{
    UiOpts uo;
    memset(&uo, 0, sizeof uo);
    uo.ascii = ascii;
    App *a = app_new();
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return 1;
    }
    a->solo = 1;
    install_signals();
    atexit(ui_end);
    if (ui_start(&uo, err, errlen)) {
        app_delete(a);
        return 1;
    }
    int rc = 0;
    if (start(a, ctx)) {
        snprintf(err, errlen, "%s", a->msg[0] ? a->msg : "out of memory");
        rc = 1;
    } else {
        app_loop(a);
    }
    app_overlay_close(a); /* stopped by a signal: the view ends as it would */
    ui_end();
    app_delete(a);
    if (app_signal)
        rc = 128 + (int)app_signal;
    return rc;
}

typedef struct {
    QuizSet *s;
    Progress *p;
    int scores;
    QuizTally *t;
    char *save_err;
    size_t save_errlen;
} QuizStart;

static int quiz_start(App *a, void *ctx)
{
    QuizStart *q = ctx;
    return view_quiz_start(a, q->s, q->p, q->scores, q->t, q->save_err, q->save_errlen);
}

int tui_quiz(QuizSet *s, Progress *p, int scores, int ascii, QuizTally *t, char *save_err,
             size_t save_errlen, char *err, size_t errlen)
{
    QuizStart q = {s, p, scores, t, save_err, save_errlen};
    memset(t, 0, sizeof *t);
    snprintf(save_err, save_errlen, "%s", "");
    return app_solo(ascii, quiz_start, &q, err, errlen);
}

typedef struct {
    QuizSet *s;
    int time_s;
    TuiClassRoom *room;
    int *shown;
} ClassStart;

static int class_start(App *a, void *ctx)
{
    ClassStart *c = ctx;
    return view_class_quiz_start(a, c->s, c->time_s, c->room, c->shown);
}

int tui_class_quiz(QuizSet *s, int time_s, int ascii, TuiClassRoom *room, int *shown,
                   char *err, size_t errlen)
{
    ClassStart c = {s, time_s, room, shown};
    *shown = 0;
    return app_solo(ascii, class_start, &c, err, errlen);
}

typedef struct {
    const char *dir, *session;
} NotesStart;

static int notes_start(App *a, void *ctx)
{
    NotesStart *n = ctx;
    return view_notes_screen_start(a, n->dir, n->session);
}

int tui_notes_main(const char *session)
{
    char dir[512], err[600];
    setlocale(LC_ALL, "");
    if (present_state_dir(dir, sizeof dir, 0, err, sizeof err) &&
        present_state_dir(dir, sizeof dir, 1, err, sizeof err)) {
        fprintf(stderr, "attend notes: %s\n", err);
        return 1;
    }
    NotesStart n = {dir, session};
    int rc = app_solo(0, notes_start, &n, err, sizeof err);
    if (rc == 1)
        fprintf(stderr, "attend notes: %s\n", err);
    return rc;
}

/* The player (presenter 0) or the presenter (1): options, course, the loop. */
static int app_main(int argc, char **argv, int presenter)
{
    const char *dir = NULL, *only = NULL, *model = NULL;
    char dirbuf[1024], err[1024] = "";
    UiOpts uo;
    PresentOpts po = {.presenter = presenter,
                      .theme = presenter ? UI_THEME_AUTO : UI_THEME_DARK};
    memset(&uo, 0, sizeof uo);
    const char *theme = NULL;
    long page = 0;
    int mouse = 0, no_mouse = 0, keys = 0;
    const Opt opts[] = {
        OPT_S("--lessons", &dir),       OPT_S("--lesson", &only),
        OPT_S("--model", &model),       OPT_I("--page", &page, 1, 100000),
        OPT_S("--theme", &theme),       OPT_S("--record", &po.record),
        OPT_S("--demo", &po.demo),      OPT_R("--auto", &po.auto_s, 0, 600),
        OPT_F("--ascii", &uo.ascii),    OPT_F("--mouse", &mouse),
        OPT_F("--no-mouse", &no_mouse), OPT_F("--keys", &keys),
    };
    int rc_opts = opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc - 1, argv + 1,
                             "attend", USAGE);
    if (rc_opts >= 0)
        return rc_opts;
    if (theme && (po.theme = ui_theme_parse(theme)) == -2) {
        fprintf(stderr, "attend: unknown theme \"%s\" (dark, light, projector or auto)\n", theme);
        return 2;
    }
    po.page = (int)page;
    uo.mouse = mouse && !no_mouse; /* --no-mouse wins */
    if (keys) { /* the key table, for tests/e2e/test_keys.sh */
        setlocale(LC_ALL, "");
        ui.utf8 = 1; /* the table as the UTF-8 help spells it, whatever the locale */
        keys_dump(stdout);
        return 0;
    }
    setlocale(LC_ALL, "");
    if (!dir) {
        data_path("lessons", dirbuf, sizeof dirbuf);
        dir = dirbuf;
    }
    App *a = app_new();
    if (!a) {
        fprintf(stderr, "attend: out of memory\n");
        return 1;
    }
    /* ui.utf8 must be known before prose is transliterated: decide it from the locale now. */
    ui.utf8 = 0;
    {
        const char *cs = nl_langinfo(CODESET);
        ui.utf8 = !uo.ascii && cs && !strcmp(cs, "UTF-8");
    }
    if (app_load(a, dir, only, err, sizeof err) || present_start(a, &po, err, sizeof err)) {
        fprintf(stderr, "attend: %s\n", err);
        present_end(a);
        app_delete(a);
        return 1;
    }
    uo.theme = present_theme(&po);
    install_signals();
    atexit(ui_end);
    if (ui_start(&uo, err, sizeof err)) {
        fprintf(stderr, "attend: %s\n", err);
        present_end(a);
        app_delete(a);
        return 1;
    }
    if (model && app_model_open(a, model, !only && !po.page, err, sizeof err)) {
        ui_end();
        fprintf(stderr, "attend: %s\n", err);
        present_end(a);
        app_delete(a);
        return 1;
    }
    if (!model) /* prose is transliterated with the final ui mode (app_model_open ran its page */
        app_run(a); /* after ui_start: running a real model's forward again doubled its start) */
    present_publish(a); /* notes follow the page --model opened on, not the one before */
    app_loop(a);
    ui_end();
    int rc = 0;
    if (app_signal) {
        fprintf(stderr, "attend: stopped by signal %d; progress is saved\n", (int)app_signal);
        rc = 128 + (int)app_signal;
    }
    if (present_record_end(a, err, sizeof err)) {
        fprintf(stderr, "attend: %s\n", err);
        rc = rc ? rc : 1;
    }
    present_end(a);
    app_delete(a);
    return rc;
}

int tui_main(int argc, char **argv)
{
    return app_main(argc, argv, 0);
}

int tui_present_main(int argc, char **argv)
{
    return app_main(argc, argv, 1);
}
