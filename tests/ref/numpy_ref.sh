#!/bin/sh
# numpy_ref.sh - the reference test: an independent numpy implementation (Debian's
# python3-numpy, run with /usr/bin/python3) recomputes `attend dump --format json` from the
# model file for every configuration in tests/ref/numpy_ref.py and compares every tensor.
# Run from the repo root. The binary is $ATTEND (default ./attend). Extra arguments go to
# numpy_ref.py (--only SUBSTRING, --verbose, --perturb scale|rope|gelu|eps|padding).
# Prints one PASS/FAIL line per configuration, then "N passed, N failed"; exit 1 on failure.
ATTEND=${ATTEND:-./attend}
export ATTEND
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then
    echo "numpy_ref: $PY not found; install it with: apt-get install -y python3 python3-numpy"
    echo "0 passed, 1 failed"
    exit 1
fi
if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "numpy_ref: numpy is missing for $PY; install it with: apt-get install -y python3-numpy"
    echo "0 passed, 1 failed"
    exit 1
fi
exec "$PY" "$(dirname "$0")/numpy_ref.py" "$@"
