#!/usr/bin/env bash
# The shipped induction model (data/induction.json) from the outside: tests/ref/induction_check.py
# computes the induction score from `attend dump --format json` weights on fresh random
# repeated sequences of unseen lengths, finds a layer-1 head >= 0.4, and checks that knocking
# it out (`dump --ablate`) raises the second-copy loss; `attend heads` must agree.
# Prints "N passed, N failed".
PY=/usr/bin/python3
ATTEND=${ATTEND:-./attend}
if [ ! -x "$PY" ]; then
    echo "SKIP: /usr/bin/python3 is missing"
    echo "0 passed, 0 failed"
    exit 0
fi
exec "$PY" "$(dirname "$0")/induction_check.py" "$ATTEND" data/induction.json
