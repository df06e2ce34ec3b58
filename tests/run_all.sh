#!/usr/bin/env bash
# Runs test suites, JOBS at a time, and ends with one line "N passed, N failed" (the sum).
#   tests/run_all.sh            unit, reference and end-to-end tests (make test)
#   tests/run_all.sh --check    the fast set (make check): unit suites, check-lessons and the
#                               reference tests not marked slow; no tmux
#   tests/run_all.sh --quick    unit tests and every headless reference test (no tmux)
#   tests/run_all.sh --long     the long end-to-end walks only (make test-long)
#   tests/run_all.sh ... NAME.. only the suites whose name contains one of the NAMEs
# A suite's kind is a line of its own in the script: "# suite: slow" keeps a reference test out
# of --check (it still runs in make test); "# suite: long" moves an end-to-end test from make
# test to make test-long.
# Every suite prints its own closing "N passed, N failed" line; a suite that crashes or prints
# no such line counts as one failure. Each suite's line is printed as it ends, with its seconds.
# Environment: BUILD (default build), ATTEND (default ./attend), JOBS (default 2: suites run
# at once), SANITIZE=1 under ASan/UBSan.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
export ATTEND=${ATTEND:-./attend}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=23}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=24}
JOBS=${JOBS:-2}
mode=all
filters=()
for a in "$@"; do
    case $a in
        --quick) mode=quick ;;
        --check) mode=check ;;
        --long) mode=long ;;
        -*) echo "usage: tests/run_all.sh [--check|--quick|--long] [NAME...]" >&2; exit 2 ;;
        *) filters+=("$a") ;;
    esac
done
# make test runs the unit suites' whole sweeps (test_engine's e^x over every 37th float);
# make check a sparser sample of them
[ "$mode" = all ] && export ATTEND_TEST_FULL=${ATTEND_TEST_FULL:-1}
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || { echo "JOBS must be a number from 1, not '$JOBS'" >&2; exit 2; }

kind_of() { # script -> slow | long | (nothing)
    sed -n "s/^# suite: \([a-z]*\).*/\1/p" "$1" | head -n 1
}

