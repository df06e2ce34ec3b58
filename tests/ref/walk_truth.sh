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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
