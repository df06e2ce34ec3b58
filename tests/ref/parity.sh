#!/usr/bin/env bash
# parity.sh - the player and plain mode on one Session (tools/parity.c): every page of the
# course walked in both front ends with the same keys (every key each page offers, a typed
# sentence, a swap), the Session's state and Change identical after each, and no offered key
# answered with "does nothing". Then a front end given its own copy of a key's handling must
# fail it (tests/fixtures/parity_copy.c, built against the same objects).
cd "$(dirname "$0")/../.." || exit 1
exec "${BUILD:-build}/tools/parity" lessons
