#!/usr/bin/env bash
# test_plan_expect.sh - a plan is a sequence of Session steps, run without a terminal
# (attend demo --plain: src/session/session_plan.c, the runner the presenter uses too), each
# step declaring the state it expects ("expect": page, mask, pe, layer, head, sentence):
# checked when the step runs and by --check, every problem at once as FILE:LINE:COL naming
# the field; the caption bound to its step. No tmux screen.
. "$(dirname "$0")/harness.bash"

P=tests/e2e/fixtures/plans
out=$("$ATTEND" demo --plain "$P/expect-good.json" 2>"$E2E_TMP/err")
rc=$?
check "--plain runs a plan headless (rc $rc)" test "$rc" -eq 0 -a ! -s "$E2E_TMP/err"
check "each step is said with the state it left" grep -qF 'now: page causal-mask:1, mask causal, PE learned, layer 0, head 0, sentence "the cat sat on the mat"' <<<"$out"
check "the caption shows while its step's screen stands" grep -qF "caption: The upper triangle is gone." <<<"$out"
check "... and leaves with the next step" test "$(grep -c 'caption:' <<<"$out")" -eq 1
check "--check passes a plan whose expectations hold" "$ATTEND" demo --check "$P/expect-good.json"
check "the shipped lecture runs headless" "$ATTEND" demo --plain lecture-masks

"$ATTEND" demo --check "$P/expect-wrong.json" >/dev/null 2>"$E2E_TMP/wrong"
rc=$?
check "--check fails on expectations the screen contradicts (rc $rc)" test "$rc" -eq 1
w="$P/expect-wrong.json"
check "the mask: the field's line:col, what was expected, what the screen has" grep -qxF "$w:6:17: step 2: expect: the mask none, but the screen has causal" "$E2E_TMP/wrong"
check "the head, on its own line:col (every mismatch, not the first)" grep -qxF "$w:7:17: step 2: expect: head 3, but the screen shows head 0" "$E2E_TMP/wrong"
check "the page" grep -qxF "$w:8:51: step 3: expect: page causal-mask:3, but the screen is on page causal-mask:2" "$E2E_TMP/wrong"
check "a model's state on a page without a model" grep -qF "$w:9:51: step 4: expect: a model's mask, PE, layer or head, but this page has no model" "$E2E_TMP/wrong"
"$ATTEND" demo --plain "$w" >"$E2E_TMP/wrong-out" 2>"$E2E_TMP/wrong-err"
rc=$?
check "--plain fails on them too, with the same messages (rc $rc)" sh -c "[ $rc -eq 1 ] && diff '$E2E_TMP/wrong' '$E2E_TMP/wrong-err' >/dev/null"
check "--plain says the problem without the path (as the projector would)" grep -qF "problem: plan step 3: expect: page causal-mask:3" "$E2E_TMP/wrong-out"
check "--plain goes on after a problem: every step said" grep -qF "step 4/4: matrix-form page 5" "$E2E_TMP/wrong-out"

"$ATTEND" demo --check "$P/expect-bad.json" >/dev/null 2>"$E2E_TMP/bad"
b="$P/expect-bad.json"
check "a bad mask name" grep -qF "$b:4:5: step 1: expect.mask: \"sideways\" is not a mask" "$E2E_TMP/bad"
check "an unknown field" grep -qF "$b:5:5: step 2: expect: unknown field \"colour\"" "$E2E_TMP/bad"
check "a page that is not ID:N" grep -qF "$b:6:5: step 3: expect.page: \"two\" is not LESSON-ID:PAGE" "$E2E_TMP/bad"
check "a layer below 0" grep -qF "$b:7:5: step 4: \"expect.layer\" is -1" "$E2E_TMP/bad"
finish
