/* controls.c - what the shared widget controls do to the Controls and the view state: the
 * causal and padding masks, positional encoding, scaling, head and layer, all heads,
 * scores, knocking a head out, the sentence editor and reset (m d p s ] [ h H l L X a v e E r in
 * the key table).
 * Heatmap, chips, passport and matrix pages use them; the other views fall back on them
 * for the requests they do not handle themselves. */
#include "controls.h"

#include "ablation.h"

static void cycle(int *v, int n, int dir)
{
    *v = ((*v + dir) % n + n) % n;
}

int controls_request(App *a, Request req)
{
    ATTEND_ASSERT(a->model && app_view_ok(a)); /* only widget pages with a model get here */
    const ModelConfig *c = &a->model->cfg;
    switch (req) {
    case REQ_TOGGLE_MASK:
        a->ctl.causal = !a->ctl.causal;
        app_msg(a, 0, "causal mask %s", a->ctl.causal ? "on" : "off");
        break;
    case REQ_TOGGLE_PADDING:
        a->ctl.padding = !a->ctl.padding;
        app_msg(a, 0, "padding mask %s", a->ctl.padding ? "on" : "off");
        break;
    case REQ_CYCLE_PE: {
        int pe = (int)a->ctl.pe;
        cycle(&pe, PE__COUNT, 1);
        a->ctl.pe = (PeKind)pe;
        app_msg(a, 0, "positional encoding: %s", model_pe_name(a->ctl.pe));
        break;
    }
    case REQ_TOGGLE_SCALE:
        a->ctl.scale = !a->ctl.scale;
        app_msg(a, 0, "scaling by 1/√d_k %s", a->ctl.scale ? "on" : "off");
        break;
    case REQ_NEXT_HEAD:
    case REQ_PREV_HEAD:
        cycle(&a->head, c->n_heads, req == REQ_NEXT_HEAD ? 1 : -1);
        break;
    case REQ_NEXT_LAYER:
    case REQ_PREV_LAYER:
        cycle(&a->layer, c->n_layers, req == REQ_NEXT_LAYER ? 1 : -1);
        break;
    case REQ_TOGGLE_ALL_HEADS:
        a->all_heads = !a->all_heads;
        break;
    case REQ_KNOCK_OUT: { /* the head's output zeroed in the forward pass (Controls.ablate) */
        char words[sizeof a->msg];
        ATTEND_ASSERT(a->layer < ATTEND_MAX_LAYERS && a->head < 64); /* one bit a head */
        a->ctl.ablate[a->layer] ^= (uint64_t)1 << a->head;
        app_run(a);
        if (a->t && a->t->model && ablation_words(a->t, a->layer, a->head, words, sizeof words) == 0)
            app_msg(a, 0, "%s", words);
        return 1;
    }
    case REQ_TOGGLE_SCORES:
        a->scores = !a->scores;
        break;
    case REQ_EDIT:
    case REQ_EDIT_DECODER:
        /* E on a decoder-only model edits its one sentence, as e does */
        app_overlay_request(a, REQ_EDIT, req == REQ_EDIT_DECODER && c->arch == ARCH_ENCDEC);
        return 1;
    case REQ_RESET: {
        int layer = a->layer, head = a->head;
        app_reset_widget(a);
        if (a->w->kind != W_CHIPS) { /* keep the view, reset the controls */
            a->layer = layer;
            a->head = head;
        }
        app_msg(a, 0, "reset to the page's starting state");
        return 1;
    }
    default:
        return 0;
    }
    ATTEND_ASSERT(app_view_ok(a));
    app_run(a);
    return 1;
}
