/* present.c - presenter mode: --theme and --page (shared with the player), the key echo
 * badge ("m  causal mask on", about two seconds, drawn by layout.c on the footer row), the
 * go-to-page jump, and publishing the state `attend notes` follows (present_state.c). */
#include "present.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app_key.h"
#include "demo_play.h"
#include "names.h"
#include "ui.h"

#define ECHO_MS 2000

/* 1 when the open overlay is the one registered for request opens (the sentence editor:
 * REQ_EDIT, the go-to-page prompt: REQ_GOTO_PAGE). */
static int overlay_is(const App *a, Request opens)
{
    return a->overlay && a->overlay->opens == opens;
}

int present_theme(const PresentOpts *o)
{
    if (o->theme != UI_THEME_AUTO)
        return o->theme;
    return ui_theme_auto(getenv("COLORFGBG"),
                         o->presenter ? UI_THEME_PROJECTOR : UI_THEME_DARK);
}

/* Title of the page after the current one ("" at the end), as paging would reach it. */
static void next_title(const App *a, char *out, size_t n)
{
    const Lesson *l = &a->s->course.lessons[a->s->lesson];
    out[0] = '\0';
    if (a->s->page + 1 < l->n_pages) {
        snprintf(out, n, "%s", l->pages[a->s->page + 1].title);
        return;
    }
    if (a->s->only_lesson)
        return;
    for (int i = a->s->lesson + 1; i < a->s->course.n_lessons; i++) {
        const Lesson *nl = &a->s->course.lessons[i];
        if (!nl->broken && nl->n_pages > 0) {
            snprintf(out, n, "lesson %d: %s - %s", i + 1, nl->title, nl->pages[0].title);
            return;
        }
    }
}

/* The footer's hints as plain text: "key label  key label". */
static void page_keys(const App *a, char *out, size_t n)
{
    char h[1024] = "", g[256] = "";
    KeyState ks;
    app_key_state(a, &ks);
    session_hints(a->s, &ks, h, sizeof h);
    keys_global_hints(&ks, 1, g, sizeof g);
    keys_hints_text(h, out, n);
    (void)g;
}

/* The paragraphs of the page's prose (blank-line separated) and the end of the first n. */
static int paragraphs(const char *t, int n, size_t *end)
{
    int k = 0;
    const char *p = t;
    while (*p == '\n')
        p++;
    *end = strlen(t);
    while (*p) {
        k++;
        const char *e = strstr(p, "\n\n");
        if (k == n)
            *end = (size_t)((e ? e : p + strlen(p)) - t);
        if (!e)
            break;
        p = e;
        while (*p == '\n')
            p++;
    }
    return k;
}

/* Paragraphs shown on the current page (R), reset to one on a new page. */
static int shown_now(App *a)
{
    Present *p = a->present;
    if (p->shown_lesson != a->s->lesson || p->shown_page != a->s->page) {
        p->shown_lesson = a->s->lesson;
        p->shown_page = a->s->page;
        p->shown = 1;
    }
    return p->shown;
}

static void publish(App *a)
{
    Present *p = a->present;
    const Page *pg = app_page(a);
    char err[600];
    if (!p || !p->dir[0] || !pg)
        return;
    PresentState *s = &p->st;
    const Lesson *l = &a->s->course.lessons[a->s->lesson];
    s->seq++;
    snprintf(s->lesson_id, sizeof s->lesson_id, "%s", l->id);
    snprintf(s->lesson_title, sizeof s->lesson_title, "%s", l->title);
    s->lesson_no = a->s->lesson + 1;
    s->n_lessons = a->s->course.n_lessons;
    s->page = a->s->page + 1;
    s->n_pages = l->n_pages;
    snprintf(s->page_title, sizeof s->page_title, "%s", pg->title);
    next_title(a, s->next_title, sizeof s->next_title);
    size_t end;
    int total = paragraphs(a->s->prose, 1, &end);
    if (p->plan.demo && demo_suspended(a)) /* space returns to the plan first */
        demo_next_words(a, s->next_title, sizeof s->next_title);
    else if (p->reveal && shown_now(a) < total) /* space shows the next paragraph first */
        snprintf(s->next_title, sizeof s->next_title, "paragraph %d of %d of this page",
                 p->shown + 1, total);
    else if (p->plan.demo) /* space takes the plan's next step, not the next page */
        demo_next_words(a, s->next_title, sizeof s->next_title);
    page_keys(a, s->keys, sizeof s->keys);
    snprintf(s->notes, sizeof s->notes, "%s", pg->notes ? pg->notes : "");
    snprintf(s->room, sizeof s->room, "%s", p->blank ? "blank (B shows the page again)"
                                            : p->frozen ? "frozen (F goes live again)" : "");
    if (present_state_write(p->dir, s, err, sizeof err)) {
        app_msg(a, 1, "speaker notes not published: %s", err);
        p->dir[0] = '\0';
    }
}

