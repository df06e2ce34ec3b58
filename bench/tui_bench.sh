#!/usr/bin/env bash
# tui_bench.sh - builds bench/tui_bench.c against the objects of $BUILD (make bench builds
# them) and runs it: µs from a key press to a finished redraw, and peak RSS.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
CC=${CC:-cc}
objs=$(ls "$BUILD"/*/*.o 2>/dev/null | grep -v "/main.o$")
if [ -z "$objs" ]; then
    echo "== tui redraw: no objects in $BUILD (run make first)"
    exit 1
fi
bin=$BUILD/bench/tui_bench
mkdir -p "$BUILD/bench"
# shellcheck disable=SC2086
if ! $CC -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -g -Isrc/cli -Isrc/tui -Isrc/course -Isrc/engine \
    $(pkg-config --cflags ncursesw libcjson libpcre2-8) -o "$bin" bench/tui_bench.c $objs \
    $(pkg-config --libs ncursesw libcjson libpcre2-8) -lm; then
    echo "== tui redraw: could not build bench/tui_bench.c"
    exit 1
fi
state=$(mktemp -d)
XDG_STATE_HOME=$state "$bin" lessons
rm -rf "$state"
