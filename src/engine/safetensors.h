/* safetensors.h - Hugging Face safetensors files, memory-mapped and validated: one file or
 * shards listed by model.safetensors.index.json; float32 tensors read in place, float16 and
 * bfloat16 read in place (st_half) or converted to float32 block by block (st_matrix). No
 * curses, no printing, no exit(). */
#ifndef ATTEND_SAFETENSORS_H
#define ATTEND_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

/* The largest header accepted: the safetensors library's own limit (100 MB). */
#define ST_MAX_HEADER ((size_t)100000000)
#define ST_MAX_DIMS 8
#define ST_MAX_FILES 256
/* The largest data offset accepted: 2^53, the last whole number a JSON number holds exactly. */
#define ST_MAX_OFFSET 9007199254740992.0

typedef enum { ST_F32, ST_F16, ST_BF16, ST_OTHER } StDtype;

typedef struct {
    char *name;               /* owned */
    char dtype[12];           /* as written: "F32", "BF16", "I64"... */
    StDtype kind;
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    size_t begin, end;        /* byte range in the file's data (after the header) */
    int file;                 /* index into StSet.files */
} StTensor;

typedef struct {
    char *path;               /* owned */
    const unsigned char *map; /* (size) the mapped file, or NULL for a parsed buffer */
    size_t size;
    size_t data_off;          /* 8 + header length */
    int mapped;               /* 1: map is ours to unmap */
} StFile;

/* Called while tensors are converted or read: done of total bytes. */
typedef void (*StProgress)(void *ctx, size_t done, size_t total);

typedef struct {
    int n_files;
    StFile files[ST_MAX_FILES];
    int n;
    StTensor *t;              /* (n) sorted by name */
    int n_owned, cap_owned;
    float **owned;            /* converted tensors (n_owned), freed by st_close */
    size_t mapped_bytes;      /* sum of the files' sizes */
    StProgress progress;      /* may be NULL */
    void *progress_ctx;
    size_t done, total;       /* bytes converted or read so far, of total (st_plan) */
} StSet;

/* Opens the weights of a Hugging Face model directory: model.safetensors, or the shards named
 * by model.safetensors.index.json. Every file is mapped read-only and its header validated
 * (length inside the file, JSON, each tensor's dtype, shape and byte range; no two ranges
 * overlap). 0, or -1 with "FILE: message" naming the tensor or key in err; s is then empty. */
int st_open_dir(StSet *s, const char *dir, char *err, size_t errlen);
/* Validates a whole file image held in memory (name is used in messages); the tensors then
 * point into buf, which must outlive s. 0 or -1 with a message. (The fuzz harness's entry.) */
int st_parse_buffer(StSet *s, const char *name, const unsigned char *buf, size_t len, char *err,
                    size_t errlen);
/* The tensor of that name, or NULL. */
const StTensor *st_find(const StSet *s, const char *name);
/* The float32 data of tensor name, checked to have the shape (rows, cols), or (cols) when
 * rows is 0: in place in the mapped file for an aligned F32 tensor, else converted into a
 * buffer s owns. NULL with "FILE: tensor \"name\" ..." in err when missing, of another shape
 * or of an unsupported dtype. */
const float *st_matrix(StSet *s, const char *name, int64_t rows, int64_t cols, char *err,
                       size_t errlen);
/* 1 when tensor name holds F16 or BF16 values that can be read in place (2-byte aligned in
 * the mapped file, on a little-endian machine), else 0. */
int st_half_in_place(const StSet *s, const char *name);
/* The 16-bit values of tensor name in place in the mapped file (st_half_in_place), checked to
 * have the shape as st_matrix checks it; every page read once (progress ticks). NULL with a
 * message in err otherwise. */
const uint16_t *st_half(StSet *s, const char *name, int64_t rows, int64_t cols, char *err,
                        size_t errlen);
/* Bytes st_matrix will allocate for tensor name (its float32 size unless it is read in place). */
size_t st_convert_bytes(const StSet *s, const char *name);
/* Unmaps and frees everything; s is zeroed. */
void st_close(StSet *s);
/* IEEE half and bfloat16 to float. */
float st_f16(uint16_t h);
float st_bf16(uint16_t h);

#endif
