#!/usr/bin/env bash
# The train widget's run (called by bench/run.sh): `attend train --watch` on one thread, and
# when its best head's previous-token score first reaches 0.5 (the issue asks < 30 s).
set -u
cd "$(dirname "$0")/.." || exit 1
echo "== watch attention learn (attend train --watch, 1 thread)"
line=$(./attend train --watch --every 25 2>&1 >/dev/null | tail -n 1)
echo "  ${line#attend train --watch: }"
