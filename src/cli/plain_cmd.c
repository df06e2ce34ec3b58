/* plain_cmd.c - the commands of attend --plain (plain.h): a line is a word command (next,
 * back, read, edit TEXT, cell R C, swap I J, goto N, lesson ID, ...) or a key named as the
 * key table names it (m, p, s, v, space, left, ...), looked up in the page's keymap, the
 * shared controls and the global keys as the player looks it up (keys_lookup), so the names
 * cannot drift apart. A command that changes the widget is answered by what changed first,
 * then the widget in words, then the sentences of the page that changed. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "plain.h"
#include "plain_train.h"
#include "ui.h"

static char before_prose[PLAIN_PROSE_MAX];

static void plain_help(Plain *p);

void plain_commands_end(void)
{
    plain_train_free();
}




/* ---- saying what changed ---- */

/* The paragraphs of the prose that are new since before_prose. */
static void say_prose_changes(Plain *p)
{
    const char *s = p->prose;
    int said = 0;
    while (*s) {
        const char *e = strstr(s, "\n\n");
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char para[4096];
        snprintf(para, sizeof para, "%.*s", (int)(len < sizeof para ? len : sizeof para - 1), s);
        if (para[0] && !strstr(before_prose, para)) {
            if (!said++)
                plain_say(p, "On the page now:");
            plain_say(p, para);
        }
        s += len;
        while (*s == '\n')
            s++;
    }
}

/* After a change of state: runs the widget, says what changed (first), the widget, and the
 * prose that changed. what names the change ("mask causal on"). */
static void announce(Plain *p, const char *what)
{
    static DescribeSnap after;
    static char change[2048];
    WidgetIO io;
    DescribeView v;
    plain_run(p);
    plain_io(p, &io);
    plain_view(p, &v);
    describe_snap(&io, &v, &after);
    describe_change(p->snap, &after, &io, change, sizeof change);
    plain_sayf(p, "%s: %s.", what, change);
    *p->snap = after;
    plain_say_widget(p);
    say_prose_changes(p);
}

/* ---- the shared controls (as src/tui/controls.c) ---- */

static void cycle(int *v, int n, int dir)
{
    *v = ((*v + dir) % n + n) % n;
}

