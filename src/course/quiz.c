/* quiz.c - the quiz session (quiz.h): a QuizItem from each typed Question (the page's widget
 * run through widget_run_start on the question's state, its answer read from that run), the
 * setup line that says what the engine answered on, and quiz sets in course order, seeded,
 * or due for review. No curses, no printing, no exit(). */
#include "quiz.h"
#include "errf.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lesson.h"
#include "names.h"
#include "widget.h"



/* The precision a placeholder body asks for (its last word ".N"), or -1. */
static int body_prec(const char *body)
{
    size_t n = strlen(body);
    while (n && isspace((unsigned char)body[n - 1]))
        n--;
    size_t k = n;
    while (k && !isspace((unsigned char)body[k - 1]))
        k--;
    if (k == 0 || n - k != 2 || body[k] != '.' || !isdigit((unsigned char)body[k + 1]))
        return -1;
    return body[k + 1] - '0';
}

/* Stack and sublayer a question's weights are read from (as the placeholders do: a trace
 * without a model, a worked example, is one decoder head). */
static void shown_where(const WidgetRun *r, Stack *st, Sublayer *sub)
{
    const Trace *t = r->ctx.trace;
    const Model *m = t && t->model ? t->model : r->ctx.model;
    *st = model_view_stack(m, r->ctx.cross);
    *sub = model_view_sub(m, r->ctx.cross);
}

static const TraceEntry *weights_of(const WidgetRun *r)
{
    const Trace *t = r->ctx.trace;
    if (!t)
        return NULL;
    Stack st;
    Sublayer sub;
    shown_where(r, &st, &sub);
    return trace_find(t, st, r->ctx.layer, sub, r->ctx.head, T_WEIGHTS);
}

/* The name of position i of the run's query side (rows) or key side (cols). */
static const char *pos_name(const WidgetRun *r, int i, int query)
{
    const Trace *t = r->ctx.trace;
    if (!t->model) /* a worked example: its labels */
        return r->ctx.labels && i < r->ctx.n_labels ? r->ctx.labels[i] : "?";
    const int *ids = t->src;
    if (query)
        trace_view_rows(t, r->ctx.cross, &ids);
    return vocab_word(&t->model->vocab, ids[i]);
}

/* 1 when a number question's answer can be read off its grid: a cell that prints it (2
 * decimals) or, for an answer of 0, a masked cell ("·" is a weight of 0). */
static int grid_shows_answer(const QuizItem *it)
{
    double tol = it->tol > 0.005 ? it->tol : 0.005;
    for (int i = 0; i < it->grid_n * it->grid_m; i++)
        if ((it->grid_masked[i] && fabs(it->number) <= tol) ||
            (!it->grid_masked[i] && fabs((double)it->grid[i] - it->number) <= tol))
            return 1;
    return 0;
}

static void fill_grid(QuizItem *it, const WidgetRun *r)
{
    const TraceEntry *e = weights_of(r);
    it->grid_n = it->grid_m = 0;
    if (!e || e->rows > QUIZ_GRID_MAX || e->cols > QUIZ_GRID_MAX)
        return;
    it->grid_n = e->rows;
    it->grid_m = e->cols;
    memcpy(it->grid, e->data, sizeof(float) * (size_t)(e->rows * e->cols));
    Stack st;
    Sublayer sub;
    shown_where(r, &st, &sub);
    const TraceEntry *mask = trace_find(r->ctx.trace, st, r->ctx.layer, sub, -1, T_MASK);
    for (int i = 0; i < e->rows; i++)
        for (int j = 0; j < e->cols; j++) {
            float mv = mask && i < mask->rows && j < mask->cols
                           ? mask->data[(size_t)i * mask->cols + j] : 0.0f;
            it->grid_masked[i * e->cols + j] = isinf(mv) && mv < 0;
        }
    for (int i = 0; i < e->rows; i++)
        snprintf(it->grid_rows[i], sizeof it->grid_rows[i], "%s", pos_name(r, i, 1));
    for (int j = 0; j < e->cols; j++)
        snprintf(it->grid_cols[j], sizeof it->grid_cols[j], "%s", pos_name(r, j, 0));
}

/* Appends to a fixed buffer (cut when full). */
static void cat(char *dst, size_t cap, const char *fmt, ...)
{
    size_t o = strlen(dst);
    if (o + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst + o, cap - o, fmt, ap);
    va_end(ap);
}

