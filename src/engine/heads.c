/* heads.c - per-head scores and per-copy losses on random repeated sequences (heads.h). */
#include "heads.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static void training_range(const Model *m, int *lo, int *hi)
{
    RepeatOpts o;
    char err[128];
    *lo = *hi = 0;
    if (m->training && !repeat_record_task(m->training, &o, err, sizeof err)) {
        *lo = o.min_seg;
        *hi = o.max_seg;
    }
}

void heads_probe_defaults(const Model *m, HeadProbe *p)
{
    int lo, hi;
    training_range(m, &lo, &hi);
    heads_probe_for(m, lo, hi, p);
}

void heads_probe_for(const Model *m, int lo, int hi, HeadProbe *p)
{
    memset(p, 0, sizeof *p);
    p->seed = 1;
    p->n_probes = 32;
    int top = (m->cfg.max_len - 1) / 2;
    if (hi > 0) { /* lengths it never trained on: two below lo, two above hi, where they fit */
        int below[2], nb = 0, above[2], na = 0;
        if (lo > 3) below[nb++] = 3;
        if (lo - 1 > 3) below[nb++] = lo - 1;
        if (hi < top) above[na++] = hi + 1;
        if (top > hi + 1) above[na++] = top;
        for (int i = 0; i < nb; i++) p->lens[p->n_lens++] = below[i];
        for (int i = 0; i < na; i++) p->lens[p->n_lens++] = above[i];
        if (p->n_lens > 0)
            return;
    }
    if (top < 3)
        return;
    for (int i = 0; i < 4; i++) {
        int n = 3 + i * (top - 3) / 3;
        if (p->n_lens == 0 || p->lens[p->n_lens - 1] != n)
            p->lens[p->n_lens++] = n;
    }
}

/* 0 if p fits m (lengths 2..(max_len-1)/2, 1..HEADS_MAX_LENS of them, 1..4096 probes, and
 * the vocabulary has ordinary words), else -1 with a message. */
static int heads_probe_check(const Model *m, const HeadProbe *p, char *err, size_t errlen)
{
    int top = (m->cfg.max_len - 1) / 2;
    if (p->n_lens < 1 || p->n_lens > HEADS_MAX_LENS) {
        snprintf(err, errlen, "%d probe lengths (1..%d; this model's max_len %d allows segments "
                 "of 2..%d)", p->n_lens, HEADS_MAX_LENS, m->cfg.max_len, top);
        return -1;
    }
    for (int i = 0; i < p->n_lens; i++)
        if (p->lens[i] < 2 || p->lens[i] > top) {
            snprintf(err, errlen, "probe length %d is out of range: segments of 2..%d fit twice "
                     "in max_len %d", p->lens[i], top, m->cfg.max_len);
            return -1;
        }
    if (p->n_probes < 1 || p->n_probes > 4096) {
        snprintf(err, errlen, "%d probes per length (1..4096)", p->n_probes);
        return -1;
    }
    if (repeat_pool(&m->vocab, NULL, 0) < 1) {
        snprintf(err, errlen, "the vocabulary has no ordinary words to repeat");
        return -1;
    }
    return 0;
}

/* What a probe run needs: the pool, a trace, the token buffer. */
typedef struct {
    int *pool, n_pool, bos;
    int src[ATTEND_MAX_LEN];
    Trace *t;
    Controls ctl;
} Probe;

