/* model_report.c - writes docs/model-report.md: each shipped model's held-out loss and what its
 * attention heads do, measured on held-out text (run by `make models`; docs/training.md).
 *
 *   model_report [--lines N] MODEL:EVAL[:TRAIN] ...
 *
 * For a decoder, EVAL is a held-out text (one sentence a line); each of its first N lines (that
 * fit max_len) is run alone from position 0, and the report gives the loss of predicting every
 * next token (nats per token and per word: a WordPiece word may be several tokens), a unigram
 * baseline from TRAIN's token counts when given, and per head the mean weight a row puts on the
 * previous token, the first token, itself, the earlier pieces of its own word (rows that
 * continue a word) and earlier copies of its own token (rows whose word came before), each
 * beside what uniform attention over the same keys would give. An encoder reads EVAL in both
 * directions (the next token too); an encoder-decoder reads EVAL as pairs, and its
 * cross-attention alignment is reported. Losses the trainer measured come from the model
 * file's "training" object. Output: Markdown on stdout, the same bits for the same files. */
#include "corpus.h"
#include "model.h"
#include "train.h"
#include "vocab.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One head's sums: weight on a kind of key, what uniform attention would give, rows counted. */
enum { S_PREV, S_FIRST, S_SELF, S_NEXT, S_PIECE, S_COPY, N_SCORES };
static const char *const SCORE_NAMES[N_SCORES] = {
    "previous token", "first token", "itself", "next token", "own word's pieces",
    "earlier copies"};

typedef struct {
    double w[N_SCORES], uni[N_SCORES];
    long rows[N_SCORES];
} Sums;

/* 1 if id is a word token (not punctuation, not a special token, not a continuation). */
static int is_word(const Vocab *v, int id)
{
    const char *w = vocab_word(v, id);
    return !vocab_joins_prev(v, id) && w[0] != '<' &&
           !((unsigned char)w[0] < 128 && ispunct((unsigned char)w[0]) && !w[1]);
}

/* Adds one head's weights (n x n, causal or not) on sentence ids to s. */
static void add_head(Sums *s, const Vocab *v, const int *ids, int n, const float *W, int causal)
{
    for (int i = 0; i < n; i++) {
        const float *r = W + (size_t)i * n;
        int keys = causal ? i + 1 : n;
        double u = 1.0 / keys;
        if (i > 0) {
            s->w[S_PREV] += r[i - 1], s->uni[S_PREV] += u, s->rows[S_PREV]++;
            s->w[S_FIRST] += r[0], s->uni[S_FIRST] += u, s->rows[S_FIRST]++;
            s->w[S_SELF] += r[i], s->uni[S_SELF] += u, s->rows[S_SELF]++;
        }
        if (!causal && i + 1 < n)
            s->w[S_NEXT] += r[i + 1], s->uni[S_NEXT] += u, s->rows[S_NEXT]++;
        if (vocab_joins_prev(v, ids[i])) {
            int ws = i;
            while (ws > 0 && vocab_joins_prev(v, ids[ws]))
                ws--;
            double sum = 0;
            for (int j = ws; j < i; j++)
                sum += r[j];
            s->w[S_PIECE] += sum, s->uni[S_PIECE] += (i - ws) * u, s->rows[S_PIECE]++;
        }
        if (is_word(v, ids[i])) {
            double sum = 0;
            int k = 0;
            for (int j = 0; j < i; j++)
                if (ids[j] == ids[i])
                    sum += r[j], k++;
            if (k)
                s->w[S_COPY] += sum, s->uni[S_COPY] += k * u, s->rows[S_COPY]++;
        }
    }
}

/* A number from the model's "training" object, or NAN. */
static double training_num(const Model *m, const char *key)
{
    cJSON *j = m->training ? cJSON_Parse(m->training) : NULL;
    const cJSON *x = j ? cJSON_GetObjectItemCaseSensitive(j, key) : NULL;
    double v = cJSON_IsNumber(x) ? x->valuedouble : NAN;
    cJSON_Delete(j);
    return v;
}

