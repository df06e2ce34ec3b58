#!/usr/bin/env bash
# test_knockout.sh - the player's X key knocks the current head out: on the induction lesson's
# K-composition page (found by its title in the lesson file), X on the previous-token head shows
# KNOCKED OUT in the title and a status line whose losses are the ones `attend dump --ablate`
# computes for the same sentence and head; X again puts it back.
. "$(dirname "$0")/harness.bash"
set -f
L=$(find "$ROOT/lessons" -name '*-induction-heads.json' | head -1)
read -r page sentence layer head < <(python3 - "$L" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for i, p in enumerate(d["pages"]):
    if p["title"].startswith("Why one needs the other"):
        w = p["widget"]
        print(i, w["sentence"].replace(" ", "_"), w["start"]["layer"], w["start"]["head"])
PY
)
sentence=${sentence//_/ }
want=$("$ATTEND" dump --model induction.json --sentence "$sentence" --ablate "$layer.$head" |
    sed -n 's/^loss on the sentence.*: \([0-9.]*\) -> \([0-9.]*\) nats$/\1 \2/p' |
    awk '{printf "%.2f -> %.2f", $1, $2}')
check "dump --ablate gives the losses to expect ($want)" [ -n "$want" ]
start 80 24 -- --lesson induction-heads
wait_for "Induction heads" 5
for _ in $(seq 1 "$page"); do keys " "; done
wait_for "K-composition" 5
keys X
expect "L$layer.h$head knocked out" "X knocks the head out"
expect "KNOCKED OUT" "the title says so"
expect "Loss on the sentence $want" "with the losses dump computes"
keys X
expect "L$layer.h$head back in" "X again puts it back"
expect_gone "KNOCKED OUT" "the title no longer says so"
finish
