/* test_view.c - the rules every view shares, each written once: which stack, sublayer and
 * rows a view of a model shows (model_view_stack, model_view_sub, trace_view_rows), and the
 * ModelConfig JSON writer that both the model file and the dump's "config" use; in a debug
 * build (make debug), that the kernels' asserts are on. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tensor.h"

#include "model_json.h"
#include "t.h"

/* Runs m on a 5-word sentence (and a 3-word target) and checks, for cross 0 and 1, that the
 * stack and sublayer chosen hold this head's weights and that their shape is the view's rows
 * by t->n keys. */
static void check_model(const char *path)
{
    Model m;
    char err[600];
    if (model_load(&m, path, err, sizeof err)) {
        CHECK(0, "load %s: %s", path, err);
        return;
    }
    Arch arch = m.cfg.arch;
    int src[5], tgt[3];
    for (int i = 0; i < 5; i++)
        src[i] = 2 + i % (m.vocab.n - 2);
    for (int i = 0; i < 3; i++)
        tgt[i] = 2 + (i + 1) % (m.vocab.n - 2);
    Trace *t = trace_new(&m, 5, 3);
    Controls c;
    model_default_controls(&m, &c);
    int rc = t ? model_forward(&m, src, 5, tgt, 3, &c, t, err, sizeof err) : -1;
    CHECK(rc == 0, "%s: forward: %s", path, t ? err : "out of memory");
    for (int cross = 0; cross < 2 && rc == 0; cross++) {
        Stack st = model_view_stack(&m, cross);
        Sublayer sub = model_view_sub(&m, cross);
        int want_cross = cross && arch == ARCH_ENCDEC;
        CHECK(sub == (want_cross ? SUB_CROSS : SUB_SELF), "%s cross %d: sublayer %d", path,
              cross, (int)sub);
        CHECK(st == (arch == ARCH_DECODER || want_cross ? STACK_DEC : STACK_ENC),
              "%s cross %d: stack %d", path, cross, (int)st);
        const TraceEntry *w = trace_find(t, st, m.cfg.n_layers - 1, sub, 0, T_WEIGHTS);
        const int *ids = NULL;
        int rows = trace_view_rows(t, cross, &ids);
        CHECK(w != NULL, "%s cross %d: the view's weights are in the trace", path, cross);
        CHECK(w && w->rows == rows && w->cols == t->n, "%s cross %d: weights %dx%d, view %dx%d",
              path, cross, w ? w->rows : -1, w ? w->cols : -1, rows, t->n);
        CHECK(ids == (want_cross ? t->tgt : t->src), "%s cross %d: row words", path, cross);
    }
    trace_free(t);

    /* the config written as a model file writes it reads back the same */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fputc('{', f);
    model_config_write(f, &m.cfg, "pe", ", ");
    fputc('}', f);
    fclose(f);
    cJSON *o = json_parse_text("config", buf, len, err, sizeof err);
    ModelConfig back;
    model_config_defaults(&back);
    CHECK(o && model_config_read(o, &back, err, sizeof err) == 0, "%s: config reads back: %s",
          path, err);
    CHECK(back.arch == m.cfg.arch && back.d_model == m.cfg.d_model &&
          back.n_heads == m.cfg.n_heads && back.d_head == m.cfg.d_head &&
          back.n_layers == m.cfg.n_layers && back.d_ff == m.cfg.d_ff &&
          back.max_len == m.cfg.max_len && back.pe == m.cfg.pe && back.norm == m.cfg.norm &&
          back.pre_norm == m.cfg.pre_norm && back.ffn == m.cfg.ffn &&
          back.tie_embed == m.cfg.tie_embed && back.final_norm == m.cfg.final_norm &&
          back.scale_embed == m.cfg.scale_embed && back.norm_eps == m.cfg.norm_eps,
          "%s: config round trip: %s", path, buf);
    cJSON_Delete(o);
    free(buf);
    model_free(&m);
}

/* 1 when fn stops the process with SIGABRT (an assert), run in a child with stderr closed. */
static int aborts(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 2);
        fn();
        _exit(0);
    }
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

static float buf[16];
static float *volatile alias = buf; /* the compiler cannot see the aliasing */
static void matmul_in_place(void) { tensor_matmul(alias, buf, buf + 8, 2, 2, 2); }
static void cols_past_the_row(void) { tensor_cols(buf + 8, buf, 2, 4, 3, 2); }

int main(void)
{
#ifdef ATTEND_DEBUG
    CHECK(aborts(matmul_in_place), "debug build: a matmul whose output aliases its input asserts");
    CHECK(aborts(cols_past_the_row), "debug build: a column slice past the row asserts");
#else
    (void)aborts;
    (void)matmul_in_place;
    (void)cols_past_the_row;
#endif
    /* a trace without a model (a worked example) is one decoder head */
    CHECK(model_view_stack(NULL, 0) == STACK_DEC && model_view_sub(NULL, 1) == SUB_SELF,
          "worked example: decoder self-attention");
    check_model("data/decoder.json");
    check_model("data/encoder.json");
    check_model("data/translate.json");
    return t_done("test_view");
}