void present_publish(App *a)
{
    publish(a);
}

int present_reveal_pending(App *a)
{
    Present *p = a->present;
    size_t end;
    return p && p->reveal && shown_now(a) < paragraphs(a->s->prose, 1, &end);
}

int present_goto(App *a, const char *spec, char *err, size_t n)
{
    Change ch;
    const Course *c = &a->s->course;
    if (session_goto(a->s, spec, app_presenting(a), &ch))
        return app_open_done(a, &ch), 0;
    switch (ch.why) {
    case WHY_NO_LESSON:
        snprintf(err, n, "no lesson \"%s\" (an id or a number)", ch.detail);
        break;
    case WHY_ONLY_LESSON:
        snprintf(err, n, "only lesson %s is open (--lesson)", ch.detail);
        break;
    case WHY_NO_PAGE:
        snprintf(err, n, "no page \"%s\" in lesson %s (1..%d)", ch.detail, c->lessons[ch.a].id,
                 c->lessons[ch.a].n_pages);
        break;
    default: /* a broken lesson */
        snprintf(err, n, "lesson %s is broken: %s", ch.a >= 0 && ch.a < c->n_lessons
                                                       ? c->lessons[ch.a].id : "?", ch.detail);
        break;
    }
    return -1;
}

/* ---- --record: the session as a demo script (docs/demos.md) ---- */
static void json_str(FILE *f, const char *v)
{
    fputc('"', f);
    for (; *v; v++) {
        if (*v == '"' || *v == '\\')
            fprintf(f, "\\%c", *v);
        else if ((unsigned char)*v < 0x20)
            fprintf(f, "\\u%04x", *v);
        else
            fputc(*v, f);
    }
    fputc('"', f);
}

/* A plan position not yet written: {"demo": PLAN, "to": N} (several in a row are one). */
static void rec_emit_plan(Present *p)
{
    if (!p->rec || !p->rec_plan_to)
        return;
    fprintf(p->rec, ",\n    {\"demo\": ");
    json_str(p->rec, p->plan.name);
    fprintf(p->rec, ", \"to\": %d}", p->rec_plan_to);
    p->rec_plan_to = 0;
}

static void rec_flush(Present *p)
{
    if (!p->rec || !p->rec_keys[0])
        return;
    rec_emit_plan(p);
    fprintf(p->rec, ",\n    {\"keys\": ");
    json_str(p->rec, p->rec_keys);
    fputc('}', p->rec);
    p->rec_keys[0] = '\0';
}

static void rec_open(App *a)
{
    Present *p = a->present;
    if (!p || !p->rec || !app_page(a))
        return;
    rec_flush(p);
    rec_emit_plan(p);
    fprintf(p->rec, "%s\n    {\"open\": ", p->rec_steps++ ? "," : "");
    json_str(p->rec, a->s->course.lessons[a->s->lesson].id);
    fprintf(p->rec, ", \"page\": %d}", a->s->page + 1);
    p->rec_lesson = a->s->lesson;
    p->rec_page = a->s->page;
}

/* Records the sentence the editor just set as a "type" step. */
static void rec_type(App *a)
{
    Present *p = a->present;
    rec_flush(p);
    rec_emit_plan(p);
    fprintf(p->rec, ",\n    {\"type\": ");
    json_str(p->rec, a->s->sentence);
    fputc('}', p->rec);
}

/* Records key k, pressed with the page unchanged; a key that changed the page is recorded
 * as the open step of the page it reached. used: the key meant something where it was
 * pressed (demo_key_used, asked before the press); a key that did nothing is left out, so
 * the script passes --check. The sentence editor (e) is recorded as one "type" step with
 * the sentence it set (nothing when it was cancelled or left the sentence as it was). */