/* The words of a run's sequence (as run, after any reordering). */
static void run_words(const Trace *t, const int *ids, int n, char *out, size_t cap)
{
    out[0] = 0;
    for (int i = 0; i < n; i++)
        cat(out, cap, "%s%s", i ? " " : "", vocab_word(&t->model->vocab, ids[i]));
}

/* "layer 0 of 2, head 1 of 4" (both counted from 0, as the player shows them). */
static void layer_head(char *dst, size_t cap, const Model *m, int layer, int head)
{
    cat(dst, cap, "; layer %d of %d, head %d of %d", layer, m->cfg.n_layers, head,
        m->cfg.n_heads);
}

/* The question's setup in one line, for answers the engine computes: what "this sentence"
 * and "this head" mean without the page in view. */
/* The setup line of an explanation widget's question; 0 when w is a model widget. */
static int context_explain(char *c, size_t cap, const WidgetRun *r, const Model *m)
{
    const Widget *w = &r->w;
    const LiveState *ls = &r->live.s;
    switch (w->kind) {
    case W_WORKED: {
        const WorkedSpec *ws = &w->worked;
        /* the matrices themselves when they fit on the line, else their shapes */
        const float *mat[3] = {ws->q, ws->k, ws->v};
        const int rows[3] = {ws->nq, ws->nk, ws->nk}, cols[3] = {ws->dk, ws->dk, ws->dv};
        const char *nm[3] = {"Q", "K", "V"};
        snprintf(c, cap, "The worked example:");
        for (int k = 0; k < 3; k++) {
            cat(c, cap, "%s %s = [", k ? "," : "", nm[k]);
            for (int i = 0; i < rows[k]; i++) {
                cat(c, cap, "%s[", i ? ", " : "");
                for (int j = 0; j < cols[k]; j++)
                    cat(c, cap, "%s%g", j ? ", " : "", (double)mat[k][i * cols[k] + j]);
                cat(c, cap, "]");
            }
            cat(c, cap, "]");
        }
        if (strlen(c) > 200)
            snprintf(c, cap, "The worked example: Q %d×%d, K %d×%d, V %d×%d", ws->nq, ws->dk,
                     ws->nk, ws->dk, ws->nk, ws->dv);
        int np = ws->nq > ws->nk ? ws->nq : ws->nk, named = 0;
        for (int i = 0; i < np; i++) {
            char dflt[16];
            snprintf(dflt, sizeof dflt, "t%d", i);
            named |= strcmp(ws->labels[i], dflt) != 0;
        }
        if (named) {
            cat(c, cap, " (positions");
            for (int i = 0; i < np; i++)
                cat(c, cap, " %s", ws->labels[i]);
            cat(c, cap, ")");
        }
        cat(c, cap, "; mask %s; scaling by 1/√d_k %s", ls->causal ? "causal" : "none",
            ls->scale ? "on" : "off");
        return 1;
    }
    case W_SCALING:
        snprintf(c, cap, "The scaling experiment: d_k = %d; scaling by 1/√d_k %s", ls->d_k,
                 ls->scale ? "on" : "off");
        return 1;
    case W_COST:
        snprintf(c, cap, "N = %lld token%s on %s (%d layer%s, %d heads, d_k = %d)", ls->n,
                 ls->n == 1 ? "" : "s", m->cfg.name[0] ? m->cfg.name : "the page's model", m->cfg.n_layers,
                 m->cfg.n_layers == 1 ? "" : "s", m->cfg.n_heads, m->cfg.d_head);
        return 1;
    case W_PARAMS: {
        const ParamConfig *pc = &r->live.pc;
        /* the name quoted, so that any name reads well: Configuration: "the exercise"
         * (d_model 2560, ...) */
        snprintf(c, cap, "Configuration: ");
        if (w->params_name[0])
            cat(c, cap, "\"%s\" (", w->params_name);
        cat(c, cap, "d_model %lld, %lld layer%s, %lld heads", pc->d_model, pc->n_layers,
            pc->n_layers == 1 ? "" : "s", pc->n_heads);
        if (pc->n_kv_heads < pc->n_heads)
            cat(c, cap, ", grouped-query attention with %lld KV heads", pc->n_kv_heads);
        if (w->params_name[0])
            cat(c, cap, ")");
        cat(c, cap, "; embeddings %s", pc->tied ? "tied" : "not tied");
        return 1;
    }
    default:
        return 0;
    }
}

