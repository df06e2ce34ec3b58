#!/usr/bin/env bash
# test_keys_footers.sh - every footer hint on every page of the shipped course (UTF-8) and of
# the fixture course (--ascii) is a hint of the key table (`attend --keys`). Prints "N passed,
# N failed".
# suite: long (a walk of every page, about a minute): make test-long; the footer is built
# from the table (keys_hints), which tests/unit/test_keys.c checks without a terminal
. "$(dirname "$0")/harness.bash"
CHECK="/usr/bin/python3 $ROOT/tests/e2e/keys_check.py"
DUMP=$E2E_TMP/keys.txt
clean() { echo "$1" | tail -1 | grep -q ' 0 problems'; } # a keys_check.py report

"$ATTEND" --keys >"$DUMP" 2>"$E2E_TMP/keys.err"
check "attend --keys prints the table" grep -q "^bind" "$DUMP"

# walk_footers DIR W H ARGS...: every page's screen, with colours, into DIR
walk_footers() {
    local dir=$1 w=$2 h=$3
    shift 3
    mkdir -p "$dir"
    rm -rf "$XDG_STATE_HOME"
    start "$w" "$h" -- "$@"
    wait_for "page 1/" 5
    local i before j
    for i in $(seq 1 200); do
        tm capture-pane -e -p -t main >"$dir/$(printf %03d "$i").txt"
        before=$(screen | head -1)
        keys Space
        if wait_for "end of the course" 0.3 || wait_for "last page of this lesson" 0.01; then
            break
        fi
        j=0
        while [ "$(screen | head -1)" = "$before" ] && [ $j -lt "$(deadline_polls 2)" ]; do sleep 0.05; j=$((j + 1)); done
    done
    keys q
}
walk_footers "$E2E_TMP/course" 80 24 --lessons "$ROOT/lessons"
out=$($CHECK "$DUMP" footer "$E2E_TMP"/course/*.txt)
check "every footer hint of the shipped course is in the table ($(echo "$out" | tail -1))" clean "$out"
echo "$out" | grep -v " 0 problems" | head -20 | sed 's/^/  /'
walk_footers "$E2E_TMP/ascii" 80 24 --ascii --lessons "$FIXTURE"
out=$($CHECK "$DUMP" footer "$E2E_TMP"/ascii/*.txt)
check "every footer hint in ASCII mode is in the table ($(echo "$out" | tail -1))" clean "$out"
echo "$out" | grep -v " 0 problems" | head -20 | sed 's/^/  /'
finish