static int common_request(Plain *p, Request req, const char *arg)
{
    const ModelConfig *c = &p->model->cfg;
    char what[200];
    switch (req) {
    case REQ_TOGGLE_MASK:
        p->ctl.causal = !p->ctl.causal;
        snprintf(what, sizeof what, "mask causal %s", p->ctl.causal ? "on" : "off");
        break;
    case REQ_TOGGLE_PADDING:
        p->ctl.padding = !p->ctl.padding;
        snprintf(what, sizeof what, "padding mask %s", p->ctl.padding ? "on" : "off");
        break;
    case REQ_CYCLE_PE: {
        int pe = (int)p->ctl.pe;
        cycle(&pe, PE__COUNT, 1);
        p->ctl.pe = (PeKind)pe;
        snprintf(what, sizeof what, "positional encoding %s", model_pe_name(p->ctl.pe));
        break;
    }
    case REQ_TOGGLE_SCALE:
        p->ctl.scale = !p->ctl.scale;
        snprintf(what, sizeof what, "scaling by 1/sqrt(d_k) %s", p->ctl.scale ? "on" : "off");
        break;
    case REQ_NEXT_HEAD:
    case REQ_PREV_HEAD:
        cycle(&p->head, c->n_heads, req == REQ_NEXT_HEAD ? 1 : -1);
        snprintf(what, sizeof what, "head %d of %d", p->head, c->n_heads);
        break;
    case REQ_NEXT_LAYER:
    case REQ_PREV_LAYER:
        cycle(&p->layer, c->n_layers, req == REQ_NEXT_LAYER ? 1 : -1);
        snprintf(what, sizeof what, "layer %d of %d", p->layer, c->n_layers);
        break;
    case REQ_TOGGLE_ALL_HEADS:
        p->all_heads = !p->all_heads;
        snprintf(what, sizeof what, "%s", p->all_heads ? "all heads" : "one head");
        break;
    case REQ_TOGGLE_SCORES:
        p->scores = !p->scores;
        snprintf(what, sizeof what, "%s", p->scores ? "scores before softmax" : "weights");
        break;
    case REQ_EDIT:
    case REQ_EDIT_DECODER: {
        int target = req == REQ_EDIT_DECODER && c->arch == ARCH_ENCDEC;
        if (!arg || !arg[0]) {
            plain_sayf(p, "Type %s followed by the new sentence, for example: %s %s",
                       target ? "E" : "edit", target ? "E" : "edit",
                       target ? p->target : p->sentence);
            return 1;
        }
        TokenizeInfo info;
        int ids[PLAIN_MAX_TOK], cap = target ? p->tr.t->max_m : p->tr.t->max_n;
        int n = vocab_tokenize(&p->model->vocab, arg, ids, cap, &info);
        char cnt[32];
        if (info.error[0]) {
            plain_sayf(p, "Not used: %s; nothing changed.", info.error);
            return 1;
        }
        if (info.n_tokens == 0 || info.truncated || info.n_tokens > cap) {
            plain_sayf(p, info.n_tokens == 0 ? "The sentence is empty; nothing changed."
                                             : "Not used: %s tokens, the model reads at most %d; "
                                               "nothing was cut.",
                       vocab_count_text(&info, cnt, sizeof cnt), cap);
            return 1;
        }
        memcpy(target ? p->tgt : p->src, ids, sizeof(int) * (size_t)n);
        *(target ? &p->n_tgt : &p->n_src) = n;
        snprintf(target ? p->target : p->sentence, sizeof p->sentence, "%s", arg);
        if (!target) {
            for (int i = 0; i < PLAIN_MAX_TOK; i++)
                p->order[i] = i;
            p->chip_pick = -1;
            p->cur_r = p->cur_c = -1;
        }
        int k = snprintf(what, sizeof what, "sentence \"%.60s\", %d token%s", arg, n,
                         n == 1 ? "" : "s");
        for (int i = 0; i < info.n_unknown && i < VOCAB_MAX_UNKNOWN && k < (int)sizeof what;
             i++)
            k += snprintf(what + k, sizeof what - (size_t)k, "%s%s", i ? ", " : "; unknown, "
                          "read as <unk>: ", info.unknown[i]);
        break;
    }
    case REQ_RESET: {
        int layer = p->layer, head = p->head;
        plain_reset_widget(p);
        if (p->w->kind != W_CHIPS) {
            p->layer = layer;
            p->head = head;
        }
        snprintf(what, sizeof what, "reset to the page's starting state");
        break;
    }
    default:
        return 0;
    }
    announce(p, what);
    return 1;
}

/* ---- the widgets' own requests (as each src/tui/view_*.c) ---- */

static int cursor_request(Plain *p, Request req)
{
    int rows = 0, cols = 0;
    const Trace *t = p->w->kind == W_WORKED ? p->live.worked : p->tr.t;
    WidgetIO io;
    plain_io(p, &io);
    if (t && p->ran) {
        const TraceEntry *W = trace_find(t, t->model ? describe_stack(&io) : STACK_DEC,
                                         t->model ? p->layer : 0,
                                         t->model ? describe_sub(&io) : SUB_SELF,
                                         t->model ? p->head : 0, T_WEIGHTS);
        if (W) {
            rows = W->rows;
            cols = W->cols;
        }
    }
    if (!rows)
        return 0;
    if (p->cur_r < 0)
        p->cur_r = p->cur_c = 0;
    else if (req == REQ_CURSOR_UP && p->cur_r > 0)
        p->cur_r--;
    else if (req == REQ_CURSOR_DOWN && p->cur_r < rows - 1)
        p->cur_r++;
    else if (req == REQ_CURSOR_LEFT && p->cur_c > 0)
        p->cur_c--;
    else if (req == REQ_CURSOR_RIGHT && p->cur_c < cols - 1)
        p->cur_c++;
    else if (req == REQ_CURSOR_HOME)
        p->cur_c = 0;
    else if (req == REQ_CURSOR_END)
        p->cur_c = cols - 1;
    char cell[400];
    if (p->w->kind == W_WORKED)
        io.tr.t = p->live.worked;
    if (describe_cell(&io, p->cur_r, p->cur_c, cell, sizeof cell))
        plain_say(p, cell);
    return 1;
}

