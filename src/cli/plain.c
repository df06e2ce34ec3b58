/* plain.c - attend --plain (plain.h): the course and progress, the state of the current
 * page's widget run through the one widget run (widget.h), paging, and the key table's view
 * of the page, under the commands (plain_cmd.c) and the loop (plain_main.c). Output goes
 * through plain_say, which lets no escape byte, control character or box, block or shade
 * glyph through. */
#include "plain.h"

#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datapath.h"
#include "safetext.h"
#include "utf8.h"
#include "ui.h"
#include "utf8.h"

/* ---- output ---- */

/* Box drawing (U+2500-257F), blocks and shades (U+2580-259F) as ASCII; -1 for another
 * character. s points at a 3-byte UTF-8 sequence starting with 0xE2. */
static int box_glyph(const unsigned char *s)
{
    unsigned cp;
    if (utf8_decode((const char *)s, strnlen((const char *)s, 4), &cp) != 3 || cp < 0x2500 ||
        cp > 0x259F)
        return -1;
    return cp >= 0x2580 ? safetext_block_ascii((const char *)s) : cp == 0x2502 || cp == 0x2503 || cp == 0x2551 ? '|' : '-';
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
    io->cross = model_view_sub(p->model, p->cross) == SUB_CROSS;
    io->live = &p->live;
    io->tr = p->tr;
    io->opened = pg && lesson_model_opened(&p->course, pg);
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
    int cap = widget_token_cap(m, PLAIN_MAX_TOK, NULL, 0);
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

/* ---- keys: the key table's names for what a page offers ---- */

Keymap plain_keymap(WidgetKind k)
{
    switch (k) {
    case W_HEATMAP: return KM_HEATMAP;
    case W_CHIPS: return KM_CHIPS;
    case W_PASSPORT: return KM_PASSPORT;
    case W_MATRIX: return KM_MATRIX;
    case W_WORKED: return KM_WORKED;
    case W_SCALING: return KM_SCALING;
    case W_KVCACHE: return KM_KVCACHE;
    case W_COST: return KM_COST;
    case W_PARAMS: return KM_PARAMS;
    case W_TRAIN: return KM_TRAIN;
    case W_GENERATE: return KM_GENERATE;
    default: return KM_NONE;
    }
}

WidgetKind plain_kind(const Plain *p)
{
    return p->w && p->model ? p->w->kind : W_NONE;
}

void plain_key_state(const Plain *p, KeyState *s)
{
    keys_state_fill(s, p->allowed, &p->ctl, p->scores, p->all_heads, &p->live.s, p->model,
                    plain_page(p));
    s->train_causal = p->live.s.causal;
}

void plain_keys_line(Plain *p, char *out, size_t n)
{
    KeyState ks;
    char hints[1200] = "";
    plain_key_state(p, &ks);
    WidgetKind kind = plain_kind(p);
    int utf8 = ui.utf8;
    ui.utf8 = 0; /* the hints' ASCII key names: words a line can hold */
    if (kind != W_NONE)
        keys_hints(&ks, plain_keymap(kind), p->allowed, hints, sizeof hints);
    ui.utf8 = utf8;
    size_t k = (size_t)snprintf(out, n, "Keys:");
    for (char *h = hints; *h && k < n;) {
        char *us = strchr(h, '\x1f'), *rs = us ? strchr(us, '\x1e') : NULL;
        if (!us || !rs)
            break;
        *us = *rs = '\0';
        char key[40];
        snprintf(key, sizeof key, " %s ", h);
        if (!strstr(out, key)) /* a key the view and the shared controls both hint */
            k += (size_t)snprintf(out + k, n - k, " %s %s,", h, us + 1);
        h = rs + 1;
    }
    const Page *pg = plain_page(p);
    if (k < n)
        snprintf(out + k, n - k, " next, back, read,%s%s help, q.",
                 pg && pg->n_questions ? " Q questions," : "", pg && pg->notes ? " o notes," : "");
}
