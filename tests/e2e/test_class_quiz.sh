#!/usr/bin/env bash
# test_class_quiz.sh - attend quiz --class: one question at a time with a countdown; the notes
# pane shows the engine's answer before it is revealed; r reveals it on the room's screen, n
# moves on (the notes follow); the answers agree with attend quiz --answers for the seed.
. "$(dirname "$0")/harness.bash"

RT=$E2E_TMP/run
mkdir -p "$RT" && chmod 700 "$RT"
LESSONS=$ROOT/lessons
key=$("$ATTEND" quiz --answers --seed 7 --lesson causal-mask --lessons "$LESSONS")
first=$(sed -n 's/^   Answer: \([^ ]*\).*/\1/p' <<<"$key" | head -n 1)
n=$(grep -cE '^[0-9]+\. \[' <<<"$key")
check "answer key: the first answer is known ($first) and there are questions ($n)" test -n "$first" -a "$n" -gt 1

tm kill-session -t notes >/dev/null 2>&1
start 80 24 TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- quiz --class --lesson causal-mask --seed 7 --time 90 --lessons "$LESSONS"
expect "question 1 of $n" "class quiz: question 1, large, alone"
expect "1:2" "class quiz: a countdown from 1:30"
expect "r reveal the answer" "class quiz: says r reveals"
check "class quiz: the answer is not on the room's screen yet" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'Answer:'"
tm new-session -d -s notes -x 80 -y 24 -c "$ROOT" "env XDG_RUNTIME_DIR='$RT' '$ATTEND' notes; sleep 600"
notes_wait() {
    local i=0
    local n_; n_=$(deadline_polls 5); while [ $i -lt "$n_" ]; do tm capture-pane -p -t notes | grep -qF -- "$1" && return 0; sleep 0.05; i=$((i + 1)); done
    return 1
}
check "notes: shows the question number" notes_wait "question 1 of $n"
check "notes: shows the answer before it is revealed" notes_wait "answer (not yet revealed):"
check "notes: the answer is the engine's ($first)" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t notes | grep -A1 'not yet revealed' | grep -qF -- '$first'"
check "notes: the keys the quiz invites, from the key table" notes_wait "r reveal the answer  n next  q quit"
"$ATTEND" --keys >"$E2E_TMP/keys.txt"
foot() { # every hint on the footer row is the key table's (KM_CLASS_QUIZ in its mode)
    tm capture-pane -e -p -t main >"$E2E_TMP/foot-$1.txt"
    /usr/bin/python3 "$ROOT/tests/e2e/keys_check.py" "$E2E_TMP/keys.txt" footer "$E2E_TMP/foot-$1.txt" >/dev/null
}
check "class quiz: the footer's hints are the key table's" foot ask
keys r
expect "Answer: $first" "class quiz: r reveals the engine's answer"
expect "n next question" "class quiz: once revealed, the footer offers the next question"
check "class quiz: r is gone from the footer once the answer is out" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | tail -1 | grep -q 'r reveal'"
check "class quiz: the footer's hints are the key table's, revealed" foot revealed
keys n
expect "question 2 of $n" "class quiz: n moves on"
check "class quiz: the next question starts hidden" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'Answer:'"
check "notes: follow to question 2" notes_wait "question 2 of $n"
keys q
expect_exit 0 "class quiz: q quits"
expect "1 answer revealed" "class quiz: the summary counts the answers revealed" 2
check "notes: the quiz gone, it waits" notes_wait "No presenter is running"
tm kill-session -t notes >/dev/null 2>&1

echo "$E2E_PASS passed, $E2E_FAIL failed"
[ "$E2E_FAIL" -eq 0 ]