static void swap_chips(Plain *p, int i, int j)
{
    int n = p->tr.t ? p->tr.t->n : 0;
    char what[120];
    if (!(p->allowed & C_SWAP)) {
        plain_say(p, "Swapping is not part of this page.");
        return;
    }
    if (i < 0 || j < 0 || i >= n || j >= n || i == j) {
        plain_sayf(p, "Swap needs two different positions from 0 to %d.", n - 1);
        return;
    }
    int tmp = p->order[i];
    p->order[i] = p->order[j];
    p->order[j] = tmp;
    p->chip_pick = -1;
    snprintf(what, sizeof what, "swapped positions %d and %d", i, j);
    announce(p, what);
}

static int chips_request(Plain *p, Request req)
{
    int n = p->tr.t ? p->tr.t->n : 0;
    if (!p->ran || n < 1)
        return 0;
    switch (req) {
    case REQ_CHIP_LEFT: p->chip_cur = p->chip_cur > 0 ? p->chip_cur - 1 : 0; break;
    case REQ_CHIP_RIGHT: p->chip_cur = p->chip_cur < n - 1 ? p->chip_cur + 1 : n - 1; break;
    case REQ_CHIP_FIRST: p->chip_cur = 0; break;
    case REQ_CHIP_LAST: p->chip_cur = n - 1; break;
    case REQ_PICK:
        if (p->chip_pick < 0 && (p->allowed & C_SWAP)) {
            p->chip_pick = p->chip_cur;
            plain_sayf(p, "Picked chip %d, %s: move to another and pick it to swap them.",
                       p->chip_cur, vocab_word(&p->model->vocab, p->tr.t->src[p->chip_cur]));
        } else if (p->chip_pick >= 0 && p->chip_pick == p->chip_cur) {
            p->chip_pick = -1;
            plain_say(p, "Pick dropped.");
        } else {
            swap_chips(p, p->chip_pick, p->chip_cur);
        }
        return 1;
    case REQ_DROP_PICK:
        p->chip_pick = -1;
        plain_say(p, "Pick dropped.");
        return 1;
    case REQ_RESET_ORDER:
        for (int i = 0; i < PLAIN_MAX_TOK; i++)
            p->order[i] = i;
        p->chip_pick = -1;
        announce(p, "original order");
        return 1;
    default:
        return 0;
    }
    plain_sayf(p, "Chip %d, %s%s.", p->chip_cur,
               vocab_word(&p->model->vocab, p->tr.t->src[p->chip_cur]),
               p->chip_pick >= 0 ? " (a chip is picked)" : "");
    return 1;
}

static int step_request(Plain *p, Request req)
{
    int d = req == REQ_STEP_NEXT ? 1 : -1;
    char what[120];
    WidgetKind k = p->w->kind;
    if (k == W_PASSPORT) {
        int idx[128];
        WidgetIO io;
        plain_io(p, &io);
        int n = p->ran ? widget_passport_steps(p->tr.t, describe_stack(&io), p->layer, p->head,
                                               idx, 128) : 0;
        if (p->step + d < 0 || p->step + d >= n) {
            plain_say(p, d < 0 ? "This is the first step." : "This is the last step.");
            return 1;
        }
        p->step += d;
        snprintf(what, sizeof what, "step %d of %d", p->step + 1, n);
    } else if (k == W_WORKED || k == W_KVCACHE) {
        int s = p->live.s.step + d;
        int lo = k == W_WORKED ? 0 : 1, hi = k == W_WORKED ? LIVE_WORKED_STEPS - 1
                                                             : p->live.n_tokens;
        if (s < lo || s > hi) {
            plain_say(p, s < lo ? "This is the first step." : "This is the last step.");
            return 1;
        }
        p->live.s.step = s;
        snprintf(what, sizeof what, k == W_WORKED ? "step %d: %s" : "token %d", s + (k == W_WORKED),
                 k == W_WORKED ? live_worked_step_name(s) : "");
    } else if (k == W_GENERATE) {
        if (d > 0 && p->live.gen.end) {
            plain_say(p, "The text is finished.");
            return 1;
        }
        if (d > 0 && p->live.gen.n >= p->tr.t->max_n) {
            plain_sayf(p, "Plain mode runs at most %d tokens.", p->tr.t->max_n);
            return 1;
        }
        if (d < 0 && p->live.s.step == 0) {
            plain_say(p, "Step 0: the prompt alone.");
            return 1;
        }
        p->live.s.step += d;
        snprintf(what, sizeof what, "step %d", p->live.s.step);
    } else {
        return 0;
    }
    announce(p, what);
    return 1;
}

