/* session_lab.c - a lab page's last check, the Session's (session.h): what `attend lab check`
 * or `lab watch` (in another terminal) left in the lab's show file (lab_show.c), read again
 * whenever the file changes. The player's lab view draws it, plain mode says it: one reading
 * of the file under both front ends. */
#include <stdio.h>
#include <string.h>

#include "session.h"

void session_lab_free(Session *s)
{
    if (s->lab.have)
        lab_show_free(&s->lab.show);
    memset(&s->lab, 0, sizeof s->lab);
}

int session_lab_poll(Session *s)
{
    SessionLab *l = &s->lab;
    const LabDef *d = s->w && s->w->kind == W_LAB ? lab_find(s->w->lab) : NULL;
    if (!d)
        return 0;
    char path[1024], err[200];
    FileioPrint fp = {0};
    if (!lab_show_path(d->name, path, sizeof path, err, sizeof err))
        fileio_print(path, &fp); /* contents compared: two checks within one clock tick */
    if (l->read && !strcmp(l->lab, d->name) && fileio_print_same(&fp, &l->print))
        return 0;
    session_lab_free(s);
    l->read = 1;
    snprintf(l->lab, sizeof l->lab, "%s", d->name);
    l->print = fp;
    l->have = fp.ok && !lab_show_read(path, &l->show, l->err, sizeof l->err);
    if (!fp.ok)
        snprintf(l->err, sizeof l->err, "no check yet");
    return 1;
}
