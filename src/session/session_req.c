/* session_req.c - what a request does to the Session (session.h), written once for both
 * front ends: the shared widget controls (masks, PE, scaling, head, layer, all heads, scores,
 * knocking a head out, reset), the widgets' own requests (the cell cursor, chips, steps, the
 * explanation widgets' settings), the sentence, a swap, a cell, a tensor; each answered by a
 * Change as data, with what the widget's numbers did (describe_diff). The keymaps a page
 * looks keys up in, and what the key table's conditions read, are here too. */
#include <string.h>

#include "ablation.h"
#include "session.h"
#include "repeat_run.h"
#include "watch.h"

/* generate's temperatures, coldest first: + and - step through them */
static const float TEMPS[] = {0.25f, 0.5f, 0.7f, 1.0f, 1.5f, 2.0f, 3.0f};
#define N_TEMPS (int)(sizeof TEMPS / sizeof TEMPS[0])

static int set_sentence(Session *s, int target, const char *text, Change *ch);
static int swap(Session *s, int i, int j, Change *ch);
static int set_tensor(Session *s, const char *name, Change *ch);

Keymap session_keymap(WidgetKind k)
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
    case W_LENS: case W_ATTRIB: case W_PATCH: case W_ROLLOUT: case W_EFFECT: case W_PAIR:
        return KM_PROBE;
    default: return KM_NONE;
    }
}

unsigned session_common_hints(WidgetKind k)
{
    switch (k) {
    case W_HEATMAP: case W_PASSPORT: case W_MATRIX:
    case W_LENS: case W_ATTRIB: case W_PATCH: case W_ROLLOUT: case W_EFFECT: case W_PAIR:
        return ~0u;
    case W_CHIPS:
        return ~(unsigned)C_RESET; /* r is the chips' own: the original order */
    case W_WORKED: case W_SCALING: case W_KVCACHE: case W_COST: case W_PARAMS: case W_GENERATE:
        return C_RESET;
    default:
        return 0; /* prose, the train widget (its run's keys), the lab */
    }
}

void session_hints(const Session *s, const KeyState *ks, char *buf, size_t n)
{
    WidgetKind k = session_kind(s);
    keys_hints(ks, session_keymap(k), session_common_hints(k), buf, n);
}

int session_keymaps(const Session *s, Keymap km[3])
{
    WidgetKind k = session_kind(s);
    int n = 0;
    km[n++] = session_keymap(k);
    if (k != W_NONE && k != W_TRAIN) /* the train widget's keys are its own run's */
        km[n++] = KM_COMMON;
    km[n++] = KM_GLOBAL;
    return n;
}

void session_key_state(const Session *s, KeyState *ks)
{
    keys_state_fill(ks, s->allowed, &s->ctl, s->scores, s->all_heads, &s->live.s, s->model,
                    session_page(s));
    int replay = session_kind(s) == W_TRAIN && session_train_repeat_page(s->model);
    ks->train_running = replay ? s->train.rep.running : s->train.running;
    if (replay) /* a replay page's run is the recipe's: no mask to choose, no head to pick */
        ks->allowed &= ~(unsigned)(C_MASK | C_HEAD | C_LAYER);
    ks->train_causal = session_train_causal(s);
}

static void cycle(int *v, int n, int dir)
{
    *v = ((*v + dir) % n + n) % n;
}

/* Runs the widget again and says what its numbers did (from the snapshot of the last
 * change), keeping the new numbers for the next. */
static void rerun(Session *s, Change *ch)
{
    WidgetIO io;
    DescribeView v;
    static DescribeSnap after;
    session_run(s);
    session_io(s, &io);
    session_view(s, &v);
    describe_snap(&io, &v, &after);
    describe_diff(s->snap, &after, &io, &ch->diff);
    *s->snap = after;
    ch->ran = 1;
}

/* The view changed, the run did not: the diff of the same numbers seen another way. */
static void reseen(Session *s, Change *ch)
{
    rerun(s, ch); /* layer, head, scores: the numbers shown are others; one run is cheap */
}

