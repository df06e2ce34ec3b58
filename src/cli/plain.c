/* plain.c - attend --plain (plain.h): options, the course and progress, the state of the
 * current page's widget run through the one widget run (widget.h), paging, and the loop that
 * reads commands as lines until q or the end of input. Output goes through plain_say, which
 * lets no escape byte, control character or box, block or shade glyph through. */
#include "plain.h"

#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datapath.h"
#include "ui.h"

/* ---- output ---- */

/* Box drawing (U+2500-257F), blocks and shades (U+2580-259F) as ASCII; -1 for another
 * character. s points at a 3-byte UTF-8 sequence starting with 0xE2. */
static int box_glyph(const unsigned char *s)
{
    if (s[0] != 0xE2 || (s[1] != 0x94 && s[1] != 0x95 && s[1] != 0x96) || (s[2] & 0xC0) != 0x80)
        return -1;
    unsigned cp = 0x2000u | ((unsigned)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    if (cp < 0x2500 || cp > 0x259F)
        return -1;
    return cp >= 0x2580 ? '#' : cp == 0x2502 || cp == 0x2503 || cp == 0x2551 ? '|' : '-';
}

void plain_say(Plain *p, const char *text)
{
    static char tr[PLAIN_WORDS_MAX];
    ui_text(text, tr, sizeof tr);
    const unsigned char *s = (const unsigned char *)tr;
    size_t len = 0;
    for (; *s; s++, len++) {
        int g = *s == 0xE2 ? box_glyph(s) : -1;
        if (g >= 0) {
            fputc(g, p->out);
            s += 2;
        } else if (*s == '\n' || *s == '\t' || (*s >= 0x20 && *s != 0x7F)) {
            fputc(*s == '\t' ? ' ' : *s, p->out);
        } else {
            fputc(' ', p->out); /* an escape or control byte never reaches the output */
        }
    }
    if (!len || tr[len - 1] != '\n')
        fputc('\n', p->out);
    fflush(p->out);
}

void plain_sayf(Plain *p, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    plain_say(p, buf);
}

/* ---- the widget run ---- */

const Page *plain_page(const Plain *p)
{
    if (p->lesson < 0 || p->lesson >= p->course.n_lessons)
        return NULL;
    const Lesson *l = &p->course.lessons[p->lesson];
    if (l->broken || p->page < 0 || p->page >= l->n_pages)
        return NULL;
    return &l->pages[p->page];
}

void plain_io(Plain *p, WidgetIO *io)
{
    const Page *pg = plain_page(p);
    memset(io, 0, sizeof *io);
    io->w = p->w;
    io->m = p->model;
    io->src = p->src;
    io->n_src = p->n_src;
    io->tgt = p->tgt;
    io->n_tgt = p->n_tgt;
    io->ctl = &p->ctl;
    io->layer = p->layer;
    io->head = p->head;
    io->cross = p->cross && p->model && p->model->cfg.arch == ARCH_ENCDEC;
    io->live = &p->live;
    io->tr = p->tr;
    io->equiv = (p->w && p->w->kind == W_CHIPS) ||
                (pg && pg->prose && strstr(pg->prose, "{{equivariance"));
}

void plain_view(const Plain *p, DescribeView *v)
{
    memset(v, 0, sizeof *v);
    v->ran = p->ran;
    v->run_err = p->run_err;
    v->equiv = p->equiv;
    v->scores = p->scores;
    v->all_heads = p->all_heads;
    v->step = p->step;
    v->tensor = p->tensor;
    v->cur_r = p->cur_r;
    v->cur_c = p->cur_c;
}

static void expand_prose(Plain *p)
{
    const Page *pg = plain_page(p);
    char err[256] = "";
    p->prose[0] = '\0';
    if (!pg || !pg->prose)
        return;
    if (p->model && p->ran) {
        WidgetIO io;
        PlaceholderCtx ctx;
        plain_io(p, &io);
        widget_ctx(&io, 1, &ctx);
        ctx.ascii = !ui.utf8;
        placeholder_expand(pg->prose, &ctx, p->prose, sizeof p->prose, err, sizeof err);
    } else {
        snprintf(p->prose, sizeof p->prose, "%s", pg->prose);
    }
}

void plain_run(Plain *p)
{
    p->ran = 0;
    p->equiv = -1.0f;
    p->run_err[0] = '\0';
    if (p->model && p->w && (course_kind_is_explain(p->w->kind) || p->tr.t)) {
        WidgetIO io;
        if (!course_kind_is_explain(p->w->kind))
            p->ctl.order = p->order;
        plain_io(p, &io);
        p->ran = widget_run(&io, &p->equiv, p->run_err, sizeof p->run_err) == 0;
    }
    expand_prose(p);
}

/* Traces for a model, allocated the first time it is used. */
static int traces_for(Plain *p, const Model *m)
{
    for (int i = 0; i < p->n_mt; i++)
        if (p->mt[i].m == m) {
            p->tr = p->mt[i].tr;
            return 0;
        }
    if (p->n_mt >= PLAIN_MAX_MODELS)
        return -1;
    int cap = m->cfg.max_len < PLAIN_MAX_TOK ? m->cfg.max_len : PLAIN_MAX_TOK;
    PlainTraces *mt = &p->mt[p->n_mt];
    if (widget_traces_new(&mt->tr, m, cap, m->cfg.arch == ARCH_ENCDEC ? cap : 0))
        return -1;
    mt->m = m;
    p->n_mt++;
    p->tr = mt->tr;
    return 0;
}

void plain_reset_widget(Plain *p)
{
    const Widget *w = p->w;
    char err[256] = "";
    p->ran = 0;
    p->n_src = p->n_tgt = 0;
    p->layer = p->head = p->cross = p->scores = p->all_heads = p->step = 0;
    p->cur_r = p->cur_c = -1;
    p->chip_cur = 0;
    p->chip_pick = -1;
    p->sentence[0] = p->target[0] = '\0';
    p->allowed = w ? w->controls : 0;
    memset(&p->tr, 0, sizeof p->tr);
    live_free(&p->live);
    if (!w || !p->model) {
        plain_run(p);
        return;
    }
    if (traces_for(p, p->model)) {
        plain_say(p, "Out of memory for the model's traces.");
        p->model = NULL;
        plain_run(p);
        return;
    }
    if ((course_kind_needs_sentence(w->kind) || (w->kind == W_NONE && w->start.sentence[0])) &&
        widget_state(w, p->model, &p->ctl, p->src, &p->n_src, p->tgt, &p->n_tgt, p->tr.t->max_n,
                     err, sizeof err))
        plain_sayf(p, "%s", err);
    if (course_kind_is_explain(w->kind))
        live_start(&p->live, w, p->model);
    for (int i = 0; i < PLAIN_MAX_TOK; i++)
        p->order[i] = i;
    if (p->ctl.order)
        for (int i = 0; i < p->n_src && i < w->start.n_order; i++)
            p->order[i] = p->ctl.order[i];
    p->ctl.order = p->order;
    snprintf(p->sentence, sizeof p->sentence, "%s", w->start.sentence);
    snprintf(p->target, sizeof p->target, "%s", w->start.target);
    widget_view_start(w, p->model, &p->layer, &p->head, &p->cross);
    p->scores = w->start.scores;
    p->all_heads = w->start.all_heads;
    p->step = w->start.step > 0 ? w->start.step : 0;
    snprintf(p->tensor, sizeof p->tensor, "%s",
             w->start.tensor[0] ? w->start.tensor : "L0.h0.weights");
    plain_run(p);
}

/* ---- pages ---- */

static void save_progress(Plain *p)
{
    const Lesson *l = &p->course.lessons[p->lesson];
    char err[600];
    if (!p->prog_ok)
        return;
    progress_set_current(&p->prog, l->id, p->page);
    progress_mark_seen(&p->prog, l->id, p->page);
    if (!progress_completed(&p->prog, l->id) && progress_count_seen(&p->prog, l->id) >= l->n_pages)
        progress_set_completed(&p->prog, l->id, 1);
    if (progress_save(&p->prog, err, sizeof err))
        plain_sayf(p, "Progress not saved: %s", err);
}

void plain_say_widget(Plain *p)
{
    static char words[PLAIN_WORDS_MAX];
    WidgetIO io;
    DescribeView v;
    if (!p->w || p->w->kind == W_NONE)
        return;
    plain_io(p, &io);
    plain_view(p, &v);
    describe_widget(&io, &v, words, sizeof words);
    plain_say(p, words);
}

void plain_say_page(Plain *p)
{
    const Lesson *l = &p->course.lessons[p->lesson];
    const Page *pg = plain_page(p);
    char keys[1200];
    if (!pg)
        return;
    plain_sayf(p, "Lesson %d of %d, %s. Page %d of %d: %s.", p->lesson + 1, p->course.n_lessons,
               l->title, p->page + 1, l->n_pages, pg->title);
    plain_say(p, p->prose);
    if (pg->widget.kind != W_NONE) {
        plain_sayf(p, "Widget: %s.", course_widget_name(pg->widget.kind));
        plain_say_widget(p);
    }
    plain_keys_line(p, keys, sizeof keys);
    plain_say(p, keys);
}

void plain_open(Plain *p, int lesson, int page)
{
    if (lesson < 0 || lesson >= p->course.n_lessons)
        return;
    const Lesson *l = &p->course.lessons[lesson];
    if (l->broken) {
        plain_sayf(p, "Lesson %d (%s) is broken and was skipped: %s", lesson + 1, l->file,
                   l->error);
        return;
    }
    page = page < 0 ? 0 : page >= l->n_pages ? l->n_pages - 1 : page;
    p->lesson = lesson;
    p->page = page;
    const Page *pg = &l->pages[page];
    p->w = &pg->widget;
    int runs = pg->widget.kind != W_NONE || pg->widget.start.sentence[0];
    p->model = runs ? lesson_model(&p->course, pg) : NULL;
    if (runs && !p->model)
        plain_say(p, "The model of this page did not load (see attend check-lessons).");
    plain_reset_widget(p);
    save_progress(p);
    WidgetIO io;
    DescribeView v;
    plain_io(p, &io);
    plain_view(p, &v);
    describe_snap(&io, &v, p->snap);
    plain_say(p, "");
    plain_say_page(p);
}

void plain_turn(Plain *p, int dir)
{
    const Lesson *l = &p->course.lessons[p->lesson];
    int np = p->page + dir;
    if (np >= 0 && np < l->n_pages) {
        plain_open(p, p->lesson, np);
        return;
    }
    if (p->only) {
        plain_say(p, dir > 0 ? "This is the last page of this lesson (q quits)."
                             : "This is the first page.");
        return;
    }
    for (int i = p->lesson + dir; i >= 0 && i < p->course.n_lessons; i += dir) {
        const Lesson *nl = &p->course.lessons[i];
        if (nl->broken) {
            plain_sayf(p, "Skipped broken lesson %s (attend check-lessons says why).", nl->file);
            continue;
        }
        plain_open(p, i, dir > 0 ? 0 : nl->n_pages - 1);
        return;
    }
    plain_say(p, dir > 0 ? "End of the course. Type lessons to list them, q to quit."
                         : "This is the first page.");
}

/* ---- start and stop ---- */

static void usage(FILE *f)
{
    fprintf(f, "usage: attend --plain [--lessons DIR] [--lesson ID] [--page N] [--ascii]\n"
               "  The course as plain text for screen readers, braille displays and pipes\n"
               "  (also when TERM=dumb): commands are read as lines from standard input\n"
               "  (help lists them), the answers written to standard output.\n"
               "  --lessons DIR  the course in DIR (default: lessons/)\n"
               "  --lesson ID    open that lesson (paging stays in it)\n"
               "  --page N       open page N of it\n"
               "  --ascii        ASCII text only\n");
}

/* Loads the course and progress and chooses where to start. 0, or -1 with a message. */
static int plain_load(Plain *p, const char *dir, const char *only, int page_opt, char *err,
                      size_t errlen)
{
    char path[1024], perr[600] = "";
    if (lesson_load_dir(&p->course, dir, err, errlen))
        return -1;
    int first = -1;
    for (int i = 0; i < p->course.n_lessons && first < 0; i++)
        if (!p->course.lessons[i].broken)
            first = i;
    if (first < 0) {
        snprintf(err, errlen, "no playable lesson in %.900s", dir);
        return -1;
    }
    if (progress_default_path(path, sizeof path, perr, sizeof perr) == 0) {
        int r = progress_load(&p->prog, path, perr, sizeof perr);
        p->prog_ok = r >= 0;
        if (r)
            plain_sayf(p, "%s%s", r < 0 ? "Progress will not be saved: " : "", perr);
    } else {
        plain_sayf(p, "Progress will not be saved: %s", perr);
    }
    int lesson = first, page = 0;
    if (only) {
        lesson = lesson_find(&p->course, only);
        if (lesson < 0 || p->course.lessons[lesson].broken) {
            snprintf(err, errlen, lesson < 0 ? "no lesson with id \"%.40s\" in %.900s"
                                             : "lesson \"%.40s\" in %.900s is broken", only, dir);
            return -1;
        }
        p->only = p->course.lessons[lesson].id;
        if (p->prog.current_lesson[0] && !strcmp(p->prog.current_lesson, only))
            page = p->prog.current_page;
    } else if (p->prog.current_lesson[0]) {
        int i = lesson_find(&p->course, p->prog.current_lesson);
        if (i >= 0 && !p->course.lessons[i].broken) {
            lesson = i;
            page = p->prog.current_page;
        }
    }
    if (page_opt > 0) {
        if (page_opt > p->course.lessons[lesson].n_pages) {
            snprintf(err, errlen, "--page %d: lesson \"%s\" has %d pages", page_opt,
                     p->course.lessons[lesson].id, p->course.lessons[lesson].n_pages);
            return -1;
        }
        page = page_opt - 1;
    }
    p->lesson = lesson;
    plain_open(p, lesson, page);
    return 0;
}

static void plain_free(Plain *p)
{
    for (int i = 0; i < p->n_mt; i++)
        widget_traces_free(&p->mt[i].tr);
    live_free(&p->live);
    lesson_free_course(&p->course);
    progress_free(&p->prog);
    free(p->snap);
    plain_commands_end();
}

/* Reads lines until q or the end of input. */
static void plain_loop(Plain *p)
{
    char *line = NULL;
    size_t cap = 0;
    int tty = isatty(STDIN_FILENO);
    while (!p->quit) {
        if (tty) {
            fputs("> ", p->out);
            fflush(p->out);
        }
        ssize_t n = getline(&line, &cap, stdin);
        if (n < 0) {
            plain_say(p, p->prog_ok ? "End of input. Progress is saved." : "End of input.");
            break;
        }
        plain_command(p, line);
    }
    free(line);
}

int plain_main(int argc, char **argv)
{
    const char *dir = NULL, *only = NULL;
    char dirbuf[1024], err[1024] = "";
    int ascii = 0, page = 0;
    for (int i = 1; i < argc; i++) {
        int more = i + 1 < argc;
        if (!strcmp(argv[i], "--plain"))
            continue;
        if (!strcmp(argv[i], "--lessons") && more)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--lesson") && more)
            only = argv[++i];
        else if (!strcmp(argv[i], "--page") && more) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 10000) {
                fprintf(stderr, "attend: --page wants a page number from 1, not \"%s\"\n",
                        argv[i]);
                return 2;
            }
            page = (int)v;
        } else if (!strcmp(argv[i], "--ascii"))
            ascii = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--mouse") || !strcmp(argv[i], "--no-mouse")) {
            continue; /* the player's options that mean nothing here */
        } else {
            fprintf(stderr, "attend: unknown option \"%s\" in plain mode\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    setlocale(LC_ALL, "");
    const char *cs = nl_langinfo(CODESET);
    ui.utf8 = !ascii && cs && !strcmp(cs, "UTF-8");
    if (!dir) {
        data_path("lessons", dirbuf, sizeof dirbuf);
        dir = dirbuf;
    }
    Plain *p = calloc(1, sizeof *p);
    if (p)
        p->snap = calloc(1, sizeof *p->snap);
    if (!p || !p->snap) {
        fprintf(stderr, "attend: out of memory\n");
        free(p);
        return 1;
    }
    p->out = stdout;
    int rc = 0;
    if (plain_load(p, dir, only, page, err, sizeof err)) {
        fprintf(stderr, "attend: %s\n", err);
        rc = 1;
    } else {
        plain_loop(p);
    }
    plain_free(p);
    free(p);
    return rc;
}