/* -log p(target) from one row of logits. */
static double nll(const float *lg, int V, int target)
{
    float mx = lg[0];
    for (int j = 1; j < V; j++)
        mx = lg[j] > mx ? lg[j] : mx;
    double sum = 0;
    for (int j = 0; j < V; j++)
        sum += exp((double)lg[j] - mx);
    return log(sum) - ((double)lg[target] - mx);
}

/* Unigram cross-entropy of the held-out targets under train's token counts (add-one). */
static double unigram(const Corpus *train, const Corpus *ev, const int *lines, int n_lines, int V)
{
    long *cnt = calloc((size_t)V, sizeof *cnt);
    if (!cnt)
        return NAN;
    for (int i = 0; i < train->n_ids; i++)
        cnt[train->ids[i]]++;
    double tot = train->n_ids + V, h = 0;
    long k = 0;
    for (int e = 0; e < n_lines; e++) {
        int s = ev->starts[lines[e]], end = lines[e] + 1 < ev->n_lines ? ev->starts[lines[e] + 1]
                                                                      : ev->n_ids;
        for (int i = s + 1; i < end; i++, k++)
            h -= log((cnt[ev->ids[i]] + 1) / tot);
    }
    free(cnt);
    return k ? h / k : NAN;
}

static void print_heads(const Model *m, const Sums *S, int causal, const char *stack)
{
    int H = m->cfg.n_heads;
    printf("| head |");
    for (int k = 0; k < N_SCORES; k++)
        if (!(causal && k == S_NEXT) && S[0].rows[k])
            printf(" %s |", SCORE_NAMES[k]);
    printf("\n|---|");
    for (int k = 0; k < N_SCORES; k++)
        if (!(causal && k == S_NEXT) && S[0].rows[k])
            printf("---|");
    printf("\n");
    for (int h = 0; h <= m->cfg.n_layers * H; h++) {
        const Sums *s = &S[h < m->cfg.n_layers * H ? h : 0];
        if (h < m->cfg.n_layers * H)
            printf("| %sL%d.h%d |", stack, h / H, h % H);
        else
            printf("| *uniform attention* |");
        for (int k = 0; k < N_SCORES; k++)
            if (!(causal && k == S_NEXT) && S[0].rows[k])
                printf(" %.3f |", (h < m->cfg.n_layers * H ? s->w[k] : s->uni[k]) / s->rows[k]);
        printf("\n");
    }
    printf("\nRows counted: ");
    for (int k = 0; k < N_SCORES; k++)
        if (!(causal && k == S_NEXT) && S[0].rows[k])
            printf("%s%s %ld", k ? ", " : "", SCORE_NAMES[k], S[0].rows[k]);
    printf(".\n\n");
    for (int k = 0; k < N_SCORES; k++) {
        if ((causal && k == S_NEXT) || !S[0].rows[k] || k == S_SELF)
            continue;
        int best = 0;
        for (int h = 1; h < m->cfg.n_layers * H; h++)
            if (S[h].w[k] / S[h].rows[k] > S[best].w[k] / S[best].rows[k])
                best = h;
        printf("- %s: strongest head %sL%d.h%d, %.3f against %.3f for uniform attention "
               "(%.1f times)\n", SCORE_NAMES[k], stack, best / H, best % H,
               S[best].w[k] / S[best].rows[k], S[best].uni[k] / S[best].rows[k],
               S[best].w[k] / S[best].uni[k]);
    }
    printf("\n");
}