static int refuse(Change *ch, ChangeWhy why, int to)
{
    ch->kind = CH_REFUSED;
    ch->why = why;
    ch->to = to;
    return 1;
}

/* ---- the shared widget controls ---- */
static int control(Session *s, Request req, const char *arg, Change *ch)
{
    const ModelConfig *c = &s->model->cfg;
    ch->kind = CH_CONTROL;
    switch (req) {
    case REQ_TOGGLE_MASK:
        ch->from = s->ctl.causal;
        ch->to = s->ctl.causal = !s->ctl.causal;
        break;
    case REQ_TOGGLE_PADDING:
        ch->from = s->ctl.padding;
        ch->to = s->ctl.padding = !s->ctl.padding;
        break;
    case REQ_CYCLE_PE: {
        int pe = (int)s->ctl.pe;
        ch->from = pe;
        cycle(&pe, PE__COUNT, 1);
        s->ctl.pe = (PeKind)pe;
        ch->to = pe;
        break;
    }
    case REQ_TOGGLE_SCALE:
        ch->from = s->ctl.scale;
        ch->to = s->ctl.scale = !s->ctl.scale;
        break;
    case REQ_NEXT_HEAD:
    case REQ_PREV_HEAD:
        ch->from = s->head;
        cycle(&s->head, c->n_heads, req == REQ_NEXT_HEAD ? 1 : -1);
        ch->to = s->head;
        ch->a = c->n_heads;
        reseen(s, ch);
        return 1;
    case REQ_NEXT_LAYER:
    case REQ_PREV_LAYER:
        ch->from = s->layer;
        cycle(&s->layer, c->n_layers, req == REQ_NEXT_LAYER ? 1 : -1);
        ch->to = s->layer;
        ch->a = c->n_layers;
        reseen(s, ch);
        return 1;
    case REQ_TOGGLE_ALL_HEADS:
        ch->from = s->all_heads;
        ch->to = s->all_heads = !s->all_heads;
        reseen(s, ch);
        return 1;
    case REQ_TOGGLE_SCORES:
        ch->from = s->scores;
        ch->to = s->scores = !s->scores;
        reseen(s, ch);
        return 1;
    case REQ_KNOCK_OUT: /* the head's output zeroed in the forward pass (Controls.ablate) */
        ATTEND_ASSERT(s->layer < ATTEND_MAX_LAYERS && s->head < 64); /* one bit a head */
        s->ctl.ablate[s->layer] ^= (uint64_t)1 << s->head;
        ch->kind = CH_KNOCK;
        ch->a = s->layer;
        ch->b = s->head;
        ch->to = (int)((s->ctl.ablate[s->layer] >> s->head) & 1u);
        rerun(s, ch);
        if (s->t && s->t->model &&
            ablation_words(s->t, s->layer, s->head, ch->detail, sizeof ch->detail))
            ch->detail[0] = '\0';
        return 1;
    case REQ_EDIT:
    case REQ_EDIT_DECODER:
        if (!arg) /* the front end asks for the sentence first */
            return ch->kind = CH_NONE, 0;
        return set_sentence(s, req == REQ_EDIT_DECODER && c->arch == ARCH_ENCDEC, arg,
                                    ch);
    case REQ_RESET: {
        int layer = s->layer, head = s->head;
        session_reset_widget(s);
        if (s->w->kind != W_CHIPS) { /* keep the view, reset the controls */
            s->layer = layer;
            s->head = head;
            session_run(s);
        }
        ch->kind = CH_RESET;
        rerun(s, ch);
        return 1;
    }
    default:
        return ch->kind = CH_NONE, 0;
    }
    ATTEND_ASSERT(session_view_ok(s));
    rerun(s, ch);
    return 1;
}