static void rec_key(App *a, int k, int used, int opens_edit, const char *before)
{
    Present *p = a->present;
    char nb[16];
    const char *name;
    if (!p || !p->rec || a->quit) /* the key that quits is not part of the demo */
        return;
    if (a->s->lesson != p->rec_lesson || a->s->page != p->rec_page) {
        p->rec_edit = 0;
        rec_open(a);
        return;
    }
    if (opens_edit && overlay_is(a, REQ_EDIT))
        p->rec_edit = 1; /* the sentence's editor: its keys become one type step */
    if (p->rec_edit) {
        if (!overlay_is(a, REQ_EDIT)) {
            p->rec_edit = 0;
            if (strcmp(before, a->s->sentence))
                rec_type(a);
        }
        return;
    }
    if (!used || !(name = keys_demo_name(k, nb, sizeof nb)))
        return;
    size_t l = strlen(p->rec_keys);
    if (l + strlen(name) + 2 >= sizeof p->rec_keys)
        rec_flush(p);
    l = strlen(p->rec_keys);
    snprintf(p->rec_keys + l, sizeof p->rec_keys - l, "%s%s", l ? " " : "", name);
}

/* --record while a plan plays: the plan now stands at step `to` (recorded as one
 * {"demo": PLAN, "to": N} step before whatever is recorded next). demo_play.c calls it
 * through Present.demo_moved. */
static void rec_plan(App *a, int to)
{
    Present *p = a->present;
    if (!p || !p->rec)
        return;
    rec_flush(p); /* the keys pressed before the plan moved */
    p->rec_plan_to = to;
    p->rec_lesson = a->s->lesson;
    p->rec_page = a->s->page;
    p->rec_edit = 0;
}

/* Presses k with app_key and records it (--record); a plan's own steps are not recorded
 * (rec_mute: its position is). */
static void press_recorded(App *a, int k)
{
    Present *p = a->present;
    if (p->rec_mute) {
        app_key(a, k);
        return;
    }
    KeyState ks;
    app_key_state(a, &ks);
    /* the go-to prompt's keys are not recorded: the page it reaches is (an open step) */
    int used = p->rec && !overlay_is(a, REQ_GOTO_PAGE) ? demo_key_used(a, k) : 0;
    int opens_edit = !a->overlay && app_cur_view(a)->kind != W_NONE &&
                     keys_lookup(&ks, KM_COMMON, k) == REQ_EDIT;
    if (p->rec && !p->rec_edit) /* the sentence before the editor opens */
        snprintf(p->rec_sentence, sizeof p->rec_sentence, "%s", a->s->sentence);
    app_key(a, k);
    rec_key(a, k, used && !overlay_is(a, REQ_GOTO_PAGE), opens_edit, p->rec_sentence);
}

int present_start(App *a, const PresentOpts *o, char *err, size_t n)
{
    if (o->page) {
        char spec[32];
        snprintf(spec, sizeof spec, "%d", o->page);
        if (present_goto(a, spec, err, n))
            return -1;
    }
    if (!o->presenter && !o->record)
        return 0;
    Present *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, n, "out of memory");
        return -1;
    }
    a->present = p;
    if (o->record) {
        char ferr[1400];
        fileio_clean_stale(o->record);
        if (fileio_tmp_open(&p->rec_tmp, o->record, 0644, ferr, sizeof ferr)) {
            snprintf(err, n, "--record %.1300s", ferr);
            return -1;
        }
        p->rec = fileio_tmp_stream(&p->rec_tmp, 0);
        if (!p->rec) {
            fileio_tmp_abort(&p->rec_tmp);
            snprintf(err, n, "out of memory");
            return -1;
        }
        fprintf(p->rec, "{\n  \"title\": \"recorded with attend --record\",\n  \"steps\": [");
        rec_open(a);
    }
    p->demo_moved = rec_plan;
    if (o->demo && demo_start(a, o->demo, o->auto_s, present_press, err, n))
        return -1;
    if (!o->presenter)
        return 0;
    p->presenter = 1;
    char derr[600];
    if (present_state_dir(p->dir, sizeof p->dir, 1, derr, sizeof derr)) {
        p->dir[0] = '\0';
        app_msg(a, 1, "speaker notes not published: %s", derr);
    }
    p->st.pid = (long)getpid();
    p->st.started = (long)time(NULL);
    snprintf(p->st.session, sizeof p->st.session, "%ld-%ld", p->st.pid, p->st.started);
    publish(a);
    if (p->dir[0]) { /* a crash removes the state too: notes must not follow a dead presenter */
        char path[1200];
        snprintf(path, sizeof path, "%s/%s.state", p->dir, p->st.session);
        ui_crash_unlink(path);
    }
    return 0;
}

