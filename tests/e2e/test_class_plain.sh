#!/usr/bin/env bash
# test_class_plain.sh - attend class serve --plain: the teacher's side without a terminal,
# driven by a script through a FIFO, on the loopback (127.0.0.1 only). Three students join
# from piped terminals; `wait answered 3` holds the script; r closes (the distribution),
# r reveals (the answer, the scores), n moves on; --results is written as each question
# closes (not only at the end); end of input ends the room; SIGTERM ends it with the results
# written. No tmux screen: every wait is for a line in a file, bounded.
. "$(dirname "$0")/class_harness.bash"

RES=$E2E_TMP/results.json
OUT=$E2E_TMP/teacher
CMD=$E2E_TMP/cmds
QUIZ=(--lesson causal-mask --seed 3 --count 2 --lessons "$ROOT/lessons")
# json FILE EXPR: a Python expression over the results file r
json() { /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }

class_key "${QUIZ[@]}"
a1=${ANS[1]:-} a2=${ANS[2]:-}
check "the answer key: two numbers ($a1, $a2)" test -n "$a1" -a -n "$a2"

check "the teacher's first line: how to join" plain_room "$OUT" "$CMD" "${QUIZ[@]}" --results "$RES"
tpid=$TPID port=$PORT code=$CODE
check "a port ($port) and a room code ($code)" test -n "$port" -a -n "$code"
check "question 1 is said, with its setup" wait_file "$OUT" "question 1 of 2: "

# a fourth student in a terminal 60 columns wide, C locale: words wrapped whole, ASCII text
start 60 24 LANG=C LC_ALL=C XDG_RUNTIME_DIR="$RT" -- class join "127.0.0.1:$port" "$code" --name dee 3>&- # tmux must not hold the FIFO
expect "Answer with a number" "a student in a terminal (60 columns) sees question 1"
check "... the prompt wrapped at a space, not in a word" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qx 'weight of query 2 on key 3?'"
pids=()
for s in ana:"$a1":"$a2" bob:"$a1":0.5 cyd:0.5:"$a2"; do
    IFS=: read -r name x y <<<"$s"
    printf '%s\n' "$x" "$y" | "$ATTEND" class join "127.0.0.1:$port" "$code" --name "$name" \
        >"$E2E_TMP/$name" 2>&1 3>&- &
    pids+=($!)
done
echo "wait answered 3" >&3
check "wait answered 3: the script is held until three answered" wait_file "$OUT" "waited: answered 3" 10
check "the count: answered 3 of 4 students" grep -qF "answered 3 of 4 students (4 connected)" "$OUT"
check "no results while question 1 is open" test ! -e "$RES"
echo r >&3
check "r closes: the distribution (right 2, wrong 1)" wait_file "$OUT" "distribution: right 2, wrong 1"
check "--results written when question 1 closed" wait_file "$RES" '"closed":'
check "the results after question 1: 3 answered, 2 right, closed 1" \
    test "$(json "$RES" '(r["closed"], r["questions"][0]["answered"], r["questions"][0]["right"], r["ended"])')" = "(1, 3, 2, False)"
echo r >&3
check "r reveals: the answer" wait_file "$OUT" "answer: $a1"
check "the scores, anonymous" wait_file "$OUT" "Scores: 1 of 1: 2 students; 0 of 1: 2 students"
expect "You: no answer." "the terminal's student reads the reveal"
check "... the explanation in ASCII in the C locale (-inf, not the UTF-8 sign)" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'score is -inf and'"
keys C-d
echo n >&3
check "n: question 2" wait_file "$OUT" "question 2 of 2: "
echo "wait answered 3" >&3
check "question 2: three answered" wait_file "$OUT" "waited: answered 3" 10
printf 'r\nr\nbogus\n' >&3
check "question 2's distribution" wait_file "$OUT" "distribution: right 2, wrong 1"
check "the scores after two questions" wait_file "$OUT" "Scores: 2 of 2: 1 student; 1 of 2: 2 students; 0 of 2: 1 student"
check "an unknown command is named, the room goes on" wait_file "$OUT" 'unknown command "bogus"'
exec 3>&-
wait "$tpid"
rc=$?
check "end of input ends the room (rc $rc)" test "$rc" -eq 0
check "the end is said, with the results file" sh -c "grep -qF 'the end: 2 questions, 4 students' '$OUT' && grep -qF 'results in $RES' '$OUT'"
check "the results at the end: ended, ana 2, bob 1, cyd 1, dee 0" \
    test "$(json "$RES" '(r["ended"], sorted((s["name"], s["score"]) for s in r["students"]))')" = "(True, [('ana', 2), ('bob', 1), ('cyd', 1), ('dee', 0)])"