/* The tensor a computed answer reads by name ("value dec.L0.h0.weights 1 2", "shape
 * L0.h0.q", "entries ..."), or NULL when it reads the widget's own attention. */
static const TraceEntry *answer_entry(const WidgetRun *r, const char *compute)
{
    char name[64];
    const Trace *t = r->io.tr.t;
    if (!t || !compute || (sscanf(compute, "value %63s", name) != 1 &&
                           sscanf(compute, "shape %63s", name) != 1 &&
                           sscanf(compute, "entries %63s", name) != 1))
        return NULL;
    return trace_find_name(t, name);
}

static void make_context(QuizItem *it, const WidgetRun *r, const Model *m, const char *compute)
{
    const Widget *w = &r->w;
    const WidgetStart *s = &w->start;
    const LiveState *ls = &r->live.s;
    char *c = it->context;
    size_t cap = sizeof it->context;
    c[0] = 0;
    if (context_explain(c, cap, r, m))
        return;
    const Trace *t = r->io.tr.t;
    if (!t || !t->model)
        return;
    char words[300];
    if (w->kind == W_KVCACHE) {
        run_words(t, r->src, r->live.n_tokens, words, sizeof words);
        snprintf(c, cap, "Sentence \"%s\"; step %d of %d (the first %d token%s run, their keys "
                 "and values cached)", words, ls->step, r->live.n_tokens, ls->step,
                 ls->step == 1 ? "" : "s");
        layer_head(c, cap, m, s->layer, s->head);
        return;
    }
    if (w->kind == W_GENERATE) {
        char prompt[300];
        const GenStep *g = &r->live.gen;
        run_words(t, t->src, g->n_prompt, prompt, sizeof prompt);
        run_words(t, t->src, t->n, words, sizeof words);
        c[0] = 0; /* cat: the words may fill the line, which is then cut */
        cat(c, cap, "Prompt \"%s\" continued by %d token%s (\"%s\"), ", prompt, g->step,
            g->step == 1 ? "" : "s", words);
        if (ls->sample)
            cat(c, cap, "sampling at temperature %g with seed %d", (double)ls->temp, ls->seed);
        else
            cat(c, cap, "greedy");
        layer_head(c, cap, m, s->layer, s->head);
        return;
    }
    int moved = 0;
    for (int i = 0; i < t->n; i++)
        moved |= t->order[i] != i;
    if (moved) { /* t->src holds the words as run: undo the order for the sentence */
        words[0] = 0;
        for (int i = 0; i < t->n; i++)
            for (int k = 0; k < t->n; k++)
                if (t->order[k] == i)
                    cat(words, sizeof words, "%s%s", i ? " " : "",
                        vocab_word(&m->vocab, t->src[k]));
        snprintf(c, cap, "Sentence \"%s\" run in the order", words);
        for (int i = 0; i < t->n; i++)
            cat(c, cap, " %d", t->order[i]);
        run_words(t, t->src, t->n, words, sizeof words);
        cat(c, cap, " (\"%s\")", words);
    } else {
        run_words(t, t->src, t->n, words, sizeof words);
        snprintf(c, cap, "Sentence \"%s\"", words);
    }
    if (m->cfg.arch == ARCH_ENCDEC && t->m > 0) {
        run_words(t, t->tgt, t->m, words, sizeof words);
        cat(c, cap, ", target \"%s\"", words);
    }
    /* the padding mask only matters when the sentence has <pad> tokens */
    int pads = 0;
    for (int i = 0; i < t->n; i++)
        pads |= t->src[i] == m->vocab.pad_id;
    for (int i = 0; i < t->m; i++)
        pads |= t->tgt[i] == m->vocab.pad_id;
    /* the mask applied where the question reads: no causal mask on an encoder-decoder's
     * encoder or cross-attention (the player's status line says the same) */
    /* the mask of the sublayer the answer reads: a tensor named in "compute" (the decoder's
     * self-attention of an encoder-decoder, say), else the one the widget shows */
    Stack st;
    Sublayer sub;
    shown_where(r, &st, &sub);
    const TraceEntry *e = answer_entry(r, compute);
    int layer = s->layer, head = s->head;
    if (e && e->layer >= 0 && e->sub != SUB_NONE && e->sub != SUB_FFN) {
        st = e->stack;
        sub = e->sub;
        layer = e->layer;
        head = e->head >= 0 ? e->head : head;
    }
    cat(c, cap, "; mask %s; PE %s",
        names_sublayer_mask(m, st, sub, t->ctl.causal, t->ctl.padding && pads),
        model_pe_name(t->ctl.pe));
    if (!t->ctl.scale)
        cat(c, cap, "; scaling off");
    if (e && e->layer >= 0)
        cat(c, cap, "; %s", e->name);
    else if (s->cross)
        cat(c, cap, "; cross-attention");
    layer_head(c, cap, m, layer, head);
}

