#!/usr/bin/env bash
# doc_figures.sh - every figure docs/training.md quotes equals what the code computes
# (tests/ref/doc_figures.py).
cd "$(dirname "$0")/../.." || exit 1
exec /usr/bin/python3 tests/ref/doc_figures.py
