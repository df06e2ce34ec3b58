/* handout.c - the static HTML handout of a course: one page per lesson with its prose
 * (placeholders resolved at each page's start state), each page's figure as inline SVG, the
 * lesson's questions (and answers), an index, and all.html for printing. No JavaScript, no
 * network; print CSS keeps figures whole and starts each lesson on a new page. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export.h"
#include "fileio.h"
#include "handout_print.h"

static const char CSS[] =
    "body{font-family:\"DejaVu Serif\",Georgia,\"Times New Roman\",serif;color:#111;"
    "background:#fff;max-width:62em;margin:2em auto;padding:0 1.2em;line-height:1.45}\n"
    "h1,h2,h3,nav,figcaption,.setup,.meta{font-family:\"DejaVu Sans\",Verdana,Arial,"
    "sans-serif}\n"
    "h1{font-size:1.6em;border-bottom:2px solid #3e4989;padding-bottom:.2em}\n"
    "h2{font-size:1.2em;margin-top:1.6em}\n"
    "nav{font-size:.9em;margin-bottom:1em}\n"
    "figure{margin:1em 0;break-inside:avoid;page-break-inside:avoid}\n"
    "figure svg{max-width:100%;height:auto;border:1px solid #ddd}\n"
    "figcaption{font-size:.85em;color:#333;margin-top:.3em}\n"
    ".nofig{font-style:italic;color:#555}\n"
    "section.page{break-inside:auto}\n"
    "section.lesson+section.lesson{break-before:page;page-break-before:always}\n"
    ".questions li{margin-bottom:.8em;break-inside:avoid;page-break-inside:avoid}\n"
    ".setup,.meta{font-size:.85em;color:#444}\n"
    ".answer{background:#f2f5fb;border-left:4px solid #3e4989;padding:.3em .6em;"
    "margin-top:.3em}\n"
    ".broken{color:#8a1c1c}\n"
    "@media print{nav{display:none}body{max-width:none;margin:0;padding:0}"
    "a{color:inherit;text-decoration:none}h2{break-after:avoid;page-break-after:avoid}}\n"
    "@page{margin:15mm}\n";

static void esc(FILE *f, const char *s)
{
    export_xml_escape(f, s);
}

static void html_open(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
    esc(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", CSS);
}

/* Prose to HTML: paragraphs at blank lines, a single line break kept as <br>. */
static void html_text(FILE *f, const char *s)
{
    fputs("<p>", f);
    while (*s) {
        if (s[0] == '\n' && s[1] == '\n') {
            while (*s == '\n')
                s++;
            if (*s)
                fputs("</p>\n<p>", f);
            continue;
        }
        const char *e = s;
        while (*e && *e != '\n')
            e++;
        char buf[2048];
        size_t len = (size_t)(e - s);
        while (len > 0) { /* in pieces: escape handles any length */
            size_t take = len < sizeof buf - 1 ? len : sizeof buf - 1;
            memcpy(buf, s, take);
            buf[take] = 0;
            esc(f, buf);
            s += take;
            len -= take;
        }
        if (*s == '\n' && s[1] != '\n') {
            fputs("<br>\n", f);
            s++;
        }
    }
    fputs("</p>\n", f);
}

/* Prose for print (handout_print_prose: no key instructions) to HTML. 1 when a key
 * instruction was taken out, 0 when none, -1 out of memory. */
static int html_prose(FILE *f, const char *s)
{
    size_t cap = strlen(s) + 1;
    char *out = malloc(cap);
    if (!out)
        return -1;
    int took = handout_print_prose(s, out, cap);
    html_text(f, out);
    free(out);
    return took;
}

