#!/usr/bin/env bash
# class_bench.sh - builds bench/class_bench.c against the objects of $BUILD (make bench builds
# them) and runs it: the classroom server's CPU per question and its memory, early and late in
# a 120-question quiz with 100 students on the loopback (flat when nothing grows).
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
CC=${CC:-cc}
objs=$(ls "$BUILD"/engine/*.o "$BUILD"/course/*.o 2>/dev/null)
if [ -z "$objs" ]; then
    echo "== class room: no objects in $BUILD (run make first)"
    exit 1
fi
bin=$BUILD/bench/class_bench
mkdir -p "$BUILD/bench"
# shellcheck disable=SC2086
if ! $CC -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -g -Isrc/course -Isrc/engine \
    $(pkg-config --cflags libcjson libpcre2-8) -o "$bin" bench/class_bench.c $objs \
    $(pkg-config --libs libcjson libpcre2-8) -lm; then
    echo "== class room: could not build bench/class_bench.c"
    exit 1
fi
"$bin"
