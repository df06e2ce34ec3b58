/* view_edit.c - the sentence editor overlay (e): a one-line editor drawn over the bottom of the
 * screen. Unknown words are shown as <unk> with a message; a sentence longer than the model
 * reads is explained and refused, never cut; one longer than the widget shows at this size is
 * taken, and the message says how many rows it scrolls to. ESC cancels; resizing keeps the
 * text. */
#include <curses.h>
#include <string.h>
#include <wchar.h>

#include "app_views.h"
#include "layout.h"
#include "ui.h"
#include "utf8.h"

typedef struct {
    char buf[ATTEND_MAX_SENTENCE]; /* the text being edited (UTF-8) */
    int len, cur;    /* its length and the cursor, in bytes */
    int target;      /* 1: the decoder's sentence */
    char msg[256];   /* why the text was not used */
} Edit;

static Edit *edit_state(App *a)
{
    return app_view_state(a, &VIEW_EDIT);
}

static int edit_cap(App *a)
{
    return edit_state(a)->target ? a->s->t->max_m : a->s->t->max_n;
}

/* Starts editing the sentence (arg 1: the decoder's); nothing to edit without a model. */
static int edit_open(App *a, int target)
{
    Edit *e = edit_state(a);
    if (!a->s->model || !a->s->t)
        return -1;
    e->target = target;
    snprintf(e->buf, sizeof e->buf, "%s", target ? a->s->target : a->s->sentence);
    e->len = (int)strlen(e->buf);
    e->cur = e->len;
    e->msg[0] = '\0';
    return 0;
}

/* What the tokenizer makes of the text so far. */
static void describe(App *a, char *out, size_t n, int *bad)
{
    Edit *e = edit_state(a);
    static int ids[4 * APP_MAX_TOK];
    TokenizeInfo info;
    int cap = edit_cap(a);
    vocab_tokenize(&a->s->model->vocab, e->buf, ids, 4 * APP_MAX_TOK, &info);
    *bad = 0;
    if (info.n_tokens == 0) {
        snprintf(out, n, "type at least one word");
        *bad = 1;
    } else if (info.n_tokens > cap) {
        char why[200] = "max_len";
        if (!edit_state(a)->target)
            widget_token_cap(a->s->model, APP_MAX_TOK, why, sizeof why);
        snprintf(out, n, "too long: %d tokens > %d (%s)", info.n_tokens, cap, why);
        *bad = 1;
    } else if (info.n_unknown) {
        int k = snprintf(out, n, "%d token%s; not in the vocabulary (will be <unk>):",
                         info.n_tokens, info.n_tokens == 1 ? "" : "s");
        for (int i = 0; i < info.n_unknown && i < VOCAB_MAX_UNKNOWN && k < (int)n; i++)
            k += snprintf(out + k, n - (size_t)k, " %s", info.unknown[i]);
    } else {
        snprintf(out, n, "%d token%s (at most %d)", info.n_tokens, info.n_tokens == 1 ? "" : "s",
                 cap);
    }
}

static void edit_draw(App *a, Rect full)
{
    Edit *e = edit_state(a);
    (void)full;
    int h = 5, w = COLS - 4;
    int y0 = LINES - h - 2, x0 = 2;
    char info[400];
    int bad;
    attrset(A_NORMAL);
    for (int y = y0; y < y0 + h; y++)
        ui_fill(y, x0, w);
    ui_box(y0, x0, h, w, e->target ? "edit the decoder's sentence (enter: use, ESC: cancel)"
                                        : "edit the sentence (enter: use, ESC: cancel)");
    /* the text, scrolled so the cursor stays visible */
    int tw = w - 6;
    int start = e->cur > tw - 1 ? e->cur - (tw - 1) : 0;
    char vis[300];
    snprintf(vis, sizeof vis, "%.*s", tw, e->buf + start);
    ui_put(y0 + 1, x0 + 2, 2, "> ");
    ui_put(y0 + 1, x0 + 4, tw, vis);
    int cx = x0 + 4 + ui_width(vis) - ui_width(e->buf + e->cur);
    if (e->cur - start < (int)strlen(vis)) {
        char c1[8] = {0};
        int l = 1;
        while (utf8_is_cont((unsigned char)e->buf[e->cur + l]))
            l++;
        memcpy(c1, e->buf + e->cur, (size_t)(l < 7 ? l : 7));
        attron(A_REVERSE);
        ui_put(y0 + 1, cx, 1, c1);
        attroff(A_REVERSE);
    } else {
        attron(A_REVERSE);
        ui_put(y0 + 1, x0 + 4 + ui_width(vis), 1, " ");
        attroff(A_REVERSE);
    }
    describe(a, info, sizeof info, &bad);
    if (bad)
        attron(COLOR_PAIR(UI_WARN));
    ui_put(y0 + 2, x0 + 2, w - 4, info);
    attrset(A_NORMAL);
    if (e->msg[0]) {
        attron(A_BOLD);
        ui_put(y0 + 3, x0 + 2, w - 4, e->msg);
        attroff(A_BOLD);
    }
}