/* ---- the widgets' own requests ---- */
static int cursor(Session *s, Request req, Change *ch)
{
    int rows, cols;
    WidgetKind k = session_kind(s);
    if (!s->ran)
        return 0;
    if (k == W_HEATMAP) {
        if (!(s->allowed & C_CURSOR))
            return 0;
        if (s->all_heads) /* the cells are one head's: a shows one */
            return refuse(ch, WHY_ALL_HEADS, 0);
        rows = session_rows(s);
        cols = session_cols(s);
    } else if (k == W_WORKED) {
        rows = s->w->worked.nq;
        cols = s->w->worked.nk;
    } else {
        return 0;
    }
    ch->kind = CH_CURSOR;
    ch->from = s->cur_r * 1000 + s->cur_c;
    switch (req) {
    case REQ_CURSOR_UP: s->cur_r--; break;
    case REQ_CURSOR_DOWN: s->cur_r++; break;
    case REQ_CURSOR_LEFT: s->cur_c--; break;
    case REQ_CURSOR_RIGHT: s->cur_c++; break;
    case REQ_CURSOR_HOME: s->cur_c = 0; break;
    case REQ_CURSOR_END: s->cur_c = cols - 1; break;
    default: return ch->kind = CH_NONE, 0;
    }
    s->cur_r = s->cur_r >= rows ? rows - 1 : s->cur_r < 0 ? 0 : s->cur_r;
    s->cur_c = s->cur_c >= cols ? cols - 1 : s->cur_c < 0 ? 0 : s->cur_c;
    s->inspected = 1;
    ch->a = s->cur_r;
    ch->b = s->cur_c;
    ch->to = s->cur_r * 1000 + s->cur_c;
    return 1;
}

static int chips(Session *s, Request req, Change *ch)
{
    int n = s->t ? s->t->n : 0;
    if (!s->ran || n < 1)
        return 0;
    ch->kind = CH_CURSOR;
    ch->from = s->chip_cur;
    switch (req) {
    case REQ_CHIP_LEFT: s->chip_cur = s->chip_cur > 0 ? s->chip_cur - 1 : 0; break;
    case REQ_CHIP_RIGHT: s->chip_cur = s->chip_cur < n - 1 ? s->chip_cur + 1 : n - 1; break;
    case REQ_CHIP_FIRST: s->chip_cur = 0; break;
    case REQ_CHIP_LAST: s->chip_cur = n - 1; break;
    case REQ_PICK:
        if (!(s->allowed & C_SWAP))
            return refuse(ch, WHY_NO_SWAP, 0);
        if (s->chip_pick < 0) {
            s->chip_pick = s->chip_cur;
            ch->kind = CH_PICK;
            ch->to = ch->a = s->chip_cur;
            return 1;
        }
        if (s->chip_pick == s->chip_cur) {
            s->chip_pick = -1;
            ch->kind = CH_PICK;
            ch->to = -1;
            ch->a = s->chip_cur;
            return 1;
        }
        return swap(s, s->chip_pick, s->chip_cur, ch);
    case REQ_DROP_PICK:
        if (s->chip_pick < 0)
            return ch->kind = CH_NONE, 0;
        ch->kind = CH_PICK;
        ch->a = s->chip_pick;
        ch->to = s->chip_pick = -1;
        return 1;
    case REQ_RESET_ORDER:
        for (int i = 0; i < SESSION_MAX_TOK; i++)
            s->order[i] = i;
        s->chip_pick = -1;
        ch->kind = CH_ORDER;
        ch->a = ch->b = -1;
        rerun(s, ch);
        return 1;
    default:
        return ch->kind = CH_NONE, 0;
    }
    ch->to = ch->a = s->chip_cur;
    return 1;
}