/* One page: title, prose at the start state, the figure. *fig numbers SVG ids. */
static int html_page(FILE *f, const Course *c, int li, int pi, int *fig)
{
    const Lesson *L = &c->lessons[li];
    const Page *P = &L->pages[pi];
    ExportPage e;
    char err[300];
    export_page_start(&e, c, P, err, sizeof err);
    fprintf(f, "<section class=\"page\" id=\"%s-p%d\">\n<h2>%d.%d ", L->id, pi + 1, li + 1,
            pi + 1);
    esc(f, P->title);
    fputs("</h2>\n", f);
    const char *prose = P->prose ? P->prose : "";
    size_t cap = strlen(prose) * 4 + 4096;
    char *out = malloc(cap);
    if (!out) {
        export_page_free(&e);
        return -1;
    }
    placeholder_expand(prose, &e.ctx, out, cap, err, sizeof err);
    int took = html_prose(f, out) > 0;
    free(out);
    if (e.what >= 0) {
        e.view.id = ++*fig;
        fputs("<figure>\n", f);
        char *svg = NULL;
        size_t svg_len = 0;
        FILE *m = open_memstream(&svg, &svg_len); /* a failed figure leaves nothing behind */
        int bad = !m || export_write(m, &e.view, (ExportWhat)e.what, EXPORT_SVG, err,
                                     sizeof err);
        if (m)
            fclose(m);
        if (!m)
            snprintf(err, sizeof err, "out of memory");
        if (bad) {
            fputs("<p class=\"nofig\">(no figure: ", f);
            esc(f, err);
            fputs(")</p>\n", f);
        } else
            fwrite(svg, 1, svg_len, f);
        free(svg);
        fprintf(f, "<figcaption>Figure %d.%d: the %s widget at the page's start state",
                li + 1, pi + 1, course_widget_name(P->widget.kind));
        fputs(" (computed by attend's model).</figcaption>\n</figure>\n", f);
    }
    if (e.what < 0 && P->widget.kind != W_NONE) { /* say why there is no figure */
        fputs("<p class=\"nofig\">(No figure: ", f);
        if (P->widget.kind == W_TRAIN)
            fputs("this page trains a model live, a step at a time, and its charts are what "
                  "that run draws; a printed page cannot run it", f);
        else if (e.err[0])
            esc(f, e.err);
        else {
            fputs("the ", f);
            esc(f, course_widget_name(P->widget.kind));
            fputs(" widget has no static figure", f);
        }
        fputs(". Run it at the terminal: <code>attend --lesson ", f);
        esc(f, L->id);
        fprintf(f, " --page %d</code>.)</p>\n", pi + 1);
        took = 0;
    }
    if (took) { /* the page's key instructions were left out: where to try them */
        fputs("<p class=\"meta\">Try it at the terminal: <code>attend --lesson ", f);
        esc(f, L->id);
        fprintf(f, " --page %d</code></p>\n", pi + 1);
    }
    fputs("</section>\n", f);
    export_page_free(&e);
    return 0;
}

/* The key's answer; a choice question names each right choice by number with its whole
 * text (the item's one-line answer may be cut short). */
static void html_answer(FILE *f, const QuizItem *it, char *ans, size_t n)
{
    if ((it->kind != QK_CHOICE && it->kind != QK_MULTI) || !it->n_choices || !it->correct) {
        esc(f, quiz_key_answer(it, ans, n));
        return;
    }
    int first = 1;
    for (int k = 0; k < it->n_choices; k++)
        if (it->correct & (1u << k)) {
            fprintf(f, "%s%d (", first ? "" : "; ", k + 1);
            esc(f, it->choices[k]);
            fputs(")", f);
            first = 0;
        }
}

/* The lesson's questions from the quiz engine, with the teacher's key when answers. */
static void html_questions(FILE *f, const Course *c, int li, const HandoutOpts *o)
{
    QuizSet s;
    char err[600], ans[300];
    if (quiz_build(&s, c, c->lessons[li].id, 0, o->seed, err, sizeof err)) {
        quiz_set_free(&s);
        return; /* a lesson without questions */
    }
    fputs("<section class=\"questions\">\n<h2>Questions</h2>\n<ol>\n", f);
    for (int i = 0; i < s.n; i++) {
        const QuizItem *it = &s.items[i];
        fputs("<li>", f);
        if (it->lead[0])
            html_prose(f, it->lead);
        html_prose(f, it->prompt);
        if (it->context[0]) {
            fputs("<div class=\"setup\">Setup: ", f);
            esc(f, it->context);
            fputs("</div>\n", f);
        }
        if (it->n_choices) {
            fputs("<ol type=\"1\">\n", f);
            for (int k = 0; k < it->n_choices; k++) {
                fputs("<li>", f);
                esc(f, it->choices[k]);
                fputs("</li>\n", f);
            }
            fputs("</ol>\n", f);
        }
        if (o->answers) {
            fputs("<div class=\"answer\"><strong>Answer:</strong> ", f);
            html_answer(f, it, ans, sizeof ans);
            if (it->explain[0]) {
                fputs("<br>\n<strong>Why:</strong> ", f);
                esc(f, it->explain);
            }
            fputs("</div>\n", f);
        }
        fputs("</li>\n", f);
    }
    fputs("</ol>\n", f);
    if (s.n_skipped) {
        fprintf(f, "<p class=\"meta\">(%d question%s could not be built: ", s.n_skipped,
                s.n_skipped == 1 ? "" : "s");
        esc(f, s.skipped);
        fputs(")</p>\n", f);
    }
    fputs("</section>\n", f);
    quiz_set_free(&s);
}

