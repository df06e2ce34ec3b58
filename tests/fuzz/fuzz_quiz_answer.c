/* fuzz_quiz_answer.c - libFuzzer harness for quiz answer parsing: any text typed as an answer
 * to a number, shape, choice, multi or text question is judged (right, wrong, or invalid with
 * a message), never crashes; numbers parse to finite values (or the allowed infinity). */
#include <math.h>

#include "fuzz_common.h"
#include "quiz.h"

static QuizItem items[5];

static void setup(void)
{
    memset(items, 0, sizeof items);
    items[0].kind = QK_NUMBER;
    items[0].number = 0.25;
    items[0].tol = 0.01;
    items[1].kind = QK_SHAPE;
    items[1].rank = 2;
    items[1].dims[0] = 6;
    items[1].dims[1] = 64;
    items[2].kind = QK_CHOICE;
    items[2].n_choices = 3;
    items[2].correct = 2;
    items[3].kind = QK_MULTI;
    items[3].n_choices = 4;
    items[3].correct = 5;
    items[4].kind = QK_TEXT;
    items[4].n_text = 2;
    snprintf(items[4].text[0], sizeof items[4].text[0], "softmax");
    snprintf(items[4].text[1], sizeof items[4].text[1], "the softmax");
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < items[i].n_choices; c++)
            snprintf(items[i].choices[c], sizeof items[i].choices[c], "choice %d", c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        setup();
        ready = 1;
    }
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    char msg[512], norm[256];
    for (int i = 0; i < 5; i++) {
        msg[0] = 0;
        QuizVerdict v = quiz_check(&items[i], text, msg, sizeof msg);
        if (v != QV_RIGHT && v != QV_WRONG && v != QV_INVALID)
            abort();
        if (v == QV_INVALID && !msg[0])
            abort(); /* an unreadable answer always says why */
    }
    double x;
    for (int inf = 0; inf < 2; inf++)
        if (quiz_parse_number(text, inf, &x, msg, sizeof msg) == 0 && !inf && !isfinite(x))
            abort();
    int dims[QUIZ_MAX_RANK];
    int r = quiz_parse_shape(text, dims, msg, sizeof msg);
    if (r != -1 && (r < 1 || r > QUIZ_MAX_RANK))
        abort();
    quiz_normalise(text, norm, sizeof norm);
    if (strlen(norm) >= sizeof norm)
        abort();
    free(text);
    return 0;
}
