#!/usr/bin/env bash
# test_plan_expect.sh - a plan is a sequence of Session steps, run without a terminal
# (attend demo --plain: src/session/session_plan.c, the runner the presenter uses too), each
# step declaring the state it expects ("expect": page, mask, pe, layer, head, sentence, order,
# knocked_out, scores, all_heads, the explanation widgets' settings, focus):
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
check "a bad mask name, at its field" grep -qxF "$b:4:51: step 1: expect.mask: \"sideways\" is not a mask (none, causal, padding, both)" "$E2E_TMP/bad"
check "an unknown field, at its field" grep -qF "$b:5:30: step 2: expect.colour: unknown field (page," "$E2E_TMP/bad"
check "a page that is not ID:N" grep -qF "$b:6:30: step 3: expect.page: \"two\" is not LESSON-ID:PAGE" "$E2E_TMP/bad"
check "a layer below 0" grep -qF "$b:7:30: step 4: expect.layer: must be a whole number 0..1000" "$E2E_TMP/bad"

# the rest of the state a step can change: order, knock-outs, the view, the explanation
# widgets' settings, the focused pane; every problem of one "expect" at once
m="$P/expect-more.json"
"$ATTEND" demo --check "$m" >/dev/null 2>"$E2E_TMP/more"
rc=$?
check "--check fails on them (rc $rc)" test "$rc" -eq 1
check "the order after a swap" grep -qxF "$m:6:17: step 2: expect: the order 0 1 2 3, but the screen has 1 0 2 3" "$E2E_TMP/more"
check "the focused pane (z), headless too" grep -qxF "$m:6:40: step 2: expect: focus on, but the screen has off" "$E2E_TMP/more"
check "the heads knocked out" grep -qxF "$m:9:17: step 4: expect: knocked out none, but the screen has layer 0 head 0" "$E2E_TMP/more"
check "scores or weights" grep -qxF "$m:9:56: step 4: expect: scores on, but the screen has off" "$E2E_TMP/more"
check "an explanation widget's setting (d_k)" grep -qxF "$m:12:17: step 6: expect: d_k 64, but the screen has 128" "$E2E_TMP/more"
check "a setting the page's widget does not have" grep -qxF "$m:12:28: step 6: expect: seed, but this page's widget (scaling) has no such setting" "$E2E_TMP/more"
check "three problems of one expect, each at its field" sh -c "grep -c '^$m:1[34]:[0-9]*: step 7: expect\.' '$E2E_TMP/more' | grep -qx 3"
check "9 problems in all, at once" test "$(wc -l <"$E2E_TMP/more")" -eq 9
"$ATTEND" demo --plain "$m" >"$E2E_TMP/more-out" 2>/dev/null
check "--plain says the order and knock-outs it left" grep -qF ', order 1 0 2 3' "$E2E_TMP/more-out"
check "--plain says each of a step's problems without the path" sh -c "grep -c '^  problem: plan step 2: expect: ' '$E2E_TMP/more-out' | grep -qx 2"
check "--plain says an explanation widget's settings" grep -qF 'now: page scaling:1, scale off, d_k 128' "$E2E_TMP/more-out"
printf '{"steps": [\n  {"open": "causal-mask", "page": 1,\n   "caption": "%s"}\n]}\n' "$(printf 'x%.0s' $(seq 1 79))" >"$E2E_TMP/long.json"
out=$("$ATTEND" demo --check "$E2E_TMP/long.json" 2>&1)
check "a caption wider than the caption row at 80x24 is a problem ($out)" grep -qF "long.json:2:3: step 1: \"caption\" is 79 columns: the caption row shows 78 at 80x24" <<<"$out"
finish
