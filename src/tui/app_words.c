/* app_words.c - a request sent to the Session (app_request) and the player's wording of its
 * Change (session.h): one short line for the status bar. Plain mode words the same Change at length (src/cli/plain_say.c); the
 * rule that made it is written once, in the Session. */
#include <string.h>

#include "app.h"

static const char *on_off(int v)
{
    return v ? "on" : "off";
}

static void refused(App *a, const Change *ch)
{
    WidgetKind k = session_kind(a->s);
    switch (ch->why) {
    case WHY_FIRST_STEP:
        app_msg(a, 0, "%s", k == W_PASSPORT ? "first step of the block"
                            : k == W_KVCACHE ? "first token"
                            : k == W_GENERATE ? "step 0: the prompt alone"
                            : course_kind_is_probe(k) ? "the first position" : "first step");
        break;
    case WHY_LAST_STEP:
        app_msg(a, 0, "%s", k == W_PASSPORT ? "last step of the block"
                            : k == W_KVCACHE ? "the whole sentence is generated"
                            : course_kind_is_probe(k) ? "the last position"
                                             : "last step: the output");
        break;
    case WHY_TEXT_DONE:
        app_msg(a, 0, "the text is finished: %s",
                ch->to == GEN_END_MAX_LEN ? "the model reads no more tokens"
                : ch->to == GEN_END_STOP ? "it ended with a full stop"
                                         : "the model chose to end it (<eos>)");
        break;
    case WHY_TOKEN_CAP:
        app_msg(a, 0, "the player runs at most %d tokens", ch->to);
        break;
    case WHY_RANGE:
        app_msg(a, 0, "%s stays in 1..%d", k == W_COST ? "N" : "d_k",
                k == W_COST ? LIVE_N_MAX : LIVE_DK_MAX);
        break;
    case WHY_NO_SWAP:
        app_msg(a, 0, "swapping is not part of this page");
        break;
    case WHY_BAD_SWAP:
        app_msg(a, 0, "swap needs two different positions from 0 to %d", ch->to);
        break;
    case WHY_NO_CELL:
        app_msg(a, 0, "no such cell");
        break;
    case WHY_NO_CURSOR:
        app_msg(a, 0, "this page has no cell to inspect");
        break;
    case WHY_ALL_HEADS:
        app_msg(a, 0, "every head is shown: a shows one head, whose cells the cursor reads");
        break;
    case WHY_GREEDY:
        app_msg(a, 0, "greedy decoding has no temperature or seed: t switches to sampling");
        break;
    case WHY_NO_TENSOR:
        app_msg(a, 0, "no tensor %s in this run", ch->detail);
        break;
    case WHY_EMPTY:
        app_msg(a, 0, "the sentence is empty");
        break;
    case WHY_TOO_LONG:
        app_msg(a, 0, "not used: %s%d tokens > %d (%s); nothing was cut",
                ch->a ? "more than " : "", ch->a ? ch->to : ch->from, ch->to, ch->detail);
        break;
    case WHY_TOKENIZER:
        app_msg(a, 0, "not used: %s", ch->detail);
        break;
    case WHY_TRAIN_DONE:
        app_msg(a, 0, "training is done: r resets, m switches the mask first");
        break;
    case WHY_TRAIN_STARTED:
        app_msg(a, 0, "the mask is set before training: r resets, then m");
        break;
    case WHY_NOTHING_TRAINED:
        app_msg(a, 0, "%s", session_train_repeat_page(a->s->model)
                                ? "nothing trained yet: t trains a fresh model live"
                                : "nothing trained yet: t starts training");
        break;
    case WHY_TRAIN_ERROR:
        app_msg(a, 1, "cannot train: %s", ch->detail);
        break;
    case WHY_BROKEN: case WHY_FIRST_PAGE: case WHY_LAST_PAGE: case WHY_END:
    case WHY_NO_LESSON: case WHY_NO_PAGE: case WHY_ONLY_LESSON:
    case WHY_NONE:
        break; /* pages: app_open_done (app.c), present_goto */
    }
}

