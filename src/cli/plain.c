/* plain.c - attend --plain (plain.h): pages said (title, prose, widget, keys) as the Session
 * opens and turns them, and the key table's view of the page, under the commands
 * (plain_cmd.c) and the loop (plain_main.c). Output goes through plain_say, which lets no
 * escape byte, control character or box, block or shade glyph through. */
#include "plain.h"

#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safetext.h"
#include "ui_text.h"
#include "utf8.h"

/* ---- output ---- */

/* Box drawing (U+2500-257F), blocks and shades (U+2580-259F) as ASCII; -1 for another
 * character. s points at a 3-byte UTF-8 sequence starting with 0xE2. */
static int box_glyph(const unsigned char *s)
{
    unsigned cp;
    if (utf8_decode((const char *)s, strnlen((const char *)s, 4), &cp) != 3 || cp < 0x2500 ||
        cp > 0x259F)
        return -1;
    return cp >= 0x2580 ? safetext_block_ascii((const char *)s) : cp == 0x2502 || cp == 0x2503 || cp == 0x2551 ? '|' : '-';
}

void plain_say(Plain *p, const char *text)
{
    static char tr[PLAIN_WORDS_MAX], esc[3 * PLAIN_WORDS_MAX];
    ui_text(safetext_escape(text, esc, sizeof esc), tr, sizeof tr); /* no C0/C1 control */
    const unsigned char *s = (const unsigned char *)tr;
    size_t len = 0;
    for (; *s; s++, len++) {
        int g = *s == 0xE2 ? box_glyph(s) : -1;
        if (g >= 0) {
            fputc(g, p->out);
            s += 2;
        } else if (*s == '\n' || *s == '\t' || (*s >= 0x20 && *s != 0x7F)) {
            fputc(*s == '\t' ? ' ' : *s, p->out);
        } else {
            fputc(' ', p->out); /* an escape or control byte never reaches the output */
        }
    }
    if (!len || tr[len - 1] != '\n')
        fputc('\n', p->out);
    fflush(p->out);
}

void plain_sayf(Plain *p, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    plain_say(p, buf);
}

/* ---- pages ---- */

void plain_say_lab(Plain *p)
{
    const SessionLab *l = &p->s->lab;
    const LabShow *sh = &l->show;
    if (!l->have)
        plain_sayf(p, "Your last check: %s (each check is said here).", l->err);
    else
        plain_sayf(p, "Your last check: %s. %s%s%s", !strcmp(sh->status, "pass") ? "PASS" : "FAIL",
                   sh->line, sh->diagnosis[0] ? "; diagnosis " : "", sh->diagnosis);
}

void plain_say_widget(Plain *p)
{
    static char words[PLAIN_WORDS_MAX];
    WidgetIO io;
    DescribeView v;
    if (!p->s->w || p->s->w->kind == W_NONE)
        return;
    session_io(p->s, &io);
    session_view(p->s, &v);
    describe_widget(&io, &v, words, sizeof words);
    plain_say(p, words);
    if (p->s->w->kind == W_LAB) {
        session_lab_poll(p->s);
        plain_say_lab(p);
    }
}

void plain_say_page(Plain *p)
{
    const Session *s = p->s;
    const Lesson *l = &s->course.lessons[s->lesson];
    const Page *pg = session_page(s);
    char keys[1200];
    if (!pg)
        return;
    plain_sayf(p, "Lesson %d of %d, %s. Page %d of %d: %s.", s->lesson + 1, s->course.n_lessons,
               l->title, s->page + 1, l->n_pages, pg->title);
    plain_say(p, s->prose);
    if (pg->widget.kind != W_NONE) {
        plain_sayf(p, "Widget: %s.", course_widget_name(pg->widget.kind));
        plain_say_widget(p);
    }
    plain_keys_line(p, keys, sizeof keys);
    plain_say(p, keys);
}

