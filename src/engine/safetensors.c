/* safetensors.c - memory-mapped, validated safetensors files (see safetensors.h). The format:
 * 8 bytes little-endian header length N, N bytes of JSON {name: {dtype, shape, data_offsets}},
 * then the tensors' bytes. */
#include "safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "json.h"
#include "tensor.h"

float st_f16(uint16_t h)
{
    float f; /* the one IEEE-half decoder: tensor_widen's */
    tensor_widen(&f, &h, TENSOR_F16, 1);
    return f;
}

float st_bf16(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* ------------------------------------------------ a file that changes while mapped (SIGBUS)
 *
 * A mapped file truncated while open (a download restarted over it, a copy rewritten) makes
 * every read of a vanished page raise SIGBUS. The handler below, for an address inside one of
 * the maps registered here, maps zero pages over that whole map (MAP_FIXED, anonymous) and
 * marks it changed, then returns: the read that faulted runs again and reads zeros, in
 * whatever code and thread it was (the loader, a kernel of the forward pass, a worker
 * thread). Whoever read the weights then asks st_changed (st_matrix does; the forward pass
 * does through Model.store_check) and reports "the model file changed while open: PATH"
 * instead of any number computed from those zeros. A SIGBUS anywhere else goes to the
 * handler that was installed before (the player's crash handler, or the default). */

#define ST_GUARD_MAX 64
static struct {
    volatile uintptr_t lo, hi;       /* [lo, hi) the mapped bytes, 0 when free */
    volatile sig_atomic_t changed;   /* 1 once a read there faulted */
} st_guard[ST_GUARD_MAX];
static struct sigaction st_old_bus;

static void st_on_bus(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    if (si->si_code > 0) /* a fault, not a kill(): is it in one of our maps? */
        for (int i = 0; i < ST_GUARD_MAX; i++) {
            uintptr_t lo = st_guard[i].lo, hi = st_guard[i].hi;
            if (lo && a >= lo && a < hi) {
                void *p = mmap((void *)lo, hi - lo, PROT_READ,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
                if (p != MAP_FAILED) {
                    st_guard[i].changed = 1;
                    return; /* the faulting read runs again and reads zeros */
                }
            }
        }
    /* Not ours: the handler before ours. A fault returns and faults again into it; a signal
     * sent by kill() is raised again (blocked until this handler returns). */
    sigaction(SIGBUS, &st_old_bus, NULL);
    if (si->si_code <= 0)
        raise(sig);
    (void)uc;
}

void st_guard_install(void)
{
    struct sigaction cur, sa;
    if (sigaction(SIGBUS, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
        cur.sa_sigaction == st_on_bus)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = st_on_bus;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO;
    st_old_bus = cur;
    sigaction(SIGBUS, &sa, NULL);
}

/* Registers a map; its slot, or -1 when all are taken (then a truncation is not caught). */
static int guard_add(const void *p, size_t n)
{
    st_guard_install();
    for (int i = 0; i < ST_GUARD_MAX; i++)
        if (!st_guard[i].lo) {
            st_guard[i].changed = 0;
            st_guard[i].hi = (uintptr_t)p + n;
            st_guard[i].lo = (uintptr_t)p;
            return i;
        }
    return -1;
}

static void guard_remove(const void *p)
{
    for (int i = 0; i < ST_GUARD_MAX; i++)
        if (st_guard[i].lo == (uintptr_t)p) {
            st_guard[i].lo = st_guard[i].hi = 0;
            st_guard[i].changed = 0;
        }
}

const char *st_changed(const StSet *s)
{
    for (int i = 0; i < s->n_files; i++) {
        const StFile *f = &s->files[i];
        if (!f->mapped)
            continue;
        for (int g = 0; g < ST_GUARD_MAX; g++)
            if (st_guard[g].lo == (uintptr_t)f->map && st_guard[g].changed)
                return f->path;
    }
    return NULL;
}

int st_check(const StSet *s, char *err, size_t errlen)
{
    const char *p = st_changed(s);
    if (!p)
        return 0;
    snprintf(err, errlen, "the model file changed while open: %s (it is shorter than when it "
             "was opened: open the model again once it is complete)", p);
    return -1;
}

static int dtype_size(const char *d, StDtype *kind)
{
    static const struct { const char *name; int size; StDtype kind; } T[] = {
        {"F32", 4, ST_F32}, {"F16", 2, ST_F16}, {"BF16", 2, ST_BF16}, {"F64", 8, ST_OTHER},
        {"I64", 8, ST_OTHER}, {"U64", 8, ST_OTHER}, {"I32", 4, ST_OTHER}, {"U32", 4, ST_OTHER},
        {"I16", 2, ST_OTHER}, {"U16", 2, ST_OTHER}, {"I8", 1, ST_OTHER}, {"U8", 1, ST_OTHER},
        {"BOOL", 1, ST_OTHER}, {"F8_E4M3", 1, ST_OTHER}, {"F8_E5M2", 1, ST_OTHER}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (strcmp(d, T[i].name) == 0) {
            *kind = T[i].kind;
            return T[i].size;
        }
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const StTensor *)a)->name, ((const StTensor *)b)->name);
}

static int cmp_begin(const void *a, const void *b)
{
    const StTensor *x = *(const StTensor *const *)a, *y = *(const StTensor *const *)b;
    return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : 0;
}

/* Reads one header entry into t. 0 or -1 with a message naming the tensor. */
static int parse_entry(const cJSON *e, StTensor *t, size_t data_size, const char *fname,
                       char *err, size_t errlen)
{
#define BAD(...) do { char m_[300]; snprintf(m_, sizeof m_, __VA_ARGS__); \
        snprintf(err, errlen, "%s: tensor \"%.100s\": %s", fname, t->name, m_); return -1; } while (0)
    if (!cJSON_IsObject(e)) BAD("its entry is not an object");
    const cJSON *dt = json_get(e, "dtype"), *sh = json_get(e, "shape"), *off = json_get(e, "data_offsets");
    if (!cJSON_IsString(dt)) BAD("\"dtype\" is missing or not a string");
    if (!cJSON_IsArray(sh)) BAD("\"shape\" is missing or not an array");
    if (!cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2) BAD("\"data_offsets\" is not [begin, end]");
    int size = dtype_size(dt->valuestring, &t->kind);
    if (!size) BAD("dtype \"%.20s\" is not a safetensors dtype", dt->valuestring);
    snprintf(t->dtype, sizeof t->dtype, "%s", dt->valuestring);
    int nd = cJSON_GetArraySize(sh);
    if (nd > ST_MAX_DIMS) BAD("%d dimensions (at most %d)", nd, ST_MAX_DIMS);
    t->ndim = nd;
    uint64_t count = 1;
    for (int i = 0; i < nd; i++) {
        const cJSON *d = cJSON_GetArrayItem(sh, i);
        if (!cJSON_IsNumber(d) || d->valuedouble < 0 || d->valuedouble > 4e15 ||
            d->valuedouble != (double)(int64_t)d->valuedouble)
            BAD("shape[%d] is not a whole number >= 0", i);
        t->shape[i] = (int64_t)d->valuedouble;
        if (t->shape[i] && count > UINT64_MAX / 16 / (uint64_t)t->shape[i])
            BAD("its shape is too large");
        count *= (uint64_t)t->shape[i];
    }
    const cJSON *o0 = cJSON_GetArrayItem(off, 0), *o1 = cJSON_GetArrayItem(off, 1);
    if (!cJSON_IsNumber(o0) || !cJSON_IsNumber(o1))
        BAD("\"data_offsets\" must be whole numbers with begin <= end");
    double b = o0->valuedouble, en = o1->valuedouble;
    char nb[40], ne[40];
    if (b > ST_MAX_OFFSET || en > ST_MAX_OFFSET)
        BAD("data_offsets [%s, %s] go past 2^53 = %.0f bytes, the largest offset a JSON "
            "number holds exactly (and far past any file)", json_num_text(b, nb, sizeof nb),
            json_num_text(en, ne, sizeof ne), ST_MAX_OFFSET);
    if (!(b >= 0 && en >= b) || b != (double)(uint64_t)b || en != (double)(uint64_t)en)
        BAD("\"data_offsets\" must be whole numbers with begin <= end");
    if (en > (double)data_size)
        BAD("data_offsets [%.0f, %.0f] run past the end of the data (%zu bytes)", b, en, data_size);
    t->begin = (size_t)b;
    t->end = (size_t)en;
    if ((uint64_t)(t->end - t->begin) != count * (uint64_t)size)
        BAD("dtype %s and shape need %llu bytes but data_offsets hold %zu", t->dtype,
            (unsigned long long)(count * (uint64_t)size), t->end - t->begin);
    return 0;
#undef BAD
}

/* Parses the header of file fi (already in s->files) and appends its tensors. */
static int parse_file(StSet *s, int fi, char *err, size_t errlen)
{
    StFile *f = &s->files[fi];
    const char *fname = f->path;
    if (f->size < 8) {
        snprintf(err, errlen, "%s: truncated: %zu bytes, fewer than the 8 of the header length",
                 fname, f->size);
        return -1;
    }
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--)
        hlen = hlen << 8 | f->map[i];
    if (hlen > ST_MAX_HEADER) {
        snprintf(err, errlen, "%s: its first 8 bytes give a header length over the %zu bytes "
                 "accepted: not a safetensors file, or a damaged one", fname, ST_MAX_HEADER);
        return -1;
    }
    if (hlen > f->size - 8) {
        snprintf(err, errlen, "%s: the header length (its first 8 bytes) runs past the end of "
                 "the file (%zu bytes): truncated or not a safetensors file", fname, f->size);
        return -1;
    }
    f->data_off = 8 + (size_t)hlen;
    size_t data_size = f->size - f->data_off;
    cJSON *root = cJSON_ParseWithLength((const char *)f->map + 8, (size_t)hlen);
    if (!cJSON_IsObject(root)) {
        snprintf(err, errlen, "%s: the header is not a JSON object", fname);
        cJSON_Delete(root);
        return -1;
    }
    int first = s->n, count = 0;
    for (const cJSON *e = root->child; e; e = e->next)
        count += strcmp(e->string, "__metadata__") != 0;
    StTensor *nt = realloc(s->t, sizeof *nt * (size_t)(s->n + count + 1));
    if (!nt) {
        snprintf(err, errlen, "%s: out of memory", fname);
        cJSON_Delete(root);
        return -1;
    }
    s->t = nt;
    int rc = 0;
    for (const cJSON *e = root->child; e && !rc; e = e->next) {
        if (strcmp(e->string, "__metadata__") == 0)
            continue;
        StTensor *t = &s->t[s->n];
        memset(t, 0, sizeof *t);
        t->file = fi;
        t->name = strdup(e->string);
        if (!t->name) {
            snprintf(err, errlen, "%s: out of memory", fname);
            rc = -1;
            break;
        }
        s->n++;
        rc = parse_entry(e, t, data_size, fname, err, errlen);
    }
    cJSON_Delete(root);
    if (rc)
        return -1;
    /* No two tensors of this file share a byte. */
    int k = s->n - first;
    StTensor **by = malloc(sizeof *by * (size_t)(k ? k : 1));
    if (!by) {
        snprintf(err, errlen, "%s: out of memory", fname);
        return -1;
    }
    for (int i = 0; i < k; i++)
        by[i] = &s->t[first + i];
    qsort(by, (size_t)k, sizeof *by, cmp_begin);
    for (int i = 1; i < k && !rc; i++)
        if (by[i]->begin < by[i - 1]->end && by[i]->begin < by[i]->end) {
            snprintf(err, errlen, "%s: tensors \"%.100s\" and \"%.100s\" overlap (bytes %zu..%zu "
                     "and %zu..%zu)", fname, by[i - 1]->name, by[i]->name, by[i - 1]->begin,
                     by[i - 1]->end, by[i]->begin, by[i]->end);
            rc = -1;
        }
    free(by);
    return rc;
}

