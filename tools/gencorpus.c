/* gencorpus.c - generates attend's training data from a small English grammar and a small
 * word-aligned English->French grammar, deterministically from a seed.
 *
 *   gencorpus [--seed S] [--out DIR] [--vocab FILE]
 *
 * Writes DIR/english.txt (one sentence a line, the decoder's corpus), DIR/english-test.txt
 * (held-out sentences from the same grammar), DIR/lessons.txt (every
 * sentence the lessons use; each also appears in english.txt), DIR/parallel-train.txt and
 * DIR/parallel-test.txt (held-out; "english<TAB>french<TAB>alignment", alignment as
 * "i-j" pairs: English token i translates to French token j), and FILE (the shared vocabulary:
 * specials, punctuation, then every word in order of first use; the words of an existing FILE
 * keep their ids and new words are appended, so regenerating never renumbers a word). docs/data.md explains it.
 * Self-contained on purpose (no engine code): the data must not depend on the engine. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic random numbers (xorshift64*) ---- */
static uint64_t rng_state = 88172645463325252ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}
static int rn(int n) { return (int)(rnd() % (uint32_t)n); }
static int chance(int percent) { return rn(100) < percent; }
#define PICK(arr) (arr[rn((int)(sizeof arr / sizeof arr[0]))])
#define COUNT(arr) ((int)(sizeof arr / sizeof arr[0]))

/* ---- a growing sentence buffer ---- */
typedef struct { char s[512]; } Sent;
static void add(Sent *b, const char *w)
{
    size_t len = strlen(b->s);
    snprintf(b->s + len, sizeof b->s - len, "%s%s", len ? " " : "", w);
}

/* ================= English grammar (the decoder's corpus) ================= */
typedef struct { const char *word; const char *pron; } Noun; /* pron: he / she / it */

static const Noun animals[] = {
    {"cat", "it"}, {"dog", "it"}, {"bird", "it"}, {"mouse", "it"}, {"horse", "it"},
    {"fox", "it"}, {"animal", "it"}, {"rabbit", "it"}, {"cow", "it"},
};
static const Noun people[] = {
    {"man", "he"}, {"boy", "he"}, {"king", "he"}, {"woman", "she"}, {"girl", "she"},
    {"queen", "she"},
};
/* people without a fixed pronoun: used where no pronoun refers back */
static const char *roles[] = {"lawyer", "witness", "teacher", "doctor", "student", "child",
                              "farmer", "judge"};
static const char *things[] = {"ball", "book", "bone", "apple", "hat", "box", "letter", "key",
                               "bag", "cake"};
static const char *adj_size[] = {"big", "small", "old", "young", "little", "tall"};
static const char *adj_colour[] = {"black", "white", "brown", "red", "grey"};
static const char *adj_state[] = {"happy", "sad", "tired", "hungry", "angry", "sleepy",
                                  "scared", "calm"};
static const char *adj_wide[] = {"wide", "busy", "long", "dark"}; /* said of a street */
static const char *adj_tired[] = {"tired", "scared", "slow", "lazy"}; /* said of an animal */
/* The noun after a preposition or a verb depends on that word (on the mat, under the table,
 * chased the mouse, wanted the cake): to predict it, a model must look back past "the" to
 * the word before, which is what grows a previous-token head in the decoder. */
typedef struct { const char *word; const char *nouns[8]; } Pick;
static const Pick prep_places[] = {
    {"on", {"mat", "rug", "bed", "sofa", "floor", "grass", "hill", NULL}},
    {"under", {"table", "chair", "bed", "tree", NULL}},
    {"by", {"river", "door", "window", "fire", NULL}},
    {"near", {"road", "wall", "tree", "river", NULL}},
    {"behind", {"door", "wall", "sofa", "box", NULL}},
    {"beside", {"fire", "window", "road", NULL}},
};
static const Pick verb_things[] = {
    {"took", {"key", "bag", "hat", NULL}},
    {"dropped", {"ball", "box", "letter", NULL}},
    {"carried", {"box", "bag", "book", NULL}},
    {"wanted", {"cake", "apple", "bone", NULL}},
    {"found", {"key", "ball", "letter", NULL}},
    {"liked", {"cake", "apple", "ball", NULL}},
    {"saw", {"hat", "book", "ball", NULL}},
};
static const char *pick_noun(const Pick *p)
{
    int n = 0;
    while (n < 8 && p->nouns[n])
        n++;
    return p->nouns[rn(n)];
}
static const char *v_rest[] = {"sat", "slept", "lay", "stood", "waited"}; /* + place */
static const char *v_intr[] = {"left", "ran", "slept", "smiled", "jumped", "waited",
                               "laughed", "sat", "walked"};