static int steps(Session *s, Request req, Change *ch)
{
    int d = req == REQ_STEP_NEXT ? 1 : req == REQ_STEP_PREV ? -1 : 0;
    WidgetKind k = session_kind(s);
    if (!d || !s->ran)
        return 0;
    ch->kind = CH_STEP;
    if (k == W_PASSPORT) {
        int idx[128];
        int n = widget_passport_steps(s->t, session_stack(s), s->layer, s->head, idx, 128);
        if (s->step + d < 0 || s->step + d >= n)
            return refuse(ch, d < 0 ? WHY_FIRST_STEP : WHY_LAST_STEP, n);
        ch->from = s->step;
        ch->to = s->step += d;
        ch->a = n;
    } else if (k == W_WORKED || k == W_KVCACHE) {
        int st = s->live.s.step + d;
        int lo = k == W_WORKED ? 0 : 1, hi = k == W_WORKED ? LIVE_WORKED_STEPS - 1
                                                             : s->live.n_tokens;
        if (st < lo || st > hi)
            return refuse(ch, st < lo ? WHY_FIRST_STEP : WHY_LAST_STEP, hi);
        ch->from = s->live.s.step;
        ch->to = s->live.s.step = st;
        ch->a = hi;
    } else if (course_kind_is_probe(k)) { /* the position the numbers are of */
        if (s->step + d < 0 || s->step + d >= s->t->n)
            return refuse(ch, d < 0 ? WHY_FIRST_STEP : WHY_LAST_STEP, s->t->n);
        ch->from = s->step;
        ch->to = s->step += d;
        ch->a = s->t->n;
    } else if (k == W_GENERATE) {
        const GenStep *g = &s->live.gen;
        if (d > 0 && g->end) {
            const char *last = vocab_word(&s->model->vocab, s->live.gen_ids[g->n - 1]);
            return refuse(ch, WHY_TEXT_DONE, g->n >= s->model->cfg.max_len ? GEN_END_MAX_LEN
                                             : !strcmp(last, ".") ? GEN_END_STOP : GEN_END_EOS);
        }
        if (d > 0 && g->n >= s->t->max_n)
            return refuse(ch, WHY_TOKEN_CAP, s->t->max_n);
        if (d < 0 && s->live.s.step == 0)
            return refuse(ch, WHY_FIRST_STEP, 0);
        ch->from = s->live.s.step;
        ch->to = s->live.s.step += d;
    } else {
        return ch->kind = CH_NONE, 0;
    }
    rerun(s, ch);
    return 1;
}

static int temp_index(float t, int up)
{
    if (up) {
        for (int i = 0; i < N_TEMPS; i++)
            if (TEMPS[i] > t + 1e-6f)
                return i;
        return N_TEMPS - 1;
    }
    for (int i = N_TEMPS - 1; i >= 0; i--)
        if (TEMPS[i] < t - 1e-6f)
            return i;
    return 0;
}

/* A new sampling setting keeps the step when the new text reaches it, else its last step. */
static void rerun_keep_step(Session *s, Change *ch)
{
    session_run(s);
    while (!s->ran && s->live.s.step > 0) {
        s->live.s.step--;
        session_run(s);
    }
    rerun(s, ch);
}