# The suites, as names and commands (run in the order chosen below).
names=()
cmds=()
add() { # name, command (one string, run by bash)
    local f
    if [ ${#filters[@]} -gt 0 ]; then
        for f in "${filters[@]}"; do [[ $1 == *"$f"* ]] && break; f=; done
        [ -n "$f" ] || return 0
    fi
    names+=("$1")
    cmds+=("$2")
}
if [ "$mode" = long ]; then
    for t in tests/e2e/*.sh; do
        [ "$(kind_of "$t")" = long ] && add "e2e/$(basename "$t" .sh)" "bash $t"
    done
else
    if [ "$mode" = all ]; then
        for t in $(ls -S tests/e2e/*.sh); do
            [ "$(kind_of "$t")" = long ] || add "e2e/$(basename "$t" .sh)" "bash $t"
        done
    fi
    for t in $(ls -S tests/ref/*.sh); do
        [ "$mode" = check ] && [ "$(kind_of "$t")" = slow ] && continue
        add "ref/$(basename "$t" .sh)" "bash $t"
    done
    if [ "$mode" = check ]; then
        # the shipped course passes every check and guard (the one run of its state walk in
        # make check: lesson_guards.sh and the others check fixtures only)
        add check-lessons 'out=$("$ATTEND" check-lessons 2>&1); rc=$?; echo "$out";
            [ $rc = 0 ] && grep -q " 0 problems$" <<<"$out" && echo "1 passed, 0 failed"'
    fi
    for t in "$BUILD"/tests/test_*; do
        [ -x "$t" ] && [ "${t%.d}" = "$t" ] || continue
        add "unit/$(basename "$t")" "$t"
    done
fi

# Longest first, so that the jobs end together: each suite's seconds in the last run that ran
# it are kept in $BUILD/suite-seconds; a suite not in it (new, or a fresh build) starts first,
# then the rest by those seconds. Without the file, the order above (largest scripts first).
seconds_file="$BUILD/suite-seconds"
order=("${!names[@]}")
if [ -r "$seconds_file" ]; then
    declare -A last_secs=()
    while read -r n s; do [ -n "$n" ] && last_secs[$n]=$s; done <"$seconds_file"
    mapfile -t order < <(for i in "${!names[@]}"; do
        printf '%s %s\n' "${last_secs[${names[$i]}]:-100000}" "$i"; done | sort -s -k1,1gr | cut -d' ' -f2)
fi

total_pass=0
total_fail=0
failed_suites=()
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT
start=$EPOCHREALTIME
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; } # seconds

# Processes a suite left running after it ended, found by the tag run_one puts in the suite's
# environment (inherited through tmux servers, whose panes outlive the test that killed them):
# waits up to 10 s for them to end, then kills them (SIGKILL) and prints how many. Under
# SANITIZE a sanitized attend whose tmux was killed can hang in LeakSanitizer's exit-time
# stop-the-world (its tracer in waitpid, the process spinning in sched_yield, SIGTERM blocked);
# left alone, a dozen of them held a core for the rest of session 12's run.
leftovers() { # tag
    local tag=$1 pids=() k
    for k in $(seq 1 50); do
        mapfile -t pids < <(grep -slaxz "ATTEND_SUITE_TAG=$tag" /proc/[0-9]*/environ | cut -d/ -f3)
        [ ${#pids[@]} -eq 0 ] && return 0
        sleep 0.2
    done
    kill -9 "${pids[@]}" 2>/dev/null
    echo "${#pids[@]}"
}

run_one() { # index: runs suite i into $log_dir/i.log, then its exit status, seconds, CPU
    local i=$1 t0 rc cpu left
    t0=$EPOCHREALTIME
    ATTEND_SUITE_TAG="$$-$i" bash -c "${cmds[$i]}" >"$log_dir/$i.log" 2>&1 </dev/null
    rc=$?
    left=$(leftovers "$$-$i")
    [ -z "$left" ] || echo "$left" >"$log_dir/$i.left"
    times >"$log_dir/$i.times"   # (not in a pipe: a subshell would report its own times)
    cpu=$(tail -n 1 "$log_dir/$i.times" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m");
        sub("s", "", a[2]); t += a[1] * 60 + a[2] } printf "%.1f", t }')
    echo "$rc $(since "$t0") $cpu" >"$log_dir/$i.rc.tmp"
    mv "$log_dir/$i.rc.tmp" "$log_dir/$i.rc"
}

report() { # index: counts suite i and prints its line
    local i=$1 name=${names[$1]} log="$log_dir/$1.log" rc secs cpu last p=0 f=0
    read -r rc secs cpu <"$log_dir/$i.rc"
    last=$(grep -oE '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -n "$last" ]; then
        p=${last%% passed*}
        f=${last#*passed, }
        f=${f%% failed*}
    fi
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1   # crashed, sanitizer report, or failed without saying so
    fi
    if [ -z "$last" ] && [ "$rc" -eq 0 ]; then
        f=1   # a suite must report its counts
        echo "  (no 'N passed, N failed' line)" >>"$log"
    fi
    if [ "${SANITIZE:-0}" = 1 ] && grep -qE 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' "$log"; then
        f=$((f + 1))
        echo "  (sanitizer report)" >>"$log"
    fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    if [ -f "$log_dir/$i.left" ]; then
        echo "$name: $(cat "$log_dir/$i.left") process(es) still running 10 s after the suite ended: killed"
    fi
    if [ "$f" -ne 0 ]; then
        failed_suites+=("$name")
        printf '%-30s %5d passed, %d failed %6.1f s %5.1f s CPU  FAIL\n' "$name" "$p" "$f" "$secs" "$cpu"
        sed 's/^/    | /' "$log" | tail -n 40
    else
        printf '%-30s %5d passed, %d failed %6.1f s %5.1f s CPU\n' "$name" "$p" "$f" "$secs" "$cpu"
    fi
}

reported=()
report_ended() { # prints every suite that has ended and is not yet reported
    local i
    for i in "${!names[@]}"; do
        [ -z "${reported[$i]:-}" ] && [ -f "$log_dir/$i.rc" ] || continue
        reported[$i]=1
        report "$i"
    done
}

running=0
for i in "${order[@]}"; do
    while [ "$running" -ge "$JOBS" ]; do
        wait -n
        running=$((running - 1))
        report_ended
    done
    run_one "$i" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n
    running=$((running - 1))
    report_ended
done
wait
report_ended

# this run's seconds into the record (the other suites' kept), through a temp file
if [ -d "$BUILD" ]; then
    declare -A new_secs=()
    [ -r "$seconds_file" ] && while read -r n s; do [ -n "$n" ] && new_secs[$n]=$s; done <"$seconds_file"
    for i in "${!names[@]}"; do
        [ -f "$log_dir/$i.rc" ] && read -r _ s _ <"$log_dir/$i.rc" && new_secs[${names[$i]}]=$s
    done
    for n in "${!new_secs[@]}"; do echo "$n ${new_secs[$n]}"; done | sort >"$seconds_file.tmp.$$" &&
        mv "$seconds_file.tmp.$$" "$seconds_file"
fi

echo
if [ ${#failed_suites[@]} -gt 0 ]; then
    # each failing suite's own failure lines again, here at the end: a CI log that keeps only
    # its last lines still says which check failed (its screen is above, with the suite's line)
    for i in "${!names[@]}"; do
        [[ " ${failed_suites[*]} " == *" ${names[$i]} "* ]] || continue
        grep -m 8 -E '^(FAIL|not ok)|runtime error:|ERROR: (Address|Leak)Sanitizer' "$log_dir/$i.log" |
            sed "s|^|${names[$i]}: |"
    done
    echo "failing suites: ${failed_suites[*]}"
fi
times >"$log_dir/times"   # (not in a pipe: a subshell would report its own, zero, times)
cpu=$(tail -n 1 "$log_dir/times" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m");
    sub("s", "", a[2]); t += a[1] * 60 + a[2] } printf "%.0f", t }')
printf '%d suites, %d at a time: %.0f s wall, %s s CPU (user + system)\n' "${#names[@]}" \
    "$JOBS" "$(since "$start")" "$cpu"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
