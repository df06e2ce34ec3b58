/* cmd_shapes.c - `attend shapes`: every quantity, weight shape and count of a Hugging Face
 * model computed from its config.json alone (no weights needed): the config exercise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "hf_model.h"
#include "json.h"
#include "opts.h"

static const char USAGE[] =
    "usage: attend shapes DIR|CONFIG.json [--format text|json]\n"
    "  every quantity, weight shape and parameter count of a Hugging Face model, computed\n"
    "  from its config.json alone (shipped: data/hf/gpt2, data/hf/llama-3.2-1b,\n"
    "  data/hf/qwen3-4b)";

/* The shape of a weight in the named quantities, by the end of its name. */
static const char *formula(const char *name, int gpt2)
{
    static const char *const T[][3] = {
        /* suffix, GPT-2, LLaMA */
        {"wte.weight", "(vocab_size, d_model)", ""},
        {"wpe.weight", "(n_positions, d_model)", ""},
        {"embed_tokens.weight", "", "(vocab_size, d_model)"},
        {"attn.c_attn.weight", "(d_model, 3·n_heads·d_head): Q, K, V side by side, (in, out)", ""},
        {"attn.c_attn.bias", "(3·n_heads·d_head)", ""},
        {"attn.c_proj.weight", "(n_heads·d_head, d_model), (in, out)", ""},
        {"mlp.c_fc.weight", "(d_model, d_ff), (in, out)", ""},
        {"mlp.c_fc.bias", "(d_ff)", ""},
        {"mlp.c_proj.weight", "(d_ff, d_model), (in, out)", ""},
        {"q_proj.weight", "", "(n_heads·d_head, d_model), (out, in)"},
        {"k_proj.weight", "", "(n_kv_heads·d_head, d_model), (out, in)"},
        {"v_proj.weight", "", "(n_kv_heads·d_head, d_model), (out, in)"},
        {"q_proj.bias", "", "(n_heads·d_head)"},
        {"k_proj.bias", "", "(n_kv_heads·d_head)"},
        {"v_proj.bias", "", "(n_kv_heads·d_head)"},
        {"q_norm.weight", "", "(d_head)"},
        {"k_norm.weight", "", "(d_head)"},
        {"o_proj.weight", "", "(d_model, n_heads·d_head), (out, in)"},
        {"gate_proj.weight", "", "(d_ff, d_model), (out, in)"},
        {"up_proj.weight", "", "(d_ff, d_model), (out, in)"},
        {"down_proj.weight", "", "(d_model, d_ff), (out, in)"},
        {"lm_head.weight", "(vocab_size, d_model)", "(vocab_size, d_model)"},
    };
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        size_t k = strlen(T[i][0]);
        if (n >= k && !strcmp(name + n - k, T[i][0]) && T[i][gpt2 ? 1 : 2][0])
            return T[i][gpt2 ? 1 : 2];
    }
    return "(d_model)";
}

typedef struct {
    FILE *f;
    int json, gpt2, first;
    long long total, layer0, layers, embed;
} Walk;

static void one(void *ctx, const char *name, long long rows, long long cols)
{
    Walk *w = ctx;
    long long count = rows ? rows * cols : cols;
    int l = -1;
    const char *p = strstr(name, "h.");
    const char *q = strstr(name, "layers.");
    if (q)
        l = atoi(q + 7);
    else if (p && (p == name || p[-1] == '.'))
        l = atoi(p + 2);
    w->total += count;
    if (l >= 0)
        w->layers += count;
    if (l == 0)
        w->layer0 += count;
    if (strstr(name, "wte.") || strstr(name, "wpe.") || strstr(name, "embed_tokens."))
        w->embed += count;
    if (w->json) {
        fprintf(w->f, "%s\n  {\"name\": ", w->first ? "" : ",");
        json_write_string(w->f, name);
        if (rows)
            fprintf(w->f, ", \"shape\": [%lld, %lld], \"count\": %lld}", rows, cols, count);
        else
            fprintf(w->f, ", \"shape\": [%lld], \"count\": %lld}", cols, count);
    } else if (l <= 0) { /* layer 0 stands for every layer */
        char shape[48];
        if (rows)
            snprintf(shape, sizeof shape, "[%lld, %lld]", rows, cols);
        else
            snprintf(shape, sizeof shape, "[%lld]", cols);
        fprintf(w->f, "  %-46s %-15s %s\n", name, shape, formula(name, w->gpt2));
    }
    w->first = 0;
}

