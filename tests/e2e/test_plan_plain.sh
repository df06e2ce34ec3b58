#!/usr/bin/env bash
# test_plan_plain.sh - the learner's plain mode presents a lecture plan (attend --plain --plan:
# a screen reader's view of a lecture) on the plan machine the presenter runs: space takes
# the plan's next step (the page it opens and what its keys changed said as plain mode says
# any command), its caption said with it; back leaves the plan, plan says so, space returns to
# its step on its own page; b goes back a step; the end is said; a step's problem is said
# without the plan's path. No tmux screen.
. "$(dirname "$0")/harness.bash"

P=tests/e2e/fixtures/plans
run() { printf '%s\n' "$@" | "$ATTEND" --plain --plan "$plan" 2>"$E2E_TMP/err"; }
plan=$P/expect-good.json
out=$(run space space plan back plan space b space space q)
rc=$?
check "--plain --plan runs (rc $rc, $(head -c 200 "$E2E_TMP/err"))" test "$rc" -eq 0 -a ! -s "$E2E_TMP/err"
check "it says the plan and its keys" grep -qF "Lecture plan: Each step declares the state it leaves, 3 steps. space (or next) takes the plan's next step" <<<"$out"
check "the first step opens its page, said (not the page before the plan)" bash -c "grep -q '^Lesson 7 of 23, The causal mask' <<<\"\$1\" && ! grep -q '^Lesson 1 of' <<<\"\$1\"" _ "$out"
check "space: the step in words" grep -qxF "Plan step 2/3: keys m (The upper triangle is gone.)" <<<"$out"
check "what its keys changed, as plain mode says a key" grep -qF "mask causal on: row 0 (the) changed most" <<<"$out"
check "its caption" grep -qxF "Caption: The upper triangle is gone." <<<"$out"
check "where the plan stands and what space does next" grep -qxF "Next (space): step 3/3: causal-mask page 2." <<<"$out"
check "plan: where it stands" test "$(grep -c '^Plan step 3 of 3\.$' <<<"$out")" -ge 2
check "back (the previous page) leaves the plan: plan says so" grep -qxF "Plan step 3 of 3 (left: space returns)." <<<"$out"
check "space returns to the plan's own page" bash -c "grep -A1 -xF 'Back to the plan, on its own page:' <<<\"\$1\" | grep -qF 'Page 2 of 6: The mask is added to the scores'" _ "$out"
check "b goes back a step: its page again, with its caption" bash -c "grep -A1 -xF 'Back one step:' <<<\"\$1\" | grep -qF 'Page 1 of 6' && grep -c 'Caption: The upper triangle is gone.' <<<\"\$1\" | grep -qx 2" _ "$out"
check "the end of the plan is said" grep -qxF "The end of the plan: b goes back, q quits." <<<"$out"
check "help names the plan's commands" sh -c "printf 'help\nq\n' | '$ATTEND' --plain --plan '$plan' | grep -qF 'A lecture plan is presented: space or next'"
plan=$P/expect-wrong.json
out=$(run space space space q)
check "a step's problem is said without the plan's path" grep -qxF "Problem: plan step 2: expect: the mask none, but the screen has causal." <<<"$out"
check "... every one of the step's problems" grep -qxF "Problem: plan step 2: expect: head 3, but the screen shows head 0." <<<"$out"
check "no path on the learner's screen" bash -c "! grep -qF 'fixtures/plans' <<<\"\$1\"" _ "$out"
plan=lecture-masks
out=$(printf 'space\nspace\nspace\nspace\nspace\nspace\nspace\nspace\nq\n' | "$ATTEND" --plain --plan lecture-masks 2>&1)
check "a shipped plan by name: step 9 says the causal mask's caption" grep -qxF "Caption: m: the causal mask. The upper triangle is gone; each row still sums to 1." <<<"$out"
printf '{"steps": [{"open": "causal-mask", "page": 1}, {"quiz": "causal-mask", "count": 1}]}\n' >"$E2E_TMP/quiz.json"
out=$(printf 'space\nq\n' | "$ATTEND" --plain --plan "$E2E_TMP/quiz.json" 2>&1)
check "a class quiz step says whose it is and how to take it here" grep -qF "A class quiz on causal-mask: in the room the presenter asks it" <<<"$out"
"$ATTEND" --plain --plan no-such-plan </dev/null >/dev/null 2>"$E2E_TMP/err"
rc=$?
check "no such plan: a message and status 1 (rc $rc)" sh -c "[ $rc -eq 1 ] && grep -qF 'no plan \"no-such-plan\"' '$E2E_TMP/err'"
"$ATTEND" --plain --plan "$P/expect-bad.json" </dev/null >/dev/null 2>"$E2E_TMP/err"
rc=$?
check "a plan that does not load: every problem, status 1 (rc $rc)" sh -c "[ $rc -eq 1 ] && [ \$(grep -c 'expect-bad.json:[0-9]*:[0-9]*: step' '$E2E_TMP/err') -eq 4 ]"
finish