/* The explanation widgets' settings. */
static int live(Session *s, Request req, Change *ch)
{
    LiveState *l = &s->live.s;
    WidgetKind k = session_kind(s);
    if (!s->ran && !(k == W_GENERATE && req == REQ_TOGGLE_SAMPLE))
        return 0;
    ch->kind = CH_LIVE;
    if ((req == REQ_INCREASE || req == REQ_DECREASE) && (k == W_SCALING || k == W_COST)) {
        int up = req == REQ_INCREASE;
        long long v = k == W_SCALING ? l->d_k : l->n, max = k == W_SCALING ? LIVE_DK_MAX
                                                                            : LIVE_N_MAX;
        long long nv = up ? (v * 2 > max ? max : v * 2) : (v / 2 < 1 ? 1 : v / 2);
        if (nv == v)
            return refuse(ch, WHY_RANGE, (int)(up ? max : 1));
        ch->from = (int)v;
        ch->to = (int)nv;
        if (k == W_SCALING)
            l->d_k = (int)nv;
        else
            l->n = nv;
    } else if ((req == REQ_INCREASE || req == REQ_DECREASE) && k == W_GENERATE && l->sample) {
        ch->fto = l->temp = TEMPS[temp_index(l->temp, req == REQ_INCREASE)];
        rerun_keep_step(s, ch);
        return 1;
    } else if ((req == REQ_INCREASE || req == REQ_DECREASE || req == REQ_NEXT_SEED) &&
               k == W_GENERATE && !l->sample) {
        return refuse(ch, WHY_GREEDY, 0);
    } else if (req == REQ_TOGGLE_SCALE && (k == W_SCALING || k == W_WORKED)) {
        ch->from = l->scale;
        ch->to = l->scale = !l->scale;
    } else if (req == REQ_TOGGLE_MASK && k == W_WORKED) {
        ch->from = l->causal;
        ch->to = l->causal = (l->causal + 1) % 3; /* none -> causal -> after softmax, the
                                                     mistake -> none */
    } else if (req == REQ_TOGGLE_TIE && k == W_PARAMS) {
        ch->from = l->tied;
        ch->to = l->tied = !l->tied;
    } else if (req == REQ_TOGGLE_GQA && k == W_PARAMS) {
        ch->from = l->gqa;
        ch->to = l->gqa = !l->gqa;
        rerun(s, ch);
        ch->a = (int)s->live.pc.n_kv_heads;
        ch->b = (int)s->live.pc.n_heads;
        return 1;
    } else if (req == REQ_TOGGLE_SAMPLE && k == W_GENERATE) {
        ch->from = l->sample;
        ch->to = l->sample = !l->sample;
        if (l->sample && l->temp <= 0)
            l->temp = LIVE_TEMP_DEFAULT;
        ch->fto = l->temp;
        ch->a = l->seed;
        rerun_keep_step(s, ch);
        return 1;
    } else if (req == REQ_NEXT_SEED && k == W_GENERATE && l->sample) {
        ch->from = l->seed;
        ch->to = l->seed = l->seed < 2147483647 ? l->seed + 1 : 0;
        rerun_keep_step(s, ch);
        return 1;
    } else {
        return ch->kind = CH_NONE, 0;
    }
    rerun(s, ch);
    return 1;
}

static int request(Session *s, Request req, const char *arg, Change *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->req = req;
    WidgetKind k = session_kind(s);
    if (k == W_TRAIN) /* the train widget's run, or a replay page's live run */
        return session_train_request(s, req, ch);
    if (k == W_NONE || k == W_LAB) /* the lab's file is its view's */
        return 0;
    int done = 0;
    switch (req) {
    case REQ_CURSOR_UP: case REQ_CURSOR_DOWN: case REQ_CURSOR_LEFT: case REQ_CURSOR_RIGHT:
    case REQ_CURSOR_HOME: case REQ_CURSOR_END:
        done = cursor(s, req, ch);
        break;
    case REQ_CHIP_LEFT: case REQ_CHIP_RIGHT: case REQ_CHIP_FIRST: case REQ_CHIP_LAST:
    case REQ_PICK: case REQ_DROP_PICK: case REQ_RESET_ORDER:
        done = k == W_CHIPS && chips(s, req, ch);
        break;
    case REQ_STEP_NEXT: case REQ_STEP_PREV:
        done = steps(s, req, ch);
        break;
    case REQ_PICK_TENSOR:
        done = k == W_MATRIX && arg && set_tensor(s, arg, ch);
        break;
    case REQ_INCREASE: case REQ_DECREASE: case REQ_TOGGLE_TIE: case REQ_TOGGLE_GQA:
    case REQ_TOGGLE_SAMPLE: case REQ_NEXT_SEED:
        done = live(s, req, ch);
        break;
    default:
        if ((req == REQ_TOGGLE_MASK || req == REQ_TOGGLE_SCALE) &&
            (k == W_WORKED || (k == W_SCALING && req == REQ_TOGGLE_SCALE))) {
            done = live(s, req, ch); /* the explanation widget's own mask or scaling */
            break;
        }
        done = control(s, req, arg, ch); /* the shared controls */
        break;
    }
    if (!done)
        ch->kind = CH_NONE;
    ATTEND_ASSERT(session_view_ok(s));
    return done;
}

