#!/usr/bin/env bash
# house.sh - the source tree's shape (tests/ref/house.py): no include cycle, one-way layering
# engine <- course <- session <- tui <- cli, file and function sizes, named key constants,
# cJSON only in the loaders, the Session's state in one place and every key handled.
cd "$(dirname "$0")/../.." || exit 1
exec /usr/bin/python3 tests/ref/house.py
