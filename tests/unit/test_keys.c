/* test_keys.c - the player's key table (src/session/keys.c) without a terminal: every named
 * binding's key is spelled in its help line; every binding is reachable (some page state makes
 * keys_lookup return it, so no row is shadowed by another); the `?` help fits its width and
 * cuts nothing, in UTF-8 and in ASCII; a demo script can name every key it binds and reads the
 * name back as a key bound to the same request. */
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "t.h"
#include "safetext.h"
#include "ui_text.h"

#define MAX_BINDS 1024
#define MAX_ROWS 512

typedef struct {
    int map, row, code, alias;
    char spell[64];
    Request req;
} Bind;

static Bind binds[MAX_BINDS];
static int n_binds;
static char *help[MAX_ROWS]; /* row -> its help lines joined by spaces */
static int section_hidden[KM__COUNT]; /* 1: the map's keys are named on their own overlay */

static const char *const MAP_NAMES[KM__COUNT] = {
#define NAME_OF(id, str) str,
    KEYS_MAPS(NAME_OF)
#undef NAME_OF
};

static Request request_named(const char *s)
{
    for (int r = 0; r < REQ__COUNT; r++)
        if (!strcmp(keys_request_name((Request)r), s))
            return (Request)r;
    return REQ__COUNT;
}

/* Reads `attend --keys` (keys_dump) back: maps, help lines, bindings. */
static void load_dump(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    keys_dump(f);
    fclose(f);
    int n_maps = 0;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *fld[8] = {0};
        int nf = 0;
        for (char *p = line; nf < 8; nf++) {
            fld[nf] = p;
            char *tab = strchr(p, '\t');
            if (!tab) {
                nf++;
                break;
            }
            *tab = '\0';
            p = tab + 1;
        }
        if (!strcmp(fld[0], "map") && nf >= 3 && n_maps < KM__COUNT)
            section_hidden[n_maps++] = !strcmp(fld[2], "-");
        else if (!strcmp(fld[0], "help") && nf >= 4) {
            int row = atoi(fld[2]);
            if (row < 0 || row >= MAX_ROWS)
                continue;
            size_t old = help[row] ? strlen(help[row]) : 0;
            help[row] = realloc(help[row], old + strlen(fld[3]) + 2);
            snprintf(help[row] + old, strlen(fld[3]) + 2, "%s%s", old ? " " : "", fld[3]);
        } else if (!strcmp(fld[0], "bind") && nf >= 7 && n_binds < MAX_BINDS) {
            Bind *b = &binds[n_binds++];
            b->map = -1;
            b->row = atoi(fld[2]);
            b->code = atoi(fld[3]);
            snprintf(b->spell, sizeof b->spell, "%s", fld[4]);
            b->req = request_named(fld[5]);
            b->alias = !strcmp(fld[6], "alias");
            for (int m = 0; m < KM__COUNT; m++) /* the Keymap of its name */
                if (!strcmp(MAP_NAMES[m], fld[1]))
                    b->map = m;
        }
    }
    CHECK(n_maps == KM__COUNT, "the dump lists every keymap (%d of %d)", n_maps, KM__COUNT);
    CHECK(n_binds > 100, "the dump lists the bindings (%d)", n_binds);
    free(buf);
}

/* word appears in text as a key name: not inside a longer word */
static int spelled(const char *word, const char *text)
{
    size_t wl = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        char before = p > text ? p[-1] : ' ', after = p[wl];
        int alnum_end = (word[wl - 1] | 0x20) >= 'a' && (word[wl - 1] | 0x20) <= 'z';
        int alnum_start = (word[0] | 0x20) >= 'a' && (word[0] | 0x20) <= 'z';
        int isal_a = ((after | 0x20) >= 'a' && (after | 0x20) <= 'z') || (after >= '0' && after <= '9');
        int isal_b = ((before | 0x20) >= 'a' && (before | 0x20) <= 'z') ||
                     (before >= '0' && before <= '9');
        if ((alnum_end && isal_a) || (alnum_start && isal_b))
            continue;
        return 1;
    }
    return 0;
}

static void test_named_in_help(void)
{
    int n = 0;
    for (int i = 0; i < n_binds; i++) {
        const Bind *b = &binds[i];
        if (b->map < 0 || section_hidden[b->map] || b->alias)
            continue;
        n++;
        const char *text = b->row >= 0 && b->row < MAX_ROWS ? help[b->row] : NULL;
        int ok = 0;
        char sp[64];
        snprintf(sp, sizeof sp, "%s", b->spell);
        for (char *w = strtok(sp, "|"); w && text && !ok; w = strtok(NULL, "|"))
            ok = spelled(w, text);
        CHECK(ok, "key %s (%s) is named in its help line: %s", b->spell,
              keys_request_name(b->req), text ? text : "(none)");
    }
    CHECK(n > 80, "named bindings checked (%d)", n);
}

