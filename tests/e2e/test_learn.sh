#!/usr/bin/env bash
# test_learn.sh - the train widget (lesson watch-it-learn) at 80x24: t starts training, keys
# pressed while it trains are each answered on screen (head, layer, the mask refused once
# training has begun), t pauses (the step stops moving), and the loss read off the screen
# has fallen below the step-0 loss at the top of the plot's scale. Polls, never fixed sleeps
# for results; step counts, not times.
. "$(dirname "$0")/harness.bash"

step_now() { screen | sed -nE 's/.*train  step ([0-9]+)\/.*/\1/p' | head -n 1; }
# wait_step N [SECONDS]: polls until the widget has done at least N steps
wait_step() {
    local want=$1 limit=${2:-120} i=0 s
    while [ $i -lt $((limit * 10)) ]; do
        s=$(step_now)
        [ -n "$s" ] && [ "$s" -ge "$want" ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

start 80 24 -- --lesson watch-it-learn
expect "Watch attention learn" "the lesson opens"
keys z
expect "[t starts]" "the train widget waits for t"
expect "t train" "the footer offers t"
keys t
expect "[training]" "t starts training"
expect "t pause" "the footer offers pause while training"
check "the step count moves" wait_step 12 60
keys h
expect "heatmap: layer 0 head 1" "h answers while training (next head)" 3
keys l
expect "heatmap: layer 1 head 1" "l answers while training (next layer)" 3
keys m
expect "the mask is set before training" "m is refused once training has begun" 3
check "training goes on after the keys" wait_step 60 120
keys t
expect "[paused]" "t pauses"
expect "paused at step" "the pause is announced"
s1=$(step_now)
quiet 0.5 # (nothing to wait for: paused means the step does not move in this window)
s2=$(step_now)
check "the step stays put while paused ($s1, $s2)" test -n "$s1" -a "$s1" = "$s2"
# the plot's top label is the highest loss seen: step 0's, before any training
top=$(screen | sed -nE 's/^ *([0-9]+\.[0-9]+)\|.*/\1/p' | head -n 1)
held=$(screen | sed -nE 's/.*held-out ([0-9]+\.[0-9]+) .*/\1/p' | head -n 1)
check "the held-out loss ($held) has fallen below step 0's ($top)" \
    awk -v a="$held" -v b="$top" 'BEGIN { exit !(a != "" && b != "" && a + 0 < b - 1) }'
expect "best previous-token head L" "the best head's score is on screen"
keys r
expect "reset: fresh weights from seed 1, step 0" "r resets"
keys m
expect "causal mask OFF while training: the cheating run" "m before training starts the cheating run"
expect "causal mask OFF (cheating)" "the header says the mask is off"
keys q
expect_exit 0 "q quits cleanly while a run is loaded"

# a run that ends says so: "training..." does not outlive it (parity's four-step fixture)
start 80 24 -- --lessons "$ROOT/tests/fixtures/parity-train"
expect "Press t" "the four-step run's page opens"
keys t
expect "[done]" "the run ends"
expect "trained 4 steps" "the status line says the run ended"
check "no stale 'training...' once it ended" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qF 'training...'"
keys q
expect_exit 0 "q quits after the run"
echo "$E2E_PASS passed, $E2E_FAIL failed"
[ "$E2E_FAIL" -eq 0 ]
