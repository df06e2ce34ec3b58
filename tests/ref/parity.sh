#!/usr/bin/env bash
# parity.sh - the player and plain mode on one Session (tools/parity.c): every page of the
# course walked in both front ends with the same keys (every key each page offers, a typed
# sentence, a swap; a lab page's last check; t on a short train run, tests/fixtures/parity-
# train), the Session's state and Change identical after each, and no offered key answered
# with "does nothing". The labs' last checks are made here
# first (one passing, one failing, one never checked), in a state directory of the test's own.
# Then plain mode given its own copy of a key (parity --teeth: m answered twice) must fail it.
# Prints "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 1
P="${BUILD:-build}/tools/parity"
A=${ATTEND:-./attend}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" HOME="$tmp/home"
mkdir -p "$HOME"
pass=0 fail=0
"$A" lab check softmax data/labs/solutions/softmax.py --no-torch >/dev/null 2>&1
"$A" lab check attention tests/labs/wrong/attention-no-scale.py --no-torch >/dev/null 2>&1
if [ -s "$XDG_STATE_HOME/attend/lab-softmax.show" ] && [ -s "$XDG_STATE_HOME/attend/lab-attention.show" ]
then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL - the labs' checks left no show files"; fi
# the course, then a course of short train runs (t trained to the end in both, then m, r, t)
for course in lessons tests/fixtures/parity-train; do
    out=$("$P" "$course")
    echo "$out"
    last=$(grep -oE '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1)
    p=${last%% passed*} f=${last#*passed, }
    pass=$((pass + ${p:-0})) fail=$((fail + ${f%% failed*}))
    [ -n "$last" ] || fail=$((fail + 1))
done
teeth=$("$P" --teeth lessons)
tf=$(grep -oE '^[0-9]+ passed, [0-9]+ failed' <<<"$teeth" | tail -n 1)
tf=${tf#*passed, }
tf=${tf%% failed*}
if [ "${tf:-0}" -gt 0 ] && grep -q "key m" <<<"$teeth"; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL - plain mode's own copy of m was not caught (--teeth: ${tf:-no} failures)"; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
