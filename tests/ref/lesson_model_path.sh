#!/usr/bin/env bash
# lesson_model_path.sh - a lesson's widget.model opens only files inside its course or
# attend's data directory: an absolute path elsewhere, a "../" way out and a symlink pointing
# out are refused with a file:line:col message that names the path; a model inside the
# course and a shipped model's bare name load.
cd "$(dirname "$0")/../.." || exit 1
A=${ATTEND:-./attend}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/course/sub" "$d/outside"
cp data/decoder.json "$d/outside/m.json"
cp data/decoder.json "$d/course/sub/m.json"
ln -s "$d/outside/m.json" "$d/course/link.json"
lesson() { # MODEL: writes the course's one lesson naming MODEL
    /usr/bin/python3 - "$1" "$d/course/01-l.json" <<'PY'
import json, sys
L = json.load(open("tests/fixtures/quiz/01-all-kinds.json"))
L["pages"][0]["widget"]["model"] = sys.argv[1]
json.dump(L, open(sys.argv[2], "w"), indent=1)
PY
}
for m in "$d/outside/m.json" "../outside/m.json" "./link.json"; do
    lesson "$m"
    out=$("$A" check-lessons "$d/course" 2>&1)
    if grep -qE '01-l\.json:[0-9]+:[0-9]+: pages\[0\]\.widget\.model: .*outside the course' <<<"$out"; then
        ok "refused with file:line:col: $m"
    else
        bad "not refused: $m: $out"
    fi
done
for m in "sub/m.json" "decoder.json"; do
    lesson "$m"
    "$A" check-lessons "$d/course" >/dev/null 2>&1 && ok "loads: $m" || bad "does not load: $m"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
