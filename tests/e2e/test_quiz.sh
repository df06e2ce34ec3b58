#!/usr/bin/env bash
# test_quiz.sh - the quiz end to end in tmux on a two-question fixture: a bad answer gets a
# message and another try, one question answered right (✓) and one wrong (✗ with the
# expected answer beside the given one), the score in the progress and the lesson menu,
# --review bringing the missed question back (and nothing once it is answered), the
# player's Q key, ASCII glyphs, no terminal, and the teacher's answer key.
. "$(dirname "$0")/harness.bash"
QFIX=$ROOT/tests/e2e/fixtures/quiz
PROGRESS=$XDG_STATE_HOME/attend/progress.json

rm -rf "$XDG_STATE_HOME"
# the choices are shown in the seed's order: the right one and a wrong one from the key
right=$("$ATTEND" quiz --answers --seed 11 --lessons "$QFIX" | sed -n 's/^   Answer: \([0-9]\) (Exactly one)$/\1/p')
wrong1=$("$ATTEND" quiz --answers --seed 1 --lessons "$QFIX" | sed -n 's/^   Answer: \([0-9]\) (Exactly one)$/\1/p')
wrong1=$(( wrong1 % 3 + 1 ))
check "the key names the right choice ($right)" test -n "$right"
start 80 24 -- quiz --lessons "$QFIX" --seed 11
expect "quiz: Quiz fixture" "the quiz opens with the lesson's title"
expect "question 1/2  seed 11" "the header counts questions and shows the seed"
expect "What does every row of attention weights add up to?" "first question"
# the right answer by construction: "Exactly one", where the seed put it
literal "$right"
keys Enter
expect "✓ Right: choice $right." "a right answer gets ✓"
expect "Expected: $right (Exactly one)" "the expected answer is shown"
keys Enter
expect "question 2/2" "next question"
# a bad answer: a message and another try, not a verdict
literal "6x"
keys Enter
expect "is not a shape such as 6x64" "a malformed shape gets a clear message"
expect "enter check" "still asking after a malformed answer"
# the footer is the key table's (KM_QUIZ in the stage's mode), drawn as the player's is
"$ATTEND" --keys >"$E2E_TMP/keys.txt"
foot() { # the footer row's text, and every hint on it checked against the table
    tm capture-pane -e -p -t main >"$E2E_TMP/foot-$1.txt"
    /usr/bin/python3 "$ROOT/tests/e2e/keys_check.py" "$E2E_TMP/keys.txt" footer "$E2E_TMP/foot-$1.txt" >/dev/null
}
check "asking: the footer's hints are the key table's" foot ask
check "asking: the footer lists the asking keys in the table's order" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | tail -1 | grep -q '^ enter check  ? hint  tab skip  esc quit'"
keys C-u
literal "6x6x1"
keys Enter
expect "has 3 sizes; this one has 2" "a shape of the wrong rank gets a message"
keys C-u
# wrong on purpose: 6 tokens give a 6x6 score matrix, not 6x8
literal "6x8"
keys Enter
expect "✗ 6x8 is not the shape." "a wrong answer gets ✗"
expect "r retry" "retry is offered"
check "after a wrong answer: the footer's hints are the key table's" foot wrong
check "after a wrong answer: its keys" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | tail -1 | grep -q '^ r retry  ? hint  enter show the answer  tab skip  q quit'"
keys "?"
expect "Hint 1: Give 2 sizes" "a hint on request"
expect "hints used: 1" "hints are counted"
keys Enter
expect "Expected: 6×6    Yours: 6x8" "the explanation puts the expected answer beside the given one"
keys Enter
expect "Done: 1 of 2 right at the first try" "the summary counts first tries"
keys Enter
expect_exit 0 "attend quiz exits 0"
check "the score is saved in the progress" grep -q '"asked":[[:space:]]*2' "$PROGRESS"
check "the missed question is in box 1" grep -q '"e2e/shape"' "$PROGRESS"

# the review brings the missed question back, and only it
start 80 24 -- quiz --lessons "$QFIX" --review
expect "quiz: review" "--review opens the review"
expect "question 1/1" "one question is due"
expect "shape of one head's score matrix" "the missed question is back"
literal "(6, 6)"
keys Enter
expect "✓ Right." "answered right this time"
keys Enter Enter
expect_exit 0 "the review exits 0"
out=$(cd "$ROOT" && script -qc "env XDG_STATE_HOME='$XDG_STATE_HOME' '$ATTEND' quiz --lessons '$QFIX' --review" /dev/null </dev/null 2>&1)
if echo "$out" | grep -q "Nothing is due for review. 2 questions are scheduled"; then ok "nothing due after the review"; else
    E2E_FAIL=$((E2E_FAIL + 1)); echo "FAIL - nothing due after the review: $out"; fi