static const char *v_tr_anim[] = {"chased", "saw", "liked", "followed", "watched", "helped",
                                  "bit", "found", "called"};
static const char *v_pres[] = {"bites", "sees", "likes", "chases", "follows"};
static const char *bare[] = {"dog", "man", "cat", "woman", "fox", "boy"};

static const char *det(void) { return chance(75) ? "the" : "a"; }

/* noun phrase: det [adj] noun */
static void np(Sent *b, const char *noun, int adj_percent)
{
    add(b, det());
    if (chance(adj_percent))
        add(b, chance(50) ? PICK(adj_size) : PICK(adj_colour));
    add(b, noun);
}

static const Noun *animate(void)
{
    return chance(55) ? &animals[rn(COUNT(animals))] : &people[rn(COUNT(people))];
}

static const char *any_agent(void)
{
    int r = rn(3);
    if (r == 0)
        return PICK(roles);
    return animate()->word;
}

static void subject_pron(Sent *b, const char *pron)
{
    add(b, pron);
}

static void english_sentence(Sent *b)
{
    int t = rn(100);
    if (t < 24) { /* the cat sat on the mat . */
        np(b, animate()->word, 20);
        const char *v = PICK(v_rest);
        add(b, v);
        if (!strcmp(v, "sat") && chance(25)) {
            add(b, "down");
        } else {
            const Pick *pp = &PICK(prep_places);
            add(b, pp->word);
            np(b, pick_noun(pp), 20);
        }
    } else if (t < 44) { /* the dog chased the cat . */
        np(b, any_agent(), 20);
        if (chance(60)) {
            add(b, PICK(v_tr_anim));
            np(b, any_agent(), 20);
        } else {
            const Pick *vp = &PICK(verb_things);
            add(b, vp->word);
            np(b, pick_noun(vp), 25);
        }
    } else if (t < 52) { /* the lawyer who the witness saw left . */
        add(b, "the");
        add(b, any_agent());
        add(b, "who");
        add(b, "the");
        add(b, any_agent());
        add(b, PICK(v_tr_anim));
        add(b, PICK(v_intr));
    } else if (t < 58) { /* the dog that chased the cat ran . */
        add(b, "the");
        add(b, any_agent());
        add(b, chance(50) ? "that" : "who");
        add(b, PICK(v_tr_anim));
        np(b, any_agent(), 0);
        add(b, PICK(v_intr));
    } else if (t < 70) { /* the girl sat on the bed because she was tired . */
        const Noun *n = animate();
        np(b, n->word, 15);
        add(b, PICK(v_rest));
        const Pick *pp = &PICK(prep_places);
        add(b, pp->word);
        np(b, pick_noun(pp), 0);
        add(b, "because");
        subject_pron(b, n->pron);
        add(b, "was");
        add(b, PICK(adj_state));
    } else if (t < 76) { /* the animal didn't cross the street because it was too tired . */
        const Noun *n = &animals[rn(COUNT(animals))];
        add(b, "the");
        add(b, n->word);
        add(b, "didn't cross the street because it was too");
        add(b, chance(50) ? PICK(adj_tired) : PICK(adj_wide));
    } else if (t < 82) { /* i am happy . */
        static const char *subj[] = {"i am", "you are", "we are", "they are", "he is",
                                     "she is", "it is"};
        add(b, PICK(subj));
        if (chance(30))
            add(b, "very");
        add(b, PICK(adj_state));
    } else if (t < 88) { /* river bank / money bank */
        static const char *who[] = {"she", "he", "i", "we", "they"};
        static const char *money_v[] = {"deposited", "saved", "kept", "left"};
        static const char *river_v[] = {"sat", "walked", "stood", "slept", "waited"};
        add(b, PICK(who));
        if (chance(50)) {
            add(b, PICK(money_v));
            add(b, "money at the bank");
        } else {
            add(b, PICK(river_v));
            add(b, chance(50) ? "by" : "near");
            add(b, "the river bank");
        }
    } else if (t < 92) { /* dog bites man . */
        const char *a = PICK(bare), *c = PICK(bare);
        while (c == a)
            c = PICK(bare);
        add(b, a);
        add(b, PICK(v_pres));
        add(b, c);
    } else if (t < 97) { /* she sat by the river . */
        static const char *who[] = {"she", "he", "i", "we", "they", "it"};
        add(b, PICK(who));
        add(b, PICK(v_rest));
        const Pick *pp = &PICK(prep_places);
        add(b, pp->word);
        add(b, "the");
        add(b, pick_noun(pp));
    } else { /* she picked up the book that her teacher had recommended . */
        static const char *who[] = {"she", "he"};
        static const char *pv[] = {"picked up", "found", "read", "took"};
        static const char *giver[] = {"teacher", "friend", "mother", "father"};
        static const char *gv[] = {"recommended", "wanted", "found", "liked"};
        const char *w = PICK(who);
        add(b, w);
        add(b, PICK(pv));
        add(b, "the");
        add(b, PICK(things));
        add(b, "that");
        add(b, w[0] == 's' ? "her" : "his");
        add(b, PICK(giver));
        add(b, "had");
        add(b, PICK(gv));
    }
    add(b, ".");
}

