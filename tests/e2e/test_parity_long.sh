#!/usr/bin/env bash
# test_parity_long.sh - the course's own train runs trained to the end in both front ends
# (tools/parity --long): every train page of the shipped course (watch-it-learn's 600-step
# runs, masked and cheating; the induction lesson's replay page, whose t trains a fresh model
# by the recipe the model records) walked with the same key script in the player (headless,
# its slices ticked until the run stops) and in plain mode (trained to the end at once); after
# every key the Session's state and Change, and the two runs' weights bit for bit, must be the
# same. make check's parity.sh trains only short runs (tests/fixtures/parity-train).
# suite: long (several full training runs per front end): make test-long
cd "$(dirname "$0")/../.." || exit 1
P="${BUILD:-build}/tools/parity"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" HOME="$tmp/home"
mkdir -p "$HOME"
cd "$tmp/home" || exit 1 # w is not pressed, but nothing lands in the checkout either way
out=$("$OLDPWD/$P" --long "$OLDPWD/lessons")
rc=$?
echo "$out"
last=$(grep -oE '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1)
pages=$(sed -nE 's/^([0-9]+) pages walked.*/\1/p' <<<"$out")
if [ -z "$last" ]; then echo "FAIL - parity --long printed no count (exit $rc)"; echo "0 passed, 1 failed"; exit 1; fi
p=${last%% passed*} f=${last#*passed, }
f=${f%% failed*}
# the course has train pages (watch-it-learn, induction-heads): a walk of none proves nothing
if [ "${pages:-0}" -ge 3 ]; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL - only ${pages:-0} train pages walked"; fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
