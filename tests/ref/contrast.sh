#!/usr/bin/env bash
# contrast.sh - the light and projector themes' ramps hold their stated WCAG contrast
# (tests/ref/contrast.py measures them from the xterm-256 palette).
cd "$(dirname "$0")/../.." || exit 1
ATTEND=${ATTEND:-./attend}
exec /usr/bin/python3 tests/ref/contrast.py "$ATTEND"