/* Every sentence the lessons use. Each is put into the corpus LESSON_REPEAT times. */
static const char *lesson_sentences[] = {
    "the cat sat on the mat .",
    "the cat sat .",
    "she sat by the river bank .",
    "i deposited money at the bank .",
    "the lawyer who the witness saw left .",
    "the dog chased the cat .",
    "the cat sat down .",
    "i am happy .",
    "dog bites man .",
    "man bites dog .",
    "the animal didn't cross the street because it was too tired .",
    "the animal didn't cross the street because it was too wide .",
    "she picked up the book that her teacher had recommended .",
};
#define LESSON_REPEAT 12

/* ================= English -> French grammar (word-aligned) ================= */
typedef struct { const char *en, *fr; int fem; } FNoun;
static const FNoun f_animals[] = {
    {"cat", "chat", 0}, {"dog", "chien", 0}, {"horse", "cheval", 0}, {"mouse", "souris", 1},
    {"rabbit", "lapin", 0}, {"cow", "vache", 1}, {"woman", "femme", 1}, {"girl", "fille", 1},
    {"king", "roi", 0}, {"queen", "reine", 1}, {"fish", "poisson", 0}, {"wolf", "loup", 0},
};
static const FNoun f_things[] = {
    {"book", "livre", 0}, {"apple", "pomme", 1}, {"bread", "pain", 0}, {"milk", "lait", 0},
    {"table", "table", 1}, {"house", "maison", 1}, {"car", "voiture", 1}, {"garden", "jardin", 0},
    {"bed", "lit", 0}, {"mat", "tapis", 0}, {"door", "porte", 1}, {"flower", "fleur", 1},
    {"chair", "chaise", 1}, {"ball", "balle", 1}, {"hat", "chapeau", 0}, {"cake", "gateau", 0},
};
typedef struct { const char *en, *m, *f; } FAdj;
static const FAdj f_before[] = { /* adjectives placed before the noun in French */
    {"small", "petit", "petite"}, {"big", "grand", "grande"}, {"young", "jeune", "jeune"},
    {"pretty", "joli", "jolie"}, {"good", "bon", "bonne"},
};
static const FAdj f_after[] = { /* colours: after the noun */
    {"black", "noir", "noire"}, {"white", "blanc", "blanche"}, {"red", "rouge", "rouge"},
    {"green", "vert", "verte"}, {"grey", "gris", "grise"},
};
static const FAdj f_pred[] = { /* "is ADJ" */
    {"happy", "heureux", "heureuse"}, {"sad", "triste", "triste"}, {"small", "petit", "petite"},
    {"big", "grand", "grande"}, {"black", "noir", "noire"}, {"calm", "calme", "calme"},
    {"strong", "fort", "forte"}, {"rich", "riche", "riche"}, {"young", "jeune", "jeune"},
    {"white", "blanc", "blanche"},
};
typedef struct { const char *en, *fr; } FWord;
static const FWord f_vtr[] = {
    {"eats", "mange"}, {"sees", "voit"}, {"likes", "aime"}, {"wants", "veut"},
    {"takes", "prend"}, {"finds", "trouve"}, {"watches", "regarde"}, {"chases", "chasse"},
    {"drinks", "boit"}, {"loves", "adore"},
};
static const FWord f_vin[] = {
    {"sleeps", "dort"}, {"runs", "court"}, {"eats", "mange"}, {"sings", "chante"},
    {"jumps", "saute"}, {"waits", "attend"}, {"plays", "joue"}, {"walks", "marche"},
};
static const FWord f_prep[] = {
    {"on", "sur"}, {"under", "sous"}, {"in", "dans"}, {"with", "avec"},
};

