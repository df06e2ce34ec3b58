#!/usr/bin/env bash
# test_class_room.sh - attend class serve on the loopback (127.0.0.1 only) with 30 students
# from their own (plain, piped) terminals: 22 on time, 4 late, 2 that drop and rejoin, one
# sending garbage, one flooding; a three-question quiz (two numbers, a choice). The counts on
# the projector and in --results equal what the students sent; the rejoined keep their
# score; the hostile two are dropped with a message on the teacher's screen. Every wait is for
# a condition (the screen, a student's output), bounded.
. "$(dirname "$0")/class_harness.bash"

LESSONS=$ROOT/lessons
RES=$E2E_TMP/results.json
OUT=$E2E_TMP/students
mkdir -p "$OUT"
QUIZ=(--lesson causal-mask --seed 3 --count 3 --lessons "$LESSONS")

# the answer key of the same quiz: two numbers, then a choice
class_key "${QUIZ[@]}"
a1=${ANS[1]:-} a2=${ANS[2]:-} a3=${ANS[3]:-}
kinds=$(grep -oE '^[0-9]+\. \[[^]]*\] [a-z]+' <<<"$KEY" | awk '{print $3}' | tr '\n' ' ')
check "the quiz: number, number, choice ($kinds)" test "$kinds" = "number number choice "
right3=$(printf "\\x$(printf %x $((96 + a3)))") # the right choice's letter

check "the projector shows how to join" projector_room 80 24 "${QUIZ[@]}" --results "$RES"
port=$PORT code=$CODE
check "a port ($port) and a six-digit room code ($code)" test -n "$port" -a -n "$code"

# ---- the hostile two: dropped, the teacher reads why ----
printf 'GET / HTTP/1.0\r\n\r\n\033[2J' 2>/dev/null >/dev/tcp/127.0.0.1/"$port"
expect "not attend's classroom protocol" "garbage is dropped, with a message on the teacher's side"
{
    printf '{"t":"hello","v":1,"code":"%s","name":"flood"}\n' "$code"
    for _ in $(seq 400); do printf '{"t":"ping"}\n'; done
} 2>/dev/null >/dev/tcp/127.0.0.1/"$port"
expect "too many messages" "a flood is dropped by the rate limit"

# ---- the students ----
declare -A SCORE   # name -> expected score
Q1=() Q2=() Q3=()  # the answers sent to each question
pids=()
join() { # NAME ANSWERS... : a student, answers piped one a line
    local name=$1
    shift
    printf '%s\n' "$@" | "$ATTEND" class join "127.0.0.1:$port" "$code" --name "$name" >>"$OUT/$name" 2>&1 &
    pids+=($!)
}
ans1() { [ $(($1 % 3)) -eq 0 ] && echo 0.5 || echo "$a1"; }
ans2() { [ $(($1 % 4)) -eq 0 ] && echo 0.5 || echo "$a2"; }
ans3() { printf "\\x$(printf %x $((97 + $1 % 4)))"; }
score() { # I FROM: the expected score of student I answering from question FROM
    local i=$1 s=0
    [ "$2" -le 1 ] && [ "$(ans1 "$i")" = "$a1" ] && s=$((s + 1))
    [ "$(ans2 "$i")" = "$a2" ] && s=$((s + 1))
    [ "$(ans3 "$i")" = "$right3" ] && s=$((s + 1))
    echo $s
}
for i in $(seq 1 22); do
    join "s$i" "$(ans1 $i)" "$(ans2 $i)" "$(ans3 $i)"
    Q1+=("$(ans1 $i)") Q2+=("$(ans2 $i)") Q3+=("$(ans3 $i)")
    SCORE[s$i]=$(score $i 1)
done
# two that will drop: question 1 only for now
for r in 1 2; do
    i=$((40 + r))
    join "r$r" "$(ans1 $i)"
    rpid[$r]=$!
    Q1+=("$(ans1 $i)") Q2+=("$(ans2 $i)") Q3+=("$(ans3 $i)")
    SCORE[r$r]=$(score $i 1)
