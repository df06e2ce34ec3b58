#!/usr/bin/env bash
# check-lessons' guards for the classes of stale prose (issue 25), each failing on a fixture
# with that class and passing on the same pages guarded: a sentence that instructs a state
# key outside an {{if}} on that state (keys/); a sentence whose numbers follow a toggle
# without naming it (numbers/, found by the walk after m); a cited cell the table does not
# show at 80x24 (cited/); good/ holds all three done right. Prints "N passed, N failed".
. "$(dirname "$0")/cli_lib.bash"
F=tests/fixtures/guards
expect 1 'tells the learner to press m, but is not guarded by the state it assumes' -- "$A" check-lessons "$F/keys"
expect 1 '01-keys.json:7:' -- "$A" check-lessons "$F/keys"
expect 1 'after m the numbers of "Row 1 gives key 0 a weight of' -- "$A" check-lessons "$F/numbers"
expect 1 'but not its words: name the state it assumes' -- "$A" check-lessons "$F/numbers"
expect 1 'the prose cites L0.h0.scores(2, 11), but at 80x24 the table shows' -- "$A" check-lessons "$F/cited"
expect 0 '3 pages, 0 problems' -- "$A" check-lessons "$F/good"
# each bad fixture has exactly its own class: one problem
for d in keys numbers cited; do
    expect 1 '1 page, 1 problem' -- "$A" check-lessons "$F/$d"
done
# at a size where the cited column fits, the cell is on screen
expect 0 '0 problems' -- "$A" check-lessons --size 200x60 "$F/cited"
# (the shipped course passes every guard: run_all.sh's check-lessons suite, the one walk of it)
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
