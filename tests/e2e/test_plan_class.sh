#!/usr/bin/env bash
# test_plan_class.sh - a lecture plan holding a class quiz with students, end to end, with
# the teacher's notes: the plan opens a page, its next step opens the class quiz with a room
# on 127.0.0.1, three students answer from their own (piped) terminals, the projector counts
# them, shows the distribution and the answer; the notes show the answer before the room sees
# it and the room's count; the quiz ends and the plan goes on to its next step, the notes
# naming it. Every wait is for a condition, bounded.
. "$(dirname "$0")/harness.bash"

RT=$E2E_TMP/run
mkdir -p "$RT" && chmod 700 "$RT"
export XDG_RUNTIME_DIR=$RT
LESSONS=$ROOT/lessons
OUT=$E2E_TMP/students
mkdir -p "$OUT"
key=$("$ATTEND" quiz --answers --lesson causal-mask --seed 3 --count 2 --lessons "$LESSONS")
a1=$(sed -n 's/^   Answer: \([^ ]*\).*/\1/p' <<<"$key" | sed -n 1p)
a2=$(sed -n 's/^   Answer: \([^ ]*\).*/\1/p' <<<"$key" | sed -n 2p)
check "the answer key ($a1, $a2)" test -n "$a1" -a -n "$a2"
cat >"$E2E_TMP/plan.json" <<'EOF'
{"title": "masks, then a quiz with the room",
 "steps": [
  {"open": "causal-mask", "page": 1},
  {"quiz": "causal-mask", "count": 2, "seed": 3, "room": true, "port": 0, "bind": "127.0.0.1",
   "caption": "Your turn: attend class join"},
  {"open": "padding-mask", "page": 1}
]}
EOF
check "the plan checks" "$ATTEND" present --plan "$E2E_TMP/plan.json" --check --lessons "$LESSONS"
start 80 24 TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- present --plan "$E2E_TMP/plan.json" --lessons "$LESSONS"
expect "step 1/3" "the plan: step 1"
tm new-session -d -s notes -x 80 -y 24 -c "$ROOT" "env XDG_RUNTIME_DIR='$RT' '$ATTEND' notes; sleep 600"
notes_wait() {
    local i=0 n
    n=$(deadline_polls 5)
    while [ $i -lt "$n" ]; do tm capture-pane -p -t notes | grep -qF -- "$1" && return 0; sleep 0.05; i=$((i + 1)); done
    return 1
}
check "notes: space next is the plan's class quiz" notes_wait "step 2/3: a class quiz on causal-mask (students answer)"
keys Space
expect "attend class join 127.0.0.1:" "step 2: the class quiz with a room, how to join on the projector"
line=$(screen | grep -m1 'attend class join')
port=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\) .*/\1/p' <<<"$line")
code=$(sed -n 's/.*join 127\.0\.0\.1:[0-9]* \([0-9]\{6\}\).*/\1/p' <<<"$line")
check "notes: the question and its answer, not yet revealed" notes_wait "answer (not yet revealed):"
for s in ana ben cho; do
    case $s in ana) x1=$a1 ;; *) x1=0.5 ;; esac
    printf '%s\n%s\n' "$x1" "$a2" | "$ATTEND" class join "127.0.0.1:$port" "$code" --name "$s" >"$OUT/$s" 2>&1 &
done
expect "answered 3 of 3 students" "the projector counts the three answers"
check "notes: the room's count beside the answer" notes_wait "room $code: 3 of 3 answered"
keys r
expect "right 1, wrong 2" "r: the distribution (one right)"
keys r
expect "Answer: $a1" "r: the answer"
check "notes: the answer is out" notes_wait "answer (revealed to the room):"
check "ana's terminal: right" sh -c "grep -q 'You: right' '$OUT/ana'"
keys n
expect "question 2 of 2" "n: question 2"
expect "answered 3 of 3 students" "question 2: three answers"
keys r r
expect "Answer: $a2" "question 2: the answer"
keys n
expect "The end: 2 questions, 3 students." "the final scores"
keys n
expect "step 2/3" "n: the class quiz closes, the plan is back at its step"
expect "page 1/" "on the plan's page"
for s in ana ben cho; do
    check "$s: the quiz is over on its terminal" sh -c "i=0; while [ \$i -lt 200 ]; do grep -q 'The quiz is over' '$OUT/$s' && exit 0; sleep 0.05; i=\$((i+1)); done; exit 1"
done
check "ana's score: 2 of 2" grep -q "Your score: 2 of 2" "$OUT/ana"
check "notes: space next is the plan's step 3" notes_wait "step 3/3: padding-mask page 1"
keys Space
expect "step 3/3" "space: the plan's next step"
check "notes follow the plan to the padding mask" notes_wait "The padding mask"
keys b
expect "step 2/3" "b: back to step 2"
check "b: the class quiz is not asked again (a replay passes it)" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'class quiz:'"
expect "page 1/" "b: on the plan's page"
keys q
expect_exit 0 "q ends the lecture"
tm kill-session -t notes >/dev/null 2>&1

echo "$E2E_PASS passed, $E2E_FAIL failed"
[ "$E2E_FAIL" -eq 0 ]