static const float TEMPS[] = {0.25f, 0.5f, 0.7f, 1.0f, 1.5f, 2.0f, 3.0f};

static int live_request(Plain *p, Request req)
{
    LiveState *s = &p->live.s;
    WidgetKind k = p->w->kind;
    char what[160];
    if (req == REQ_INCREASE || req == REQ_DECREASE) {
        int up = req == REQ_INCREASE;
        if (k == W_SCALING) {
            s->d_k = up ? (s->d_k * 2 > LIVE_DK_MAX ? LIVE_DK_MAX : s->d_k * 2)
                        : (s->d_k / 2 < 1 ? 1 : s->d_k / 2);
            snprintf(what, sizeof what, "d_k %d", s->d_k);
        } else if (k == W_COST) {
            s->n = up ? (s->n * 2 > LIVE_N_MAX ? LIVE_N_MAX : s->n * 2) : (s->n / 2 < 1 ? 1 : s->n / 2);
            snprintf(what, sizeof what, "N %lld", s->n);
        } else if (k == W_GENERATE && s->sample) {
            int i = 0, n = (int)(sizeof TEMPS / sizeof TEMPS[0]);
            while (i < n - 1 && TEMPS[i] < s->temp - 1e-6f)
                i++;
            i = up ? (i + 1 < n ? i + 1 : i) : (i > 0 ? i - 1 : 0);
            s->temp = TEMPS[i];
            snprintf(what, sizeof what, "temperature %.2f", (double)s->temp);
        } else {
            return 0;
        }
    } else if (req == REQ_TOGGLE_SCALE && (k == W_SCALING || k == W_WORKED)) {
        s->scale = !s->scale;
        snprintf(what, sizeof what, "scaling by 1/sqrt(d_k) %s", s->scale ? "on" : "off");
    } else if (req == REQ_TOGGLE_MASK && k == W_WORKED) {
        s->causal = (s->causal + 1) % 3; /* none -> causal -> after softmax, the mistake */
        snprintf(what, sizeof what, "%s", s->causal == 2 ? "mask applied after softmax (the mistake)"
                                          : s->causal ? "mask causal on" : "mask causal off");
    } else if (req == REQ_TOGGLE_TIE && k == W_PARAMS) {
        s->tied = !s->tied;
        snprintf(what, sizeof what, "embeddings %s", s->tied ? "tied" : "untied");
    } else if (req == REQ_TOGGLE_GQA && k == W_PARAMS) {
        s->gqa = !s->gqa;
        snprintf(what, sizeof what, "grouped-query attention %s", s->gqa ? "on" : "off");
    } else if (req == REQ_TOGGLE_SAMPLE && k == W_GENERATE) {
        s->sample = !s->sample;
        if (s->sample && s->temp <= 0)
            s->temp = LIVE_TEMP_DEFAULT;
        snprintf(what, sizeof what, "%s", s->sample ? "sampling" : "greedy");
    } else if (req == REQ_NEXT_SEED && k == W_GENERATE && s->sample) {
        s->seed = s->seed < 2147483647 ? s->seed + 1 : 0;
        snprintf(what, sizeof what, "seed %d", s->seed);
    } else {
        return 0;
    }
    announce(p, what);
    return 1;
}

/* The tensors of the run, for the matrix widget's t. */
static void list_tensors(Plain *p)
{
    char line[PLAIN_WORDS_MAX];
    size_t k = 0;
    k += (size_t)snprintf(line, sizeof line, "Tensors of this run (type t NAME to show one):");
    for (int i = 0; p->tr.t && i < p->tr.t->n_entries && k < sizeof line - 80; i++) {
        const TraceEntry *e = trace_entry(p->tr.t, i);
        k += (size_t)snprintf(line + k, sizeof line - k, "%s %s %d by %d", i ? "," : "",
                              e->name, e->rows, e->cols);
    }
    plain_say(p, line);
}

