#!/bin/bash
# lab_contain.sh - the learner's code is contained, with bubblewrap (when it works here) and
# without (ATTEND_LAB_BWRAP=0, the fallback: a child subreaper and limits): a file that ignores
# SIGTERM, calls setpgid(0, 0), double-forks with setsid (in Python and in C), compiles
# #include "/dev/zero", mutates its input, or tries to escape; and attend interrupted by
# SIGINT, SIGTERM and SIGHUP while the code runs. Each leaves no process (counted before and
# after, by the test's folder in their command lines), no file in $TMPDIR and none in the lab
# folder (__pycache__ included). Which containment is in force is said once.
source "$(dirname "$0")/cli_lib.bash"
export XDG_STATE_HOME="$tmp/state" HOME="$tmp/home" TMPDIR="$tmp/t"
mkdir -p "$HOME" "$TMPDIR"
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    echo "lab_contain: /usr/bin/python3 with numpy is needed (apt-get install python3-numpy)"
    echo "0 passed, 1 failed"; exit 1
fi
C=tests/labs/contain
export ATTEND_LAB_SECRET_TEST=hidden # the learner's code must not see it

# processes whose command line names the test's folder (bash builtins only: no grep of our own)
procs() {
    local p a n=0
    for p in /proc/[0-9]*; do
        [ "${p#/proc/}" = "$$" ] || [ "${p#/proc/}" = "${lpid:-}" ] && continue
        mapfile -d "" a 2>/dev/null <"$p/cmdline" || continue
        [[ "${a[*]}" == *"$tmp"* ]] && n=$((n + 1))
    done
    echo "$n"
}
listing() { (cd "$1" && find . | LC_ALL=C sort | tr '\n' ' '); }

# a local listener: the learner's code may reach it only without bubblewrap
/usr/bin/python3 - "$tmp/port" <<'EOF' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept(); c.close()
EOF
lpid=$!
for _ in $(seq 600); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(cat "$tmp/port")

modes="limits"
probe=$("$A" lab check attention data/labs/solutions/attention.py --no-torch 2>&1)
grep -q "your code runs in bubblewrap" <<<"$probe" && modes="bwrap limits"
echo "lab_contain: modes: $modes"

for mode in $modes; do
    if [ "$mode" = limits ]; then export ATTEND_LAB_BWRAP=0; else unset ATTEND_LAB_BWRAP; fi
    w="$tmp/lab-$mode"; mkdir -p "$w"
    cp $C/* "$w/"
    echo "$port" >"$w/port.txt"
    before=$(listing "$w")
    # said once, and which
    out=$("$A" lab check attention "$w/sigterm.py" --no-torch 2>&1)
    n=$(grep -c "your code runs" <<<"$out")
    [ "$n" -eq 1 ] && ok || bad "$mode: the containment is said $n times: $out"
    if [ "$mode" = bwrap ]; then
        grep -q "in bubblewrap: its own process namespace" <<<"$out" && ok || bad "bwrap not said: $out"
    else
        grep -q "ATTEND_LAB_BWRAP=0 turns bubblewrap off; your code runs with limits only" <<<"$out" \
            && ok || bad "limits not said: $out"
    fi
    for f in sigterm.py setpgid.py setsid.py setsid.c; do
        expect 1 "FAIL" -- "$A" lab check attention "$w/$f" --no-torch --timeout 20
        n=$(procs); [ "$n" -eq 0 ] && ok || bad "$mode: $f left $n processes behind"
    done
    # the compiler under a memory limit: a message, exit 2, no cc1 left
    expect 2 "could not compile" -- "$A" lab check attention "$w/devzero.c"
    n=$(procs); [ "$n" -eq 0 ] && ok || bad "$mode: devzero.c left $n processes behind"
    # the input mutated: named, a failure
    expect 1 "attention changed its argument Q in place" -- "$A" lab check attention "$w/mutate.py" --no-torch
    # writes, environment, network
    rm -f /var/tmp/attend-escape-test
    out=$("$A" lab check attention "$w/escape.py" --no-torch 2>&1)
    if grep -q "ATTEND_LAB_SECRET_TEST\|XDG_STATE_HOME" <<<"$out"; then bad "$mode: the environment leaked: $out"; else ok; fi
    grep -q "helper=42" <<<"$out" && ok || bad "$mode: the helper beside the file was not imported: $out"
    if [ "$mode" = bwrap ]; then
        grep -q "wrote=/tmp/attend-escape-test env" <<<"$out" && ok || bad "bwrap: writes not confined: $out"
        [ ! -e /var/tmp/attend-escape-test ] && ok || bad "bwrap: wrote outside its folder"
        grep -q " no network" <<<"$out" && ok || bad "bwrap: the network was reachable: $out"
    fi
    rm -f /var/tmp/attend-escape-test
    [ ! -e /tmp/attend-escape-test ] || [ "$mode" = limits ] && ok || bad "bwrap: /tmp was not private"
    rm -f /tmp/attend-escape-test
    # nothing left in the lab folder or in $TMPDIR
    after=$(listing "$w")
    [ "$after" = "$before" ] && ok || bad "$mode: the lab folder changed: $before -> $after"
    left=$(ls -A "$TMPDIR")
    [ -z "$left" ] && ok || bad "$mode: left in TMPDIR: $left"
    # interrupted: Ctrl-C, SIGTERM, SIGHUP kill the whole tree; attend exits 128+signal
    for sig in INT TERM HUP; do
        rm -f "$w/stuck.started"
        "$A" lab check attention "$w/stuck.py" --no-torch --timeout 600 >"$tmp/stuck.out" 2>&1 &
        apid=$!
        for _ in $(seq 1200); do [ -e "$w/stuck.started" ] && break; sleep 0.05; done
        [ -e "$w/stuck.started" ] && ok || bad "$mode: stuck.py never started"
        kill -$sig $apid
        wait $apid; rc=$?
        want=$((128 + $(kill -l $sig)))
        [ $rc -eq $want ] && ok || bad "$mode: SIG$sig: attend exited $rc, want $want"
        grep -q "interrupted" "$tmp/stuck.out" && ok || bad "$mode: SIG$sig not said: $(cat "$tmp/stuck.out")"
        n=$(procs); [ "$n" -eq 0 ] && ok || bad "$mode: SIG$sig left $n processes behind"
        left=$(ls -A "$TMPDIR"); [ -z "$left" ] && ok || bad "$mode: SIG$sig left in TMPDIR: $left"
    done
    rm -f "$w/stuck.started"
done
kill $lpid 2>/dev/null; wait $lpid 2>/dev/null
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
