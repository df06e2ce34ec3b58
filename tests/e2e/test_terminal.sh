#!/usr/bin/env bash
# test_terminal.sh - every curses screen (player, present, demo, notes, quiz, class quiz)
# without a terminal, losing its terminal, and crashing (issue 23): no terminal is refused at
# once (exit 1, a message, next to no CPU); a terminal that goes away ends the screen (no
# process left spinning, the presenter's state file removed); SIGSEGV and SIGABRT leave the
# terminal sane (echo and icanon back). Prints "N passed, N failed".
. "$(dirname "$0")/harness.bash"

export XDG_RUNTIME_DIR=$E2E_TMP/run
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
DEMO=$(ls "$ROOT"/demos/*.json | head -n 1)
SCREENS=("" "present" "demo $DEMO" "notes" "quiz" "quiz --class")
name_of() { echo "${1:-player}" | cut -d' ' -f1-2 | sed "s#$ROOT/##"; }

# ---- 1. no terminal: refused at once, with a message, using almost no CPU ----
# (0.05 s in the plain build; ASan + UBSan's start and checks cost about ten times that, so
# make sanitize gives 1.2 s: a spin is still caught, a sanitized start is not mistaken for one).
# The timeout only ends a hang: it is wall time, so it is long (a sanitized demo's start took
# over 3 s of wall at load 16 with 0.4 s of CPU); the CPU bound is what catches a spin.
TIMEFORMAT='%3U %3S'
cpu_cap=0.3; [ "${SANITIZE:-0}" = 1 ] && cpu_cap=1.2
for s in "${SCREENS[@]}"; do
    n=$(name_of "$s")
    # shellcheck disable=SC2086
    cpu=$( { time timeout 60 "$ATTEND" $s </dev/null >"$E2E_TMP/out" 2>&1; echo "rc=$?" >>"$E2E_TMP/out"; } 2>&1)
    check "$n without a terminal exits 1 ($(tail -n 1 "$E2E_TMP/out"))" grep -qx "rc=1" "$E2E_TMP/out"
    check "$n without a terminal says it needs one" grep -q "needs a terminal" "$E2E_TMP/out"
    check "$n without a terminal uses under $cpu_cap s of CPU (user sys: $cpu)" \
        awk -v u="${cpu% *}" -v s="${cpu#* }" -v c="$cpu_cap" 'BEGIN { exit !(u + s < c) }'
done
# standard output not a terminal (a pipe) is refused too, in a real terminal
start 80 24 -- notes ">$E2E_TMP/notes-out"
expect "EXITED rc=1" "notes with its output redirected exits 1"
check "notes with its output redirected says why" grep -q "standard output is not one" "$E2E_TMP/stderr"

# ---- 2. the terminal goes away: the screen ends, nothing spins, the state file goes ----
# attend runs in its own session (setsid), so the pty's hangup sends it no SIGHUP, as under
# `su - user` in a closed tmux pane: it must notice from its reads (EIO/hangup) alone.
children() { # the child processes of pid $1 (from /proc: no procps needed)
    cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -v '^$'
}
attend_pid() { # the attend process under the pane's shell
    local sh
    sh=$(tm list-panes -t main -F '#{pane_pid}' 2>/dev/null | head -n 1)
    [ -n "$sh" ] && children "$sh" | head -n 1
}
for s in "" "present" "notes" "demo $DEMO" "quiz"; do
    n=$(name_of "$s")
    tm kill-session -t main >/dev/null 2>&1
    tm has-session -t keep >/dev/null 2>&1 || tm new-session -d -s keep -x 80 -y 24 "sleep 86400"
    tm new-session -d -s main -x 80 -y 24 -c "$ROOT" \
        "exec setsid -w env XDG_STATE_HOME='$XDG_STATE_HOME' XDG_RUNTIME_DIR='$XDG_RUNTIME_DIR' '$ATTEND' $s 2>'$E2E_TMP/stderr'"
    pid=""
    for _ in $(seq 100); do
        pid=$(attend_pid)
        [ -n "$pid" ] && screen | grep -q '[a-z]' && break
        sleep 0.05
    done
    if [ -z "$pid" ]; then fail "$n: did not start"; continue; fi
    # attend itself (setsid -w forks it): the child of setsid
    apid=$(children "$pid" | head -n 1)
    apid=${apid:-$pid}
    if [ "$s" = present ]; then
        for _ in $(seq 60); do ls "$XDG_RUNTIME_DIR"/attend/*.state >/dev/null 2>&1 && break; sleep 0.05; done
        check "present publishes its state" ls "$XDG_RUNTIME_DIR"/attend/*.state
    fi
    tm kill-session -t main
    gone=0
    for _ in $(seq 60); do
        kill -0 "$apid" 2>/dev/null || { gone=1; break; }
        sleep 0.05
    done
    if [ $gone = 1 ]; then
        ok "$n ends within 3 s of its terminal going away"
    else
        ticks=$(awk '{ print $14 + $15 }' "/proc/$apid/stat" 2>/dev/null)
        fail "$n still running after its terminal went away (cpu ticks: $ticks)"
        kill -9 "$apid" 2>/dev/null
    fi
    if [ "$s" = present ]; then
        check "present removed its state file when the terminal went away" \
            bash -c "! ls '$XDG_RUNTIME_DIR'/attend/*.state >/dev/null 2>&1"
    fi
done

# ---- 3. notes: a FIFO named *.state never blocks it, a killed presenter's file goes ----
mkdir -p "$XDG_RUNTIME_DIR/attend" && chmod 700 "$XDG_RUNTIME_DIR/attend"
mkfifo "$XDG_RUNTIME_DIR/attend/999-1.state"
sleep 1000 &
holder=$!
printf 'attend-presenter 1\nsession\t%s\npid\t%s\nlesson_title\tA presenter that was killed\n' \
    "88888-1" "99999999" >"$XDG_RUNTIME_DIR/attend/88888-1.state"
start 80 24 XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" -- notes
expect "Waiting for attend present" "notes draws past a FIFO named *.state (not blocked opening it)"
check "notes does not follow a presenter that no longer runs" bash -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'was killed'"
check "notes removed the dead presenter's state file" test ! -e "$XDG_RUNTIME_DIR/attend/88888-1.state"
check "notes left the FIFO alone" test -p "$XDG_RUNTIME_DIR/attend/999-1.state"
keys q
expect_exit 0 "notes quits with q"
# the one loop's signals: every screen stopped by SIGTERM exits 128 + 15 (attend.1, EXIT
# STATUS), notes and the quizzes as the player
for s in "notes" "quiz" "quiz --class"; do
    # shellcheck disable=SC2086
    start 80 24 XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" -- $s
    pid=""
    for _ in $(seq 100); do
        pid=$(attend_pid)
        [ -n "$pid" ] && screen | grep -q '[a-z]' && break
        sleep 0.05
    done
    [ -n "$pid" ] || { fail "$s: did not start"; continue; }
    kill -TERM "$pid"
    expect_exit 143 "$s, SIGTERM: ends cleanly with 128 + 15"
done
kill "$holder" 2>/dev/null
rm -f "$XDG_RUNTIME_DIR/attend/999-1.state"

# ---- 4. a crash in any screen restores the terminal and dies of the signal ----
for s in "" "present" "notes" "demo $DEMO" "quiz" "quiz --class"; do
    n=$(name_of "$s")
    for sig in SEGV:139 ABRT:134; do
        # shellcheck disable=SC2086
        start 80 24 XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" -- $s
        pid=""
        for _ in $(seq 100); do
            pid=$(attend_pid)
            [ -n "$pid" ] && screen | grep -q '[a-z]' && break
            sleep 0.05
        done
        [ -n "$pid" ] || { fail "$n: did not start"; continue; }
        kill -"${sig%:*}" "$pid"
        expect_exit "${sig#*:}" "$n, SIG${sig%:*}: dies of the signal with echo and icanon restored"
    done
done
check "the crashed presenter left no state file" bash -c "! ls '$XDG_RUNTIME_DIR'/attend/*.state >/dev/null 2>&1"
finish