static int view_request(Plain *p, Request req, const char *arg)
{
    switch (req) {
    case REQ_CURSOR_UP: case REQ_CURSOR_DOWN: case REQ_CURSOR_LEFT: case REQ_CURSOR_RIGHT:
    case REQ_CURSOR_HOME: case REQ_CURSOR_END:
        return cursor_request(p, req);
    case REQ_CHIP_LEFT: case REQ_CHIP_RIGHT: case REQ_CHIP_FIRST: case REQ_CHIP_LAST:
    case REQ_PICK: case REQ_DROP_PICK: case REQ_RESET_ORDER:
        return chips_request(p, req);
    case REQ_STEP_NEXT: case REQ_STEP_PREV:
        return step_request(p, req);
    case REQ_SCROLL_UP: case REQ_SCROLL_DOWN: case REQ_SCROLL_LEFT: case REQ_SCROLL_RIGHT:
        plain_say(p, "Plain mode says the first rows and columns; t NAME shows another tensor.");
        return 1;
    case REQ_PICK_TENSOR:
        if (!arg || !arg[0]) {
            list_tensors(p);
            return 1;
        }
        if (!trace_find_name(p->tr.t, arg)) {
            plain_sayf(p, "No tensor \"%s\" in this run; t alone lists them.", arg);
            return 1;
        }
        snprintf(p->tensor, sizeof p->tensor, "%s", arg);
        announce(p, "tensor");
        return 1;
    case REQ_TRAIN_RUN: case REQ_SAVE:
        return plain_train(p, req);
    default:
        if (p->w->kind == W_TRAIN && (req == REQ_TOGGLE_MASK || req == REQ_RESET)) {
            p->live.s.causal = req == REQ_RESET ? p->w->start.causal != 0 : !p->live.s.causal;
            announce(p, p->live.s.causal ? "causal mask on while training"
                                         : "causal mask OFF while training: the cheating run");
            return 1;
        }
        return live_request(p, req);
    }
}

/* ---- the global keys and the word commands ---- */

static void list_lessons(Plain *p)
{
    plain_say(p, "Lessons (type lesson ID to open one):");
    for (int i = 0; i < p->course.n_lessons; i++) {
        const Lesson *l = &p->course.lessons[i];
        int seen = p->prog_ok ? progress_count_seen(&p->prog, l->id) : 0;
        if (l->broken)
            plain_sayf(p, "%d. %s: broken (%s)", i + 1, l->file, l->error);
        else
            plain_sayf(p, "%d. %s: %s, %d pages, %s%s", i + 1, l->id, l->title, l->n_pages,
                       p->prog_ok && progress_completed(&p->prog, l->id) ? "done"
                       : seen ? "started" : "not started", i == p->lesson ? " (current)" : "");
    }
}

/* goto N (a page of this lesson) or goto ID:N. */
static void goto_page(Plain *p, const char *arg)
{
    int lesson = p->lesson;
    const char *num = arg ? arg : "";
    const char *colon = strchr(num, ':');
    if (colon) {
        char id[48];
        snprintf(id, sizeof id, "%.*s", (int)(colon - num < 47 ? colon - num : 47), num);
        lesson = lesson_find(&p->course, id);
        if (lesson < 0) {
            plain_sayf(p, "No lesson with id \"%s\"; lessons lists them.", id);
            return;
        }
        num = colon + 1;
    }
    char *end;
    long n = strtol(num, &end, 10);
    const Lesson *l = &p->course.lessons[lesson];
    if (!*num || *end || n < 1 || n > l->n_pages) {
        plain_sayf(p, "Type goto and a page number from 1 to %d, or goto lesson-id:number.",
                   l->n_pages);
        return;
    }
    if (p->only && lesson != p->lesson)
        p->only = NULL;
    plain_open(p, lesson, (int)n - 1);
}

static void say_notes(Plain *p)
{
    const Page *pg = plain_page(p);
    if (pg && pg->notes)
        plain_sayf(p, "Speaker notes: %s", pg->notes);
    else
        plain_say(p, "This page has no speaker notes.");
}

static int global_request(Plain *p, Request req, const char *arg)
{
    switch (req) {
    case REQ_QUIT: case REQ_QUIT_NOW:
        p->quit = 1;
        plain_say(p, p->prog_ok ? "Bye. Progress is saved." : "Bye.");
        return 1;
    case REQ_NEXT_PAGE: plain_turn(p, 1); return 1;
    case REQ_PREV_PAGE: plain_turn(p, -1); return 1;
    case REQ_HELP: plain_help(p); return 1;
    case REQ_LESSON_MENU: list_lessons(p); return 1;
    case REQ_GOTO_PAGE: goto_page(p, arg); return 1;
    case REQ_NOTES: say_notes(p); return 1;
    case REQ_QUIZ:
        if (plain_quiz(p, arg ? arg : ""))
            p->quit = 1;
        return 1;
    case REQ_PROSE_DOWN: case REQ_PROSE_UP: case REQ_FOCUS:
        plain_say(p, "Plain mode says the whole page; read says it again.");
        return 1;
    case REQ_EXPORT: {
        const Lesson *l = &p->course.lessons[p->lesson];
        plain_sayf(p, "To write this widget's figure: attend export --lesson %s --page %d",
                   l->id, p->page + 1);
        return 1;
    }
    case REQ_CANCEL:
        return 1;
    default:
        return 0;
    }
}

