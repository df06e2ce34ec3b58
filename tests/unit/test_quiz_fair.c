/* test_quiz_fair.c - choices and class screens that give nothing away (issue 34), over the
 * shipped course and seeds 1..SEEDS: the right answer of a four-choice question is its
 * longest choice (ties counted fairly: 1/k of a k-way tie) no more often than chance, 1 in
 * 3 at most; each shown position holds the right answer about a quarter of the time; a
 * number question's class grid never prints its answer; no prompt tells keys to press; and
 * after a wrong pick, the verdict, the first hint and the answer shown speak to that pick
 * (its "why"). Prints the shares it measures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "quiz.h"
#include "t.h"

#define SEEDS 20

/* Characters as a reader counts them (UTF-8 continuation bytes not counted). */
static int chars(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

int main(void)
{
    Course c;
    memset(&c, 0, sizeof c);
    char err[600] = "";
    CHECK(lesson_load_dir(&c, "lessons", err, sizeof err) == 0, "lessons/ loads: %s", err);
    double longest = 0;
    int four = 0, pos[4] = {0}, grids = 0, hinted = 0;
    for (int seed = 1; seed <= SEEDS; seed++) {
        QuizSet s;
        CHECK(quiz_build(&s, &c, NULL, 0, (uint64_t)seed, err, sizeof err) == 0, "%s", err);
        for (int i = 0; i < s.n; i++) {
            const QuizItem *it = &s.items[i];
            CHECK(!strstr(it->prompt, "press ") && !strstr(it->prompt, "Press ") &&
                  !strstr(it->prompt, "Enter"), "%s: a prompt without keys: %s", it->key,
                  it->prompt);
            if (it->kind == QK_NUMBER && it->grid_n) {
                grids++;
                for (int k = 0; k < it->grid_n * it->grid_m; k++) {
                    double v = it->grid_masked[k] ? 0.0 : (double)it->grid[k];
                    double tol = it->tol > 0.005 ? it->tol : 0.005;
                    CHECK(!(v - it->number <= tol && it->number - v <= tol),
                          "%s: the class grid prints the answer %g", it->key, it->number);
                }
            }
            if (it->kind != QK_CHOICE)
                continue;
            int right = -1, max = 0, ties = 0;
            for (int k = 0; k < it->n_choices; k++) {
                int l = chars(it->choices[k]);
                if (it->correct >> k & 1)
                    right = k;
                if (l > max)
                    max = l, ties = 0;
                ties += l == max;
            }
            /* the first hint after each wrong pick rules out that pick */
            for (int k = 0; seed == 1 && k < it->n_choices && it->n_choices > 2; k++) {
                char given[16], hint[800], want[40];
                if (it->correct >> k & 1)
                    continue;
                snprintf(given, sizeof given, "%d", k + 1);
                snprintf(want, sizeof want, "It is not choice %d ", k + 1);
                CHECK(quiz_hint_after(it, 0, given, hint, sizeof hint) &&
                      !strncmp(hint, want, strlen(want)), "%s: after %s the first hint: %s",
                      it->key, given, hint);
                /* the verdict and the answer shown say why not this pick, when the author
                 * gave a reason */
                char msg[700], text[3000];
                CHECK(quiz_check(it, given, msg, sizeof msg) == QV_WRONG &&
                      (!it->why[k][0] || strstr(msg, it->why[k])), "%s: the verdict on %s: %s",
                      it->key, given, msg);
                quiz_verdict_text(it, given, text, sizeof text);
                CHECK(!it->why[k][0] || (strstr(text, "Why not") && strstr(text, it->why[k])),
                      "%s: the answer shown after %s: %s", it->key, given, text);
                hinted++;
            }
            if (it->n_choices != 4)
                continue;
            four++;
            pos[right]++;
            if (chars(it->choices[right]) == max)
                longest += 1.0 / ties;
        }
        quiz_set_free(&s);
    }
    double share = four ? longest / four : 0;
    printf("four-choice questions over seeds 1..%d: %d; the right answer is the longest in "
           "%.1f (share %.3f, chance 0.250, bound 0.333)\n", SEEDS, four, longest, share);
    printf("right answer at position 1..4: %.3f %.3f %.3f %.3f\n", (double)pos[0] / four,
           (double)pos[1] / four, (double)pos[2] / four, (double)pos[3] / four);
    printf("number questions with a class grid: %d; first hints after a wrong pick: %d\n",
           grids, hinted);
    CHECK(four > 0 && share <= 1.0 / 3.0, "the longest choice is right %.3f of the time", share);
    for (int k = 0; k < 4; k++)
        CHECK(four && (double)pos[k] / four >= 0.2 && (double)pos[k] / four <= 0.3,
              "position %d holds the answer %.3f of the time", k + 1, (double)pos[k] / four);
    lesson_free_course(&c);
    return t_done("quiz_fair");
}
