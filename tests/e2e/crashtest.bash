#!/usr/bin/env bash
# crashtest.bash - `make crashtest`: CRASH_KILLS (default 200) times, the player is started on
# the shipped course with the same state directory, turns pages (each turn saves progress)
# and is killed with SIGKILL at a random moment. After every kill the progress file must
# exist (once first written), parse, and hold every page the file held before (saves only
# add); no file may be moved aside as corrupt; temp files of killed writers are removed by a
# later save. Not a suite of tests/run_all.sh itself (its name ends in .bash):
# tests/e2e/test_robust.sh runs a short one. Prints "N passed, N failed".
. "$(dirname "$0")/harness.bash"
KILLS=${CRASH_KILLS:-200}
RANDOM=${CRASH_SEED:-1}
PROG=$XDG_STATE_HOME/attend/progress.json
PY=/usr/bin/python3

attend_pid() {
    local pp
    pp=$(tm list-panes -t main -F '#{pane_pid}' 2>/dev/null | head -n 1)
    [ -n "$pp" ] && ps -o pid=,comm= --ppid "$pp" | awk '$2 == "attend" { print $1; exit }'
}
# seen_pages: "lesson:page" lines of the progress file, sorted; fails if it does not parse
seen_pages() {
    $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1
for l, r in sorted(d.get("lessons", {}).items()):
    for p in r.get("seen", []):
        print("%s:%d" % (l, p))' "$PROG"
}

rm -rf "$XDG_STATE_HOME"
had=0 lost=0 corrupt=0 unparsable=0 killed=0 prev=""
for i in $(seq 1 "$KILLS"); do
    start 80 24 --
    if ! wait_for "lesson " 5; then fail "crashtest: attend did not start (round $i)"; break; fi
    pid=$(attend_pid)
    [ -n "$pid" ] || { fail "crashtest: no attend process (round $i)"; break; }
    # a few page turns, forward mostly, then SIGKILL after a random short delay
    n=$((1 + RANDOM % 6))
    for _ in $(seq 1 $n); do
        if [ $((RANDOM % 4)) -eq 0 ]; then keys BSpace; else keys Space; fi
    done
    sleep "0.0$((RANDOM % 10))"
    kill -9 "$pid" 2>/dev/null && killed=$((killed + 1))
    wait_for "EXITED" 3 >/dev/null
    if [ -e "$PROG" ]; then
        had=1
        if now=$(seen_pages 2>/dev/null); then
            # every page seen before this round is still there
            if [ -n "$prev" ] && [ -n "$(comm -23 <(echo "$prev") <(echo "$now"))" ]; then
                lost=$((lost + 1))
                echo "round $i: pages lost: $(comm -23 <(echo "$prev") <(echo "$now") | tr '\n' ' ')"
            fi
            prev=$now
        else
            unparsable=$((unparsable + 1))
            echo "round $i: progress.json does not parse:"; head -c 300 "$PROG"; echo
        fi
    elif [ "$had" = 1 ]; then
        lost=$((lost + 1))
        echo "round $i: progress.json disappeared"
    fi
    if ls "$XDG_STATE_HOME/attend" 2>/dev/null | grep -q corrupt; then
        corrupt=$((corrupt + 1))
        echo "round $i: a file was moved aside as corrupt"
        rm -f "$XDG_STATE_HOME"/attend/*corrupt*
    fi
done
echo "crashtest: $killed kills; $(echo "$prev" | grep -c .) pages recorded"
[ "$killed" -eq "$KILLS" ] && ok "crashtest: $killed SIGKILLs during page turns" ||
    fail "crashtest: only $killed of $KILLS kills happened"
[ "$had" = 1 ] && ok "crashtest: progress was saved" || fail "crashtest: no progress file at all"
[ "$unparsable" = 0 ] && ok "crashtest: the progress file always parses" ||
    fail "crashtest: $unparsable rounds left an unparsable progress file"
[ "$lost" = 0 ] && ok "crashtest: no page ever lost, the file never disappeared" ||
    fail "crashtest: $lost rounds lost progress"
[ "$corrupt" = 0 ] && ok "crashtest: nothing moved aside as corrupt" ||
    fail "crashtest: $corrupt rounds found a corrupt file"
# a normal run afterwards removes the temp files of the killed writers
start 80 24 --
wait_for "lesson " 5 >/dev/null
keys Space
sleep 0.3
keys q
expect_exit 0 "crashtest: a normal run afterwards quits cleanly"
left=$(ls "$XDG_STATE_HOME/attend" | grep -c '\.tmp' || true)
[ "$left" = 0 ] && ok "crashtest: no temp file left after a normal save" ||
    fail "crashtest: $left temp files left: $(ls "$XDG_STATE_HOME/attend")"
finish