/* Sorts the tensors by name and refuses a name given twice. */
static int finish(StSet *s, char *err, size_t errlen)
{
    qsort(s->t, (size_t)s->n, sizeof *s->t, cmp_name);
    for (int i = 1; i < s->n; i++)
        if (strcmp(s->t[i].name, s->t[i - 1].name) == 0) {
            snprintf(err, errlen, "%s: tensor \"%.100s\" is given twice (also in %s)",
                     s->files[s->t[i].file].path, s->t[i].name, s->files[s->t[i - 1].file].path);
            return -1;
        }
    return 0;
}

/* Maps path read-only as file number s->n_files. */
static int map_file(StSet *s, const char *path, char *err, size_t errlen)
{
    if (s->n_files >= ST_MAX_FILES) {
        snprintf(err, errlen, "%s: more than %d weight files", path, ST_MAX_FILES);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    StFile *f = &s->files[s->n_files];
    memset(f, 0, sizeof *f);
    f->path = strdup(path);
    f->size = (size_t)st.st_size;
    if (f->size > 0) {
        void *p = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
        f->map = p == MAP_FAILED ? NULL : p;
    }
    close(fd);
    if (!f->path || (f->size > 0 && !f->map)) {
        snprintf(err, errlen, "%s: cannot map the file: %s", path, strerror(errno));
        free(f->path);
        return -1;
    }
    f->mapped = f->map != NULL;
    if (f->mapped)
        guard_add(f->map, f->size);
    if (!f->map) { /* an empty file: nothing mapped, reported by parse_file */
        static const unsigned char none[1];
        f->map = none;
    }
    s->n_files++;
    s->mapped_bytes += f->size;
    int rc = parse_file(s, s->n_files - 1, err, errlen);
    if (st_check(s, err, errlen)) /* truncated while its header was read */
        return -1;
    return rc;
}

int st_parse_buffer(StSet *s, const char *name, const unsigned char *buf, size_t len, char *err,
                    size_t errlen)
{
    memset(s, 0, sizeof *s);
    StFile *f = &s->files[0];
    f->path = strdup(name);
    f->map = buf;
    f->size = len;
    s->n_files = 1;
    if (!f->path) {
        snprintf(err, errlen, "out of memory");
        st_close(s);
        return -1;
    }
    if (parse_file(s, 0, err, errlen) || finish(s, err, errlen)) {
        st_close(s);
        return -1;
    }
    return 0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Opens the shards named by the index's weight_map (each file once). */
static int open_index(StSet *s, const char *dir, const char *index, char *err, size_t errlen)
{
    cJSON *root = json_parse_file(index, NULL, err, errlen);
    if (!root)
        return -1;
    const cJSON *wm = json_get(root, "weight_map");
    int rc = 0;
    if (!cJSON_IsObject(wm) || !wm->child) {
        snprintf(err, errlen, "%s: \"weight_map\" is missing or empty", index);
        rc = -1;
    }
    for (const cJSON *e = wm ? wm->child : NULL; e && !rc; e = e->next) {
        if (!cJSON_IsString(e) || !e->valuestring[0] || strchr(e->valuestring, '/')) {
            snprintf(err, errlen, "%s: weight_map[\"%.100s\"] is not a file name in the directory",
                     index, e->string);
            rc = -1;
            break;
        }
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->valuestring);
        int seen = 0;
        for (int i = 0; i < s->n_files && !seen; i++)
            seen = strcmp(s->files[i].path, path) == 0;
        if (seen)
            continue;
        char e2[700];
        int ab = fileio_absent(path, e2, sizeof e2);
        if (ab) {
            if (ab == 2)
                snprintf(err, errlen, "%s: shard %s (holding \"%.100s\"): %s", index,
                         e->valuestring, e->string, e2);
            else
                snprintf(err, errlen, "%s: shard %s (holding \"%.100s\") is missing", index,
                         e->valuestring, e->string);
            rc = -1;
            break;
        }
        rc = map_file(s, path, err, errlen);
    }
    /* no tensor is in two shards (else the lookup below finds either), and every tensor the
     * index names is in the shard it names */
    if (!rc)
        rc = finish(s, err, errlen);
    for (const cJSON *e = wm && !rc ? wm->child : NULL; e && !rc; e = e->next) {
        const StTensor *t = st_find(s, e->string);
        if (!t || strcmp(base_name(s->files[t->file].path), e->valuestring) != 0) {
            snprintf(err, errlen, "%s: tensor \"%.100s\" is listed in the index but is not in "
                     "%s", index, e->string, e->valuestring);
            rc = -1;
        }
    }
    cJSON_Delete(root);
    return rc;
}

int st_open_dir(StSet *s, const char *dir, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    char one[1024], index[1024];
    snprintf(one, sizeof one, "%s/model.safetensors", dir);
    snprintf(index, sizeof index, "%s/model.safetensors.index.json", dir);
    int rc, a1 = fileio_absent(one, err, errlen), a2 = a1 == 1 ? fileio_absent(index, err, errlen) : 1;
    if (a1 == 2 || a2 == 2)
        rc = -1; /* a dangling link, named as such in err */
    else if (!a1)
        rc = map_file(s, one, err, errlen);
    else if (!a2)
        rc = open_index(s, dir, index, err, errlen);
    else {
        snprintf(err, errlen, "%s: no weights: neither model.safetensors nor "
                 "model.safetensors.index.json is there", dir);
        rc = -1;
    }
    if (rc || finish(s, err, errlen)) {
        st_close(s);
        return -1;
    }
    return 0;
}

const StTensor *st_find(const StSet *s, const char *name)
{
    StTensor key;
    key.name = (char *)name;
    return s->n ? bsearch(&key, s->t, (size_t)s->n, sizeof *s->t, cmp_name) : NULL;
}

static int in_place(const StSet *s, const StTensor *t)
{
    const unsigned char *p = s->files[t->file].map + s->files[t->file].data_off + t->begin;
    return t->kind == ST_F32 && ((uintptr_t)p % sizeof(float)) == 0;
}

int st_nonfinite(const StSet *s, char *err, size_t errlen)
{
    for (int i = 0; i < s->n; i++) {
        const StTensor *t = &s->t[i];
        const StFile *f = &s->files[t->file];
        const unsigned char *p = f->map + f->data_off + t->begin;
        int w = t->kind == ST_F32 ? 4 : t->kind == ST_OTHER ? 0 : 2;
        for (size_t k = 0; w && k < (t->end - t->begin) / (size_t)w; k++) {
            const unsigned char *x = p + k * (size_t)w;
            int bad = t->kind == ST_F32 ? (x[3] & 0x7f) == 0x7f && (x[2] & 0x80)
                    : t->kind == ST_BF16 ? (x[1] & 0x7f) == 0x7f && (x[0] & 0x80)
                                         : (x[1] & 0x7c) == 0x7c;
            if (!bad)
                continue;
            int nan = t->kind == ST_F32 ? ((x[2] & 0x7f) | x[1] | x[0]) != 0
                    : t->kind == ST_BF16 ? (x[0] & 0x7f) != 0 : ((x[1] & 3) | x[0]) != 0;
            int64_t cols = t->ndim >= 2 ? t->shape[t->ndim - 1] : 0;
            char at[64];
            if (cols > 0)
                snprintf(at, sizeof at, "[%lld][%lld]", (long long)((int64_t)k / cols),
                         (long long)((int64_t)k % cols));
            else
                snprintf(at, sizeof at, "[%zu]", k);
            snprintf(err, errlen, "%s: tensor \"%.100s\" holds %s at %s", f->path, t->name,
                     nan ? "NaN" : "an infinity", at);
            return -1;
        }
    }
    return 0;
}

size_t st_convert_bytes(const StSet *s, const char *name)
{
    const StTensor *t = st_find(s, name);
    if (!t || in_place(s, t))
        return 0;
    int size = t->kind == ST_F32 ? 4 : 2;
    return (t->end - t->begin) / (size_t)size * sizeof(float);
}

static void tick(StSet *s, size_t bytes)
{
    s->done += bytes;
    if (s->progress)
        s->progress(s->progress_ctx, s->done, s->total);
}

/* The tensor of that name checked to have the shape (rows, cols) (or (cols) when rows is 0)
 * and a dtype attend reads; NULL with a message naming the file and the tensor. */
static const StTensor *checked(const StSet *s, const char *name, int64_t rows, int64_t cols,
                               char *err, size_t errlen)
{
    const StTensor *t = st_find(s, name);
    const char *fname = s->n_files == 1 ? s->files[0].path : "the model's safetensors";
    if (!t) {
        snprintf(err, errlen, "%s: tensor \"%.100s\" is missing", fname, name);
        return NULL;
    }
    fname = s->files[t->file].path;
    int ok = rows ? t->ndim == 2 && t->shape[0] == rows && t->shape[1] == cols
                  : t->ndim == 1 && t->shape[0] == cols;
    if (!ok) {
        char got[120] = "[", want[60];
        for (int i = 0; i < t->ndim; i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%lld", i ? ", " : "",
                     (long long)t->shape[i]);
        snprintf(got + strlen(got), sizeof got - strlen(got), "]");
        if (rows)
            snprintf(want, sizeof want, "[%lld, %lld]", (long long)rows, (long long)cols);
        else
            snprintf(want, sizeof want, "[%lld]", (long long)cols);
        snprintf(err, errlen, "%s: tensor \"%.100s\" has shape %s; config.json says %s", fname,
                 name, got, want);
        return NULL;
    }
    if (t->kind == ST_OTHER) {
        snprintf(err, errlen, "%s: tensor \"%.100s\" is %s; attend reads F32, F16 and BF16",
                 fname, name, t->dtype);
        return NULL;
    }
    return t;
}

/* Every page of t touched once (the kernel reads ahead), so the progress shows the file coming
 * in and the first forward pass finds it in memory. A mapped file's pages are mapped 16 MB at a
 * time by MADV_POPULATE_READ (Linux 5.14) where the kernel has it: one call instead of a page
 * fault per folio (warm Qwen3-4B BF16, `attend dump`: 25,131 faults -> 19,439, 1.49 -> 1.40 s of
 * CPU); where it has not (EINVAL), or on a read (not mapped) copy, and for a page gone from a
 * file cut short (EFAULT: the read below raises SIGBUS, handled above), each page is read. */
static void touch(StSet *s, const StTensor *t, const unsigned char *src)
{
    size_t len = t->end - t->begin, page = 4096, step = (size_t)16 << 20;
    uintptr_t a0 = (uintptr_t)src & ~(uintptr_t)(page - 1);
    int mapped = s->files[t->file].mapped;
    if (mapped)
        madvise((void *)a0, len + ((uintptr_t)src - a0), MADV_WILLNEED);
#ifdef MADV_POPULATE_READ
    static int populate = 1; /* 0 once the kernel said it has no MADV_POPULATE_READ */
#else
    int populate = 0;
#endif
    for (size_t o = 0; o < len; o += step) {
        size_t e = o + step < len ? o + step : len;
#ifdef MADV_POPULATE_READ
        uintptr_t b0 = ((uintptr_t)src + o) & ~(uintptr_t)(page - 1);
        if (mapped && populate && madvise((void *)b0, (uintptr_t)src + e - b0, MADV_POPULATE_READ) == 0) {
            tick(s, e - o);
            continue;
        }
        if (mapped && populate && errno == EINVAL)
            populate = 0;
#endif
        volatile unsigned char sink = 0;
        for (size_t p = o; p < e; p += page)
            sink ^= src[p];
        (void)sink;
        tick(s, e - o);
    }
}

const uint16_t *st_half(StSet *s, const char *name, int64_t rows, int64_t cols, char *err,
                        size_t errlen)
{
    const StTensor *t = checked(s, name, rows, cols, err, errlen);
    if (!t)
        return NULL;
    const unsigned char *src = s->files[t->file].map + s->files[t->file].data_off + t->begin;
    if (!st_half_in_place(s, name)) {
        snprintf(err, errlen, "%s: tensor \"%.100s\" is %s: not 16-bit values aligned in place",
                 s->files[t->file].path, name, t->dtype);
        return NULL;
    }
    touch(s, t, src);
    return st_check(s, err, errlen) ? NULL : (const uint16_t *)(const void *)src;
}

int st_half_in_place(const StSet *s, const char *name)
{
    const StTensor *t = st_find(s, name);
    if (!t || (t->kind != ST_BF16 && t->kind != ST_F16))
        return 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const unsigned char *p = s->files[t->file].map + s->files[t->file].data_off + t->begin;
    return ((uintptr_t)p % sizeof(uint16_t)) == 0;
#else
    return 0; /* the 16-bit values are little-endian in the file */
#endif
}

const float *st_matrix(StSet *s, const char *name, int64_t rows, int64_t cols, char *err,
                       size_t errlen)
{
    const StTensor *t = checked(s, name, rows, cols, err, errlen);
    if (!t)
        return NULL;
    const char *fname = s->files[t->file].path;
    const unsigned char *src = s->files[t->file].map + s->files[t->file].data_off + t->begin;
    size_t n = (t->end - t->begin) / (t->kind == ST_F32 ? 4 : 2);
    if (in_place(s, t)) {
        touch(s, t, src);
        return st_check(s, err, errlen) ? NULL : (const float *)(const void *)src;
    }
    if (s->n_owned == s->cap_owned) {
        int cap = s->cap_owned ? 2 * s->cap_owned : 64;
        float **o = realloc(s->owned, sizeof *o * (size_t)cap);
        if (!o) {
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        s->owned = o;
        s->cap_owned = cap;
    }
    float *out = malloc(sizeof(float) * (n ? n : 1));
    if (!out) {
        snprintf(err, errlen, "%s: out of memory converting tensor \"%.100s\" (%zu MB)", fname,
                 name, n * 4 >> 20);
        return NULL;
    }
    s->owned[s->n_owned++] = out;
    /* Block by block: 64 K values at a time, progress after each. */
    const size_t B = 65536;
    for (size_t i0 = 0; i0 < n; i0 += B) {
        size_t i1 = i0 + B < n ? i0 + B : n;
        for (size_t i = i0; i < i1; i++) {
            if (t->kind == ST_F32) {
                memcpy(out + i, src + 4 * i, 4);
            } else {
                uint16_t h = (uint16_t)(src[2 * i] | src[2 * i + 1] << 8);
                out[i] = t->kind == ST_F16 ? st_f16(h) : st_bf16(h);
            }
        }
        tick(s, (i1 - i0) * (t->kind == ST_F32 ? 4 : 2));
    }
    return st_check(s, err, errlen) ? NULL : out;
}

void st_close(StSet *s)
{
    for (int i = 0; i < s->n_files; i++) {
        if (s->files[i].mapped) {
            guard_remove(s->files[i].map);
            munmap((void *)s->files[i].map, s->files[i].size);
        }
        free(s->files[i].path);
    }
    for (int i = 0; i < s->n; i++)
        free(s->t[i].name);
    free(s->t);
    for (int i = 0; i < s->n_owned; i++)
        free(s->owned[i]);
    free(s->owned);
    memset(s, 0, sizeof *s);
}