/* Page states to look keys up in: every condition off, or on, and each alone flipped; each
 * with every control the page may allow (C_*), none, or all but one. */
#define N_FLAGS 17
static void state_set(KeyState *s, int flag, int v)
{
    switch (flag) {
    case 0: s->causal = v; break;
    case 1: s->padding = v; break;
    case 2: s->pe = v ? 2 : 0; break;
    case 3: s->scale = v; break;
    case 4: s->scores = v; break;
    case 5: s->live_causal = v; break;
    case 6: s->live_scale = v; break;
    case 7: s->live_tied = v; break;
    case 8: s->live_gqa = v; break;
    case 9: s->live_step = v; break;
    case 10: s->live_sample = v; break;
    case 11: s->focus = v; break;
    case 12: s->encdec = v; break;
    case 13: s->all_heads = v; break;
    case 14: s->has_questions = v; break;
    case 15: s->has_notes = v; break;
    default: s->train_running = s->train_causal = v; break;
    }
}

#define N_ALLOWED 34
#define N_STATES (2 * (N_FLAGS + 1) * N_ALLOWED + KMODE__COUNT)
static int states(KeyState *out)
{
    int n = 0;
    for (int m = 0; m < KMODE__COUNT; m++) { /* an overlay's modes (the quiz's stages) */
        memset(&out[n], 0, sizeof out[n]);
        out[n].allowed = ~0u;
        out[n++].mode = m;
    }
    for (int al = 0; al < N_ALLOWED; al++)
        for (int base = 0; base < 2; base++) {
            KeyState s;
            memset(&s, 0, sizeof s);
            s.allowed = al == 0 ? ~0u : al == 1 ? 0u : ~(1u << (al - 2));
            for (int f = 0; f < N_FLAGS; f++)
                state_set(&s, f, base);
            out[n++] = s;
            for (int f = 0; f < N_FLAGS; f++) {
                KeyState t = s;
                state_set(&t, f, !base);
                out[n++] = t;
            }
        }
    return n;
}

static void test_reachable(void)
{
    static KeyState st[N_STATES];
    int ns = states(st), unreachable = 0;
    for (int i = 0; i < n_binds; i++) {
        const Bind *b = &binds[i];
        int ok = 0;
        for (int s = 0; s < ns && !ok && b->map >= 0; s++)
            ok = keys_lookup(&st[s], (Keymap)b->map, b->code) == b->req;
        if (!ok)
            unreachable++;
        CHECK(ok, "%s (%d) in keymap %d reaches %s on some page", b->spell, b->code, b->map,
              keys_request_name(b->req));
    }
    CHECK(unreachable == 0, "every binding is reachable (%d are not)", unreachable);
    KeyState none;
    memset(&none, 0, sizeof none);
    CHECK(keys_lookup(&none, KM_GLOBAL, 'y') == REQ_NONE, "an unbound key is REQ_NONE");
    CHECK(keys_lookup(&none, KM_GLOBAL, 'q') == REQ_QUIT, "q quits");
}

static void test_help_fits(void)
{
    for (int utf8 = 1; utf8 >= 0; utf8--) {
        ui.utf8 = utf8;
        const char *const *lines;
        int n = keys_help(KEYS_HELP_WIDTH, &lines), wide = 0, cut = 0;
        for (int i = 0; i < n; i++) {
            const char *l = lines[i][0] == '#' ? lines[i] + 1 : lines[i];
            size_t len = strlen(l);
            if (ui_width(l) > KEYS_HELP_WIDTH)
                wide++;
            if ((len >= 3 && !strcmp(l + len - 3, "...")) ||
                (len >= 3 && !strcmp(l + len - 3, "\xe2\x80\xa6")))
                cut++;
        }
        CHECK(n > 40, "the help has its lines (%d, %s)", n, utf8 ? "UTF-8" : "ASCII");
        CHECK(wide == 0, "%d help lines wider than %d columns (%s)", wide, KEYS_HELP_WIDTH,
              utf8 ? "UTF-8" : "ASCII");
        CHECK(cut == 0, "%d help lines cut short (%s)", cut, utf8 ? "UTF-8" : "ASCII");
    }
    ui.utf8 = 1;
}

static void test_demo_names(void)
{
    static KeyState st[N_STATES];
    int ns = states(st);
    for (int i = 0; i < n_binds; i++) {
        const Bind *b = &binds[i];
        char nb[32];
        const char *name = keys_demo_name(b->code, nb, sizeof nb);
        if (!name || b->map < 0)
            continue; /* F1: a script cannot press it, and says so */
        int k = keys_parse_name(name), same = 0;
        for (int s = 0; s < ns && !same; s++)
            same = keys_lookup(&st[s], (Keymap)b->map, b->code) == b->req &&
                   keys_lookup(&st[s], (Keymap)b->map, k) == b->req;
        CHECK(k >= 0 && same, "the demo name \"%s\" of %s reads back as a key bound to %s", name,
              b->spell, keys_request_name(b->req));
    }
}

