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
# The presenter publishes its state (RT/attend/*.state, a "seq" line counting publishes) after
# every key it handles and every step a demo takes: a barrier that needs no sleep.
pub_seq() { cat "$RT"/attend/*.state 2>/dev/null | sed -n 's/^seq\t//p' | sort -n | tail -n 1; }
# published KEY: presses KEY and waits until the presenter has handled it (published again)
published() {
    local before i=0 n
    before=$(pub_seq); before=${before:-0}
    keys "$1"
    n=$(deadline_polls 5)
    while [ $i -lt "$n" ]; do
        [ "$(pub_seq)" -gt "$before" ] 2>/dev/null && return 0
        sleep 0.05; i=$((i + 1))
    done
    return 1
}

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

# ---- o, B, F, x, ESC in the go-to box: what the room sees ----
notes_text=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pages"][0]["notes"][:30])' "$LESSONS/07-causal-mask.json")
for size in "80 24" "100 30"; do
    set -- $size
    start "$1" "$2" TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- present --lessons "$LESSONS" --lesson causal-mask --page 1 --theme projector
    expect "page 1/" "$1x$2: presenter on causal-mask"
    keys o
    expect "speaker notes: in attend notes" "$1x$2: o points to attend notes"
    check "$1x$2: the notes are not on the room's screen" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qF \"\$1\"" _ "$notes_text"
    keys B
    check "$1x$2: B blanks the room's screen" wait_gone "page 1/" 3
    keys B
    expect "page 1/" "$1x$2: B again shows the page"
    check "$1x$2: F is handled (published)" published F
    check "$1x$2: m is handled while frozen (published)" published m
    check "$1x$2: frozen: the room does not see m" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'mask:causal'"
    keys F
    expect "mask:causal" "$1x$2: F again: the room sees the page as it is now"
    keys G
    expect "go to page" "$1x$2: G opens the go-to box"
    check "$1x$2: ESC in the go-to box is handled (published)" published Escape
    check "$1x$2: ESC in the go-to box echoes no help line" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qi 'cancels'"
    keys q
    expect_exit 0 "$1x$2: q quits"
done
mkdir -p "$E2E_TMP/x-here"
start 80 24 TERM=xterm-256color XDG_RUNTIME_DIR="$RT" ATTEND_EXPORT_DIR="$E2E_TMP/x-here" -- present --lessons "$LESSONS" --lesson permutation-equivariance --page 1 --theme projector
expect "page 1/" "chips page opens"
keys x
expect "exported " "x on a chips page: the badge names the file written"
check "x on a chips page: an SVG in the export directory" sh -c "ls '$E2E_TMP/x-here'/*.svg >/dev/null 2>&1"
check "x on a chips page: no chip picked" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qi 'picked'"
keys q
expect_exit 0 "chips: q quits"

# ---- demo --auto: P pauses, no step under an overlay ----
start 80 24 TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- demo causal-mask --lessons "$LESSONS" --auto 0.6
expect "step 2/" "demo --auto runs"
keys P
expect "demo paused" "P pauses the demo"
st=$(screen | grep -o 'step [0-9]*/[0-9]*' | head -n 1)
seq0=$(pub_seq)
quiet 1.5
check "paused: nothing published while paused (seq $seq0)" test "$(pub_seq)" = "$seq0"
check "paused: no step fires ($st)" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qF '$st'"
keys P
expect "demo resumed" "P resumes"
check "the key table's help lists the presenter's keys (B, F, P)" sh -c "'$ATTEND' --keys | grep -q '^line.*Presenter (attend present, attend demo)' && '$ATTEND' --keys | grep -qE '^bind.presenter.*REQ_DEMO_PAUSE'"
keys '?'
expect "more" "? opens the help"
st=$(screen | grep -o 'step [0-9]*/[0-9]*' | head -n 1)
quiet 1.5
keys Escape
check "an overlay open: no step fired behind it" test "$(screen | grep -o 'step [0-9]*/[0-9]*' | head -n 1)" = "$st"
keys q
expect_exit 0 "demo: q quits"

# ---- notes follows the newest live presenter ----
tm kill-session -t notes >/dev/null 2>&1
tm new-session -d -s notes -x 80 -y 24 -c "$ROOT" "env XDG_RUNTIME_DIR='$RT' '$ATTEND' notes; sleep 600"
notes_wait() { local i=0 n; n=$(deadline_polls 5); while [ $i -lt "$n" ]; do tm capture-pane -p -t notes | grep -qF -- "$1" && return 0; sleep 0.05; i=$((i + 1)); done; return 1; }
start 80 24 TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- present --lessons "$LESSONS" --lesson causal-mask --page 2
check "notes: the first presenter's page" notes_wait "page 2/"
tm kill-session -t second >/dev/null 2>&1
tm new-session -d -s second -x 80 -y 24 -c "$ROOT" "env XDG_STATE_HOME='$XDG_STATE_HOME' XDG_RUNTIME_DIR='$RT' TERM=xterm-256color '$ATTEND' present --lessons '$LESSONS' --lesson multi-head --page 3; sleep 600"
check "notes: a newer presenter is followed" notes_wait "Multi-head"
keys Space  # the first presenter again: now the most recent
check "notes: the most recent one, the first again" notes_wait "page 3/"
# a presenter killed by a signal its parent has not reaped (a zombie) is not followed
# (the kill waits until that presenter has published its page, and the reap of script's child
# is what the notes must not depend on)
zombie_polls=$(deadline_polls 10)
bash -c "env XDG_STATE_HOME='$XDG_STATE_HOME' XDG_RUNTIME_DIR='$RT' TERM=xterm-256color script -qc \"'$ATTEND' present --lessons '$LESSONS' --lesson scaling --page 1\" /dev/null >/dev/null 2>&1 </dev/null &
    i=0; while [ \$i -lt $zombie_polls ] && ! grep -qs '^lesson_id.scaling' '$RT'/attend/*.state; do sleep 0.05; i=\$((i + 1)); done
    pkill -KILL -P \$! 2>/dev/null" >/dev/null 2>&1
tm kill-session -t second >/dev/null 2>&1
keys Space
check "notes: a killed presenter is dropped, the live one followed" notes_wait "page 4/"
tm kill-session -t notes >/dev/null 2>&1
keys q
expect_exit 0 "notes: presenter quits"

# ---- R: the prose a paragraph at a time ----
prose_lines() { screen | sed -n '3,/^ ─/p' | grep -cv '^ *$\|^ ─'; }
start 80 24 TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- present --lessons "$LESSONS" --lesson causal-mask --page 3 --theme projector
expect "page 3/" "reveal: page 3"
all=$(prose_lines)
keys R
expect "a paragraph at a time" "reveal: R turns it on (badge)"
one=$(prose_lines)
check "reveal: only the first paragraph ($one of $all lines)" test "$one" -lt "$all"
keys Space
expect "paragraph 2 of" "reveal: space shows the next paragraph"
check "reveal: still page 3, more prose" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'page 3/' && [ \$(tmux -L '$E2E_SOCK' capture-pane -p -t main | sed -n '3,/^ ─/p' | grep -cv '^ *\$\|^ ─') -gt $one ]"
keys q
expect_exit 0 "reveal: q quits"

# ---- a lecture plan: checked like a demo, stepped through with space ----
mkdir -p "$E2E_TMP/plan"
printf '{"steps": [\n  {"open": "causal-mask", "page": 1},\n  {"open": "causal-mask", "page": 99}\n]}\n' >"$E2E_TMP/plan/bad.json"
out=$(cd "$E2E_TMP/plan" && "$ATTEND" present --plan bad.json --check --lessons "$LESSONS" 2>&1)
np=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["pages"]))' "$LESSONS/07-causal-mask.json")
check "plan --check: a page the lesson lacks, at its file:line:col" test "$out" = "bad.json:3:3: step 2: lesson causal-mask has no page 99 (1..$np)"
out=$(cd "$E2E_TMP/plan" && "$ATTEND" present --plan lecture-masks --check --lessons "$LESSONS" 2>&1)
check "plan --check: the shipped plan by name ($out)" sh -c "echo '$out' | grep -q 'every lesson, page and key checked'"
n=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["steps"]))' "$ROOT/demos/lecture-masks.json")
first=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"][1]["open"])' "$ROOT/demos/lecture-masks.json")
start 80 24 TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- present --plan lecture-masks --lessons "$LESSONS"
expect "step 1/$n" "plan: the presenter opens on its first step"
keys Space
expect "step 2/$n" "plan: space takes the next step"
keys q
expect_exit 0 "plan: q quits"

# ---- the class quiz on the room's screen ----
for size in "80 24" "120 30"; do
    set -- $size
    start "$1" "$2" TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- quiz --class --lesson causal-mask --seed 7 --time 2 --lessons "$LESSONS"
    expect "question 1 of" "$1x$2 class quiz: question 1"
    expect "Setup: Sentence" "$1x$2 class quiz: the setup (sentence, mask, layer and head)"
    # question 1 asks for a weight the grid would print: the room's screen shows no grid (issue 34)
    check "$1x$2 class quiz: no figure that prints the asked weight" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE '^ +the +cat +sat'"
    expect "time is up" "$1x$2 class quiz: 0:00 says the time is up" 5
    # the last question is a choice question: its choices whole, the answer by letter
    n=$("$ATTEND" quiz --answers --seed 7 --lesson causal-mask --lessons "$LESSONS" | grep -cE '^[0-9]+\. \[')
    letter=$("$ATTEND" quiz --answers --seed 7 --lesson causal-mask --lessons "$LESSONS" | sed -n 's/^   Answer: \([0-9]\) .*/\1/p' | tail -n 1)
    i=1; while [ $i -lt "$n" ]; do keys n; i=$((i + 1)); done
    expect "question $n of $n" "$1x$2 class quiz: the last question"
    check "$1x$2 class quiz: no choice cut with …" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q '…'"
    keys r
    want=$(printf "\\$(printf %o $((96 + letter)))")
    expect "Answer: $want)" "$1x$2 class quiz: the answer names its letter ($want)"
    keys q
    expect_exit 0 "$1x$2 class quiz: q quits"
done

echo "$E2E_PASS passed, $E2E_FAIL failed"
[ "$E2E_FAIL" -eq 0 ]
