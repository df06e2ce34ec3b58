#!/usr/bin/env bash
# wordnet.sh - the default model reads everyday English without <unk> (tests/ref/wordnet.py).
cd "$(dirname "$0")/../.." || exit 1
exec /usr/bin/python3 tests/ref/wordnet.py
