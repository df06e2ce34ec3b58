/* plain_say.c - plain mode's wording of a Change of the Session (plain.h): what changed,
 * first ("mask causal on: row 0 (the) changed most: ..."), then the widget in words, then the
 * sentences of the page that changed. The player words the same Change into its status line
 * (src/tui/app_words.c); the rule that made it is the Session's, written once. */
#include <string.h>

#include "plain.h"

static const char *on_off(int v)
{
    return v ? "on" : "off";
}

/* The paragraphs of the prose that are new since before_prose. */
static void say_prose_changes(Plain *p)
{
    const char *s = p->s->prose;
    int said = 0;
    while (*s) {
        const char *e = strstr(s, "\n\n");
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char para[4096];
        snprintf(para, sizeof para, "%.*s", (int)(len < sizeof para ? len : sizeof para - 1), s);
        if (para[0] && !strstr(p->before_prose, para)) {
            if (!said++)
                plain_say(p, "On the page now:");
            plain_say(p, para);
        }
        s += len;
        while (*s == '\n')
            s++;
    }
}

/* Why nothing changed, as a sentence. */
static void say_refused(Plain *p, const Change *ch)
{
    WidgetKind k = session_kind(p->s);
    switch (ch->why) {
    case WHY_FIRST_STEP:
        plain_say(p, k == W_GENERATE ? "Step 0: the prompt alone."
                     : course_kind_is_probe(k) ? "This is the first position."
                                               : "This is the first step.");
        break;
    case WHY_LAST_STEP:
        plain_say(p, course_kind_is_probe(k) ? "This is the last position."
                                             : "This is the last step.");
        break;
    case WHY_TEXT_DONE: plain_say(p, "The text is finished."); break;
    case WHY_TOKEN_CAP: plain_sayf(p, "Plain mode runs at most %d tokens.", ch->to); break;
    case WHY_RANGE:
        plain_sayf(p, "%s stays in 1..%d; nothing changed.", k == W_COST ? "N" : "d_k",
                   k == W_COST ? LIVE_N_MAX : LIVE_DK_MAX);
        break;
    case WHY_NO_SWAP: plain_say(p, "Swapping is not part of this page."); break;
    case WHY_BAD_SWAP:
        plain_sayf(p, "Swap needs two different positions from 0 to %d.", ch->to);
        break;
    case WHY_NO_CELL: plain_say(p, "No such cell: rows and keys count from 0."); break;
    case WHY_NO_CURSOR: plain_say(p, "This page has no cell to inspect."); break;
    case WHY_ALL_HEADS:
        plain_say(p, "Every head is shown: a shows one head, whose cells the cursor reads.");
        break;
    case WHY_GREEDY:
        plain_say(p, "Greedy decoding has no temperature or seed: t switches to sampling.");
        break;
    case WHY_NO_TENSOR:
        plain_sayf(p, "No tensor \"%s\" in this run; t alone lists them.", ch->detail);
        break;
    case WHY_EMPTY: plain_say(p, "The sentence is empty; nothing changed."); break;
    case WHY_TOO_LONG:
        plain_sayf(p, "Not used: %s%d tokens, the model reads at most %d; nothing was cut.",
                   ch->a ? "more than " : "", ch->a ? ch->to : ch->from, ch->to);
        break;
    case WHY_TOKENIZER:
        plain_sayf(p, "Not used: %s; nothing changed.", ch->detail);
        break;
    case WHY_TRAIN_DONE:
        plain_say(p, "Training is done: r resets, then m switches the mask, t trains again.");
        break;
    case WHY_TRAIN_STARTED: plain_say(p, "The mask is set before training: r resets, then m."); break;
    case WHY_NOTHING_TRAINED: plain_say(p, "Nothing trained yet: t trains."); break;
    case WHY_TRAIN_ERROR: plain_sayf(p, "Cannot train: %s", ch->detail); break;
    case WHY_BROKEN: case WHY_FIRST_PAGE: case WHY_LAST_PAGE: case WHY_END:
    case WHY_NO_LESSON: case WHY_NO_PAGE: case WHY_ONLY_LESSON:
    case WHY_NONE: break; /* pages: plain_page_change (plain.c) */
    }
}

