/* keys_help.c - what the key table says about itself: the `?` overlay's lines, the keys'
 * spellings and names (--keys, demo scripts, plain mode), a key's help on the page, plain
 * mode's page help and the `attend --keys` dump. It reads the rows of keys.c (keys_table.h)
 * and binds nothing. */
#include <string.h>

#include "keys_table.h"
#include "ui_text.h"

static char help_text[16384];
static const char *help_lines[320];
static int n_help_lines;

static void help_add(const char *s, void *ctx)
{
    size_t *used = ctx, len = strlen(s);
    if (n_help_lines >= (int)(sizeof help_lines / sizeof help_lines[0]) ||
        *used + len + 1 > sizeof help_text)
        return;
    memcpy(help_text + *used, s, len + 1);
    help_lines[n_help_lines++] = help_text + *used;
    *used += len + 1;
}

typedef struct {
    void (*emit)(const char *line, void *ctx);
    void *ctx;
    const char *key; /* the key column of the next line; "" after the first */
    int key_cols;    /* width of the key column */
} HelpWrap;

static void help_wrapped(const char *s, int len, void *vctx)
{
    HelpWrap *hw = vctx;
    char line[400];
    int pad = hw->key_cols - ui_width(hw->key);
    snprintf(line, sizeof line, "%s%*s%.*s", hw->key, pad > 0 ? pad : 0, "", len, s);
    hw->emit(line, hw->ctx);
    hw->key = "";
}

/* Emits the help lines of row r for a box width columns wide (0: no wrapping): the key
 * column padded to HELP_KEY_COLS, then the description word-wrapped under itself; each '\n'
 * of it starts a line under the description. In ASCII mode the text is transliterated
 * first, so that it wraps at the width the overlay shows. */
static void help_row(const KeyRow *r, int width, void (*emit)(const char *line, void *ctx),
                     void *ctx)
{
    char key[64], desc[400];
    ui_text(r->help_key, key, sizeof key);
    ui_text(r->help, desc, sizeof desc);
    int kw = ui_width(key) + 1;
    HelpWrap hw = {emit, ctx, key, kw > HELP_KEY_COLS ? kw : HELP_KEY_COLS};
    ui_wrap(desc, width > 0 ? width - hw.key_cols : (int)sizeof desc, help_wrapped, &hw);
}

static void help_section(Keymap map, const char *title, int width, size_t *used)
{
    char t[80];
    if (title) {
        snprintf(t, sizeof t, "#%s", title);
        help_add(t, used);
    }
    for (int i = 0; i < keys_n_rows; i++)
        if (keys_rows[i].map == map && keys_rows[i].help_key)
            help_row(&keys_rows[i], width, help_add, used);
}

/* Builds the help for a box width columns wide, unless it is built so (in the same glyph
 * mode). */
static int help_build(int width, const char *const **lines)
{
    static int built_width = -1, built_utf8 = -1;
    if (built_width != width || built_utf8 != ui.utf8) {
        size_t used = 0;
        n_help_lines = 0;
        for (size_t s = 0; s < (size_t)keys_n_sections; s++)
            help_section(keys_sections[s].map, keys_sections[s].title, width, &used);
        HelpWrap hw = {help_add, &used, "", 0};
        help_add("", &used);
        ui_wrap(keys_help_trailer, width > 0 ? width : (int)strlen(keys_help_trailer), help_wrapped, &hw);
        built_width = width, built_utf8 = ui.utf8;
    }
    *lines = help_lines;
    return n_help_lines;
}

int keys_help(int width, const char *const **lines)
{
    return help_build(width, lines);
}

/* ---- attend --keys ---- */

/* How the help spells key k ('|' between spellings). */
static const char *key_spelling(int k, char *buf, size_t n)
{
    switch (k) {
    case UI_KEY_UP: return "↑|arrows";
    case UI_KEY_DOWN: return "↓|arrows";
    case UI_KEY_LEFT: return "←|arrows";
    case UI_KEY_RIGHT: return "→|arrows";
    case UI_KEY_HOME: return "Home";
    case UI_KEY_END: return "End";
    case UI_KEY_NPAGE: return "PgDn";
    case UI_KEY_PPAGE: return "PgUp";
    case UI_KEY_DC: return "Del";
    case UI_KEY_BACKSPACE: case KEY_ASCII_DEL: case KEY_CTRL_H: return "backspace";
    case UI_KEY_ENTER: case '\r': case '\n': return "enter";
    case '\t': return "Tab";
    case ' ': return "space";
    case KEY_ESCAPE: return "ESC";
    default: break;
    }
    if (k == UI_KEY_F1)
        return "F1";
    if (k > 0 && k < 0x20)
        snprintf(buf, n, "Ctrl-%c", 'A' + k - 1);
    else if (k >= 0x20 && k < 0x7f)
        snprintf(buf, n, "%c", k);
    else
        snprintf(buf, n, "key-%d", k);
    return buf;
}