/* A drill that opens with "By hand: the ..." after a lead-in that already says "by hand"
 * reads "The ..." instead. */
static void drop_repeat(QuizItem *it)
{
    static const char OPEN[] = "By hand: ";
    size_t n = strlen(OPEN);
    int said = 0;
    for (const char *p = it->lead; *p && !said; p++)
        said = !strncasecmp(p, "by hand", 7);
    if (!said || strncmp(it->prompt, OPEN, n) || !it->prompt[n])
        return;
    memmove(it->prompt, it->prompt + n, strlen(it->prompt + n) + 1);
    it->prompt[0] = (char)toupper((unsigned char)it->prompt[0]);
}

/* Where a question sits in its course, and the quiz's seed (choices are shown in the seed's
 * order). */
typedef struct {
    const Course *c;
    int li, pi, qi;
    uint64_t seed;
} QuestionAt;

/* Where question (li, pi, qi) stands among the course's choice questions (course order), and
 * how many there are; -1 when it is not one. */
static int choice_ordinal(const Course *c, int li, int pi, int qi, int *total)
{
    int k = 0, at = -1;
    for (int l = 0; l < c->n_lessons; l++) {
        const Lesson *L = &c->lessons[l];
        for (int p = 0; !L->broken && p < L->n_pages; p++)
            for (int q = 0; q < L->pages[p].n_questions; q++) {
                const Question *Q = &L->pages[p].questions[q];
                if (!Q->ok || Q->kind != QK_CHOICE)
                    continue;
                if (l == li && p == pi && q == qi)
                    at = k;
                k++;
            }
    }
    *total = k;
    return at;
}

/* The shown order of a question's choices for a seed: order[shown] = the author's index. A
 * choice question's right answer lands on position rank % n, rank being the question's place
 * in a seeded permutation of the course's choice questions, so over the course every position
 * holds the right answer about equally often for every seed; the other choices, and a multi
 * question's, in a seeded random order. The same course, question and seed: the same order. */
