#!/usr/bin/env bash
# quiz_broken.sh - `attend quiz` on a course with a broken lesson names each broken lesson
# with its file:line:col problems (as check-lessons does) and quizzes on the rest.
cd "$(dirname "$0")/../.." || exit 1
A=${ATTEND:-./attend}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cp tests/fixtures/quiz/*.json "$d/"
cp tests/fixtures/lessons-broken/02-unknown-key.json "$d/50-unknown-key.json"
good=$("$A" quiz --answers --seed 1 --lessons tests/fixtures/quiz 2>/dev/null)
out=$("$A" quiz --answers --seed 1 --lessons "$d" 2>"$d/err")
rc=$?
[ $rc -eq 0 ] && ok "exit 0: the rest of the course is quizzed" || bad "exit $rc"
grep -q '50-unknown-key.json:12:7: pages\[0\].widgt: unknown key' "$d/err" &&
    ok "the broken lesson is named with file:line:col" || bad "no file:line:col for the broken lesson: $(cat "$d/err")"
grep -q '1 lesson skipped' "$d/err" && ok "says one lesson was skipped" || bad "no skip count"
[ -n "$good" ] && [ "$(grep -c '^ *Answer:' <<<"$out")" -eq "$(grep -c '^ *Answer:' <<<"$good")" ] &&
    ok "every question of the good lessons is in the key" || bad "the good lessons' questions are not all there"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