done
count_right() { # ANSWER VALUES...: how many equal ANSWER
    local want=$1 n=0
    shift
    for v in "$@"; do [ "$v" = "$want" ] && n=$((n + 1)); done
    echo $n
}
# 22 + 2 students and the flood joined; 24 answered
expect "answered 24 of 25 students" "question 1: the projector counts 24 answers of 25 students" 10
for r in 1 2; do
    check "r$r: its answer was recorded" wait_file "$OUT/r$r" "Answer recorded"
    kill "${rpid[$r]}" 2>/dev/null # the connection drops
done
right1=$(count_right "$a1" "${Q1[@]}")
keys r
expect "right $right1, wrong $((24 - right1))" "question 1: r closes the answers: right $right1, wrong $((24 - right1))"
keys r
expect "Answer: $a1" "question 1: r reveals the answer"
keys n
expect "question 2 of 3" "question 2"
# the late four, and the two rejoining (the same name: their token file)
for i in 1 2 3 4; do
    join "l$i" "$(ans2 $((50 + i)))" "$(ans3 $((50 + i)))"
    Q2+=("$(ans2 $((50 + i)))") Q3+=("$(ans3 $((50 + i)))")
    SCORE[l$i]=$(score $((50 + i)) 2)
done
for r in 1 2; do join "r$r" "$(ans2 $((40 + r)))" "$(ans3 $((40 + r)))"; done
expect "answered 28 of 29 students" "question 2: 28 answers of 29 students (the late and the rejoined)" 10
for r in 1 2; do check "r$r: rejoined, its score kept" wait_file "$OUT/r$r" "Rejoined"; done
right2=$(count_right "$a2" "${Q2[@]}")
keys r
expect "right $right2, wrong $((28 - right2))" "question 2: right $right2, wrong $((28 - right2))"
keys r n
expect "question 3 of 3" "question 3"
expect "answered 28 of 29 students" "question 3: 28 answers" 10
keys r
for c in a b c d; do
    n=$(count_right "$c" "${Q3[@]}")
    check "question 3: choice $c has $n answers on the projector" wait_re "^ +$c\) [█#]* ?$n$"
done
keys r
expect "Answer: $right3)" "question 3: the answer by letter"
keys n
expect "The end: 3 questions, 29 students." "the end: 29 students (the flood joined before it was dropped)"
check "the end: the scores, anonymous (no student's name on the projector)" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'Scores: ' && ! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE '(^| )(s[0-9]+|r1|l1)(,|$)'"
keys q
expect_exit 0 "q ends the room"
expect "29 students joined; results in" "the summary names the results file"

# every student heard the end
for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
ends=$(grep -l "The quiz is over" "$OUT"/* | wc -l)
check "every student still connected saw the end ($ends of 28)" test "$ends" -eq 28

# ---- --results: equal to what was sent ----
expected=$E2E_TMP/expected.txt
: >"$expected"
for name in "${!SCORE[@]}"; do echo "$name ${SCORE[$name]}" >>"$expected"; done
q3counts=$(for c in a b c d; do count_right "$c" "${Q3[@]}"; done | tr '\n' ' ')
check "the results file: per question and per student, what was sent" /usr/bin/python3 - "$RES" "$expected" "$right1" "$right2" "$q3counts" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = dict(l.split() for l in open(sys.argv[2]))
q = r["questions"]
ok = len(q) == 3 and [x["answered"] for x in q] == [24, 28, 28]
ok &= q[0]["right"] == int(sys.argv[3]) and q[1]["right"] == int(sys.argv[4])
ok &= q[2]["choices"] == [int(x) for x in sys.argv[5].split()]
got = {s["name"]: s["score"] for s in r["students"]}
ok &= len(r["students"]) == 29 and got.get("flood") == 0
ok &= all(got.get(n) == int(v) for n, v in want.items())
ok &= all(len(s["answers"]) == 3 for s in r["students"])
ok &= r["dropped"] >= 1
if not ok:
    print(json.dumps(r)[:3000], file=sys.stderr)
sys.exit(0 if ok else 1)
PY
check "no results temp file left" sh -c "! ls '$E2E_TMP' | grep -q 'results.json.tmp'"

echo "$E2E_PASS passed, $E2E_FAIL failed"
[ "$E2E_FAIL" -eq 0 ]
