#!/usr/bin/env bash
# test_keys.sh - the player's one key table (src/tui/keys.c, printed by `attend --keys`):
# every key it binds is named in its help line (aliases excepted, and listed as such), the
# `?` overlay on screen is exactly the table's help, and every footer hint on every page of
# the shipped course (UTF-8) and of the fixture course (--ascii) is a hint of the table.
. "$(dirname "$0")/harness.bash"
CHECK="/usr/bin/python3 $ROOT/tests/e2e/keys_check.py"
DUMP=$E2E_TMP/keys.txt
clean() { echo "$1" | tail -1 | grep -q ' 0 problems'; } # a keys_check.py report

"$ATTEND" --keys >"$DUMP" 2>"$E2E_TMP/keys.err"
check "attend --keys prints the table" grep -q "^bind" "$DUMP"
out=$($CHECK "$DUMP" table)
check "every bound key is named in its help line ($(echo "$out" | tail -1))" clean "$out"
echo "$out" | grep -v " 0 problems" | sed 's/^/  /'
n_alias=$(grep -c "	alias$" "$DUMP")
echo "  ($n_alias bindings are aliases not spelled out in the help; --keys lists them)"

# the overlay, whole: 120x100 holds every line
mkdir -p "$E2E_TMP/export"
start 120 100 "ATTEND_EXPORT_DIR=$E2E_TMP/export" -- --lessons "$FIXTURE"
expect "lesson 1/2" "the player opens"
keys '?'
expect "keys (ESC closes)" "? opens the help"
tm capture-pane -p -t main >"$E2E_TMP/help.txt"
out=$($CHECK "$DUMP" overlay "$E2E_TMP/help.txt")
check "the ? overlay is the key table's help ($(echo "$out" | tail -1))" clean "$out"
echo "$out" | grep -v " 0 problems" | sed 's/^/  /'
keys Escape
expect_gone "keys (ESC closes)" "ESC closes it"

# at 80x24 the overlay fits the screen and pages (PgDn); no description is cut with "…":
# each wraps under itself. UTF-8, then LANG=C (ASCII glyphs, "..." for a cut).
help_pages() { # a screen per PgDn until the last help line shows; prints the problems
    local i last=""
    for i in 1 2 3 4 5 6 7 8 9 10; do
        screen | /usr/bin/python3 -c '
import sys
on = 0
for l in sys.stdin.read().split("\n"):
    if "keys (ESC closes)" in l: on = 1; continue
    if on and l.strip()[:1] in ("└", "+"): break
    if not on: continue
    if len(l) > 80: print("wider than 80:", l)
    s = l.rstrip().rstrip("│|").rstrip()
    if s.endswith("…") or s.endswith("..."): print("cut:", l)'
        screen | grep -qE "more \(([0-9]+)/\1\)" && return
        [ "$(screen)" = "$last" ] && { echo "does not page"; return; }
        last=$(screen)
        keys NPage
    done
}
for loc in C.UTF-8 C; do
    start 80 24 "LANG=$loc" "LC_ALL=$loc" -- --lessons "$FIXTURE"
    expect "lesson 1/2" "80x24 $loc: the player opens"
    keys '?'
    expect "keys (ESC closes)" "80x24 $loc: ? opens the help"
    probs=$(help_pages)
    check "80x24 $loc: the help pages to its last line, no line cut or wider than the screen" test -z "$probs"
    [ -n "$probs" ] && echo "$probs" | head -5 | sed 's/^/  /'
    keys Escape
    expect_gone "keys (ESC closes)" "80x24 $loc: ESC closes it"
done
start 120 80 "ATTEND_EXPORT_DIR=$E2E_TMP/export" -- --lessons "$FIXTURE"
expect "lesson 1/2" "the player opens again"
keys y
expect "key not used on this page" "a key the table does not bind says so"
keys x
expect "exported" "x exports the heatmap"
check "x wrote an SVG and a CSV into ATTEND_EXPORT_DIR" sh -c "ls '$E2E_TMP/export'/heatmap-*.svg '$E2E_TMP/export'/heatmap-*.csv >/dev/null 2>&1"
keys x
expect "-2.svg" "a second x never overwrites: a new name"
keys q
expect_exit 0 "quits"

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
        while [ "$(screen | head -1)" = "$before" ] && [ $j -lt 40 ]; do sleep 0.05; j=$((j + 1)); done
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
