#!/usr/bin/env bash
# test_keys.sh - the player's one key table (src/session/keys.c, printed by `attend --keys`) on
# screen: every key it binds is named in its help line (aliases excepted, and listed as such;
# tests/unit/test_keys.c proves the table itself in milliseconds), the `?` overlay on screen
# is exactly the table's help and pages at 80x24, x exports. test_keys_footers.sh (make
# test-long) walks every page checking its footer hints against the table.
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

# the overlay, whole: a screen as tall as the help (its lines, the box, the header) holds
# every line
mkdir -p "$E2E_TMP/export"
tall=$(( $(grep -c '^line' "$DUMP") + 6 ))
[ "$tall" -lt 120 ] && tall=120
start 120 "$tall" "ATTEND_EXPORT_DIR=$E2E_TMP/export" -- --lessons "$FIXTURE"
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

finish
