#!/usr/bin/env bash
# test_class_rejoin.sh - attend class join reconnects by itself: a student reaches the room
# (attend class serve --plain) through a TCP relay on the loopback (127.0.0.1 only); the relay
# cuts every connection (SIGUSR1) and the student comes back on its own with its token, its
# score kept and its next answer counted; when the relay is gone for good the student gives
# up after its bounded tries (--tries, --backoff, --backoff-max) with a clear message; --tries 0
# does not reconnect; bad values are refused by name. Every wait is for a line in a file.
. "$(dirname "$0")/class_harness.bash"

OUT=$E2E_TMP/teacher
CMD=$E2E_TMP/cmds
RES=$E2E_TMP/results.json
QUIZ=(--lesson causal-mask --seed 3 --count 2 --lessons "$ROOT/lessons")

class_key "${QUIZ[@]}"
a1=${ANS[1]:-} a2=${ANS[2]:-}

mkfifo "$E2E_TMP/ana-in"
check "the room is open" plain_room "$OUT" "$CMD" "${QUIZ[@]}" --results "$RES"
tpid=$TPID port=$PORT code=$CODE

# the relay: 127.0.0.1:RELAY -> 127.0.0.1:$port; SIGUSR1 cuts every connection it carries
cat >"$E2E_TMP/relay.py" <<'PY'
import os, signal, socket, sys, threading
up = int(sys.argv[1])
lst = socket.socket()
lst.bind(("127.0.0.1", 0))
lst.listen(8)
conns, lock = [], threading.Lock()
def cut(*_):
    with lock:
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        conns.clear()
signal.signal(signal.SIGUSR1, cut)
def pump(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(lst.getsockname()[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
while True:
    c, _ = lst.accept()
    u = socket.create_connection(("127.0.0.1", up))
    with lock:
        conns.extend([c, u])
    threading.Thread(target=pump, args=(c, u), daemon=True).start()
    threading.Thread(target=pump, args=(u, c), daemon=True).start()
PY
/usr/bin/python3 "$E2E_TMP/relay.py" "$port" "$E2E_TMP/relay-port" 3>&- &
rpid=$!
check "the relay listens" wait_file "$E2E_TMP/relay-port" ""
check "the relay's port is written" test -s "$E2E_TMP/relay-port"
rport=$(cat "$E2E_TMP/relay-port")

# ana types her answers when the test says (a FIFO kept open on fd 4)
"$ATTEND" class join "127.0.0.1:$rport" "$code" --name ana --tries 4 --backoff 0.1 --backoff-max 0.4 <"$E2E_TMP/ana-in" >"$E2E_TMP/ana" \
    2>"$E2E_TMP/ana.err" 3>&- &
apid=$!
exec 4>"$E2E_TMP/ana-in"
check "ana joins through the relay" wait_file "$OUT" "answered 0 of 1 student (1 connected)"
echo "$a1" >&4
echo "wait answered 1" >&3
check "ana's answer to question 1 is counted" wait_file "$OUT" "waited: answered 1"
printf 'r\nr\n' >&3
check "question 1 revealed: ana has 1 of 1" wait_file "$OUT" "Scores: 1 of 1: 1 student"
check "ana reads her score" wait_file "$E2E_TMP/ana" "Score: 1 of 1."

# the connection drops (the relay cuts it); ana reconnects by herself
kill -USR1 "$rpid"
check "the teacher sees ana away" wait_file "$OUT" "answered 1 of 1 student (0 connected)"
check "ana says she reconnects" wait_file "$E2E_TMP/ana.err" "the connection dropped; reconnecting (try 1 of"
check "ana is back: rejoined with her token (the same student)" wait_file "$E2E_TMP/ana" "Rejoined the class quiz as ana"
check "her score is kept: 1" wait_file "$E2E_TMP/ana" "Your score so far: 1."
check "the teacher sees one student, connected again" wait_file "$OUT" "answered 1 of 1 student (1 connected)"
echo n >&3
check "question 2" wait_file "$OUT" "question 2 of 2"
# a second drop while question 2 is open; her answer is typed while she is away or back
kill -USR1 "$rpid"
echo "$a2" >&4
echo "wait answered 1" >&3
check "her answer to question 2 arrives after the drop" wait_file "$OUT" "waited: answered 1" 15
printf 'r\nr\n' >&3
check "question 2 revealed: still one student, 2 of 2" wait_file "$OUT" "Scores: 2 of 2: 1 student"
check "ana reads 2 of 2" wait_file "$E2E_TMP/ana" "Score: 2 of 2."
check "two reconnections, each rejoined" test "$(count_in "$E2E_TMP/ana" "Rejoined the class quiz as ana")" -eq 2

# the relay is gone for good: ana tries a bounded number of times and gives up, clearly
kill -KILL "$rpid"
wait "$rpid" 2>/dev/null
wait "$apid"
arc=$?
check "ana gives up with status 1 (rc $arc)" test "$arc" -eq 1
check "... saying so: gave up after --tries 4, how to rejoin" grep -qE "gave up after 4 tries over [0-9]+ s .*run the same command again to rejoin" "$E2E_TMP/ana.err"
check "... its tries counted: one for each earlier drop, then 4 of 4" sh -c "test \$(grep -c 'reconnecting (try' '$E2E_TMP/ana.err') -ge 6 && grep -qF 'reconnecting (try 4 of 4)' '$E2E_TMP/ana.err' && ! grep -qF 'try 5 of' '$E2E_TMP/ana.err'"
exec 4>&-
exec 3>&-
wait "$tpid"
check "the results: one student, ana, 2 of 2" test "$(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print([(s["name"], s["score"]) for s in r["students"]])' "$RES")" = "[('ana', 2)]"

# --tries 0: the first drop ends the student, saying how to rejoin
check "a room for --tries 0" plain_room "$OUT" "$CMD" "${QUIZ[@]}"
tpid=$TPID
/usr/bin/python3 "$E2E_TMP/relay.py" "$PORT" "$E2E_TMP/relay-port2" 3>&- &
rpid=$!
check "a relay to it" wait_file "$E2E_TMP/relay-port2" ""
rport=$(cat "$E2E_TMP/relay-port2")
mkfifo "$E2E_TMP/bo-in"
"$ATTEND" class join "127.0.0.1:$rport" "$CODE" --name bo --tries 0 <"$E2E_TMP/bo-in" >"$E2E_TMP/bo" 2>"$E2E_TMP/bo.err" 3>&- &
bpid=$!
exec 4>"$E2E_TMP/bo-in" # bo's input stays open: only the drop ends bo
check "bo joins" wait_file "$E2E_TMP/bo" "Joined the class quiz as bo"
kill -USR1 "$rpid"
check "--tries 0: bo ends at the first drop, saying how to rejoin" wait_file "$E2E_TMP/bo.err" "--tries 0: no reconnection); run the same command again to rejoin"
check "... without a try" test "$(count_in "$E2E_TMP/bo.err" "reconnecting (try")" -eq 0
wait "$bpid"
brc=$?
check "... with status 1 (rc $brc)" test "$brc" -eq 1
kill "$rpid" 2>/dev/null
exec 4>&- 3>&-
wait "$tpid"

# bad values: refused with the value named, status 2
bad() { # DESCRIPTION EXPECTED-MESSAGE ARGS...
    local d=$1 m=$2
    shift 2
    "$ATTEND" class join 127.0.0.1:9 123456 "$@" >/dev/null 2>"$E2E_TMP/bad.err"
    local rc=$?
    check "$d (rc $rc)" sh -c "test $rc -eq 2 && grep -qF -- '$m' '$E2E_TMP/bad.err'"
}
bad "--tries -1 is refused" '--tries needs a whole number from 0 to 100, not "-1"' --tries -1
bad "--tries 500 is refused" '--tries needs a whole number from 0 to 100, not "500"' --tries 500
bad "--backoff x is refused" '--backoff needs a number from 0.01 to 60, not "x"' --backoff x
bad "--backoff 0 is refused" '--backoff needs a number from 0.01 to 60, not "0"' --backoff 0
bad "--backoff-max shorter than --backoff is refused" '--backoff-max 0.5 is shorter than --backoff 2 (the first wait)' --backoff 2 --backoff-max 0.5
finish
