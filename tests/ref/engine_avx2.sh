#!/bin/sh
# engine_avx2.sh - the engine's unit test again with ATTEND_NO_AVX512=1, so that on a machine
# with AVX-512 the forward's AVX2 matrix product is also held to the in-order chains (the
# AVX-512 one is checked by unit/test_engine itself, and both must give the same bits). On a
# machine without AVX-512 it repeats that run.
BUILD=${BUILD:-build}
if [ ! -x "$BUILD/tests/test_engine" ]; then
    echo "engine_avx2: $BUILD/tests/test_engine is not built (make unit)"
    echo "0 passed, 1 failed"
    exit 1
fi
ATTEND_NO_AVX512=1 exec "$BUILD/tests/test_engine"