/* A key as the key table names it ("m", "space", "left"), or -1. */
static int key_of(const char *word)
{
    if (!word[0])
        return -1;
    return keys_parse_name(word);
}

/* Dispatches key k (with the rest of the line as its argument) as the player does: the
 * page's view, the shared controls, then the global keys. 1 when something used it. */
static int key_command(Plain *p, int k, const char *arg)
{
    KeyState ks;
    plain_key_state(p, &ks);
    WidgetKind kind = plain_kind(p);
    Request r = keys_lookup(&ks, plain_keymap(kind), k);
    if (r != REQ_NONE && kind != W_NONE && view_request(p, r, arg))
        return 1;
    if (kind != W_NONE) {
        r = keys_lookup(&ks, KM_COMMON, k);
        if (r != REQ_NONE && p->ran && common_request(p, r, arg))
            return 1;
    }
    r = keys_lookup(&ks, KM_GLOBAL, k);
    return r != REQ_NONE && global_request(p, r, arg);
}

/* The word commands: each maps to a key's request or is plain mode's own. */
static int word_command(Plain *p, const char *cmd, const char *arg)
{
    static const struct { const char *word; int key; } ALIAS[] = {
        {"next", ' '}, {"back", -2}, {"quit", 'q'}, {"exit", 'q'}, {"help", '?'},
        {"edit", 'e'}, {"lessons", -3}, {"menu", -3}, {"quiz", 'Q'}, {"notes", 'o'},
        {"goto", 'G'}, {"page", 'G'}, {"tensor", 't'},
    };
    for (size_t i = 0; i < sizeof ALIAS / sizeof ALIAS[0]; i++) {
        if (strcmp(cmd, ALIAS[i].word))
            continue;
        if (ALIAS[i].key == -2) {
            plain_turn(p, -1);
            return 1;
        }
        if (ALIAS[i].key == -3) {
            list_lessons(p);
            return 1;
        }
        if (ALIAS[i].key == 'G')
            return global_request(p, REQ_GOTO_PAGE, arg);
        if (ALIAS[i].key == 'Q')
            return global_request(p, REQ_QUIZ, arg);
        return key_command(p, ALIAS[i].key, arg);
    }
    if (!strcmp(cmd, "read")) {
        plain_say_page(p);
        return 1;
    }
    if (!strcmp(cmd, "widget")) {
        plain_say_widget(p);
        return 1;
    }
    if (!strcmp(cmd, "keys")) {
        char keys[1200];
        plain_keys_line(p, keys, sizeof keys);
        plain_say(p, keys);
        return 1;
    }
    if (!strcmp(cmd, "lesson")) {
        int i = arg ? lesson_find(&p->course, arg) : -1;
        if (i < 0) {
            plain_sayf(p, "No lesson with id \"%s\"; lessons lists them.", arg ? arg : "");
            return 1;
        }
        p->only = NULL;
        plain_open(p, i, 0);
        return 1;
    }
    if (!strcmp(cmd, "cell") || !strcmp(cmd, "swap")) {
        int a, b;
        if (!arg || sscanf(arg, "%d %d", &a, &b) != 2) {
            plain_sayf(p, "Type %s and two numbers, for example: %s 1 2", cmd, cmd);
            return 1;
        }
        if (!strcmp(cmd, "swap")) {
            if (plain_kind(p) != W_CHIPS || !p->ran)
                plain_say(p, "Swap works on the chips widget.");
            else
                swap_chips(p, a, b);
            return 1;
        }
        if (!(p->allowed & C_CURSOR) || !p->ran) {
            plain_say(p, "This page has no cell to inspect.");
            return 1;
        }
        char cell[400];
        WidgetIO io;
        plain_io(p, &io);
        if (plain_kind(p) == W_WORKED)
            io.tr.t = p->live.worked;
        if (!describe_cell(&io, a, b, cell, sizeof cell)) {
            plain_say(p, "No such cell: rows and keys count from 0.");
            return 1;
        }
        p->cur_r = a;
        p->cur_c = b;
        plain_say(p, cell);
        return 1;
    }
    return 0;
}