static int probe_open(Probe *pr, const Model *m, const HeadProbe *p, const Controls *c,
                      char *err, size_t errlen)
{
    memset(pr, 0, sizeof *pr);
    if (heads_probe_check(m, p, err, errlen))
        return -1;
    pr->n_pool = repeat_pool(&m->vocab, NULL, 0);
    pr->pool = malloc(sizeof(int) * (size_t)pr->n_pool);
    pr->t = trace_new(m, m->cfg.max_len, 1);
    if (!pr->pool || !pr->t) {
        free(pr->pool);
        trace_free(pr->t);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    repeat_pool(&m->vocab, pr->pool, pr->n_pool);
    pr->bos = vocab_id(&m->vocab, "<bos>");
    if (c)
        pr->ctl = *c;
    else
        model_default_controls(m, &pr->ctl);
    pr->ctl.order = NULL;
    return 0;
}

static void probe_close(Probe *pr)
{
    free(pr->pool);
    trace_free(pr->t);
}

/* Runs one probe (shuffled or not) of segment length n; fills *span. */
static int probe_run(Probe *pr, const Model *m, CorpusRng *rng, int n, int shuffled,
                     RepeatSpan *span, char *err, size_t errlen)
{
    int len = repeat_probe(rng, pr->pool, pr->n_pool, pr->bos, n, shuffled, pr->src, span);
    return model_forward(m, pr->src, len, NULL, 0, &pr->ctl, pr->t, err, errlen);
}

typedef struct {
    double sum[HEADS_N_SCORES], by_len[HEADS_MAX_LENS];
    long rows[HEADS_N_SCORES], len_rows[HEADS_MAX_LENS];
} Acc;

/* Adds one repeated probe's rows to every head's sums. */
static void add_repeated(Acc *acc, const Model *m, const Trace *t, const RepeatSpan *sp, int li)
{
    int H = m->cfg.n_heads, n = t->n;
    Stack st = model_output_stack(m);
    for (int l = 0; l < m->cfg.n_layers; l++)
        for (int h = 0; h < H; h++) {
            const TraceEntry *e = trace_find(t, st, l, SUB_SELF, h, T_WEIGHTS);
            Acc *a = &acc[l * H + h];
            for (int i = 1; i < n; i++) {
                const float *row = e->data + (size_t)i * e->cols;
                a->sum[0] += row[i - 1];
                a->sum[3] += row[i];
                a->sum[4] += row[0];
                a->rows[0]++;
                a->rows[3]++;
                a->rows[4]++;
            }
            for (int i = sp->s2; i < sp->s2 + sp->n; i++) {
                double w = e->data[(size_t)i * e->cols + (i - sp->n + 1)];
                a->sum[1] += w;
                a->rows[1]++;
                a->by_len[li] += w;
                a->len_rows[li]++;
            }
        }
}

/* Adds one shuffled probe's second half to every head's prefix-matching sum. */
static void add_shuffled(Acc *acc, const Model *m, const Trace *t, const RepeatSpan *sp)
{
    int H = m->cfg.n_heads;
    Stack st = model_output_stack(m);
    for (int l = 0; l < m->cfg.n_layers; l++)
        for (int h = 0; h < H; h++) {
            const TraceEntry *e = trace_find(t, st, l, SUB_SELF, h, T_WEIGHTS);
            Acc *a = &acc[l * H + h];
            for (int i = sp->s2; i < sp->s2 + sp->n; i++) {
                int j = sp->s1; /* the earlier occurrence of token i (distinct tokens) */
                while (j < sp->s2 && t->src[j] != t->src[i])
                    j++;
                if (j >= sp->s2)
                    continue;
                a->sum[2] += e->data[(size_t)i * e->cols + j + 1];
                a->rows[2]++;
            }
        }
}

int heads_scores(const Model *m, const HeadProbe *p, const Controls *c, HeadScores *out,
                 char *err, size_t errlen)
{
    Probe pr;
    if (probe_open(&pr, m, p, c, err, errlen))
        return -1;
    int nh = m->cfg.n_layers * m->cfg.n_heads, rc = -1;
    Acc *acc = calloc((size_t)nh, sizeof *acc);
    if (!acc) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    CorpusRng rng;
    corpus_rng_seed(&rng, p->seed);
    for (int li = 0; li < p->n_lens; li++)
        for (int k = 0; k < p->n_probes; k++) {
            RepeatSpan sp;
            if (probe_run(&pr, m, &rng, p->lens[li], 0, &sp, err, errlen))
                goto done;
            add_repeated(acc, m, pr.t, &sp, li);
            if (probe_run(&pr, m, &rng, p->lens[li], 1, &sp, err, errlen))
                goto done;
            add_shuffled(acc, m, pr.t, &sp);
        }
    for (int i = 0; i < nh; i++) {
        double v[HEADS_N_SCORES];
        for (int s = 0; s < HEADS_N_SCORES; s++)
            v[s] = acc[i].rows[s] ? acc[i].sum[s] / (double)acc[i].rows[s] : 0.0;
        out[i] = (HeadScores){v[0], v[1], v[2], v[3], v[4], {0}};
        for (int li = 0; li < p->n_lens; li++)
            out[i].by_len[li] = acc[i].len_rows[li] ? acc[i].by_len[li] / acc[i].len_rows[li] : 0.0;
    }
    rc = 0;
done:
    free(acc);
    probe_close(&pr);
    return rc;
}

/* -log softmax(logits)[target] in double. */
static double xent(const float *lg, int V, int target)
{
    double mx = lg[0], sum = 0.0;
    for (int j = 1; j < V; j++)
        if (lg[j] > mx)
            mx = lg[j];
    for (int j = 0; j < V; j++)
        sum += exp((double)lg[j] - mx);
    return log(sum) - ((double)lg[target] - mx);
}

int heads_copy_loss(const Model *m, const HeadProbe *p, const Controls *c, double *first,
                    double *second, char *err, size_t errlen)
{
    Probe pr;
    if (probe_open(&pr, m, p, c, err, errlen))
        return -1;
    CorpusRng rng;
    corpus_rng_seed(&rng, p->seed);
    double s1 = 0.0, s2 = 0.0;
    long n1 = 0, n2 = 0;
    int V = m->cfg.vocab_size, rc = 0;
    for (int li = 0; li < p->n_lens && !rc; li++)
        for (int k = 0; k < p->n_probes; k++) {
            RepeatSpan sp;
            if (probe_run(&pr, m, &rng, p->lens[li], 0, &sp, err, errlen)) {
                rc = -1;
                break;
            }
            const TraceEntry *lg = trace_find(pr.t, model_output_stack(m),
                                              -1, SUB_NONE, -1, T_LOGITS);
            for (int i = 0; i + 1 < sp.n; i++) {
                s1 += xent(lg->data + (size_t)(sp.s1 + i) * V, V, pr.src[sp.s1 + i + 1]);
                s2 += xent(lg->data + (size_t)(sp.s2 + i) * V, V, pr.src[sp.s2 + i + 1]);
                n1++;
                n2++;
            }
            /* the same random stream as heads_scores: skip its shuffled probe */
            RepeatSpan skip;
            repeat_probe(&rng, pr.pool, pr.n_pool, pr.bos, p->lens[li], 1, pr.src, &skip);
        }
    probe_close(&pr);
    if (rc)
        return -1;
    *first = n1 ? s1 / (double)n1 : 0.0;
    *second = n2 ? s2 / (double)n2 : 0.0;
    return 0;
}

/* The logits of a run (the decoder's for an encoder-decoder) and how many rows they have. */
static const TraceEntry *logits_of(const Trace *t)
{
    const Model *m = t->model;
    if (!m)
        return NULL;
    Stack st = model_output_stack(m);
    return trace_find(t, st, -1, SUB_NONE, -1, T_LOGITS);
}

double heads_sentence_loss(const Trace *t)
{
    const TraceEntry *lg = logits_of(t);
    if (!lg || t->model->cfg.arch == ARCH_ENCDEC || t->n < 2)
        return NAN;
    double s = 0.0;
    for (int i = 0; i + 1 < t->n; i++)
        s += xent(lg->data + (size_t)i * lg->cols, lg->cols, t->src[i + 1]);
    return s / (t->n - 1);
}

int heads_top_next(const Trace *t, int i, double *p)
{
    const TraceEntry *lg = logits_of(t);
    if (!lg || i < 0 || i >= lg->rows)
        return -1;
    const float *r = lg->data + (size_t)i * lg->cols;
    int best = 0;
    for (int j = 1; j < lg->cols; j++)
        if (r[j] > r[best])
            best = j;
    if (p) {
        double sum = 0.0;
        for (int j = 0; j < lg->cols; j++)
            sum += exp((double)r[j] - r[best]);
        *p = 1.0 / sum;
    }
    return best;
}

double heads_pattern_change(const Trace *a, const Trace *b, int from_layer, int *layer,
                            int *head, int *row)
{
    double best = 0.0;
    *layer = *head = *row = -1;
    if (!a->model || a->model != b->model || a->n != b->n)
        return 0.0;
    const ModelConfig *c = &a->model->cfg;
    Stack st = model_output_stack(a->model);
    for (int l = from_layer < 0 ? 0 : from_layer; l < c->n_layers; l++)
        for (int h = 0; h < c->n_heads; h++) {
            const TraceEntry *x = trace_find(a, st, l, SUB_SELF, h, T_WEIGHTS);
            const TraceEntry *y = trace_find(b, st, l, SUB_SELF, h, T_WEIGHTS);
            if (!x || !y || x->rows != y->rows || x->cols != y->cols)
                continue;
            for (int i = 0; i < x->rows * x->cols; i++) {
                double d = fabs((double)x->data[i] - y->data[i]);
                if (d > best) {
                    best = d;
                    *layer = l;
                    *head = h;
                    *row = i / x->cols;
                }
            }
        }
    return best;
}

int heads_ablate_parse(const char *s, const Model *m, uint64_t *ablate, char *err,
                       size_t errlen)
{
    const char *p = s;
    for (;;) {
        char *end;
        long l = strtol(p, &end, 10);
        long h = -1;
        int ok = end != p && *end == '.';
        if (ok) {
            const char *q = end + 1;
            h = strtol(q, &end, 10);
            ok = end != q && (*end == ',' || *end == 0);
        }
        if (!ok || l < 0 || h < 0 || l >= ATTEND_MAX_LAYERS || h >= 64) {
            snprintf(err, errlen, "\"%s\" is not a list of LAYER.HEAD (e.g. 1.2 or 0.1,1.3)", s);
            return -1;
        }
        if (m && (l >= m->cfg.n_layers || h >= m->cfg.n_heads)) {
            snprintf(err, errlen, "head %ld.%ld does not exist: this model has layers 0..%d and "
                     "heads 0..%d", l, h, m->cfg.n_layers - 1, m->cfg.n_heads - 1);
            return -1;
        }
        ablate[l] |= (uint64_t)1 << h;
        if (*end == 0)
            return 0;
        p = end + 1;
    }
}

void heads_ablate_names(const Model *m, const uint64_t *ablate, char *out, size_t outlen)
{
    size_t k = 0;
    out[0] = 0;
    for (int l = 0; l < m->cfg.n_layers && l < ATTEND_MAX_LAYERS; l++)
        for (int h = 0; h < m->cfg.n_heads && h < 64; h++)
            if ((ablate[l] >> h) & 1u) {
                int w = snprintf(out + k, outlen - k, "%sL%d.h%d", k ? ", " : "", l, h);
                if (w < 0 || (size_t)w >= outlen - k)
                    return;
                k += (size_t)w;
            }
}

static const char *const SCORE_NAMES[HEADS_N_SCORES] = {"prev", "induction", "prefix", "self",
                                                        "first"};

const char *heads_score_name(int i)
{
    return i >= 0 && i < HEADS_N_SCORES ? SCORE_NAMES[i] : "?";
}

double heads_score(const HeadScores *s, int i)
{
    switch (i) {
    case 0: return s->prev;
    case 1: return s->induction;
    case 2: return s->prefix;
    case 3: return s->self;
    case 4: return s->first;
    default: return 0.0;
    }
}

/* The index of a score name, or -1. */
static int heads_score_parse(const char *name)
{
    for (int i = 0; i < HEADS_N_SCORES; i++)
        if (strcmp(name, SCORE_NAMES[i]) == 0)
            return i;
    return -1;
}

/* ---- history ---- */

int heads_history_init(HeadsHistory *h, const Model *m, const HeadProbe *p)
{
    memset(h, 0, sizeof *h);
    h->probe = *p;
    h->n_heads = m->cfg.n_layers * m->cfg.n_heads;
    return 0;
}

static int history_grow(HeadsHistory *h)
{
    int cap = h->cap ? 2 * h->cap : 32;
    int *st = realloc(h->step, sizeof(int) * (size_t)cap);
    if (st) h->step = st;
    float *tl = realloc(h->train_loss, sizeof(float) * (size_t)cap);
    if (tl) h->train_loss = tl;
    float *a = realloc(h->loss_first, sizeof(float) * (size_t)cap);
    if (a) h->loss_first = a;
    float *b = realloc(h->loss_second, sizeof(float) * (size_t)cap);
    if (b) h->loss_second = b;
    float *sc = realloc(h->scores, sizeof(float) * (size_t)cap * h->n_heads * HEADS_N_SCORES);
    if (sc) h->scores = sc;
    if (!st || !tl || !a || !b || !sc)
        return -1;
    h->cap = cap;
    return 0;
}

int heads_history_add(HeadsHistory *h, const Model *m, int step, float train_loss, char *err,
                      size_t errlen)
{
    if (h->n == h->cap && history_grow(h)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    HeadScores *sc = calloc((size_t)h->n_heads, sizeof *sc);
    double first, second;
    if (!sc) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (heads_scores(m, &h->probe, NULL, sc, err, errlen) ||
        heads_copy_loss(m, &h->probe, NULL, &first, &second, err, errlen)) {
        free(sc);
        return -1;
    }
    int k = h->n++;
    h->step[k] = step;
    h->train_loss[k] = train_loss;
    h->loss_first[k] = (float)first;
    h->loss_second[k] = (float)second;
    for (int i = 0; i < h->n_heads; i++)
        for (int s = 0; s < HEADS_N_SCORES; s++)
            h->scores[((size_t)k * h->n_heads + i) * HEADS_N_SCORES + s] =
                (float)heads_score(&sc[i], s);
    free(sc);
    return 0;
}

/* Appends printf-formatted text to a growing buffer; -1 when out of memory. */
typedef struct { char *s; size_t len, cap; int bad; } Buf;
static void bput(Buf *b, const char *fmt, ...)
{
    if (b->bad) return;
    va_list ap;
    va_start(ap, fmt);
    char tmp[64];
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof tmp) { b->bad = 1; return; }
    if (b->len + (size_t)k + 1 > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4096;
        while (cap < b->len + (size_t)k + 1) cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) { b->bad = 1; return; }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, tmp, (size_t)k + 1);
    b->len += (size_t)k;
}

