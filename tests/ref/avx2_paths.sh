#!/usr/bin/env bash
# avx2_paths.sh - the engine's, the weight-streaming products' and the trainer's unit tests
# again with ATTEND_NO_AVX512=1, so that on a machine with AVX-512 the AVX2 kernels (the
# forward's matrix products, tensor_stream.c's, the trainer's three products) are also held to
# their in-order chains; the AVX-512 ones are checked by the unit tests themselves, and both
# paths must give the same bits. On a machine without AVX-512 this repeats those runs.
# test_engine runs with --paths: its e^x sweep is scalar code no AVX-512 reaches. Ends with
# the three suites' sum, "N passed, N failed".
BUILD=${BUILD:-build}
pass=0 fail=0
for t in test_engine test_train test_stream; do
    if [ ! -x "$BUILD/tests/$t" ]; then
        echo "avx2_paths: $BUILD/tests/$t is not built (make unit)"
        fail=$((fail + 1))
        continue
    fi
    args=(); [ "$t" = test_engine ] && args=(--paths)
    out=$(ATTEND_NO_AVX512=1 "$BUILD/tests/$t" "${args[@]}" 2>&1)
    rc=$?
    last=$(grep -oE '[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -n 1)
    echo "$t (ATTEND_NO_AVX512=1): ${last:-no count} (exit $rc)"
    if [ -z "$last" ]; then
        fail=$((fail + 1))
        continue
    fi
    p=${last%% passed*} f=${last#*passed, }
    f=${f%% failed*}
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    [ "$f" -ne 0 ] && grep FAIL <<<"$out" | head -n 20
    pass=$((pass + p)) fail=$((fail + f))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