/* What a change of a setting is called ("mask causal on"). */
static void what_changed(const Plain *p, const Change *ch, char *what, size_t n)
{
    const Session *s = p->s;
    WidgetKind k = session_kind(s);
    what[0] = '\0';
    switch (ch->req) {
    case REQ_TOGGLE_MASK:
        if (k == W_WORKED)
            snprintf(what, n, "%s", ch->to == 2 ? "mask applied after softmax (the mistake)"
                                    : ch->to ? "mask causal on" : "mask causal off");
        else
            snprintf(what, n, "mask causal %s", on_off(ch->to));
        break;
    case REQ_TOGGLE_PADDING: snprintf(what, n, "padding mask %s", on_off(ch->to)); break;
    case REQ_CYCLE_PE: snprintf(what, n, "positional encoding %s", model_pe_name((PeKind)ch->to)); break;
    case REQ_TOGGLE_SCALE: snprintf(what, n, "scaling by 1/sqrt(d_k) %s", on_off(ch->to)); break;
    case REQ_NEXT_HEAD: case REQ_PREV_HEAD: snprintf(what, n, "head %d of %d", ch->to, ch->a); break;
    case REQ_NEXT_LAYER: case REQ_PREV_LAYER: snprintf(what, n, "layer %d of %d", ch->to, ch->a); break;
    case REQ_TOGGLE_ALL_HEADS: snprintf(what, n, "%s", ch->to ? "all heads" : "one head"); break;
    case REQ_TOGGLE_SCORES: snprintf(what, n, "%s", ch->to ? "scores before softmax" : "weights"); break;
    case REQ_KNOCK_OUT:
        snprintf(what, n, "layer %d head %d %s", ch->a, ch->b, ch->to ? "knocked out" : "back in");
        break;
    case REQ_RESET: snprintf(what, n, "reset to the page's starting state"); break;
    case REQ_STEP_NEXT: case REQ_STEP_PREV:
        if (k == W_PASSPORT)
            snprintf(what, n, "step %d of %d", ch->to + 1, ch->a);
        else if (k == W_WORKED)
            snprintf(what, n, "step %d: %s", ch->to + 1, live_worked_step_name(ch->to));
        else if (k == W_KVCACHE)
            snprintf(what, n, "token %d", ch->to);
        else if (course_kind_is_probe(k))
            snprintf(what, n, "position %d of 0..%d", ch->to, ch->a - 1);
        else
            snprintf(what, n, "step %d", ch->to);
        break;
    case REQ_INCREASE: case REQ_DECREASE:
        if (k == W_GENERATE)
            snprintf(what, n, "temperature %.2f", (double)ch->fto);
        else
            snprintf(what, n, "%s %d", k == W_COST ? "N" : "d_k", ch->to);
        break;
    case REQ_TOGGLE_TIE: snprintf(what, n, "embeddings %s", ch->to ? "tied" : "untied"); break;
    case REQ_TOGGLE_GQA: snprintf(what, n, "grouped-query attention %s", on_off(ch->to)); break;
    case REQ_TOGGLE_SAMPLE: snprintf(what, n, "%s", ch->to ? "sampling" : "greedy"); break;
    case REQ_NEXT_SEED: snprintf(what, n, "seed %d", ch->to); break;
    case REQ_PICK_TENSOR: snprintf(what, n, "tensor %.39s", ch->detail); break;
    default: break;
    }
    if (ch->kind == CH_ORDER) {
        if (ch->a >= 0)
            snprintf(what, n, "swapped positions %d and %d", ch->a, ch->b);
        else
            snprintf(what, n, "original order");
    } else if (ch->kind == CH_SENTENCE) {
        const char *text = ch->b ? s->target : s->sentence;
        int k2 = snprintf(what, n, "sentence \"%.60s\", %d token%s", text, ch->to,
                          ch->to == 1 ? "" : "s");
        if (ch->a && k2 > 0 && (size_t)k2 < n)
            snprintf(what + k2, n - (size_t)k2, "; unknown, read as <unk>: %.200s", ch->detail);
    }
}

void plain_change(Plain *p, const Change *ch)
{
    Session *s = p->s;
    if (ch->kind == CH_NONE)
        return;
    if (ch->kind == CH_REFUSED) {
        say_refused(p, ch);
        return;
    }
    if (ch->kind == CH_TRAIN) { /* t itself is plain_train.c's: it trains to the end */
        if (ch->req == REQ_RESET && ch->b == 2)
            plain_say(p, "Back to the replay of the recorded training.");
        else if (ch->req == REQ_TOGGLE_MASK || (ch->req == REQ_RESET && !ch->b))
            plain_say(p, ch->to ? "causal mask on while training"
                                : "causal mask OFF while training: the cheating run");
        else if (ch->req == REQ_RESET)
            plain_sayf(p, "Reset: fresh weights from seed %d, step 0.", ch->a);
        else if (ch->req == REQ_SAVE)
            plain_sayf(p, "Wrote the trained model to %s.", ch->detail);
        else if (ch->req != REQ_TRAIN_RUN)
            plain_sayf(p, "The heatmap shows layer %d head %d.", ch->a, ch->b);
        return;
    }
    if (ch->kind == CH_PICK) {
        if (ch->to >= 0)
            plain_sayf(p, "Picked chip %d, %s: move to another and pick it to swap them.", ch->to,
                       vocab_word(&s->model->vocab, s->t->src[ch->to]));
        else
            plain_say(p, "Pick dropped.");
        return;
    }
    if (ch->kind == CH_CURSOR) {
        WidgetIO io;
        char cell[400];
        if (session_kind(s) == W_CHIPS) {
            plain_sayf(p, "Chip %d, %s%s.", s->chip_cur,
                       vocab_word(&s->model->vocab, s->t->src[s->chip_cur]),
                       s->chip_pick >= 0 ? " (a chip is picked)" : "");
            return;
        }
        session_io(s, &io);
        if (session_kind(s) == W_WORKED)
            io.tr.t = s->live.worked;
        if (describe_cell(&io, s->cur_r, s->cur_c, cell, sizeof cell))
            plain_say(p, cell);
        return;
    }
    static char change[2048];
    char what[400];
    WidgetIO io;
    session_io(s, &io);
    what_changed(p, ch, what, sizeof what);
    if (ch->kind == CH_KNOCK && ch->detail[0]) /* the course's words for it (ablation.c) */
        snprintf(change, sizeof change, "%s", ch->detail);
    else
        describe_diff_words(&ch->diff, &io, change, sizeof change);
    plain_sayf(p, "%s: %s%s", what, change, change[0] && change[strlen(change) - 1] == '.' ? ""
                                                                                         : ".");
    plain_say_widget(p);
    say_prose_changes(p);
}
