#!/usr/bin/env bash
# test_classroom.sh - the presenter as a teacher uses it on a projector, in tmux at 80x24,
# 100x30 and 120x60: the cursor cell keeps its colour under its value (no reverse video, the
# value in brackets), small multiples keep their key labels at 100x30, a tall pane's heatmap
# fills it at 120x60.
. "$(dirname "$0")/harness.bash"

RT=$E2E_TMP/run
mkdir -p "$RT" && chmod 700 "$RT"
LESSONS=$ROOT/lessons
cap() { tm capture-pane -e -p -t main; }
ESC=$'\e'
# no_reverse LINE: no SGR 7 (reverse video) in LINE
no_reverse() { ! grep -qE "${ESC}\\[([0-9]+;)*7(;[0-9]+)*m" <<<"$1"; }
# ramp_bracket LINE: the "[" before the cursor's value sits on a 256-colour background
ramp_bracket() { grep -qE "${ESC}\\[48;5;[0-9]+m\\[${ESC}" <<<"$1"; }

# ---- the cursor cell on a projector: its colour stays, the value in brackets ----
for size in "80 24" "100 30"; do
    set -- $size
    start "$1" "$2" TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- present --lessons "$LESSONS" --lesson causal-mask --page 3 --theme projector
    expect "[1.00]" "$1x$2: the cursor's value in brackets"
    line=$(cap | grep -A1 'sum$' | tail -n 1) # the grid's first row: the cursor's
    check "$1x$2: no reverse video on the cursor's row" no_reverse "$line"
    check "$1x$2: the cursor cell keeps a ramp colour (48;5;N)" ramp_bracket "$line"
    keys q
    expect_exit 0 "$1x$2: q quits"
done

# ---- small multiples at 100x30 keep the key labels ----
start 100 30 TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- present --lessons "$LESSONS" --lesson multi-head --page 1 --theme projector
expect "page 1/" "100x30: multi-head opens"
keys a
expect "head 3" "100x30: small multiples"
heads=$(screen | grep -c 'head [0-9]')
labels=$(screen | grep -cE '^ +the +cat +sat')
check "100x30: every band of heads has its key labels ($labels of $heads lines)" test "$labels" -ge 2
keys q
expect_exit 0 "100x30: q quits"

# ---- 120x60: the heatmap fills its tall pane ----
start 120 60 TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- present --lessons "$LESSONS" --lesson causal-mask --page 3 --theme projector
expect "legend" "120x60: the heatmap"
row=$(screen | grep -n 'legend' | head -n 1 | cut -d: -f1)
check "120x60: the grid reaches below the middle (legend on row $row of 60)" test "$row" -gt 30
keys q
expect_exit 0 "120x60: q quits"

echo "$E2E_PASS passed, $E2E_FAIL failed"
[ "$E2E_FAIL" -eq 0 ]