/* The footer of a mode of keymap km, as "key label|key label". */
static const char *footer_of(Keymap km, int mode, char *out, size_t n)
{
    char h[512] = "";
    KeyState s;
    memset(&s, 0, sizeof s);
    s.mode = mode;
    keys_hints(&s, km, 0, h, sizeof h);
    out[0] = '\0';
    for (char *p = h; *p;) {
        char *sep = strchr(p, '\x1f'), *end = strchr(p, '\x1e');
        if (!sep || !end)
            break;
        size_t l = strlen(out);
        snprintf(out + l, n - l, "%s%.*s %.*s", l ? "|" : "", (int)(sep - p), p,
                 (int)(end - sep - 1), sep + 1);
        p = end + 1;
    }
    return out;
}

/* The quiz's keys change with its stage (KeyState.mode): the footer of each stage, and keys
 * that are typed while asking but act after a verdict. */
static void test_quiz_modes(void)
{
    static const struct {
        int mode;
        const char *footer;
    } F[] = {
        {KMODE_QUIZ_ASK, "enter check|? hint|tab skip|esc quit"},
        {KMODE_QUIZ_CELL, "enter check|←/→ column|? hint|tab skip|esc quit"},
        {KMODE_QUIZ_WRONG, "r retry|? hint|enter show the answer|tab skip|q quit"},
        {KMODE_QUIZ_VERDICT, "enter next|q quit"},
        {KMODE_QUIZ_DONE, "enter or q close"},
        {KMODE_QUIZ_SMALL, ""},
    };
    char got[512];
    for (size_t i = 0; i < sizeof F / sizeof F[0]; i++)
        CHECK(!strcmp(footer_of(KM_QUIZ, F[i].mode, got, sizeof got), F[i].footer),
              "quiz mode %d footer \"%s\" (want \"%s\")", F[i].mode, got, F[i].footer);
    /* the class quiz: r only while the answer is hidden */
    CHECK(!strcmp(footer_of(KM_CLASS_QUIZ, KMODE_CLASS_ASK, got, sizeof got),
                  "r reveal the answer|n next|q quit|o open a room"), "class quiz footer \"%s\"", got);
    CHECK(!strcmp(footer_of(KM_CLASS_QUIZ, KMODE_CLASS_ROOM, got, sizeof got),
                  "r close the answers|n next|q quit"), "class quiz with a room \"%s\"", got);
    CHECK(!strcmp(footer_of(KM_CLASS_QUIZ, KMODE_CLASS_DIST, got, sizeof got),
                  "r reveal the answer|n next|q quit"), "class quiz, answers closed \"%s\"", got);
    CHECK(!strcmp(footer_of(KM_CLASS_QUIZ, KMODE_CLASS_REVEALED, got, sizeof got),
                  "n next question|q quit"), "class quiz footer once revealed \"%s\"", got);
    char h[256] = "", text[256];
    keys_hint_append(h, sizeof h, "r", "reveal");
    keys_hint_append(h, sizeof h, "q", "quit");
    CHECK(!strcmp(keys_hints_text(h, text, sizeof text), "r reveal  q quit"),
          "hints as text \"%s\"", text);
    KeyState s;
    memset(&s, 0, sizeof s);
    static const struct {
        int mode, key;
        Request want;
    } L[] = {
        {KMODE_QUIZ_ASK, 'q', REQ_NONE},      /* typed */
        {KMODE_QUIZ_ASK, 'r', REQ_NONE},      /* typed */
        {KMODE_QUIZ_ASK, ' ', REQ_NONE},      /* typed */
        {KMODE_QUIZ_ASK, UI_KEY_LEFT, REQ_NONE}, /* only a cell question has a cursor */
        {KMODE_QUIZ_CELL, UI_KEY_LEFT, REQ_CURSOR_LEFT},
        {KMODE_QUIZ_ASK, '\r', REQ_ACCEPT},
        {KMODE_QUIZ_ASK, '?', REQ_HINT},
        {KMODE_QUIZ_ASK, KEY_ESCAPE, REQ_CLOSE},
        {KMODE_QUIZ_ASK, KEY_CTRL('u'), REQ_EDIT_CLEAR},
        {KMODE_QUIZ_WRONG, 'q', REQ_CLOSE},
        {KMODE_QUIZ_WRONG, 'r', REQ_RETRY},
        {KMODE_QUIZ_WRONG, ' ', REQ_ACCEPT},
        {KMODE_QUIZ_VERDICT, ' ', REQ_STEP_NEXT},
        {KMODE_QUIZ_VERDICT, 'r', REQ_NONE},
        {KMODE_QUIZ_VERDICT, '?', REQ_NONE},
        {KMODE_QUIZ_VERDICT, '\t', REQ_SKIP},
        {KMODE_QUIZ_DONE, ' ', REQ_CLOSE},
        {KMODE_QUIZ_DONE, '\t', REQ_NONE},
        {KMODE_QUIZ_SMALL, 'q', REQ_CLOSE},
        {KMODE_QUIZ_SMALL, '\r', REQ_NONE},
        {KMODE_NONE, '\r', REQ_NONE}, /* no mode: a moded row binds nothing */
        {KMODE_CLASS_ASK, 'r', REQ_NONE}, /* another overlay's mode */
    };
    for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
        s.mode = L[i].mode;
        Request r = keys_lookup(&s, KM_QUIZ, L[i].key);
        CHECK(r == L[i].want, "quiz mode %d key %d: %s (want %s)", L[i].mode, L[i].key,
              keys_request_name(r), keys_request_name(L[i].want));
    }
    s.mode = KMODE_CLASS_REVEALED;
    CHECK(keys_lookup(&s, KM_CLASS_QUIZ, 'r') == REQ_NONE, "r reveals once");
    s.mode = KMODE_CLASS_ASK;
    CHECK(keys_lookup(&s, KM_CLASS_QUIZ, 'r') == REQ_REVEAL, "r reveals");
    for (int m = KMODE_QUIZ_ASK; m <= KMODE_QUIZ_SMALL; m++) {
        s.mode = m;
        CHECK(keys_lookup(&s, KM_QUIZ, KEY_CTRL('c')) == REQ_CLOSE, "Ctrl-C leaves in mode %d",
              m);
    }
}