/* A pair being built: tokens of both sides and alignment links. */
typedef struct {
    const char *en[32], *fr[32];
    int ne, nf;
    int link[64][2];
    int nl;
} Pair;
static int pe(Pair *p, const char *w) { p->en[p->ne] = w; return p->ne++; }
static int pf(Pair *p, const char *w) { p->fr[p->nf] = w; return p->nf++; }
static void ln(Pair *p, int i, int j) { p->link[p->nl][0] = i; p->link[p->nl][1] = j; p->nl++; }

/* the [adj] noun -> le/la [adj] nom [adj] */
static void f_np(Pair *p, const FNoun *n, int adj_percent)
{
    int def = chance(75);
    int ie = pe(p, def ? "the" : "a");
    const FAdj *a = NULL;
    int before = 0, ia = -1;
    if (chance(adj_percent)) {
        before = chance(50);
        a = before ? &f_before[rn(COUNT(f_before))] : &f_after[rn(COUNT(f_after))];
        ia = pe(p, a->en);
    }
    int in = pe(p, n->en);
    ln(p, ie, pf(p, def ? (n->fem ? "la" : "le") : (n->fem ? "une" : "un")));
    if (a && before)
        ln(p, ia, pf(p, n->fem ? a->f : a->m));
    ln(p, in, pf(p, n->fr));
    if (a && !before)
        ln(p, ia, pf(p, n->fem ? a->f : a->m));
}

static void parallel_pair(Pair *p)
{
    memset(p, 0, sizeof *p);
    int t = rn(100);
    if (t < 30) { /* the cat eats the apple */
        f_np(p, &f_animals[rn(COUNT(f_animals))], 25);
        const FWord *v = &f_vtr[rn(COUNT(f_vtr))];
        ln(p, pe(p, v->en), pf(p, v->fr));
        if (!strcmp(v->en, "drinks"))
            f_np(p, &f_things[3], 25); /* milk */
        else if (chance(60))
            f_np(p, &f_things[rn(COUNT(f_things))], 25);
        else
            f_np(p, &f_animals[rn(COUNT(f_animals))], 25);
    } else if (t < 45) { /* the cat is black */
        const FNoun *n = &f_animals[rn(COUNT(f_animals))];
        f_np(p, n, 15);
        ln(p, pe(p, "is"), pf(p, "est"));
        const FAdj *a = &f_pred[rn(COUNT(f_pred))];
        ln(p, pe(p, a->en), pf(p, n->fem ? a->f : a->m));
    } else if (t < 58) { /* i am happy */
        static const struct { const char *en, *be, *fr, *fbe; int fem; } subj[] = {
            {"i", "am", "je", "suis", 0}, {"you", "are", "tu", "es", 0},
            {"he", "is", "il", "est", 0}, {"she", "is", "elle", "est", 1},
        };
        int s = rn(COUNT(subj));
        ln(p, pe(p, subj[s].en), pf(p, subj[s].fr));
        ln(p, pe(p, subj[s].be), pf(p, subj[s].fbe));
        const FAdj *a = &f_pred[rn(COUNT(f_pred))];
        ln(p, pe(p, a->en), pf(p, subj[s].fem ? a->f : a->m));
    } else if (t < 70) { /* the cat sat down / the cat sat on the mat */
        const FNoun *n = &f_animals[rn(COUNT(f_animals))];
        f_np(p, n, 15);
        int is = pe(p, "sat");
        int fe = pf(p, "est"), fa = pf(p, n->fem ? "assise" : "assis");
        ln(p, is, fe);
        ln(p, is, fa);
        if (chance(50)) {
            ln(p, pe(p, "down"), fa);
        } else {
            const FWord *pr = &f_prep[rn(3)];
            ln(p, pe(p, pr->en), pf(p, pr->fr));
            f_np(p, &f_things[rn(COUNT(f_things))], 15);
        }
    } else if (t < 85) { /* the dog sleeps [in the garden] */
        f_np(p, &f_animals[rn(COUNT(f_animals))], 25);
        const FWord *v = &f_vin[rn(COUNT(f_vin))];
        ln(p, pe(p, v->en), pf(p, v->fr));
        if (chance(40)) {
            const FWord *pr = &f_prep[rn(COUNT(f_prep))];
            ln(p, pe(p, pr->en), pf(p, pr->fr));
            f_np(p, &f_things[rn(COUNT(f_things))], 15);
        }
    } else { /* the cat is on the table */
        f_np(p, &f_animals[rn(COUNT(f_animals))], 20);
        ln(p, pe(p, "is"), pf(p, "est"));
        const FWord *pr = &f_prep[rn(3)];
        ln(p, pe(p, pr->en), pf(p, pr->fr));
        f_np(p, &f_things[rn(COUNT(f_things))], 20);
    }
}

