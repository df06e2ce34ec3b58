/* keys_table.h - the key table's rows and the help's sections, shared by keys.c (the table,
 * lookups and footer hints) and keys_help.c (the `?` help, key names, plain mode's page help
 * and `attend --keys`). Internal to src/session: the front ends read keys.h. */
#ifndef KEYS_TABLE_H
#define KEYS_TABLE_H

#include "keys.h"

typedef struct {
    int key;
    Request req;
    int alias; /* 1: bound but not spelled out in its help line; the pinned help screen
                  predates the table (Home/End, ',' '.', '=' '_', ^A ^E and the like) */
} KeyBind;

typedef struct {
    Keymap map;
    const char *help_key;   /* the help line's key column; NULL: the row above documents it */
    const char *help;       /* the description (the overlay word-wraps it); '\n' starts a line */
    const char *hint_key;   /* footer key; NULL: no hint */
    const char *hint_ascii; /* footer key in ASCII mode; NULL: hint_key */
    const char *hint;       /* footer label; with label(): every label it can show, '|'
                               between them, %s for a word (what --keys prints) */
    const char *(*label)(const KeyState *a, char *buf, size_t n);
    const char *(*key_fn)(const KeyState *a); /* footer key chosen by state; NULL: hint_key */
    unsigned need, unless;  /* C_* the page must allow / must not allow, for keys and hint */
    int (*when)(const KeyState *a, int with_z); /* the hint's extra condition; NULL: none */
    int rank;               /* the global hints' footer position (the help keeps table order) */
    unsigned modes;         /* bits 1 << KeysMode: the row binds and hints only in those
                               modes of its overlay; 0: in every mode */
    KeyBind keys[12];       /* ended by key 0 */
} KeyRow;

/* The table, in the help's order; keys_n_rows rows. */
extern const KeyRow keys_rows[];
extern const int keys_n_rows;

/* The `?` overlay's sections in order; title NULL continues the section above. */
typedef struct {
    Keymap map;
    const char *title;
} KeysSection;
extern const KeysSection keys_sections[];
extern const int keys_n_sections;
/* The `?` overlay's closing paragraph. */
extern const char keys_help_trailer[];

#define HELP_KEY_COLS 19 /* the key column of a help line */

/* 1 if row r binds and hints on the page a describes (its C_* needs and mode). */
int keys_row_allowed(const KeyState *a, const KeyRow *r);
/* The keymap's name as `attend --keys` prints it ("?" out of range). */
const char *keys_map_name(Keymap km);

#endif
