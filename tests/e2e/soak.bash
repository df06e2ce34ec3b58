#!/usr/bin/env bash
# soak.bash - `make soak`: SOAK_KEYS (default 20000) random keys and resizes sent through tmux
# to the player on the shipped course, attend's resident memory sampled all along. Fails on a
# crash (attend gone before the end), on memory growth after the warm-up (more than
# SOAK_GROWTH_KB, default 8192, or 25%; under SANITIZE=1 LeakSanitizer judges instead), or
# on a terminal not restored after q. Not a suite of
# tests/run_all.sh itself (its name ends in .bash): tests/e2e/test_robust.sh runs a short one.
# Seeded (SOAK_SEED, default 1) so a failure can be replayed. Prints "N passed, N failed".
. "$(dirname "$0")/harness.bash"
KEYS=${SOAK_KEYS:-20000}
GROWTH_KB=${SOAK_GROWTH_KB:-8192}
RANDOM=${SOAK_SEED:-1}
# every key the player knows except q and Ctrl-C (which quit): overlays, editors, the quiz
POOL=(Left Right Up Down Space BSpace PPage NPage Home End Enter Escape Tab m d p s ']' '['
      h H l L a v e E r '?' g J K z o Q 0 1 2 3 5 9 x y t c n b '-' '.' F1)

attend_pid() { # the attend process in the pane (child of the pane's shell)
    local pp
    pp=$(tm list-panes -t main -F '#{pane_pid}' 2>/dev/null | head -n 1)
    [ -n "$pp" ] && ps -o pid=,comm= --ppid "$pp" | awk '$2 == "attend" { print $1; exit }'
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

rm -rf "$XDG_STATE_HOME"
start 80 24 --
expect "lesson 1/" "soak: the course opens"
pid=$(attend_pid)
if [ -z "$pid" ]; then fail "soak: no attend process found"; finish; fi
sent=0 warm=0 peak=0 samples=0 crashed=0
while [ "$sent" -lt "$KEYS" ]; do
    batch=()
    for _ in $(seq 1 25); do batch+=("${POOL[RANDOM % ${#POOL[@]}]}"); done
    keys "${batch[@]}"
    sent=$((sent + 25))
    if [ $((sent % 200)) -eq 0 ]; then
        resize $((20 + RANDOM % 181)) $((6 + RANDOM % 55))
    fi
    if [ $((sent % 500)) -eq 0 ]; then
        if ! kill -0 "$pid" 2>/dev/null; then crashed=1; break; fi
        r=$(rss_kb "$pid")
        [ -n "$r" ] || { crashed=1; break; }
        samples=$((samples + 1))
        # the warm-up: every screen, overlay and model touched once
        [ "$sent" -le $((KEYS / 5 > 500 ? KEYS / 5 : 500)) ] && warm=$r
        [ "$r" -gt "$peak" ] && peak=$r
    fi
done
if [ "$crashed" = 1 ]; then
    fail "soak: attend died after $sent keys (seed ${SOAK_SEED:-1})"
    cat "$E2E_TMP/stderr"
    finish
fi
ok "soak: attend alive after $sent random keys and $((sent / 200)) resizes"
end=$(rss_kb "$pid")
[ "$warm" -gt 0 ] || warm=$end
echo "soak: RSS after warm-up ${warm} kB, peak ${peak} kB, at the end ${end} kB ($samples samples)"
limit=$((warm + (warm / 4 > GROWTH_KB ? warm / 4 : GROWTH_KB)))
if [ "${SANITIZE:-0}" = 1 ]; then
    # ASan's allocator caches and quarantines freed memory, so RSS is no measure of growth
    # there; LeakSanitizer judges leaks when attend exits (expect_exit reads its report).
    ok "soak: memory growth not judged under ASan (${warm} -> ${end} kB); leaks are checked at exit"
elif [ "$end" -le "$limit" ] && [ "$peak" -le "$limit" ]; then
    ok "soak: memory does not grow (${warm} -> ${end} kB, peak ${peak} kB, limit ${limit} kB)"
else
    fail "soak: memory grew from ${warm} kB to ${end} kB (peak ${peak} kB, limit ${limit} kB)"
fi
# leave every overlay, back to a normal size, and quit: the terminal must be restored
resize 80 24
keys Escape Escape Escape
sleep 0.2
keys Escape q
if ! wait_for "EXITED" 3; then keys Escape Escape q; fi
if ! wait_for "EXITED" 3; then keys Escape Escape Escape q q; fi
expect_exit 0 "soak: q quits and the terminal is restored"
finish
