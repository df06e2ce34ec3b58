#!/bin/sh
# deps.sh - used by `make deps` / `make test-deps`: install missing Debian packages (see setup.sh).
exec "$(dirname "$0")/../setup.sh" deps "${1:-run}"
