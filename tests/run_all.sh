#!/usr/bin/env bash
# Runs every test suite and ends with one line "N passed, N failed" (the sum of the suites).
#   tests/run_all.sh            unit tests, reference tests, end-to-end tests
#   tests/run_all.sh --quick    unit tests and headless reference tests only (no tmux)
# Every suite prints its own closing "N passed, N failed" line; a suite that crashes or
# prints no such line counts as one failure.
# Environment: BUILD (default build), ATTEND (default ./attend), SANITIZE=1 under ASan/UBSan.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
export ATTEND=${ATTEND:-./attend}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=23}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=24}
quick=0
[ "${1:-}" = "--quick" ] && quick=1

total_pass=0
total_fail=0
failed_suites=()
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT

run_suite() { # name, command...
    local name=$1; shift
    local log="$log_dir/$(echo "$name" | tr '/ ' '__').log"
    "$@" >"$log" 2>&1
    local rc=$?
    local last
    last=$(grep -oE '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    local p=0 f=0
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
    if [ "$f" -ne 0 ]; then
        failed_suites+=("$name")
        printf '%-34s %5d passed, %d failed  FAIL\n' "$name" "$p" "$f"
        sed 's/^/    | /' "$log" | tail -n 40
    else
        printf '%-34s %5d passed, %d failed\n' "$name" "$p" "$f"
    fi
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    run_suite "unit/$(basename "$t")" "$t"
done
for t in tests/ref/*.sh; do
    [ -f "$t" ] || continue
    run_suite "ref/$(basename "$t" .sh)" bash "$t"
done
if [ "$quick" = 0 ]; then
    for t in tests/e2e/*.sh; do
        [ -f "$t" ] || continue
        run_suite "e2e/$(basename "$t" .sh)" bash "$t"
    done
fi

echo
if [ ${#failed_suites[@]} -gt 0 ]; then
    echo "failing suites: ${failed_suites[*]}"
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
