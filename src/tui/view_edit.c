/* view_edit.c - the sentence editor (e): a one-line editor drawn over the bottom of the
 * screen. Unknown words are shown as <unk> with a message; a sentence longer than the model
 * reads is explained and refused, never cut. ESC cancels; resizing keeps the text. */
#include <curses.h>
#include <string.h>
#include <wchar.h>

#include "app.h"
#include "ui.h"

static int edit_cap(const App *a)
{
    return a->edit_target ? a->t->max_m : a->t->max_n;
}

void app_edit_start(App *a, int target)
{
    if (!a->model || !a->t)
        return;
    a->edit_target = target;
    snprintf(a->edit, sizeof a->edit, "%s", target ? a->target : a->sentence);
    a->edit_len = (int)strlen(a->edit);
    a->edit_cur = a->edit_len;
    a->edit_msg[0] = '\0';
    a->overlay = OV_EDIT;
}

/* What the tokenizer makes of the text so far. */
static void describe(App *a, char *out, size_t n, int *bad)
{
    static int ids[4 * APP_MAX_TOK];
    TokenizeInfo info;
    int cap = edit_cap(a);
    vocab_tokenize(&a->model->vocab, a->edit, ids, 4 * APP_MAX_TOK, &info);
    *bad = 0;
    if (info.n_tokens == 0) {
        snprintf(out, n, "type at least one word");
        *bad = 1;
    } else if (info.n_tokens > cap) {
        snprintf(out, n, "too long: %d tokens; the model reads at most %d (max_len) - shorten it",
                 info.n_tokens, cap);
        *bad = 1;
    } else if (info.n_unknown) {
        int k = snprintf(out, n, "%d tokens; not in the vocabulary (will be <unk>):", info.n_tokens);
        for (int i = 0; i < info.n_unknown && i < VOCAB_MAX_UNKNOWN && k < (int)n; i++)
            k += snprintf(out + k, n - (size_t)k, " %s", info.unknown[i]);
    } else {
        snprintf(out, n, "%d tokens (at most %d)", info.n_tokens, cap);
    }
}

