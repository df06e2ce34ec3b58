#!/usr/bin/env bash
# test_lab.sh - the lab page at 80×24: the last page of the matrix-form lesson names the
# commands; with `attend lab watch` running beside it, the page shows the verdict and the three
# heatmaps (yours, the engine's, the difference) and the diagnosis, and follows every save (FAIL,
# then PASS);
# NO_COLOR=1 TERM=xterm LANG=C draws the heatmaps with ASCII shades.
. "$(dirname "$0")/harness.bash"
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    fail "the lab page needs /usr/bin/python3 with numpy (apt-get install python3-numpy)"
    finish
fi
n=$(/usr/bin/python3 -c "import json; print(len(json.load(open('lessons/06-matrix-form.json'))['pages']))")
work=$E2E_TMP/work; mkdir -p "$work"
cp tests/labs/wrong/attention-no-scale.py "$work/attention.py"

start 80 24 -- --lessons "$ROOT/lessons" --lesson matrix-form
expect "page 1/$n" "matrix-form opens"
keys G; literal "$n"; keys Enter
expect "page $n/$n" "G $n: the last page"
expect "attend lab start attention" "the lab page names the start command"
expect "attend lab watch attention attention.py" "and the watch command"
expect "no check yet" "no check has run"

mkfifo "$E2E_TMP/in"
"$ATTEND" lab watch attention "$work/attention.py" --no-torch <"$E2E_TMP/in" >"$E2E_TMP/watch.out" 2>&1 &
wpid=$!
exec 7>"$E2E_TMP/in"
expect "FAIL " "a failing check shows on the page" 20
expect "Diagnosis no-scale: The scores were not divided" "the diagnosis shows on the page"
expect "yours" "the learner's heatmap"
expect "attend's engine" "the engine's heatmap"
expect "|difference| (max" "their difference, its maximum printed"
check "the page fits 80x24 with its footer" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | tail -n 1 | grep -q 'q quit'"
sleep 1.1 # a new modification time, whatever the file system's resolution
cp data/labs/solutions/attention.py "$work/attention.py"
expect "PASS " "the page follows the save: PASS" 20
expect_gone "FAIL " "the failure is gone"
exec 7>&-
wait "$wpid" && ok "watch stops on EOF with status 0" || fail "watch did not end cleanly"

start 80 24 NO_COLOR=1 TERM=xterm LANG=C LC_ALL=C -- --lessons "$ROOT/lessons" --lesson matrix-form
expect "Self-attention in matrix form" "ASCII: matrix-form opens (on the page it was left on)"
keys G; literal "$n"; keys Enter
expect "page $n/$n" "ASCII: the last page"
expect "PASS " "ASCII: the last check is remembered"
check "ASCII: shades drawn, no UTF-8 blocks" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -E '^ [ .:=+*#%@-]{8,}' | grep -qv '[░▒▓█]'"
keys q
finish
