#!/usr/bin/env bash
# test_probe.sh - the probe widgets in the player (lesson 22, "What a head does"): at 80x24
# the effect page's table shows, for the head its prose says looks hardest, the loss change
# the prose computes ({{effect look dloss}}, another code path than the widget's probe.c);
# n/N (←/→) move the position and say so at the ends; the patching page's grid holds the
# fraction the prose states; the lens page's output row leads with the prose's guess; the
# attribution page follows a sentence typed with e, at 200x60; plain mode through a pipe reads
# the same table. Prints "N passed, N failed".
. "$(dirname "$0")/harness.bash"
LESSON=what-a-head-does
has() { grep -qE -- "$1" <<<"$2"; } # PATTERN TEXT

start 80 24 -- --lesson "$LESSON"
expect 'after "moon" (position 6) the top guess is "cat"' "the effect table opens at the last position"
# the prose: "From that row, L0.h1 looks hardest ... the loss of "cat" by 3.43."
read -r head dloss < <(screen | tr '\n' ' ' | sed -n 's/.*row, \(L[0-9]*\.h[0-9]*\) looks hardest.*the loss of "[^"]*" *by *\(-\{0,1\}[0-9.]*[0-9]\)\..*/\1 \2/p')
check "the prose names the head and its loss change ($head $dloss)" [ -n "$head" ] && [ -n "$dloss" ]
row=$(screen | grep -E "^ $head " | head -1)
check "the table's $head row ends in the prose's loss change ($row)" has "[+]?$dloss *\$" "$row"
keys Left
expect 'after "key" (position 5)' "← moves to the position before"
keys n
expect 'after "moon" (position 6)' "n moves back"
keys Right
expect "the last position" "→ at the last position says so"

# patching: the prose's best head and fraction in the grid
keys Space
expect "Patching: put one head back" "the patching page"
read -r best frac < <(screen | tr '\n' ' ' | sed -n 's/.*real run: *\(L[0-9]*\.h[0-9]*\) puts back *\([0-9.]*[0-9]\) of.*/\1 \2/p')
check "the prose names the head that restores most ($best $frac)" [ -n "$best" ]
L=${best#L}; L=${L%%.*}; H=${best##*.h}
cells=$(screen | grep -E "^ L$L +-?[0-9]" | head -1)
got=$(awk -v c="$((H + 2))" '{ print $c }' <<<"$cells")
check "the grid's layer $L row holds $frac for h$H ($cells)" [ "$got" = "$frac" ]

# the lens
start 80 24 -- --lesson "$LESSON" --page 5
expect 'logit lens after "moon" (position 6 of 0..6)' "the lens at the last position"
next=$(screen | tr '\n' ' ' | sed -n 's/.*the output guesses "\([^"]*\)".*/\1/p')
check "the lens's output row leads with the prose's guess \"$next\"" has "^ output +$next " "$(screen)"
keys N
expect 'logit lens after "key" (position 5 of 0..6)' "N: the position before"

# attribution at 200x60 after a typed sentence
start 200 60 -- --lesson "$LESSON" --page 6
expect "the top guess after \"mat\" (position 5), in parts" "attribution at the last position"
expect "= the model's logit" "the parts' sum is the logit"
keys e; settle; keys C-u; literal "the dog sat on the rug"; keys Enter
expect "the top guess after \"rug\" (position 5), in parts" "a typed sentence runs again"

# plain mode reads the same widget
out=$(printf 'q\n' | "$ATTEND" --plain --lesson "$LESSON" --page 1 2>&1)
check "plain mode says the effect table" has "^$head: looks at .*knocked out \+?$dloss\." "$out"

# the pair: both models at once, each second copy's loss as attend heads measures it
start 80 24 -- --lesson one-layer-or-two --page 3
expect "2 layers: induction" "the pair page shows the two-layer model"
expect "1 layer: induction-1layer" "beside the one-layer model"
for m in induction-1layer induction; do
    want=$("$ATTEND" heads --model "$m.json" --format json |
        /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.2f %.2f" % (d["loss_first_copy"], d["loss_second_copy"]))')
    read -r f2 s2 <<<"$want"
    check "$m: copy losses $f2 and $s2 (attend heads) on screen" has "loss 1st copy $f2  2nd $s2" "$(screen)"
done
expect_gone "more rows" "the whole widget fits at 80x24"

# an opened Hugging Face model: the attribution page's numbers are dump --attribute's
PY=/usr/bin/python3
if "$PY" -c 'import torch, numpy, regex' 2>/dev/null &&
    mkdir -p "$E2E_TMP/models" && "$PY" tests/ref/hf_models.py --write "$E2E_TMP/models" gpt2-f32 >/dev/null 2>&1; then
    G=$E2E_TMP/models/gpt2-f32
    start 80 24 -- --model "$G" --lesson "$LESSON" --page 6
    expect "the model you opened" "the attribution page on an opened GPT-2 directory"
    expect "= the model's logit" "its parts and their sum"
    tok=$(screen | sed -n 's/.*the logit of "\(.*\)", the top guess after.*/\1/p' | head -1)
    read -r top val sum < <("$ATTEND" dump --model "$G" --sentence "the cat sat on the mat" \
        --attribute "$tok" --format json | "$PY" -c '
import json, sys
a = json.load(sys.stdin)["attribution"]
p = max(a["parts"], key=lambda q: abs(q["value"]))
print(p["name"], "%+.2f" % p["value"], "%+.2f" % a["logit"])')
    check "the largest part is dump's: $top $val" has "^ $top +[+]?${val#+} " "$(screen)"
    check "the sum is dump's logit $sum" has "^ sum +[+]?${sum#+} = the model's logit" "$(screen)"
    start 80 24 -- --model "$G" --lesson "$LESSON" --page 3
    expect "the model you opened" "the effect page on the opened model"
    expect "loss change knocked out" "with its table"
else
    echo "# no python3-torch/numpy/regex: the opened-model checks are left out"
fi
finish
