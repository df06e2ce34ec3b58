/* train_ref.c - runs a few training steps of a small model with attend's trainer and writes
 * everything a PyTorch reference needs to redo them independently (tests/ref/torch_grad.py):
 *
 *   train_ref CASE DIR      CASE: decoder | encdec | rope | encoder | attn-only
 *
 * attn-only: an attention-only decoder (no FFN) on the repeated-sequence task's examples
 * (repeat_example, the loss on the second copy only), as `attend train` makes them.
 * encoder: a masked-LM step, the examples corrupted by train_mlm_mask (<mask>, random words,
 * kept words; targets only where chosen) and no causal mask.
 *
 * DIR/CASE.model.json  the initial model (attend's model format)
 * DIR/CASE.run.json    options, the examples of every step, and attend's results: the loss
 *                      and gradient norm of each step, the (clipped) gradient of the last step
 *                      and the final weights, by weight name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"

#define VOC 20
#define STEPS 5
#define BATCH 4

static void print_floats(FILE *f, const float *x, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%.9g", i ? "," : "", (double)x[i]);
    fputc(']', f);
}

static void print_ints(FILE *f, const int *x, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%d", i ? "," : "", x[i]);
    fputc(']', f);
}

static void print_params(FILE *f, const Model *m, const float *base)
{
    fputc('{', f);
    for (int i = 0; i < m->n_params; i++) {
        const Param *p = &m->params[i];
        fprintf(f, "%s\n  \"%s\": ", i ? "," : "", p->name);
        print_floats(f, base + p->offset, (size_t)p->rows * p->cols);
    }
    fputs("\n}", f);
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "decoder") && strcmp(argv[1], "encdec") &&
                      strcmp(argv[1], "rope") && strcmp(argv[1], "encoder") &&
                      strcmp(argv[1], "attn-only"))) {
        fprintf(stderr, "usage: train_ref decoder|encdec|rope|encoder|attn-only DIR\n");
        return 2;
    }
    int encdec = !strcmp(argv[1], "encdec"), mlm = !strcmp(argv[1], "encoder");
    int attn_only = !strcmp(argv[1], "attn-only");
    char err[512], path[1024];
    const char *words[VOC];
    char wbuf[VOC][16];
    for (int i = 0; i < VOC; i++) {
        snprintf(wbuf[i], sizeof wbuf[i], "w%d", i);
        words[i] = wbuf[i];
    }
    words[0] = "<pad>";
    words[1] = "<unk>";
    words[2] = "<bos>";
    words[3] = "<eos>";
    if (mlm)
        words[4] = "<mask>";
    Vocab v;
    ModelConfig c;
    model_config_defaults(&c);
    c.vocab_size = VOC;
    c.d_model = 16;
    c.n_heads = 2;
    c.d_head = 8;
    c.n_layers = 2;
    c.d_ff = 32;
    c.max_len = 8;
    if (encdec) { /* the other branch of every choice */
        c.arch = ARCH_ENCDEC;
        c.pe = PE_SINUSOIDAL;
        c.norm = NORM_RMS;
        c.pre_norm = 0;
        c.ffn = FFN_SWIGLU;
        c.tie_embed = 1;
        c.scale_embed = 1;
        c.final_norm = 1;
    } else if (mlm) { /* BERT-like: post-LayerNorm, GELU, learned positions */
        c.arch = ARCH_ENCODER;
        c.pe = PE_LEARNED;
        c.norm = NORM_LAYER;
        c.pre_norm = 0;
        c.ffn = FFN_GELU;
        c.final_norm = 0;
        c.scale_embed = 0;
    } else if (attn_only) { /* the induction model's kind: no FFN, learned PE, pre-LN */
        c.arch = ARCH_DECODER;
        c.pe = PE_LEARNED;
        c.norm = NORM_LAYER;
        c.pre_norm = 1;
        c.ffn = FFN_NONE;
        c.d_ff = 0;
    } else if (!strcmp(argv[1], "rope")) {
        c.arch = ARCH_DECODER;
        c.pe = PE_ROPE;
        c.norm = NORM_RMS;
        c.ffn = FFN_RELU;
    } else {
        c.arch = ARCH_DECODER;
        c.pe = PE_LEARNED;
        c.norm = NORM_LAYER;
        c.pre_norm = 1;
        c.ffn = FFN_GELU;
    }
    Model m;
    if (vocab_init(&v, words, VOC, err, sizeof err) || model_new(&m, &c, &v, err, sizeof err)) {
        fprintf(stderr, "train_ref: %s\n", err);
        return 1;
    }
    model_init_random(&m, 5);
    snprintf(path, sizeof path, "%s/%s.model.json", argv[2], argv[1]);
    if (model_save(&m, path, err, sizeof err)) {
        fprintf(stderr, "train_ref: %s\n", err);
        return 1;
    }
    TrainOpts o;
    train_opts_defaults(&o);
    o.steps = STEPS;
    o.batch = BATCH;
    o.seq_len = 8;
    o.lr = 1e-2f;
    o.warmup = 2;
    o.min_lr_ratio = 0.1f;
    o.weight_decay = 0.1f;
    o.clip = 1.0f;
    o.causal = !mlm; /* ignored by an encoder anyway */
    /* An empty LM corpus stand-in: examples are given to train_step_on. */
    Corpus dummy;
    memset(&dummy, 0, sizeof dummy);
    dummy.kind = encdec ? CORPUS_PAIRS : CORPUS_LM;
    int one = 0, ids[2] = {2, 3};
    dummy.ids = ids;
    dummy.n_ids = 2;
    dummy.starts = &one;
    dummy.n_lines = 1;
    Trainer *t = train_new(&m, &dummy, &o, 0, err, sizeof err);
    if (!t) {
        fprintf(stderr, "train_ref: %s\n", err);
        return 1;
    }
    snprintf(path, sizeof path, "%s/%s.run.json", argv[2], argv[1]);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return 1;
    }
    fprintf(f, "{\"opts\": {\"steps\": %d, \"lr\": %.9g, \"warmup\": %d, \"min_lr_ratio\": %.9g, "
            "\"weight_decay\": %.9g, \"beta1\": %.9g, \"beta2\": %.9g, \"eps\": %.9g, "
            "\"clip\": %.9g},\n\"steps\": [", o.steps, (double)o.lr, o.warmup,
            (double)o.min_lr_ratio, (double)o.weight_decay, (double)o.beta1, (double)o.beta2,
            (double)o.eps, (double)o.clip);
    uint64_t s = 99;
    CorpusRng mrng;
    corpus_rng_seed(&mrng, 17);
    RepeatOpts ro = {1, 2, 3, REPEAT_LOSS_SECOND};
    int pool[VOC], n_pool = repeat_pool(&m.vocab, pool, VOC);
    for (int step = 0; step < STEPS; step++) {
        int src[BATCH][8], dec[BATCH][8], tgt[BATCH][8];
        TrainExample ex[BATCH];
        for (int b = 0; b < BATCH; b++) {
            int n = 5 + (b + step) % 4, mlen = 4 + (b * 3 + step) % 5;
            for (int i = 0; i < 8; i++) {
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                src[b][i] = 2 + (int)((s >> 33) % (VOC - 2));
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                dec[b][i] = 2 + (int)((s >> 33) % (VOC - 2));
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                tgt[b][i] = (s >> 33) % 7 == 0 ? -1 : 2 + (int)((s >> 40) % (VOC - 2));
            }
            if (attn_only) { /* [<bos>, prefix, R, R, filler], 8 tokens, n 2..3 */
                n = 8;
                repeat_example(&mrng, &ro, pool, n_pool, 2, n, src[b], tgt[b], NULL);
            }
            if (mlm) { /* words 5.., masked as the trainer does (pool: the sentence itself) */
                int words_[8];
                for (int i = 0; i < n; i++)
                    words_[i] = 5 + (src[b][i] - 2) % (VOC - 5);
                train_mlm_mask(&mrng, words_, n, 0.3f, 4, words_, n, src[b], tgt[b]);
            }
            ex[b] = (TrainExample){src[b], n, encdec ? dec[b] : NULL, encdec ? mlen : 0, tgt[b]};
        }
        if (train_step_on(t, ex, BATCH)) {
            fprintf(stderr, "train_ref: %s\n", train_error(t));
            return 1;
        }
        fprintf(f, "%s\n {\"loss\": %.9g, \"grad_norm\": %.9g, \"lr\": %.9g, \"examples\": [",
                step ? "," : "", (double)train_last_loss(t), (double)train_last_grad_norm(t),
                (double)train_last_lr(t));
        for (int b = 0; b < BATCH; b++) {
            fprintf(f, "%s{\"src\": ", b ? ", " : "");
            print_ints(f, ex[b].src, ex[b].n);
            fprintf(f, ", \"dec\": ");
            print_ints(f, ex[b].dec ? ex[b].dec : ex[b].src, ex[b].dec ? ex[b].m : 0);
            fprintf(f, ", \"targets\": ");
            print_ints(f, ex[b].targets, encdec ? ex[b].m : ex[b].n);
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fprintf(f, "],\n\"last_grad\": ");
    print_params(f, &m, train_last_grad(t));
    fprintf(f, ",\n\"final\": ");
    print_params(f, &m, m.data);
    fprintf(f, "}\n");
    fclose(f);
    train_free(t);
    model_free(&m);
    return 0;
}
