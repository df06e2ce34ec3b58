/* hf_model.h - a Hugging Face model directory (config.json, safetensors weights, tokenizer) as
 * a Model for the one forward pass: the GPT-2 and LLaMA families as tables of choices. No
 * curses, no printing, no exit(). */
#ifndef ATTEND_HF_MODEL_H
#define ATTEND_HF_MODEL_H

#include <stddef.h>

#include "explain.h"
#include "model.h"

typedef enum { HF_GPT2, HF_LLAMA } HfFamily;

/* What config.json says beyond a ModelConfig. */
typedef struct {
    HfFamily family;
    char model_type[32];      /* "gpt2", "llama", "qwen2", "qwen3" */
    int qkv_bias;             /* Q, K, V projections have biases (Qwen2, attention_bias) */
    int qk_norm;              /* per-head RMSNorm of q and k (Qwen3) */
    int max_positions;        /* the model's own context (max_position_embeddings/n_positions) */
    int bos_id;               /* config.bos_token_id or -1 */
} HfInfo;

/* Called while the weights load: done of total bytes. */
typedef void (*HfProgress)(void *ctx, size_t done, size_t total);

/* Bytes of memory still available (/proc/meminfo's MemAvailable), or 0 when unknown. */
size_t hf_mem_available(void);
/* 1 if path is a directory (a Hugging Face model), else 0. */
int hf_is_dir(const char *path);
/* Reads a config.json (path to the file) into cfg and info: the family's choices, every size,
 * the RoPE theta and scaling. The context is limited to ATTEND_MAX_LEN tokens (info keeps the
 * model's own). 0, or -1 with "FILE: key: message" (an unsupported model_type or option is
 * named). cfg->vocab_size is the config's. */
int hf_config_read(const char *path, ModelConfig *cfg, HfInfo *info, char *err, size_t errlen);
/* Calls fn for every weight the family's model has, in the file's names and shapes (rows 0
 * for a vector): what the config exercise lists and what hf_model_load binds. */
void hf_weights(const ModelConfig *cfg, const HfInfo *info, const char *prefix,
                void (*fn)(void *ctx, const char *name, long long rows, long long cols),
                void *ctx);
/* The parameter counter's view of a Hugging Face config (explain_params): every weight
 * hf_weights lists, counted by kind, so the totals agree. */
void hf_param_config(const ModelConfig *cfg, const HfInfo *info, ParamConfig *out);
/* For a model hf_model_load loaded: calls fn for every weight of its files, by the files'
 * names (with their "transformer." or "model." prefix) and shapes (rows 0 for a vector). 0, or
 * -1 when m is not a Hugging Face model. */
int hf_model_weights(const Model *m, void (*fn)(void *ctx, const char *name, long long rows,
                                                long long cols),
                     void *ctx);
/* The parameter counter's view (hf_param_config) of a model hf_model_load loaded: 0, or -1
 * when m is not a Hugging Face model. */
int hf_model_param_config(const Model *m, ParamConfig *out);
/* Loads the directory: config, weights (memory-mapped; when every matrix is BF16, or every one
 * F16, they stay half in the map (Model.wdtype) and only the vectors are converted; otherwise
 * half precision is converted to float32), tokenizer (tokenizer.json, or vocab.json +
 * merges.txt). Refuses a model whose converted weights would not fit in the memory available. progress may be NULL. 0, or -1 with a message naming the
 * file and the tensor or key; m is then zeroed. */
int hf_model_load(Model *m, const char *dir, HfProgress progress, void *ctx, char *err,
                  size_t errlen);

#endif
