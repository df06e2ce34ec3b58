#!/usr/bin/env bash
# test_large.sh - the player on a projector-sized terminal (200×60) on the fixture course
# tests/e2e/fixtures/large: prose-only pages keep a readable measure (lines of at most 90
# columns, the column centred), the heatmap grows (wider cells, 2 to 5 screen rows per token,
# values and row sums still read 1.00, the legend line kept next to the grid), small
# multiples grow too, and resizing 200×60 → 80×24 → 200×60 mid-page gives exactly the
# screens a fresh start at each size gives. NO_COLOR and LANG=C at 200×60 once.
. "$(dirname "$0")/harness.bash"
L=$ROOT/tests/e2e/fixtures/large
MEASURE=90

# prose_widths: the widest and narrowest left margin of the text between the header and
# the footer, and the widest line (columns from its first to its last character).
prose_stats() {
    screen | sed '1d;$d' | awk '
        { sub(/[ \t]+$/, "") }
        length($0) > 0 { m = match($0, /[^ ]/); w = length($0) - m + 1
                         if (w > maxw) maxw = w
                         if (minm == "" || m < minm) minm = m }
        END { print maxw + 0, minm + 0 }'
}
# sum_rows: screen line numbers of heatmap rows (their last field is the row sum 1.00).
sum_rows() { screen | awk '$NF == "1.00" { print NR }' | tr '\n' ' '; }
# row_gaps: the distinct gaps between consecutive heatmap rows.
row_gaps() { sum_rows | awk '{ for (i = 2; i <= NF; i++) g[$i - $(i - 1)] = 1 }
                              END { for (k in g) printf "%s ", k }'; }
# cell_width: columns between the first two values of the heatmap row "cat" (row 1).
cell_width() {
    screen | awk '{ line = $0; sub(/^.*[│|] /, "", line); sub(/^ +/, "", line) }
                  line ~ /^cat / { a = match(line, /[0-9]\.[0-9][0-9]/); rest = substr(line, a + 4)
                                   b = match(rest, /[0-9]\.[0-9][0-9]/); print b + 3; exit }'
}
# wait_screen FILE: polls until the screen equals FILE (5 s).
wait_screen() {
    local i=0
    local n_; n_=$(deadline_polls 5); while [ $i -lt "$n_" ]; do
        screen | cmp -s - "$1" && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# ---- 80×24: the compact layout, the reference for the resize checks ----
rm -rf "$XDG_STATE_HOME"
start 80 24 -- --lessons "$L"
expect "A long prose page" "80x24: opens the prose page"
read -r w80 m80 <<<"$(prose_stats)"
check "80x24: prose fills the width (widest line $w80 > $MEASURE is impossible, > 70 expected)" \
    test "$w80" -gt 70 -a "$w80" -le 78
screen >"$E2E_TMP/prose80"
keys Space
expect "Heatmap" "80x24: turns to the heatmap"
check "80x24: every row sums to 1.00" heatmap_full 6
check "80x24: one screen row per token" test "$(row_gaps)" = "1 "
check "80x24: cells 7 columns wide" test "$(cell_width)" = 7
keys m Down Right
expect "query 1 'cat' → key 1 'cat'" "80x24: cursor moved"
screen >"$E2E_TMP/heat80"
keys q
expect_exit 0 "80x24: quits"

# ---- 200×60 ----
rm -rf "$XDG_STATE_HOME"
start 200 60 -- --lessons "$L"
expect "A long prose page" "200x60: opens the prose page"
read -r w200 m200 <<<"$(prose_stats)"
check "200x60: prose lines at most $MEASURE columns (widest $w200)" test "$w200" -le "$MEASURE" -a "$w200" -gt 80
check "200x60: the prose column is centred (left margin $m200)" test "$m200" -ge 50 -a "$m200" -le 60
screen >"$E2E_TMP/prose200"
resize 80 24
check "200x60 -> 80x24 on the prose page: the 80x24 screen" wait_screen "$E2E_TMP/prose80"
resize 200 60
check "80x24 -> 200x60 on the prose page: the 200x60 screen again" wait_screen "$E2E_TMP/prose200"

keys Space
expect "Heatmap" "200x60: turns to the heatmap"
check "200x60: every row sums to 1.00" heatmap_full 6
gaps=$(row_gaps)
check "200x60: every token takes 2 to 5 screen rows (row gaps: $gaps)" sh -c "case '$gaps' in '2 '|'3 '|'4 '|'5 ') true;; *) false;; esac"
cw=$(cell_width)
check "200x60: cells 8 to 10 columns wide (got $cw)" test "${cw:-0}" -ge 8 -a "${cw:-0}" -le 10
keys m Down Right
expect "query 1 'cat' → key 1 'cat'" "200x60: cursor moved"
check "200x60: upper triangle masked, rows still 1.00" heatmap_triangle "·" 6
check "200x60: the legend line stays next to the grid (ends before column 170)" \
    sh -c "[ \$(tmux -L '$E2E_SOCK' capture-pane -p -t main | grep legend | sed 's/[ ]*\$//' | awk '{ print length(\$0) }') -lt 170 ]"
screen >"$E2E_TMP/heat200"
resize 80 24
check "200x60 -> 80x24 on the heatmap: the 80x24 screen" wait_screen "$E2E_TMP/heat80"
resize 70 20
expect "need 80×24" "200x60 page shrunk below the minimum: need 80×24"
resize 200 60
check "back to 200x60: the 200x60 screen again" wait_screen "$E2E_TMP/heat200"

# small multiples: bigger cells, every head still shown
NH=$(model_cfg decoder.json n_heads)
keys a
expect "head $((NH - 1))" "200x60: a shows every head"
check "200x60: small multiples give a token more than one screen row" \
    sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | awk '/head 0/ && !h { h = NR } /legend/ { l = NR } END { exit !(l - h > 2 * 6 + 1) }'"
check "200x60: small multiples print the weights in their cells" \
    sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -A4 'head 0' | grep -qE '[0-9]\.[0-9][0-9]'"
keys a
keys q
expect_exit 0 "200x60: quits"

# ---- NO_COLOR and LANG=C at 200×60 ----
rm -rf "$XDG_STATE_HOME"
start 200 60 NO_COLOR=1 -- --lessons "$L"
expect "A long prose page" "NO_COLOR 200x60: opens"
keys Space
expect "Heatmap" "NO_COLOR 200x60: heatmap"
check "NO_COLOR 200x60: numbers in every cell, rows sum to 1.00" heatmap_full 6 strip
keys m
expect "mask:causal" "NO_COLOR 200x60: mask on"
check "NO_COLOR 200x60: upper triangle masked" heatmap_triangle "·" 6 strip
keys q
expect_exit 0 "NO_COLOR 200x60: quits"
rm -rf "$XDG_STATE_HOME"
start 200 60 LC_ALL=C LANG=C -- --lessons "$L"
expect "A long prose page" "LANG=C 200x60: opens"
read -r wc mc <<<"$(prose_stats)"
check "LANG=C 200x60: prose at most $MEASURE columns" test "$wc" -le "$MEASURE"
keys Space
expect "attend | lesson" "LANG=C 200x60: ASCII header"
keys m
expect "mask:causal" "LANG=C 200x60: mask on"
check "LANG=C 200x60: upper triangle masked with x, rows sum to 1.00" heatmap_triangle "x" 6
keys q
expect_exit 0 "LANG=C 200x60: quits"

# ---- the passport uses a wide terminal's room (issue 10: 10 of 12 columns at 160 wide) ----
rm -rf "$XDG_STATE_HOME"
start 160 40 -- --lessons "$ROOT/lessons" --lesson transformer-block --page 3
expect "shape passport" "160x40: the passport page opens"
keys n n
expect "step 6/20: K" "160x40: the passport steps to a head's K"
check "160x40: all 12 columns of K [6x12] shown, no column scroller" \
    eval 'screen | grep -qE "│ +0 +1 +2 +3 +4 +5 +6 +7 +8 +9 +10 +11 *$" && ! screen | grep -q "cols 1-"'
keys q
expect_exit 0 "160x40: quits"
finish
