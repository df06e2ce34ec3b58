#!/usr/bin/env bash
# house.sh - the source tree's shape (tests/ref/house.py): no include cycle, one-way layering
# engine <- course <- tui <- cli, file and function sizes, named key constants.
cd "$(dirname "$0")/../.." || exit 1
exec /usr/bin/python3 tests/ref/house.py