static int set_sentence(Session *s, int target, const char *text, Change *ch)
{
    TokenizeInfo info;
    int ids[SESSION_MAX_TOK];
    memset(ch, 0, sizeof *ch);
    ch->req = target ? REQ_EDIT_DECODER : REQ_EDIT;
    if (!s->model || !s->t)
        return refuse(ch, WHY_EMPTY, 0);
    int cap = target ? s->t->max_m : s->t->max_n;
    int n = vocab_tokenize(&s->model->vocab, text, ids, cap, &info);
    if (info.error[0]) { /* a limit of the model's own tokenizer (issue 39), named */
        refuse(ch, WHY_TOKENIZER, 0);
        snprintf(ch->detail, sizeof ch->detail, "%s", info.error);
        return 1;
    }
    if (info.n_tokens == 0)
        return refuse(ch, WHY_EMPTY, 0);
    if (info.truncated || info.n_tokens > cap) {
        refuse(ch, WHY_TOO_LONG, cap);
        ch->from = info.n_tokens;
        ch->a = info.stopped;
        snprintf(ch->detail, sizeof ch->detail, "max_len");
        if (!target)
            widget_token_cap(s->model, SESSION_MAX_TOK, ch->detail, sizeof ch->detail);
        return 1;
    }
    if (target) {
        memcpy(s->tgt, ids, sizeof(int) * (size_t)n);
        s->n_tgt = n;
        snprintf(s->target, sizeof s->target, "%s", text);
    } else {
        memcpy(s->src, ids, sizeof(int) * (size_t)n);
        s->n_src = n;
        snprintf(s->sentence, sizeof s->sentence, "%s", text);
        for (int i = 0; i < SESSION_MAX_TOK; i++)
            s->order[i] = i;
        s->chip_pick = -1;
        if (s->chip_cur >= n)
            s->chip_cur = n - 1;
    }
    ch->kind = CH_SENTENCE;
    ch->to = n;
    ch->b = target;
    for (int i = 0; i < info.n_unknown && i < VOCAB_MAX_UNKNOWN; i++) {
        size_t k = strlen(ch->detail);
        snprintf(ch->detail + k, sizeof ch->detail - k, "%s%s", i ? ", " : "", info.unknown[i]);
    }
    ch->a = info.n_unknown;
    rerun(s, ch);
    return 1;
}

static int swap(Session *s, int i, int j, Change *ch)
{
    int n = s->t && s->ran ? s->t->n : 0;
    memset(ch, 0, sizeof *ch);
    ch->req = REQ_PICK;
    if (!(s->allowed & C_SWAP) || session_kind(s) != W_CHIPS || !s->ran)
        return refuse(ch, WHY_NO_SWAP, 0);
    if (i < 0 || j < 0 || i >= n || j >= n || i == j)
        return refuse(ch, WHY_BAD_SWAP, n - 1);
    int tmp = s->order[i];
    s->order[i] = s->order[j];
    s->order[j] = tmp;
    s->chip_pick = -1;
    s->chip_cur = j;
    ch->kind = CH_ORDER;
    ch->a = i;
    ch->b = j;
    rerun(s, ch);
    return 1;
}

static int pick_chip(Session *s, int i, Change *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->req = REQ_PICK;
    if (session_kind(s) != W_CHIPS || !s->ran || i < 0 || i >= s->t->n)
        return 0;
    s->chip_cur = i;
    return request(s, REQ_PICK, NULL, ch);
}

static int select_cell(Session *s, int row, int col, Change *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->req = REQ_CURSOR_DOWN;
    WidgetKind k = session_kind(s);
    if (!(s->allowed & C_CURSOR) || !s->ran || (k != W_HEATMAP && k != W_WORKED))
        return refuse(ch, WHY_NO_CURSOR, 0);
    if (k == W_HEATMAP && s->all_heads) /* as the cursor keys: the cells are one head's */
        return refuse(ch, WHY_ALL_HEADS, 0);
    int rows = k == W_WORKED ? s->w->worked.nq : session_rows(s);
    int cols = k == W_WORKED ? s->w->worked.nk : session_cols(s);
    if (row < 0 || col < 0 || row >= rows || col >= cols)
        return refuse(ch, WHY_NO_CELL, 0);
    ch->kind = CH_CURSOR;
    ch->from = s->cur_r * 1000 + s->cur_c;
    s->cur_r = ch->a = row;
    s->cur_c = ch->b = col;
    s->inspected = 1;
    ch->to = row * 1000 + col;
    return 1;
}

