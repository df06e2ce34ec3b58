#!/usr/bin/env bash
# `attend train --watch`: the train widget's run, headless, at FIXED step counts (never
# times). The masked run forms a previous-token head (score >= 0.5) and lowers the held-out
# loss below step 0's; the cheating run (--no-causal-mask) ends with a lower training loss
# but a higher held-out loss (measured with the mask restored); the same seed gives the same
# numbers and the same weights; bad options are named. Prints "N passed, N failed".
# suite: slow (about 25 s of training runs): in make test, not in make check
. "$(dirname "$0")/cli_lib.bash"
STEPS=600   # the widget's default run

# --- usage errors
expect 2 "unknown option \"--fast\"" -- "$A" train --watch --fast
expect 2 "--steps needs a whole number from 1 to 1000000, not \"x\"" -- "$A" train --watch --steps x
expect 2 "--every needs a value" -- "$A" train --watch --every
expect 0 "usage: attend train --watch" -- "$A" train --watch --help

# rows: step train held-out prev head (comment lines start with #)
row() { awk -v s="$2" '$1 == s {print}' "$1"; }
col() { row "$1" "$2" | awk -v c="$3" '{print $c}'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }

"$A" train --watch --steps $STEPS --every $STEPS --out "$tmp/masked.json" >"$tmp/masked.txt" 2>"$tmp/masked.err" \
    && ok || bad "masked run failed: $(cat "$tmp/masked.err")"
"$A" train --watch --steps $STEPS --every $STEPS --no-causal-mask >"$tmp/cheat.txt" 2>"$tmp/cheat.err" \
    && ok || bad "cheating run failed: $(cat "$tmp/cheat.err")"
m0=$(col "$tmp/masked.txt" 0 3); mN=$(col "$tmp/masked.txt" $STEPS 3)
mt=$(col "$tmp/masked.txt" $STEPS 2); mp=$(col "$tmp/masked.txt" $STEPS 4)
ct=$(col "$tmp/cheat.txt" $STEPS 2); ch=$(col "$tmp/cheat.txt" $STEPS 3)
[ -n "$m0" ] && [ -n "$mN" ] && [ -n "$ct" ] && ok || bad "missing rows: $(cat "$tmp/masked.txt" "$tmp/cheat.txt")"
lt 0.499999 "$mp" && ok || bad "masked run: best previous-token score $mp < 0.5 at step $STEPS"
lt "$mN" "$m0" && ok || bad "masked run: held-out loss $mN not below step 0's $m0"
lt "$ct" "$mt" && ok || bad "cheating run's training loss $ct not below the masked run's $mt"
lt "$mN" "$ch" && ok || bad "cheating run's held-out loss $ch (mask restored) not above the masked run's $mN"
grep -q "causal mask OFF" "$tmp/cheat.txt" && ok || bad "the cheating run does not say the mask is off"

# --- the saved model opens in the rest of attend
expect 0 "previous token" -- "$A" dump --model "$tmp/masked.json" --sentence "the cat sat on the mat ." --heads

# --- determinism: same seed, same numbers and weights; another seed, other numbers
"$A" train --watch --steps 30 --every 10 --out "$tmp/d1.json" >"$tmp/d1.txt" 2>/dev/null
"$A" train --watch --steps 30 --every 10 --out "$tmp/d2.json" >"$tmp/d2.txt" 2>/dev/null
"$A" train --watch --steps 30 --every 10 --seed 2 >"$tmp/d3.txt" 2>/dev/null
[ "$(wc -l <"$tmp/d1.txt")" -eq 6 ] && cmp -s "$tmp/d1.txt" "$tmp/d2.txt" && ok || bad "same seed, different numbers"
cmp -s "$tmp/d1.json" "$tmp/d2.json" && ok || bad "same seed, different weights"
! cmp -s "$tmp/d1.txt" "$tmp/d3.txt" && ok || bad "seed 2 gave seed 1's numbers"

# --- check-lessons validates the train widget (lesson 19 as shipped, then broken copies)
expect 0 "0 problems" -- "$A" check-lessons
mkdir -p "$tmp/bad"
/usr/bin/python3 - "$tmp/bad/01-bad.json" <<'PY'
import json, sys
L = json.load(open("lessons/19-watch-it-learn.json"))
w = L["pages"][0]["widget"]
w["sentence"] = "the cat"
w["controls"] = ["mask", "tie"]
w["start"] = {"step": 3}
json.dump(L, open(sys.argv[1], "w"), indent=1)
PY
expect 1 "widget.sentence: a train widget runs no sentence" -- "$A" check-lessons "$tmp/bad"
expect 1 'control "tie" does nothing on a train widget' -- "$A" check-lessons "$tmp/bad"
expect 1 'start key "step" does nothing on a train widget' -- "$A" check-lessons "$tmp/bad"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
