/* quiz_item.h - one question ready to ask (QuizItem): what the quiz session builds from a
 * Question or a drill, what answer checking judges and the quiz screen shows. Plain data. */
#ifndef ATTEND_QUIZ_ITEM_H
#define ATTEND_QUIZ_ITEM_H

#include "course.h"

#define QUIZ_SLOT "quiz"     /* the progress slot holding scores and the schedule */

/* One question ready to ask: prompt expanded, answer computed. Plain data, no pointers. */
typedef struct {
    char key[100];           /* "lessonid/questionid": scores and the schedule use it */
    char lesson[48];         /* lesson id ("" for a stand-alone drill) */
    int lesson_index;        /* into Course.lessons, -1 for none */
    QuizKind kind;           /* never QK_DRILL: a drill becomes the kind it generates */
    char drill[32];          /* the drill's name when generated, else "" */
    char lead[1200];          /* a drill question's own prompt, shown above the drill */
    char prompt[1200];       /* expanded, UTF-8 */
    char context[400];       /* the setup the engine answered on, one line ("" when the answer
                                is not computed): "Sentence \"the cat sat\"; mask causal; PE
                                none; layer 0 of 2, head 1 of 4" (layers and heads from 0) */
    char explain[800];
    int n_hints;
    char hints[QUIZ_MAX_HINTS][300];
    int n_choices;
    char choices[QUIZ_MAX_CHOICES][200];
    char why[QUIZ_MAX_CHOICES][QUIZ_WHY_MAX]; /* choice: why choice i (shown order) is wrong,
                                placeholders expanded; "" for the answer or when not given */
    unsigned correct;        /* choice / multi: bit i set when choice i is right */
    double number;           /* number: the expected value (may be ±inf for masked scores) */
    double tol;              /* number: absolute tolerance */
    int rank, dims[QUIZ_MAX_RANK]; /* shape */
    int row, col, n_cols;    /* cell: the query row, the right key column, columns */
    int n_text;
    char text[QUIZ_MAX_TEXT][100]; /* text: accepted answers, already normalised */
    char answer[1200];       /* the expected answer as shown to the learner (a multi question
                                lists several whole choices: never cut) */
    /* cell questions: the weights of the question's state, for the grid */
    int grid_n, grid_m;
    float grid[QUIZ_GRID_MAX * QUIZ_GRID_MAX];
    char grid_rows[QUIZ_GRID_MAX][24], grid_cols[QUIZ_GRID_MAX][24];
    unsigned char grid_masked[QUIZ_GRID_MAX * QUIZ_GRID_MAX]; /* 1: the mask took the cell
                                (−∞ score, weight 0): shown "·" as the player shows it */
} QuizItem;

#endif
