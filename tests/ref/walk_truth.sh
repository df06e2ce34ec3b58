#!/usr/bin/env bash
# walk_truth.sh - what the course's first learner found false or ungrammatical after a page's
# own keys (session 10's walk of lessons 1-21), driven through attend --plain: each sentence
# is checked in the state that made it false. Prints "N passed, N failed".
. "$(dirname "$0")/cli_lib.bash"
export XDG_STATE_HOME="$tmp/state"
plain() { # INPUT LESSON PAGE: the plain transcript
    printf '%b' "$1" | "$A" --plain --lesson "$2" --page "$3" 2>&1
}
now() { # the page's prose as it stands after the last key ("On the page now:" onwards)
    awk '/^On the page now:/ {buf=""; on=1; next} on {buf=buf $0 "\n"} END {printf "%s", buf}'
}
has()  { if grep -qF -- "$2" <<<"$3"; then ok; else bad "$1: no '$2' in: $3"; fi; }
hasnt() { if grep -qF -- "$2" <<<"$3"; then bad "$1: says '$2' in: $3"; else ok; fi; }

# L1 p4: a one-token sentence was "Your sentence has 1 tokens"; "most goes to" a 0.37 share
out=$(plain 'e bank\nq\n' why-attention 4 | now)
has "L1p4 one token" "Your sentence is one token" "$out"
hasnt "L1p4 one token" "1 tokens" "$out"
out=$(plain 'e she sat by the river bank .\nq\n' why-attention 4 | now)
hasnt "L1p4 river bank: not a majority" "most goes to" "$out"
has "L1p4 river bank" "its largest share goes to \"river\"" "$out"
# L1 p6: "1 tokens here"; and "a head can read a word's earlier pieces: \"sat\" gives ... to
# \"cat\"" on a sentence without pieces
out=$(plain 'e cat\nq\n' why-attention 6 | now)
hasnt "L1p6 one token" "1 tokens" "$out"
has "L1p6 one token" "one token here" "$out"
out=$(plain 'e the cat sat\nq\n' why-attention 6 | now)
hasnt "L1p6 no pieces: no piece example" "\"sat\" gives" "$out"
out=$(plain 'q\n' why-attention 6)
has "L1p6 own sentence: the piece example" "\"##lo\" gives" "$out"

# L3 p3: on heads 2 and 3 the reverse scores higher, yet the page said "That suits language:
# \"book\" may need \"teacher\", not the other way round"
out=$(plain ']\n]\nq\n' dot-product-scores 3 | now)
hasnt "L3p3 head 2: reverse higher" "not the other way round" "$out"
has "L3p3 head 2" "the reverse is higher" "$out"
has "L3p3 head 0" "not the other way round" "$(plain 'q\n' dot-product-scores 3)"
# L9 p2 after r: "The chips now start swapped: \"dog bites man .\"" (the original order)
out=$(plain 'r\nq\n' permutation-equivariance 2 | now)
hasnt "L9p2 after r" "start swapped" "$out"
has "L9p2 after r" "back in the original order" "$out"
# L9 p4 after m: "At position 0, \"man\" reads only itself" with no mask; after r: "Press m to
# take the mask off and watch the difference fall back to zero" when it was 0 already
out=$(plain 'm\nq\n' permutation-equivariance 4 | now)
hasnt "L9p4 mask off" "reads only itself;" "$out"
out=$(plain 'r\nq\n' permutation-equivariance 4 | now)
hasnt "L9p4 original order" "Press m to take the mask off" "$out"
has "L9p4 original order" "in their original order" "$out"

# L10 p1 after r then p: "With an encoding on (pe: sinusoidal) the outputs no longer match a mere
# reordering" beside a difference of 0 (nothing was reordered)
out=$(plain 'r\np\nq\n' positional-encoding 1 | now)
hasnt "L10p1 original order, pe on" "no longer match a mere reordering" "$out"
has "L10p1 original order" "nothing moved" "$out"
has "L10p1 start" "start swapped" "$(plain 'q\n' positional-encoding 1)"

# L21 p3 (K-composition): with the previous-token head L0.h1 knocked out, the page's probe (row
# 5 of layer 1 on "moon") still read "0.71, its largest share": on this 4-word repeat every
# collapsed row falls back to the first positions, and "moon" is one. The probe is row 6 now,
# which finds "cat" only through the previous-token head.
out=$(plain 'X\nl\nq\n' induction-heads 3 | now)
hasnt "L21p3 prev head knocked out: the induction head does not still find it" "its largest share." "$out"
has "L21p3 prev head knocked out" "with 1 head knocked out" "$out"
out=$(plain 'l\nq\n' induction-heads 3 | now)
has "L21p3 intact: the induction head finds it" "its largest share." "$out"

# L21 p2 after l: "Press l to see layer 1's induction heads" on layer 1 itself
out=$(plain 'l\nq\n' induction-heads 2 | now)
hasnt "L21p2 on layer 1" "Press l to see layer 1" "$out"

# Masked cells were "dotted" / "dots" in the prose of lessons 1, 7 and 8, but the ASCII player
# (LANG=C, --ascii) draws them as "x": the prose now names what every mode shows, a cell with
# no number
for lp in "why-attention 2 q" "why-attention 3 q" "causal-mask 1 q" "causal-mask 1 m" \
          "padding-mask 1 q" "padding-mask 1 d"; do
    set -- $lp
    out=$(printf '%b' "$3\nq\n" | LANG=C LC_ALL=C "$A" --plain --lesson "$1" --page "$2" 2>&1)
    if grep -qiE '\bdot(s|ted)\b' <<<"$out"; then bad "$1 p$2 after $3: says dots: $(grep -oiE '[^.]*\bdot(s|ted)\b[^.]*' <<<"$out" | head -1)"; else ok; fi
done

# plain mode's goto to a page that is not there named no value ("Type goto and a page number
# from 1 to 6"): it says which page of which lesson, as the player's G does
out=$(plain 'goto 99\ngoto causal-mask:9\ngoto abc\nq\n' causal-mask 1)
has "plain goto 99" 'No page "99" in lesson causal-mask' "$out"
has "plain goto causal-mask:9" 'No page "9" in lesson causal-mask' "$out"
has "plain goto abc" 'No page "abc" in lesson causal-mask' "$out"

# E on an encoder-decoder page announced 'sentence "le chien mange", 3 tokens: the new sentence
# has 6 tokens' (the English's count): it counts the decoder's sentence now
out=$(plain 'E le chien mange\nq\n' cross-attention 4)
has "L12p4 E: the decoder's count" "the new decoder sentence has 3 tokens" "$out"
hasnt "L12p4 E: not the encoder's count" "the new sentence has 6 tokens" "$out"
# The learner's prose named a heatmap's heavy cell by colour: "brighter means more weight" (no
# brightness with NO_COLOR=1, where shade glyphs carry it) and "each row's darkest cell" (the
# heaviest cell is the brightest, yellow, in colour): prose and questions say weight or shade
bad_words=$(python3 - <<'PY'
import json, glob, re
hits = []
def walk(o, where):
    if isinstance(o, dict):
        for k, v in o.items():
            if k != "notes":
                walk(v, where + "." + k)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            walk(v, "%s[%d]" % (where, i))
    elif isinstance(o, str) and re.search(r"\b(brighter|brightest|darker|darkest)\b", o):
        hits.append(where)
for f in sorted(glob.glob("lessons/*.json")):
    walk(json.load(open(f)), f)
print(" ".join(hits))
PY
)
if [ -z "$bad_words" ]; then ok; else bad "prose or questions name a cell by brightness: $bad_words"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
