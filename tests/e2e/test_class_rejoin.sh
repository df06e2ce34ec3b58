#!/usr/bin/env bash
# test_class_rejoin.sh - attend class join reconnects by itself: a student reaches the room
# (attend class serve --plain) through a TCP relay on the loopback (127.0.0.1 only); the relay
# cuts every connection (SIGUSR1) and the student comes back on its own with its token, its
# score kept and its next answer counted; when the relay is gone for good the student gives
# up after its bounded tries with a clear message. Every wait is for a line in a file.
. "$(dirname "$0")/harness.bash"

RT=$E2E_TMP/run
mkdir -p "$RT" && chmod 700 "$RT"
export XDG_RUNTIME_DIR=$RT
OUT=$E2E_TMP/teacher
CMD=$E2E_TMP/cmds
RES=$E2E_TMP/results.json
QUIZ=(--lesson causal-mask --seed 3 --count 2 --lessons "$ROOT/lessons")

wait_file() { # FILE TEXT [SECONDS]
    local i=0 n
    n=$(deadline_polls "${3:-5}")
    while [ $i -lt "$n" ]; do
        grep -qF -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}
count_in() { grep -cF -- "$2" "$1" 2>/dev/null; }

key=$("$ATTEND" quiz --answers "${QUIZ[@]}")
a1=$(sed -n 's/^   Answer: \([^ ]*\).*/\1/p' <<<"$key" | sed -n 1p)
a2=$(sed -n 's/^   Answer: \([^ ]*\).*/\1/p' <<<"$key" | sed -n 2p)

mkfifo "$CMD" "$E2E_TMP/ana-in"
"$ATTEND" class serve --plain "${QUIZ[@]}" --port 0 --bind 127.0.0.1 --results "$RES" \
    <"$CMD" >"$OUT" 2>"$E2E_TMP/teacher.err" &
tpid=$!
exec 3>"$CMD"
check "the room is open" wait_file "$OUT" "attend class join 127.0.0.1:"
line=$(grep -m1 'attend class join' "$OUT")
port=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\) .*/\1/p' <<<"$line")
code=$(sed -n 's/.*join 127\.0\.0\.1:[0-9]* \([0-9]\{6\}\).*/\1/p' <<<"$line")

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
"$ATTEND" class join "127.0.0.1:$rport" "$code" --name ana <"$E2E_TMP/ana-in" >"$E2E_TMP/ana" \
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
check "... saying so: gave up after 6 tries, how to rejoin" grep -qE "gave up after 6 tries over [0-9]+ s .*run the same command again to rejoin" "$E2E_TMP/ana.err"
check "... its tries counted: one for each earlier drop, then 6" test "$(count_in "$E2E_TMP/ana.err" "reconnecting (try")" -ge 8
exec 4>&-
exec 3>&-
wait "$tpid"
check "the results: one student, ana, 2 of 2" test "$(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print([(s["name"], s["score"]) for s in r["students"]])' "$RES")" = "[('ana', 2)]"
finish
