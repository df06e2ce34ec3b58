#!/usr/bin/env bash
# test_truth.sh - what a page says stays true after the keys it offers: a matrix page whose
# tensor a PE switch removes explains why (not "no tensor"), the PE table's rows are
# positions (PE depends on the position only), and the KV-cache line counts "1 row".
. "$(dirname "$0")/harness.bash"

start 80 24 -- --lessons "$ROOT/lessons" --lesson positional-encoding
expect "page 1/" "positional-encoding opens"
keys Space Space
expect "The sinusoidal table" "page 3: the sinusoidal table"
expect "pos 0" "the PE table's rows are positions, not tokens"
check "no token labels the PE table" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE '^ *(the|cat|sat) +-?[0-9]'"
keys Space Space
expect "Learned positions" "page 5: learned positions"
keys p
expect "PE is rope: nothing is added" "p to rope: the missing pe tensor is explained as a rotation"
check "no bare 'no tensor' message" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'no tensor'"
keys p
expect "PE is none: nothing is added" "p to none: explained"
keys p
expect "pos 0" "back on sinusoidal: the table again"
keys q
expect_exit 0 "quits"

start 80 24 -- --lessons "$ROOT/lessons" --lesson kv-cache
expect "page 1/" "kv-cache opens"
keys Space Space
expect "cache: 2 (K,V)" "page 3: the cache line"
for i in 1 2 3 4 5 6; do keys N; done
expect "× 1 row ×" "one token: '1 row', not '1 rows'"
keys n
expect "× 2 rows ×" "two tokens: '2 rows'"
keys q
expect_exit 0 "quits"
finish