void plain_command(Plain *p, char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
        line[--n] = '\0';
    char *s = line;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s)
        return;
    memcpy(before_prose, p->prose, sizeof before_prose);
    char *arg = s;
    while (*arg && *arg != ' ' && *arg != '\t')
        arg++;
    if (*arg) {
        *arg++ = '\0';
        while (*arg == ' ' || *arg == '\t')
            arg++;
    }
    if (word_command(p, s, *arg ? arg : NULL))
        return;
    int k = key_of(s);
    if (k >= 0 && key_command(p, k, *arg ? arg : NULL))
        return;
    plain_sayf(p, "\"%s\" does nothing on this page; help lists the commands.", s);
}

/* ---- help ---- */

/* Keys that may be bound: the printable ones, then the named ones. */
static const char *const NAMED_KEYS[] = {"space", "enter", "backspace", "left", "right", "up",
                                         "down", "home", "end", "pgup", "pgdn"};

/* The keys bound in keymap km, those with the same help line together ("b, j, left: ..."). */
static void help_map(Plain *p, const KeyState *ks, Keymap km, char *done)
{
    enum { MAX_LINES = 48 };
    char helps[MAX_LINES][200], names[MAX_LINES][120];
    int n = 0;
    for (int c = 0; c < 128 + (int)(sizeof NAMED_KEYS / sizeof NAMED_KEYS[0]); c++) {
        char name[16], help[200];
        if (c < 128 && (c <= ' ' || c > '~'))
            continue;
        if (c < 128)
            snprintf(name, sizeof name, "%c", c);
        else
            snprintf(name, sizeof name, "%s", NAMED_KEYS[c - 128]);
        int k = keys_parse_name(name);
        if (k < 0 || (c < 128 && done[c]) || !keys_key_help(ks, km, k, help, sizeof help))
            continue;
        if (c < 128)
            done[c] = 1;
        int i = 0;
        while (i < n && strcmp(helps[i], help))
            i++;
        if (i == n) {
            if (n == MAX_LINES)
                continue;
            snprintf(helps[n], sizeof helps[n], "%s", help);
            names[n++][0] = '\0';
        }
        size_t l = strlen(names[i]);
        snprintf(names[i] + l, sizeof names[i] - l, "%s%s", l ? ", " : "", name);
    }
    for (int i = 0; i < n; i++)
        plain_sayf(p, "%s: %s", names[i], helps[i]);
}

/* Says the commands of the current page. */
static void plain_help(Plain *p)
{
    KeyState ks;
    plain_key_state(p, &ks);
    WidgetKind kind = plain_kind(p);
    Keymap maps[3] = {plain_keymap(kind), kind != W_NONE ? KM_COMMON : KM_NONE, KM_GLOBAL};
    plain_say(p, "Commands, one a line:\n"
                 "next, back: the next or previous page (also space, backspace).\n"
                 "read: the page again. widget: the widget again. keys: this page's keys.\n"
                 "lessons: the lessons. lesson ID: open one. goto N, or goto ID:N: a page.\n"
                 "quiz (or Q): this lesson's questions. notes (or o): speaker notes.\n"
                 "q or quit: quit; the end of input quits too. Progress is saved on every page.");
    if (kind != W_NONE && p->ran && (p->allowed & C_EDIT))
        plain_say(p, "edit TEXT (or e TEXT): run another sentence.");
    if (p->allowed & C_CURSOR)
        plain_say(p, "cell R C: inspect a cell (row R, key C, from 0).");
    if (kind == W_CHIPS && (p->allowed & C_SWAP))
        plain_say(p, "swap I J: swap the chips at positions I and J.");
    if (kind == W_MATRIX)
        plain_say(p, "t NAME: show another tensor; t alone lists them.");
    plain_say(p, "Keys of this page, as the player names them:");
    char done[128] = {0};
    for (int m = 0; m < 3; m++) {
        if (maps[m] != KM_NONE)
            help_map(p, &ks, maps[m], done);
    }
}
