#!/usr/bin/env bash
# attend --plain, driven through pipes: the heatmap said as text with the tokens and the
# weights attend dump computes, the mask change announced first, no escape, box drawing,
# block or shade byte in any output, the whole course walked with `next` to its end, every
# widget kind's commands answered, the quiz answered by line, TERM=dumb choosing plain mode,
# the end of input ending cleanly with progress saved, and the help generated from the key
# table. Prints "N passed, N failed".
. "$(dirname "$0")/cli_lib.bash"
PY=/usr/bin/python3
CHECK=tests/ref/plain_check.py
export XDG_STATE_HOME="$tmp/state"
outs=()
run() { # NAME INPUT ARGS...: stdin INPUT, stdout to $tmp/NAME.out, status in $tmp/NAME.rc
    local name=$1 input=$2; shift 2
    printf '%b' "$input" | "$A" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    echo $? >"$tmp/$name.rc"
    outs+=("$tmp/$name.out")
}
has() { # NAME NEEDLE
    if grep -qF -- "$2" "$tmp/$1.out"; then ok; else bad "$1: no '$2'"; tail -5 "$tmp/$1.out"; fi
}
rc0() { if [ "$(cat "$tmp/$1.rc")" = 0 ]; then ok; else bad "$1: exit $(cat "$tmp/$1.rc")"; cat "$tmp/$1.err"; fi; }
lesson_json() { ls lessons/*-"$1".json | head -n 1; }
# the sentence of page P (0-based) of lesson file F
sentence() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["pages"][int(sys.argv[2])]["widget"]["sentence"])' "$1" "$2"; }

# ---- the issue's example: m then q on the causal-mask lesson ----
run mask 'm\nq\n' --plain --lesson causal-mask
rc0 mask
has mask "Heatmap of attention weights"
has mask "mask causal on: row 0"
has mask "now gives itself 1.00"
s=$(sentence "$(lesson_json causal-mask)" 0)
n=$(wc -w <<<"$s")
has mask "masked cells: $((n * (n - 1) / 2)) (were 0)"
# the announcement comes first: before the heatmap said again
first=$(grep -nF "mask causal on:" "$tmp/mask.out" | head -1 | cut -d: -f1)
again=$(grep -nF "Mask: causal" "$tmp/mask.out" | head -1 | cut -d: -f1)
if [ -n "$first" ] && [ -n "$again" ] && [ "$first" -lt "$again" ]; then ok; else bad "the change is not said first ($first, $again)"; fi
# the rows before and after, against attend dump's weights
"$A" dump --model decoder.json --sentence "$s" --mask causal --format json >"$tmp/causal.json"
"$A" dump --model decoder.json --sentence "$s" --mask none --format json >"$tmp/none.json"
if "$PY" $CHECK rows "$tmp/mask.out" "$tmp/causal.json"; then ok; else bad "rows after m"; fi
head -n "$(grep -nF "mask causal on:" "$tmp/mask.out" | cut -d: -f1)" "$tmp/mask.out" >"$tmp/before.out"
if "$PY" $CHECK rows "$tmp/before.out" "$tmp/none.json"; then ok; else bad "rows before m"; fi

# ---- announcements that are true, against attend dump (issue 33) ----
# m: the row that changed most, by token, before and after
if "$PY" $CHECK change "$tmp/mask.out" "mask causal on" "$tmp/none.json" "$tmp/causal.json"; then ok; else bad "the mask announcement"; fi
# lesson 9's swap: nothing changes except places; the tokens are compared, not the positions
run swap9 'swap 0 2\nq\n' --plain --lesson permutation-equivariance
s9=$(sentence "$(lesson_json permutation-equivariance)" 0)
"$A" dump --model decoder.json --sentence "$s9" --mask none --pe none --format json >"$tmp/s9a.json"
"$A" dump --model decoder.json --sentence "$s9" --mask none --pe none --order 2,1,0,3 --format json >"$tmp/s9b.json"
has swap9 "no weight changed at the printed precision"
has swap9 "still gives"
if "$PY" $CHECK change "$tmp/swap9.out" "swapped positions 0 and 2" "$tmp/s9a.json" "$tmp/s9b.json"; then ok; else bad "lesson 9's swap announcement"; fi
# under the causal mask (page 4) the same swap does move weights: the one that moved most, by token
run swap9m 'swap 0 2\nq\n' --plain --lesson permutation-equivariance --page 4
"$A" dump --model decoder.json --sentence "$s9" --mask causal --pe none --order 2,1,0,3 --format json >"$tmp/s9c.json"
"$A" dump --model decoder.json --sentence "$s9" --mask causal --pe none --format json >"$tmp/s9d.json"
has swap9m "changed most: it now gives"
if "$PY" $CHECK change "$tmp/swap9m.out" "swapped positions 0 and 2" "$tmp/s9c.json" "$tmp/s9d.json"; then ok; else bad "the swap announcement under the causal mask"; fi
# an edit: the new sentence's own facts, never a row of the old one
run edit1 'edit the cat sat on the mat\nq\n' --plain --lesson why-attention --page 4
"$A" dump --model wordnet.json --sentence "the cat sat on the mat" --layer 0 --head 1 --format json >"$tmp/e1.json"
if "$PY" $CHECK change "$tmp/edit1.out" 'sentence "the cat sat on the mat", 6 tokens' "$tmp/e1.json" "$tmp/e1.json"; then ok; else bad "the edit announcement"; fi
# lesson 7's worked mask: a weight said to change prints differently; no internal numbers
run worked7 'm\nm\nm\nq\n' --plain --lesson causal-mask --page 6
if grep -E '^mask' "$tmp/worked7.out" | grep -qE '\(was ([0-9.]+)\)' && grep -E '^mask' "$tmp/worked7.out" | grep -E 'gives \S+ ([0-9.]+) \(was \1\)'; then bad "a weight said to change prints the same"; else ok; fi
if grep -qE 'causal [0-9] -> [0-9]' "$tmp/worked7.out"; then bad "an internal enum number"; else ok; fi
# X on the multi-head passport: offered, and it knocks the head out
run knock 'X\nq\n' --plain --lesson multi-head --page 2
has knock "Keys: "
if grep -m1 '^Keys: ' "$tmp/knock.out" | grep -qF 'X knock out'; then ok; else bad "X not offered on multi-head page 2"; fi
has knock "layer 0 head 0 knocked out: "
if grep -qF '"X" does nothing' "$tmp/knock.out"; then bad "X does nothing on the page that offers it"; else ok; fi

# ---- the whole course with next, to its end ----
pages=$("$PY" -c 'import json,glob; print(sum(len(json.load(open(f))["pages"]) for f in glob.glob("lessons/*.json")))')
XDG_STATE_HOME="$tmp/walk" run walk "$(for i in $(seq 1 $((pages + 2))); do printf 'next\\n'; done)" --plain
rc0 walk
got=$(grep -cE '^Lesson [0-9]+ of [0-9]+, .*\. Page [0-9]+ of [0-9]+: ' "$tmp/walk.out")
if [ "$got" = "$pages" ]; then ok; else bad "walked $got pages of $pages"; fi
has walk "End of the course"
if grep -qF '[?' "$tmp/walk.out"; then bad "an unresolved placeholder on the walk"; grep -F '[?' "$tmp/walk.out" | head -3; else ok; fi
if grep -qE 'could not run|not computed' "$tmp/walk.out"; then bad "a widget did not run"; grep -E 'could not run|not computed' "$tmp/walk.out" | head -3; else ok; fi

# ---- every widget kind answers its commands ----
run pe 'p\ns\nv\na\nh\nl\nr\nq\n' --plain --lesson positional-encoding
rc0 pe
FIX=tests/fixtures/plain
run heat 'p\ns\nv\na\na\nh\nl\nd\nedit the dog sat\ncell 1 0\nj\nr\nq\n' --plain --lessons $FIX --lesson plain-controls
rc0 heat
# p moves the encoding one step along none -> sinusoidal -> learned -> rope (from the page's)
pe0=$(grep -m1 -oE 'positional encoding: [a-z]+' "$tmp/heat.out" | sed 's/.*: //')
case $pe0 in none) pe1=sinusoidal ;; sinusoidal) pe1=learned ;; learned) pe1=rope ;; *) pe1=none ;; esac
has heat "positional encoding $pe1:"
has heat "scaling by 1/sqrt(d_k) off:"
has heat "now showing scores before softmax"
has heat "All 4 heads of layer 0"
has heat "head 1 of"
has heat "layer 1 of"
has heat "padding mask o"
has heat "sentence \"the dog sat\", "
has heat "Cell row 1 ("
has heat "Cell row 2 ("
has heat "reset to the page's starting state:"
run fixchips 'next\nswap 0 2\np\nr\nq\n' --plain --lessons $FIX --lesson plain-controls
has fixchips "swapped positions 0 and 2: outputs match"
has fixchips "positional encoding sinusoidal: outputs do not match"
has fixchips "original order: outputs match"
run chips 'swap 0 2\nq\n' --plain --lesson permutation-equivariance
has chips "swapped positions 0 and 2: outputs match"
run pass 'n\nn\nN\nq\n' --plain --lesson queries-keys-values --page 5
has pass "Shape passport of layer 0"
has pass ": now K, "
run scal '+\n-\ns\nq\n' --plain --lesson scaling
has scal "d_k 128: "
has scal "d_k 128 -> 64"
run cost '+\nq\n' --plain --lesson cost --page 2
has cost "Cost of attention at N = "
run params 't\ng\nq\n' --plain --lesson counting-parameters --page 3
has params "embeddings "
has params "grouped-query attention "
run kv 'n\nq\n' --plain --lesson kv-cache --page 3
has kv "KV cache: token "
run gen 'n\nt\n+\nq\n' --plain --lesson kv-cache --page 2
has gen "Text so far:"
has gen "sampling: "
run worked 'n\nn\nn\nn\ncell 1 0\nq\n' --plain --lesson softmax-weighted-sum --page 2
has worked "step 5: softmax:"
has worked "Cell row 1"
run matrix 't\nt L0.h0.k\nq\n' --plain --lesson queries-keys-values
has matrix "Tensors of this run"
has matrix "Matrix: L0.h0.k, K: "
run train 'q\n' --plain --lesson watch-it-learn
has train "Train widget: a decoder"

# ---- words that do nothing, help from the key table ----
run help 'help\nfrobnicate\nq\n' --plain --lesson causal-mask
has help '"frobnicate" does nothing on this page'
mhelp=$("$A" --keys | awk -F'\t' '$1=="help" && $2=="controls" && $4 ~ /^m  /' | head -1 | cut -f4 | sed 's/^m  *//')
has help "m: $mhelp"

# ---- the quiz, answered by lines (the answer from the teacher's key) ----
key=$("$A" quiz --answers --seed 1 --lesson causal-mask)
ans=$(grep -m1 '^   Answer: ' <<<"$key" | sed 's/^   Answer: //; s/ .*//')
run quiz "Q\n$ans\nq\nq\n" --plain --lesson causal-mask
rc0 quiz
has quiz "Question 1 of"
has quiz "Right"
has quiz "Questions done: 1 right of 1 answered"

# ---- TERM=dumb chooses plain mode; the end of input ends it, progress saved ----
printf 'next\n' | TERM=dumb XDG_STATE_HOME="$tmp/dumb" "$A" --lesson causal-mask >"$tmp/dumb.out" 2>&1
echo $? >"$tmp/dumb.rc"
outs+=("$tmp/dumb.out")
rc0 dumb
has dumb "End of input. Progress is saved."
cur=$("$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))["current"]; print(c["lesson"], c["page"])' "$tmp"/dumb/attend/progress.json 2>&1)
if [ "$cur" = "causal-mask 1" ]; then ok; else bad "progress not saved at page 2: $cur"; fi
# progress that cannot be saved (its lock is a directory): said on each page opened, with the
# file and the reason (the Session's Change.issues), and the end does not claim it was saved
mkdir -p "$tmp/nosave/attend/progress.json.lock"
printf 'next\n' | XDG_STATE_HOME="$tmp/nosave" "$A" --plain --lesson causal-mask >"$tmp/nosave.out" 2>&1
echo $? >"$tmp/nosave.rc"
rc0 nosave
has nosave "Progress was not saved: $tmp/nosave/attend/progress.json: cannot save progress: cannot open the lock"
[ "$(grep -c '^Progress was not saved: ' "$tmp/nosave.out")" = 2 ] && ok || bad "nosave: not said on both pages opened"
if grep -q "Progress is saved" "$tmp/nosave.out"; then bad "nosave: the end says progress is saved"; else ok; fi
has nosave "End of input."

# ---- bad options and lessons ----
expect 2 'unknown option' -- "$A" --plain --frob
expect 1 'no lesson "no-such-lesson": give its number (1 to' -- "$A" --plain --lesson no-such-lesson
expect 1 'could be matrix-form, multi-head' -- "$A" --plain --lesson m
expect 1 'no lesson 99: the course has lessons 1 to' -- "$A" --plain --lesson 99
expect 0 ', The bug nobody mentions: attention ignores order. Page 1' -- "$A" --plain --lesson 9 </dev/null
expect 0 ', Multi-head attention: several questions at once. Page 1' -- "$A" --plain --lesson multi </dev/null

# ---- one glyph rule: the replayed training curves (lesson induction-heads) read the same in
# UTF-8 and under LANG=C, and are not one glyph repeated (a curve whose blocks all became '#') ----
ind_page=$("$PY" -c 'import json,sys; p=json.load(open(sys.argv[1]))["pages"]; print(1 + [i for i, x in enumerate(p) if "{{curve" in x["prose"]][0])' "$(lesson_json induction-heads)")
run curveu 'q\n' --plain --lesson induction-heads --page "$ind_page"
LANG=C LC_ALL=C run curvea 'q\n' --plain --lesson induction-heads --page "$ind_page"
cu=$(grep -E '^(2nd|1st) copy ' "$tmp/curveu.out"); ca=$(grep -E '^(2nd|1st) copy ' "$tmp/curvea.out")
if [ -n "$cu" ] && [ "$cu" = "$ca" ]; then ok; else bad "curves differ: UTF-8 [$cu] vs ASCII [$ca]"; fi
if grep -E '^2nd copy ' "$tmp/curveu.out" | grep -qE ' [#]+[^#]'; then ok; else bad "the second-copy curve has no drop: [$cu]"; fi

# ---- C1 controls (a raw 0x9B, U+009B) typed into a sentence are never echoed (issue 39) ----
run c1 'edit the \x9b[2J cat \xc2\x9b[2J sat\nq\n' --plain --lesson why-attention --page 4
if "$PY" $CHECK clean "$tmp/c1.out"; then ok; else bad "plain mode echoed a C1 control"; fi
has c1 'sentence "the ^[[[2J cat ^[[[2J sat"'

# ---- no escape, box drawing, block or shade byte anywhere, UTF-8 and ASCII ----
LANG=C LC_ALL=C run ascii 'm\np\nv\nq\n' --plain --lesson causal-mask
if LC_ALL=C grep -qP '[\x80-\xff]' "$tmp/ascii.out"; then bad "non-ASCII bytes under LANG=C"; else ok; fi
if "$PY" $CHECK clean "${outs[@]}"; then ok; else bad "escape, box, block or shade bytes"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
