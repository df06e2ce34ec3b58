# harness.bash - helpers for the end-to-end tests: run the real attend binary in a detached
# tmux session on a private socket, send keys, poll the screen for text (never fixed sleeps),
# count results and print "N passed, N failed". Sourced by tests/e2e/*.sh (not a test).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
ROOT=$PWD
ATTEND=${ATTEND:-./attend}
case $ATTEND in /*) ;; *) ATTEND=$ROOT/$ATTEND ;; esac
FIXTURE=$ROOT/tests/e2e/fixtures/course
E2E_PASS=0
E2E_FAIL=0
E2E_SOCK=attend-e2e-$$-$RANDOM
E2E_TMP=$(mktemp -d)
export XDG_STATE_HOME=$E2E_TMP/state

if ! command -v tmux >/dev/null 2>&1; then
    echo "tmux is not installed"
    echo "0 passed, 1 failed"
    exit 1
fi
if [ ! -x "$ATTEND" ]; then
    echo "no attend binary at $ATTEND (build it, or set ATTEND)"
    echo "0 passed, 1 failed"
    exit 1
fi

tm() { tmux -L "$E2E_SOCK" "$@"; }
# model_cfg FILE KEY: a config value of a shipped model (data/FILE), so expectations follow
# the model that is shipped instead of hard-coding its sizes.
model_cfg() {
    /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"][sys.argv[2]])' \
        "$ROOT/data/$1" "$2"
}
e2e_cleanup() {
    tm kill-server >/dev/null 2>&1
    rm -rf "$E2E_TMP"
}
trap e2e_cleanup EXIT

ok() {
    E2E_PASS=$((E2E_PASS + 1))
    echo "ok - $1"
}
fail() {
    E2E_FAIL=$((E2E_FAIL + 1))
    echo "FAIL - $1"
    echo "---- screen ----"
    screen | sed 's/^/| /'
    echo "----------------"
}
check() { # description, command...
    local d=$1
    shift
    if "$@"; then ok "$d"; else fail "$d"; fi
}

# start W H [VAR=value ...] [-- attend arguments]: a fresh session "main" running attend.
# After attend exits, the pane shows "EXITED rc=N" and the terminal modes (echo/icanon).
start() {
    local w=$1 h=$2
    shift 2
    local envs=() args=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        envs+=("$1")
        shift
    done
    [ $# -gt 0 ] && shift
    args=("$@")
    # an idle session keeps the server alive while "main" is replaced
    tm has-session -t keep >/dev/null 2>&1 || tm new-session -d -s keep -x 80 -y 24 "sleep 86400"
    tm kill-session -t main >/dev/null 2>&1
    : >"$E2E_TMP/stderr"
    local cmd
    # x exports into the test's own directory unless the test names one (never the repo)
    mkdir -p "$E2E_TMP/x-export"
    cmd="env XDG_STATE_HOME='$XDG_STATE_HOME' ATTEND_EXPORT_DIR='$E2E_TMP/x-export' ${envs[*]:-} '$ATTEND' ${args[*]:-} 2>'$E2E_TMP/stderr'; "
    cmd+="echo EXITED rc=\$?; stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(echo|icanon)' | tr '\\n' ' '; echo MODES; sleep 600"
    tm new-session -d -s main -x "$w" -y "$h" -c "$ROOT" "$cmd"
}

screen() { tm capture-pane -p -t main 2>/dev/null; }
keys() { tm send-keys -t main "$@"; }
literal() { tm send-keys -t main -l "$1"; }

# Deadlines of a second or more are multiplied by E2E_SLOW (default 3): a passing wait ends
# when the text appears, so a long deadline costs nothing on an idle machine and keeps a
# loaded one (two suites at a time, other work) from failing. Shorter ones are probes.
# E2E_SLOW defaults to 3 times the machine's load per core (at least 3), measured once: a
# machine running two busy processes per core waits six times as long before failing.
if [ -z "${E2E_SLOW:-}" ]; then
    E2E_SLOW=$(awk -v n="$(nproc 2>/dev/null || echo 1)" '{ s = 3 * $1 / n; print (s > 3 ? int(s + 0.5) : 3) }' /proc/loadavg 2>/dev/null)
    E2E_SLOW=${E2E_SLOW:-3}
fi
export E2E_SLOW
deadline_polls() { # SECONDS -> polls of 50 ms
    awk -v l="$1" -v s="${E2E_SLOW:-3}" 'BEGIN { if (l >= 1) l *= s; print int(l * 20) }'
}
# quiet SECONDS: a window in which nothing may happen (a paused demo takes no step, a paused
# run keeps its step), the one place a test waits for time: it can only hide a failure on a
# slow machine, never make a pass fail, and it grows with the load (E2E_SLOW) so a slow
# machine still sees the same number of the program's own intervals.
quiet() { sleep "$(awk -v l="$1" -v s="${E2E_SLOW:-3}" 'BEGIN { print l * s / 3 }')"; }
# wait_for TEXT [SECONDS]: polls the screen until it contains TEXT (fixed string).
wait_for() {
    local text=$1 limit=${2:-5} i=0
    local n
    n=$(deadline_polls "$limit")
    while [ $i -lt $n ]; do
        screen | grep -qF -- "$text" && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}
# wait_gone TEXT [SECONDS]: polls until the screen no longer contains TEXT.
wait_gone() {
    local text=$1 limit=${2:-5} i=0
    local n
    n=$(deadline_polls "$limit")
    while [ $i -lt $n ]; do
        screen | grep -qF -- "$text" || return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}
# settle [SECONDS]: polls until the screen stops changing (three identical captures 30 ms
# apart), at most SECONDS (default 3): after a key whose effect has no text to wait for.
settle() {
    local limit=${1:-3} prev="" same=0 i=0 cur n
    n=$(awk -v l="$limit" 'BEGIN { print int(l / 0.03) }')
    while [ $i -lt "$n" ]; do
        cur=$(screen)
        if [ "$cur" = "$prev" ]; then same=$((same + 1)); [ $same -ge 3 ] && return 0; else same=0; fi
        prev=$cur; sleep 0.03; i=$((i + 1))
    done
    return 1
}
expect() { # TEXT description [SECONDS]
    if wait_for "$1" "${3:-5}"; then ok "$2"; else fail "$2 (wanted: $1)"; fi
}
expect_gone() {
    if wait_gone "$1" "${3:-5}"; then ok "$2"; else fail "$2 (still there: $1)"; fi
}
# expect_exit RC description: attend ended with RC and the terminal modes are restored.
expect_exit() {
    if wait_for "EXITED rc=$1" 5 && wait_for "MODES" 2 && screen | grep -qE '(^| )icanon( |$)' && screen | grep -qE '(^| )echo( |$)' &&
        ! screen | grep -qE -- '(^| )-(echo|icanon)'; then
        ok "$2"
    else
        fail "$2 (want rc=$1 and echo icanon restored)"
    fi
    if grep -qE 'AddressSanitizer|runtime error|LeakSanitizer' "$E2E_TMP/stderr"; then
        fail "$2: sanitizer report"
        cat "$E2E_TMP/stderr"
    fi
}
resize() { tm resize-window -t main -x "$1" -y "$2"; }

# heatmap_triangle GLYPH ROWS [strip]: the heatmap's rows below the "sum" header: in row i
# every column j > i shows GLYPH (masked), every other column a number, and the row sum is
# 1.00. With "strip", shade glyphs in front of numbers (NO_COLOR mode) are removed first.
# On large terminals a token takes 2 or 3 screen rows; the rows without text (colour or
# shade only) are skipped.
heatmap_triangle() {
    screen | awk -v g="$1" -v rows="$2" -v strip="${3:-}" '
        { line = $0; sub(/^.*[│|]( |$)/, "", line); gsub(/[][]/, " ", line)
          if (strip != "") gsub(/░|▒|▓|█/, " ", line)
          n = split(line, f, " ") }
        n > 0 && f[n] == "sum" { on = 1; i = 0; next }
        on && n == 0 && i < rows { next }
        on && i < rows {
            if (f[n] != "1.00") bad = 1
            for (j = 0; j < rows; j++) {
                c = f[2 + j]
                if (j > i) { if (c != g) bad = 1 }
                else if (c !~ /^[0-9]\.[0-9][0-9]$/) bad = 1
            }
            i++
        }
        END { exit !(on && i == rows && !bad) }'
}
# heatmap_full ROWS [strip]: no masked cell, every row sums to 1.00.
heatmap_full() {
    screen | awk -v rows="$1" -v strip="${2:-}" '
        { line = $0; sub(/^.*[│|]( |$)/, "", line); gsub(/[][]/, " ", line)
          if (strip != "") gsub(/░|▒|▓|█/, " ", line)
          n = split(line, f, " ") }
        n > 0 && f[n] == "sum" { on = 1; i = 0; next }
        on && n == 0 && i < rows { next }
        on && i < rows {
            if (f[n] != "1.00") bad = 1
            for (j = 0; j < rows; j++) if (f[2 + j] !~ /^[0-9]\.[0-9][0-9]$/) bad = 1
            i++
        }
        END { exit !(on && i == rows && !bad) }'
}

finish() {
    echo "$E2E_PASS passed, $E2E_FAIL failed"
    [ "$E2E_FAIL" -eq 0 ]
    exit $?
}
