#!/usr/bin/env bash
# test_polish.sh - what course authors found in the player at 80×24 (fixture course
# tests/e2e/fixtures/polish): layers and heads counted from 0 with the total spelled out, a
# footer naming every key a page needs (Q, E, z), prose pages with a sentence filled in, the
# mask actually applied to encoder and cross-attention, decoder rows labelled with the word
# they produce and keys with what is read (<bos> first), long text ended with "…" instead of
# cut, the worked widget showing only what is computed so far, the lesson menu opening at the
# first unseen page, widget focus (z), and a crash restoring the terminal.
. "$(dirname "$0")/harness.bash"
P=$ROOT/tests/e2e/fixtures/polish
NH=$(model_cfg decoder.json n_heads)
NL=$(model_cfg decoder.json n_layers)
TNL=$(model_cfg translate.json n_layers)
TNH=$(model_cfg translate.json n_heads)
# screen_row N: row N (1-based) of the screen
screen_row() { screen | sed -n "${1}p"; }

rm -rf "$XDG_STATE_HOME"
start 80 24 -- --lessons "$P"
# ---- a long lesson title ends in "…", the page count stays visible ----
expect "page 1/3" "header: the page count is shown"
check "header: a long title ends in … instead of being cut" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | head -1 | grep -q 'prose pages with a .*… page 1/3'"
# ---- a prose page with a sentence: placeholders filled in by the engine ----
expect "The sentence has 6 tokens; row 1 puts 0." "prose page with a sentence: {{n}} and {{weight}} are filled in"
check "prose page with a sentence: no raw placeholder" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qF '{{'"
check "prose page without questions: no Q in the footer" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | tail -1 | grep -q 'Q questions'"
keys Space
# ---- numbering from 0, "of" the total ----
expect "page 2/3" "turns to the heatmap page"
expect "layer 0 of $NL  head 0 of $NH" "heatmap: layer and head counted from 0 with the totals"
expect "Layer 0, head 0." "heatmap: {{layer}} and {{head}} agree with the status line"
keys ']'
expect "head 1 of $NH" "heatmap: ] selects head 1"
keys l
expect "layer 1 of $NL" "heatmap: l selects layer 1"
keys a
expect "head $((NH - 1))" "small multiples: the last head is numbered $((NH - 1))"
check "small multiples: no head numbered $NH" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'head $NH\\b'"
keys a
# ---- Q in the footer and the help ----
check "page with questions: the footer names Q" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | tail -2 | grep -q 'Q questions'"
keys '?'
expect "this lesson's questions" "help lists Q"
keys Escape
expect_gone "keys (ESC closes)" "help closes"
# ---- a long page: prose cut, z widget focus ----
keys Space
expect "page 3/3" "turns to the long page"
expect "more below" "long page: the prose is cut and says so"
check "long page: the prose gets at least 8 rows before the widget" sh -c "[ \$(tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -n '──────────' | head -1 | cut -d: -f1) -ge 10 ]"
check "long page: the footer offers z" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | tail -2 | grep -q 'z widget'"
expect "shape passport  layer 0 of $NL  head 0 of $NH" "passport: layer and head counted from 0"
keys z
expect_gone "Line one of a long page" "z: the widget takes the whole body"
expect "shape passport" "z: the widget is still drawn"
check "z: the footer says z brings the prose back" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | tail -2 | grep -q 'z prose'"
keys z
expect "Line one of a long page" "z again: the prose is back"
# ---- encoder-decoder: mask applied, E, row labels ----
keys Space
expect "Fixture polish: encoder-decoder" "turns to the encoder-decoder lesson"
expect "layer 0 of $TNL  head 0 of $TNH  mask:padding" "encoder self-attention: no causal mask shown (the engine applies none)"
check "encoder self-attention: never mask:both" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'mask:both'"
check "edit page of an encoder-decoder: the footer names E" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | tail -2 | grep -q 'E edit decoder'"
check "encoder rows are source words (no decoder note)" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'row = the word being produced'"
keys Space
expect "cross" "turns to cross-attention"
expect "mask:padding" "cross-attention: padding only, as applied"
check "cross-attention: never mask:both or causal" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE 'mask:(both|causal)'"
expect "row = the word being produced" "cross-attention: the note says what a row is"
check "cross-attention: rows are the produced words le chat est assis" sh -c "[ \"\$(tmux -L '$E2E_SOCK' capture-pane -p -t main | awk '\$NF == \"1.00\" { printf \"%s \", \$1 }')\" = 'le chat est assis ' ]"
keys m
expect "causal mask off" "cross-attention: m still toggles the decoder's causal mask"
expect "mask:padding" "cross-attention: the causal toggle does not reach cross-attention"
keys Space
expect "dec.L0.h0.weights" "turns to the decoder self-attention matrix"
expect "0:<bos>" "decoder self-attention: the first key is what position 0 reads, <bos>"
expect "3:est" "decoder self-attention: key 3 reads est (shifted right)"
check "decoder self-attention: rows are the produced words" sh -c "[ \"\$(tmux -L '$E2E_SOCK' capture-pane -p -t main | awk '\$1 ~ /^(le|chat|est|assis)\$/ && NF == 5 { printf \"%s \", \$1 }')\" = 'le chat est assis ' ]"
expect "row = the word being produced" "decoder matrix: the note says what a row is"
# ---- the worked widget only shows what has been computed ----
keys Space
expect "Fixture polish: practice by hand" "turns to the worked lesson"
keys n
expect "t0→t0: q·k = 2×1 = 2.000" "worked step QKᵀ: the cursor cell's dot product"
check "worked step QKᵀ: no weight given away" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE 'weight|÷√1 ='"
keys n
expect "÷√1 = 2.000" "worked step ÷√d_k: the scaled score"
check "worked step ÷√d_k: no weight yet" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE 'weight e|\\+M 0'"
keys n
expect "+M 0 = 2.000" "worked step +M: the mask"
check "worked step +M: no weight yet" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'weight e'"
keys n
expect "weight e^2.000 / " "worked step softmax: now the weight"
# ---- a formula wider than the pane wraps instead of being cut (at 120 columns the widget's
# pane beside the prose is narrower than the PE formula; at 80 columns it fits one line) ----
keys Space
expect "PE[pos,2i]" "matrix: the PE formula"
resize 120 30
wait_for "learned rows" 5
check "matrix: in a narrower pane the PE formula wraps" \
    sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE 'PE.pos,2i. = .*learned rows'"
