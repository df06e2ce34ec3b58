# cli_lib.bash - shared by the command-line suites in tests/ref (sourced, not a suite):
# the binary, a temporary directory, counters and `expect STATUS NEEDLE -- command...`
# (NEEDLE searched in stdout+stderr). The suite prints "$pass passed, $fail failed" itself.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
A=${ATTEND:-./attend}
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# SLOW: how much longer than on an idle machine a deadline waits before it fails: 3 times the
# load per core (at least 1), measured once; a passing wait ends when its condition holds, so
# this costs nothing on an idle machine (tests wait for conditions, not times: issue 39)
SLOW=${TEST_SLOW:-$(awk -v n="$(nproc 2>/dev/null || echo 1)" '{ s = 3 * $1 / n; print (s > 1 ? int(s + 0.5) : 1) }' /proc/loadavg 2>/dev/null || echo 1)}
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() {
    local want=$1 needle=$2; shift 3
    local out rc
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" -ne "$want" ]; then bad "exit $rc (want $want): $*"; echo "$out" | head -5; return; fi
    if [ -n "$needle" ] && ! grep -qF -- "$needle" <<<"$out"; then
        bad "no '$needle' in output of: $*"; echo "$out" | head -5; return
    fi
    ok
}
