#!/bin/sh
# hf_bad.sh - runs tests/ref/hf_bad.py (its docstring says what it checks) with Debian's python3-torch,
# python3-numpy and python3-regex under /usr/bin/python3. Prints "N passed, N failed".
PY=/usr/bin/python3
if [ ! -x "$PY" ] || ! "$PY" "$(dirname "$0")/py_has.py" torch numpy regex 2>/dev/null; then
    echo "hf_bad: needs python3-torch, python3-numpy and python3-regex for $PY (apt-get install -y python3-torch python3-numpy python3-regex)"
    echo "0 passed, 1 failed"
    exit 1
fi
exec "$PY" "$(dirname "$0")/hf_bad.py"