# the lesson menu of the player shows the score; Q opens the lesson's questions
start 80 24 -- --lessons "$QFIX"
expect "lesson 1/1: Quiz fixture" "the player opens"
keys g
expect "quiz 1/2" "the lesson menu shows the quiz score"
keys Escape
keys Q
expect "question 1/2" "Q opens the lesson's questions from a page"
keys Escape
expect "quiz: 0 of 0 right" "back on the page with a summary"
keys q
expect_exit 0 "the player exits 0"

# ASCII glyphs
start 80 24 -- quiz --lessons "$QFIX" --seed 1 --ascii
expect "question 1/2" "ASCII mode opens"
literal "$wrong1"
keys Enter
expect "[x] Choice $wrong1 is not right." "ASCII mode writes [x] for a wrong answer"
keys Escape
expect_exit 0 "esc after a verdict quits"

# no terminal: a clear message, not a broken screen
out=$("$ATTEND" quiz --lessons "$QFIX" </dev/null 2>&1)
rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -q "needs a terminal" && echo "$out" | grep -q -- "--answers --seed"; then
    ok "without a terminal: a message naming --answers (rc 1)"
else
    E2E_FAIL=$((E2E_FAIL + 1)); echo "FAIL - without a terminal: rc=$rc $out"
fi

# the teacher's key: no terminal needed, the same for one seed, different across seeds
UFIX=$ROOT/tests/fixtures/quiz
k1=$("$ATTEND" quiz --answers --seed 5 --lessons "$UFIX" </dev/null)
k2=$("$ATTEND" quiz --answers --seed 5 --lessons "$UFIX" </dev/null)
k3=$("$ATTEND" quiz --answers --seed 6 --lessons "$UFIX" </dev/null)
check "--answers prints a key without a terminal" test -n "$k1"
check "--answers: one seed, one key" test "$k1" = "$k2"
check "--answers: another seed, other drills" test "$k1" != "$k3"
check "--answers lists the answers" sh -c "echo \"\$1\" | grep -q 'Answer: 6×[0-9]'" _ "$k1"
out=$("$ATTEND" quiz --answers --lessons "$UFIX" 2>&1)
if [ $? -eq 2 ] && echo "$out" | grep -q "needs --seed"; then ok "--answers without --seed is a usage error"; else
    E2E_FAIL=$((E2E_FAIL + 1)); echo "FAIL - --answers without --seed: $out"; fi
# the shipped course: the key leaves no question out
key=$(cd "$ROOT" && "$ATTEND" quiz --answers --seed 1 </dev/null 2>&1)
if [ $? -eq 0 ] && ! echo "$key" | grep -q "could not be built"; then ok "the shipped course's key leaves nothing out"; else
    E2E_FAIL=$((E2E_FAIL + 1)); echo "FAIL - shipped course: $(echo "$key" | grep 'could not be built')"; fi

# a cell question on an 11-token sentence fits 80 columns: the last key column is on screen
# and the cursor reaches it; the setup line names the sentence and the head from 0
XFIX=$ROOT/tests/fixtures/quiz-explain
start 80 24 -- quiz --lessons "$XFIX" --seed 1
expect "question 1/21" "the explanation-widget fixture opens"
for i in $(seq 1 19); do keys Tab; done
expect "explain/long-cell" "the 11-token cell question"
expect "layer 0 of 2, head 0 of 4" "the setup line counts layer and head from 0"
row=$(screen | grep -E '^ *>\. ')
cells=$(echo "$row" | grep -oE '[0-9]*\.[0-9]+' | wc -l)
if [ "$cells" -eq 11 ]; then ok "the question's row shows all 11 weights at 80 columns"; else
    E2E_FAIL=$((E2E_FAIL + 1)); echo "FAIL - the row shows $cells of 11 weights: $row"; fi
for i in $(seq 1 10); do keys Right; done
wait_for "]" 2
row=$(screen | grep -E '^ *>\. ')
if echo "$row" | grep -qE '\[ *[0-9]*\.[0-9]+\] *$'; then ok "the cursor reaches the 11th column, the last on screen"; else
    E2E_FAIL=$((E2E_FAIL + 1)); echo "FAIL - cursor on the last column: $row"; fi
keys Enter Enter
expect "Yours: 10" "Enter answers the cursor's column 10"
keys Escape
expect_exit 0 "esc leaves the quiz"