const char *keys_key_name(int k, char *buf, size_t n)
{
    char tmp[32];
    const char *s = key_spelling(k, tmp, sizeof tmp);
    const char *bar = strchr(s, '|');
    snprintf(buf, n, "%.*s", bar ? (int)(bar - s) : (int)strlen(s), s);
    return buf;
}

int keys_parse_name(const char *name)
{
    static const struct { const char *n; int k; } NAMES[] = {
        {"space", ' '}, {"enter", '\r'}, {"esc", KEY_ESCAPE}, {"tab", '\t'},
        {"backspace", UI_KEY_BACKSPACE}, {"up", UI_KEY_UP}, {"down", UI_KEY_DOWN}, {"left", UI_KEY_LEFT},
        {"right", UI_KEY_RIGHT}, {"home", UI_KEY_HOME}, {"end", UI_KEY_END}, {"pgup", UI_KEY_PPAGE},
        {"pgdn", UI_KEY_NPAGE}, {"del", UI_KEY_DC},
    };
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (!strcmp(name, NAMES[i].n))
            return NAMES[i].k;
    if (!strncmp(name, "ctrl-", 5) && name[5] >= 'a' && name[5] <= 'z' && !name[6])
        return KEY_CTRL(name[5]);
    if (name[0] > ' ' && name[0] < 127 && !name[1])
        return (unsigned char)name[0];
    return -1;
}

const char *keys_demo_name(int k, char *buf, size_t n)
{
    switch (k) {
    case ' ': return "space";
    case '\r': case '\n': case UI_KEY_ENTER: return "enter";
    case KEY_ESCAPE: return "esc";
    case '\t': return "tab";
    case UI_KEY_BACKSPACE: case KEY_ASCII_DEL: case KEY_CTRL_H: return "backspace";
    case UI_KEY_UP: return "up";
    case UI_KEY_DOWN: return "down";
    case UI_KEY_LEFT: return "left";
    case UI_KEY_RIGHT: return "right";
    case UI_KEY_HOME: return "home";
    case UI_KEY_END: return "end";
    case UI_KEY_PPAGE: return "pgup";
    case UI_KEY_NPAGE: return "pgdn";
    case UI_KEY_DC: return "del";
    default: break;
    }
    if (k >= 1 && k <= 26)
        snprintf(buf, n, "ctrl-%c", 'a' + k - 1);
    else if (k > ' ' && k < 127)
        snprintf(buf, n, "%c", k);
    else
        return NULL;
    return buf;
}

const char *keys_key_help(const KeyState *a, Keymap km, int key, char *buf, size_t n)
{
    int doc = -1;
    for (int i = 0; i < keys_n_rows; i++) {
        const KeyRow *r = &keys_rows[i];
        if (r->map != km)
            continue;
        if (r->help_key)
            doc = i;
        if (!keys_row_allowed(a, r))
            continue;
        for (const KeyBind *b = r->keys; b->key; b++)
            if (b->key == key && doc >= 0) {
                const char *h = keys_rows[doc].help, *nl = strchr(h, '\n');
                snprintf(buf, n, "%.*s", nl ? (int)(nl - h) : (int)strlen(h), h);
                return buf;
            }
    }
    return NULL;
}

/* The first row of km that binds key on the current page, or -1 (what keys_lookup reads). */
static int binding_row(const KeyState *a, Keymap km, int key)
{
    for (int i = 0; i < keys_n_rows; i++)
        if (keys_rows[i].map == km && keys_row_allowed(a, &keys_rows[i]))
            for (const KeyBind *b = keys_rows[i].keys; b->key; b++)
                if (b->key == key)
                    return i;
    return -1;
}

/* Says one documented row's keys and its first help line (keys_page_help). */
static void page_help_say(int doc, const char *names,
                          void (*emit)(const char *keys, const char *help, void *ctx), void *ctx)
{
    char help[200];
    const char *h = keys_rows[doc].help, *nl = strchr(h, '\n');
    snprintf(help, sizeof help, "%.*s", nl ? (int)(nl - h) : (int)strlen(h), h);
    emit(names, help, ctx);
}