/* The report of one LM model (decoder or encoder) on the held-out text ev. */
static int report_lm(const Model *m, const Corpus *ev, const Corpus *train, int max_lines)
{
    const ModelConfig *c = &m->cfg;
    int L = c->max_len, V = c->vocab_size, NH = c->n_layers * c->n_heads;
    int dec = c->arch == ARCH_DECODER;
    Trace *t = trace_new(m, L, L);
    Sums *S = calloc((size_t)NH, sizeof *S);
    int *lines = malloc(sizeof(int) * (size_t)(ev->n_lines + 1));
    if (!t || !S || !lines)
        return -1;
    Controls ctl;
    model_default_controls(m, &ctl);
    double loss = 0;
    long toks = 0, words = 0;
    int used = 0;
    char err[256];
    for (int e = 0; e < ev->n_lines && used < max_lines; e++) {
        int s = ev->starts[e], end = e + 1 < ev->n_lines ? ev->starts[e + 1] : ev->n_ids;
        int n = end - s;
        const int *ids = ev->ids + s;
        if (n < 2 || n > L)
            continue;
        if (model_forward(m, ids, n, NULL, 0, &ctl, t, err, sizeof err)) {
            fprintf(stderr, "model_report: %s\n", err);
            return -1;
        }
        lines[used++] = e;
        if (dec) {
            const TraceEntry *lg = trace_find(t, STACK_DEC, -1, SUB_NONE, -1, T_LOGITS);
            for (int i = 0; i + 1 < n; i++) {
                loss += nll(lg->data + (size_t)i * V, V, ids[i + 1]);
                toks++;
                words += !vocab_joins_prev(&m->vocab, ids[i + 1]);
            }
        }
        for (int h = 0; h < NH; h++) {
            const TraceEntry *w = trace_find(t, dec ? STACK_DEC : STACK_ENC, h / c->n_heads,
                                             SUB_SELF, h % c->n_heads, T_WEIGHTS);
            add_head(&S[h], &m->vocab, ids, n, w->data, ctl.causal);
        }
    }
    printf("Held out: the first %d lines of the held-out text that fit max_len %d, each run "
           "alone from position 0.\n\n", used, L);
    if (dec) {
        printf("- loss: **%.3f nats per token** over %ld predicted tokens (%.3f per word: "
               "%ld words)\n", loss / toks, toks, loss / words, words);
        if (train)
            printf("- unigram baseline (token frequencies of the training text only): %.3f "
                   "nats per token\n", unigram(train, ev, lines, used, V));
    }
    double el = training_num(m, "eval_loss"), tl = training_num(m, "final_train_loss");
    if (!isnan(el))
        printf("- the trainer's own figures (model file, `training`): held-out %.4f, final "
               "training loss %.4f%s\n", el, tl,
               training_num(m, "train_loss_masked_lm") >= 0 ? " (masked-LM loss per hidden "
                                                              "word)" : " (packed sequences)");
    printf("\nMean attention weight per row:\n\n");
    print_heads(m, S, ctl.causal, "");
    trace_free(t);
    free(S);
    free(lines);
    return 0;
}

/* The report of an encoder-decoder on held-out pairs: losses from the file, self-attention
 * statistics (train_head_stats) and cross-attention alignment. */
static int report_pairs(const Model *m, const Corpus *ev)
{
    const ModelConfig *c = &m->cfg;
    int H = c->n_heads;
    printf("- the trainer's own figures (model file, `training`): held-out %.4f, final training "
           "loss %.4f\n\n", training_num(m, "eval_loss"), training_num(m, "final_train_loss"));
    HeadStat *hs = calloc((size_t)c->n_layers * H, sizeof *hs);
    if (!hs)
        return -1;
    printf("| head | previous token | first token | itself |\n|---|---|---|---|\n");
    for (int enc = 1; enc >= 0; enc--) {
        if (train_head_stats(m, ev, ev->n_pairs, enc, hs))
            return -1;
        for (int h = 0; h < c->n_layers * H; h++)
            printf("| %s.L%d.h%d | %.3f | %.3f | %.3f |\n", enc ? "enc" : "dec", h / H, h % H,
                   hs[h].prev, hs[h].first, hs[h].self);
    }
    printf("\nCross-attention on the %d held-out pairs: the decoder row that writes French word j "
           "puts its largest weight on an English word aligned to j for\n\n", ev->n_pairs);
    for (int h = 0; h < c->n_layers * H; h++) {
        double wa, pa;
        if (train_cross_alignment(m, ev, h / H, h % H, &wa, &pa) == 0)
            printf("- dec.L%d.cross.h%d: %.1f%% of French words (every word of %.1f%% of the "
                   "pairs)\n", h / H, h % H, 100 * wa, 100 * pa);
    }
    printf("\n");
    free(hs);
    return 0;
}