typedef struct {
    char lines[8][64];
    int n;
} Wrapped;

static void wrapped_line(const char *s, int len, void *ctx)
{
    Wrapped *w = ctx;
    if (w->n < 8)
        snprintf(w->lines[w->n++], sizeof w->lines[0], "%.*s", len, s);
}

/* ASCII mode groups digits with plain spaces: the wrap keeps a number on one line. */
static void test_wrap_numbers(void)
{
    Wrapped w = {0};
    ui_wrap("the embedding is 21% of the 1 235 814 400 weights", 32, wrapped_line, &w);
    CHECK(w.n == 2 && !strcmp(w.lines[1], "1 235 814 400 weights"),
          "a grouped number moves whole to the next line (got \"%s\" / \"%s\")", w.lines[0],
          w.lines[1]);
    memset(&w, 0, sizeof w);
    ui_wrap("ab 1 234", 5, wrapped_line, &w);
    CHECK(w.n == 2 && !strcmp(w.lines[0], "ab") && !strcmp(w.lines[1], "1 234"),
          "\"1 234\" stays whole (got \"%s\" / \"%s\")", w.lines[0], w.lines[1]);
    memset(&w, 0, sizeof w);
    ui_wrap("ab 1 2345", 5, wrapped_line, &w);
    CHECK(w.n == 2 && !strcmp(w.lines[0], "ab 1") && !strcmp(w.lines[1], "2345"),
          "a space before four digits is an ordinary break (got \"%s\" / \"%s\")", w.lines[0],
          w.lines[1]);
}

/* The training-history chart ({{curve}}: U+2581..U+2588) reads in ASCII, not as "????". */
static void test_ascii_blocks(void)
{
    char out[64];
    int utf8 = ui.utf8;
    ui.utf8 = 0;
    ui_text("\xe2\x96\x81\xe2\x96\x82\xe2\x96\x83\xe2\x96\x84\xe2\x96\x85\xe2\x96\x86"
            "\xe2\x96\x87\xe2\x96\x88", out, sizeof out);
    ui.utf8 = utf8;
    char want[16] = "";
    for (int l = 0; l < 8; l++) /* the one rule plain mode and {{curve}} use too */
        strcat(want, safetext_level_glyph(l, 1));
    CHECK(!strcmp(out, want) && !strchr(out, '?') && out[0] != out[7],
          "the eight block heights in ASCII (got \"%s\", want \"%s\")", out, want);
}

int main(void)
{
    ui.utf8 = 1;
    load_dump();
    test_named_in_help();
    test_reachable();
    test_help_fits();
    test_demo_names();
    test_quiz_modes();
    test_wrap_numbers();
    test_ascii_blocks();
    for (int i = 0; i < MAX_ROWS; i++)
        free(help[i]);
    return t_done("keys");
}