/* What key k did, after it ran: km and r are where the key table sent it; overlay: an
 * overlay had the key. */
static void describe(App *a, Keymap km, Request r, int k, int overlay, char *out, size_t n)
{
    int expl = a->s->w && course_kind_is_explain(a->s->w->kind);
    char lh[64];
    out[0] = '\0';
    switch (r) {
    case REQ_TOGGLE_MASK:
        snprintf(out, n, "causal mask %s", (expl ? a->s->live.s.causal : a->s->ctl.causal) ? "on" : "off");
        return;
    case REQ_TOGGLE_PADDING:
        snprintf(out, n, "padding mask %s", a->s->ctl.padding ? "on" : "off");
        return;
    case REQ_CYCLE_PE:
        snprintf(out, n, "positional encoding: %s", model_pe_name(a->s->ctl.pe));
        return;
    case REQ_TOGGLE_SCALE:
        snprintf(out, n, "scaling by 1/√d_k %s", (expl ? a->s->live.s.scale : a->s->ctl.scale) ? "on" : "off");
        return;
    case REQ_NEXT_HEAD: case REQ_PREV_HEAD: case REQ_NEXT_LAYER: case REQ_PREV_LAYER:
        if (a->s->model) {
            app_layer_head(a, a->s->layer, a->s->head, lh, sizeof lh);
            snprintf(out, n, "%s", lh);
            return;
        }
        break;
    case REQ_TOGGLE_ALL_HEADS:
        snprintf(out, n, "%s", a->s->all_heads ? "all heads as small multiples" : "one head");
        return;
    case REQ_TOGGLE_SCORES:
        snprintf(out, n, "%s", a->s->scores ? "scores before softmax" : "attention weights");
        return;
    case REQ_NEXT_PAGE: case REQ_PREV_PAGE: case REQ_GOTO_PAGE:
        if (app_page(a)) {
            snprintf(out, n, "page %d/%d: %s", a->s->page + 1,
                     a->s->course.lessons[a->s->lesson].n_pages, app_page(a)->title);
            return;
        }
        break;
    case REQ_EXPORT: /* the file written, or why not (app_export's message) */
        snprintf(out, n, "%.*s", (int)(n > 1 ? n - 1 : 0), a->msg);
        return;
    case REQ_QUIT: case REQ_QUIT_NOW: case REQ_CANCEL: case REQ_NONE:
        break;
    default:
        if (overlay)
            break; /* an overlay's key (ESC in the go-to box): no help line on the badge */
        {
            KeyState ks;
            app_key_state(a, &ks);
            if (keys_key_help(&ks, km, k, out, n))
                return;
        }
        break;
    }
    if (!out[0] && r == REQ_NONE && !a->overlay && strstr(a->msg, "key not used"))
        snprintf(out, n, "not used on this page");
}

int present_prose_cut(const App *a)
{
    const Present *p = a->present;
    if (!app_presenting(a) || !p->reveal)
        return -1;
    size_t end;
    int n = paragraphs(a->s->prose, shown_now((App *)a), &end);
    return n > p->shown ? (int)end : -1;
}

/* The presenter's own keys (keys.c's KM_PRESENT rows) and the keys it keeps off the room's
 * screen: B blanks it, F freezes it, o (speaker notes) only points to attend notes. pr: k
 * in the presenter's keymap; r: where the page sends it. 1 when k was handled here. */