static int set_tensor(Session *s, const char *name, Change *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->req = REQ_PICK_TENSOR;
    if (!s->ran || !trace_find_name(s->t, name)) {
        snprintf(ch->detail, sizeof ch->detail, "%s", name);
        return refuse(ch, WHY_NO_TENSOR, 0);
    }
    snprintf(s->tensor, sizeof s->tensor, "%s", name);
    ch->kind = CH_TENSOR;
    snprintf(ch->detail, sizeof ch->detail, "%s", name);
    rerun(s, ch);
    return 1;
}

/* ---- the public entries: each keeps its Change as the Session's last ---- */
static int keep(Session *s, int done, const Change *ch)
{
    if (done) {
        s->last = *ch;
        s->n_requests++;
    }
    return done;
}

int session_request(Session *s, Request req, const char *arg, Change *ch)
{
    return keep(s, request(s, req, arg, ch), ch);
}

int session_set_sentence(Session *s, int target, const char *text, Change *ch)
{
    return keep(s, set_sentence(s, target, text, ch), ch);
}

int session_swap(Session *s, int i, int j, Change *ch)
{
    return keep(s, swap(s, i, j, ch), ch);
}

int session_pick_chip(Session *s, int i, Change *ch)
{
    return keep(s, pick_chip(s, i, ch), ch);
}

int session_select_cell(Session *s, int row, int col, Change *ch)
{
    return keep(s, select_cell(s, row, col, ch), ch);
}

int session_set_tensor(Session *s, const char *name, Change *ch)
{
    return keep(s, set_tensor(s, name, ch), ch);
}

/* (session_train.c holds the run; this drives it through session_request, which counts
 * each t as the player's key does) */
int session_train_to_end(Session *s, int reports,
                         void (*report)(Session *s, int step, int total, int every, void *ctx),
                         void *ctx, Change *ch)
{
    int rep = session_train_repeat_page(s->model), rc;
    session_request(s, REQ_TRAIN_RUN, NULL, ch);
    if (ch->kind == CH_TRAIN && !(rep ? s->train.rep.running : s->train.running))
        session_request(s, REQ_TRAIN_RUN, NULL, ch); /* it paused the run: go on */
    if (ch->kind != CH_TRAIN)
        return 0;
    int total = rep ? repeat_run_opts(s->train.rep.run)->steps : watch_opts(s->train.run)->steps;
    int every = reports > 0 && total / reports > 0 ? total / reports : 1;
    report(s, -1, total, every, ctx);
    if (rep) {
        while ((rc = session_train_repeat_step(s)) > 0 && rc != 3) {
            int n = repeat_run_steps_done(s->train.rep.run);
            if (rc == 2 && (n % every == 0 || n == total))
                report(s, n, total, every, ctx);
        }
        return rc < 0 ? -1 : 1;
    }
    if (watch_steps_done(s->train.run) == 0)
        report(s, 0, total, every, ctx);
    while ((rc = session_train_step(s)) > 0 && !s->train.done)
        if (watch_steps_done(s->train.run) % every == 0)
            report(s, watch_steps_done(s->train.run), total, every, ctx);
    if (rc < 0)
        return -1;
    report(s, total, total, every, ctx);
    return 1;
}