static void bfloats(Buf *b, const float *x, int n, size_t stride)
{
    bput(b, "[");
    for (int i = 0; i < n; i++) {
        float v = x[(size_t)i * stride];
        if (isfinite(v)) bput(b, "%s%.4f", i ? ", " : "", (double)v);
        else bput(b, "%snull", i ? ", " : "");
    }
    bput(b, "]");
}

char *heads_history_json(const HeadsHistory *h)
{
    Buf b = {0};
    bput(&b, "{\"probe\": {\"seed\": %llu, ", (unsigned long long)h->probe.seed);
    bput(&b, "\"probes_per_length\": %d, \"lengths\": [", h->probe.n_probes);
    for (int i = 0; i < h->probe.n_lens; i++)
        bput(&b, "%s%d", i ? ", " : "", h->probe.lens[i]);
    bput(&b, "]}, \"step\": [");
    for (int i = 0; i < h->n; i++)
        bput(&b, "%s%d", i ? ", " : "", h->step[i]);
    bput(&b, "], ");
    bput(&b, "\"train_loss\": ");
    bfloats(&b, h->train_loss, h->n, 1);
    bput(&b, ", \"loss_first\": ");
    bfloats(&b, h->loss_first, h->n, 1);
    bput(&b, ", \"loss_second\": ");
    bfloats(&b, h->loss_second, h->n, 1);
    bput(&b, ", \"scores\": {");
    for (int s = 0; s < HEADS_N_SCORES; s++) {
        bput(&b, "%s\"%s\": [", s ? ", " : "", heads_score_name(s));
        for (int i = 0; i < h->n_heads; i++) {
            bput(&b, "%s", i ? ", " : "");
            bfloats(&b, h->scores ? h->scores + (size_t)i * HEADS_N_SCORES + s : NULL,
                    h->scores ? h->n : 0, (size_t)h->n_heads * HEADS_N_SCORES);
        }
        bput(&b, "]");
    }
    bput(&b, "}}");
    if (b.bad) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* Reads a JSON array of n numbers (null: NAN) into out. 0 or -1. */
static int read_floats(const cJSON *a, float *out, int n)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return -1;
    int i = 0;
    for (const cJSON *it = a->child; it; it = it->next, i++)
        out[i] = cJSON_IsNumber(it) ? (float)it->valuedouble : NAN;
    return 0;
}