/* A sentence longer than the page was written for may not fit the widget at this size: the
 * message after it says so, how many rows are out of sight, and how to reach them (a page's
 * own sentence fits 80x24: check-lessons proves it). */
static void say_scroll(App *a, int n)
{
    LayoutPlan lp;
    layout_plan(a, COLS, LINES, &lp);
    if (lp.widget_hidden > 0)
        app_msg(a, 0, "%d tokens: %d row%s of the %s out of sight at %dx%d; z shows it alone", n,
                lp.widget_hidden, lp.widget_hidden == 1 ? "" : "s", app_cur_view(a)->name, COLS,
                LINES);
}

/* Enter: the Session takes the sentence (session_set_sentence, as plain mode's edit does);
 * one it refuses stays in the editor with the reason. */
static void commit(App *a)
{
    Edit *e = edit_state(a);
    Change ch;
    session_set_sentence(a->s, e->target, e->buf, &ch);
    if (ch.kind == CH_REFUSED) {
        if (ch.why == WHY_TOKENIZER)
            snprintf(e->msg, sizeof e->msg, "not used: %.200s", ch.detail);
        else if (ch.why == WHY_TOO_LONG)
            snprintf(e->msg, sizeof e->msg, "not used: %s%d tokens > %d (%.120s); nothing was cut",
                     ch.a ? "more than " : "", ch.a ? ch.to : ch.from, ch.to, ch.detail);
        else
            snprintf(e->msg, sizeof e->msg, "the sentence is empty");
        return;
    }
    app_overlay_close(a);
    const ViewOps *v = app_cur_view(a);
    if (v->edited)
        v->edited(a, e->target);
    app_change(a, &ch);
    if (!ch.a)
        say_scroll(a, ch.to);
}

static void insert_bytes(Edit *e, const char *s, int n)
{
    if (e->len + n >= (int)sizeof e->buf - 1) {
        snprintf(e->msg, sizeof e->msg, "the editor holds %d characters at most",
                 (int)sizeof e->buf - 1);
        return;
    }
    memmove(e->buf + e->cur + n, e->buf + e->cur, (size_t)(e->len - e->cur + 1));
    memcpy(e->buf + e->cur, s, (size_t)n);
    e->len += n;
    e->cur += n;
}

static int char_before(const Edit *e, int i)
{
    return i <= 0 ? 0 : (int)utf8_prev(e->buf, (size_t)i);
}

static int char_after(const Edit *e, int i)
{
    return i >= e->len ? e->len : (int)utf8_next(e->buf, (size_t)e->len, (size_t)i);
}

static void erase_range(Edit *e, int from, int to)
{
    memmove(e->buf + from, e->buf + to, (size_t)(e->len - to + 1));
    e->len -= to - from;
    e->cur = from;
}

static int edit_key(App *a, Request req, int k)
{
    Edit *e = edit_state(a);
    e->msg[0] = '\0';
    switch (req) {
    case REQ_CLOSE:
        app_overlay_close(a);
        app_msg(a, 0, "edit cancelled");
        return 1;
    case REQ_ACCEPT:
        commit(a);
        return 1;
    case REQ_EDIT_LEFT:
        e->cur = e->cur > 0 ? char_before(e, e->cur) : 0;
        return 1;
    case REQ_EDIT_RIGHT:
        e->cur = char_after(e, e->cur);
        return 1;
    case REQ_EDIT_HOME:
        e->cur = 0;
        return 1;
    case REQ_EDIT_END:
        e->cur = e->len;
        return 1;
    case REQ_EDIT_ERASE:
        if (e->cur > 0)
            erase_range(e, char_before(e, e->cur), e->cur);
        return 1;
    case REQ_EDIT_DELETE:
        if (e->cur < e->len)
            erase_range(e, e->cur, char_after(e, e->cur));
        return 1;
    case REQ_EDIT_CLEAR:
        e->len = e->cur = 0;
        e->buf[0] = '\0';
        return 1;
    default:
        break;
    }
    if (k >= 0x20 && k < 0x7f) {
        char c = (char)k;
        insert_bytes(e, &c, 1);
    } else if ((k & APP_WCHAR) || (k >= 0xa0 && k <= 0xff)) {
        wchar_t wc = (wchar_t)(k & ~APP_WCHAR);
        char mb[8];
        mbstate_t st;
        memset(&st, 0, sizeof st);
        size_t l = wcrtomb(mb, wc, &st);
        if (l != (size_t)-1 && l < sizeof mb)
            insert_bytes(e, mb, (int)l);
    }
    return 1;
}

const ViewOps VIEW_EDIT = {
    .name = "sentence editor", .keymap = KM_EDIT, .overlay = 1, .state_size = sizeof(Edit),
    .open = edit_open, .draw = edit_draw, .key = edit_key,
    .opens = REQ_EDIT,
};
