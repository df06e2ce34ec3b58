/* cmd_heads.c - `attend heads`: every self-attention head's scores (previous-token,
 * induction, prefix-matching, self, first-token) on random repeated sequences, and the loss on
 * each copy, with heads optionally knocked out (heads_scores in src/engine/heads.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits.h"
#include "cmd.h"
#include "heads.h"
#include "json.h"
#include "opts.h"

static const char HEADS_USAGE[] =
    "usage: attend heads [--model FILE] [--format text|json] [--ablate L.H[,L.H...]]...\n"
    "                    [--lengths N,N,...] [--probes N] [--seed S] | --circuits";

/* Parses "3,5,21" into p->lens. 0 or -1. */
static int parse_lengths(const char *s, HeadProbe *p)
{
    p->n_lens = 0;
    const char *q = s;
    for (;;) {
        char *end;
        long v = strtol(q, &end, 10);
        if (end == q || (*end != ',' && *end) || v < 1 || v > 100000 ||
            p->n_lens >= HEADS_MAX_LENS)
            return -1;
        p->lens[p->n_lens++] = (int)v;
        if (!*end)
            return 0;
        q = end + 1;
    }
}

typedef struct {
    const char *model, *format, *lengths, *ablate[16];
    int n_ablate;
    long probes, seed;
    int circuits;
} HeadsArgs;

static int heads_args(int argc, char **argv, HeadsArgs *a)
{
    memset(a, 0, sizeof *a);
    a->format = "text";
    a->probes = a->seed = -1;
    const Opt opts[] = {
        OPT_S("--model", &a->model), OPT_W("--format", &a->format, "text json"),
        OPT_S("--lengths", &a->lengths), OPT_M("--ablate", a->ablate, &a->n_ablate, 16),
        OPT_I("--probes", &a->probes, 1, 4096), OPT_I("--seed", &a->seed, 0, 2147483647),
        OPT_F("--circuits", &a->circuits),
    };
    return opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc, argv, "attend heads",
                      HEADS_USAGE);
}

static void print_text(const Model *m, const HeadProbe *p, const char *ablated, double first,
                       double second, const HeadScores *sc)
{
    printf("%s: %d layers x %d heads; probes: %d a length, segments of", m->path,
           m->cfg.n_layers, m->cfg.n_heads, p->n_probes);
    for (int i = 0; i < p->n_lens; i++)
        printf(" %d", p->lens[i]);
    printf(", seed %llu\n", (unsigned long long)p->seed);
    if (ablated[0])
        printf("knocked out: %s\n", ablated);
    printf("loss on the probes %s: first copy %.3f, second copy %.3f nats "
           "(ln %d = %.3f)\n\n", vocab_id(&m->vocab, "<bos>") >= 0 ? "[<bos>, R, R]" : "[R, R]",
           first, second, repeat_pool(&m->vocab, NULL, 0),
           log((double)repeat_pool(&m->vocab, NULL, 0)));
    printf("head     prev  induction  prefix   self  first   induction by length\n");
    for (int i = 0; i < m->cfg.n_layers * m->cfg.n_heads; i++) {
        const HeadScores *s = &sc[i];
        printf("L%d.h%-3d %5.2f  %9.2f  %6.2f  %5.2f  %5.2f  ", i / m->cfg.n_heads,
               i % m->cfg.n_heads, s->prev, s->induction, s->prefix, s->self, s->first);
        for (int k = 0; k < p->n_lens; k++)
            printf(" %.2f", s->by_len[k]);
        printf("\n");
    }
}

static void print_json(const Model *m, const HeadProbe *p, const char *ablated, double first,
                       double second, const HeadScores *sc)
{
    printf("{\"model\": ");
    json_write_string(stdout, m->path);
    printf(", \"layers\": %d, \"heads_per_layer\": %d,\n \"probe\": {\"seed\": %llu, "
           "\"probes_per_length\": %d, \"lengths\": [", m->cfg.n_layers, m->cfg.n_heads,
           (unsigned long long)p->seed, p->n_probes);
    for (int i = 0; i < p->n_lens; i++)
        printf("%s%d", i ? ", " : "", p->lens[i]);
    printf("]},\n \"ablated\": ");
    json_write_string(stdout, ablated);
    printf(", \"loss_first_copy\": %.6f, \"loss_second_copy\": %.6f,\n \"heads\": [", first,
           second);
    for (int i = 0; i < m->cfg.n_layers * m->cfg.n_heads; i++) {
        const HeadScores *s = &sc[i];
        printf("%s\n  {\"layer\": %d, \"head\": %d", i ? "," : "", i / m->cfg.n_heads,
               i % m->cfg.n_heads);
        for (int k = 0; k < HEADS_N_SCORES; k++)
            printf(", \"%s\": %.6f", heads_score_name(k), heads_score(s, k));
        printf(", \"induction_by_length\": [");
        for (int k = 0; k < p->n_lens; k++)
            printf("%s%.6f", k ? ", " : "", s->by_len[k]);
        printf("]}");
    }
    printf("\n]}\n");
}

