#!/usr/bin/env bash
# test_walk.sh - what the course's first learner saw on a terminal too small (session 10's walk):
# "need 80×24" over "now 60x20" mixed the two spellings of the size; both lines spell it the
# same way now, × in UTF-8 and x in ASCII (LANG=C).
. "$(dirname "$0")/harness.bash"

start 80 24 -- --lesson causal-mask
wait_for "page 1/" 5
resize 60 20
expect "now 60×20" "too small, UTF-8: 'now 60×20' as 'need 80×24'"
check "no 'now 60x20' beside 'need 80×24'" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'now 60x20'"
resize 80 24
expect "page 1/" "back at 80x24: the page again"
keys q
expect_exit 0 "quits"

start 80 24 LANG=C LC_ALL=C -- --lesson causal-mask
wait_for "page 1/" 5
resize 60 20
expect "now 60x20" "too small, ASCII: 'now 60x20'"
expect "need 80x24" "and 'need 80x24'"
resize 80 24
expect "page 1/" "back at 80x24"
keys q
expect_exit 0 "quits"
finish