static int html_lesson(FILE *f, const Course *c, int li, const HandoutOpts *o, int *fig)
{
    const Lesson *L = &c->lessons[li];
    fprintf(f, "<section class=\"lesson\" id=\"lesson-");
    esc(f, L->id);
    fprintf(f, "\">\n<h1>Lesson %d: ", li + 1);
    esc(f, L->title);
    fputs("</h1>\n", f);
    if (L->broken) {
        fputs("<p class=\"broken\">This lesson could not be loaded: ", f);
        esc(f, L->error);
        fputs("</p>\n</section>\n", f);
        return 0;
    }
    for (int pi = 0; pi < L->n_pages; pi++)
        if (html_page(f, c, li, pi, fig))
            return -1;
    html_questions(f, c, li, o);
    fputs("</section>\n", f);
    return 0;
}

/* The file name of lesson li's page: its JSON file's name with .html. */
static void lesson_file(const Lesson *L, char *out, size_t n)
{
    const char *b = strrchr(L->file, '/');
    b = b ? b + 1 : L->file;
    const char *dot = strrchr(b, '.');
    int len = dot ? (int)(dot - b) : (int)strlen(b);
    snprintf(out, n, "%.*s.html", len, b);
}

/* The handout's files, each written to its own exclusive temp file in dir and renamed over
 * its name only once every file is complete (fileio.h): a failure or a kill part-way leaves
 * the previous handout's pages whole, and a symlink, FIFO or device planted at a page's
 * name is refused before anything is written. */
typedef struct {
    FileioTmp **t;    /* (n) each allocated alone: a stream points into its FileioTmp */
    int n, cap;
} Outs;

static FILE *open_out(Outs *o, const char *dir, const char *name, char *err, size_t errlen)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (o->n == o->cap) {
        int nc = o->cap ? o->cap * 2 : 16;
        FileioTmp **nt = realloc(o->t, sizeof *nt * (size_t)nc);
        if (!nt) {
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        o->t = nt;
        o->cap = nc;
    }
    FileioTmp *t = malloc(sizeof *t);
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    fileio_clean_stale(path);
    if (fileio_tmp_open(t, path, 0644, err, errlen)) {
        free(t);
        return NULL;
    }
    o->t[o->n++] = t;
    FILE *f = fileio_tmp_stream(t, 0);
    if (!f)
        snprintf(err, errlen, "out of memory");
    return f;
}

/* Ends the page written last: its closing tags, flushed, fsynced and closed. */
static int close_out(Outs *o, char *err, size_t errlen)
{
    FileioTmp *t = o->t[o->n - 1];
    fputs("</body>\n</html>\n", t->f);
    return fileio_tmp_finish(t, err, errlen);
}

/* Removes every temp file (a failure) or renames each over its page (all written). */
static int outs_end(Outs *o, int commit, char *err, size_t errlen)
{
    int rc = 0;
    for (int i = 0; i < o->n; i++) {
        if (commit && !rc)
            rc = fileio_tmp_commit(o->t[i], err, errlen);
        else
            fileio_tmp_abort(o->t[i]);
        free(o->t[i]);
    }
    free(o->t);
    memset(o, 0, sizeof *o);
    return rc;
}