static void pair_text(const Pair *p, char *out, size_t outlen)
{
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < p->ne; i++)
        len += (size_t)snprintf(out + len, outlen - len, "%s%s", i ? " " : "", p->en[i]);
    len += (size_t)snprintf(out + len, outlen - len, "\t");
    for (int j = 0; j < p->nf; j++)
        len += (size_t)snprintf(out + len, outlen - len, "%s%s", j ? " " : "", p->fr[j]);
    len += (size_t)snprintf(out + len, outlen - len, "\t");
    for (int k = 0; k < p->nl; k++)
        len += (size_t)snprintf(out + len, outlen - len, "%s%d-%d", k ? " " : "", p->link[k][0],
                                p->link[k][1]);
}

/* Pairs the lessons use, with their alignment (always in the training set). */
static const char *lesson_pairs[] = {
    "the cat sat down\tle chat est assis\t0-0 1-1 2-2 2-3 3-3",
    "i am happy\tje suis heureux\t0-0 1-1 2-2",
    "the cat sat on the mat\tle chat est assis sur le tapis\t0-0 1-1 2-2 2-3 3-4 4-5 5-6",
    "the black cat sleeps\tle chat noir dort\t0-0 2-1 1-2 3-3",
    "the dog eats the apple\tle chien mange la pomme\t0-0 1-1 2-2 3-3 4-4",
    "she is happy\telle est heureuse\t0-0 1-1 2-2",
};

/* ================= vocabulary ================= */
#define MAX_WORDS 2000
static char *vocab[MAX_WORDS];
static int n_vocab;

static void vocab_add(const char *w)
{
    for (int i = 0; i < n_vocab; i++)
        if (strcmp(vocab[i], w) == 0)
            return;
    if (n_vocab == MAX_WORDS) {
        fprintf(stderr, "gencorpus: too many words\n");
        exit(1);
    }
    vocab[n_vocab++] = strdup(w);
}

/* Same splitting rules as vocab_split (src/engine/vocab.h): lowercase, whitespace separates, every
 * ASCII punctuation character is its own token. */
static void vocab_add_text(const char *s)
{
    char w[64];
    size_t n = 0;
    for (;; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == 0 || isspace(c) || (c < 128 && ispunct(c))) {
            if (n) {
                w[n] = 0;
                vocab_add(w);
                n = 0;
            }
            if (c && c < 128 && ispunct(c)) {
                w[0] = (char)c;
                w[1] = 0;
                vocab_add(w);
            }
            if (!c)
                return;
        } else if (n + 1 < sizeof w) {
            w[n++] = (char)tolower(c);
        }
    }
}

/* ================= output ================= */
static int seen_has(char **seen, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(seen[i], s) == 0)
            return 1;
    return 0;
}

