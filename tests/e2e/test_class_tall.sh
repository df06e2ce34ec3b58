#!/usr/bin/env bash
# test_class_tall.sh - the projector at 80x24 with a tall grid (a 13-token cell question):
# the room's count, the distribution, the answer and the scores line all stay on the screen
# (the grid gives up rows, the per-choice bars compact), on the loopback (127.0.0.1 only).
# Every wait is for a condition, bounded.
. "$(dirname "$0")/class_harness.bash"

LESSONS=$ROOT/tests/e2e/fixtures/class-tall
OUT=$E2E_TMP/student
QUIZ=(--seed 1 --lessons "$LESSONS")

class_key "${QUIZ[@]}"
key=$KEY
col=$(sed -n 's/^   Answer: column \([0-9]*\).*/\1/p' <<<"$key")
check "the fixture: a cell question on 13 tokens (answer column $col)" test -n "$col"
a2=$(sed -n 's/^   Answer: \([0-9]\) (.*/\1/p' <<<"$key")
letter=$(printf "\\x$(printf %x $((96 + a2)))")
check "the fixture: then a choice of 8 (answer $letter)" test -n "$a2"

# below TEXT1 TEXT2: 0 when both are on the screen, TEXT2 below TEXT1
below() {
    screen | awk -v a="$1" -v b="$2" 'index($0, a) { fa = NR } index($0, b) && fa { ok = 1 } END { exit !ok }'
}
for size in "80 24" "100 30"; do
    set -- $size
    check "$1x$2: the projector shows how to join" projector_room "$1" "$2" "${QUIZ[@]}"
    port=$PORT code=$CODE
    : >"$OUT"
    printf '%s\n' "$col" "$letter" | "$ATTEND" class join "127.0.0.1:$port" "$code" --name ana >>"$OUT" 2>&1 &
    spid=$!
    expect "answered 1 of 1 student" "$1x$2: the count is on the screen below the grid"
    keys r
    expect "right 1, wrong 0" "$1x$2: r closes: the distribution is on the screen"
    keys r
    expect "Scores: 1 of 1: 1 student" "$1x$2: r reveals: the scores line is on the screen"
    check "$1x$2: the answer, then the scores below it" below "Answer: column $col" "Scores:"
    check "$1x$2: the grid's header row is still shown" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'the .*cat .*sat'"
    keys n
    expect "question 2 of 2" "$1x$2: question 2, eight choices"
    expect "answered 1 of 1 student" "$1x$2: question 2: the count is on the screen"
    keys r
    check "$1x$2: r closes: every choice's count is on the screen (bars compacted when rows are few)" wait_re "h\) +0"
    [ "$1" = 80 ] && screen >"$E2E_TMP/closed80"
    check "$1x$2: the right choice counts the one answer" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE '$letter\) [█#]+ 1'"
    keys r
    expect "Scores: 2 of 2: 1 student" "$1x$2: question 2 revealed: the scores line is on the screen"
    check "$1x$2: the answer, then the scores below it" below "Answer: $letter)" "Scores:"
    check "$1x$2: the explanation whole, between the answer and the scores" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | tr -s ' \n' '  ' | grep -qE 'Answer: $letter\) .* A causal row keeps every key up to and including its own position: 0 to 5, six keys\. +Scores:'"
    check "$1x$2: how to join is still on the screen" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qF 'attend class join 127.0.0.1:$port $code'"
    [ "$1" = 80 ] && screen >"$E2E_TMP/revealed80"
    keys n
    expect "The end: 2 questions, 1 student." "$1x$2: the end"
    keys q
    expect_exit 0 "$1x$2: q ends the room"
    wait "$spid" 2>/dev/null
done
[ -n "${SHOW:-}" ] && cat "$E2E_TMP/closed80" "$E2E_TMP/revealed80"
finish