static int write_index(Outs *outs, const Course *c, const HandoutOpts *o, const char *dir,
                       char *err, size_t errlen)
{
    char name[600];
    FILE *f = open_out(outs, dir, "index.html", err, errlen);
    if (!f)
        return -1;
    html_open(f, "attend handout");
    fputs("<h1>attend: a course in transformer attention</h1>\n<p class=\"meta\">A handout "
          "written by <code>attend handout</code>. Every number in the prose and figures is "
          "computed by attend's model at each page's start state.", f);
    if (o->answers)
        fputs(" With answers.", f);
    fputs("</p>\n<p><a href=\"all.html\">Every lesson in one document</a> (to print).</p>\n"
          "<ol>\n", f);
    for (int li = 0; li < c->n_lessons; li++) {
        const Lesson *L = &c->lessons[li];
        if (o->lesson && strcmp(o->lesson, L->id))
            continue;
        lesson_file(L, name, sizeof name);
        fprintf(f, "<li value=\"%d\"><a href=\"", li + 1);
        esc(f, name);
        fputs("\">", f);
        esc(f, L->title);
        fprintf(f, "</a> <span class=\"meta\">(%d page%s)</span></li>\n", L->n_pages,
                L->n_pages == 1 ? "" : "s");
    }
    fputs("</ol>\n", f);
    return close_out(outs, err, errlen);
}

/* Refuses a page name that is not a regular file (or absent) before anything is written. */
static int check_targets(const Course *c, const HandoutOpts *o, const char *dir, char *err,
                         size_t errlen)
{
    char path[1200], name[600];
    const char *fixed[] = {"index.html", "all.html"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, fixed[i]);
        if (fileio_check_target(path, err, errlen))
            return -1;
    }
    for (int li = 0; li < c->n_lessons; li++) {
        if (o->lesson && strcmp(o->lesson, c->lessons[li].id))
            continue;
        lesson_file(&c->lessons[li], name, sizeof name);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (fileio_check_target(path, err, errlen))
            return -1;
    }
    return 0;
}

/* Every page into outs (temp files); the number of pages, or -1 with a message. */
static int write_pages(Outs *outs, const Course *c, const HandoutOpts *o, const char *dir,
                       char *err, size_t errlen)
{
    char name[600];
    int files = 0, fig_all = 0;
    FILE *all = open_out(outs, dir, "all.html", err, errlen);
    if (!all)
        return -1;
    int all_at = outs->n - 1;
    html_open(all, "attend handout: every lesson");
    fputs("<nav><a href=\"index.html\">index</a></nav>\n", all);
    for (int li = 0; li < c->n_lessons; li++) {
        const Lesson *L = &c->lessons[li];
        if (o->lesson && strcmp(o->lesson, L->id))
            continue;
        lesson_file(L, name, sizeof name);
        FILE *f = open_out(outs, dir, name, err, errlen);
        if (!f)
            return -1;
        int fig = 0;
        html_open(f, L->title);
        fputs("<nav><a href=\"index.html\">all lessons</a></nav>\n", f);
        if (html_lesson(f, c, li, o, &fig) || html_lesson(all, c, li, o, &fig_all)) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (close_out(outs, err, errlen))
            return -1;
        files++;
    }
    FileioTmp *t = outs->t[all_at];
    fputs("</body>\n</html>\n", t->f);
    if (fileio_tmp_finish(t, err, errlen) || write_index(outs, c, o, dir, err, errlen))
        return -1;
    return files + 2;
}

int handout_write(const Course *c, const HandoutOpts *o, const char *dir, char *err,
                  size_t errlen)
{
    char why[300];
    HandoutOpts named = *o; /* the lesson as the learner named it, made its id */
    if (o->lesson) {
        int li = lesson_lookup(c, o->lesson, why, sizeof why);
        if (li < 0) {
            snprintf(err, errlen, "--lesson: %s (lessons in %s)", why, c->dir);
            return -1;
        }
        named.lesson = c->lessons[li].id;
        o = &named;
    }
    if (mkdir(dir, 0755) && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a directory", dir);
        return -1;
    }
    if (check_targets(c, o, dir, err, errlen))
        return -1;
    Outs outs;
    memset(&outs, 0, sizeof outs);
    int files = write_pages(&outs, c, o, dir, err, errlen);
    if (outs_end(&outs, files >= 0, err, errlen))
        return -1;
    return files;
}