static FILE *open_out(const char *dir, const char *name, char *path, size_t pathlen)
{
    snprintf(path, pathlen, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        perror(path);
    return f;
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    const char *dir = "data/corpus", *vocab_path = "data/vocab.txt";
    int n_english = 6000, n_pairs = 5000, n_test = 300, n_english_test = 600;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--vocab") && i + 1 < argc)
            vocab_path = argv[++i];
        else {
            fprintf(stderr, "usage: gencorpus [--seed S] [--out DIR] [--vocab FILE]\n");
            return 2;
        }
    }
    rng_state ^= seed * 0x9E3779B97F4A7C15ull;
    if (!rng_state)
        rng_state = 1;

    /* Words of an existing vocabulary keep their ids; new words are appended. */
    FILE *old = fopen(vocab_path, "r");
    if (old) {
        char line[128];
        while (fgets(line, sizeof line, old)) {
            line[strcspn(line, "\r\n")] = 0;
            if (line[0] && line[0] != '#')
                vocab_add(line);
        }
        fclose(old);
    }
    static const char *specials[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>"};
    for (int i = 0; i < COUNT(specials); i++)
        vocab_add(specials[i]);
    vocab_add_text(". , ' ? !");

    char path[1024];
    /* English: the lesson sentences spread evenly through the generated ones. */
    FILE *f = open_out(dir, "english.txt", path, sizeof path);
    if (!f)
        return 1;
    int n_lessons = COUNT(lesson_sentences);
    int total = n_english + n_lessons * LESSON_REPEAT;
    int every = total / (n_lessons * LESSON_REPEAT);
    int li = 0;
    for (int i = 0; i < total; i++) {
        Sent s = {{0}};
        if (i % every == every - 1 && li < n_lessons * LESSON_REPEAT)
            snprintf(s.s, sizeof s.s, "%s", lesson_sentences[li++ % n_lessons]);
        else
            english_sentence(&s);
        vocab_add_text(s.s);
        fprintf(f, "%s\n", s.s);
    }
    fclose(f);
    f = open_out(dir, "lessons.txt", path, sizeof path);
    if (!f)
        return 1;
    for (int i = 0; i < n_lessons; i++)
        fprintf(f, "%s\n", lesson_sentences[i]);
    fclose(f);

    /* Parallel: unique pairs, a random n_test of them held out (never the lesson pairs). */
    char **seen = calloc((size_t)(n_pairs + n_test + 64), sizeof *seen);
    int n_seen = 0;
    FILE *ftr = open_out(dir, "parallel-train.txt", path, sizeof path);
    FILE *fte = ftr ? open_out(dir, "parallel-test.txt", path, sizeof path) : NULL;
    if (!ftr || !fte || !seen)
        return 1;
    for (int i = 0; i < COUNT(lesson_pairs); i++) {
        seen[n_seen++] = strdup(lesson_pairs[i]);
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s", lesson_pairs[i]);
        *strrchr(tmp, '\t') = 0;
        vocab_add_text(tmp);
    }
    int n_tr = 0, n_te = 0, tries = 0;
    while ((n_tr < n_pairs || n_te < n_test) && tries++ < 1000000) {
        Pair p;
        char text[1024];
        parallel_pair(&p);
        pair_text(&p, text, sizeof text);
        if (seen_has(seen, n_seen, text))
            continue;
        seen[n_seen++] = strdup(text);
        int test = n_te < n_test && (n_tr >= n_pairs || rn(n_pairs + n_test) < n_test);
        if (!test && n_tr >= n_pairs)
            continue;
        fprintf(test ? fte : ftr, "%s\n", text);
        if (test) {
            n_te++;
        } else {
            n_tr++;
            /* lesson pairs are spread through the training file */
            if (n_tr % 250 == 0)
                fprintf(ftr, "%s\n", lesson_pairs[(n_tr / 250) % COUNT(lesson_pairs)]);
        }
        char *tab = strrchr(text, '\t');
        *tab = 0;
        vocab_add_text(text);
    }
    fclose(ftr);
    fclose(fte);

    /* Held-out English text, for evaluation losses (generated after everything else so the
     * files above do not depend on it). */
    f = open_out(dir, "english-test.txt", path, sizeof path);
    if (!f)
        return 1;
    for (int i = 0; i < n_english_test; i++) {
        Sent s = {{0}};
        english_sentence(&s);
        vocab_add_text(s.s);
        fprintf(f, "%s\n", s.s);
    }
    fclose(f);

    f = fopen(vocab_path, "w");
    if (!f) {
        perror(vocab_path);
        return 1;
    }
    for (int i = 0; i < n_vocab; i++)
        fprintf(f, "%s\n", vocab[i]);
    fclose(f);
    fprintf(stderr, "gencorpus: %d English sentences, %d+%d pairs, %d words -> %s, %s\n", total,
            n_tr, n_te, n_vocab, dir, vocab_path);
    return 0;
}