static void live(App *a, const Change *ch)
{
    WidgetKind k = session_kind(a->s);
    switch (ch->req) {
    case REQ_TOGGLE_SCALE:
        if (k == W_SCALING)
            app_msg(a, 0, "the model %s its scores by 1/√d_k", ch->to ? "scales"
                                                                       : "does not scale");
        else
            app_msg(a, 0, "scaling by 1/√d_k %s", on_off(ch->to));
        break;
    case REQ_TOGGLE_MASK: /* the worked example's three masks */
        app_msg(a, 0, "%s", ch->to == 2 ? "mask applied AFTER softmax: the mistake"
                            : ch->to ? "causal mask on, before softmax" : "causal mask off");
        break;
    case REQ_TOGGLE_TIE:
        app_msg(a, 0, "embeddings %s", ch->to ? "tied" : "untied");
        break;
    case REQ_TOGGLE_GQA:
        app_msg(a, 0, "%d KV heads for %d query heads", ch->a, ch->b);
        break;
    case REQ_TOGGLE_SAMPLE:
        if (ch->to)
            app_msg(a, 0, "sampling at T=%g, seed %d: the same seed gives the same text",
                    (double)ch->fto, ch->a);
        else
            app_msg(a, 0, "greedy: always the most likely token");
        break;
    default: /* d_k, N, the temperature, the seed: the widget shows the new value */
        break;
    }
}

void app_change(App *a, const Change *ch)
{
    switch (ch->kind) {
    case CH_NONE:
        break;
    case CH_REFUSED:
        refused(a, ch);
        break;
    case CH_CONTROL:
        if (ch->req == REQ_TOGGLE_MASK)
            app_msg(a, 0, "causal mask %s", on_off(ch->to));
        else if (ch->req == REQ_TOGGLE_PADDING)
            app_msg(a, 0, "padding mask %s", on_off(ch->to));
        else if (ch->req == REQ_CYCLE_PE)
            app_msg(a, 0, "positional encoding: %s", model_pe_name((PeKind)ch->to));
        else if (ch->req == REQ_TOGGLE_SCALE)
            app_msg(a, 0, "scaling by 1/√d_k %s", on_off(ch->to));
        break;
    case CH_KNOCK:
        if (ch->detail[0])
            app_msg(a, 0, "%s", ch->detail);
        break;
    case CH_LIVE:
        live(a, ch);
        break;
    case CH_ORDER:
        if (ch->a >= 0)
            app_msg(a, 0, "swapped positions %d and %d", ch->a, ch->b);
        else
            app_msg(a, 0, "original order");
        break;
    case CH_SENTENCE:
        if (ch->a)
            app_msg(a, 1, "not in the model's vocabulary, shown as <unk>: %s", ch->detail);
        else
            app_msg(a, 0, "%d token%s", ch->to, ch->to == 1 ? "" : "s");
        break;
    case CH_RESET:
        app_msg(a, 0, "reset to the page's starting state");
        break;
    case CH_TRAIN:
        if (session_train_repeat_page(a->s->model)) { /* a replay page's live run */
            if (ch->req == REQ_TRAIN_RUN && ch->b)
                app_msg(a, 0, "training a fresh model live, seed %d: t pauses, q quits", ch->a);
            else if (ch->req == REQ_TRAIN_RUN)
                app_msg(a, 0, ch->to ? "training..." : "paused at step %d", ch->a);
            else if (ch->req == REQ_RESET)
                app_msg(a, 0, "the replay of the recorded training");
            else if (ch->req == REQ_SAVE)
                app_msg(a, 0, "saved %s (step %d); attend heads --model reads it", ch->detail,
                        ch->a);
            break;
        }
        if (ch->req == REQ_TRAIN_RUN)
            app_msg(a, 0, ch->to ? "training..." : "paused at step %d", ch->a);
        else if (ch->req == REQ_TOGGLE_MASK || (ch->req == REQ_RESET && !ch->b))
            app_msg(a, 0, "causal mask %s while training%s", ch->to ? "on" : "OFF",
                    ch->to ? "" : ": the cheating run");
        else if (ch->req == REQ_RESET)
            app_msg(a, 0, "reset: fresh weights from seed %d, step 0", ch->a);
        else if (ch->req == REQ_SAVE)
            app_msg(a, 0, "saved %s (step %d): attend dump --model %s", ch->detail, ch->a,
                    ch->detail);
        else
            app_msg(a, 0, "heatmap: layer %d head %d", ch->a, ch->b);
        break;
    case CH_PAGE: /* app_open_done (app.c) */
    case CH_STEP: case CH_PICK: case CH_CURSOR: case CH_TENSOR:
        break; /* the widget shows it */
    }
}

int app_request(App *a, Request req, const char *arg)
{
    Change ch;
    if (!session_request(a->s, req, arg, &ch))
        return 0;
    const ViewOps *v = app_cur_view(a);
    if (ch.kind == CH_SENTENCE && v->edited) /* the view's viewport follows the Session */
        v->edited(a, ch.b);
    if (ch.kind == CH_RESET && v->reset)
        v->reset(a);
    if (v->changed)
        v->changed(a, &ch);
    app_change(a, &ch);
    return 1;
}
