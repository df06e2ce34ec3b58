#!/bin/bash
# lab_mistakes.sh - every misconception of the catalogue in every lab where it applies (`attend
# lab mistakes` lists them) has a wrong solution in tests/labs/wrong (its first line names the
# diagnosis); each fails (exit 1) with that diagnosis and no other; two mistakes at once
# (tests/labs/combo) are both named. Prints how many are named.
# suite: slow (about 90 checks of the learner's code): in make test, not in make check
source "$(dirname "$0")/cli_lib.bash"
export XDG_STATE_HOME="$tmp/state" HOME="$tmp/home"
mkdir -p "$HOME"
if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    echo "lab_mistakes: /usr/bin/python3 with numpy is needed (apt-get install python3-numpy)"
    echo "0 passed, 1 failed"; exit 1
fi
L=tests/labs
ids() { sed -n '1s/.*diagnos[a-z]* \(\("[a-z0-9-]*" *\)*\).*/\1/p' "$1" | tr -d '"'; }

# the catalogue, lab by lab: a wrong solution for each row that applies
list=$("$A" lab mistakes) || bad "attend lab mistakes failed"
n_rows=0
while read -r lab id _; do
    n_rows=$((n_rows + 1))
    found=
    for f in $L/wrong/$lab-*.py; do
        [ "$(ids "$f")" = "$id" ] && found=$f
    done
    [ -n "$found" ] && ok || bad "no wrong solution of lab $lab names \"$id\""
done <<<"$list"

# each fails with its names, and only those
named=0 total=0
for f in $L/wrong/*.py $L/combo/*.py; do
    n=$(basename "$f" .py); lab=${n%%-*}
    want=$(ids "$f" | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
    out=$("$A" lab check "$lab" "$f" --no-torch --timeout 30 2>&1); rc=$?
    got=$(grep -o '^Diagnosis ([a-z0-9-]*)' <<<"$out" | sed 's/Diagnosis (\(.*\))/\1/' | sort | tr '\n' ' ')
    total=$((total + 1))
    if [ $rc -eq 1 ] && [ -n "$want" ] && [ "$got" = "$want" ]; then
        ok; named=$((named + 1))
    else
        bad "$n: exit $rc, named [${got}], want [${want}]"
    fi
done
# the PyTorch step when torch is there (the attention lab; moved here from labs.sh: importing
# torch is ~2 s of CPU)
if /usr/bin/python3 tests/ref/py_has.py torch 2>/dev/null; then
    expect 0 "agrees with yours" -- "$A" lab check attention data/labs/solutions/attention.py
fi
echo "lab_mistakes: $n_rows rows of the catalogue apply across the labs; $named of $total wrong solutions named right"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
