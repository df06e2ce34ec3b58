#!/usr/bin/env bash
# test_course.sh - the shipped course (lessons/) in the player: every page of every lesson
# opens at 80×24 and at 200×60 without an unresolved placeholder ("[?...]") or an engine
# error, paging reaches the end of the course, and the lesson menu lists every lesson.
. "$(dirname "$0")/harness.bash"

n_lessons=$(ls "$ROOT"/lessons/[0-9]*.json 2>/dev/null | wc -l)
if [ "$n_lessons" -eq 0 ]; then
    fail "no lessons in lessons/"
    finish
fi

for size in 80x24 200x60; do
    W=${size%x*}
    H=${size#*x}
    rm -rf "$XDG_STATE_HOME"
    start "$W" "$H" -- --lessons "$ROOT/lessons"
    expect "lesson 1/$n_lessons" "$size: the course opens at lesson 1 of $n_lessons"
    pages=0
    for i in $(seq 1 200); do
        scr=$(screen)
        if echo "$scr" | grep -qF "[?"; then
            fail "$size: unresolved placeholder on: $(echo "$scr" | head -1)"
        fi
        if echo "$scr" | grep -qE "nothing to show|not in the trace|did not load"; then
            fail "$size: widget error on: $(echo "$scr" | head -1)"
        fi
        pages=$((pages + 1))
        before=$(echo "$scr" | head -1)
        keys Space
        if wait_for "end of the course" 0.3; then
            break
        fi
        # wait for the header to change
        j=0
        while [ "$(screen | head -1)" = "$before" ] && [ $j -lt "$(deadline_polls 2)" ]; do sleep 0.05; j=$((j + 1)); done
    done
    expect "end of the course" "$size: paging reaches the end of the course ($pages pages)"
    expect "lesson $n_lessons/$n_lessons" "$size: the last lesson is $n_lessons/$n_lessons"
    keys g
    expect "lessons (enter opens" "$size: the menu opens"
    # every lesson row the menu shows is ticked; a screen too short for all of them scrolls
    # the list (80x24 holds 18 rows), so it shows all n_lessons or fills its box
    shown=$(screen | grep -cE '│ *. *[0-9]+\. ')
    ticked=$(screen | grep -cE '│ *✓ *[0-9]+\. ')
    check "$size: every lesson is marked completed ($ticked of the $shown shown, $n_lessons in all)" \
        eval '[ "$ticked" = "$shown" ] && { [ "$shown" = "$n_lessons" ] || [ "$shown" -ge 15 ]; }'
    keys Escape q
    expect_exit 0 "$size: quits"
done

# ---- the lesson menu: columns by display width (the "N²" and "–" titles), UTF-8 and
# LANG=C; with --lesson ID it still opens the lesson chosen ----
menu_columns() { # prints a problem when the "seen" column is not one column on every row
    screen | /usr/bin/python3 -c '
import re, sys
cols = {m.start() for m in (re.search(r"[0-9]+/[0-9]+ seen", l) for l in sys.stdin.read().split("\n")) if m}
if len(cols) != 1: print("status column at", sorted(cols))'
}
for loc in C.UTF-8 C; do
    start 80 24 "LANG=$loc" "LC_ALL=$loc" -- --lessons "$ROOT/lessons" --lesson why-attention
    expect "lesson 1/$n_lessons" "menu $loc: --lesson opens the lesson"
    keys g
    expect "lessons (enter opens" "menu $loc: g opens the menu"
    out=$(menu_columns)
    check "menu $loc: every row's status starts in one column ($out)" test -z "$out"
    n2=$(grep -l '"title": *"[^"]*N²' lessons/*.json | head -1)
    n2=$(basename "$n2"); n2=${n2%%-*}; n2=$((10#$n2))
    for _ in $(seq 2 "$n2"); do keys j; done
    keys Enter
    expect "lesson $n2/$n_lessons" "menu $loc: with --lesson, enter opens the lesson chosen ($n2)"
    keys q
    expect_exit 0 "menu $loc: quits"
done
# ---- G in the player: go to a page of this lesson, or lesson-id:page of another ----
start 80 24 -- --lessons "$ROOT/lessons" --lesson why-attention
expect "lesson 1/$n_lessons" "G: the player opens"
keys G
expect "go to page" "G opens the go-to-page prompt"
literal "3"
keys Enter
expect "page 3/" "G 3 enter: page 3 of this lesson"
keys G
literal "causal-mask:2"
keys Enter
expect "The causal mask" "G causal-mask:2 opens that lesson"
expect "page 2/" "G causal-mask:2: its page 2"
keys G
literal "99"
keys Enter
expect 'no page "99"' "G 99: says there is no such page"
keys G Escape
expect_gone "go to page" "ESC closes the prompt"
keys q
expect_exit 0 "G: quits"
# ---- the shape passport of layer 1 starts from layer 0's output, not X + PE ----
start 80 24 -- --lessons "$ROOT/lessons" --lesson transformer-block --page 7
expect "shape passport  layer 0 of" "passport: lesson 13's whole block, layer 0"
expect "X = E[token]" "passport: layer 0 starts from X"
keys l
expect "shape passport  layer 1 of" "passport: l shows layer 1"
expect "step 1/" "passport: layer 1, step 1"
check "passport: layer 1's first step is L0 out, layer 0's output, not X" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'step 1/[0-9]*: L0 out' && ! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qF 'X = E[token]'"
keys q
expect_exit 0 "passport: quits"
finish