int heads_history_read(const Model *m, HeadsHistory *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    cJSON *t = m->training ? json_parse_text("training", m->training, strlen(m->training), err,
                                             errlen) : NULL;
    const cJSON *hi = t ? json_get(t, "history") : NULL;
    const cJSON *st = hi ? json_get(hi, "step") : NULL, *sc = hi ? json_get(hi, "scores") : NULL;
    int n = cJSON_IsArray(st) ? cJSON_GetArraySize(st) : 0, rc = -1;
    if (!hi || n < 1 || !cJSON_IsObject(sc)) {
        snprintf(err, errlen, "%s: no recorded training history (train it with a \"repeat\" "
                 "config, docs/training.md)", m->path[0] ? m->path : "the model");
        goto out;
    }
    HeadProbe p;
    heads_probe_defaults(m, &p);
    heads_history_init(h, m, &p);
    while (h->cap < n)
        if (history_grow(h))
            goto bad;
    h->n = n;
    int i = 0;
    for (const cJSON *it = st->child; it; it = it->next)
        h->step[i++] = cJSON_IsNumber(it) ? it->valueint : -1;
    if (read_floats(json_get(hi, "train_loss"), h->train_loss, n) ||
        read_floats(json_get(hi, "loss_first"), h->loss_first, n) ||
        read_floats(json_get(hi, "loss_second"), h->loss_second, n))
        goto bad;
    float *tmp = malloc(sizeof(float) * (size_t)n);
    if (!tmp)
        goto bad;
    for (int s = 0; s < HEADS_N_SCORES; s++) {
        const cJSON *per = json_get(sc, heads_score_name(s));
        if (!cJSON_IsArray(per) || cJSON_GetArraySize(per) != h->n_heads) {
            free(tmp);
            goto bad;
        }
        int k = 0;
        for (const cJSON *hh = per->child; hh; hh = hh->next, k++) {
            if (read_floats(hh, tmp, n)) {
                free(tmp);
                goto bad;
            }
            for (int j = 0; j < n; j++)
                h->scores[((size_t)j * h->n_heads + k) * HEADS_N_SCORES + s] = tmp[j];
        }
    }
    free(tmp);
    rc = 0;
    goto out;
bad:
    snprintf(err, errlen, "%s: the training history is malformed", m->path[0] ? m->path : "model");
    heads_history_free(h);
out:
    cJSON_Delete(t);
    return rc;
}

