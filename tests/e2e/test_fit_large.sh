#!/usr/bin/env bash
# test_fit_large.sh - the walk of test_fit.sh (every page, each control key, short sentences)
# at 100×30 and 200×60: nothing overflows, nothing unresolved. Prints "N passed, N failed".
# suite: long (about 4 minutes on an idle machine): make test-long, with test_fit.sh at 80×24;
# check-lessons --size proves these sizes headless in test_guard.sh
FIT_SIZES="100x30 200x60" exec bash "$(dirname "$0")/test_fit.sh"