void edit_draw(App *a)
{
    int h = 5, w = COLS - 4;
    int y0 = LINES - h - 2, x0 = 2;
    char info[400];
    int bad;
    attrset(A_NORMAL);
    for (int y = y0; y < y0 + h; y++)
        ui_fill(y, x0, w);
    ui_box(y0, x0, h, w, a->edit_target ? "edit the decoder's sentence (enter: use, ESC: cancel)"
                                        : "edit the sentence (enter: use, ESC: cancel)");
    /* the text, scrolled so the cursor stays visible */
    int tw = w - 6;
    int start = a->edit_cur > tw - 1 ? a->edit_cur - (tw - 1) : 0;
    char vis[300];
    snprintf(vis, sizeof vis, "%.*s", tw, a->edit + start);
    ui_put(y0 + 1, x0 + 2, 2, "> ");
    ui_put(y0 + 1, x0 + 4, tw, vis);
    int cx = x0 + 4 + ui_width(vis) - ui_width(a->edit + a->edit_cur);
    if (a->edit_cur - start < (int)strlen(vis)) {
        char c1[8] = {0};
        int l = 1;
        while ((a->edit[a->edit_cur + l] & 0xC0) == 0x80)
            l++;
        memcpy(c1, a->edit + a->edit_cur, (size_t)(l < 7 ? l : 7));
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
    if (a->edit_msg[0]) {
        attron(A_BOLD);
        ui_put(y0 + 3, x0 + 2, w - 4, a->edit_msg);
        attroff(A_BOLD);
    }
}

static void commit(App *a)
{
    TokenizeInfo info;
    int cap = edit_cap(a);
    static int ids[APP_MAX_TOK];
    int n = vocab_tokenize(&a->model->vocab, a->edit, ids, cap, &info);
    if (info.n_tokens == 0) {
        snprintf(a->edit_msg, sizeof a->edit_msg, "the sentence is empty");
        return;
    }
    if (info.truncated || info.n_tokens > cap) {
        snprintf(a->edit_msg, sizeof a->edit_msg,
                 "not used: %d tokens > max_len %d; nothing was cut",
                 info.n_tokens, cap);
        return;
    }
    if (a->edit_target) {
        memcpy(a->tgt, ids, sizeof(int) * (size_t)n);
        a->n_tgt = n;
        snprintf(a->target, sizeof a->target, "%s", a->edit);
    } else {
        memcpy(a->src, ids, sizeof(int) * (size_t)n);
        a->n_src = n;
        snprintf(a->sentence, sizeof a->sentence, "%s", a->edit);
        for (int i = 0; i < APP_MAX_TOK; i++)
            a->order[i] = i;
        a->chip_pick = -1;
        if (a->chip_cur >= n)
            a->chip_cur = n - 1;
    }
    a->overlay = OV_NONE;
    a->scroll_r = a->scroll_c = 0;
    app_run(a);
    if (info.n_unknown) {
        char words[300] = "";
        for (int i = 0; i < info.n_unknown && i < VOCAB_MAX_UNKNOWN; i++) {
            size_t k = strlen(words);
            snprintf(words + k, sizeof words - k, "%s%s", i ? ", " : "", info.unknown[i]);
        }
        app_msg(a, 1, "not in the model's vocabulary, shown as <unk>: %s", words);
    } else {
        app_msg(a, 0, "%d tokens", n);
    }
}

static void insert_bytes(App *a, const char *s, int n)
{
    if (a->edit_len + n >= (int)sizeof a->edit - 1) {
        snprintf(a->edit_msg, sizeof a->edit_msg, "the editor holds %d characters at most",
                 (int)sizeof a->edit - 1);
        return;
    }
    memmove(a->edit + a->edit_cur + n, a->edit + a->edit_cur, (size_t)(a->edit_len - a->edit_cur + 1));
    memcpy(a->edit + a->edit_cur, s, (size_t)n);
    a->edit_len += n;
    a->edit_cur += n;
}

static int char_before(const App *a, int i)
{
    do
        i--;
    while (i > 0 && (a->edit[i] & 0xC0) == 0x80);
    return i < 0 ? 0 : i;
}

static int char_after(const App *a, int i)
{
    if (i >= a->edit_len)
        return a->edit_len;
    do
        i++;
    while (i < a->edit_len && (a->edit[i] & 0xC0) == 0x80);
    return i;
}

static void erase_range(App *a, int from, int to)
{
    memmove(a->edit + from, a->edit + to, (size_t)(a->edit_len - to + 1));
    a->edit_len -= to - from;
    a->edit_cur = from;
}

int edit_key(App *a, int k)
{
    a->edit_msg[0] = '\0';
    switch (k) {
    case 27:
        a->overlay = OV_NONE;
        app_msg(a, 0, "edit cancelled");
        return 1;
    case '\r':
    case '\n':
    case KEY_ENTER:
        commit(a);
        return 1;
    case KEY_LEFT:
        a->edit_cur = a->edit_cur > 0 ? char_before(a, a->edit_cur) : 0;
        return 1;
    case KEY_RIGHT:
        a->edit_cur = char_after(a, a->edit_cur);
        return 1;
    case KEY_HOME:
    case APP_CTRL('a'):
        a->edit_cur = 0;
        return 1;
    case KEY_END:
    case APP_CTRL('e'):
        a->edit_cur = a->edit_len;
        return 1;
    case KEY_BACKSPACE:
    case 127:
    case 8:
        if (a->edit_cur > 0)
            erase_range(a, char_before(a, a->edit_cur), a->edit_cur);
        return 1;
    case KEY_DC:
        if (a->edit_cur < a->edit_len)
            erase_range(a, a->edit_cur, char_after(a, a->edit_cur));
        return 1;
    case APP_CTRL('u'):
        a->edit_len = a->edit_cur = 0;
        a->edit[0] = '\0';
        return 1;
    default:
        break;
    }
    if (k >= 0x20 && k < 0x7f) {
        char c = (char)k;
        insert_bytes(a, &c, 1);
    } else if ((k & APP_WCHAR) || (k >= 0xa0 && k <= 0xff)) {
        wchar_t wc = (wchar_t)(k & ~APP_WCHAR);
        char mb[8];
        mbstate_t st;
        memset(&st, 0, sizeof st);
        size_t l = wcrtomb(mb, wc, &st);
        if (l != (size_t)-1 && l < sizeof mb)
            insert_bytes(a, mb, (int)l);
    }
    return 1;
}