const char *session_state_line(const Session *s, char *out, size_t n)
{
    size_t k = 0;
#define PUT(...) (k += (size_t)snprintf(out + k, k < n ? n - k : 0, __VA_ARGS__))
    PUT("lesson %d page %d kind %d ran %d model %d/%d/%d sentence \"%s\" target \"%s\" src",
        s->lesson, s->page, (int)session_kind(s), s->ran, s->model ? s->model->cfg.n_layers : 0,
        s->model ? s->model->cfg.n_heads : 0, s->model ? s->model->cfg.d_model : 0, s->sentence,
        s->target);
    for (int i = 0; i < s->n_src; i++)
        PUT(" %d", s->src[i]);
    PUT(" tgt");
    for (int i = 0; i < s->n_tgt; i++)
        PUT(" %d", s->tgt[i]);
    PUT(" order");
    for (int i = 0; i < s->n_src; i++)
        PUT(" %d", s->order[i]);
    PUT(" causal %d padding %d pe %d scale %d ablate", s->ctl.causal, s->ctl.padding,
        (int)s->ctl.pe, s->ctl.scale);
    for (int l = 0; l < ATTEND_MAX_LAYERS; l++)
        if (s->ctl.ablate[l])
            PUT(" %d:%llx", l, (unsigned long long)s->ctl.ablate[l]);
    PUT(" layer %d head %d cross %d scores %d all %d cell %d,%d/%d chip %d pick %d step %d "
        "tensor %s live %d %d %d %d %lld %d %d %d %g %d equiv %.6g",
        s->layer, s->head, s->cross, s->scores, s->all_heads, s->cur_r, s->cur_c, s->inspected,
        s->chip_cur, s->chip_pick, s->step, s->tensor, s->live.s.causal, s->live.s.scale,
        s->live.s.step, s->live.s.d_k, s->live.s.n, s->live.s.tied, s->live.s.gqa,
        s->live.s.sample, (double)s->live.s.temp, s->live.s.seed, (double)s->equiv);
    if (session_kind(s) == W_TRAIN) /* the train widget's run (or a replay page's) */
        PUT(" train %d %d %d %d %d,%d %d %d rep %d %d %d", s->train.run != NULL,
            s->train.running, s->train.done, session_train_causal(s), s->train.layer,
            s->train.head, s->train.run ? watch_steps_done(s->train.run) : -1, s->train.fresh,
            s->train.rep.running, s->train.rep.done,
            s->train.rep.run ? repeat_run_steps_done(s->train.rep.run) : -1);
    if (s->lab.read && session_kind(s) == W_LAB) /* the last check both front ends show */
        PUT(" lab %s %d %s \"%s\" \"%s\" %s %s", s->lab.lab, s->lab.have,
            s->lab.have ? s->lab.show.status : "-", s->lab.have ? s->lab.show.line : s->lab.err,
            s->lab.have ? s->lab.show.diagnosis : "", s->lab.have ? s->lab.show.what : "-",
            s->lab.have && s->lab.show.have ? "matrices" : "-");
#undef PUT
    return out;
}

const char *session_change_line(const Change *ch, char *out, size_t n)
{
    const DescribeDiff *d = &ch->diff;
    snprintf(out, n, "kind %d req %s why %d from %d to %d a %d b %d fto %g ran %d | ok %d "
             "fresh %d view %d cells %d moved %d row %d col %d from %.4f to %.4f reord %d "
             "key %d->%d masked %d->%d equiv %d %.4g %d step %d %d tensor %d live %d | %s",
             (int)ch->kind, keys_request_name(ch->req), (int)ch->why, ch->from, ch->to, ch->a,
             ch->b, (double)ch->fto, ch->ran, d->ok, d->fresh, d->view, d->cells, d->moved,
             d->row, d->col, (double)d->from, (double)d->to, d->reordered, d->key_from,
             d->key_to, d->masked_before, d->masked_after, d->equiv_shown, (double)d->equiv,
             d->verdict_changed, d->step_changed, d->step, d->tensor_changed, d->n_live,
             ch->detail);
    for (int i = 0; i < ISSUE__COUNT; i++) {
        size_t l = strlen(out);
        if ((ch->issues.bits >> i & 1u) && l < n)
            snprintf(out + l, n - l, " | issue %d: %s", i, ch->issues.value[i]);
    }
    return out;
}