/* attend heads --circuits: every head's QK and OV circuits from its weights (circuits.h). */
static int print_circuits(const Model *m, int json)
{
    int L = m->cfg.n_layers, H = m->cfg.n_heads;
    char err[512];
    HeadCircuit *hc = calloc((size_t)L * H, sizeof *hc);
    if (!hc || circuits_heads(m, hc, err, sizeof err)) {
        fprintf(stderr, "attend heads: %s\n", hc ? err : "out of memory");
        free(hc);
        return 1;
    }
    if (json) {
        printf("{\"model\": ");
        json_write_string(stdout, m->path);
        printf(", \"layers\": %d, \"heads_per_layer\": %d,\n \"circuits\": [", L, H);
    } else {
        printf("%s: each head's circuits, from its weights alone\n"
               "copy: OV circuit, the share of tokens it maps to themselves; eig: OV circuit, "
               "Elhage et al.'s\ncopying score (its eigenvalues: sum / sum of moduli, 1 copies, "
               "-1 suppresses); prev:\nQK circuit of the positions, the share of positions it "
               "points at the one before;\nK-comp: how much its keys read each head of the layer "
               "below (Frobenius ratio)\n\n"
               "head      copy    eig   prev   K-comp with L-1 heads\n", m->path);
    }
    for (int i = 0; i < L * H; i++) {
        const HeadCircuit *c = &hc[i];
        if (json) {
            printf("%s\n  {\"layer\": %d, \"head\": %d, \"copy\": %.6f, \"copying\": ",
                   i ? "," : "", i / H, i % H, c->copy);
            if (isnan(c->copying))
                printf("null");
            else
                printf("%.6f", c->copying);
            printf(", \"prev\": ");
            if (isnan(c->prev))
                printf("null");
            else
                printf("%.6f", c->prev);
            printf(", \"kcomp\": [");
            for (int g = 0; g < H && i >= H; g++)
                printf("%s%.6f", g ? ", " : "", c->kcomp[g]);
            printf("]}");
        } else {
            printf("L%d.h%-4d %5.2f  ", i / H, i % H, c->copy);
            if (isnan(c->copying))
                printf("%5s  ", "-");
            else
                printf("%5.2f  ", c->copying);
            if (isnan(c->prev))
                printf("%5s ", "-");
            else
                printf("%5.2f ", c->prev);
            for (int g = 0; g < H && i >= H; g++)
                printf(" %.3f", c->kcomp[g]);
            printf("\n");
        }
    }
    if (json)
        printf("\n]}\n");
    free(hc);
    return fflush(stdout) ? 1 : 0;
}

int cmd_heads(int argc, char **argv)
{
    HeadsArgs a;
    int rc = heads_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    char path[1024], err[1024];
    Model m;
    if (model_load(&m, data_model_path(a.model, path, sizeof path), err, sizeof err)) {
        fprintf(stderr, "attend heads: %s\n", err);
        return 1;
    }
    if (a.circuits) {
        rc = a.lengths || a.n_ablate || a.probes > 0 || a.seed >= 0
                 ? opts_usage_error("attend heads", HEADS_USAGE, "--circuits reads the weights "
                                    "alone: it takes no --lengths, --ablate, --probes or --seed")
                 : print_circuits(&m, !strcmp(a.format, "json"));
        model_free(&m);
        return rc;
    }
    rc = 1;
    HeadProbe p;
    heads_probe_defaults(&m, &p);
    if (a.probes > 0) p.n_probes = (int)a.probes;
    if (a.seed >= 0) p.seed = (uint64_t)a.seed;
    Controls c;
    model_default_controls(&m, &c);
    HeadScores *sc = calloc((size_t)(m.cfg.n_layers * m.cfg.n_heads), sizeof *sc);
    double first, second;
    char names[1024];
    if (!sc) {
        fprintf(stderr, "attend heads: out of memory\n");
        goto out;
    }
    if (a.lengths && parse_lengths(a.lengths, &p)) {
        fprintf(stderr, "attend heads: --lengths needs 1 to %d segment lengths like 3,5,21, got "
                "\"%s\"\n", HEADS_MAX_LENS, a.lengths);
        rc = 2;
        goto out;
    }
    for (int i = 0; i < a.n_ablate; i++)
        if (heads_ablate_parse(a.ablate[i], &m, c.ablate, err, sizeof err)) {
            fprintf(stderr, "attend heads: --ablate %s\n", err);
            rc = 2;
            goto out;
        }
    if (heads_scores(&m, &p, &c, sc, err, sizeof err) ||
        heads_copy_loss(&m, &p, &c, &first, &second, err, sizeof err)) {
        fprintf(stderr, "attend heads: %s: %s\n", m.path, err);
        goto out;
    }
    heads_ablate_names(&m, c.ablate, names, sizeof names);
    if (!strcmp(a.format, "json"))
        print_json(&m, &p, names, first, second, sc);
    else
        print_text(&m, &p, names, first, second, sc);
    rc = fflush(stdout) ? 1 : 0;
out:
    free(sc);
    model_free(&m);
    return rc;
}
