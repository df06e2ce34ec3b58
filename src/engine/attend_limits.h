/* attend_limits.h - the sizes every room agrees on: each fixed buffer that holds one of these
 * is sized from the constant here, never from a literal that happens to match. (Not
 * "limits.h": that name would hide the C library's <limits.h> from every file compiled with
 * -Isrc/engine.) */
#ifndef ATTEND_ATTEND_LIMITS_H
#define ATTEND_ATTEND_LIMITS_H

/* The model limits model_io.c checks a config against (config.max_len 1..this, n_heads
 * 1..this, n_layers 1..this, d_model 1..this): buffers per token, head or layer are sized
 * from these (model_io.c's config checks and model.c's per-head and per-token buffers). */
#define ATTEND_MAX_LEN 4096
#define ATTEND_MAX_HEADS 64
#define ATTEND_MAX_LAYERS 48
#define ATTEND_MAX_D_MODEL 4096
/* The widest attention head (config.d_head 1..this). */
#define ATTEND_MAX_D_HEAD 1024
/* Entries of a widget's starting token order ("start.order"): lessons reorder short sentences
 * only, so a start holds at most this many positions. */
#define ATTEND_MAX_ORDER 64
/* Tokens a drill tokenizes to count a lesson sentence (more are counted, not stored). */
#define ATTEND_MAX_DRILL_TOKENS 128
/* Bytes of a sentence typed in the player (with its NUL): room for GPT-2's whole context, 1024
 * tokens of English text. */
#define ATTEND_MAX_SENTENCE 8192
/* Lesson sentences a drill chooses from. */
#define ATTEND_MAX_DRILL_SENTENCES 64

#endif