static int room_key(App *a, Request pr, Request r, int k)
{
    Present *p = a->present;
    char name[32];
    const char *what = NULL;
    size_t end;
    int total = paragraphs(a->s->prose, 1, &end);
    if (pr == REQ_REVEAL) {
        p->reveal = !p->reveal;
        p->shown_lesson = -1;
        what = p->reveal ? "space reveals the prose a paragraph at a time (R: whole pages)"
                         : "whole pages";
    } else if (r == REQ_NEXT_PAGE && p->reveal && shown_now(a) < total) {
        static char step[64];
        p->shown++;
        snprintf(step, sizeof step, "paragraph %d of %d", p->shown, total);
        what = step;
    } else if (pr == REQ_BLANK) {
        p->blank = !p->blank;
        what = p->blank ? "the room's screen is blank (B: back)" : "the room sees the screen again";
    } else if (pr == REQ_FREEZE) {
        p->frozen = !p->frozen;
        what = p->frozen ? "the room's screen is frozen (F: live again)"
                         : "the room sees the screen live again";
    } else if (r == REQ_NOTES) {
        what = "speaker notes: in attend notes, never on the room's screen";
    } else {
        return 0;
    }
    snprintf(p->echo, sizeof p->echo, "%s  %s", keys_key_name(k, name, sizeof name), what);
    p->echo_until = ui_now_ms() + ECHO_MS;
    publish(a);
    return 1;
}

void present_key(App *a, int k)
{
    Present *p = a->present;
    /* with R, space shows the page's next paragraph before the plan's next step */
    int reveal = k == ' ' && p && p->plan.demo && !demo_suspended(a) &&
                 present_reveal_pending(a);
    if (p && p->plan.demo && !reveal && demo_key(a, k)) {
        publish(a);
        return;
    }
    present_press(a, k);
}

void present_press(App *a, int k)
{
    Present *p = a->present;
    if (!p || k == KEY_RESIZE || k == KEY_MOUSE) {
        app_key(a, k);
        return;
    }
    if (!app_presenting(a)) { /* the player with --record */
        press_recorded(a, k);
        return;
    }
    /* where the key table sends k, as app_key will */
    int was_overlay = a->overlay != NULL;
    KeyState ks;
    app_key_state(a, &ks);
    if (!a->overlay && keys_lookup(&ks, KM_GLOBAL, k) == REQ_GOTO_PAGE) {
        a->msg[0] = '\0';
        app_overlay_request(a, REQ_GOTO_PAGE, 0);
        snprintf(p->echo, sizeof p->echo, "G  go to page...");
        p->echo_until = ui_now_ms() + ECHO_MS;
        return;
    }
    Keymap km;
    Request r = app_key_route(a, k, &km);
    if (!was_overlay && room_key(a, keys_lookup(&ks, KM_PRESENT, k), r, k))
        return;
    int lesson = a->s->lesson, page = a->s->page;
    press_recorded(a, k);
    if (was_overlay && overlay_is(a, REQ_GOTO_PAGE)) /* typing a page number: no badge */
        return;
    if (was_overlay && r == REQ_ACCEPT && (lesson != a->s->lesson || page != a->s->page))
        r = REQ_GOTO_PAGE;
    char what[160], name[32];
    describe(a, km, r, k, was_overlay, what, sizeof what);
    if (what[0]) {
        snprintf(p->echo, sizeof p->echo, "%s  %s", keys_key_name(k, name, sizeof name), what);
        p->echo_until = ui_now_ms() + ECHO_MS;
    }
    if (!(a->overlay && a->overlay->screen)) /* a plan's class quiz publishes its own state */
        publish(a);
}

int present_tick(App *a)
{
    Present *p = a->present;
    if (p && p->plan.demo && demo_tick(a)) {
        publish(a);
        return 1;
    }
    if (p && p->echo[0] && ui_now_ms() >= p->echo_until) {
        p->echo[0] = '\0';
        return 1;
    }
    return 0;
}

int app_presenting(const App *a)
{
    return a->present && a->present->presenter;
}

const char *present_echo(const App *a)
{
    return a->present && a->present->echo[0] ? a->present->echo : NULL;
}

int present_record_end(App *a, char *err, size_t n)
{
    Present *p = a->present;
    if (!p || !p->rec)
        return 0;
    rec_flush(p);
    rec_emit_plan(p);
    fprintf(p->rec, "\n  ]\n}\n");
    p->rec = NULL;
    return fileio_tmp_commit(&p->rec_tmp, err, n);
}

void present_end(App *a)
{
    Present *p = a->present;
    if (!p)
        return;
    if (p->dir[0] && p->st.session[0])
        present_state_remove(p->dir, p->st.session);
    if (p->rec) { /* the session never ran (no terminal): FILE is left as it was */
        p->rec = NULL;
        fileio_tmp_abort(&p->rec_tmp);
    }
    ui_crash_unlink(NULL);
    demo_free(a);
    free(p);
    a->present = NULL;
}