/* Says what went wrong opening the page (a CH_PAGE Change's issues), a sentence each. */
static void plain_say_issues(Plain *p, const PageIssues *is)
{
    static const char *const SAY[ISSUE__COUNT] = {
        [ISSUE_NO_MODEL] = "The model of this page, %s, did not load; attend check-lessons "
                           "says why.",
        [ISSUE_NO_MEMORY] = "There is no memory for the traces of the model %s.",
        [ISSUE_BAD_START] = "This page's widget cannot start: %s.",
        [ISSUE_NOT_SAVED] = "Progress was not saved: %s.",
    };
    for (int i = 0; i < ISSUE__COUNT; i++)
        if (is->bits >> i & 1u)
            plain_sayf(p, SAY[i], is->value[i]);
}

void plain_page_change(Plain *p, const Change *ch)
{
    const Course *c = &p->s->course;
    if (ch->kind == CH_REFUSED) {
        switch (ch->why) {
        case WHY_BROKEN:
            if (ch->a >= 0 && ch->a < c->n_lessons)
                plain_sayf(p, "Lesson %d (%s) is broken and was skipped: %s", ch->a + 1,
                           c->lessons[ch->a].file, ch->detail);
            break;
        case WHY_FIRST_PAGE: plain_say(p, "This is the first page."); break;
        case WHY_NO_LESSON:
            plain_sayf(p, "No lesson with id \"%s\"; lessons lists them.", ch->detail);
            break;
        case WHY_NO_PAGE: /* the value typed, as the player's G says it (present_goto) */
            if (ch->a >= 0 && ch->a < c->n_lessons)
                plain_sayf(p, "No page \"%s\" in lesson %s: type goto and a page number from "
                              "1 to %d, or goto lesson-id:number.",
                           ch->detail, c->lessons[ch->a].id, c->lessons[ch->a].n_pages);
            break;
        case WHY_ONLY_LESSON:
            plain_sayf(p, "Only lesson %s is open (--lesson): type goto and a page number from "
                          "1 to %d.", ch->detail,
                       ch->a >= 0 && ch->a < c->n_lessons ? c->lessons[ch->a].n_pages : 1);
            break;
        case WHY_LAST_PAGE: plain_say(p, "This is the last page of this lesson (q quits)."); break;
        case WHY_END:
            plain_sayf(p, "End of the course%s%s. Type lessons to list them, q to quit.",
                       ch->detail[0] ? "; skipped broken " : "", ch->detail);
            break;
        default: break;
        }
        return;
    }
    if (ch->detail[0])
        plain_sayf(p, "Skipped broken lesson %s (attend check-lessons says why).", ch->detail);
    plain_say_issues(p, &ch->issues); /* the page's model did not load, progress not saved */
    plain_say(p, "");
    plain_say_page(p);
}

void plain_open(Plain *p, int lesson, int page)
{
    Change ch;
    session_open(p->s, lesson, page, &ch);
    plain_page_change(p, &ch);
}

void plain_turn(Plain *p, int dir)
{
    Change ch;
    session_turn(p->s, dir, &ch);
    plain_page_change(p, &ch);
}

/* ---- keys: the key table's names for what a page offers ---- */

void plain_keys_line(Plain *p, char *out, size_t n)
{
    KeyState ks;
    char hints[1200] = "";
    session_key_state(p->s, &ks);
    int utf8 = ui.utf8;
    ui.utf8 = 0; /* the hints' ASCII key names: words a line can hold */
    session_hints(p->s, &ks, hints, sizeof hints); /* the player's footer's list */
    ui.utf8 = utf8;
    size_t k = (size_t)snprintf(out, n, "Keys:");
    for (char *h = hints; *h && k < n;) {
        char *us = strchr(h, '\x1f'), *rs = us ? strchr(us, '\x1e') : NULL;
        if (!us || !rs)
            break;
        *us = *rs = '\0';
        k += (size_t)snprintf(out + k, n - k, " %s %s,", h, us + 1);
        h = rs + 1;
    }
    const Page *pg = session_page(p->s);
    if (k < n)
        snprintf(out + k, n - k, " next, back, read,%s%s help, q.",
                 pg && pg->n_questions ? " Q questions," : "", pg && pg->notes ? " o notes," : "");
}
