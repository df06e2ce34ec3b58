#!/usr/bin/env bash
# test_knockout.sh - the player's X key knocks the current head out: on the induction lesson's
# K-composition page (found by its title in the lesson file), X on the previous-token head shows
# KNOCKED OUT in the title and a status line whose losses are the ones `attend dump --ablate`
# computes for the same sentence and head; X again puts it back. Then the lesson's train page
# (the widget of kind "train"): the replay of the recorded training with the phase-change step
# the model file's history gives, t trains a fresh model live (the step count advances, t pauses
# and resumes, r goes back to the replay), and q quits mid-run with the terminal restored.
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
expect "loss $want nats" "with the losses dump computes, on one status line"
keys X
expect "L$layer.h$head back in" "X again puts it back"
expect_gone "KNOCKED OUT" "the title no longer says so"

# ---- live training on the train page ----
read -r tpage phase < <(python3 - "$L" "$ROOT/data/induction.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tp = [i for i, p in enumerate(d["pages"]) if p.get("widget", {}).get("kind") == "train"][0]
h = json.load(open(sys.argv[2]))["training"]["history"]
ls = h["loss_second"]
print(tp, next(s for s, v in zip(h["step"], ls) if v < ls[0] / 2))
PY
)
for _ in $(seq 1 $((tpage - page))); do keys " "; done
expect "replay: the recorded training" "the train page replays the recorded training"
expect "phase change at step $phase" "with the phase change the model file records (step $phase)"
keys t
expect "[training]" "t trains a fresh model live"
step_now() { screen | sed -n 's/.*live: step \([0-9]*\)\/.*/\1/p' | head -1; }
wait_for "live: step" 5
s1=$(step_now)
i=0
while [ $i -lt 600 ] && [ "$(step_now)" -le "${s1:-0}" ] 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
s2=$(step_now)
adv=0
[ -n "$s1" ] && [ -n "$s2" ] && [ "$s2" -gt "$s1" ] && adv=1
check "the steps advance ($s1 -> $s2)" [ "$adv" = 1 ]
keys t
expect "[paused]" "t pauses mid-run"
keys t
expect "[training]" "t resumes"
keys r
expect "replay: the recorded training" "r goes back to the replay"
expect "phase change at step $phase" "whose phase change is the recorded one again"
keys t
expect "live: step" "t trains a fresh model again"
keys q
expect_exit 0 "q quits mid-training; the terminal is restored"
finish