static int report(const char *spec, int max_lines)
{
    char buf[1024], err[1200];
    snprintf(buf, sizeof buf, "%s", spec);
    char *evp = strchr(buf, ':'), *trp = NULL;
    if (!evp) {
        fprintf(stderr, "model_report: \"%s\" is not MODEL:EVAL[:TRAIN]\n", spec);
        return -1;
    }
    *evp++ = 0;
    if ((trp = strchr(evp, ':')))
        *trp++ = 0;
    Model m;
    Corpus ev, tr;
    int rc = -1, have_tr = 0;
    if (model_load(&m, buf, err, sizeof err)) {
        fprintf(stderr, "model_report: %s\n", err);
        return -1;
    }
    int pairs = m.cfg.arch == ARCH_ENCDEC;
    if ((pairs ? corpus_load_pairs(&ev, evp, &m.vocab, err, sizeof err)
               : corpus_load_lm(&ev, evp, &m.vocab, err, sizeof err)) ||
        (trp && !pairs && (have_tr = corpus_load_lm(&tr, trp, &m.vocab, err, sizeof err) == 0) == 0)) {
        fprintf(stderr, "model_report: %s\n", err);
        model_free(&m);
        return -1;
    }
    printf("## %s (`%s`)\n\n", m.cfg.name, buf);
    printf("%s, d_model %d, %d heads of %d, %d layer%s, max_len %d, %ld weights; tokenizer %s, "
           "%d tokens. Held-out text: `%s` (data/corpus/).\n\n", model_arch_name(m.cfg.arch),
           m.cfg.d_model,
           m.cfg.n_heads, m.cfg.d_head, m.cfg.n_layers, m.cfg.n_layers > 1 ? "s" : "",
           m.cfg.max_len, (long)m.n_floats, vocab_kind_name(m.vocab.kind), m.vocab.n,
           strrchr(evp, '/') ? strrchr(evp, '/') + 1 : evp);
    rc = pairs ? report_pairs(&m, &ev) : report_lm(&m, &ev, have_tr ? &tr : NULL, max_lines);
    corpus_free(&ev);
    if (have_tr)
        corpus_free(&tr);
    model_free(&m);
    return rc;
}

int main(int argc, char **argv)
{
    int max_lines = 2000, first = 1;
    if (argc > 2 && !strcmp(argv[1], "--lines")) {
        max_lines = atoi(argv[2]);
        first = 3;
    }
    if (first >= argc || max_lines < 1) {
        fprintf(stderr, "usage: model_report [--lines N] MODEL:EVAL[:TRAIN] ...\n");
        return 2;
    }
    printf("# attend's models: held-out loss and what the heads do\n\n"
           "Generated by `build/tools/model_report` (tools/model_report.c) during `make models`: "
           "do not edit; every figure is measured on the shipped model files. A row's weights "
           "sum to 1; \"uniform attention\" is what a head spreading its weight evenly over the "
           "keys it may read would score on the same rows, so a head far above it has learnt "
           "that pattern. \"own word's pieces\": rows that continue a word (a `##` piece) and "
           "their weight on the earlier pieces of the same word; \"earlier copies\": rows whose "
           "word already occurred and their weight on those occurrences. Loss per token is not "
           "comparable across tokenizers (a WordPiece word may be several tokens) nor across "
           "corpora: the word-level models read a small generated grammar.\n\n");
    for (int i = first; i < argc; i++)
        if (report(argv[i], max_lines))
            return 1;
    return fflush(stdout) ? 1 : 0;
}