# a 16-token cell question at 80x24: the window line counts rows and columns from 0 out of
# their total ("rows 9–15 of 16"), never "of 0-15"; ASCII mode writes a plain hyphen
start 80 24 -- quiz --lessons "$XFIX" --seed 1
expect "question 1/21" "the explanation-widget fixture opens again"
for i in $(seq 1 20); do keys Tab; done
expect "explain/wide-cell" "the 16-token cell question"
wait_for " shown" 2
check "the window line: rows a–15 of 16, columns 0–b of 16 shown" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE 'rows [0-9]+–15 of 16, columns 0–[0-9]+ of 16 shown \\(←/→ scroll\\)'"
check "no 'of 0-15' in the window line" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE 'of 0[-–]'"
keys Escape
expect_exit 0 "esc leaves the quiz"
start 80 24 -- quiz --lessons "$XFIX" --seed 1 --ascii
expect "question 1/21" "ASCII: the fixture opens"
for i in $(seq 1 20); do keys Tab; done
expect "explain/wide-cell" "ASCII: the 16-token cell question"
wait_for " shown" 2
check "ASCII window line: rows a-15 of 16, columns 0-b of 16" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE 'rows [0-9]+-15 of 16, columns 0-[0-9]+ of 16 shown \\(<-/-> scroll\\)'"
keys Escape
expect_exit 0 "ASCII: esc leaves the quiz"

# the Setup line names the mask applied where the question reads (translate.json: no causal
# mask on cross-attention), and the expected answer has the question's precision, the same
# on the screen as in the teacher's key
SFIX=$ROOT/tests/fixtures/quiz-setup
skey=$("$ATTEND" quiz --answers --seed 3 --lessons "$SFIX" </dev/null)
want=$(echo "$skey" | grep -A6 -F '[setup/prec-2]' | sed -n 's/^ *Answer: \([0-9.]*\) (within 0.005)$/\1/p')
check "--answers: a .2 answer has two decimals ($want)" sh -c "echo '$want' | grep -qxE '[0-9]+\.[0-9]{2}'"
check "--answers: the configuration's name quoted" sh -c "echo \"\$1\" | grep -qF 'Setup: Configuration: \"the exercise\" (d_model 2560'" _ "$skey"
start 80 24 -- quiz --lessons "$SFIX" --seed 3
expect "question 1/14" "the setup fixture opens"
keys Tab
expect "setup/cross-cell" "the cross-attention question"
check "cross-attention Setup: mask none, not causal" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | tr '\n' ' ' | tr -s ' ' | grep -qF 'mask none; PE learned; cross-attention'"
keys Tab Tab Tab
expect "setup/prec-2" "the two-decimal question"
literal "0.9"
keys Enter
expect "is not right" "a wrong answer"
keys Enter
expect "Expected: $want    Yours: 0.9" "the screen shows the key's two-decimal answer"
keys Escape
expect_exit 0 "esc leaves the quiz"

# check-lessons: a question's state key that does nothing on the page's widget kind
out=$("$ATTEND" check-lessons "$ROOT/tests/fixtures/quiz-broken" 2>&1)
rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -qE '01-state-keys\.json:[0-9]+:[0-9]+: pages\[0\]\.questions\[0\]\.state\.d_k: state key "d_k" does nothing for a question on a heatmap page'; then
    ok "check-lessons reports a state key that does nothing, at file:line:col"
else
    E2E_FAIL=$((E2E_FAIL + 1)); echo "FAIL - check-lessons state keys: rc=$rc $out"
fi
# masked cells of a cell question's weights are the player's "·" ("x" in ASCII), never 0.00:
# in the teacher's key (UTF-8 and LANG=C) and on the quiz screen (the causal strongest-key)
causal_grid() { # reads "Weights ..." then the grid; prints "ok" when j > i is masked, j <= i a number
    /usr/bin/python3 -c '
import re, sys
g, lines, on = sys.argv[1], sys.stdin.read().split("\n"), False
rows = []
for l in lines:
    if "strongest-key" in l: on = True
    if on and re.search(r"[0-9]\.[0-9][0-9]|" + re.escape(g), l) and not "Answer" in l:
        cells = re.findall(r"[0-9]+\.[0-9]+|" + re.escape(g), l)
        if len(cells) >= 5: rows.append(cells[-6:])
    if len(rows) == 6: break
bad = [f"row {i} col {j} {c}" for i, r in enumerate(rows) for j, c in enumerate(r)
       if (j > i) != (c == g)]
print("ok" if len(rows) == 6 and not bad else f"{len(rows)} rows; " + " ".join(bad[:4]))' "$1"
}
key=$(cd "$ROOT" && "$ATTEND" quiz --answers --seed 3 --lesson reading-heatmaps </dev/null 2>&1)
out=$(echo "$key" | sed -n '/strongest-key/,/Why:/p' | causal_grid "·")
check "--answers: the causal cell question's weights show masked cells as · ($out)" test "$out" = ok
key=$(cd "$ROOT" && LANG=C LC_ALL=C "$ATTEND" quiz --answers --seed 3 --lesson reading-heatmaps </dev/null 2>&1)
out=$(echo "$key" | sed -n '/strongest-key/,/Why:/p' | causal_grid "x")
check "--answers in LANG=C: masked cells are x, the player's ASCII glyph ($out)" test "$out" = ok
for loc in C.UTF-8 C; do
    g="·"; [ "$loc" = C ] && g=x
    start 80 24 "LANG=$loc" "LC_ALL=$loc" -- quiz --lessons "$ROOT/lessons" --lesson reading-heatmaps --seed 3
    expect "question 1/" "quiz $loc: the reading-heatmaps quiz opens"
    for i in 1 2 3 4 5 6; do wait_for "strongest-key" 0.3 && break; keys Tab; done
    expect "strongest-key" "quiz $loc: the causal cell question"
    out=$(screen | causal_grid "$g")
    check "quiz $loc: masked cells show $g, not 0.00 ($out)" test "$out" = ok
    keys Escape
    expect_exit 0 "quiz $loc: esc leaves"
