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
                            : k == W_GENERATE ? "step 0: the prompt alone" : "first step");
        break;
    case WHY_LAST_STEP:
        app_msg(a, 0, "%s", k == W_PASSPORT ? "last step of the block"
                            : k == W_KVCACHE ? "the whole sentence is generated"
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
        app_msg(a, 0, "not used: %d tokens > %d (%s); nothing was cut", ch->from, ch->to,
                ch->detail);
        break;
    case WHY_BROKEN: case WHY_FIRST_PAGE: case WHY_LAST_PAGE: case WHY_END:
    case WHY_NONE:
        break; /* pages: app.c's page_words */
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
    case CH_PAGE: /* app.c's page_words */
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
    app_change(a, &ch);
    return 1;
}
