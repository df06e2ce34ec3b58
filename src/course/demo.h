/* demo.h - demo scripts (docs/demos.md): a JSON list of steps a presenter plays one by one
 * (open a lesson's page, press keys, type a sentence, show a caption, pause), each with the
 * line:col it starts at for messages. Terminal-free; the keys are checked against the key
 * table by src/tui/demo_play.c. */
#ifndef ATTEND_DEMO_H
#define ATTEND_DEMO_H

#include <stddef.h>

#define DEMO_MAX_STEPS 200

typedef struct {
    int line, col;           /* where the step's object starts in the file */
    char lesson[48];         /* "open": a lesson id ("" when the step opens nothing) */
    int page;                /* with open: the page, from 1 */
    char keys[256];          /* key names separated by spaces ("m", "space", "right") */
    char type[256];          /* a sentence to type into the page's editor ("" none) */
    char caption[300];       /* shown on the caption row from this step on ("" keeps it) */
    double pause;            /* extra seconds before the next step under --auto */
} DemoStep;

typedef struct {
    char path[512];
    char title[200];
    DemoStep steps[DEMO_MAX_STEPS];
    int n_steps;
} Demo;

/* Loads a demo script. 0, or -1 with "FILE:LINE:COL: message" in err. */
int demo_load(Demo *d, const char *path, char *err, size_t errlen);

#endif
