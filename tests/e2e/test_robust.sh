#!/usr/bin/env bash
# test_robust.sh - short versions of `make soak` (SOAK_KEYS random keys and resizes, default
# 1000 here) and `make crashtest` (CRASH_KILLS SIGKILLs during page turns, default 10 here)
# for CI: the full runs are make soak / make crashtest. Prints "N passed, N failed".
cd "$(dirname "$0")" || exit 1
out1=$(SOAK_KEYS=${SOAK_KEYS:-1000} bash soak.bash 2>&1); rc1=$?
echo "$out1"
out2=$(CRASH_KILLS=${CRASH_KILLS:-10} bash crashtest.bash 2>&1); rc2=$?
echo "$out2"
sum() { grep -oE '^[0-9]+ passed, [0-9]+ failed' | tail -n 1; }
l1=$(sum <<<"$out1"); l2=$(sum <<<"$out2")
p=$(( ${l1%% passed*} + ${l2%% passed*} ))
f1=${l1#*passed, }; f2=${l2#*passed, }
f=$(( ${f1%% failed*} + ${f2%% failed*} ))
[ -z "$l1" ] || [ "$rc1" -ne 0 -a "${f1%% failed*}" = 0 ] && f=$((f + 1))
[ -z "$l2" ] || [ "$rc2" -ne 0 -a "${f2%% failed*}" = 0 ] && f=$((f + 1))
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