static void choice_order(int *order, const QuizItem *it, const Question *Q, QuestionAt qa)
{
    uint64_t seed = qa.seed;
    int n = Q->n_choices;
    QuizRng r;
    quiz_rng_seed(&r, quiz_hash(it->key, seed ^ 0xC401CEull));
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = quiz_rng_range(&r, 0, i), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    int total, at = it->kind == QK_CHOICE ? choice_ordinal(qa.c, qa.li, qa.pi, qa.qi, &total) : -1;
    if (at < 0)
        return;
    /* the rank of `at` in the seeded permutation of 0..total-1 (Fisher-Yates, followed) */
    QuizRng pr;
    quiz_rng_seed(&pr, quiz_hash("choice positions", seed));
    int *perm = malloc(sizeof *perm * (size_t)total);
    int rank = at;
    if (perm) {
        for (int i = 0; i < total; i++)
            perm[i] = i;
        for (int i = total - 1; i > 0; i--) {
            int j = quiz_rng_range(&pr, 0, i), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (int i = 0; i < total; i++)
            if (perm[i] == at)
                rank = i;
        free(perm);
    }
    int right = 0;
    while (right < n - 1 && !(Q->correct & (1u << right)))
        right++;
    int want = rank % n, now = 0;
    while (order[now] != right)
        now++;
    order[now] = order[want];
    order[want] = right;
}

/* The expected answer of a choice or multi question, from the author's choices in the seed's
 * order (choice_order). */
static void answer_choices(QuizItem *it, const Question *Q, QuestionAt qa)
{
    assert(Q->n_choices >= 2 && Q->n_choices <= QUIZ_MAX_CHOICES && Q->correct);
    it->n_choices = Q->n_choices;
    int order[QUIZ_MAX_CHOICES];
    choice_order(order, it, Q, qa);
    it->correct = 0;
    for (int i = 0; i < it->n_choices; i++) {
        memcpy(it->choices[i], Q->choices[order[i]], sizeof it->choices[i]);
        memcpy(it->why[i], Q->why[order[i]], sizeof it->why[i]); /* follows its choice */
        if (Q->correct & (1u << order[i]))
            it->correct |= 1u << i;
    }
    if (it->kind == QK_CHOICE) {
        int a = 0;
        while (a < QUIZ_MAX_CHOICES - 1 && !(it->correct & (1u << a)))
            a++;
        snprintf(it->answer, sizeof it->answer, "%d (%s)", a + 1, it->choices[a]);
        return;
    }
    size_t o = 0;
    for (int i = 0; i < it->n_choices; i++)
        if (it->correct & (1u << i))
            o += (size_t)snprintf(it->answer + o, o < sizeof it->answer ? sizeof it->answer - o
                                                                        : 0,
                                  "%s%d", o ? " " : "", i + 1);
}

/* A number question: the author's value, or the placeholder's on the question's run (a
 * whole-number placeholder such as {{entries}} is exact when no tolerance is given). */
static int answer_number(QuizItem *it, const Question *Q, const WidgetRun *r, char *err,
                         size_t errlen)
{
    const char *body = Q->compute[0] ? Q->compute : NULL;
    it->tol = Q->has_tolerance ? Q->tolerance : 0.005;
    if (body) {
        int exact = 0;
        if (placeholder_number(body, &r->ctx, &it->number, Q->has_tolerance ? NULL : &exact,
                               err, errlen))
            return -1;
        if (exact)
            it->tol = 0;
    } else {
        it->number = Q->number;
    }
    quiz_format_number(it->number, it->tol, body ? body_prec(body) : -1, it->answer,
                       sizeof it->answer);
    return 0;
}

/* A shape question: the author's sizes, or the shape the placeholder prints. */
static int answer_shape(QuizItem *it, const Question *Q, const WidgetRun *r, char *err,
                        size_t errlen)
{
    if (Q->compute[0]) {
        char out[128], perr[300];
        PlaceholderCtx ctx = r->ctx;
        ctx.ascii = 1;
        if (placeholder_value(Q->compute, &ctx, out, sizeof out, err, errlen))
            return -1;
        int rank = quiz_parse_shape(out, it->dims, perr, sizeof perr);
        if (rank < 0)
            return errf(err, errlen, "%s: compute {{%s}} gives \"%s\", not a shape", it->key,
                        Q->compute, out);
        it->rank = rank;
    } else {
        it->rank = Q->rank;
        memcpy(it->dims, Q->dims, sizeof it->dims);
    }
    size_t o = 0;
    for (int i = 0; i < it->rank; i++)
        o += (size_t)snprintf(it->answer + o, o < sizeof it->answer ? sizeof it->answer - o : 0,
                              "%s%d", i ? "×" : "", it->dims[i]);
    return 0;
}

/* A cell question: the key column of the question's row, with the weights for the grid. */
static int answer_cell(QuizItem *it, const Question *Q, const WidgetRun *r, char *err,
                       size_t errlen)
{
    it->row = Q->row;
    fill_grid(it, r);
    const TraceEntry *e = weights_of(r);
    if (!e)
        return errf(err, errlen, "%s: a cell question needs a page that runs a sentence",
                    it->key);
    it->n_cols = e->cols;
    if (it->row >= e->rows)
        return errf(err, errlen, "%s: row %d out of range 0..%d", it->key, it->row,
                    e->rows - 1);
    double v = Q->col;
    if (Q->compute[0] && placeholder_number(Q->compute, &r->ctx, &v, NULL, err, errlen))
        return -1;
    if (v != floor(v) || v < 0 || v >= e->cols)
        return errf(err, errlen, "%s: the answer %g is not a key column 0..%d", it->key, v,
                    e->cols - 1);
    it->col = (int)v;
    snprintf(it->answer, sizeof it->answer, "column %d (\"%s\")", it->col,
             it->grid_m ? it->grid_cols[it->col] : "?");
    return 0;
}

/* A drill question: the drill generated from the seed, under the lesson's key, its prompt as
 * the lead-in, its hints and explanation after the drill's own. */
static int item_drill(QuizItem *it, const Question *Q, const Course *c, uint64_t seed,
                      char *err, size_t errlen)
{
    QuizItem keep = *it;
    if (quiz_drill(it, Q->drill, c, quiz_hash(keep.key, seed), err, errlen))
        return -1;
    snprintf(it->key, sizeof it->key, "%s", keep.key);
    snprintf(it->lesson, sizeof it->lesson, "%s", keep.lesson);
    it->lesson_index = keep.lesson_index;
    snprintf(it->lead, sizeof it->lead, "%s", keep.prompt);
    drop_repeat(it);
    for (int i = 0; i < keep.n_hints && it->n_hints < QUIZ_MAX_HINTS; i++)
        snprintf(it->hints[it->n_hints++], sizeof it->hints[0], "%s", keep.hints[i]);
    if (keep.explain[0])
        snprintf(it->explain + strlen(it->explain), sizeof it->explain - strlen(it->explain),
                 "%s%s", it->explain[0] ? " " : "", keep.explain);
    return 0;
}

/* The choices' "why" with their placeholders computed on the question's run r. */
static int expand_why(QuizItem *it, const WidgetRun *r, char *err, size_t errlen)
{
    for (int i = 0; i < it->n_choices; i++) {
        if (!it->why[i][0] || !strstr(it->why[i], "{{"))
            continue;
        char raw[sizeof it->why[0]], perr[300];
        memcpy(raw, it->why[i], sizeof raw);
        if (placeholder_expand(raw, &r->ctx, it->why[i], sizeof it->why[i], perr, sizeof perr))
            return errf(err, errlen, "%s: why: %s", it->key, perr);
    }
    return 0;
}

/* The answer of Q on its run r, by kind. */
static int item_answer(QuizItem *it, const Question *Q, const WidgetRun *r, QuestionAt at,
                       char *err, size_t errlen)
{
    switch (it->kind) {
    case QK_CHOICE:
    case QK_MULTI:
        answer_choices(it, Q, at);
        return 0;
    case QK_NUMBER:
        return answer_number(it, Q, r, err, errlen);
    case QK_SHAPE:
        return answer_shape(it, Q, r, err, errlen);
    case QK_CELL:
        return answer_cell(it, Q, r, err, errlen);
    case QK_TEXT:
        assert(Q->n_text >= 1 && Q->n_text <= QUIZ_MAX_TEXT);
        for (int i = 0; i < Q->n_text; i++)
            quiz_normalise(Q->text[i], it->text[i], sizeof it->text[0]);
        it->n_text = Q->n_text;
        snprintf(it->answer, sizeof it->answer, "%s", Q->text[0]);
        return 0;
    default:
        return errf(err, errlen, "%s: the question is incomplete (check-lessons says why)",
                    it->key);
    }
}

int quiz_item_from_question(QuizItem *it, const Course *c, int li, int pi, int qi,
                            uint64_t seed, char *err, size_t errlen)
{
    if (li < 0 || li >= c->n_lessons || c->lessons[li].broken)
        return errf(err, errlen, "no such lesson");
    const Lesson *L = &c->lessons[li];
    if (pi < 0 || pi >= L->n_pages || qi < 0 || qi >= L->pages[pi].n_questions)
        return errf(err, errlen, "no such question");
    const Page *P = &L->pages[pi];
    const Question *Q = &P->questions[qi];
    memset(it, 0, sizeof *it);
    it->lesson_index = li;
    it->row = -1;
    snprintf(it->lesson, sizeof it->lesson, "%s", L->id);
    snprintf(it->key, sizeof it->key, "%s/%s", L->id, Q->id[0] ? Q->id : "?");
    if (!Q->ok)
        return errf(err, errlen, "%s: the question is incomplete (check-lessons says why)",
                    it->key);
    it->kind = Q->kind;
    snprintf(it->explain, sizeof it->explain, "%s", Q->explain);
    assert(Q->n_hints >= 0 && Q->n_hints < QUIZ_MAX_HINTS);
    it->n_hints = Q->n_hints;
    for (int i = 0; i < Q->n_hints; i++)
        snprintf(it->hints[i], sizeof it->hints[0], "%s", Q->hints[i]);
    const Model *m = lesson_model(c, P);
    if (!m)
        return errf(err, errlen, "%s: the page's model did not load", it->key);
    if (Q->n_state_problems)
        return errf(err, errlen, "%s", Q->state_problems[0].msg);
    Widget w = P->widget;
    if (Q->has_state)
        course_apply_delta(&w.start, &Q->state);
    WidgetRun r;
    if (widget_run_start(&r, &w, m, err, errlen)) {
        widget_run_free(&r);
        return -1;
    }
    int rc = -1;
    char perr[300];
    if (placeholder_expand(Q->prompt, &r.ctx, it->prompt, sizeof it->prompt, perr,
                           sizeof perr)) {
        errf(err, errlen, "%s: prompt: %s", it->key, perr);
    } else if (it->kind == QK_DRILL) {
        rc = item_drill(it, Q, c, seed, err, errlen);
    } else if (!item_answer(it, Q, &r, (QuestionAt){c, li, pi, qi, seed}, err, errlen) &&
               !expand_why(it, &r, err, errlen)) {
        /* the setup line, for answers the engine computes on the page's sentence or numbers */
        if (Q->compute[0] || it->kind == QK_CELL || strstr(Q->prompt, "{{"))
            make_context(it, &r, m, Q->compute);
        /* a number read off the page's weights: the figure the class quiz shows the room
         * (the learner's quiz and the key draw a grid for cell questions only) */
        if (it->kind == QK_NUMBER && it->context[0] && r.ctx.trace && r.ctx.trace->model) {
            fill_grid(it, &r);
            if (grid_shows_answer(it))
                it->grid_n = it->grid_m = 0; /* the room would read the answer off it */
        }
        rc = 0;
    }
    widget_run_free(&r);
    return rc;
}

/* ---- sets ---- */

static QuizItem *set_push(QuizSet *s)
{
    if (s->n == s->cap) {
        int nc = s->cap ? s->cap * 2 : 16;
        QuizItem *ni = realloc(s->items, sizeof *ni * (size_t)nc);
        if (!ni)
            return NULL;
        s->items = ni;
        s->cap = nc;
    }
    return &s->items[s->n];
}

int quiz_set_start_at(QuizSet *s, const char *lesson, const char *id)
{
    char key[sizeof s->items[0].key];
    snprintf(key, sizeof key, "%s/%s", lesson, id);
    int k = 0;
    while (k < s->n && strcmp(s->items[k].key, key))
        k++;
    if (k == 0 || k == s->n)
        return k < s->n ? 0 : -1;
    /* rotate left by k, one item at a time through a spare slot: no allocation */
    for (int r = 0; r < k; r++) {
        QuizItem first;
        memcpy(&first, &s->items[0], sizeof first);
        memmove(&s->items[0], &s->items[1], sizeof s->items[0] * (size_t)(s->n - 1));
        memcpy(&s->items[s->n - 1], &first, sizeof first);
    }
    return 0;
}

void quiz_set_free(QuizSet *s)
{
    free(s->items);
    memset(s, 0, sizeof *s);
}

typedef struct {
    int li, pi, qi;
    int drill;
} QRef;

static int add_item(QuizSet *s, const Course *c, QRef q, uint64_t seed)
{
    QuizItem *it = set_push(s);
    if (!it)
        return -1;
    char err[600];
    if (quiz_item_from_question(it, c, q.li, q.pi, q.qi, seed, err, sizeof err)) {
        if (!s->n_skipped++)
            snprintf(s->skipped, sizeof s->skipped, "%s", err);
        return 0;
    }
    s->n++;
    return 0;
}

int quiz_build(QuizSet *s, const Course *c, const char *lesson, int count, uint64_t seed,
               char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->seed = seed;
    int only = -1;
    if (lesson && *lesson) {
        char why[300];
        only = lesson_lookup(c, lesson, why, sizeof why);
        if (only < 0)
            return errf(err, errlen, "%s", why);
        if (c->lessons[only].broken)
            return errf(err, errlen, "lesson \"%s\" is broken: %s", lesson,
                        c->lessons[only].error);
        snprintf(s->title, sizeof s->title, "%s", c->lessons[only].title);
    } else {
        snprintf(s->title, sizeof s->title, "all lessons");
    }
    int nq = 0, nd = 0;
    for (int pass = 0; pass < 2; pass++) {
        QRef *refs = NULL;
        if (pass == 1) {
            refs = calloc((size_t)(nq ? nq : 1), sizeof *refs);
            if (!refs)
                return errf(err, errlen, "out of memory");
        }
        int k = 0;
        nd = 0;
        for (int li = 0; li < c->n_lessons; li++) {
            const Lesson *L = &c->lessons[li];
            if (L->broken || (only >= 0 && li != only))
                continue;
            for (int pi = 0; pi < L->n_pages; pi++)
                for (int qi = 0; qi < L->pages[pi].n_questions; qi++) {
                    int drill = L->pages[pi].questions[qi].ok &&
                                L->pages[pi].questions[qi].kind == QK_DRILL;
                    nd += drill;
                    if (refs)
                        refs[k] = (QRef){li, pi, qi, drill};
                    k++;
                }
        }
        if (pass == 0) {
            nq = k;
            /* a course whose questions all come from one lesson: use its title */
            int from = -1, one = 1;
            for (int li = 0; li < c->n_lessons && only < 0; li++) {
                const Lesson *L = &c->lessons[li];
                int has = 0;
                for (int pi = 0; !L->broken && pi < L->n_pages; pi++)
                    has |= L->pages[pi].n_questions > 0;
                if (has && from >= 0)
                    one = 0;
                if (has && from < 0)
                    from = li;
            }
            if (only < 0 && from >= 0 && one)
                snprintf(s->title, sizeof s->title, "%s", c->lessons[from].title);
            if (nq == 0)
                return errf(err, errlen, "%s has no questions", only >= 0 ? lesson
                                                                         : "the course");
            continue;
        }
        if (count <= 0) {
            for (int i = 0; i < nq; i++)
                if (add_item(s, c, refs[i], seed)) {
                    free(refs);
                    return errf(err, errlen, "out of memory");
                }
        } else {
            QuizRng r;
            quiz_rng_seed(&r, seed ^ 0x51u);
            for (int i = nq - 1; i > 0; i--) { /* Fisher-Yates with the quiz's seed */
                int j = quiz_rng_range(&r, 0, i);
                QRef t = refs[i];
                refs[i] = refs[j];
                refs[j] = t;
            }
            for (int i = 0; i < count && i < nq; i++)
                if (add_item(s, c, refs[i], seed)) {
                    free(refs);
                    return errf(err, errlen, "out of memory");
                }
            /* more than the questions: drills again, with fresh numbers */
            for (int extra = 0, round = 1; nd > 0 && nq + extra < count; round++)
                for (int i = 0; i < nq && nq + extra < count; i++) {
                    if (!refs[i].drill)
                        continue;
                    if (add_item(s, c, refs[i], quiz_hash("again", seed + (uint64_t)round))) {
                        free(refs);
                        return errf(err, errlen, "out of memory");
                    }
                    extra++;
                }
        }
        free(refs);
    }
    if (s->n == 0) {
        errf(err, errlen, "no question could be built: %s", s->skipped);
        quiz_set_free(s);
        return -1;
    }
    return 0;
}

int quiz_build_review(QuizSet *s, const Course *c, const Progress *p, long now, int count,
                      uint64_t seed, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->seed = seed;
    snprintf(s->title, sizeof s->title, "review");
    int n;
    QuizDue *d = quiz_due_list(p, now, &n);
    if (!d)
        return errf(err, errlen, "out of memory");
    for (int i = 0; i < n && (count <= 0 || s->n < count); i++) {
        char lesson[100];
        snprintf(lesson, sizeof lesson, "%s", d[i].key);
        char *slash = strchr(lesson, '/');
        if (!slash)
            continue;
        *slash = 0;
        const char *qid = slash + 1;
        int li = lesson_find(c, lesson);
        if (li < 0 || c->lessons[li].broken)
            continue; /* a question of a lesson that is gone or broken waits */
        const Lesson *L = &c->lessons[li];
        int found = 0;
        for (int pi = 0; pi < L->n_pages && !found; pi++)
            for (int qi = 0; qi < L->pages[pi].n_questions && !found; qi++)
                if (!strcmp(L->pages[pi].questions[qi].id, qid)) {
                    found = 1;
                    if (add_item(s, c, (QRef){li, pi, qi, 0}, seed)) {
                        free(d);
                        quiz_set_free(s);
                        return errf(err, errlen, "out of memory");
                    }
                }
    }
    free(d);
    return 0;
}