check "matrix: the formula's last words are on screen, not cut mid-word" \
    sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE 'learned rows *\$'"
resize 80 24
wait_for "PE[pos,2i] = sin" 5
# ---- the lesson menu opens a lesson at its first unseen page ----
keys g
expect "lessons (enter opens" "menu opens"
keys Home Enter
expect "lesson 1/3" "menu: back to lesson 1"
expect "page 1/3" "menu: lesson 1 fully seen opens at its first page"
keys g Down Enter
expect "page 1/3" "menu: lesson 2 opens at page 1 (the first unseen)"
keys Space
keys g Home Enter
expect "lesson 1/3" "menu: lesson 1 again"
keys q
expect_exit 0 "quits"
# A fresh start: pages 1 and 2 of lesson 2 seen, then lesson 1 via the menu, then lesson 2
# again via the menu opens at its first unseen page, 3/3.
rm -rf "$XDG_STATE_HOME"
start 80 24 -- --lessons "$P"
expect "page 1/3" "fresh start"
keys g Down Enter
expect "Fixture polish: encoder-decoder" "menu: lesson 2"
expect "page 1/3" "menu: lesson 2 opens at its first page (nothing seen)"
keys Space
expect "page 2/3" "lesson 2 page 2"
keys g Home Enter
expect "page 2/3" "menu: lesson 1 opens at its first unseen page, 2/3"
keys g Down Enter
expect "Fixture polish: encoder-decoder" "menu: lesson 2 again"
expect "page 3/3" "menu: lesson 2 opens at its first unseen page, 3/3"
keys q
expect_exit 0 "quits after the menu checks"

# ---- a crash restores the terminal and dies of the same signal ----
for sig in segv:139 abort:134; do
    name=${sig%:*}
    rc=${sig#*:}
    start 80 24 ATTEND_CRASH_TEST=$name -- --lessons "$P"
    expect_exit "$rc" "crash ($name): the process dies of the signal with the terminal restored"
    check "crash ($name): the message is printed after the terminal is restored" grep -q "terminal restored" "$E2E_TMP/stderr"
done
finish