static void quantities(FILE *f, const ModelConfig *c, const HfInfo *in)
{
    /* the keys from the family's row (hf_model.c's HF_FAMILIES); a quantity the family has
     * no key for is said in the keys it comes from */
    const HfFamilyRow *r = in->row;
    int kv = c->n_kv_heads ? c->n_kv_heads : c->n_heads;
    char kvk[64], hdk[64], ffk[64];
    snprintf(kvk, sizeof kvk, r->k_kv_heads[0] ? "%s" : "(%s)", r->k_kv_heads[0] ? r->k_kv_heads : r->k_heads);
    snprintf(hdk, sizeof hdk, "%s%s%s", r->k_head_dim[0] ? r->k_head_dim : r->k_d_model,
             r->k_head_dim[0] ? "" : " / ", r->k_head_dim[0] ? "" : r->k_heads);
    snprintf(ffk, sizeof ffk, r->layout == HF_GPT2 ? "%s or 4·%s" : "%s", r->k_d_ff, r->k_d_model);
    fprintf(f, "quantities (attend's name = config.json's key):\n");
    fprintf(f, "  d_model    = %-24s %d\n", r->k_d_model, c->d_model);
    fprintf(f, "  n_layers   = %-24s %d\n", r->k_layers, c->n_layers);
    fprintf(f, "  n_heads    = %-24s %d\n", r->k_heads, c->n_heads);
    fprintf(f, "  n_kv_heads = %-24s %d  (each K/V head serves %d query head%s)\n",
            kvk, kv, c->n_heads / kv, c->n_heads / kv == 1 ? "" : "s");
    fprintf(f, "  d_head     = %-24s %d%s\n", hdk, c->d_head,
            c->d_head * c->n_heads != c->d_model ? "  (n_heads·d_head is not d_model here)" : "");
    fprintf(f, "  d_ff       = %-24s %d\n", ffk, c->d_ff);
    fprintf(f, "  vocab_size = %-24s %d\n", r->k_vocab, c->vocab_size);
    fprintf(f, "  context    = %-24s %d\n", r->k_positions, in->max_positions);
    if (r->k_theta[0])
        fprintf(f, "  rope_theta = %-24s %.9g%s\n", r->k_theta, (double)c->rope_base,
                c->rope_scaling == ROPE_SCALE_LLAMA3 ? "  (rope_scaling: llama3)"
                : c->rope_scaling == ROPE_SCALE_LINEAR ? "  (rope_scaling: linear)" : "");
    fprintf(f, "  tied head  = %-24s %s\n", "tie_word_embeddings", c->tie_embed ? "yes" : "no");
}

int cmd_shapes(int argc, char **argv)
{
    const char *path = NULL, *format = "text";
    const Opt opts[] = {OPT_W("--format", &format, "text json"), OPT_A("DIR", &path)};
    int rc = opts_parse(opts, (int)(sizeof opts / sizeof opts[0]), argc, argv, "attend shapes",
                        USAGE);
    if (rc >= 0)
        return rc;
    if (!path)
        return opts_usage_error("attend shapes", USAGE,
                                "which model? give its DIR (or config.json)");
    char cfgpath[1100], err[1024];
    if (hf_is_dir(path))
        snprintf(cfgpath, sizeof cfgpath, "%s/config.json", path);
    else
        snprintf(cfgpath, sizeof cfgpath, "%s", path);
    ModelConfig c;
    HfInfo in;
    if (hf_config_read(cfgpath, &c, &in, err, sizeof err)) {
        fprintf(stderr, "attend shapes: %s\n", err);
        return 1;
    }
    int json = !strcmp(format, "json");
    Walk w = {stdout, json, in.family == HF_GPT2, 1, 0, 0, 0, 0};
    const char *prefix = in.row->prefix;
    int kv = c.n_kv_heads ? c.n_kv_heads : c.n_heads;
    long long kv_token = 2LL * c.n_layers * kv * c.d_head;
    if (json) {
        printf("{\"config\": ");
        json_write_string(stdout, cfgpath);
        printf(", \"model_type\": \"%s\", \"d_model\": %d, \"n_layers\": %d, \"n_heads\": %d, "
               "\"n_kv_heads\": %d, \"d_head\": %d, \"d_ff\": %d, \"vocab_size\": %d, "
               "\"context\": %d, \"tied\": %s,\n \"weights\": [", in.model_type, c.d_model,
               c.n_layers, c.n_heads, kv, c.d_head, c.d_ff, c.vocab_size, in.max_positions,
               c.tie_embed ? "true" : "false");
        hf_weights(&c, &in, prefix, one, &w);
        printf("],\n \"params\": %lld, \"per_layer\": %lld, \"embeddings\": %lld, "
               "\"kv_cache_values_per_token\": %lld}\n", w.total, w.layer0, w.embed, kv_token);
        return 0;
    }
    printf("%s: %s (%s family)\n\n", cfgpath, in.model_type, in.row->label);
    quantities(stdout, &c, &in);
    printf("\nweights (layer 0 shown; every layer has the same), name, shape, in quantities:\n");
    hf_weights(&c, &in, prefix, one, &w);
    if (c.tie_embed)
        printf("  %-46s %-15s %s\n", "(no lm_head: the embedding is reused)", "", "tied");
    printf("\ncounts:\n  per layer   %15lld\n  %d layers   %15lld\n  embeddings  %15lld\n"
           "  total       %15lld parameters (%.2f GB in bfloat16, %.2f GB in float32)\n"
           "  KV cache    %15lld values per token (2·n_layers·n_kv_heads·d_head)\n",
           w.layer0, c.n_layers, w.layers, w.embed, w.total, (double)w.total * 2 / 1e9,
           (double)w.total * 4 / 1e9, kv_token);
    return 0;
}