int heads_history_series(const HeadsHistory *h, const Model *m, const char *name, float *out,
                         char *err, size_t errlen)
{
    const float *src = !strcmp(name, "loss_first")    ? h->loss_first
                       : !strcmp(name, "loss_second") ? h->loss_second
                       : !strcmp(name, "train_loss")  ? h->train_loss
                                                      : NULL;
    if (src) {
        memcpy(out, src, sizeof(float) * (size_t)h->n);
        return 0;
    }
    char score[16];
    int l, hd, used = 0;
    const char *dot = strchr(name, '.');
    int s = -1;
    if (dot && (size_t)(dot - name) < sizeof score) {
        memcpy(score, name, (size_t)(dot - name));
        score[dot - name] = 0;
        s = heads_score_parse(score);
    }
    if (s < 0 || sscanf(dot + 1, "%d.%d%n", &l, &hd, &used) != 2 || dot[1 + used] ||
        l < 0 || l >= m->cfg.n_layers || hd < 0 || hd >= m->cfg.n_heads) {
        snprintf(err, errlen, "no history series \"%s\": loss_first, loss_second, train_loss, "
                 "or SCORE.LAYER.HEAD with SCORE one of prev, induction, prefix, self, first "
                 "(layers 0..%d, heads 0..%d)", name, m->cfg.n_layers - 1, m->cfg.n_heads - 1);
        return -1;
    }
    for (int j = 0; j < h->n; j++)
        out[j] = h->scores[((size_t)j * h->n_heads + l * m->cfg.n_heads + hd) * HEADS_N_SCORES + s];
    return 0;
}

int heads_history_phase(const HeadsHistory *h)
{
    if (h->n < 1 || !isfinite(h->loss_second[0]))
        return -1;
    for (int j = 0; j < h->n; j++)
        if (h->loss_second[j] < 0.5f * h->loss_second[0])
            return h->step[j];
    return -1;
}

void heads_history_free(HeadsHistory *h)
{
    free(h->step);
    free(h->train_loss);
    free(h->loss_first);
    free(h->loss_second);
    free(h->scores);
    memset(h, 0, sizeof *h);
}
