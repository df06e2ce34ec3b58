#!/usr/bin/env bash
# test_class_plain.sh - attend class serve --plain: the teacher's side without a terminal,
# driven by a script through a FIFO, on the loopback (127.0.0.1 only). Three students join
# from piped terminals; `wait answered 3` holds the script; r closes (the distribution),
# r reveals (the answer, the scores), n moves on; --results is written as each question
# closes (not only at the end); end of input ends the room; SIGTERM ends it with the results
# written. No tmux screen: every wait is for a line in a file, bounded.
. "$(dirname "$0")/harness.bash"

RT=$E2E_TMP/run
mkdir -p "$RT" && chmod 700 "$RT"
export XDG_RUNTIME_DIR=$RT
RES=$E2E_TMP/results.json
OUT=$E2E_TMP/teacher
CMD=$E2E_TMP/cmds
QUIZ=(--lesson causal-mask --seed 3 --count 2 --lessons "$ROOT/lessons")

# wait_file FILE TEXT [SECONDS]: polls FILE until it holds TEXT (bounded)
wait_file() {
    local i=0 n
    n=$(deadline_polls "${3:-5}")
    while [ $i -lt "$n" ]; do
        grep -qF -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}
# json FILE EXPR: a Python expression over the results file r
json() { /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }

key=$("$ATTEND" quiz --answers "${QUIZ[@]}")
a1=$(sed -n 's/^   Answer: \([^ ]*\).*/\1/p' <<<"$key" | sed -n 1p)
a2=$(sed -n 's/^   Answer: \([^ ]*\).*/\1/p' <<<"$key" | sed -n 2p)
check "the answer key: two numbers ($a1, $a2)" test -n "$a1" -a -n "$a2"

mkfifo "$CMD"
"$ATTEND" class serve --plain "${QUIZ[@]}" --port 0 --bind 127.0.0.1 --results "$RES" \
    <"$CMD" >"$OUT" 2>"$E2E_TMP/teacher.err" &
tpid=$!
exec 3>"$CMD"
check "the teacher's first line: how to join" wait_file "$OUT" "attend class join 127.0.0.1:"
line=$(grep -m1 'attend class join' "$OUT")
port=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\) .*/\1/p' <<<"$line")
code=$(sed -n 's/.*join 127\.0\.0\.1:[0-9]* \([0-9]\{6\}\).*/\1/p' <<<"$line")
check "a port ($port) and a room code ($code)" test -n "$port" -a -n "$code"
check "question 1 is said, with its setup" wait_file "$OUT" "question 1 of 2: "

pids=()
for s in ana:"$a1":"$a2" bob:"$a1":0.5 cyd:0.5:"$a2"; do
    IFS=: read -r name x y <<<"$s"
    printf '%s\n' "$x" "$y" | "$ATTEND" class join "127.0.0.1:$port" "$code" --name "$name" \
        >"$E2E_TMP/$name" 2>&1 3>&- &
    pids+=($!)
done
echo "wait answered 3" >&3
check "wait answered 3: the script is held until three answered" wait_file "$OUT" "waited: answered 3" 10
check "the count: answered 3 of 3 students" grep -qF "answered 3 of 3 students (3 connected)" "$OUT"
check "no results while question 1 is open" test ! -e "$RES"
echo r >&3
check "r closes: the distribution (right 2, wrong 1)" wait_file "$OUT" "distribution: right 2, wrong 1"
check "--results written when question 1 closed" wait_file "$RES" '"closed":'
check "the results after question 1: 3 answered, 2 right, closed 1" \
    test "$(json "$RES" '(r["closed"], r["questions"][0]["answered"], r["questions"][0]["right"], r["ended"])')" = "(1, 3, 2, False)"
echo r >&3
check "r reveals: the answer" wait_file "$OUT" "answer: $a1"
check "the scores, anonymous" wait_file "$OUT" "Scores: 1 of 1: 2 students; 0 of 1: 1 student"
echo n >&3
check "n: question 2" wait_file "$OUT" "question 2 of 2: "
echo "wait answered 3" >&3
check "question 2: three answered" wait_file "$OUT" "waited: answered 3" 10
printf 'r\nr\nbogus\n' >&3
check "question 2's distribution" wait_file "$OUT" "distribution: right 2, wrong 1"
check "the scores after two questions" wait_file "$OUT" "Scores: 2 of 2: 1 student; 1 of 2: 2 students"
check "an unknown command is named, the room goes on" wait_file "$OUT" 'unknown command "bogus"'
exec 3>&-
wait "$tpid"
rc=$?
check "end of input ends the room (rc $rc)" test "$rc" -eq 0
check "the end is said, with the results file" sh -c "grep -qF 'the end: 2 questions, 3 students' '$OUT' && grep -qF 'results in $RES' '$OUT'"
check "the results at the end: ended, ana 2, bob 1, cyd 1" \
    test "$(json "$RES" '(r["ended"], sorted((s["name"], s["score"]) for s in r["students"]))')" = "(True, [('ana', 2), ('bob', 1), ('cyd', 1)])"
for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
check "every student saw the end" test "$(grep -l "The quiz is over" "$E2E_TMP"/ana "$E2E_TMP"/bob "$E2E_TMP"/cyd | wc -l)" -eq 3

# ---- SIGTERM: the room ends, the results are written ----
rm -f "$RES" "$CMD"
mkfifo "$CMD"
"$ATTEND" class serve --plain "${QUIZ[@]}" --port 0 --bind 127.0.0.1 --results "$RES" \
    <"$CMD" >"$OUT" 2>&1 &
tpid=$!
exec 3>"$CMD"
check "a second room" wait_file "$OUT" "attend class join 127.0.0.1:"
kill -TERM "$tpid"
wait "$tpid"
rc=$?
check "SIGTERM ends the room (rc $rc = 128 + 15)" test "$rc" -eq 143
check "... with the results written (ended, no student)" test "$(json "$RES" '(r["ended"], len(r["students"]))')" = "(True, 0)"
exec 3>&-
# a teacher's --plain needs --serve
"$ATTEND" quiz --plain --lessons "$ROOT/lessons" >/dev/null 2>"$E2E_TMP/err"
check "--plain without a room is a usage error" grep -q -- "--plain is for a room's teacher" "$E2E_TMP/err"
finish