void keys_page_help(const KeyState *a, const Keymap *maps, int n_maps,
                    void (*emit)(const char *keys, const char *help, void *ctx), void *ctx)
{
    for (int m = 0; m < n_maps; m++) {
        int doc = -1, shown = -1; /* the documenting row; the one whose keys names holds */
        char names[160] = "";
        for (int i = 0; i < keys_n_rows; i++) {
            const KeyRow *r = &keys_rows[i];
            if (r->map != maps[m])
                continue;
            if (r->help_key)
                doc = i;
            if (doc != shown && names[0])
                page_help_say(shown, names, emit, ctx);
            if (doc != shown)
                names[0] = '\0';
            shown = doc;
            if (doc < 0 || !keys_row_allowed(a, r))
                continue;
            for (const KeyBind *b = r->keys; b->key; b++) {
                char nb[16], pad[20];
                const char *nm = keys_demo_name(b->key, nb, sizeof nb);
                int j = 0;
                while (j < m && binding_row(a, maps[j], b->key) < 0)
                    j++;
                if (!nm || j < m || binding_row(a, maps[m], b->key) != i)
                    continue; /* unnamed, or bound by an earlier keymap or row */
                snprintf(pad, sizeof pad, ", %s,", nm);
                char have[170];
                snprintf(have, sizeof have, ", %s,", names);
                if (strstr(have, pad)) /* another code of the same name (enter, backspace) */
                    continue;
                size_t l = strlen(names);
                snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "", nm);
            }
        }
        if (names[0])
            page_help_say(shown, names, emit, ctx);
    }
}

static const char *section_of(Keymap km)
{
    for (size_t s = 0; s < (size_t)keys_n_sections; s++)
        if (keys_sections[s].map == km)
            return keys_sections[s].title ? keys_sections[s].title : "+";
    return "-";
}

typedef struct {
    FILE *f;
    const char *map;
    int row;
} DumpCtx;

static void dump_line(const char *line, void *ctx)
{
    DumpCtx *c = ctx;
    fprintf(c->f, "help\t%s\t%d\t%s\n", c->map, c->row, line);
}

void keys_dump(FILE *f)
{
    fprintf(f, "# attend --keys: the player's key table (src/session/keys.c), tab-separated\n"
               "# map NAME SECTION         (SECTION: its title in ?; + under the one above; - "
               "not in ?: named on its own overlay)\n"
               "# help NAME ROW LINE       (the ? line(s) of row ROW)\n"
               "# bind NAME ROW CODE SPELLINGS REQUEST named|alias  (alias: not spelled out "
               "in its help line)\n"
               "# hint NAME KEY ASCII-KEY LABELS  (LABELS: '|' between them, %%s a word)\n"
               "# line TEXT                (the ? overlay, line by line; #: a section title)\n");
    for (int m = 0; m < KM__COUNT; m++)
        fprintf(f, "map\t%s\t%s\n", keys_map_name((Keymap)m), section_of((Keymap)m));
    int doc = -1; /* the row whose help documents the rows below it */
    for (int i = 0; i < keys_n_rows; i++) {
        const KeyRow *r = &keys_rows[i];
        if (r->help_key)
            doc = i;
        if (r->help_key) {
            DumpCtx c = {f, keys_map_name(r->map), i};
            help_row(r, KEYS_HELP_WIDTH, dump_line, &c);
        }
        for (const KeyBind *b = r->keys; b->key; b++) {
            char nb[32];
            fprintf(f, "bind\t%s\t%d\t%d\t%s\t%s\t%s\n", keys_map_name(r->map),
                    r->help_key || doc < 0 || keys_rows[doc].map != r->map ? i : doc, b->key,
                    key_spelling(b->key, nb, sizeof nb), keys_request_name(b->req),
                    b->alias ? "alias" : "named");
        }
        if (r->hint_key)
            fprintf(f, "hint\t%s\t%s\t%s\t%s\n", keys_map_name(r->map), r->hint_key,
                    r->hint_ascii ? r->hint_ascii : r->hint_key, r->hint);
    }
    const char *const *lines;
    int n = keys_help(KEYS_HELP_WIDTH, &lines);
    for (int i = 0; i < n; i++)
        fprintf(f, "line\t%s\n", lines[i]);
}