for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
check "every student saw the end" test "$(grep -l "The quiz is over" "$E2E_TMP"/ana "$E2E_TMP"/bob "$E2E_TMP"/cyd | wc -l)" -eq 3

# ---- SIGTERM: the room ends, the results are written ----
rm -f "$RES"
check "a second room" plain_room "$OUT" "$CMD" "${QUIZ[@]}" --results "$RES"
tpid=$TPID
kill -TERM "$tpid"
wait "$tpid"
rc=$?
check "SIGTERM ends the room (rc $rc = 128 + 15)" test "$rc" -eq 143
check "... with the results written (ended, no student)" test "$(json "$RES" '(r["ended"], len(r["students"]))')" = "(True, 0)"
exec 3>&-

# ---- without a terminal (stdin a FIFO), class serve runs as plain lines by itself: a cell
# question's grid as students get it, a countdown (--time 6: 0:05, then time is up, each with
# the count), the distribution, the answer and why ----
TALL=(--seed 1 --lessons "$ROOT/tests/e2e/fixtures/class-tall")
class_key "${TALL[@]}"
col=$(sed -n 's/^   Answer: column \([0-9]*\).*/\1/p' <<<"$KEY")
check "the tall fixture: a cell question (column $col)" test -n "$col"
rm -f "$CMD"
mkfifo "$CMD"
"$ATTEND" class serve "${TALL[@]}" --time 6 --port 0 --bind 127.0.0.1 <"$CMD" >"$OUT" 2>"$OUT.err" &
tpid=$!
exec 3>"$CMD"
check "no terminal: the room runs as plain lines by itself" wait_file "$OUT" "attend class join 127.0.0.1:"
check "... and says so on stderr" grep -qF "no terminal: the room runs as plain lines" "$OUT.err"
room_addr "$(grep -m1 'attend class join' "$OUT")"
check "the question with the time to answer" grep -qF "question 1 of 2 (0:06 to answer): Which key does the last row read most?" "$OUT"
check "the grid's column numbers 0 to 12" grep -qE '^ +column +0 +1 +2 .* 12$' "$OUT"
check "the grid's keys" grep -qE '^ +the +cat +sat +on .* rug$' "$OUT"
check "the grid's 13 rows, the asked one marked" test "$(grep -cE '^ +[> ] [a-z]+ +[0-9.]+( +([0-9]\.[0-9][0-9]|\.)){12}$' "$OUT")" -eq 13
check "... the row asked: > rug" grep -qE '^ +> rug ' "$OUT"
echo "$col" | "$ATTEND" class join "127.0.0.1:$PORT" "$CODE" --name ana >"$E2E_TMP/ana" 2>&1 3>&- &
spid=$!
check "the student gets the same grid" wait_file "$E2E_TMP/ana" "> rug"
echo "wait answered 1" >&3
check "the answer arrives: answered 1 of 1" wait_file "$OUT" "answered 1 of 1 student (1 connected)" 10
check "the countdown: 0:05 left, with the count" wait_file "$OUT" "0:05 left: question 1 (answered 1 of 1)" 10
check "the countdown: time is up, with the count" wait_file "$OUT" "time is up: question 1 (answered 1 of 1); r closes the answers" 10
check "... the countdown's lines in order" sh -c "grep -n 'left: question 1\|time is up' '$OUT' | cut -d: -f2- | tr '\n' '|' | grep -qx '0:05 left: question 1 (answered 1 of 1)|time is up: question 1 (answered 1 of 1); r closes the answers|'"
printf 'r\nr\n' >&3
check "r: the distribution" wait_file "$OUT" "distribution: right 1, wrong 0"
check "r: the answer (column $col)" wait_file "$OUT" "answer: column $col"
echo n >&3
check "question 2: its eight choices" wait_file "$OUT" "  h) "
printf 'r\nr\n' >&3
check "the answer and why" wait_file "$OUT" "why: A causal row keeps every key"
check "no answer: the distribution per choice, the right one marked" sh -c "grep -E '^distribution:( [a-g]\) 0( \(right\))?,){7} h\) 0( \(right\))?$' '$OUT' | grep -o '(right)' | wc -l | grep -qx 1"
check "no countdown line once question 2's answers are closed" awk '/^closed: question 2/ { c = 1 } c && /left: question 2|time is up: question 2/ { bad = 1 } END { exit !(c && !bad) }' "$OUT"
exec 3>&-
wait "$tpid"
rc=$?
check "end of input ends it (rc $rc)" test "$rc" -eq 0
wait "$spid" 2>/dev/null
# a teacher's --plain needs --serve
"$ATTEND" quiz --plain --lessons "$ROOT/lessons" >/dev/null 2>"$E2E_TMP/err"
check "--plain without a room is a usage error" grep -q -- "--plain is for a room's teacher" "$E2E_TMP/err"
finish
