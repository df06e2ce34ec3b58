/* main.c - argument parsing and subcommands; the only place that decides to exit. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "safetext.h"
#include "datapath.h"
#include "plain.h"
#include "tui.h"
#include "ui.h"

/* The version comes from the VERSION file, through the Makefile (debian/changelog agrees). */
#ifndef ATTEND_VERSION
#error "build with the Makefile: it passes -DATTEND_VERSION from the VERSION file"
#endif

typedef struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} Subcommand;

static const Subcommand SUBCOMMANDS[] = {
    {"dump", cmd_dump, "run the model headless: attention weights and shape passport"},
    {"init-model", cmd_init_model, "write a seeded random model for a config and vocabulary"},
    {"check-lessons", cmd_check_lessons, "validate a course: every problem as file:line:col"},
    {"train", cmd_train, "train a model from a config file (docs/training.md)"},
    {"generate", cmd_generate, "continue a prompt with the decoder, or translate"},
    {"shapes", cmd_shapes, "every count and shape of a Hugging Face model from its config.json"},
    {"export", cmd_export, "a figure (SVG), table (CSV) or JSON of a run or a lesson page"},
    {"handout", cmd_handout, "write the course as static HTML with figures, to read or print"},
    {"present", cmd_present, "the course for a projector: themes, key echo, quiet footer"},
    {"notes", cmd_notes, "speaker notes in a second terminal, following attend present"},
    {"demo", cmd_demo, "play a scripted demo (docs/demos.md); --check validates one"},
    {"heads", cmd_heads, "every head's scores (previous-token, induction...), heads knocked out"},
    {"lab", cmd_lab, "write attention yourself; checked against the engine (docs/labs.md)"},
    {"quiz", cmd_quiz, "quiz with computed answers, drills, review; --answers: a teacher's key"},
    {"class", cmd_class, "a class quiz students answer from their own terminals (serve, join)"},
};

static void print_help(FILE *f)
{
    fprintf(f, "attend %s - a terminal course in transformer attention\n\n"
               "usage: attend [--lessons DIR] [--lesson ID] [--page N] [--model DIR]\n"
               "              [--theme T] [--record FILE] [--ascii] [--mouse|--no-mouse]\n"
               "                       open the course (--model: a Hugging Face model\n"
               "                       directory the \"real model\" pages run on)\n"
               "       attend --plain [--lesson ID] [--model DIR]   the course as plain text\n"
               "                       lines (screen readers, pipes; also when TERM=dumb)\n"
               "       attend SUBCOMMAND [options]\n\nsubcommands:\n",
            ATTEND_VERSION);
    for (size_t i = 0; i < sizeof SUBCOMMANDS / sizeof SUBCOMMANDS[0]; i++)
        fprintf(f, "  %-14s %s\n", SUBCOMMANDS[i].name, SUBCOMMANDS[i].help);
    fprintf(f, "\nRun 'attend SUBCOMMAND --help' for its options.\n");
}

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) must make a save fail with a message, not kill attend:
     * with SIGXFSZ ignored, the write returns EFBIG and the old file stays intact. */
    signal(SIGXFSZ, SIG_IGN);
    /* Messages quote files, lessons and sentences: their control characters are shown as ^[
     * and so on, never sent to the terminal (carriage returns kept for progress lines). */
    safetext_wrap(&stderr, 1);
    if (argc >= 2) {
        if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
            print_help(stdout);
            return 0;
        }
        if (!strcmp(argv[1], "--version")) {
            char p[1024], abs[PATH_MAX];
            printf("attend %s\n", ATTEND_VERSION);
            const char *how = data_locate("lessons", p, sizeof p);
            printf("lessons: %s (%s)\n", realpath(p, abs) ? abs : p, how);
            how = data_locate(DATA_DEFAULT_MODEL, p, sizeof p);
            printf("models:  %s (%s)\n", realpath(p, abs) ? abs : p, how);
            return 0;
        }
        if (!strcmp(argv[1], "--themes")) { /* for tests/ref/test_contrast.py */
            ui_theme_dump(stdout);
            return 0;
        }
        for (size_t i = 0; i < sizeof SUBCOMMANDS / sizeof SUBCOMMANDS[0]; i++)
            if (!strcmp(argv[1], SUBCOMMANDS[i].name))
                return SUBCOMMANDS[i].fn(argc - 2, argv + 2);
        if (argv[1][0] != '-') {
            fprintf(stderr, "attend: unknown subcommand \"%s\"\n", argv[1]);
            print_help(stderr);
            return 2;
        }
    }
    /* plain mode: asked for, or a terminal that cannot show the player (TERM=dumb) */
    const char *term = getenv("TERM");
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--plain"))
            return plain_main(argc, argv);
    if (term && !strcmp(term, "dumb"))
        return plain_main(argc, argv);
    return tui_main(argc, argv);
}
