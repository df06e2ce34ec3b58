#!/bin/sh
# train_avx2.sh - the trainer's unit test again with ATTEND_NO_AVX512=1, so that on a machine
# with AVX-512 the AVX2 kernels are also checked against the plain chains (the AVX-512 ones
# are checked by unit/test_train itself). On a machine without AVX-512 it repeats that run.
BUILD=${BUILD:-build}
if [ ! -x "$BUILD/tests/test_train" ]; then
    echo "train_avx2: $BUILD/tests/test_train is not built (make unit)"
    echo "0 passed, 1 failed"
    exit 1
fi
ATTEND_NO_AVX512=1 exec "$BUILD/tests/test_train"
