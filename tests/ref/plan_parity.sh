#!/usr/bin/env bash
# plan_parity.sh - one lecture plan, two front ends, one plan machine (tools/plan_parity.c):
# every shipped plan and demo, and a plan with every kind of step (tests/fixtures/plans/
# parity.json: pages, keys, B/F/R, x, type, a swap, an explanation widget, the worked
# example, a demo by name, a class quiz, expect), run in the presenter (space and b as the
# teacher presses them) and headless (as --check and demo --plain run it), with the plan
# left and resumed: the same state, step, caption and problems after every move. Then the
# headless run given its own way of pressing keys (--teeth: m forgotten) must fail it, and
# the plans pass --check (the headless run) with no file written. Prints "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 1
P="${BUILD:-build}/tools/plan_parity"
A=${ATTEND:-./attend}
root=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_STATE_HOME="$tmp/state" HOME="$tmp/home" ATTEND_EXPORT_DIR="$tmp/export"
mkdir -p "$HOME" "$tmp/export" "$tmp/cwd"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
plans=("$root"/demos/*.json "$root"/tests/fixtures/plans/parity.json)
out=$(cd "$tmp/cwd" && "$root/$P" "$root/lessons" "${plans[@]}" 2>&1)
if [ $? -eq 0 ] && grep -q '^[1-9][0-9]* passed, 0 failed$' <<<"$out"; then ok
else bad "the presenter and the headless run disagree:"; echo "$out" | grep -v '^[0-9]* passed' | head -20; fi
n=$(grep -o '^[0-9]* passed' <<<"$out" | cut -d' ' -f1)
[ "${n:-0}" -ge 60 ] && ok || bad "only ${n:-0} moves compared"
out=$(cd "$tmp/cwd" && "$root/$P" --teeth "$root/lessons" "$root/tests/fixtures/plans/parity.json" 2>&1)
if [ $? -ne 0 ] && grep -q 'the state differs' <<<"$out"; then ok
else bad "--teeth (m forgotten headless) was not caught: $(tail -n 1 <<<"$out")"; fi
for f in "${plans[@]}"; do
    if (cd "$tmp/cwd" && "$root/$A" demo --check "$f" --lessons "$root/lessons" >/dev/null 2>&1); then ok
    else bad "$f does not pass --check"; fi
done
[ -z "$(ls -A "$tmp/cwd")" ] && ok || bad "--check or the runs wrote files: $(ls "$tmp/cwd" | head -3)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