done

# r (retry) after a wrong answer starts from an empty field: the new answer is not appended
rm -rf "$XDG_STATE_HOME"
start 80 24 -- quiz --lessons "$QFIX" --seed 11
expect "question 1/2" "retry: the quiz opens"
keys Tab
expect "question 2/2" "retry: the shape question"
literal "6x8"
keys Enter
expect "✗ 6x8 is not the shape." "retry: a wrong answer"
keys r
expect_gone "✗ 6x8 is not the shape." "retry: r clears the verdict"
literal "6x6"
keys Enter
expect "✓" "retry: the new answer alone is judged (right), not 6x86x6"
keys Escape
expect_exit 0 "retry: esc leaves"
# choice hints say why: the plain quiz through a pipe, the teacher's key, check-lessons
why_check() { # name, status (0: ok), what to print on failure
    if [ "$2" -eq 0 ]; then ok "$1"; else E2E_FAIL=$((E2E_FAIL + 1)); echo "FAIL - $1: $3"; fi
}
out=$(printf 'quiz\n?\n?\nq\nq\n' | "$ATTEND" --plain --lessons "$ROOT/tests/fixtures/quiz" --lesson kinds 2>&1)
rc=$?
# the hint names a ruled-out choice by its shown number (the order is the seed's): that number
# must show that choice, and the hint must give that choice's own why
hint=$(echo "$out" | grep '^Hint 2: ')
ntok=$(echo "$out" | sed -n 's/^The sentence has \([0-9]*\) tokens\.$/\1/p' | head -1)
n=$(echo "$hint" | sed -n 's/^Hint 2: It is not choice \([0-9]\) (\(.*\)): .*/\1/p')
c=$(echo "$hint" | sed -n 's/^Hint 2: It is not choice \([0-9]\) (\(.*\)): .*/\2/p')
case "$c" in
    softmax) want="softmax is applied to each of the $ntok rows; it is not a matrix." ;;
    √d_k) want="√d_k is one number: the scale of the scores." ;;
    *) want="(a wrong choice)" ;;
esac
echo "$out" | grep -qxF "$n) $c" && [ "$hint" = "Hint 2: It is not choice $n ($c): $want" ]
why_check "plain quiz: a hint on a choice question says why the ruled-out choice is wrong" \
    $(( rc != 0 || $? != 0 )) "rc=$rc $(echo "$out" | grep -E '^(Hint|[0-9]\))')"
key=$("$ATTEND" quiz --answers --seed 3 --lessons "$ROOT/tests/fixtures/quiz" --lesson kinds 2>&1)
echo "$key" | grep -A1 -E '^ +[0-9]\) softmax$' | \
    grep -qE '^ +Why not: softmax is applied to each of the [0-9]+ rows; it is not a matrix\.$'
why_check "the teacher's key prints each wrong choice's why under it, placeholders computed" $? \
    "$(echo "$key" | grep -A1 -E '^ +[0-9]\) ')"
echo "$key" | grep -A1 -E '^ +[0-9]\) QKᵀ$' | tail -1 | grep -q 'Why not'
why_check "the right choice has no why" $(( ! $? )) "$(echo "$key" | grep -A1 'QKᵀ')"
out=$("$ATTEND" check-lessons "$ROOT/tests/fixtures/quiz-why" 2>&1)
rc=$?
echo "$out" | grep -qE '01-why\.json:18:44: pages\[0\]\.questions\[2\]\.why\[1\]: choice 1 is the answer: its entry must be null' &&
    echo "$out" | grep -qE '01-why\.json:15:17: pages\[0\]\.questions\[1\]\.why: 2 entries for 3 choices' &&
    echo "$out" | grep -qE '02-why-placeholder\.json:15:31: pages\[0\]\.questions\[1\]\.why\[0\]: \{\{wieght 1 2\}\}: unknown placeholder'
why_check "check-lessons reports a broken why at file:line:col" $(( rc != 1 || $? != 0 )) "rc=$rc $out"
finish
