#!/usr/bin/env bash
# The course covers every concept and drill of the source material (see coverage.py).
cd "$(dirname "$0")/../.." || exit 1
exec /usr/bin/python3 tests/ref/coverage.py "$@"
