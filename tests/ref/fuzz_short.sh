#!/usr/bin/env bash
# A short fuzzing run in CI: every libFuzzer harness of tests/fuzz (make fuzz) for
# FUZZ_SECONDS (default 3) each, from its seed corpus. Skips, saying so, when clang is not
# installed. The long run is `make fuzz FUZZ_SECONDS=3600`. Prints "N passed, N failed".
# suite: slow (about 45 s of fuzzing): in make test, not in make check
set -u
cd "$(dirname "$0")/../.." || exit 1
if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
    echo "SKIP: clang is not installed, so the fuzz harnesses were not run (apt-get install clang)"
    echo "0 passed, 0 failed"
    exit 0
fi
probe=$(mktemp -d)
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! "${FUZZ_CC:-clang}" -fsanitize=fuzzer,address -o "$probe/p" "$probe/p.c" >/dev/null 2>&1; then
    rm -rf "$probe"
    echo "SKIP: clang cannot build a libFuzzer program here (its runtime is missing: apt-get install libclang-rt-dev)"
    echo "0 passed, 0 failed"
    exit 0
fi
rm -rf "$probe"
secs=${FUZZ_SECONDS:-3}
out=$(make --no-print-directory fuzz FUZZ_SECONDS="$secs" 2>&1)
rc=$?
pass=0 fail=0
for n in $(sed -n 's/^FUZZ_NAMES *:= *//p' Makefile); do
    if grep -q "^fuzz_$n: " <<<"$out" && ! grep -q "fuzz_$n FAILED" <<<"$out" &&
       grep -q "^Done [0-9]* runs" "build-fuzz/fuzz_$n.log" 2>/dev/null; then
        pass=$((pass + 1))
        echo "ok - fuzz_$n: $(grep -E '^Done [0-9]+ runs' "build-fuzz/fuzz_$n.log" | tail -n 1)"
    else
        fail=$((fail + 1))
        echo "FAIL - fuzz_$n"
    fi
done
if [ "$rc" -ne 0 ]; then
    echo "$out" | tail -n 40
    [ "$fail" -eq 0 ] && fail=1
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
